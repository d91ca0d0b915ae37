// repdl._C: one extension module assembled from each kernel family's table.
#include "common/pyargs.h"
#include "common/isa.h"
#include "common/fpenv.h"

#include <omp.h>
#include <string_view>
#include <vector>

namespace repdl {
MethodTable arith_methods();
MethodTable conv_methods();
MethodTable norm_methods();
MethodTable optim_methods();
MethodTable pool_methods();
MethodTable scatter_methods();
MethodTable gemm_methods();
MethodTable reduce_methods();
MethodTable softmax_methods();
MethodTable elementwise_methods();
MethodTable random_methods();
MethodTable route_methods();
}  // namespace repdl

namespace {

PyObject* py_isa(PyObject*, PyObject*) { return PyUnicode_FromString(repdl::isa_name(repdl::active_isa())); }

PyObject* py_set_isa(PyObject*, PyObject* arg) {
  const char* name = PyUnicode_AsUTF8(arg);
  if (name == nullptr) return nullptr;
  if (!repdl::set_isa(name)) {
    PyErr_Format(PyExc_ValueError,
                 "instruction set '%s' is unknown or not supported by this CPU "
                 "(known: auto, generic, avx2, avx512)", name);
    return nullptr;
  }
  Py_RETURN_NONE;
}

PyObject* py_isa_supported(PyObject*, PyObject* arg) {
  const char* name = PyUnicode_AsUTF8(arg);
  if (name == nullptr) return nullptr;
  bool ok = false;
  if (std::string_view(name) == "generic") ok = repdl::isa_supported(repdl::Isa::generic);
  else if (std::string_view(name) == "avx2") ok = repdl::isa_supported(repdl::Isa::avx2);
  else if (std::string_view(name) == "avx512") ok = repdl::isa_supported(repdl::Isa::avx512);
  return PyBool_FromLong(ok);
}

PyObject* py_max_threads(PyObject*, PyObject*) { return PyLong_FromLong(omp_get_max_threads()); }

// The reference backend computes with torch's CPU kernels, which run on the
// calling thread and on the OpenMP pool that _C shares with torch; while it
// works, every one of those threads holds the IEEE default environment
// (common/fpenv.h).  Each thread keeps its saved states on its own stack, so
// enter/exit pairs nest.
thread_local std::vector<repdl::FpState> t_saved_fp_states;

PyObject* py_ieee_enter(PyObject*, PyObject*) {
  Py_BEGIN_ALLOW_THREADS
#pragma omp parallel num_threads(omp_get_max_threads())
  t_saved_fp_states.push_back(repdl::fp_state_enter_ieee());
  Py_END_ALLOW_THREADS
  Py_RETURN_NONE;
}

// The calling thread alone, for work torch runs inline (ops on fewer
// elements than ATen's parallel grain): no parallel region to wake.
PyObject* py_ieee_enter_thread(PyObject*, PyObject*) {
  t_saved_fp_states.push_back(repdl::fp_state_enter_ieee());
  Py_RETURN_NONE;
}

PyObject* py_ieee_exit_thread(PyObject*, PyObject*) {
  if (!t_saved_fp_states.empty()) {
    repdl::fp_state_restore(t_saved_fp_states.back());
    t_saved_fp_states.pop_back();
  }
  Py_RETURN_NONE;
}

PyObject* py_ieee_exit(PyObject*, PyObject*) {
  Py_BEGIN_ALLOW_THREADS
#pragma omp parallel num_threads(omp_get_max_threads())
  if (!t_saved_fp_states.empty()) {
    repdl::fp_state_restore(t_saved_fp_states.back());
    t_saved_fp_states.pop_back();
  }
  Py_END_ALLOW_THREADS
  Py_RETURN_NONE;
}

const PyMethodDef kCommonMethods[] = {
    {"isa", py_isa, METH_NOARGS, "Instruction set the kernels use now."},
    {"set_isa", py_set_isa, METH_O, "Select the instruction set by name (auto, generic, avx2, avx512)."},
    {"isa_supported", py_isa_supported, METH_O, "Whether this CPU can run the named instruction set."},
    {"max_threads", py_max_threads, METH_NOARGS, "Threads an OpenMP region would use now."},
    {"ieee_enter", py_ieee_enter, METH_NOARGS, "IEEE default FP environment on this thread and the OpenMP pool."},
    {"ieee_exit", py_ieee_exit, METH_NOARGS, "Restore the FP environment saved by the matching ieee_enter."},
    {"ieee_enter_thread", py_ieee_enter_thread, METH_NOARGS, "IEEE default FP environment on this thread only."},
    {"ieee_exit_thread", py_ieee_exit_thread, METH_NOARGS, "Restore the state saved by ieee_enter_thread."},
    {nullptr, nullptr, 0, nullptr},
};

std::vector<PyMethodDef> g_methods;

PyModuleDef g_module = {PyModuleDef_HEAD_INIT, "repdl._C", "RepDL C++ kernels", -1, nullptr,
                        nullptr, nullptr, nullptr, nullptr};

void append(repdl::MethodTable table) {
  for (const PyMethodDef* m = table; m->ml_name != nullptr; ++m) g_methods.push_back(*m);
}

}  // namespace

PyMODINIT_FUNC PyInit__C() {
  append(kCommonMethods);
  append(repdl::arith_methods());
  append(repdl::optim_methods());
  append(repdl::conv_methods());
  append(repdl::norm_methods());
  append(repdl::pool_methods());
  append(repdl::scatter_methods());
  append(repdl::gemm_methods());
  append(repdl::reduce_methods());
  append(repdl::softmax_methods());
  append(repdl::elementwise_methods());
  append(repdl::random_methods());
  append(repdl::route_methods());
  g_methods.push_back({nullptr, nullptr, 0, nullptr});
  g_module.m_methods = g_methods.data();
  return PyModule_Create(&g_module);
}
