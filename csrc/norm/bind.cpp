#include "common/pyargs.h"
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

const PyMethodDef kMethods[] = {
    {"norm_forward", py_forward, METH_VARARGS, "Layer/RMS normalisation of dense rows, with the affine step."},
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
