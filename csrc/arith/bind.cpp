// Python bindings of the arithmetic kernels.  An operation crosses as its
// fixed integers followed by the index space: sizes[ndim], then one stride
// list per tensor input (element strides, 0 where broadcast).  The output is
// a dense tensor of those sizes; Python has checked dtypes and shapes.
#include <cstring>

#include "arith/arith.h"
#include "common/pyargs.h"

namespace repdl {
namespace {

// Reads the argument tuple: `fixed` integers (the last of them ndim), then
// (1 + inputs) * ndim more, into `v` and the iterator's sizes and strides.
template <int N>
bool parse(PyObject* args, Py_ssize_t fixed, std::vector<int64_t>* v, arith::Iter<N>* it) {
  if (!PyTuple_Check(args) || PyTuple_GET_SIZE(args) < fixed) {
    PyErr_SetString(PyExc_TypeError, "arith: too few arguments");
    return false;
  }
  const long long ndim = PyLong_AsLongLong(PyTuple_GET_ITEM(args, fixed - 1));
  if (ndim < 0 || ndim > arith::kMaxDims) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "arith: rank out of range");
    return false;
  }
  if (!parse_int_args(args, fixed + (1 + N) * ndim, v)) return false;
  it->ndim = static_cast<int>(ndim);
  const int64_t* dims = v->data() + fixed;
  std::memcpy(it->sizes, dims, ndim * sizeof(int64_t));
  for (int k = 0; k < N; ++k) std::memcpy(it->strides[k], dims + (1 + k) * ndim, ndim * sizeof(int64_t));
  return true;
}

bool valid_op(int64_t op) {
  if (op >= 0 && op <= 3) return true;
  PyErr_SetString(PyExc_ValueError, "arith: unknown binary operation");
  return false;
}

// binary(op, y, a, b, ndim, sizes..., a_strides..., b_strides...)
PyObject* py_binary(PyObject*, PyObject* args) {
  std::vector<int64_t> v;
  arith::Iter<2> it;
  if (!parse(args, 5, &v, &it) || !valid_op(v[0])) return nullptr;
  it.in[0] = as_ptr<const float>(v[2]);
  it.in[1] = as_ptr<const float>(v[3]);
  kernel_call([&] { arith::binary(static_cast<arith::Binary>(v[0]), it, as_ptr<float>(v[1])); });
  Py_RETURN_NONE;
}

// binary_scalar(op, y, a, scalar_bits, scalar_left, ndim, sizes..., a_strides...)
PyObject* py_binary_scalar(PyObject*, PyObject* args) {
  std::vector<int64_t> v;
  arith::Iter<1> it;
  if (!parse(args, 6, &v, &it) || !valid_op(v[0])) return nullptr;
  it.in[0] = as_ptr<const float>(v[2]);
  const float s = float_from_bits(v[3]);
  kernel_call([&] { arith::binary_scalar(static_cast<arith::Binary>(v[0]), it, s, v[4] != 0, as_ptr<float>(v[1])); });
  Py_RETURN_NONE;
}

// fma(y, a, b, c, ndim, sizes..., a_strides..., b_strides..., c_strides...)
PyObject* py_fma(PyObject*, PyObject* args) {
  std::vector<int64_t> v;
  arith::Iter<3> it;
  if (!parse(args, 5, &v, &it)) return nullptr;
  for (int k = 0; k < 3; ++k) it.in[k] = as_ptr<const float>(v[1 + k]);
  kernel_call([&] { arith::fma(it, as_ptr<float>(v[0])); });
  Py_RETURN_NONE;
}

// compare(x, n, op, h_bits, mask): x dense float32, mask dense bool
PyObject* py_compare(PyObject*, PyObject* args) {
  return run_without_gil(args, 5, [](const std::vector<int64_t>& v) {
    arith::compare(as_ptr<const float>(v[0]), v[1], static_cast<arith::Compare>(v[2] & 3), float_from_bits(v[3]),
                   as_ptr<uint8_t>(v[4]));
  });
}

// clamp_backward(x, g, n, lo_bits, hi_bits, inclusive, dx): all dense
PyObject* py_clamp_backward(PyObject*, PyObject* args) {
  return run_without_gil(args, 7, [](const std::vector<int64_t>& v) {
    arith::clamp_backward(as_ptr<const float>(v[0]), as_ptr<const float>(v[1]), v[2], float_from_bits(v[3]),
                          float_from_bits(v[4]), v[5] != 0, as_ptr<float>(v[6]));
  });
}

// clamp(y, x, lo_bits, hi_bits, ndim, sizes..., x_strides...)
PyObject* py_clamp(PyObject*, PyObject* args) {
  std::vector<int64_t> v;
  arith::Iter<1> it;
  if (!parse(args, 5, &v, &it)) return nullptr;
  it.in[0] = as_ptr<const float>(v[1]);
  const float lo = float_from_bits(v[2]), hi = float_from_bits(v[3]);
  kernel_call([&] { arith::clamp(it, lo, hi, as_ptr<float>(v[0])); });
  Py_RETURN_NONE;
}

const PyMethodDef kMethods[] = {
    {"compare", py_compare, METH_VARARGS, "IEEE x > >= < <= h into a bool mask."},
    {"clamp_backward", py_clamp_backward, METH_VARARGS, "clamp's gradient: g inside the range, +0.0 outside."},
    {"clamp", py_clamp, METH_VARARGS, "x clamped to [lo, hi] (NaN kept, canonical) over a strided operand."},
    {"binary", py_binary, METH_VARARGS, "IEEE float32 a + - * / b over broadcast strided operands."},
    {"binary_scalar", py_binary_scalar, METH_VARARGS, "IEEE float32 a + - * / s (or s op a) for one float32 s."},
    {"fma", py_fma, METH_VARARGS, "Single-rounding fma32 over broadcast strided operands."},
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

MethodTable arith_methods() { return kMethods; }

}  // namespace repdl
