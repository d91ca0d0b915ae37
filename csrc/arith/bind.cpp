// Python bindings of the arithmetic kernels.  An operation crosses as its
// fixed integers followed by the index space: sizes[ndim], then one stride
// list per tensor input (element strides, 0 where broadcast).  The output is
// a dense tensor of those sizes; Python has checked dtypes and shapes.
#include <cstring>

#include "arith/arith.h"
#include "common/pyargs.h"
#include "common/pytensor.h"

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

// ---- native entries (common/route.cpp) ------------------------------------
// backends/cpu/arith.py's dense cases taking the tensors themselves, with the
// same kernel calls, so a small op skips the backend's Python layers; any
// other case returns None and the route calls the Python function.  `self`
// is the operation's code; the route has checked that a and b are plain
// float32 tensors on the CPU.

// The index space of a op b for shapes sa and sb in the two dense cases
// that backends/cpu/arith.py's binary passes as flat ranges: equal shapes
// (one dim of numel), and sb a row over sa's last dim (rows x cols, b's
// row stride 0).  1 when it is one of them (`it` filled), 0 when not, -1
// with an exception.
int dense_space(PyObject* sa, PyObject* sb, arith::Iter<2>* it) {
  int64_t n;
  if (!pytensor::numel(sa, &n)) return -1;
  const int equal = PyObject_RichCompareBool(sa, sb, Py_EQ);
  if (equal != 0) {
    it->ndim = 1;
    it->sizes[0] = n;
    it->strides[0][0] = it->strides[1][0] = 1;
    return equal;
  }
  const Py_ssize_t rank = PyTuple_GET_SIZE(sa);
  if (PyTuple_GET_SIZE(sb) != 1 || rank < 2) return 0;
  const long long cols = PyLong_AsLongLong(PyTuple_GET_ITEM(sb, 0));
  if (cols == 0 || cols != PyLong_AsLongLong(PyTuple_GET_ITEM(sa, rank - 1))) return PyErr_Occurred() ? -1 : 0;
  it->ndim = 2;
  it->sizes[0] = n / cols;
  it->sizes[1] = cols;
  it->strides[0][0] = cols;
  it->strides[1][0] = 0;
  it->strides[0][1] = it->strides[1][1] = 1;
  return 1;
}

// native_binary(a, b): a op b for contiguous a and b in a dense case.
PyObject* py_native_binary(PyObject* self, PyObject* args) {
  if (!pytensor::expect_args(args, 2)) return nullptr;
  PyObject* const ab[2] = {PyTuple_GET_ITEM(args, 0), PyTuple_GET_ITEM(args, 1)};
  bool dense_a, dense_b;
  if (!pytensor::is_contiguous(ab[0], &dense_a) || !pytensor::is_contiguous(ab[1], &dense_b)) return nullptr;
  if (!dense_a || !dense_b) Py_RETURN_NONE;
  PyObject* sa = pytensor::shape(ab[0]);
  PyObject* sb = sa ? pytensor::shape(ab[1]) : nullptr;
  arith::Iter<2> it;
  const int dense = sb ? dense_space(sa, sb, &it) : -1;
  Py_XDECREF(sa);
  Py_XDECREF(sb);
  if (dense <= 0) return pytensor::not_taken(dense);
  int64_t addresses[3];
  PyObject* out = pytensor::output_and_addresses(ab, 2, addresses);
  if (out == nullptr) return nullptr;
  it.in[0] = as_ptr<const float>(addresses[1]);
  it.in[1] = as_ptr<const float>(addresses[2]);
  const auto op = static_cast<arith::Binary>(PyLong_AsLong(self));
  kernel_call([&] { arith::binary(op, it, as_ptr<float>(addresses[0])); });
  return out;
}

// native_binary_scalar(a, s, scalar_left): a op s (or s op a) for a
// contiguous a and s a Python float holding a float32 value.
PyObject* py_native_binary_scalar(PyObject* self, PyObject* args) {
  if (!pytensor::expect_args(args, 3)) return nullptr;
  PyObject* s = PyTuple_GET_ITEM(args, 1);
  if (!PyFloat_CheckExact(s)) Py_RETURN_NONE;
  PyObject* out;
  int64_t addresses[2];
  arith::Iter<1> it;
  const int taken = pytensor::dense_inputs(&PyTuple_GET_ITEM(args, 0), 1, &out, &it.sizes[0], addresses);
  if (taken <= 0) return pytensor::not_taken(taken);
  it.ndim = 1;
  it.strides[0][0] = 1;
  it.in[0] = as_ptr<const float>(addresses[1]);
  const auto op = static_cast<arith::Binary>(PyLong_AsLong(self));
  const double value = PyFloat_AS_DOUBLE(s);
  const bool left = PyTuple_GET_ITEM(args, 2) == Py_True;
  // The conversion to float is exact (s holds a float32 value) and runs
  // inside the IEEE environment, so no caller's FTZ can flush a subnormal s.
  kernel_call([&] { arith::binary_scalar(op, it, static_cast<float>(value), left, as_ptr<float>(addresses[0])); });
  return out;
}

PyMethodDef g_native_binary = {"native_binary", py_native_binary, METH_VARARGS, "binary's native entry."};
PyMethodDef g_native_binary_scalar = {"native_binary_scalar", py_native_binary_scalar, METH_VARARGS,
                                      "binary_scalar's native entry."};

// make_native_binary(op) and make_native_binary_scalar(op): the entries of one operation.
PyObject* py_make_native_binary(PyObject*, PyObject* op) {
  return valid_op(PyLong_AsLongLong(op)) ? PyCFunction_New(&g_native_binary, op) : nullptr;
}

PyObject* py_make_native_binary_scalar(PyObject*, PyObject* op) {
  return valid_op(PyLong_AsLongLong(op)) ? PyCFunction_New(&g_native_binary_scalar, op) : nullptr;
}

const PyMethodDef kMethods[] = {
    {"compare", py_compare, METH_VARARGS, "IEEE x > >= < <= h into a bool mask."},
    {"clamp_backward", py_clamp_backward, METH_VARARGS, "clamp's gradient: g inside the range, +0.0 outside."},
    {"clamp", py_clamp, METH_VARARGS, "x clamped to [lo, hi] (NaN kept, canonical) over a strided operand."},
    {"binary", py_binary, METH_VARARGS, "IEEE float32 a + - * / b over broadcast strided operands."},
    {"binary_scalar", py_binary_scalar, METH_VARARGS, "IEEE float32 a + - * / s (or s op a) for one float32 s."},
    {"fma", py_fma, METH_VARARGS, "Single-rounding fma32 over broadcast strided operands."},
    {"make_native_binary", py_make_native_binary, METH_O, "The native entry of binary(op, ...) (a route's)."},
    {"make_native_binary_scalar", py_make_native_binary_scalar, METH_O,
     "The native entry of binary_scalar(op, ...) (a route's)."},
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

MethodTable arith_methods() { return kMethods; }

}  // namespace repdl
