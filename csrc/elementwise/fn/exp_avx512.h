// exp on sixteen float32 lanes (AVX-512F), correctly rounded with its own
// rounding test: the fast path of the AVX-512 row (row_avx512.cpp), in
// front of Exp (exp.h), which settles the blocks this test cannot.  The
// error analysis is in docs/elementwise.md ("exp: the float32 path").
//
//   x = k ln2/32 + r,   k = round(32 x / ln2) = 32m + j,
//   e^x = 2^m T_j e^r,  T_j = 2^(j/32) = Th + Tl (float32 pair),
//   r = rh + rl:  rh = x - k C1 exactly (one fma), rl = -k C2,
//   e^rh = 1 + rh + q,  q = rh^2 (1/2 + rh/6 + rh^2/24),
//   T_j e^r = h + lo:   h = fl(Th + Th rh), lo = the rest in float32.
//
// The value h + lo is carried unscaled (in [0.98, 2.03]); fl(h + lo) is
// the result before the exact scaling by 2^m, and d = (h + lo) - fl(h + lo)
// is computed exactly.  A lane is hard when |d| lies within 2^-10 ulp of
// half an ulp (the evaluation's error is below 2^-12.4 ulp), when the
// result is a power of two approached from below (the midpoint below is a
// quarter ulp away), or when |x| > 87 or x is NaN (results that overflow,
// or fall under 2^-126 where the grid changes, and NaN, are Exp's).
// About 2^-9 of inputs are hard.
struct ExpF32x16 {
  // The table's two halves in four registers: vpermt2ps indexes 32 floats
  // in one instruction, where a gather would take a dozen.
  __m512 th0, th1, tl0, tl1;

  ExpF32x16() {
    alignas(64) static constexpr float kTable[2][32] = {
#include "elementwise/fn/exp_table_f32.inc"
    };
    th0 = _mm512_load_ps(kTable[0]);
    th1 = _mm512_load_ps(kTable[0] + 16);
    tl0 = _mm512_load_ps(kTable[1]);
    tl1 = _mm512_load_ps(kTable[1] + 16);
  }

  // fl32(e^x) in the lanes that are not hard; *hard: the hard lanes.
  F eval(F xv, __mmask16* hard) const {
    const __m512 x = xv.v;
    const __mmask16 in_range = _mm512_cmp_ps_mask(_mm512_abs_ps(x), s(87.0f), _CMP_LE_OQ);  // NaN: false
    // s holds kMagic + k: its low five bits are j, its bits from the fifth
    // up are 32m (the magic's bits all sit above bit 21, |k| <= 4017).
    const __m512 sk = _mm512_fmadd_ps(x, s(0x1.715476p+5f), s(0x1.8p23f));
    const __m512 k = _mm512_sub_ps(sk, s(0x1.8p23f));
    // C1 = fl32(ln2/32), C2 = fl32(ln2/32 - C1): x - k C1 is exact (for
    // k != 0, |x| >= 2^-7 makes x and k C1 multiples of 2^-30, and |rh| <
    // 2^-6); rl = -k C2 within 2^-45, |rl| < 2^-21.9.
    const __m512 rh = _mm512_fnmadd_ps(k, s(0x1.62e43p-6f), x);
    const __m512 minus_rl = _mm512_mul_ps(k, s(-0x1.05c61p-34f));
    const __m512i idx = _mm512_castps_si512(sk);
    const __m512 th = _mm512_permutex2var_ps(th0, idx, th1);
    const __m512 tl = _mm512_permutex2var_ps(tl0, idx, tl1);
    // Taylor to degree 4: the first omitted term, r^5/120, is below 2^-39.5.
    const __m512 p = _mm512_fmadd_ps(_mm512_fmadd_ps(s(0x1.555556p-5f), rh, s(0x1.555556p-3f)), rh, s(0.5f));
    const __m512 q = _mm512_mul_ps(_mm512_mul_ps(rh, rh), p);
    // h = fl(Th + Th rh); th - h is exact (Sterbenz), so he is the
    // rounding error of h, itself rounded (|he| <= 2^-23, error 2^-48).
    const __m512 h = _mm512_fmadd_ps(th, rh, th);
    const __m512 he = _mm512_fmadd_ps(th, rh, _mm512_sub_ps(th, h));
    // T e^r - h = he + Th q + (Tl + Th rl)(1 + rh + q) + O(2^-37).
    const __m512 c = _mm512_fnmadd_ps(th, minus_rl, tl);
    const __m512 lo = _mm512_fmadd_ps(th, q, _mm512_fmadd_ps(c, _mm512_add_ps(rh, q), _mm512_add_ps(c, he)));
    const __m512 y = _mm512_add_ps(h, lo);
    // y - h is exact (Sterbenz) and d, the rounding error of h + lo, is a
    // float: d is exact.
    const __m512 d = _mm512_sub_ps(lo, _mm512_sub_ps(y, h));
    const __m512i yb = _mm512_castps_si512(y);
    // (1/2 - 2^-10) ulp(y) from y's exponent: 2^(e - 24) (1 - 2^-9).
    const __m512 limit = _mm512_castsi512_ps(
        _mm512_add_epi32(_mm512_and_si512(yb, _mm512_set1_epi32(0x7F800000)),
                         _mm512_set1_epi32(static_cast<int>(0x7F8000u - (25u << 23)))));
    const __mmask16 near = _mm512_cmp_ps_mask(_mm512_abs_ps(d), limit, _CMP_GE_OQ);
    const __mmask16 power_of_two = _mm512_testn_epi32_mask(yb, _mm512_set1_epi32(0x7FFFFF));
    const __mmask16 below = _mm512_mask_cmp_ps_mask(power_of_two, d, _mm512_setzero_ps(), _CMP_LT_OQ);
    *hard = static_cast<__mmask16>(near | below | static_cast<__mmask16>(~in_range));
    // 2^m: (kMagic + k - j) << 18 is m << 23 (the magic's bits shift out).
    const __m512i m = _mm512_slli_epi32(_mm512_andnot_si512(_mm512_set1_epi32(31), idx), 18);
    return {_mm512_castsi512_ps(_mm512_add_epi32(yb, m))};
  }

 private:
  static __m512 s(float v) { return _mm512_set1_ps(v); }
};
