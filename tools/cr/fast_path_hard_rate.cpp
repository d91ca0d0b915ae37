// How often the vector rows' fast paths (csrc/elementwise/fn/exp_f32.h,
// logistic_f32.h, rsqrt_f32.h, erfc_coarse.h, log_coarse.h,
// softplus_coarse.h) hand a lane to the accurate float64 path: the AVX-512
// row's kernels on every float32 of |x| in a range, each sign, as quoted in
// docs/elementwise.md.  A measurement, not a check
// (crosscheck.py and verify.py check the results):
//
//   g++ -O2 -std=c++17 -Icsrc -ffp-contract=off -o /tmp/hard_rate tools/cr/fast_path_hard_rate.cpp \
//       csrc/elementwise/tables.cpp && /tmp/hard_rate
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

// The share of hard lanes over the bit patterns [lo, hi), with the sign bit `sign`.
template <class K>
double hard_share(uint32_t lo, uint32_t hi, uint32_t sign) {
  const K kernel;
  uint64_t hard = 0;
  alignas(64) float xs[16];
  for (uint64_t b = lo; b < hi; b += 16) {
    for (int j = 0; j < 16; ++j) {
      const uint32_t u = static_cast<uint32_t>(b + j) | sign;
      std::memcpy(xs + j, &u, sizeof u);
    }
    uint32_t h;
    kernel.eval(f32_load(xs), &h);
    hard += static_cast<uint64_t>(__builtin_popcount(h));
  }
  return static_cast<double>(hard) / (hi - lo);
}

// |x| in [lo, hi) as bit patterns: 2^-7 to 32 where the whole range is the
// path's (for rsqrt and the logarithms, x > 0 alone is), 2^-7 to 4 for erfc
// and gelu, whose range ends at 5.65 (gelu) or 4 (erfc), 2^-7 to 1 for
// log1p (defined above -1).
template <class K>
void report(const char* name, uint32_t hi = 0x42000000u) {
  const uint32_t lo = 0x3C000000u;  // 2^-7
  std::printf("%-10s x > 0: 2^%.2f   x < 0: 2^%.2f\n", name, std::log2(hard_share<K>(lo, hi, 0)),
              std::log2(hard_share<K>(lo, hi, 0x80000000u)));
}

int main() {
  report<ExpF32>("exp");
  report<Exp2F32>("exp2");
  report<RsqrtF32>("rsqrt");
  report<SigmoidF32>("sigmoid");
  report<SiluF32>("silu");
  report<Float64Tier<ErfCoarse>>("erf");
  report<Float64Tier<ErfcCoarse>>("erfc", 0x40800000u);
  report<Float64Tier<GeluCoarse>>("gelu", 0x40800000u);
  report<Float64Tier<LogCoarse>>("log");
  report<Float64Tier<Log2Coarse>>("log2");
  report<Float64Tier<Log10Coarse>>("log10");
  report<Float64Tier<Log1pCoarse>>("log1p", 0x3F800000u);
  report<Float64Tier<SoftplusCoarse>>("softplus");
  report<Float64Tier<LogsigmoidCoarse>>("logsigmoid");
}
