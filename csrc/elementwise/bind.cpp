// Python bindings of the correctly rounded elementwise functions.  Tensors
// cross as data pointers of dense float32 arrays; Python has checked dtypes.
#include <cstring>

#include "common/pyargs.h"
#include "common/pytensor.h"
#include "elementwise/cr.h"
#include "elementwise/elementwise.h"

namespace repdl {
namespace {

using elementwise::Unary;

bool valid_index(int64_t i) {
  if (i >= 0 && i < static_cast<int64_t>(Unary::count)) return true;
  PyErr_SetString(PyExc_IndexError, "unknown elementwise function index");
  return false;
}

// cr_unary(index, x, y, n)
PyObject* py_unary(PyObject*, PyObject* args) {
  std::vector<int64_t> v;
  if (!parse_int_args(args, 4, &v)) return nullptr;
  if (!valid_index(v[0])) return nullptr;
  kernel_call([&] {
    elementwise::unary_threaded(static_cast<Unary>(v[0]), as_ptr<const float>(v[1]), as_ptr<float>(v[2]), v[3]);
  });
  Py_RETURN_NONE;
}

// The native entries of one function (common/route.cpp; `self` its index):
// backends/cpu/elementwise.py's function, and its fused gradient
// unary_grad(g, x, y), for contiguous tensors, with the same kernel call;
// None for the route to call that function otherwise.

// The dense call of a native entry whose arguments are `count` tensors.
int dense_call(PyObject* args, int count, PyObject** out, int64_t* n, int64_t* addresses) {
  if (!pytensor::expect_args(args, count)) return -1;
  return pytensor::dense_inputs(&PyTuple_GET_ITEM(args, 0), count, out, n, addresses);
}

PyObject* py_native_unary(PyObject* self, PyObject* args) {
  PyObject* out;
  int64_t n, addresses[2];
  const int taken = dense_call(args, 1, &out, &n, addresses);
  if (taken <= 0) return pytensor::not_taken(taken);
  const auto fn = static_cast<Unary>(PyLong_AsLong(self));
  const auto* x = as_ptr<const float>(addresses[1]);
  kernel_call([&] { elementwise::unary_threaded(fn, x, as_ptr<float>(addresses[0]), n); });
  return out;
}

PyObject* py_native_unary_grad(PyObject* self, PyObject* args) {
  PyObject* out;
  int64_t n, a[4];
  const int taken = dense_call(args, 3, &out, &n, a);
  if (taken <= 0) return pytensor::not_taken(taken);
  const auto fn = static_cast<Unary>(PyLong_AsLong(self));
  kernel_call([&] {
    elementwise::unary_grad_threaded(fn, as_ptr<const float>(a[1]), as_ptr<const float>(a[2]),
                                     as_ptr<const float>(a[3]), as_ptr<float>(a[0]), n);
  });
  return out;
}

PyMethodDef g_native_unary = {"native_unary", py_native_unary, METH_VARARGS, "cr_unary's native entry."};
PyMethodDef g_native_unary_grad = {"native_unary_grad", py_native_unary_grad, METH_VARARGS,
                                   "cr_unary_grad's native entry."};

// make_native_unary(index): the entries of one function, (forward, gradient).
PyObject* py_make_native_unary(PyObject*, PyObject* index) {
  if (!valid_index(PyLong_AsLongLong(index))) return nullptr;
  return Py_BuildValue("(NN)", PyCFunction_New(&g_native_unary, index), PyCFunction_New(&g_native_unary_grad, index));
}

// cr_unary_grad(index, g, x, y, dx, n)
PyObject* py_unary_grad(PyObject*, PyObject* args) {
  std::vector<int64_t> v;
  if (!parse_int_args(args, 6, &v)) return nullptr;
  if (!valid_index(v[0])) return nullptr;
  kernel_call([&] {
    elementwise::unary_grad_threaded(static_cast<Unary>(v[0]), as_ptr<const float>(v[1]), as_ptr<const float>(v[2]),
                                     as_ptr<const float>(v[3]), as_ptr<float>(v[4]), v[5]);
  });
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

// cr_pow_int(x, p, y, n)
PyObject* py_pow_int(PyObject*, PyObject* args) {
  std::vector<int64_t> v;
  if (!parse_int_args(args, 4, &v)) return nullptr;
  kernel_call([&] { elementwise::pow_int_threaded(as_ptr<const float>(v[0]), v[1], as_ptr<float>(v[2]), v[3]); });
  Py_RETURN_NONE;
}

// cr_eval64(index, x, y64, n): the row's float64 values before rounding (single thread).
PyObject* py_eval64(PyObject*, PyObject* args) {
  std::vector<int64_t> v;
  if (!parse_int_args(args, 4, &v)) return nullptr;
  if (!valid_index(v[0])) return nullptr;
  kernel_call([&] {
    elementwise::eval64(static_cast<Unary>(v[0]), as_ptr<const float>(v[1]), as_ptr<double>(v[2]), v[3]);
  });
  Py_RETURN_NONE;
}

// cr_table(index) -> (window, bytes of the (input, result) uint32 pairs) as compiled in.
PyObject* py_table(PyObject*, PyObject* arg) {
  const long i = PyLong_AsLong(arg);
  if (i == -1 && PyErr_Occurred()) return nullptr;
  if (i < 0 || i >= static_cast<long>(Unary::count)) {
    PyErr_SetString(PyExc_IndexError, "unknown elementwise function index");
    return nullptr;
  }
  const elementwise::CrTable& t = elementwise::table(static_cast<Unary>(i));
  static const uint32_t kEmpty[1] = {0};
  const uint32_t* pairs = t.pairs != nullptr ? t.pairs : kEmpty;
  return Py_BuildValue("(Iy#)", t.window, reinterpret_cast<const char*>(pairs),
                       static_cast<Py_ssize_t>(t.count) * 8);
}

// cr_silu_sigmoid(x, y, s, n): silu into y and sigmoid into s, one pass.
PyObject* py_silu_sigmoid(PyObject*, PyObject* args) {
  return run_without_gil(args, 4, [](const std::vector<int64_t>& v) {
    elementwise::silu_sigmoid_threaded(as_ptr<const float>(v[0]), as_ptr<float>(v[1]), as_ptr<float>(v[2]), v[3]);
  });
}

// cr_softplus_param(x, bits_of_beta, bits_of_threshold, y, n)
PyObject* py_softplus_param(PyObject*, PyObject* args) {
  return run_without_gil(args, 5, [](const std::vector<int64_t>& v) {
    elementwise::softplus_param_threaded(as_ptr<const float>(v[0]), float_from_bits(v[1]), float_from_bits(v[2]),
                                         as_ptr<float>(v[3]), v[4]);
  });
}

// cr_elu_param(x, bits_of_alpha, y, n) and cr_celu_param(x, bits_of_alpha, y, n)
PyObject* py_elu_param(PyObject*, PyObject* args) {
  return run_without_gil(args, 4, [](const std::vector<int64_t>& v) {
    elementwise::elu_param_threaded(as_ptr<const float>(v[0]), float_from_bits(v[1]), as_ptr<float>(v[2]), v[3]);
  });
}
PyObject* py_celu_param(PyObject*, PyObject* args) {
  return run_without_gil(args, 4, [](const std::vector<int64_t>& v) {
    elementwise::celu_param_threaded(as_ptr<const float>(v[0]), float_from_bits(v[1]), as_ptr<float>(v[2]), v[3]);
  });
}

const PyMethodDef kMethods[] = {
    {"cr_eval64", py_eval64, METH_VARARGS, "Raw float64 evaluation of a correctly rounded function (diagnostics)."},
    {"cr_table", py_table, METH_O, "The compiled-in hard-case table of a function: (window, pair bytes)."},
    {"cr_unary", py_unary, METH_VARARGS, "Correctly rounded unary function (by index) over dense float32 arrays."},
    {"make_native_unary", py_make_native_unary, METH_O,
     "The native entries of cr_unary(index, ...) and cr_unary_grad(index, ...) (a route's)."},
    {"cr_unary_grad", py_unary_grad, METH_VARARGS, "The backward formula of a unary function (by index), fused."},
    {"cr_silu_sigmoid", py_silu_sigmoid, METH_VARARGS, "silu and sigmoid of the same input in one pass."},
    {"cr_unary_names", py_unary_names, METH_NOARGS, "Names of the correctly rounded unary functions, by index."},
    {"cr_pow_int", py_pow_int, METH_VARARGS, "x ** p for an integer p in the contract's multiplication order."},
    {"cr_softplus_param", py_softplus_param, METH_VARARGS, "softplus(x, beta, threshold): the contract's sequence."},
    {"cr_elu_param", py_elu_param, METH_VARARGS, "elu(x, alpha): x > 0 ? x : alpha * expm1(x)."},
    {"cr_celu_param", py_celu_param, METH_VARARGS, "celu(x, alpha): x > 0 ? x : alpha * expm1(x / alpha)."},
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

MethodTable elementwise_methods() { return kMethods; }

}  // namespace repdl
