// Row "avx512": the kernels' vocabulary on eight float64 lanes (sixteen
// float32 lanes for the exact kernels) with AVX-512F.  Each operation is the
// lane-wise counterpart of row_generic.h's, with the same IEEE-754 rounding,
// so all three rows compute identical float64 values: the wider row only
// does twice the AVX2 row's work per instruction.  Masks are k-registers.
//
// Included inside `namespace repdl::elementwise::avx512_row` in a file that
// enabled `#pragma GCC target("avx512f,avx2,fma")` and included
// <immintrin.h>, <cstdint> and <cstring>; it includes nothing itself.

constexpr int kLanes = 8;
constexpr int kFloatLanes = 16;

struct D {
  __m512d v;
  D() = default;
  D(__m512d a) : v(a) {}                     // NOLINT: implicit by design
  D(double a) : v(_mm512_set1_pd(a)) {}      // NOLINT: constants splat
};
struct M {
  __mmask8 v;
};
struct U {
  __m512i v;
  U() = default;
  U(__m512i a) : v(a) {}                                         // NOLINT
  U(uint64_t a) : v(_mm512_set1_epi64(static_cast<long long>(a))) {}  // NOLINT
};
struct F {
  __m512 v;
};

inline D operator+(D a, D b) { return _mm512_add_pd(a.v, b.v); }
inline D operator-(D a, D b) { return _mm512_sub_pd(a.v, b.v); }
inline D operator*(D a, D b) { return _mm512_mul_pd(a.v, b.v); }
inline D operator/(D a, D b) { return _mm512_div_pd(a.v, b.v); }
inline D operator-(D a) {
  return _mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(a.v), _mm512_set1_epi64(INT64_MIN)));
}
inline D fma(D a, D b, D c) { return _mm512_fmadd_pd(a.v, b.v, c.v); }
inline D select(M m, D a, D b) { return _mm512_mask_blend_pd(m.v, b.v, a.v); }
inline U select(M m, U a, U b) { return _mm512_mask_blend_epi64(m.v, b.v, a.v); }
// vmaxpd/vminpd return the second operand when either is NaN, as the
// generic row's `a > b ? a : b` does.
inline D vmax(D a, D b) { return _mm512_max_pd(a.v, b.v); }
inline D vmin(D a, D b) { return _mm512_min_pd(a.v, b.v); }
inline M lt(D a, D b) { return {_mm512_cmp_pd_mask(a.v, b.v, _CMP_LT_OQ)}; }
inline M le(D a, D b) { return {_mm512_cmp_pd_mask(a.v, b.v, _CMP_LE_OQ)}; }
inline M gt(D a, D b) { return {_mm512_cmp_pd_mask(a.v, b.v, _CMP_GT_OQ)}; }
inline M ge(D a, D b) { return {_mm512_cmp_pd_mask(a.v, b.v, _CMP_GE_OQ)}; }
inline M eq(D a, D b) { return {_mm512_cmp_pd_mask(a.v, b.v, _CMP_EQ_OQ)}; }
inline M is_nan(D a) { return {_mm512_cmp_pd_mask(a.v, a.v, _CMP_UNORD_Q)}; }
inline M m_or(M a, M b) { return {static_cast<__mmask8>(a.v | b.v)}; }
inline M m_and(M a, M b) { return {static_cast<__mmask8>(a.v & b.v)}; }
inline M m_not(M a) { return {static_cast<__mmask8>(~a.v)}; }
inline int movemask(M m) { return m.v; }
inline U bits(D a) { return _mm512_castpd_si512(a.v); }
inline D from_bits(U u) { return _mm512_castsi512_pd(u.v); }
inline U operator+(U a, U b) { return _mm512_add_epi64(a.v, b.v); }
inline U operator-(U a, U b) { return _mm512_sub_epi64(a.v, b.v); }
inline U operator&(U a, U b) { return _mm512_and_si512(a.v, b.v); }
inline U operator|(U a, U b) { return _mm512_or_si512(a.v, b.v); }
inline U operator^(U a, U b) { return _mm512_xor_si512(a.v, b.v); }
inline U shl(U a, int n) { return _mm512_slli_epi64(a.v, static_cast<unsigned>(n)); }
inline U shr(U a, int n) { return _mm512_srli_epi64(a.v, static_cast<unsigned>(n)); }  // logical
inline M ieq(U a, U b) { return {_mm512_cmpeq_epi64_mask(a.v, b.v)}; }
inline M igt(U a, U b) { return {_mm512_cmpgt_epi64_mask(a.v, b.v)}; }  // signed
inline D gather(const double* base, U index) { return _mm512_i64gather_pd(index.v, base, 8); }
inline double lane(D a, int j) {
  alignas(64) double t[8];
  _mm512_store_pd(t, a.v);
  return t[j];
}
inline void set_lane(D& a, int j, double v) {
  alignas(64) double t[8];
  _mm512_store_pd(t, a.v);
  t[j] = v;
  a.v = _mm512_load_pd(t);
}
inline uint64_t lane(U a, int j) {
  alignas(64) uint64_t t[8];
  _mm512_store_si512(t, a.v);
  return t[j];
}
inline void set_lane(U& a, int j, uint64_t v) {
  alignas(64) uint64_t t[8];
  _mm512_store_si512(t, a.v);
  t[j] = v;
  a.v = _mm512_load_si512(t);
}

// fl32(1 / fl32(sqrt x)) for lanes holding float32 values (IEEE float32
// square root and division: the same bits as the generic row's seed).
inline D f32_rsqrt_seed(D x) {
  const __m256 xf = _mm512_cvtpd_ps(x.v);  // exact: x holds float32 values
  const __m256 y = _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_sqrt_ps(xf));
  return _mm512_cvtps_pd(y);
}

// float32 lanes
inline F f32_sqrt(F a) { return {_mm512_sqrt_ps(a.v)}; }
inline F f32_div(F a, F b) { return {_mm512_div_ps(a.v, b.v)}; }
// 1/sqrt(a) within 2^-14 relative (vrsqrt14ps; its bits may differ between
// vendors, which only the rounding test after it sees: fn/rsqrt_f32.h).
constexpr int kRsqrtSeedBits = 14;
inline F f32_rsqrt_seed(F a) { return {_mm512_rsqrt14_ps(a.v)}; }
inline F f32_mul(F a, F b) { return {_mm512_mul_ps(a.v, b.v)}; }
inline F f32_load(const float* p) { return {_mm512_loadu_ps(p)}; }
inline F f32_splat(float v) { return {_mm512_set1_ps(v)}; }
inline void f32_store(float* p, F a) {
  // The contract's NaN: every NaN written is 0x7FC00000.
  const __m512 qnan = _mm512_castsi512_ps(_mm512_set1_epi32(0x7FC00000));
  _mm512_storeu_ps(p, _mm512_mask_mov_ps(a.v, _mm512_cmp_ps_mask(a.v, a.v, _CMP_UNORD_Q), qnan));
}
inline void f32_store_raw(float* p, F a) { _mm512_storeu_ps(p, a.v); }

// float32 arithmetic, bit steps and masks for the float32 paths
// (fn/double_float.h and the fn/*_f32.h): each operation is one IEEE float32 or integer
// instruction on every lane.
struct FM {
  __mmask16 v;
};
inline F f32_add(F a, F b) { return {_mm512_add_ps(a.v, b.v)}; }
inline F f32_sub(F a, F b) { return {_mm512_sub_ps(a.v, b.v)}; }
inline F f32_fma(F a, F b, F c) { return {_mm512_fmadd_ps(a.v, b.v, c.v)}; }    // a b + c
inline F f32_fnma(F a, F b, F c) { return {_mm512_fnmadd_ps(a.v, b.v, c.v)}; }  // c - a b
inline F f32_fms(F a, F b, F c) { return {_mm512_fmsub_ps(a.v, b.v, c.v)}; }     // a b - c
inline F f32_fnms(F a, F b, F c) { return {_mm512_fnmsub_ps(a.v, b.v, c.v)}; }   // -(a b) - c
inline F f32_abs(F a) { return {_mm512_abs_ps(a.v)}; }
inline F f32_max(F a, F b) { return {_mm512_max_ps(a.v, b.v)}; }  // b where either is NaN
inline F f32_min(F a, F b) { return {_mm512_min_ps(a.v, b.v)}; }  // b where either is NaN
inline F f32_and_bits(F a, uint32_t m) {
  return {_mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(a.v), _mm512_set1_epi32(static_cast<int>(m))))};
}
inline F f32_or_sign(F a, F s) {  // a with s's sign bit or'd in (copysign for a >= +0)
  const __m512i sign = _mm512_and_si512(_mm512_castps_si512(s.v), _mm512_set1_epi32(INT32_MIN));
  return {_mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(a.v), sign))};
}
inline F f32_add_bits(F a, F b) {  // the bit patterns' integer sum
  return {_mm512_castsi512_ps(_mm512_add_epi32(_mm512_castps_si512(a.v), _mm512_castps_si512(b.v)))};
}
inline F f32_sub_bits(F a, F b) {  // the bit patterns' integer difference
  return {_mm512_castsi512_ps(_mm512_sub_epi32(_mm512_castps_si512(a.v), _mm512_castps_si512(b.v)))};
}
inline F f32_shl_bits(F a, int n) {
  return {_mm512_castsi512_ps(_mm512_slli_epi32(_mm512_castps_si512(a.v), static_cast<unsigned>(n)))};
}
inline F f32_sra_bits(F a, int n) {  // the bit patterns shifted right as int32 (sign-filling)
  return {_mm512_castsi512_ps(_mm512_srai_epi32(_mm512_castps_si512(a.v), static_cast<unsigned>(n)))};
}
inline F f32_from_int_bits(F a) { return {_mm512_cvtepi32_ps(_mm512_castps_si512(a.v))}; }  // the int32 pattern's value
// a 2^n, rounded once (exact where the result is normal), for an integer n
// in [-126, 127] given twice: n = floor(e), and ebits = n << 23 (the AVX2
// row's form).  One vscalefps, which floors e itself: it replaces the three
// integer steps that build 2^n (measured on Zen 4, 64K, 1 thread: exp 0.87
// of the time, sigmoid 0.91-0.97, silu 0.89-0.99).
inline F f32_scale_pow2(F a, F e, F ebits) {
  (void)ebits;
  return {_mm512_scalef_ps(a.v, e.v)};
}
// f32_scale_pow2 in the lanes of m, +0 elsewhere.  The lanes outside m,
// which the callers send to their rescue, are not computed: a masked-off
// lane takes no microcode assist, where a result below 2^-126 costs one
// (exp of 64K inputs spread as randn * 50, a twentieth of them in (-104,
// -87), took 7.5 times its random-input time).
inline F f32_scale_pow2_where(FM m, F a, F e, F ebits) {
  (void)ebits;
  return {_mm512_maskz_scalef_ps(m.v, a.v, e.v)};
}
// a b and a b - c in the lanes of m, +0 elsewhere (no assist there).
inline F f32_mul_where(FM m, F a, F b) { return {_mm512_maskz_mul_ps(m.v, a.v, b.v)}; }
inline F f32_fms_where(FM m, F a, F b, F c) { return {_mm512_maskz_fmsub_ps(m.v, a.v, b.v, c.v)}; }
inline FM f32_lt(F a, F b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_LT_OQ)}; }
inline FM f32_le(F a, F b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_LE_OQ)}; }
inline FM f32_ge(F a, F b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_GE_OQ)}; }
inline FM f32_ne(F a, F b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_NEQ_UQ)}; }  // NaN: true
inline FM f32_bits_zero(F a) {  // lanes whose bit pattern is 0 (+0; no flush mode can add others)
  return {_mm512_cmpeq_epi32_mask(_mm512_castps_si512(a.v), _mm512_setzero_si512())};
}
inline F f32_select(FM m, F a, F b) { return {_mm512_mask_mov_ps(b.v, m.v, a.v)}; }  // a where m, else b
inline FM fm_or(FM a, FM b) { return {static_cast<__mmask16>(a.v | b.v)}; }
inline FM fm_and(FM a, FM b) { return {static_cast<__mmask16>(a.v & b.v)}; }
inline FM fm_not(FM a) { return {static_cast<__mmask16>(~a.v)}; }
inline uint32_t fm_bits(FM a) { return a.v; }  // bit j: lane j
// 1/a within 2^-14 relative (vrcp14ps; the vendor's bits, which only the
// exact test after it sees: fn/reciprocal_f32.h) in the lanes of m, b's
// elsewhere (the mask is the instruction's own).
inline F f32_rcp_estimate_where(FM m, F a, F b) { return {_mm512_mask_rcp14_ps(b.v, m.v, a.v)}; }

// A table of 32 floats in two registers: vpermt2ps looks up sixteen lanes
// in one instruction (a gather takes about a dozen).  The index is the low
// five bits of each lane's bit pattern.
struct F32Table32 {
  static constexpr int kEntries = 32;
  __m512 lo, hi;
  explicit F32Table32(const float* t) : lo(_mm512_loadu_ps(t)), hi(_mm512_loadu_ps(t + 16)) {}
  F lookup(F index) const { return {_mm512_permutex2var_ps(lo, _mm512_castps_si512(index.v), hi)}; }
};
using ExpF32Table = F32Table32;   // exp's float32 table (fn/exp_f32.h)
using TanhF32Table = F32Table32;  // tanh's (fn/tanh_f32.h)

// A table of 16 doubles in two registers, looked up by vpermt2pd: the
// coarse float64 evaluations' per-piece coefficients (fn/erfc_coarse.h).
// The index is the low four bits of each lane's bit pattern.
struct D16Table {
  __m512d lo, hi;
  explicit D16Table(const double* t) : lo(_mm512_loadu_pd(t)), hi(_mm512_loadu_pd(t + 8)) {}
  D lookup(D index) const { return _mm512_permutex2var_pd(lo, _mm512_castpd_si512(index.v), hi); }
};

// The float32 halves of a float32 vector, widened (exactly) to float64, and
// the reverse (rounded to nearest).
inline D widen_lo(F a) { return _mm512_cvtps_pd(_mm512_castps512_ps256(a.v)); }
inline D widen_hi(F a) {
  return _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a.v), 1)));
}
inline F narrow(D lo, D hi) {
  const __m512d lo_half = _mm512_castpd256_pd512(_mm256_castps_pd(_mm512_cvtpd_ps(lo.v)));
  return {_mm512_castpd_ps(_mm512_insertf64x4(lo_half, _mm256_castps_pd(_mm512_cvtpd_ps(hi.v)), 1))};
}
inline void store(double* p, D a) { _mm512_storeu_pd(p, a.v); }

// The generic row's maybe_near for sixteen values, v0 (elements 0-7) and v1
// (8-15): the low 29 bits of the significand within w of 2^28, or |v| below
// 2^-126.  Both tests need one 32-bit half of each double, so the halves are
// gathered (in element order) into one register each and tested 16 at once.
// One difference: v with a zero exponent field (+-0 and the float64
// subnormals) is not flagged.  It rounds to +-0, which is what settle leaves
// it as (midpoint_distance), and a coarse evaluation within a relative bound
// (Float64Tier) is that small only where f(x) is: so an exact zero, gelu(0)
// or log(1), stands without the accurate evaluation (gelu of 64K zeros took
// 414 us against 87 for random inputs when zeros were flagged).
// kBelowNormal = false: the window test alone, for an evaluation whose
// outside() flags every input with a result below 2^-126 (fn/erf_series.h):
// the high halves' test was five of the about seventy operations of gelu's
// block.
template <bool kBelowNormal = true>
inline uint32_t near_midpoints(D v0, D v1, int w) {
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i lo = _mm512_permutex2var_epi32(bits(v0).v, even, bits(v1).v);
  const __m512i low29 = _mm512_and_si512(_mm512_add_epi32(lo, _mm512_set1_epi32(w - (1 << 28))),
                                         _mm512_set1_epi32((1 << 29) - 1));
  const __mmask16 near = _mm512_cmple_epi32_mask(low29, _mm512_set1_epi32(2 * w));
  if constexpr (!kBelowNormal) return near;
  const __m512i hi = _mm512_permutex2var_epi32(bits(v0).v, _mm512_add_epi32(even, _mm512_set1_epi32(1)), bits(v1).v);
  // (|hi| - 2^20) as unsigned: below 896 << 20 for exponent fields 1 to 896; a
  // zero field wraps to 0x7FF00000 and up.
  const __m512i above_subnormal = _mm512_and_si512(_mm512_sub_epi32(hi, _mm512_set1_epi32(1 << 20)),
                                                   _mm512_set1_epi32(0x7FFFFFFF));
  const __mmask16 tiny = _mm512_cmplt_epu32_mask(above_subnormal, _mm512_set1_epi32((1023 - 126 - 1) << 20));
  return static_cast<uint32_t>(near | tiny);
}
