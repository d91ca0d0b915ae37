// The largest error of each coarse float64 evaluation (csrc/elementwise/fn/
// erfc_coarse.h, log_coarse.h, softplus_coarse.h) over every float32 input
// it takes (all 2^32 bit patterns but those C::outside hands on, results
// below 2^-126 or not finite, which the window test sends on too, and the
// inputs of the exact rules: erf's |x| >= 4, erfc's z <= -4, gelu's x >
// 5.65),
// in float64 ulps of the result, against the accurate evaluation (within 8
// ulps, docs/elementwise.md's records): the measured side of each window,
// as quoted in docs/elementwise.md.  A measurement, not a check
// (verify.py and crosscheck.py check the results).  About a minute per
// function on the AVX-512 row:
//
//   g++ -O2 -std=c++17 -fopenmp -Icsrc -ffp-contract=off -o /tmp/coarse_error tools/cr/coarse_error.cpp \
//       csrc/elementwise/tables.cpp && /tmp/coarse_error
#pragma GCC target("avx512f,avx2,fma")
// As in row_avx512.cpp: GCC 12 reports its own _mm512_undefined_*() starts.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>
#include <utility>

#include "elementwise/cr.h"

namespace repdl {
namespace elementwise {
namespace avx512_row {
#include "elementwise/row_avx512.h"
#include "elementwise/kernels.h"
namespace {
#include "elementwise/row_simd.inc"
#include "elementwise/fn/erfc_coarse.h"
#include "elementwise/fn/log_coarse.h"
#include "elementwise/fn/softplus_coarse.h"
}  // namespace
}  // namespace avx512_row
}  // namespace elementwise
}  // namespace repdl

using namespace repdl::elementwise::avx512_row;

// |c - a| in ulps of a (a float64 ulp of a: 2^(e - 52) for 2^e <= |a| < 2^(e+1)).
double ulps(double c, double a) {
  int e;
  std::frexp(a, &e);
  return std::fabs(c - a) / std::ldexp(1.0, e - 53);
}

template <class C, class S>
void report(const char* name, bool (*rule)(float) = [](float) { return false; }) {
  double worst = 0;
  uint32_t worst_input = 0;
#pragma omp parallel
  {
    const C coarse;
    double local = 0;
    uint32_t local_input = 0;
#pragma omp for schedule(dynamic, 256)
    for (int64_t block = 0; block < (int64_t{1} << 28); ++block) {
      alignas(64) float xs[16];
      alignas(64) double vc[16], va[16];
      for (int j = 0; j < 16; ++j) {
        const uint32_t u = static_cast<uint32_t>(block * 16 + j);
        std::memcpy(xs + j, &u, sizeof u);
      }
      const F x = f32_load(xs);
      store(vc, coarse.eval(widen_lo(x)));
      store(vc + 8, coarse.eval(widen_hi(x)));
      store(va, S::eval(widen_lo(x)));
      store(va + 8, S::eval(widen_hi(x)));
      const uint32_t skip = fm_bits(C::outside(x));
      for (int j = 0; j < 16; ++j) {
        if (((skip >> j) & 1) || rule(xs[j]) || !std::isfinite(va[j]) || std::fabs(va[j]) < 0x1p-126) continue;
        const double err = ulps(vc[j], va[j]);
        if (err > local) {
          local = err;
          std::memcpy(&local_input, xs + j, sizeof local_input);
        }
      }
    }
#pragma omp critical
    if (local > worst) {
      worst = local;
      worst_input = local_input;
    }
  }
  std::printf("%-10s max %.3g ulps (2^%.2f), window %d (2^%.0f), at 0x%08x\n", name, worst, std::log2(worst),
              C::kWindow, std::log2(C::kWindow), worst_input);
}

int main() {
  report<ErfCoarse, Erf>("erf", [](float x) { return std::fabs(x) >= 4.0f; });
  report<ErfcCoarse, Erfc>("erfc", [](float z) { return z <= -4.0f; });
  report<GeluCoarse, Gelu>("gelu", [](float x) { return x > kGeluIdentity; });
  report<LogCoarse, Log>("log");
  report<Log2Coarse, Log2>("log2");
  report<Log10Coarse, Log10>("log10");
  report<Log1pCoarse, Log1p>("log1p");
  report<SoftplusCoarse, Softplus>("softplus");
  report<LogsigmoidCoarse, Logsigmoid>("logsigmoid");
}
