#include "common/pyargs.h"
#include "common/pytensor.h"
#include "norm/norm.h"

namespace repdl {
namespace {

// The rows' description: rows, n, centered, eps_bits, w, b (w and b may be 0).
norm::Rows rows_from(const std::vector<int64_t>& v) {
  return {v[0], v[1], v[2] != 0, float_from_bits(v[3]), as_ptr<const float>(v[4]), as_ptr<const float>(v[5])};
}

// norm_forward(rows..., x, y, mean, rstd)
PyObject* py_forward(PyObject*, PyObject* args) {
  return run_without_gil(args, 10, [](const std::vector<int64_t>& v) {
    norm::forward(rows_from(v), as_ptr<const float>(v[6]), as_ptr<float>(v[7]), as_ptr<float>(v[8]),
                  as_ptr<float>(v[9]));
  });
}

// norm_backward(rows..., g, x, mean, rstd, dx, dw, db): dw, db may be 0
PyObject* py_backward(PyObject*, PyObject* args) {
  return run_without_gil(args, 13, [](const std::vector<int64_t>& v) {
    norm::backward(rows_from(v), as_ptr<const float>(v[6]), as_ptr<const float>(v[7]), as_ptr<const float>(v[8]),
                   as_ptr<const float>(v[9]), as_ptr<float>(v[10]), as_ptr<float>(v[11]), as_ptr<float>(v[12]));
  });
}

// The channels' description: N, C, L, eps_bits, w, b (w and b may be 0).
norm::Channels channels_from(const std::vector<int64_t>& v) {
  return {v[0], v[1], v[2], float_from_bits(v[3]), as_ptr<const float>(v[4]), as_ptr<const float>(v[5])};
}

// batch_norm_forward(channels..., x, y, mean, ss, rstd)
PyObject* py_channels_forward(PyObject*, PyObject* args) {
  return run_without_gil(args, 11, [](const std::vector<int64_t>& v) {
    norm::forward(channels_from(v), as_ptr<const float>(v[6]), as_ptr<float>(v[7]), as_ptr<float>(v[8]),
                  as_ptr<float>(v[9]), as_ptr<float>(v[10]));
  });
}

// batch_norm_backward(channels..., g, x, mean, rstd, dx, dw, db): b, dw, db may be 0
PyObject* py_channels_backward(PyObject*, PyObject* args) {
  return run_without_gil(args, 13, [](const std::vector<int64_t>& v) {
    norm::backward(channels_from(v), as_ptr<const float>(v[6]), as_ptr<const float>(v[7]),
                   as_ptr<const float>(v[8]), as_ptr<const float>(v[9]), as_ptr<float>(v[10]), as_ptr<float>(v[11]),
                   as_ptr<float>(v[12]));
  });
}

// batch_norm_evaluate(channels..., x, mean, var, y)
PyObject* py_channels_evaluate(PyObject*, PyObject* args) {
  return run_without_gil(args, 10, [](const std::vector<int64_t>& v) {
    norm::evaluate(channels_from(v), as_ptr<const float>(v[6]), as_ptr<const float>(v[7]),
                   as_ptr<const float>(v[8]), as_ptr<float>(v[9]));
  });
}

// The groups' description: N, G, Cg, L, eps_bits, w, b (w and b may be 0).
norm::Groups groups_from(const std::vector<int64_t>& v) {
  return {v[0], v[1], v[2], v[3], float_from_bits(v[4]), as_ptr<const float>(v[5]), as_ptr<const float>(v[6])};
}

// group_norm_forward(groups..., x, y, mean, rstd)
PyObject* py_groups_forward(PyObject*, PyObject* args) {
  return run_without_gil(args, 11, [](const std::vector<int64_t>& v) {
    norm::forward(groups_from(v), as_ptr<const float>(v[7]), as_ptr<float>(v[8]), as_ptr<float>(v[9]),
                  as_ptr<float>(v[10]));
  });
}

// group_norm_backward(groups..., g, x, mean, rstd, dx, dw, db): b, dw, db may be 0
PyObject* py_groups_backward(PyObject*, PyObject* args) {
  return run_without_gil(args, 14, [](const std::vector<int64_t>& v) {
    norm::backward(groups_from(v), as_ptr<const float>(v[7]), as_ptr<const float>(v[8]),
                   as_ptr<const float>(v[9]), as_ptr<const float>(v[10]), as_ptr<float>(v[11]), as_ptr<float>(v[12]),
                   as_ptr<float>(v[13]));
  });
}

// batch_norm_running(C, keep_bits, take_bits, n_less_one_bits, running_mean, running_var, mean, ss, new_mean,
// new_var)
PyObject* py_update_running(PyObject*, PyObject* args) {
  return run_without_gil(args, 10, [](const std::vector<int64_t>& v) {
    norm::update_running(v[0], float_from_bits(v[1]), float_from_bits(v[2]), float_from_bits(v[3]),
                         as_ptr<const float>(v[4]), as_ptr<const float>(v[5]), as_ptr<const float>(v[6]),
                         as_ptr<const float>(v[7]), as_ptr<float>(v[8]), as_ptr<float>(v[9]));
  });
}

// ---- native entry (common/route.cpp) --------------------------------------
// repdl::norm_rows(x, w, b, eps, centered) of backends/cpu/norm.py for a
// contiguous x (rows, n) and contiguous (or absent) parameters, with the
// same kernel call; None for the route to call that function otherwise.
// `self` is new_float32 (backends/cpu/outputs.py), which allocates the
// statistics, (2, rows) or (1, rows), as that function does.

// *address = t.data_ptr() for a contiguous t, 0 for None: 1, 0 when t is not
// contiguous, -1 with an exception.
int optional_dense(PyObject* t, int64_t* address) {
  *address = 0;
  if (t == Py_None) return 1;
  bool dense;
  if (!pytensor::is_contiguous(t, &dense)) return -1;
  if (!dense) return 0;
  return pytensor::data_ptr(t, address) ? 1 : -1;
}

PyObject* py_native_norm_rows(PyObject* self, PyObject* args) {
  if (!pytensor::expect_args(args, 5)) return nullptr;
  PyObject* const x[1] = {PyTuple_GET_ITEM(args, 0)};
  PyObject* eps = PyTuple_GET_ITEM(args, 3);
  const bool centered = PyTuple_GET_ITEM(args, 4) == Py_True;
  int64_t sizes[2], w = 0, b = 0;
  bool dense;
  int taken = pytensor::matrix_sizes(x[0], sizes);
  if (taken > 0 && !pytensor::is_contiguous(x[0], &dense)) taken = -1;
  if (taken > 0) taken = dense && PyFloat_CheckExact(eps);
  if (taken > 0) taken = optional_dense(PyTuple_GET_ITEM(args, 1), &w);
  if (taken > 0) taken = optional_dense(PyTuple_GET_ITEM(args, 2), &b);
  if (taken <= 0) return pytensor::not_taken(taken);
  const norm::Rows r{sizes[0], sizes[1], centered, static_cast<float>(PyFloat_AS_DOUBLE(eps)), as_ptr<const float>(w),
                     as_ptr<const float>(b)};
  int64_t addresses[2], stats_address = 0;
  PyObject* y = pytensor::output_and_addresses(x, 1, addresses);
  PyObject* stats = y ? PyObject_CallFunction(self, "iL", centered ? 2 : 1, static_cast<long long>(r.rows)) : nullptr;
  if (stats == nullptr || !pytensor::data_ptr(stats, &stats_address)) {
    Py_XDECREF(y);
    Py_XDECREF(stats);
    return nullptr;
  }
  float* rstd = as_ptr<float>(stats_address) + (centered ? r.rows : 0);  // the rstds a row after the means
  float* mean = centered ? as_ptr<float>(stats_address) : nullptr;
  kernel_call([&] { norm::forward(r, as_ptr<const float>(addresses[1]), as_ptr<float>(addresses[0]), mean, rstd); });
  return Py_BuildValue("(NN)", y, stats);
}

PyMethodDef g_native_norm_rows = {"native_norm_rows", py_native_norm_rows, METH_VARARGS,
                                  "repdl::norm_rows's native entry."};

// make_native_norm_rows(new_float32)
PyObject* py_make_native_norm_rows(PyObject*, PyObject* new_float32) {
  return PyCFunction_New(&g_native_norm_rows, new_float32);
}

const PyMethodDef kMethods[] = {
    {"norm_forward", py_forward, METH_VARARGS, "Layer/RMS normalisation of dense rows, with the affine step."},
    {"make_native_norm_rows", py_make_native_norm_rows, METH_O, "The native entry of repdl::norm_rows (a route's)."},
    {"norm_backward", py_backward, METH_VARARGS, "Its backward: dx and the affine parameters' gradients."},
    {"batch_norm_forward", py_channels_forward, METH_VARARGS,
     "Batch normalisation's training forward over (N, C, L), with the affine step."},
    {"batch_norm_backward", py_channels_backward, METH_VARARGS, "Its backward: dx, dw and db."},
    {"batch_norm_running", py_update_running, METH_VARARGS, "The running statistics' new values."},
    {"batch_norm_evaluate", py_channels_evaluate, METH_VARARGS,
     "Batch normalisation's evaluation mode over (N, C, L) from the running statistics."},
    {"group_norm_forward", py_groups_forward, METH_VARARGS,
     "Group normalisation's forward over (N, C, L), with the per-channel affine step."},
    {"group_norm_backward", py_groups_backward, METH_VARARGS, "Its backward: dx, dw and db."},
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

MethodTable norm_methods() { return kMethods; }

}  // namespace repdl
