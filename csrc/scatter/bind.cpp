#include "common/pyargs.h"
#include "scatter/scatter.h"

namespace repdl {
namespace {

// index_accumulate(src, index, n, d, dst, rows): all dense; Python checked the indices.
PyObject* py_index_accumulate(PyObject*, PyObject* args) {
  return run_without_gil(args, 6, [](const std::vector<int64_t>& v) {
    scatter::index_accumulate(as_ptr<const float>(v[0]), as_ptr<const int64_t>(v[1]), v[2], v[3],
                              as_ptr<float>(v[4]), v[5]);
  });
}

const PyMethodDef kMethods[] = {
    {"index_accumulate", py_index_accumulate, METH_VARARGS,
     "dst[index[i]] += src[i] in ascending i, from +0.0 (scatter-style gradients)."},
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

MethodTable scatter_methods() { return kMethods; }

}  // namespace repdl
