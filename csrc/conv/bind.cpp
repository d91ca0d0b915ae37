// Python bindings of the convolution kernels.  Every call passes the
// geometry's 16 integers (conv.h's Geometry, in order) and three data
// pointers (the forward four: its bias, 0 for none); Python has checked
// shapes and made every tensor dense.
#include "common/pyargs.h"
#include "conv/conv.h"

namespace repdl {
namespace {

conv::Geometry geometry(const std::vector<int64_t>& v) {
  return {v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12], v[13], v[14], v[15]};
}

// conv_forward(geometry..., x, w, bias, y)
PyObject* py_forward(PyObject*, PyObject* args) {
  return run_without_gil(args, 20, [](const std::vector<int64_t>& v) {
    conv::forward(geometry(v), as_ptr<const float>(v[16]), as_ptr<const float>(v[17]), as_ptr<const float>(v[18]),
                  as_ptr<float>(v[19]));
  });
}

// conv_grad_input(geometry..., dy, w, dx)
PyObject* py_grad_input(PyObject*, PyObject* args) {
  return run_without_gil(args, 19, [](const std::vector<int64_t>& v) {
    conv::grad_input(geometry(v), as_ptr<const float>(v[16]), as_ptr<const float>(v[17]), as_ptr<float>(v[18]));
  });
}

// conv_grad_weight(geometry..., x, dy, dw)
PyObject* py_grad_weight(PyObject*, PyObject* args) {
  return run_without_gil(args, 19, [](const std::vector<int64_t>& v) {
    conv::grad_weight(geometry(v), as_ptr<const float>(v[16]), as_ptr<const float>(v[17]), as_ptr<float>(v[18]));
  });
}

const PyMethodDef kMethods[] = {
    {"conv_forward", py_forward, METH_VARARGS, "2-D convolution forward as im2col GEMM."},
    {"conv_grad_input", py_grad_input, METH_VARARGS, "2-D convolution input gradient as a GEMM."},
    {"conv_grad_weight", py_grad_weight, METH_VARARGS, "2-D convolution weight gradient as one chain per weight."},
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

MethodTable conv_methods() { return kMethods; }

}  // namespace repdl
