#include "common/pyargs.h"
#include "softmax/softmax.h"

namespace repdl {
namespace {

// softmax(x, P1, s1, P0, s0, R, sr, y, kind)  kind: 0 softmax, 1 log_softmax, 2 logsumexp
PyObject* py_softmax(PyObject*, PyObject* args) {
  std::vector<int64_t> v;
  if (!parse_int_args(args, 9, &v)) return nullptr;
  if (v[8] < 0 || v[8] > 2) {
    PyErr_SetString(PyExc_ValueError, "softmax: kind must be 0, 1 or 2");
    return nullptr;
  }
  const reduce::View view{as_ptr<const float>(v[0]), v[1], v[2], v[3], v[4], v[5], v[6]};
  Py_BEGIN_ALLOW_THREADS
  softmax::run(view, static_cast<softmax::Kind>(v[8]), as_ptr<float>(v[7]));
  Py_END_ALLOW_THREADS
  Py_RETURN_NONE;
}

const PyMethodDef kMethods[] = {
    {"softmax", py_softmax, METH_VARARGS, "softmax / log_softmax / logsumexp along a view's lines."},
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

MethodTable softmax_methods() { return kMethods; }

}  // namespace repdl
