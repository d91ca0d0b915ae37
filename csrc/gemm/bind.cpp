#include "common/pyargs.h"
#include "gemm/gemm.h"

namespace repdl {
namespace {

// gemm(m, n, k, a, a_rs, a_cs, b, b_rs, b_cs, c, ldc, ndim, sizes[ndim],
//      a_strides[ndim], b_strides[ndim]); C is dense per batch entry.
PyObject* py_gemm(PyObject*, PyObject* args) {
  const Py_ssize_t fixed = 12;
  if (!PyTuple_Check(args) || PyTuple_GET_SIZE(args) < fixed) {
    PyErr_SetString(PyExc_TypeError, "gemm: too few arguments");
    return nullptr;
  }
  const long long ndim = PyLong_AsLongLong(PyTuple_GET_ITEM(args, fixed - 1));
  if (ndim < 0 || ndim > 64) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "gemm: bad batch rank");
    return nullptr;
  }
  return run_without_gil(args, fixed + 3 * ndim, [&](const std::vector<int64_t>& v) {
    const gemm::Problem p{v[0], v[1], v[2],
                          {as_ptr<const float>(v[3]), v[4], v[5]},
                          {as_ptr<const float>(v[6]), v[7], v[8]},
                          as_ptr<float>(v[9]), v[10]};
    const int64_t* dims = v.data() + fixed;
    gemm::run(p, gemm::Batch{static_cast<int>(ndim), dims, dims + ndim, dims + 2 * ndim});
  });
}

const PyMethodDef kMethods[] = {
    {"gemm", py_gemm, METH_VARARGS, "Batched sequential-k-chain SGEMM on raw pointers."},
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

MethodTable gemm_methods() { return kMethods; }

}  // namespace repdl
