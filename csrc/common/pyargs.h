// Argument plumbing between Python and the kernels.  Tensors cross the
// boundary as (data pointer, sizes, strides) integers, never as PyTorch
// C++ objects, so the extension needs no PyTorch headers.  Python (the
// repdl.backends.cpu package) has already checked dtypes, shapes and devices.
// (The native entries read a few tensors' Python attributes instead:
// pytensor.h.)
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "common/fpenv.h"

namespace repdl {

// Runs body() with the GIL released (kernels never touch Python objects)
// and the IEEE default environment held on this thread (fpenv.h).  Every
// binding enters its kernel through here, so no kernel's serial code runs
// under a caller's flush-to-zero or rounding mode, whichever entry it has
// (a guard written in each kernel entry was forgotten once: conv.cpp's
// replays); the threads of a parallel region take their own guard
// (parallel.h, gemm.cpp).  The guard ends before the GIL returns.
template <class Body>
inline auto kernel_call(const Body& body) -> decltype(body()) {
  struct Gil {
    PyThreadState* saved = PyEval_SaveThread();
    ~Gil() { PyEval_RestoreThread(saved); }
  } released;
  const IeeeFpGuard guard;
  return body();
}

// Reads every item of the argument tuple as a signed 64-bit integer.
// Returns false with a Python exception set if the count or a type is wrong.
inline bool parse_int_args(PyObject* args, Py_ssize_t expected, std::vector<int64_t>* out) {
  if (!PyTuple_Check(args) || PyTuple_GET_SIZE(args) != expected) {
    PyErr_Format(PyExc_TypeError, "expected %zd integer arguments", expected);
    return false;
  }
  out->resize(static_cast<size_t>(expected));
  for (Py_ssize_t i = 0; i < expected; ++i) {
    long long v = PyLong_AsLongLong(PyTuple_GET_ITEM(args, i));
    if (v == -1 && PyErr_Occurred()) return false;
    (*out)[static_cast<size_t>(i)] = v;
  }
  return true;
}

// The common binding: read `expected` integers, then run body(ints) by
// kernel_call and return None, or body's int64_t result as a Python int.
template <class Body>
inline PyObject* run_without_gil(PyObject* args, Py_ssize_t expected, const Body& body) {
  std::vector<int64_t> v;
  if (!parse_int_args(args, expected, &v)) return nullptr;
  if constexpr (std::is_void_v<decltype(body(v))>) {
    kernel_call([&] { body(v); });
    Py_RETURN_NONE;
  } else {
    return PyLong_FromLongLong(kernel_call([&] { return body(v); }));
  }
}

template <class T>
inline T* as_ptr(int64_t address) {
  return reinterpret_cast<T*>(static_cast<uintptr_t>(address));
}

// A float32 passed from Python as its bit pattern (so no conversion, and no
// FTZ on the way, can touch it).
inline float float_from_bits(int64_t bits) {
  const uint32_t u = static_cast<uint32_t>(bits);
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// A sentinel-terminated method table, one per kernel family; module.cpp
// concatenates them into repdl._C.
using MethodTable = const PyMethodDef*;

}  // namespace repdl
