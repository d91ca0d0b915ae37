// The body of a row of random kernels, compiled once per instruction set:
// row_generic.cpp and row_avx2.cpp define REPDL_RANDOM_ROW (the namespace)
// and, for AVX2, REPDL_RANDOM_AVX2 before including this file.  The scalar
// code is the definition; the AVX2 sections do the same operations eight
// lanes at a time (integer ops, exact conversions, IEEE mul/sqrt/fma), so
// both rows give the same bits.
//
// Every floating-point step of the normal transform is one correctly rounded
// operation (docs/CONTRACT.md, "Random numbers"):
//   u1 = ((w0 >> 8) + 1) * 2^-24        exact
//   u2 = (w1 >> 8) * 2^-24              exact
//   t  = -2 * log(u1)                    log correctly rounded; * -2 exact
//   r  = sqrt(t)                         correctly rounded
//   th = fl32(2 pi) * u2                 one rounding
//   z0 = r * cos(th),  z1 = r * sin(th)  cos, sin correctly rounded; one rounding each
#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/nan.h"
#include "random/crmath.h"
#include "random/row.h"

#ifdef REPDL_RANDOM_AVX2
#include <immintrin.h>
#endif

namespace repdl {
namespace random {
namespace REPDL_RANDOM_ROW {
namespace {

constexpr int64_t kChunk = 256;             // blocks per chunk: 1024 words, 4 KiB
constexpr float kTwoPi = 6.28318548202514648f;  // fl32(2 pi), bits 0x40C90FDB
constexpr float kTwoPow24 = 0x1p-24f;

inline float unit(uint32_t w) { return static_cast<float>(w >> 8) * kTwoPow24; }
inline float unit_open0(uint32_t w) { return static_cast<float>((w >> 8) + 1) * kTwoPow24; }

void blocks_scalar(Key key, uint64_t base, uint64_t stream, int64_t nblocks, uint32_t* out) {
  uint32_t ctr[4] = {0, 0, static_cast<uint32_t>(stream), static_cast<uint32_t>(stream >> 32)};
  for (int64_t t = 0; t < nblocks; ++t) {
    const uint64_t c = base + static_cast<uint64_t>(t);
    ctr[0] = static_cast<uint32_t>(c);
    ctr[1] = static_cast<uint32_t>(c >> 32);
    philox4x32_10(ctr, key, out + 4 * t);
  }
}

#ifdef REPDL_RANDOM_AVX2
// 32x32 -> 64 products of eight lanes by a constant: (hi, lo) words.
inline void mulhilo8(__m256i a, __m256i m, __m256i* hi, __m256i* lo) {
  const __m256i even = _mm256_mul_epu32(a, m);
  const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), m);
  *lo = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
  *hi = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
}

void blocks(Key key, uint64_t base, uint64_t stream, int64_t nblocks, uint32_t* out) {
  const __m256i m0 = _mm256_set1_epi32(static_cast<int>(kM0)), m1 = _mm256_set1_epi32(static_cast<int>(kM1));
  const __m256i w0 = _mm256_set1_epi32(static_cast<int>(kW0)), w1 = _mm256_set1_epi32(static_cast<int>(kW1));
  const __m256i s0 = _mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(stream)));
  const __m256i s1 = _mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(stream >> 32)));
  int64_t t = 0;
  for (; t + 8 <= nblocks; t += 8) {
    alignas(32) uint32_t lo[8], hi[8];
    for (int l = 0; l < 8; ++l) {
      const uint64_t c = base + static_cast<uint64_t>(t + l);
      lo[l] = static_cast<uint32_t>(c);
      hi[l] = static_cast<uint32_t>(c >> 32);
    }
    __m256i c0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(lo));
    __m256i c1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(hi));
    __m256i c2 = s0, c3 = s1;
    __m256i k0 = _mm256_set1_epi32(static_cast<int>(key.k0)), k1 = _mm256_set1_epi32(static_cast<int>(key.k1));
    for (int r = 0; r < 10; ++r) {
      if (r > 0) {
        k0 = _mm256_add_epi32(k0, w0);
        k1 = _mm256_add_epi32(k1, w1);
      }
      __m256i hi0, lo0, hi1, lo1;
      mulhilo8(c0, m0, &hi0, &lo0);
      mulhilo8(c2, m1, &hi1, &lo1);
      c0 = _mm256_xor_si256(_mm256_xor_si256(hi1, c1), k0);
      c1 = lo1;
      c2 = _mm256_xor_si256(_mm256_xor_si256(hi0, c3), k1);
      c3 = lo0;
    }
    // Lane l of c0..c3 is block t + l; transpose to stream order.
    const __m256 a0 = _mm256_castsi256_ps(c0), a1 = _mm256_castsi256_ps(c1);
    const __m256 a2 = _mm256_castsi256_ps(c2), a3 = _mm256_castsi256_ps(c3);
    const __m256 t0 = _mm256_unpacklo_ps(a0, a1), t1 = _mm256_unpackhi_ps(a0, a1);
    const __m256 t2 = _mm256_unpacklo_ps(a2, a3), t3 = _mm256_unpackhi_ps(a2, a3);
    const __m256 b0 = _mm256_shuffle_ps(t0, t2, 0x44), b1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    const __m256 b2 = _mm256_shuffle_ps(t1, t3, 0x44), b3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    float* o = reinterpret_cast<float*>(out + 4 * t);
    _mm256_storeu_ps(o, _mm256_permute2f128_ps(b0, b1, 0x20));
    _mm256_storeu_ps(o + 8, _mm256_permute2f128_ps(b2, b3, 0x20));
    _mm256_storeu_ps(o + 16, _mm256_permute2f128_ps(b0, b1, 0x31));
    _mm256_storeu_ps(o + 24, _mm256_permute2f128_ps(b2, b3, 0x31));
  }
  if (t < nblocks) blocks_scalar(key, base + static_cast<uint64_t>(t), stream, nblocks - t, out + 4 * t);
}
#else
void blocks(Key key, uint64_t base, uint64_t stream, int64_t nblocks, uint32_t* out) {
  blocks_scalar(key, base, stream, nblocks, out);
}
#endif

// Calls f(first_block, nblocks, words) for chunks of [j0, j1).
template <class F>
inline void for_chunks(Stream s, int64_t j0, int64_t j1, const F& f) {
  alignas(64) uint32_t w[4 * kChunk];
  for (int64_t j = j0; j < j1; j += kChunk) {
    const int64_t nb = std::min(kChunk, j1 - j);
    blocks(s.key, s.offset + static_cast<uint64_t>(j), 0, nb, w);
    f(j, nb, w);
  }
}

void uniform(Stream s, int64_t j0, int64_t j1, int64_t n, bool plain, float a, float span, float* out) {
  for_chunks(s, j0, j1, [&](int64_t j, int64_t nb, const uint32_t* w) {
    int64_t e0, e1;
    block_elements(j, j + nb, n, 4, &e0, &e1);
    float* o = out + e0;
    const int64_t m = e1 - e0;
    int64_t i = 0;
#ifdef REPDL_RANDOM_AVX2
    const __m256 scale = _mm256_set1_ps(kTwoPow24), va = _mm256_set1_ps(a), vs = _mm256_set1_ps(span);
    for (; i + 8 <= m; i += 8) {
      const __m256i v = _mm256_srli_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + i)), 8);
      const __m256 u = _mm256_mul_ps(_mm256_cvtepi32_ps(v), scale);
      _mm256_storeu_ps(o + i, plain ? u : _mm256_fmadd_ps(vs, u, va));
    }
#endif
    if (plain) {
      for (; i < m; ++i) o[i] = unit(w[i]);
    } else {
      for (; i < m; ++i) o[i] = std::fma(span, unit(w[i]), a);
    }
  });
}

void box_muller(const uint32_t* w, int64_t npairs, float* z) {
  // Work arrays in blocks of up to 2 * kChunk pairs.
  constexpr int64_t kPairs = 2 * kChunk;
  alignas(64) float u1[kPairs], th[kPairs], lg[kPairs], cs[kPairs], sn[kPairs];
  for (int64_t p0 = 0; p0 < npairs; p0 += kPairs) {
    const int64_t np = std::min(kPairs, npairs - p0);
    const uint32_t* wp = w + 2 * p0;
    float* zp = z + 2 * p0;
    int64_t k = 0;
#ifdef REPDL_RANDOM_AVX2
    // Eight pairs from sixteen words.  shuffle_ps takes lanes in the order
    // of pairs (0,1,4,5,2,3,6,7); unpacklo/hi below undo exactly that.
    const __m256 scale = _mm256_set1_ps(kTwoPow24), twopi = _mm256_set1_ps(kTwoPi);
    const __m256i one = _mm256_set1_epi32(1);
    for (; k + 8 <= np; k += 8) {
      const __m256 a = _mm256_loadu_ps(reinterpret_cast<const float*>(wp + 2 * k));
      const __m256 b = _mm256_loadu_ps(reinterpret_cast<const float*>(wp + 2 * k + 8));
      const __m256i e = _mm256_castps_si256(_mm256_shuffle_ps(a, b, 0x88));  // words 0, 2, ...
      const __m256i o = _mm256_castps_si256(_mm256_shuffle_ps(a, b, 0xDD));  // words 1, 3, ...
      const __m256 v1 = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_add_epi32(_mm256_srli_epi32(e, 8), one)), scale);
      const __m256 v2 = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_srli_epi32(o, 8)), scale);
      _mm256_store_ps(u1 + k, v1);
      _mm256_store_ps(th + k, _mm256_mul_ps(twopi, v2));
    }
#endif
    for (int64_t q = k; q < np; ++q) {
      u1[q] = unit_open0(wp[2 * q]);
      th[q] = kTwoPi * unit(wp[2 * q + 1]);
    }
    crmath::log(u1, lg, np);
    crmath::cos(th, cs, np);
    crmath::sin(th, sn, np);
    k = 0;
#ifdef REPDL_RANDOM_AVX2
    const __m256 minus2 = _mm256_set1_ps(-2.0f);
    for (; k + 8 <= np; k += 8) {
      const __m256 r = _mm256_sqrt_ps(_mm256_mul_ps(minus2, _mm256_load_ps(lg + k)));
      const __m256 z0 = _mm256_mul_ps(r, _mm256_load_ps(cs + k));
      const __m256 z1 = _mm256_mul_ps(r, _mm256_load_ps(sn + k));
      _mm256_storeu_ps(zp + 2 * k, _mm256_unpacklo_ps(z0, z1));
      _mm256_storeu_ps(zp + 2 * k + 8, _mm256_unpackhi_ps(z0, z1));
    }
#endif
    for (int64_t q = k; q < np; ++q) {
      const float r = std::sqrt(-2.0f * lg[q]);
      zp[2 * q] = r * cs[q];
      zp[2 * q + 1] = r * sn[q];
    }
  }
}

void normal(Stream s, int64_t j0, int64_t j1, int64_t n, bool affine, float mean, float stdv, float* out) {
  alignas(64) float z[4 * kChunk];
  for_chunks(s, j0, j1, [&](int64_t j, int64_t nb, const uint32_t* w) {
    int64_t e0, e1;
    block_elements(j, j + nb, n, 4, &e0, &e1);
    const int64_t m = e1 - e0;
    const bool whole = m == 4 * nb;
    // Write straight into the output when every element of the chunk is ours.
    float* zp = whole ? out + e0 : z;
    box_muller(w, (m + 1) / 2, zp);
    if (!whole) std::memcpy(out + e0, z, static_cast<size_t>(m) * sizeof(float));
    if (affine) {
      float* o = out + e0;
      int64_t i = 0;
#ifdef REPDL_RANDOM_AVX2
      const __m256 vm = _mm256_set1_ps(mean), vs = _mm256_set1_ps(stdv);
      for (; i + 8 <= m; i += 8) _mm256_storeu_ps(o + i, _mm256_fmadd_ps(vs, _mm256_loadu_ps(o + i), vm));
#endif
      for (; i < m; ++i) o[i] = std::fma(stdv, o[i], mean);
    }
  });
}

}  // namespace

const Row& row() {
  static const Row r{blocks, uniform, normal, box_muller};
  return r;
}

}  // namespace REPDL_RANDOM_ROW
}  // namespace random
}  // namespace repdl
