#include "common/pyargs.h"

namespace repdl {
namespace {
const PyMethodDef kMethods[] = {
    {nullptr, nullptr, 0, nullptr},
};
}  // namespace
MethodTable reduce_methods() { return kMethods; }
}  // namespace repdl
