#include "common/pytensor.h"

namespace repdl::pytensor {
namespace {

// Interned attribute names and torch.empty_like, made on first use (torch
// is imported by then: only repdl's Python code, which imports torch,
// reaches a native entry).
struct Names {
  PyObject* is_contiguous = PyUnicode_InternFromString("is_contiguous");
  PyObject* data_ptr = PyUnicode_InternFromString("data_ptr");
  PyObject* shape = PyUnicode_InternFromString("shape");
  PyObject* stride = PyUnicode_InternFromString("stride");
  PyObject* empty_like = nullptr;

  Names() {
    PyObject* torch = PyImport_ImportModule("torch");
    if (torch != nullptr) {
      empty_like = PyObject_GetAttrString(torch, "empty_like");
      Py_DECREF(torch);
    }
  }
  bool ok() const { return is_contiguous && data_ptr && shape && stride && empty_like; }
};

const Names* names() {
  static const Names n;
  if (!n.ok()) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "repdl._C: torch's tensor attributes are missing");
    return nullptr;
  }
  return &n;
}

}  // namespace

bool expect_args(PyObject* args, Py_ssize_t count) {
  if (PyTuple_Check(args) && PyTuple_GET_SIZE(args) == count) return true;
  PyErr_Format(PyExc_TypeError, "a native entry takes its primitive's %zd arguments", count);
  return false;
}

bool is_contiguous(PyObject* t, bool* contiguous) {
  const Names* n = names();
  PyObject* value = n ? PyObject_CallMethodNoArgs(t, n->is_contiguous) : nullptr;
  if (value == nullptr) return false;
  *contiguous = value == Py_True;
  Py_DECREF(value);
  return true;
}

bool data_ptr(PyObject* t, int64_t* address) {
  const Names* n = names();
  PyObject* value = n ? PyObject_CallMethodNoArgs(t, n->data_ptr) : nullptr;
  if (value == nullptr) return false;
  *address = PyLong_AsLongLong(value);
  Py_DECREF(value);
  return !(*address == -1 && PyErr_Occurred());
}

PyObject* shape(PyObject* t) {
  const Names* n = names();
  PyObject* value = n ? PyObject_GetAttr(t, n->shape) : nullptr;
  if (value != nullptr && !PyTuple_Check(value)) {
    Py_DECREF(value);
    PyErr_SetString(PyExc_TypeError, "repdl._C: a tensor's shape is not a tuple");
    return nullptr;
  }
  return value;
}

namespace {

// The two ints of a tuple of two into `pair`: 1, 0 for another length, -1 with an exception.
int read_pair(PyObject* tuple, int64_t pair[2]) {
  if (tuple == nullptr) return -1;
  const bool two = PyTuple_Check(tuple) && PyTuple_GET_SIZE(tuple) == 2;
  for (Py_ssize_t i = 0; two && i < 2; ++i) pair[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(tuple, i));
  Py_DECREF(tuple);
  return PyErr_Occurred() ? -1 : two;
}

}  // namespace

int matrix_sizes(PyObject* t, int64_t sizes[2]) { return read_pair(shape(t), sizes); }

int matrix(PyObject* t, int64_t sizes[2], int64_t strides[2]) {
  const int rank2 = matrix_sizes(t, sizes);
  if (rank2 <= 0) return rank2;
  const Names* n = names();
  return read_pair(n ? PyObject_CallMethodNoArgs(t, n->stride) : nullptr, strides);
}

bool numel(PyObject* shape, int64_t* n) {
  int64_t product = 1;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(shape); ++i) {
    const long long size = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, i));
    if (size == -1 && PyErr_Occurred()) return false;
    product *= size;
  }
  *n = product;
  return true;
}

PyObject* empty_like(PyObject* t) {
  const Names* n = names();
  return n ? PyObject_CallOneArg(n->empty_like, t) : nullptr;
}

PyObject* output_and_addresses(PyObject* const* inputs, int count, int64_t* addresses) {
  PyObject* out = empty_like(inputs[0]);
  bool ok = out != nullptr && data_ptr(out, &addresses[0]);
  for (int k = 0; ok && k < count; ++k) ok = data_ptr(inputs[k], &addresses[1 + k]);
  if (!ok) Py_CLEAR(out);
  return out;
}

int all_contiguous(PyObject* const* tensors, int count) {
  for (int i = 0; i < count; ++i) {
    bool dense;
    if (!is_contiguous(tensors[i], &dense)) return -1;
    if (!dense) return 0;
  }
  return 1;
}

int dense_inputs(PyObject* const* inputs, int count, PyObject** out, int64_t* n, int64_t* addresses) {
  const int dense = all_contiguous(inputs, count);
  if (dense <= 0) return dense;
  PyObject* dims = shape(inputs[0]);
  const bool ok = dims != nullptr && numel(dims, n);
  Py_XDECREF(dims);
  *out = ok ? output_and_addresses(inputs, count, addresses) : nullptr;
  return *out ? 1 : -1;
}

}  // namespace repdl::pytensor
