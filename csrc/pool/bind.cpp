#include "common/pyargs.h"
#include "pool/pool.h"

namespace repdl {
namespace {

// The windows travel as planes, h, w, oh, ow, kh, kw, rows table, cols table.
pool::Windows windows(const std::vector<int64_t>& v) {
  return {v[0], v[1], v[2], v[3], v[4], v[5], v[6], as_ptr<const int64_t>(v[7]), as_ptr<const int64_t>(v[8])};
}

// pool_max_forward(windows..., x, y, index)
PyObject* py_max_forward(PyObject*, PyObject* args) {
  return run_without_gil(args, 12, [](const std::vector<int64_t>& v) {
    pool::max_forward(windows(v), as_ptr<const float>(v[9]), as_ptr<float>(v[10]), as_ptr<int64_t>(v[11]));
  });
}

// pool_max_backward(windows..., g, index, dx)
PyObject* py_max_backward(PyObject*, PyObject* args) {
  return run_without_gil(args, 12, [](const std::vector<int64_t>& v) {
    pool::max_backward(windows(v), as_ptr<const float>(v[9]), as_ptr<const int64_t>(v[10]), as_ptr<float>(v[11]));
  });
}

// pool_avg_forward(windows..., x, divisor, y)
PyObject* py_avg_forward(PyObject*, PyObject* args) {
  return run_without_gil(args, 12, [](const std::vector<int64_t>& v) {
    pool::avg_forward(windows(v), as_ptr<const float>(v[9]), as_ptr<const float>(v[10]), as_ptr<float>(v[11]));
  });
}

// pool_avg_backward(windows..., g, divisor, dx)
PyObject* py_avg_backward(PyObject*, PyObject* args) {
  return run_without_gil(args, 12, [](const std::vector<int64_t>& v) {
    pool::avg_backward(windows(v), as_ptr<const float>(v[9]), as_ptr<const float>(v[10]), as_ptr<float>(v[11]));
  });
}

const PyMethodDef kMethods[] = {
    {"pool_max_forward", py_max_forward, METH_VARARGS, "Max pooling over planes: first maximum and its index."},
    {"pool_max_backward", py_max_backward, METH_VARARGS, "Max pooling's gradient, outputs in ascending order."},
    {"pool_avg_forward", py_avg_forward, METH_VARARGS, "Average pooling over planes: seqsum / divisor."},
    {"pool_avg_backward", py_avg_backward, METH_VARARGS, "Average pooling's gradient, outputs in ascending order."},
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

MethodTable pool_methods() { return kMethods; }

}  // namespace repdl
