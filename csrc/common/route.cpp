// The eager route of a primitive's call (repdl/_library.py): which of its
// four entries a call takes, decided in C because every RepDL op pays for it
// and composite ops pay for it once per primitive.  Made in Python bytecode
// it cost 0.60-0.72 us above the implementation's own call (mm 2x2, torch
// 2.13, Python 3.11); made here, 0.43-0.48, most of that the Python
// wrapper and torch's attribute getters.  _library.py keeps the one test
// that must stay Python, torch.compiler.is_dynamo_compiling(), which
// dynamo folds while it traces (it cannot trace into C).
//
// route, forward = make_route(impl, custom, transformable_apply, record,
//                              positions, plain_types, functorch_active,
//                              grad_enabled, unwrap_if_dead,
//                              compiler, native, backends, setup_context)
// route(args) then runs, for the argument tuple `args`:
//   custom(*args)               compiler._is_compiling_flag is set (torch.export
//                               runs the Python eagerly), or a tensor at
//                               `positions` is a subclass (FakeTensor,
//                               FunctionalTensor) or meta;
//   transformable_apply(*args)  torch.func transforms are active;
//   record[0](*unwrapped)       a tensor requires grad and grad mode is on
//                               (the tensors at `positions` unwrapped from
//                               dead functorch wrappers, as Function.apply
//                               does); record is a list of one item, filled
//                               in when the recording autograd.Function,
//                               made from `forward`, exists;
//   native(*args)               otherwise, when native is not None, every
//                               tensor is on the CPU and no backend is forced
//                               (backends._forced is None): the CPU backend's
//                               native entry (pytensor.h), which computes the
//                               common case of impl with the same kernel
//                               call, or returns None for impl to take it;
//   impl(*args)                 otherwise.
// forward(ctx, *args) is that autograd.Function's forward (grad mode is off
// there): native(*args) or impl(*args) by the same rule, then
// setup_context(ctx, args, output), and the output.  Written here rather
// than as a Python function, it saves a frame and a tuple's repacking on
// every recorded call.
#include "common/pyargs.h"

namespace {

// The items of the tuple a route holds as its `self`.
enum Slot : Py_ssize_t {
  kImpl, kCustom, kTransformable, kRecord, kPositions, kPlainTypes, kFunctorchActive,
  kGradEnabled, kUnwrapIfDead, kCompiler, kNative, kBackends, kSetupContext, kSlots
};

PyObject* g_is_cpu = nullptr;
PyObject* g_is_meta = nullptr;
PyObject* g_requires_grad = nullptr;
PyObject* g_compiling_flag = nullptr;
PyObject* g_forced = nullptr;

// 1 true, 0 false, -1 an exception.
int attribute_true(PyObject* obj, PyObject* name) {
  PyObject* value = PyObject_GetAttr(obj, name);
  if (value == nullptr) return -1;
  const int truth = value == Py_True;
  Py_DECREF(value);
  return truth;
}

int call_true(PyObject* fn) {
  PyObject* value = PyObject_CallNoArgs(fn);
  if (value == nullptr) return -1;
  const int truth = PyObject_IsTrue(value);
  Py_DECREF(value);
  return truth;
}

// record[0](*args), the tensors at `positions` unwrapped: a primitive's
// other arguments are ints, floats, strings and lists (its schema), which
// Function.apply would pass as they are.
PyObject* record_call(PyObject* route, PyObject* args) {
  PyObject* unwrap = PyTuple_GET_ITEM(route, kUnwrapIfDead);
  PyObject* positions = PyTuple_GET_ITEM(route, kPositions);
  const Py_ssize_t n = PyTuple_GET_SIZE(args);
  PyObject* unwrapped = PyTuple_New(n);
  if (unwrapped == nullptr) return nullptr;
  for (Py_ssize_t i = 0; i < n; ++i) {
    Py_INCREF(PyTuple_GET_ITEM(args, i));
    PyTuple_SET_ITEM(unwrapped, i, PyTuple_GET_ITEM(args, i));
  }
  for (Py_ssize_t p = 0; p < PyTuple_GET_SIZE(positions); ++p) {
    const Py_ssize_t i = PyLong_AsSsize_t(PyTuple_GET_ITEM(positions, p));
    if (i >= n) break;
    PyObject* a = PyTuple_GET_ITEM(args, i);
    if (a == Py_None) continue;
    PyObject* item = PyObject_CallOneArg(unwrap, a);
    if (item == nullptr) {
      Py_DECREF(unwrapped);
      return nullptr;
    }
    PyTuple_SET_ITEM(unwrapped, i, item);
    Py_DECREF(a);  // the reference the copy took above
  }
  PyObject* out = PyObject_Call(PyList_GET_ITEM(PyTuple_GET_ITEM(route, kRecord), 0), unwrapped, nullptr);
  Py_DECREF(unwrapped);
  return out;
}

// The slot of the entry a call of `args` takes, or kSlots with an exception
// set; *on_cpu tells whether every tensor given is on the CPU.  A CPU tensor
// is not meta, so for the common case `is_cpu` costs what `is_meta` would.
Slot choose(PyObject* route, PyObject* args, bool* on_cpu) {
  *on_cpu = true;
  const int compiling = attribute_true(PyTuple_GET_ITEM(route, kCompiler), g_compiling_flag);
  if (compiling != 0) return compiling < 0 ? kSlots : kCustom;
  PyObject* plain = PyTuple_GET_ITEM(route, kPlainTypes);
  PyObject* positions = PyTuple_GET_ITEM(route, kPositions);
  bool grad = false;
  for (Py_ssize_t p = 0; p < PyTuple_GET_SIZE(positions); ++p) {
    const Py_ssize_t i = PyLong_AsSsize_t(PyTuple_GET_ITEM(positions, p));
    if (i >= PyTuple_GET_SIZE(args)) break;  // an optional tensor left out: impl's default, None
    PyObject* a = PyTuple_GET_ITEM(args, i);
    PyObject* type = reinterpret_cast<PyObject*>(Py_TYPE(a));
    if (type == PyTuple_GET_ITEM(plain, 0) || type == PyTuple_GET_ITEM(plain, 1)) {
      const int cpu = attribute_true(a, g_is_cpu);
      if (cpu < 0) return kSlots;
      if (cpu == 0) {
        *on_cpu = false;
        const int meta = attribute_true(a, g_is_meta);
        if (meta != 0) return meta < 0 ? kSlots : kCustom;
      }
      if (!grad) {
        const int requires = attribute_true(a, g_requires_grad);
        if (requires < 0) return kSlots;
        grad = requires;
      }
    } else if (a != Py_None) {
      return kCustom;
    }
  }
  const int transforms = call_true(PyTuple_GET_ITEM(route, kFunctorchActive));
  if (transforms != 0) return transforms < 0 ? kSlots : kTransformable;
  if (!grad) return kImpl;
  const int enabled = call_true(PyTuple_GET_ITEM(route, kGradEnabled));
  return enabled < 0 ? kSlots : (enabled ? kRecord : kImpl);
}

// impl(*args), or native(*args) where the native entry takes the call: every
// tensor on the CPU (on_cpu) and no backend forced.
PyObject* implementation_call(PyObject* route, PyObject* args, bool on_cpu) {
  PyObject* native = PyTuple_GET_ITEM(route, kNative);
  if (native != Py_None && on_cpu) {
    PyObject* forced = PyObject_GetAttr(PyTuple_GET_ITEM(route, kBackends), g_forced);
    if (forced == nullptr) return nullptr;
    Py_DECREF(forced);
    if (forced == Py_None) {
      PyObject* out = PyObject_Call(native, args, nullptr);
      if (out != Py_None) return out;  // the result, or nullptr with the exception
      Py_DECREF(out);
    }
  }
  return PyObject_Call(PyTuple_GET_ITEM(route, kImpl), args, nullptr);
}

bool is_args_tuple(PyObject* args) {
  if (PyTuple_Check(args)) return true;
  PyErr_SetString(PyExc_TypeError, "a route takes the tuple of its primitive's arguments");
  return false;
}

PyObject* route_call(PyObject* route, PyObject* args) {
  if (!is_args_tuple(args)) return nullptr;
  bool on_cpu;
  const Slot entry = choose(route, args, &on_cpu);
  if (entry == kSlots) return nullptr;
  if (entry == kRecord) return record_call(route, args);
  if (entry == kImpl) return implementation_call(route, args, on_cpu);
  return PyObject_Call(PyTuple_GET_ITEM(route, entry), args, nullptr);
}

// The recording autograd.Function's forward(ctx, *args) (record's): there
// grad mode is off and the tensors are plain (unwrapped), so only the
// native entry's condition is left to test before the implementation's
// call; then setup_context(ctx, args, output).
PyObject* forward_call(PyObject* route, PyObject* ctx_args) {
  const Py_ssize_t n = PyTuple_GET_SIZE(ctx_args);
  if (n == 0) {
    PyErr_SetString(PyExc_TypeError, "a primitive's forward takes (ctx, *args)");
    return nullptr;
  }
  PyObject* args = PyTuple_GetSlice(ctx_args, 1, n);
  if (args == nullptr) return nullptr;
  PyObject* positions = PyTuple_GET_ITEM(route, kPositions);
  bool on_cpu = true;
  for (Py_ssize_t p = 0; on_cpu && p < PyTuple_GET_SIZE(positions); ++p) {
    const Py_ssize_t i = PyLong_AsSsize_t(PyTuple_GET_ITEM(positions, p));
    if (i >= PyTuple_GET_SIZE(args)) break;
    PyObject* a = PyTuple_GET_ITEM(args, i);
    if (a == Py_None) continue;
    const int cpu = attribute_true(a, g_is_cpu);
    if (cpu < 0) {
      Py_DECREF(args);
      return nullptr;
    }
    on_cpu = cpu;
  }
  PyObject* out = implementation_call(route, args, on_cpu);
  PyObject* setup = PyTuple_GET_ITEM(route, kSetupContext);
  PyObject* ctx = PyTuple_GET_ITEM(ctx_args, 0);
  PyObject* done = out ? PyObject_CallFunctionObjArgs(setup, ctx, args, out, nullptr) : nullptr;
  Py_DECREF(args);
  if (done == nullptr) {
    Py_XDECREF(out);
    return nullptr;
  }
  Py_DECREF(done);
  return out;
}

PyMethodDef g_route_def = {"route", route_call, METH_O, "A primitive's eager route (common/route.cpp)."};
PyMethodDef g_forward_def = {"forward", forward_call, METH_VARARGS,
                             "The forward of a primitive's recording autograd.Function (common/route.cpp)."};

PyObject* py_make_route(PyObject*, PyObject* args) {
  if (!PyTuple_Check(args) || PyTuple_GET_SIZE(args) != kSlots) {
    PyErr_Format(PyExc_TypeError, "make_route takes %d arguments", static_cast<int>(kSlots));
    return nullptr;
  }
  PyObject* positions = PyTuple_GET_ITEM(args, kPositions);
  PyObject* plain = PyTuple_GET_ITEM(args, kPlainTypes);
  PyObject* record = PyTuple_GET_ITEM(args, kRecord);
  if (!PyTuple_Check(positions) || !PyTuple_Check(plain) || PyTuple_GET_SIZE(plain) != 2 || !PyList_Check(record) ||
      PyList_GET_SIZE(record) != 1) {
    PyErr_SetString(PyExc_TypeError, "make_route: positions a tuple of ints, plain_types a tuple of two types, "
                                     "record a list of one item");
    return nullptr;
  }
  if (g_forced == nullptr) {
    g_is_cpu = PyUnicode_InternFromString("is_cpu");
    g_is_meta = PyUnicode_InternFromString("is_meta");
    g_requires_grad = PyUnicode_InternFromString("requires_grad");
    g_compiling_flag = PyUnicode_InternFromString("_is_compiling_flag");
    g_forced = PyUnicode_InternFromString("_forced");
    if (!g_is_cpu || !g_is_meta || !g_requires_grad || !g_compiling_flag || !g_forced) return nullptr;
  }
  return Py_BuildValue("(NN)", PyCFunction_New(&g_route_def, args), PyCFunction_New(&g_forward_def, args));
}

const PyMethodDef kRouteMethods[] = {
    {"make_route", py_make_route, METH_VARARGS, "A primitive's eager route (common/route.cpp)."},
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

namespace repdl {
MethodTable route_methods() { return kRouteMethods; }
}  // namespace repdl
