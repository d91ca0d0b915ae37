// Row "generic": the vocabulary the kernels (fn/*.h) are written in, for one
// lane of plain float64 (and float32) arithmetic.  Portable C++; every
// operation is IEEE-754 with round-to-nearest-even, and std::fma is the
// single-rounding fused multiply-add, so this row computes exactly the same
// float64 values as the AVX2 row.
//
// Included inside `namespace repdl::elementwise::generic_row` after
// <cmath>, <cstdint> and <cstring>; it includes nothing itself.

constexpr int kLanes = 1;

using D = double;    // float64 lanes
using M = bool;      // lane masks
using U = uint64_t;  // 64-bit integer lanes (wrap-around arithmetic)
using F = float;     // float32 lanes (the exact kernels: sqrt, reciprocal, ...)
constexpr int kFloatLanes = 1;

inline D fma(D a, D b, D c) { return std::fma(a, b, c); }
inline D select(M m, D a, D b) { return m ? a : b; }
inline U select(M m, U a, U b) { return m ? a : b; }
// a > b ? a : b and a < b ? a : b (so a NaN in b comes through): maxpd/minpd.
inline D vmax(D a, D b) { return a > b ? a : b; }
inline D vmin(D a, D b) { return a < b ? a : b; }
inline M lt(D a, D b) { return a < b; }
inline M le(D a, D b) { return a <= b; }
inline M gt(D a, D b) { return a > b; }
inline M ge(D a, D b) { return a >= b; }
inline M eq(D a, D b) { return a == b; }
inline M is_nan(D a) { return a != a; }
inline M m_or(M a, M b) { return a || b; }
inline M m_and(M a, M b) { return a && b; }
inline M m_not(M a) { return !a; }
inline int movemask(M m) { return m ? 1 : 0; }
inline U bits(D a) {
  U u;
  std::memcpy(&u, &a, sizeof u);
  return u;
}
inline D from_bits(U u) {
  D a;
  std::memcpy(&a, &u, sizeof a);
  return a;
}
inline U shl(U a, int n) { return a << n; }
inline U shr(U a, int n) { return a >> n; }  // logical
inline M ieq(U a, U b) { return a == b; }
inline M igt(U a, U b) { return static_cast<int64_t>(a) > static_cast<int64_t>(b); }  // signed
inline D gather(const double* base, U index) { return base[index]; }
inline double lane(D a, int) { return a; }
inline void set_lane(D& a, int, double v) { a = v; }
inline uint64_t lane(U a, int) { return a; }
inline void set_lane(U& a, int, uint64_t v) { a = v; }

// fl32(1 / fl32(sqrt x)) for x holding a float32: the IEEE float32 seed of rsqrt.
inline D f32_rsqrt_seed(D x) {
  const float s = std::sqrt(static_cast<float>(x));
  return static_cast<double>(1.0f / s);
}

// float32 lanes
inline F f32_sqrt(F a) { return std::sqrt(a); }
inline F f32_div(F a, F b) { return a / b; }
inline F f32_mul(F a, F b) { return a * b; }
inline F f32_load(const float* p) { return *p; }
inline F f32_splat(float v) { return v; }
inline void f32_store(float* p, F a) {
  // The contract's NaN: every NaN written is 0x7FC00000.
  if (a != a) {
    const uint32_t q = 0x7FC00000u;
    std::memcpy(p, &q, sizeof q);
  } else {
    *p = a;
  }
}
