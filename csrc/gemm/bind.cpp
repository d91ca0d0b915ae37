#include "arith/arith.h"
#include "common/pyargs.h"
#include "common/pytensor.h"
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

// ---- native entries (common/route.cpp) ------------------------------------
// repdl::matmul(a, b) and repdl::linear(x, weight, bias) in
// backends/cpu/linalg.py's common case, rank-2 operands of any strides,
// with the same kernel calls; other ranks return None, for the route to
// call that function.  `self` is new_float32 (backends/cpu/outputs.py),
// which allocates the (m, n) result as that function does.

// c = new_float32(m, n) and the product a (m x k) b (k x n) into it; nullptr with an exception.
PyObject* product(PyObject* self, int64_t m, int64_t n, int64_t k, gemm::Operand a, gemm::Operand b,
                  PyObject* a_tensor, PyObject* b_tensor, float** c) {
  PyObject* out = PyObject_CallFunction(self, "LL", static_cast<long long>(m), static_cast<long long>(n));
  int64_t addresses[3];
  PyObject* const tensors[3] = {out, a_tensor, b_tensor};
  for (int i = 0; out != nullptr && i < 3; ++i) {
    if (!pytensor::data_ptr(tensors[i], &addresses[i])) Py_CLEAR(out);
  }
  if (out == nullptr) return nullptr;
  a.p = as_ptr<const float>(addresses[1]);
  b.p = as_ptr<const float>(addresses[2]);
  *c = as_ptr<float>(addresses[0]);
  const gemm::Problem p{m, n, k, a, b, *c, n};
  kernel_call([&] { gemm::run(p, gemm::Batch{0, nullptr, nullptr, nullptr}); });
  return out;
}

// The sizes and strides of the call's first two arguments when both are
// matrices: 1, 0 when one is not, -1 with an exception.
int two_matrices(PyObject* args, int64_t as[2], int64_t ast[2], int64_t bs[2], int64_t bst[2]) {
  const int first = pytensor::matrix(PyTuple_GET_ITEM(args, 0), as, ast);
  return first > 0 ? pytensor::matrix(PyTuple_GET_ITEM(args, 1), bs, bst) : first;
}

PyObject* py_native_matmul(PyObject* self, PyObject* args) {
  if (!pytensor::expect_args(args, 2)) return nullptr;
  int64_t as[2], ast[2], bs[2], bst[2];
  const int taken = two_matrices(args, as, ast, bs, bst);
  if (taken <= 0) return pytensor::not_taken(taken);
  float* c;
  return product(self, as[0], bs[1], as[1], {nullptr, ast[0], ast[1]}, {nullptr, bst[0], bst[1]},
                 PyTuple_GET_ITEM(args, 0), PyTuple_GET_ITEM(args, 1), &c);
}

// x @ weight^T (weight^T's strides are weight's swapped), then + bias in
// place (one rounding): a bias of shape (N,) walks each row of the result,
// one of shape () or (1,) is read at stride 0.
PyObject* py_native_linear(PyObject* self, PyObject* args) {
  if (!pytensor::expect_args(args, 3)) return nullptr;
  PyObject* x = PyTuple_GET_ITEM(args, 0);
  PyObject* weight = PyTuple_GET_ITEM(args, 1);
  PyObject* bias = PyTuple_GET_ITEM(args, 2);
  int64_t xs[2], xst[2], ws[2], wst[2];
  const int taken = two_matrices(args, xs, xst, ws, wst);
  if (taken <= 0) return pytensor::not_taken(taken);
  int64_t column = 0, bias_address = 0;
  if (bias != Py_None) {
    PyObject* shape = pytensor::shape(bias);
    if (shape == nullptr) return nullptr;
    const bool walks = PyTuple_GET_SIZE(shape) > 0 && PyLong_AsLongLong(PyTuple_GET_ITEM(shape, 0)) != 1;
    Py_DECREF(shape);
    PyObject* stride = walks ? PyObject_CallMethod(bias, "stride", "i", 0) : nullptr;
    if (walks) {
      column = stride ? PyLong_AsLongLong(stride) : -1;
      Py_XDECREF(stride);
    }
    if (PyErr_Occurred() || !pytensor::data_ptr(bias, &bias_address)) return nullptr;
  }
  const int64_t m = xs[0], n = ws[0];
  float* y;
  PyObject* out = product(self, m, n, xs[1], {nullptr, xst[0], xst[1]}, {nullptr, wst[1], wst[0]}, x, weight, &y);
  if (out == nullptr || bias == Py_None) return out;
  arith::Iter<2> it;
  it.ndim = 2;
  it.sizes[0] = m;
  it.sizes[1] = n;
  it.in[0] = y;
  it.in[1] = as_ptr<const float>(bias_address);
  it.strides[0][0] = n;
  it.strides[0][1] = 1;
  it.strides[1][0] = 0;
  it.strides[1][1] = column;
  kernel_call([&] { arith::binary(arith::Binary::add, it, y); });
  return out;
}

PyMethodDef g_native_matmul = {"native_matmul", py_native_matmul, METH_VARARGS, "repdl::matmul's native entry."};
PyMethodDef g_native_linear = {"native_linear", py_native_linear, METH_VARARGS, "repdl::linear's native entry."};

// make_native_products(new_float32): the entries of matmul and linear.
PyObject* py_make_native_products(PyObject*, PyObject* new_float32) {
  return Py_BuildValue("(NN)", PyCFunction_New(&g_native_matmul, new_float32),
                       PyCFunction_New(&g_native_linear, new_float32));
}

const PyMethodDef kMethods[] = {
    {"gemm", py_gemm, METH_VARARGS, "Batched sequential-k-chain SGEMM on raw pointers."},
    {"make_native_products", py_make_native_products, METH_O,
     "The native entries of repdl::matmul and repdl::linear (a route's)."},
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

MethodTable gemm_methods() { return kMethods; }

}  // namespace repdl
