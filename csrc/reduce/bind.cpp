#include "common/pyargs.h"
#include "common/pytensor.h"
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

// ---- native entries (common/route.cpp) ------------------------------------
// repdl::sum(x, dims, keepdim, order) and repdl::mean(x, dims, keepdim) in
// backends/cpu/reductions.py's common case: a contiguous, non-empty x
// reduced over its trailing dims (a loss's sum or mean, a row's) without
// keepdim, with the same kernel call: x as numel / R lines of R, the result
// row-major.  Any other case returns None, for the route to call that
// function.  `self` is (a 0-d float32 CPU tensor, new_float32): the
// allocators of backends/cpu/outputs.py, a 0-d result being empty_like of
// the first, any other new_float32(*sizes).

struct TrailingReduction {
  PyObject* out = nullptr;  // a new reference
  float* y = nullptr;       // out's data
  reduce::View rows{};
  int64_t count = 0;  // R, the reduced elements of each line
};

// The call's rows and new result: 1, 0 for a case it does not take, -1 with
// an exception.
int trailing_reduction(PyObject* self, PyObject* args, TrailingReduction* r) {
  PyObject* x = PyTuple_GET_ITEM(args, 0);
  PyObject* dims = PyTuple_GET_ITEM(args, 1);
  bool dense;
  if (!pytensor::is_contiguous(x, &dense)) return -1;
  if (!dense || !PyTuple_Check(dims) || PyTuple_GET_ITEM(args, 2) != Py_False) return 0;
  PyObject* shape = pytensor::shape(x);
  if (shape == nullptr) return -1;
  const Py_ssize_t rank = PyTuple_GET_SIZE(shape), kept = rank - PyTuple_GET_SIZE(dims);
  int64_t numel = 0, count = 1;
  bool trailing = kept >= 0 && pytensor::numel(shape, &numel);
  for (Py_ssize_t d = kept; trailing && d < rank; ++d) {
    trailing = PyLong_AsSsize_t(PyTuple_GET_ITEM(dims, d - kept)) == d;
    count *= PyLong_AsLongLong(PyTuple_GET_ITEM(shape, d));
  }
  PyObject* sizes = trailing && numel > 0 && kept > 0 ? PyTuple_GetSlice(shape, 0, kept) : nullptr;
  Py_DECREF(shape);
  if (PyErr_Occurred()) {
    Py_XDECREF(sizes);
    return -1;
  }
  if (!trailing || numel == 0) return 0;
  PyObject* scalar = PyTuple_GET_ITEM(self, 0);
  r->out = sizes ? PyObject_Call(PyTuple_GET_ITEM(self, 1), sizes, nullptr) : pytensor::empty_like(scalar);
  Py_XDECREF(sizes);
  int64_t out_address = 0, x_address = 0;
  if (r->out == nullptr || !pytensor::data_ptr(r->out, &out_address) || !pytensor::data_ptr(x, &x_address)) {
    Py_CLEAR(r->out);
    return -1;
  }
  r->y = as_ptr<float>(out_address);
  r->rows = {as_ptr<const float>(x_address), 1, 0, numel / count, count, count, 1};
  r->count = count;
  return 1;
}

// The result of a native entry: None when trailing_reduction did not take
// the call, else `run` applied to r and r.out (nullptr with an exception).
template <class Run>
PyObject* reduce_natively(PyObject* self, PyObject* args, const Run& run) {
  TrailingReduction r;
  const int taken = trailing_reduction(self, args, &r);
  if (taken <= 0) return pytensor::not_taken(taken);
  kernel_call([&] { run(r); });
  return r.out;
}

PyObject* py_native_sum(PyObject* self, PyObject* args) {
  if (!pytensor::expect_args(args, 4)) return nullptr;
  PyObject* order = PyTuple_GET_ITEM(args, 3);
  const bool pairwise = pytensor::is_str(order, "pairwise");
  if (!pairwise && !pytensor::is_str(order, "sequential")) Py_RETURN_NONE;
  return reduce_natively(self, args, [&](const TrailingReduction& r) {
    reduce::sum(r.rows, pairwise ? reduce::Order::pairwise : reduce::Order::sequential, r.y);
  });
}

// The count's conversion to float32 (one rounding, as fl32 of the Python
// int) runs inside the IEEE environment, as every kernel does.
PyObject* py_native_mean(PyObject* self, PyObject* args) {
  if (!pytensor::expect_args(args, 3)) return nullptr;
  return reduce_natively(self, args, [](const TrailingReduction& r) {
    reduce::mean(r.rows, static_cast<float>(r.count), r.y);
  });
}

PyMethodDef g_native_sum = {"native_sum", py_native_sum, METH_VARARGS, "repdl::sum's native entry."};
PyMethodDef g_native_mean = {"native_mean", py_native_mean, METH_VARARGS, "repdl::mean's native entry."};

// make_native_reductions(scalar32, new_float32): the entries of sum and mean.
PyObject* py_make_native_reductions(PyObject*, PyObject* allocators) {
  if (!PyTuple_Check(allocators) || PyTuple_GET_SIZE(allocators) != 2) {
    PyErr_SetString(PyExc_TypeError, "make_native_reductions takes (a 0-d float32 tensor, new_float32)");
    return nullptr;
  }
  return Py_BuildValue("(NN)", PyCFunction_New(&g_native_sum, allocators), PyCFunction_New(&g_native_mean, allocators));
}

const PyMethodDef kMethods[] = {
    {"sum", py_sum, METH_VARARGS, "Sequential or pairwise sums over a canonical reduction view."},
    {"mean", py_mean, METH_VARARGS, "Sequential sums, each divided by a count: mean in one pass."},
    {"sqdev", py_sqdev, METH_VARARGS, "fma chains of squared deviations from per-output means."},
    {"sumprod", py_sumprod, METH_VARARGS, "fma chains of products of two tensors with one layout."},
    {"extremum", py_extremum, METH_VARARGS, "Max or min with first-index ties over a reduction view."},
    {"make_native_reductions", py_make_native_reductions, METH_VARARGS,
     "The native entries of repdl::sum and repdl::mean (a route's)."},
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

MethodTable reduce_methods() { return kMethods; }

}  // namespace repdl
