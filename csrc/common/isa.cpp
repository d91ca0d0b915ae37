#include "common/isa.h"

#include <cstdlib>
#include <cstring>
#include <cstdio>

namespace repdl {
namespace {

Isa best_supported() {
  if (isa_supported(Isa::avx512)) return Isa::avx512;
  return isa_supported(Isa::avx2) ? Isa::avx2 : Isa::generic;
}

Isa initial_isa() {
  const char* env = std::getenv("REPDL_ISA");
  if (env == nullptr || *env == '\0' || std::strcmp(env, "auto") == 0) return best_supported();
  if (std::strcmp(env, "generic") == 0) return Isa::generic;
  if (std::strcmp(env, "avx2") == 0 && isa_supported(Isa::avx2)) return Isa::avx2;
  if (std::strcmp(env, "avx512") == 0 && isa_supported(Isa::avx512)) return Isa::avx512;
  // An unusable request must not silently become a different kernel path:
  // the Python side checks REPDL_ISA before loading us and raises; this is
  // the last line of defence for direct C users.
  std::fprintf(stderr, "repdl: REPDL_ISA=%s is not available; using generic\n", env);
  return Isa::generic;
}

Isa g_isa = initial_isa();

}  // namespace

Isa active_isa() { return g_isa; }

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::avx2: return "avx2";
    case Isa::avx512: return "avx512";
    default: return "generic";
  }
}

bool isa_supported(Isa isa) {
  switch (isa) {
    case Isa::generic:
      return true;
    case Isa::avx2:
#if defined(__x86_64__) || defined(__i386__)
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
      return false;
#endif
    case Isa::avx512:
#if defined(__x86_64__) || defined(__i386__)
      // (libgcc's check includes the OS saving the zmm state.)
      return isa_supported(Isa::avx2) && __builtin_cpu_supports("avx512f");
#else
      return false;
#endif
  }
  return false;
}

bool set_isa(const char* name) {
  Isa want;
  if (std::strcmp(name, "auto") == 0) want = best_supported();
  else if (std::strcmp(name, "generic") == 0) want = Isa::generic;
  else if (std::strcmp(name, "avx2") == 0) want = Isa::avx2;
  else if (std::strcmp(name, "avx512") == 0) want = Isa::avx512;
  else return false;
  if (!isa_supported(want)) return false;
  g_isa = want;
  return true;
}

}  // namespace repdl
