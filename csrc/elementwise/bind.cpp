// Python bindings of the correctly rounded elementwise functions.  Tensors
// cross as data pointers of dense float32 arrays; Python has checked dtypes.
#include <cstring>

#include "common/pyargs.h"
#include "elementwise/elementwise.h"

namespace repdl {
namespace {

using elementwise::Unary;

// cr_unary(index, x, y, n)
PyObject* py_unary(PyObject*, PyObject* args) {
  std::vector<int64_t> v;
  if (!parse_int_args(args, 4, &v)) return nullptr;
  if (v[0] < 0 || v[0] >= static_cast<int64_t>(Unary::count)) {
    PyErr_SetString(PyExc_IndexError, "unknown elementwise function index");
    return nullptr;
  }
  Py_BEGIN_ALLOW_THREADS
  elementwise::unary_threaded(static_cast<Unary>(v[0]), as_ptr<const float>(v[1]), as_ptr<float>(v[2]), v[3]);
  Py_END_ALLOW_THREADS
  Py_RETURN_NONE;
}

// cr_unary_names() -> tuple of names in index order
PyObject* py_unary_names(PyObject*, PyObject*) {
  const int n = static_cast<int>(Unary::count);
  PyObject* t = PyTuple_New(n);
  if (t == nullptr) return nullptr;
  for (int i = 0; i < n; ++i) PyTuple_SET_ITEM(t, i, PyUnicode_FromString(elementwise::unary_name(static_cast<Unary>(i))));
  return t;
}

// cr_div(a, b, y, n)
PyObject* py_div(PyObject*, PyObject* args) {
  std::vector<int64_t> v;
  if (!parse_int_args(args, 4, &v)) return nullptr;
  Py_BEGIN_ALLOW_THREADS
  elementwise::div_threaded(as_ptr<const float>(v[0]), as_ptr<const float>(v[1]), as_ptr<float>(v[2]), v[3]);
  Py_END_ALLOW_THREADS
  Py_RETURN_NONE;
}

float float_from_bits(int64_t b) {
  const uint32_t u = static_cast<uint32_t>(b);
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// cr_div_scalar_rhs(a, bits_of_b, y, n): y = a / b
PyObject* py_div_scalar_rhs(PyObject*, PyObject* args) {
  std::vector<int64_t> v;
  if (!parse_int_args(args, 4, &v)) return nullptr;
  const float b = float_from_bits(v[1]);
  Py_BEGIN_ALLOW_THREADS
  elementwise::div_scalar_rhs_threaded(as_ptr<const float>(v[0]), b, as_ptr<float>(v[2]), v[3]);
  Py_END_ALLOW_THREADS
  Py_RETURN_NONE;
}

// cr_div_scalar_lhs(bits_of_a, b, y, n): y = a / b
PyObject* py_div_scalar_lhs(PyObject*, PyObject* args) {
  std::vector<int64_t> v;
  if (!parse_int_args(args, 4, &v)) return nullptr;
  const float a = float_from_bits(v[0]);
  Py_BEGIN_ALLOW_THREADS
  elementwise::div_scalar_lhs_threaded(a, as_ptr<const float>(v[1]), as_ptr<float>(v[2]), v[3]);
  Py_END_ALLOW_THREADS
  Py_RETURN_NONE;
}

// cr_pow_int(x, p, y, n)
PyObject* py_pow_int(PyObject*, PyObject* args) {
  std::vector<int64_t> v;
  if (!parse_int_args(args, 4, &v)) return nullptr;
  Py_BEGIN_ALLOW_THREADS
  elementwise::pow_int_threaded(as_ptr<const float>(v[0]), v[1], as_ptr<float>(v[2]), v[3]);
  Py_END_ALLOW_THREADS
  Py_RETURN_NONE;
}

const PyMethodDef kMethods[] = {
    {"cr_unary", py_unary, METH_VARARGS, "Correctly rounded unary function (by index) over dense float32 arrays."},
    {"cr_unary_names", py_unary_names, METH_NOARGS, "Names of the correctly rounded unary functions, by index."},
    {"cr_div", py_div, METH_VARARGS, "IEEE float32 division over dense arrays."},
    {"cr_div_scalar_rhs", py_div_scalar_rhs, METH_VARARGS, "a / b for one float32 b (given as bits)."},
    {"cr_div_scalar_lhs", py_div_scalar_lhs, METH_VARARGS, "a / b for one float32 a (given as bits)."},
    {"cr_pow_int", py_pow_int, METH_VARARGS, "x ** p for an integer p in the contract's multiplication order."},
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

MethodTable elementwise_methods() { return kMethods; }

}  // namespace repdl
