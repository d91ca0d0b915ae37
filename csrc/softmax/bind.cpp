#include "common/pyargs.h"
#include "common/pytensor.h"
#include "softmax/class_nll.h"
#include "softmax/softmax.h"

namespace repdl {
namespace {

// The lines of a call's first seven arguments: x, P1, s1, P0, s0, R, sr.
reduce::View lines(const std::vector<int64_t>& v) {
  return {as_ptr<const float>(v[0]), v[1], v[2], v[3], v[4], v[5], v[6]};
}

// Attention's steps (softmax.h's Scores) from the five arguments at v[i]:
// scale_bits, mask_kind, mask, m1, m0.
softmax::Scores scores(const std::vector<int64_t>& v, size_t i) {
  return {float_from_bits(v[i]), static_cast<softmax::Scores::Mask>(v[i + 1]), as_ptr<const void>(v[i + 2]), v[i + 3],
          v[i + 4]};
}

// Whether the int args[index] of a call with `size` arguments lies in [0,
// max] (the enums' range, checked before any cast); else a ValueError.
bool in_range(PyObject* args, Py_ssize_t size, Py_ssize_t index, long long max, const char* message) {
  if (PyTuple_Check(args) && PyTuple_GET_SIZE(args) == size) {
    const long long value = PyLong_AsLongLong(PyTuple_GET_ITEM(args, index));
    if (value < 0 || value > max) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, message);
      return false;
    }
  }
  return true;
}

// softmax(x, P1, s1, P0, s0, R, sr, y, kind)  kind: 0 softmax, 1 log_softmax, 2 logsumexp, 3 log_softmax_stats
PyObject* py_softmax(PyObject*, PyObject* args) {
  if (!in_range(args, 9, 8, 3, "softmax: kind must be 0, 1, 2 or 3")) return nullptr;
  return run_without_gil(args, 9, [](const std::vector<int64_t>& v) {
    softmax::run(lines(v), static_cast<softmax::Kind>(v[8]), as_ptr<float>(v[7]));
  });
}

// The native entry of repdl::softmax (common/route.cpp): softmax(x, dim, log)
// of backends/cpu/softmax.py for a contiguous, non-empty x and dim its last,
// with the same kernel call (x's rows as the lines), or None for the route
// to call that function.
PyObject* py_native_softmax(PyObject*, PyObject* args) {
  if (!pytensor::expect_args(args, 3)) return nullptr;
  PyObject* const x[1] = {PyTuple_GET_ITEM(args, 0)};
  bool dense;
  if (!pytensor::is_contiguous(x[0], &dense)) return nullptr;
  if (!dense) Py_RETURN_NONE;
  PyObject* shape = pytensor::shape(x[0]);
  if (shape == nullptr) return nullptr;
  const Py_ssize_t rank = PyTuple_GET_SIZE(shape);
  int64_t n = 0;
  const bool ok = pytensor::numel(shape, &n);
  const long long cols = ok && rank > 0 ? PyLong_AsLongLong(PyTuple_GET_ITEM(shape, rank - 1)) : 0;
  Py_DECREF(shape);
  const long long dim = PyLong_AsLongLong(PyTuple_GET_ITEM(args, 1));
  if (PyErr_Occurred()) return nullptr;
  if (n == 0 || dim != rank - 1) Py_RETURN_NONE;
  int64_t addresses[2];
  PyObject* out = pytensor::output_and_addresses(x, 1, addresses);
  if (out == nullptr) return nullptr;
  const reduce::View rows{as_ptr<const float>(addresses[1]), 1, 0, n / cols, cols, cols, 1};
  const auto kind = PyTuple_GET_ITEM(args, 2) == Py_True ? softmax::Kind::log_softmax : softmax::Kind::softmax;
  kernel_call([&] { softmax::run(rows, kind, as_ptr<float>(addresses[0])); });
  return out;
}

// attention_softmax(x, P1, s1, P0, s0, R, sr, y, scale_bits, mask_kind, mask, m1, m0): softmax after
// attention's scale and mask (softmax.h's Scores; mask_kind 0 none, 1 add, 2 keep)
PyObject* py_attention_softmax(PyObject*, PyObject* args) {
  if (!in_range(args, 13, 9, 2, "attention_softmax: mask_kind must be 0, 1 or 2")) return nullptr;
  return run_without_gil(args, 13, [](const std::vector<int64_t>& v) {
    const softmax::Scores sc = scores(v, 8);
    softmax::run(lines(v), softmax::Kind::softmax, as_ptr<float>(v[7]), &sc);
  });
}

// attention_softmax_backward(y view..., g, dx, scale_bits, mask_kind, mask, m1, m0): the scores' gradient
// from their softmax's (softmax.h's backward with Scores; mask_kind 0 none, 2 keep)
PyObject* py_attention_softmax_backward(PyObject*, PyObject* args) {
  if (!in_range(args, 14, 10, 2, "attention_softmax_backward: mask_kind must be 0, 1 or 2")) return nullptr;
  return run_without_gil(args, 14, [](const std::vector<int64_t>& v) {
    const softmax::Scores sc = scores(v, 9);
    softmax::backward(lines(v), false, as_ptr<const float>(v[7]), as_ptr<float>(v[8]), &sc);
  });
}

// softmax_backward(y view..., g, dx, log): g and dx have y's strides
PyObject* py_softmax_backward(PyObject*, PyObject* args) {
  return run_without_gil(args, 10, [](const std::vector<int64_t>& v) {
    softmax::backward(lines(v), v[9] != 0, as_ptr<const float>(v[7]), as_ptr<float>(v[8]));
  });
}

// log_softmax_onehot_backward(x, stats, P, R, index, value, dx): dense rows, their log_softmax_stats,
// int64 index, float value per row
PyObject* py_onehot_backward(PyObject*, PyObject* args) {
  return run_without_gil(args, 7, [](const std::vector<int64_t>& v) {
    softmax::onehot_backward(as_ptr<const float>(v[0]), as_ptr<const float>(v[1]), v[2], v[3],
                             as_ptr<const int64_t>(v[4]), as_ptr<const float>(v[5]), as_ptr<float>(v[6]));
  });
}

// class_nll(x, row_stride, col_stride, P, R, target, ignore_index, reduction, stats, out) -> -1, or the
// first sample whose target is out of bounds; reduction: 0 none, 1 mean, 2 sum
PyObject* py_class_nll(PyObject*, PyObject* args) {
  return run_without_gil(args, 10, [](const std::vector<int64_t>& v) {
    return softmax::class_nll(as_ptr<const float>(v[0]), v[1], v[2], v[3], v[4], as_ptr<const int64_t>(v[5]), v[6],
                              static_cast<softmax::Reduction>(v[7]), as_ptr<float>(v[8]), as_ptr<float>(v[9]));
  });
}

// class_nll_backward(x, stats, P, R, target, ignore_index, reduction, g, dx): x and dx dense
PyObject* py_class_nll_backward(PyObject*, PyObject* args) {
  return run_without_gil(args, 9, [](const std::vector<int64_t>& v) {
    softmax::class_nll_backward(as_ptr<const float>(v[0]), as_ptr<const float>(v[1]), v[2], v[3],
                                as_ptr<const int64_t>(v[4]), v[5], static_cast<softmax::Reduction>(v[6]),
                                as_ptr<const float>(v[7]), as_ptr<float>(v[8]));
  });
}

// ---- the class losses' native entries (common/route.cpp) -------------------
// repdl::lsm_class_nll(input, target, ignore_index, reduction) (cross_entropy)
// and repdl::class_nll(lsm, target, ignore_index, reduction) (nll_loss) for
// a matrix of any strides and a contiguous target, and their gradients
// repdl::lsm_class_nll_grad(input, stats, target, ignore_index, reduction, g)
// and repdl::nll_grad(g, target, rows, cols, ignore_index, reduction) for
// dense tensors: class_nll, nll, class_nll_backward and nll_backward of
// backends/cpu/softmax.py with the same kernel calls.  Other cases return
// None, for the route to call those functions, and so does a target out of
// bounds: the Python function, run again, raises the IndexError every
// backend raises.  `self` is (a 0-d float32 CPU tensor, new_float32), the
// allocators of backends/cpu/outputs.py: a 0-d loss is empty_like of the
// first, every other result new_float32(*sizes).

// The kernel's Reduction for reduction's name: 1, 0 for another name.
int reduction_named(PyObject* name, softmax::Reduction* reduction) {
  const softmax::Reduction kinds[] = {softmax::Reduction::none, softmax::Reduction::mean, softmax::Reduction::sum};
  const char* const names[] = {"none", "mean", "sum"};
  for (int i = 0; i < 3; ++i) {
    if (pytensor::is_str(name, names[i])) {
      *reduction = kinds[i];
      return 1;
    }
  }
  return 0;
}

// The loss (args as lsm_class_nll's and class_nll's), with the input's
// log_softmax stats when with_stats (the input holds logits), else of
// log-probabilities: (loss, stats), or the loss.
PyObject* class_loss(PyObject* self, PyObject* args, bool with_stats) {
  if (!pytensor::expect_args(args, 4)) return nullptr;
  PyObject* const tensors[2] = {PyTuple_GET_ITEM(args, 0), PyTuple_GET_ITEM(args, 1)};
  int64_t sizes[2], strides[2];
  softmax::Reduction reduction;
  int taken = pytensor::matrix(tensors[0], sizes, strides);
  if (taken > 0) taken = reduction_named(PyTuple_GET_ITEM(args, 3), &reduction);
  if (taken > 0) taken = pytensor::all_contiguous(tensors + 1, 1);
  if (taken <= 0) return pytensor::not_taken(taken);
  const long long ignore_index = PyLong_AsLongLong(PyTuple_GET_ITEM(args, 2));
  if (ignore_index == -1 && PyErr_Occurred()) return nullptr;
  const int64_t P = sizes[0], R = sizes[1];
  PyObject* loss = reduction == softmax::Reduction::none
                       ? PyObject_CallFunction(PyTuple_GET_ITEM(self, 1), "L", static_cast<long long>(P))
                       : pytensor::empty_like(PyTuple_GET_ITEM(self, 0));
  PyObject* stats = loss && with_stats
                        ? PyObject_CallFunction(PyTuple_GET_ITEM(self, 1), "Li", static_cast<long long>(P), 2)
                        : nullptr;
  int64_t x = 0, target = 0, stats_address = 0, loss_address = 0;
  if (loss == nullptr || (with_stats && (stats == nullptr || !pytensor::data_ptr(stats, &stats_address))) ||
      !pytensor::data_ptr(tensors[0], &x) || !pytensor::data_ptr(tensors[1], &target) ||
      !pytensor::data_ptr(loss, &loss_address)) {
    Py_XDECREF(loss);
    Py_XDECREF(stats);
    return nullptr;
  }
  const int64_t bad = kernel_call([&] {
    return softmax::class_nll(as_ptr<const float>(x), strides[0], strides[1], P, R, as_ptr<const int64_t>(target),
                              ignore_index, reduction, as_ptr<float>(stats_address), as_ptr<float>(loss_address));
  });
  if (bad >= 0) {
    Py_DECREF(loss);
    Py_XDECREF(stats);
    Py_RETURN_NONE;
  }
  return with_stats ? Py_BuildValue("(NN)", loss, stats) : loss;
}

PyObject* py_native_lsm_class_nll(PyObject* self, PyObject* args) { return class_loss(self, args, true); }
PyObject* py_native_class_nll(PyObject* self, PyObject* args) { return class_loss(self, args, false); }

// dx = new_float32(P, R) and, unless it is empty, the loss's gradient into it
// from `tensors`: g, target, then x and its stats (null for nll's), each
// dense, or None when one is not.
PyObject* class_loss_gradient(PyObject* self, int64_t P, int64_t R, PyObject* const* tensors, int count,
                              PyObject* ignore_index_arg, PyObject* reduction_arg) {
  softmax::Reduction reduction;
  int taken = reduction_named(reduction_arg, &reduction);
  if (taken > 0) taken = pytensor::all_contiguous(tensors, count);
  if (taken <= 0) return pytensor::not_taken(taken);
  const long long ignore_index = PyLong_AsLongLong(ignore_index_arg);
  if (ignore_index == -1 && PyErr_Occurred()) return nullptr;
  PyObject* dx = PyObject_CallFunction(PyTuple_GET_ITEM(self, 1), "LL", static_cast<long long>(P),
                                       static_cast<long long>(R));
  if (dx == nullptr || P * R == 0) return dx;
  int64_t addresses[5] = {0, 0, 0, 0, 0};  // dx, g, target, x, stats
  bool ok = pytensor::data_ptr(dx, &addresses[0]);
  for (int i = 0; ok && i < count; ++i) ok = pytensor::data_ptr(tensors[i], &addresses[1 + i]);
  if (!ok) {
    Py_DECREF(dx);
    return nullptr;
  }
  kernel_call([&] {
    softmax::class_nll_backward(as_ptr<const float>(addresses[3]), as_ptr<const float>(addresses[4]), P, R,
                                as_ptr<const int64_t>(addresses[2]), ignore_index, reduction,
                                as_ptr<const float>(addresses[1]), as_ptr<float>(addresses[0]));
  });
  return dx;
}

PyObject* py_native_lsm_class_nll_grad(PyObject* self, PyObject* args) {
  if (!pytensor::expect_args(args, 6)) return nullptr;
  PyObject* const tensors[4] = {PyTuple_GET_ITEM(args, 5), PyTuple_GET_ITEM(args, 2), PyTuple_GET_ITEM(args, 0),
                                PyTuple_GET_ITEM(args, 1)};
  int64_t sizes[2];
  const int taken = pytensor::matrix_sizes(tensors[2], sizes);
  if (taken <= 0) return pytensor::not_taken(taken);
  PyObject* ignore_index = PyTuple_GET_ITEM(args, 3);
  return class_loss_gradient(self, sizes[0], sizes[1], tensors, 4, ignore_index, PyTuple_GET_ITEM(args, 4));
}

PyObject* py_native_nll_grad(PyObject* self, PyObject* args) {
  if (!pytensor::expect_args(args, 6)) return nullptr;
  PyObject* const tensors[2] = {PyTuple_GET_ITEM(args, 0), PyTuple_GET_ITEM(args, 1)};
  const long long P = PyLong_AsLongLong(PyTuple_GET_ITEM(args, 2)), R = PyLong_AsLongLong(PyTuple_GET_ITEM(args, 3));
  if (PyErr_Occurred()) return nullptr;
  return class_loss_gradient(self, P, R, tensors, 2, PyTuple_GET_ITEM(args, 4), PyTuple_GET_ITEM(args, 5));
}

PyMethodDef g_native_class_losses[] = {
    {"native_lsm_class_nll", py_native_lsm_class_nll, METH_VARARGS, "repdl::lsm_class_nll's native entry."},
    {"native_lsm_class_nll_grad", py_native_lsm_class_nll_grad, METH_VARARGS,
     "repdl::lsm_class_nll_grad's native entry."},
    {"native_class_nll", py_native_class_nll, METH_VARARGS, "repdl::class_nll's native entry."},
    {"native_nll_grad", py_native_nll_grad, METH_VARARGS, "repdl::nll_grad's native entry."},
};

// make_native_class_losses(scalar32, new_float32): the entries of
// lsm_class_nll, lsm_class_nll_grad, class_nll and nll_grad.
PyObject* py_make_native_class_losses(PyObject*, PyObject* allocators) {
  if (!PyTuple_Check(allocators) || PyTuple_GET_SIZE(allocators) != 2) {
    PyErr_SetString(PyExc_TypeError, "make_native_class_losses takes (a 0-d float32 tensor, new_float32)");
    return nullptr;
  }
  return Py_BuildValue("(NNNN)", PyCFunction_New(&g_native_class_losses[0], allocators),
                       PyCFunction_New(&g_native_class_losses[1], allocators),
                       PyCFunction_New(&g_native_class_losses[2], allocators),
                       PyCFunction_New(&g_native_class_losses[3], allocators));
}

const PyMethodDef kMethods[] = {
    {"class_nll", py_class_nll, METH_VARARGS,
     "cross_entropy's class-index loss (no weight, no smoothing) and the input's log_softmax stats."},
    {"class_nll_backward", py_class_nll_backward, METH_VARARGS, "The gradient of class_nll with respect to the input."},
    {"log_softmax_onehot_backward", py_onehot_backward, METH_VARARGS,
     "log_softmax's gradient from a one-hot output gradient (value[p] at index[p] of each dense row), "
     "from the input and its log_softmax stats."},
    {"softmax_backward", py_softmax_backward, METH_VARARGS, "The gradient of softmax / log_softmax along a view's lines."},
    {"softmax", py_softmax, METH_VARARGS, "softmax / log_softmax / logsumexp / log_softmax stats along a view's lines."},
    {"native_softmax", py_native_softmax, METH_VARARGS, "repdl::softmax's native entry (a route's)."},
    {"make_native_class_losses", py_make_native_class_losses, METH_VARARGS,
     "The native entries of the class losses and their gradients (a route's)."},
    {"attention_softmax", py_attention_softmax, METH_VARARGS,
     "softmax along a view's lines after attention's scale and mask, taken as each line is read."},
    {"attention_softmax_backward", py_attention_softmax_backward, METH_VARARGS,
     "The gradient of attention's scores from that of their softmax, the mask and the scale taken per line."},
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

MethodTable softmax_methods() { return kMethods; }

}  // namespace repdl
