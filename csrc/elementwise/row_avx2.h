// Row "avx2": the kernels' vocabulary on four float64 lanes (eight float32
// lanes for the exact kernels) with AVX2 and FMA.  Each operation is the
// lane-wise counterpart of row_generic.h's, with the same IEEE-754 rounding,
// so both rows compute identical float64 values.
//
// Included inside `namespace repdl::elementwise::avx2_row` in a file that
// enabled `#pragma GCC target("avx2,fma")` and included <immintrin.h>,
// <cstdint> and <cstring>; it includes nothing itself.

constexpr int kLanes = 4;
constexpr int kFloatLanes = 8;

struct D {
  __m256d v;
  D() = default;
  D(__m256d a) : v(a) {}                     // NOLINT: implicit by design
  D(double a) : v(_mm256_set1_pd(a)) {}      // NOLINT: constants splat
};
struct M {
  __m256d v;
};
struct U {
  __m256i v;
  U() = default;
  U(__m256i a) : v(a) {}                                           // NOLINT
  U(uint64_t a) : v(_mm256_set1_epi64x(static_cast<long long>(a))) {}  // NOLINT
};
struct F {
  __m256 v;
};

inline D operator+(D a, D b) { return _mm256_add_pd(a.v, b.v); }
inline D operator-(D a, D b) { return _mm256_sub_pd(a.v, b.v); }
inline D operator*(D a, D b) { return _mm256_mul_pd(a.v, b.v); }
inline D operator/(D a, D b) { return _mm256_div_pd(a.v, b.v); }
inline D operator-(D a) { return _mm256_xor_pd(a.v, _mm256_set1_pd(-0.0)); }
inline D fma(D a, D b, D c) { return _mm256_fmadd_pd(a.v, b.v, c.v); }
inline D select(M m, D a, D b) { return _mm256_blendv_pd(b.v, a.v, m.v); }
inline U select(M m, U a, U b) {
  return _mm256_castpd_si256(_mm256_blendv_pd(_mm256_castsi256_pd(b.v), _mm256_castsi256_pd(a.v), m.v));
}
inline D vmax(D a, D b) { return _mm256_max_pd(a.v, b.v); }  // a > b ? a : b
inline D vmin(D a, D b) { return _mm256_min_pd(a.v, b.v); }  // a < b ? a : b
inline M lt(D a, D b) { return {_mm256_cmp_pd(a.v, b.v, _CMP_LT_OQ)}; }
inline M le(D a, D b) { return {_mm256_cmp_pd(a.v, b.v, _CMP_LE_OQ)}; }
inline M gt(D a, D b) { return {_mm256_cmp_pd(a.v, b.v, _CMP_GT_OQ)}; }
inline M ge(D a, D b) { return {_mm256_cmp_pd(a.v, b.v, _CMP_GE_OQ)}; }
inline M eq(D a, D b) { return {_mm256_cmp_pd(a.v, b.v, _CMP_EQ_OQ)}; }
inline M is_nan(D a) { return {_mm256_cmp_pd(a.v, a.v, _CMP_UNORD_Q)}; }
inline M m_or(M a, M b) { return {_mm256_or_pd(a.v, b.v)}; }
inline M m_and(M a, M b) { return {_mm256_and_pd(a.v, b.v)}; }
inline M m_not(M a) { return {_mm256_xor_pd(a.v, _mm256_castsi256_pd(_mm256_set1_epi64x(-1)))}; }
inline int movemask(M m) { return _mm256_movemask_pd(m.v); }
inline U bits(D a) { return _mm256_castpd_si256(a.v); }
inline D from_bits(U u) { return _mm256_castsi256_pd(u.v); }
inline U operator+(U a, U b) { return _mm256_add_epi64(a.v, b.v); }
inline U operator-(U a, U b) { return _mm256_sub_epi64(a.v, b.v); }
inline U operator&(U a, U b) { return _mm256_and_si256(a.v, b.v); }
inline U operator|(U a, U b) { return _mm256_or_si256(a.v, b.v); }
inline U operator^(U a, U b) { return _mm256_xor_si256(a.v, b.v); }
inline U shl(U a, int n) { return _mm256_slli_epi64(a.v, n); }
inline U shr(U a, int n) { return _mm256_srli_epi64(a.v, n); }  // logical
inline M ieq(U a, U b) { return {_mm256_castsi256_pd(_mm256_cmpeq_epi64(a.v, b.v))}; }
inline M igt(U a, U b) { return {_mm256_castsi256_pd(_mm256_cmpgt_epi64(a.v, b.v))}; }  // signed
inline D gather(const double* base, U index) {
  return _mm256_i64gather_pd(base, index.v, 8);
}
inline double lane(D a, int j) {
  alignas(32) double t[4];
  _mm256_store_pd(t, a.v);
  return t[j];
}
inline void set_lane(D& a, int j, double v) {
  alignas(32) double t[4];
  _mm256_store_pd(t, a.v);
  t[j] = v;
  a.v = _mm256_load_pd(t);
}
inline uint64_t lane(U a, int j) {
  alignas(32) uint64_t t[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(t), a.v);
  return t[j];
}
inline void set_lane(U& a, int j, uint64_t v) {
  alignas(32) uint64_t t[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(t), a.v);
  t[j] = v;
  a.v = _mm256_load_si256(reinterpret_cast<const __m256i*>(t));
}

// fl32(1 / fl32(sqrt x)) for lanes holding float32 values (IEEE float32
// square root and division: the same bits as the generic row's seed).
inline D f32_rsqrt_seed(D x) {
  const __m128 xf = _mm256_cvtpd_ps(x.v);  // exact: x holds float32 values
  const __m128 y = _mm_div_ps(_mm_set1_ps(1.0f), _mm_sqrt_ps(xf));
  return _mm256_cvtps_pd(y);
}

// float32 lanes
inline F f32_sqrt(F a) { return {_mm256_sqrt_ps(a.v)}; }
inline F f32_div(F a, F b) { return {_mm256_div_ps(a.v, b.v)}; }
// 1/sqrt(a) within 2^-21.7 relative: rsqrtps (1.5 2^-12, the vendor's
// bits) and one Newton step y + (y/2) (1 - (a y) y) in float32 (y/2
// exact; docs/elementwise.md, "rsqrt").  fl(1 / fl(sqrt a)) held the
// divider for both its operations and lengthened the chain: 64K, 1 thread,
// Zen 3, the kernel in 0.89 of its time (the seed alone: 7.7 us against
// 21.6).  kRsqrtSeedBits: fn/rsqrt_f32.h's correction reads the bound.
constexpr int kRsqrtSeedBits = 21;
inline F f32_rsqrt_seed(F a) {
  const __m256 y = _mm256_rsqrt_ps(a.v);
  const __m256 r = _mm256_fnmadd_ps(_mm256_mul_ps(a.v, y), y, _mm256_set1_ps(1.0f));
  return {_mm256_fmadd_ps(_mm256_mul_ps(y, _mm256_set1_ps(0.5f)), r, y)};
}
inline F f32_mul(F a, F b) { return {_mm256_mul_ps(a.v, b.v)}; }
inline F f32_load(const float* p) { return {_mm256_loadu_ps(p)}; }
inline F f32_splat(float v) { return {_mm256_set1_ps(v)}; }
inline void f32_store(float* p, F a) {
  // The contract's NaN: every NaN written is 0x7FC00000.
  const __m256 qnan = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FC00000));
  _mm256_storeu_ps(p, _mm256_blendv_ps(a.v, qnan, _mm256_cmp_ps(a.v, a.v, _CMP_UNORD_Q)));
}
inline void f32_store_raw(float* p, F a) { _mm256_storeu_ps(p, a.v); }

// float32 arithmetic, bit steps and masks for the float32 paths
// (fn/double_float.h and the fn/*_f32.h): each operation is one IEEE float32 or integer
// instruction on every lane (masks are all-ones lanes).
struct FM {
  __m256 v;
};
inline __m256i f32_int(F a) { return _mm256_castps_si256(a.v); }
inline F f32_from_int(__m256i a) { return {_mm256_castsi256_ps(a)}; }
inline F f32_add(F a, F b) { return {_mm256_add_ps(a.v, b.v)}; }
inline F f32_sub(F a, F b) { return {_mm256_sub_ps(a.v, b.v)}; }
inline F f32_fma(F a, F b, F c) { return {_mm256_fmadd_ps(a.v, b.v, c.v)}; }    // a b + c
inline F f32_fnma(F a, F b, F c) { return {_mm256_fnmadd_ps(a.v, b.v, c.v)}; }  // c - a b
inline F f32_fms(F a, F b, F c) { return {_mm256_fmsub_ps(a.v, b.v, c.v)}; }     // a b - c
inline F f32_fnms(F a, F b, F c) { return {_mm256_fnmsub_ps(a.v, b.v, c.v)}; }   // -(a b) - c
inline F f32_and_bits(F a, uint32_t m) {
  return f32_from_int(_mm256_and_si256(f32_int(a), _mm256_set1_epi32(static_cast<int>(m))));
}
inline F f32_abs(F a) { return f32_and_bits(a, 0x7FFFFFFFu); }
inline F f32_max(F a, F b) { return {_mm256_max_ps(a.v, b.v)}; }  // b where either is NaN
inline F f32_min(F a, F b) { return {_mm256_min_ps(a.v, b.v)}; }  // b where either is NaN
inline F f32_or_sign(F a, F s) {  // a with s's sign bit or'd in (copysign for a >= +0)
  return f32_from_int(_mm256_or_si256(f32_int(a), _mm256_and_si256(f32_int(s), _mm256_set1_epi32(INT32_MIN))));
}
inline F f32_add_bits(F a, F b) { return f32_from_int(_mm256_add_epi32(f32_int(a), f32_int(b))); }
inline F f32_sub_bits(F a, F b) { return f32_from_int(_mm256_sub_epi32(f32_int(a), f32_int(b))); }
inline F f32_shl_bits(F a, int n) { return f32_from_int(_mm256_slli_epi32(f32_int(a), n)); }
inline F f32_sra_bits(F a, int n) { return f32_from_int(_mm256_srai_epi32(f32_int(a), n)); }  // sign-filling
inline F f32_from_int_bits(F a) { return {_mm256_cvtepi32_ps(f32_int(a))}; }  // the int32 pattern's value
// a 2^n, rounded once (exact where the result is normal), for an integer n
// in [-126, 127] given twice: n = floor(e), and ebits = n << 23.  This row
// multiplies by 2^n built from ebits (the AVX-512 row reads e).
inline F f32_scale_pow2(F a, F e, F ebits) {
  (void)e;
  return f32_mul(a, f32_add_bits(f32_splat(1.0f), ebits));
}
// f32_scale_pow2 in the lanes of m, +0 elsewhere (a finite a; the callers'
// rescues replace those lanes): 2^n is zeroed there, so that no product
// lands below 2^-126 and takes a microcode assist.  One instruction more a
// block than the AVX-512 row's masked vscalefps; forced on Sapphire Rapids,
// 64K, 1 thread, new / old: exp 1.02, sigmoid 1.01, silu 1.00, exp2 0.99
// on random inputs (the noise's size), sigmoid of randn * 50 0.38.
inline F f32_scale_pow2_where(FM m, F a, F e, F ebits) {
  (void)e;
  return f32_mul(a, {_mm256_and_ps(m.v, f32_add_bits(f32_splat(1.0f), ebits).v)});
}
// a b and a b - c in the lanes of m; this row computes every lane (rsqrt's
// products, whose assists would come for inputs beyond 2^96 only).
inline F f32_mul_where(FM m, F a, F b) {
  (void)m;
  return f32_mul(a, b);
}
inline F f32_fms_where(FM m, F a, F b, F c) {
  (void)m;
  return f32_fms(a, b, c);
}
inline FM f32_lt(F a, F b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_LT_OQ)}; }
inline FM f32_le(F a, F b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_LE_OQ)}; }
inline FM f32_ge(F a, F b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_GE_OQ)}; }
inline FM f32_ne(F a, F b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_NEQ_UQ)}; }  // NaN: true
inline FM f32_bits_zero(F a) {  // lanes whose bit pattern is 0 (+0; no flush mode can add others)
  return {_mm256_castsi256_ps(_mm256_cmpeq_epi32(f32_int(a), _mm256_setzero_si256()))};
}
inline F f32_select(FM m, F a, F b) { return {_mm256_blendv_ps(b.v, a.v, m.v)}; }  // a where m, else b
inline FM fm_or(FM a, FM b) { return {_mm256_or_ps(a.v, b.v)}; }
inline FM fm_and(FM a, FM b) { return {_mm256_and_ps(a.v, b.v)}; }
inline FM fm_not(FM a) { return {_mm256_xor_ps(a.v, _mm256_castsi256_ps(_mm256_set1_epi32(-1)))}; }
inline uint32_t fm_bits(FM a) { return static_cast<uint32_t>(_mm256_movemask_ps(a.v)); }  // bit j: lane j

// exp's float32 table (fn/exp_f32.h): 8 floats in one register, looked up
// by one vpermps (the index is the low three bits of each lane's bit
// pattern).  32 entries took four vpermps and three blends a lookup: on Zen
// 3 the two lookups were 40% of exp's time (64K: 82 us against 51 with the
// blends and three permutes dropped, wrong bits, to measure); two
// eight-lane gathers were slower still (1.55x on Zen 3, no faster than
// the float64 path on Sapphire Rapids).  The reduction by ln2/8 costs
// eight more float32 operations (fn/exp_f32.h).
struct F32Table8 {
  static constexpr int kEntries = 8;
  __m256 t;
  explicit F32Table8(const float* table) : t(_mm256_loadu_ps(table)) {}
  F lookup(F index) const { return {_mm256_permutevar8x32_ps(t, f32_int(index))}; }
};
using ExpF32Table = F32Table8;

// tanh's float32 table (fn/tanh_f32.h): 16 floats in two registers, looked
// up by two vpermps and a blend on bit 3 of the index, moved to the sign
// bit (blendv reads it).  tanh's error bound needs 16 entries where exp's
// holds with 8.
struct F32Table16 {
  static constexpr int kEntries = 16;
  __m256 lo, hi;
  explicit F32Table16(const float* table) : lo(_mm256_loadu_ps(table)), hi(_mm256_loadu_ps(table + 8)) {}
  F lookup(F index) const {
    const __m256i i = f32_int(index);
    const __m256 upper = _mm256_castsi256_ps(_mm256_slli_epi32(i, 28));
    return {_mm256_blendv_ps(_mm256_permutevar8x32_ps(lo, i), _mm256_permutevar8x32_ps(hi, i), upper)};
  }
};
using TanhF32Table = F32Table16;

// The log family's float32 tables (fn/log_f32.h): 32 floats as two tables
// of 16, looked up by four vpermps and three blends (bit 4 of the index
// picks the table, moved to the sign bit as F32Table16 moves bit 3).  Their
// pieces cannot be wider (that path's error bound), and the three lookups,
// 21 of about 65 instructions a block, still left ln at 0.65 of the float64
// path's time (64K, Zen 3).
struct F32Table32 {
  static constexpr int kEntries = 32;
  F32Table16 lo, hi;
  explicit F32Table32(const float* table) : lo(table), hi(table + 16) {}
  F lookup(F index) const {
    const __m256 bit4 = _mm256_castsi256_ps(_mm256_slli_epi32(f32_int(index), 27));
    return {_mm256_blendv_ps(lo.lookup(index).v, hi.lookup(index).v, bit4)};
  }
};

// The float32 halves of a float32 vector, widened (exactly) to float64, and
// the reverse (rounded to nearest).
inline D widen_lo(F a) { return _mm256_cvtps_pd(_mm256_castps256_ps128(a.v)); }
inline D widen_hi(F a) { return _mm256_cvtps_pd(_mm256_extractf128_ps(a.v, 1)); }
inline F narrow(D lo, D hi) { return {_mm256_set_m128(_mm256_cvtpd_ps(hi.v), _mm256_cvtpd_ps(lo.v))}; }
inline void store(double* p, D a) { _mm256_storeu_pd(p, a.v); }

// Which of the eight values v0 (elements 0-3) and v1 (4-7) may lie within w
// ulps of a midpoint (the low 29 bits near 2^28) or, with kBelowNormal,
// below 2^-126, one bit per element (kBelowNormal = false: for an
// evaluation whose outside() flags every input with a result below 2^-126,
// fn/erf_series.h).  The test needs only the low and high 32-bit halves of
// each double, so it runs on all eight at once, in the lane order 0 1 4 5 2
// 3 6 7 that the shuffles leave.
template <bool kBelowNormal = true>
inline uint32_t near_midpoints(D v0, D v1, int w) {
  const __m256i lo = _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castpd_ps(v0.v), _mm256_castpd_ps(v1.v), 0x88));
  const __m256i low29 = _mm256_and_si256(_mm256_add_epi32(lo, _mm256_set1_epi32(w - (1 << 28))),
                                         _mm256_set1_epi32((1 << 29) - 1));
  __m256i flagged = _mm256_andnot_si256(_mm256_cmpgt_epi32(low29, _mm256_set1_epi32(2 * w)), _mm256_set1_epi32(-1));
  if constexpr (kBelowNormal) {
    const __m256i hi = _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castpd_ps(v0.v), _mm256_castpd_ps(v1.v), 0xDD));
    flagged = _mm256_or_si256(flagged, _mm256_cmpgt_epi32(_mm256_set1_epi32((1023 - 126) << 20),
                                                          _mm256_and_si256(hi, _mm256_set1_epi32(0x7FFFFFFF))));
  }
  const auto f = static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(flagged)));
  return (f & 0xC3u) | ((f & 0x0Cu) << 2) | ((f & 0x30u) >> 2);  // back to element order
}
