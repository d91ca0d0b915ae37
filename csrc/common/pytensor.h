// A torch.Tensor read through its Python attributes, for the native entries
// (route.cpp): the bindings that take tensors themselves, not the integers
// of pyargs.h, so that a primitive's common case runs without the Python
// layers of the CPU backend.  Only what Python code reads is used (shape,
// stride(), is_contiguous(), data_ptr(), torch.empty_like), never PyTorch's
// C++ objects: the extension still needs no PyTorch headers and one build
// serves every torch version.
#pragma once

#include "common/pyargs.h"

namespace repdl::pytensor {

// What a native entry returns for a call it does not compute: None when
// `taken` is 0 (a case it leaves to the Python function), nullptr when it
// is -1 (an exception is set).
inline PyObject* not_taken(int taken) {
  if (taken < 0) return nullptr;
  Py_RETURN_NONE;
}

// The functions below that return bool return false with a Python
// exception set when torch raised.

// A native entry's argument tuple holds `count` items (else a TypeError).
bool expect_args(PyObject* args, Py_ssize_t count);

// Whether the argument s is the str `text` (an option named by a string).
inline bool is_str(PyObject* s, const char* text) {
  return PyUnicode_Check(s) && PyUnicode_CompareWithASCIIString(s, text) == 0;
}

// *contiguous = t.is_contiguous().
bool is_contiguous(PyObject* t, bool* contiguous);

// Whether every tensor of `tensors` is contiguous: 1, 0, -1 with an exception.
int all_contiguous(PyObject* const* tensors, int count);

// *address = t.data_ptr().
bool data_ptr(PyObject* t, int64_t* address);

// t.shape (a torch.Size: a tuple of ints), a new reference, or nullptr.
PyObject* shape(PyObject* t);

// A rank-2 tensor's sizes (and element strides), read into pairs: 1, 0 when
// t has another rank, -1 with an exception.
int matrix_sizes(PyObject* t, int64_t sizes[2]);
int matrix(PyObject* t, int64_t sizes[2], int64_t strides[2]);

// The product of a shape's sizes.
bool numel(PyObject* shape, int64_t* n);

// torch.empty_like(t), a new reference, or nullptr.
PyObject* empty_like(PyObject* t);

// out = torch.empty_like(inputs[0]) (a new reference, or nullptr), with
// addresses[0] = out.data_ptr() and addresses[1 + k] = inputs[k].data_ptr().
PyObject* output_and_addresses(PyObject* const* inputs, int count, int64_t* addresses);

// The dense call of an elementwise entry: when every input is contiguous,
// *n = inputs[0].numel() and *out, addresses as output_and_addresses gives
// them: 1, 0 when an input is not contiguous, -1 with an exception.
int dense_inputs(PyObject* const* inputs, int count, PyObject** out, int64_t* n, int64_t* addresses);

}  // namespace repdl::pytensor
