// AVX-512 packing for the three tiles.  Row-major B rows are copied V zmm
// at a time; column-major B (the transposed weight of linear) and
// row-major A go through 8x8 in-register transposes; column-major A
// (pack_a_columns) is copied k step by k step.  Values are only moved,
// never combined.
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <algorithm>
#include "gemm/pack.h"

// Everything above is compiled for the baseline; only what follows, which
// runs after isa.cpp has checked the CPU, may use AVX-512.
#pragma GCC target("avx512f,avx2,fma")
#include "common/avx2_util.h"

namespace repdl {
namespace gemm {

// A panel of 8 rows, 8 k steps at a time through one in-register transpose.
void pack_a_avx512_8(const Operand& a, int64_t mc, int64_t kc, int mr, float* dst) {
  if (mr == 8 && a.rs == 1 && a.cs != 1) return pack_a_columns<8>(a, mc, kc, dst);
  if (mr != 8 || a.cs != 1) return pack_a(a, mc, kc, mr, dst);
  const int64_t full = (mc / 8) * 8;
  for (int64_t i0 = 0; i0 < full; i0 += 8, dst += kc * 8) {
    const float* src = a.p + i0 * a.rs;
    int64_t k = 0;
    for (; k + 8 <= kc; k += 8) avx2::transpose8_block(src + k, a.rs, 8, dst + k * 8, 8);
    for (; k < kc; ++k)
      for (int i = 0; i < 8; ++i) dst[k * 8 + i] = src[i * a.rs + k];
  }
  if (full < mc) pack_a({a.p + full * a.rs, a.rs, a.cs}, mc - full, kc, mr, dst);
}

// A panel of 12 rows, 8 k steps at a time: rows 8-11 (with four zero rows),
// then rows 0-7, each an 8 x 8 transpose; step k's 12 values are stored as
// 8 + 8 floats, the rows 8-11 block's stores spilling 4 into step k+1's
// slot, which the rows 0-7 block (or the tail loop, or the next panel)
// overwrites after them; Config::pack_slack covers the spill past the last
// panel.
void pack_a_avx512_12(const Operand& a, int64_t mc, int64_t kc, int mr, float* dst) {
  if (mr == 12 && a.rs == 1 && a.cs != 1) return pack_a_columns<12>(a, mc, kc, dst);
  if (mr != 12 || a.cs != 1) return pack_a(a, mc, kc, mr, dst);
  const int64_t full = (mc / 12) * 12;
  for (int64_t i0 = 0; i0 < full; i0 += 12, dst += kc * 12) {
    const float* src = a.p + i0 * a.rs;
    int64_t k = 0;
    for (; k + 8 <= kc; k += 8) {
      avx2::transpose8_block(src + 8 * a.rs + k, a.rs, 4, dst + k * 12 + 8, 12);
      avx2::transpose8_block(src + k, a.rs, 8, dst + k * 12, 12);
    }
    for (; k < kc; ++k)
      for (int i = 0; i < 12; ++i) dst[k * 12 + i] = src[i * a.rs + k];
  }
  if (full < mc) pack_a({a.p + full * a.rs, a.rs, a.cs}, mc - full, kc, mr, dst);
}

// Micro-panels of 16 * V columns: row-major rows copied V zmm at a time,
// column-major ones through 2V 8x8 transposes per 8 k steps.
template <int V>
void pack_b_zmm(const Operand& b, int64_t kc, int64_t nc, int nr, int64_t p0, int64_t p1, float* dst) {
  constexpr int NR = 16 * V;
  if (nr != NR || (b.cs != 1 && b.rs != 1)) return pack_b(b, kc, nc, nr, p0, p1, dst);
  const int64_t p_full = std::min(p1, nc / NR);
  for (int64_t p = p0; p < p_full; ++p) {
    const float* src = b.p + p * NR * b.cs;
    float* out = dst + p * kc * NR;
    if (b.cs == 1) {
      for (int64_t k = 0; k < kc; ++k)
        for (int q = 0; q < V; ++q) _mm512_store_ps(out + k * NR + 16 * q, _mm512_loadu_ps(src + k * b.rs + 16 * q));
      continue;
    }
    int64_t k = 0;
    for (; k + 8 <= kc; k += 8)
      for (int part = 0; part < 2 * V; ++part)
        avx2::transpose8_block(src + part * 8 * b.cs + k, b.cs, 8, out + k * NR + part * 8, NR);
    for (; k < kc; ++k)
      for (int j = 0; j < NR; ++j) out[k * NR + j] = src[j * b.cs + k];
  }
  if (std::max(p0, p_full) < p1) pack_b(b, kc, nc, nr, std::max(p0, p_full), p1, dst);
}

void pack_b_avx512_32(const Operand& b, int64_t kc, int64_t nc, int nr, int64_t p0, int64_t p1, float* dst) {
  pack_b_zmm<2>(b, kc, nc, nr, p0, p1, dst);
}
void pack_b_avx512_64(const Operand& b, int64_t kc, int64_t nc, int nr, int64_t p0, int64_t p1, float* dst) {
  pack_b_zmm<4>(b, kc, nc, nr, p0, p1, dst);
}

void pack_b_avx512_48(const Operand& b, int64_t kc, int64_t nc, int nr, int64_t p0, int64_t p1, float* dst) {
  pack_b_zmm<3>(b, kc, nc, nr, p0, p1, dst);
}

}  // namespace gemm
}  // namespace repdl
#endif
