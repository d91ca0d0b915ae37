#include "arith/arith.h"
#include "common/pyargs.h"

namespace repdl {
namespace {

// fma(a, b, c, y, n) on dense float32 arrays.
PyObject* py_fma(PyObject*, PyObject* args) {
  return run_without_gil(args, 5, [](const std::vector<int64_t>& v) {
    arith::fma(as_ptr<const float>(v[0]), as_ptr<const float>(v[1]), as_ptr<const float>(v[2]),
               as_ptr<float>(v[3]), v[4]);
  });
}

// add_bias(y, m, n, bias, bias_stride): y (m, n) dense, in place.
PyObject* py_add_bias(PyObject*, PyObject* args) {
  return run_without_gil(args, 5, [](const std::vector<int64_t>& v) {
    arith::add_bias(as_ptr<float>(v[0]), v[1], v[2], as_ptr<const float>(v[3]), v[4]);
  });
}

const PyMethodDef kMethods[] = {
    {"add_bias", py_add_bias, METH_VARARGS, "In-place y + bias over rows of a dense matrix."},
    {"fma", py_fma, METH_VARARGS, "Elementwise single-rounding fma over dense float32 arrays."},
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

MethodTable arith_methods() { return kMethods; }

}  // namespace repdl
