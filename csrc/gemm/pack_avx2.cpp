// AVX2 packing for the 6x16 kernel: 8x8 in-register transposes for the two
// layouts that need them (row-major A, column-major B), column-major A
// copied k step by k step (pack_a_columns); everything else goes to the
// portable packers.  Values are only moved, never combined.
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <algorithm>
#include "gemm/pack.h"

// Everything above is compiled for the baseline; only what follows, which
// runs after isa.cpp has checked the CPU, may use AVX2 and FMA.
#pragma GCC target("avx2,fma")
#include "common/avx2_util.h"

namespace repdl {
namespace gemm {

void pack_a_avx2_6(const Operand& a, int64_t mc, int64_t kc, int mr, float* dst) {
  if (mr == 6 && a.rs == 1 && a.cs != 1) return pack_a_columns<6>(a, mc, kc, dst);
  if (mr != 6 || a.cs != 1) return pack_a(a, mc, kc, mr, dst);
  const int64_t full = (mc / 6) * 6;
  for (int64_t i0 = 0; i0 < full; i0 += 6, dst += kc * 6) {
    const float* src = a.p + i0 * a.rs;
    int64_t k = 0;
    // Row kk of the transpose holds A[0..5][k+kk] in lanes 0-5.  Each 8-lane
    // store spills two lanes into the next step's slot, which the next store
    // (or the tail loop, or the next panel) overwrites; Config::pack_slack
    // covers the spill past the last panel.
    for (; k + 8 <= kc; k += 8) avx2::transpose8_block(src + k, a.rs, 6, dst + k * 6, 6);
    for (; k < kc; ++k)
      for (int i = 0; i < 6; ++i) dst[k * 6 + i] = src[i * a.rs + k];
  }
  if (full < mc) pack_a({a.p + full * a.rs, a.rs, a.cs}, mc - full, kc, mr, dst);
}

void pack_b_avx2_16(const Operand& b, int64_t kc, int64_t nc, int nr, int64_t p0, int64_t p1,
                    float* dst) {
  if (nr != 16 || (b.cs != 1 && b.rs != 1)) return pack_b(b, kc, nc, nr, p0, p1, dst);
  const int64_t p_full = std::min(p1, nc / 16);
  for (int64_t p = p0; p < p_full; ++p) {
    const float* src = b.p + p * 16 * b.cs;
    float* out = dst + p * kc * 16;
    if (b.cs == 1) {
      for (int64_t k = 0; k < kc; ++k) {
        _mm256_store_ps(out + k * 16, _mm256_loadu_ps(src + k * b.rs));
        _mm256_store_ps(out + k * 16 + 8, _mm256_loadu_ps(src + k * b.rs + 8));
      }
      continue;
    }
    int64_t k = 0;
    for (; k + 8 <= kc; k += 8)
      for (int half = 0; half < 2; ++half)
        avx2::transpose8_block(src + half * 8 * b.cs + k, b.cs, 8, out + k * 16 + half * 8, 16);
    for (; k < kc; ++k)
      for (int j = 0; j < 16; ++j) out[k * 16 + j] = src[j * b.cs + k];
  }
  if (std::max(p0, p_full) < p1) pack_b(b, kc, nc, nr, std::max(p0, p_full), p1, dst);
}

}  // namespace gemm
}  // namespace repdl
#endif
