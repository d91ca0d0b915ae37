#include "common/pyargs.h"
#include "reduce/reduce.h"

namespace repdl {
namespace {

// The canonical view travels as its first 9 integers: x, P1, s1, P0, s0, R,
// sr, R1, sr1 (R1 = 1 and sr1 = 0 without an outer reduced index).
reduce::View view_from(const std::vector<int64_t>& v) {
  return {as_ptr<const float>(v[0]), v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]};
}

// sum(view..., out, order)  order: 0 sequential, 1 pairwise
PyObject* py_sum(PyObject*, PyObject* args) {
  return run_without_gil(args, 11, [](const std::vector<int64_t>& v) {
    reduce::sum(view_from(v), v[10] == 1 ? reduce::Order::pairwise : reduce::Order::sequential,
                as_ptr<float>(v[9]));
  });
}

// mean(view..., out, count): count as its float32 bits
PyObject* py_mean(PyObject*, PyObject* args) {
  return run_without_gil(args, 11, [](const std::vector<int64_t>& v) {
    reduce::mean(view_from(v), float_from_bits(v[10]), as_ptr<float>(v[9]));
  });
}

// sqdev(view..., mean, out)
PyObject* py_sqdev(PyObject*, PyObject* args) {
  return run_without_gil(args, 11, [](const std::vector<int64_t>& v) {
    reduce::sqdev(view_from(v), as_ptr<const float>(v[9]), as_ptr<float>(v[10]));
  });
}

// sumprod(view of a..., b, out): b has a's strides
PyObject* py_sumprod(PyObject*, PyObject* args) {
  return run_without_gil(args, 11, [](const std::vector<int64_t>& v) {
    reduce::sumprod(view_from(v), as_ptr<const float>(v[9]), as_ptr<float>(v[10]));
  });
}

// extremum(view..., value, index, is_min)
PyObject* py_extremum(PyObject*, PyObject* args) {
  return run_without_gil(args, 12, [](const std::vector<int64_t>& v) {
    reduce::extremum(view_from(v), v[11] != 0, as_ptr<float>(v[9]), as_ptr<int64_t>(v[10]));
  });
}

const PyMethodDef kMethods[] = {
    {"sum", py_sum, METH_VARARGS, "Sequential or pairwise sums over a canonical reduction view."},
    {"mean", py_mean, METH_VARARGS, "Sequential sums, each divided by a count: mean in one pass."},
    {"sqdev", py_sqdev, METH_VARARGS, "fma chains of squared deviations from per-output means."},
    {"sumprod", py_sumprod, METH_VARARGS, "fma chains of products of two tensors with one layout."},
    {"extremum", py_extremum, METH_VARARGS, "Max or min with first-index ties over a reduction view."},
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

MethodTable reduce_methods() { return kMethods; }

}  // namespace repdl
