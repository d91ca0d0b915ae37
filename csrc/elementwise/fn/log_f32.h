// ln, log2 and log10 on float32 lanes, correctly rounded with their own
// rounding test: the fast paths both vector rows put in front of Log, Log2
// and Log10 (log.h, log2.h, log10.h), as exp_f32.h is in front of Exp.
// On the AVX-512 row they replaced coarse float64 evaluations (on
// log_coarse.h's pieces, as log1p still is) of about 53 instructions a
// block of sixteen with 38 to 42.  On the AVX2 row they replaced the
// accurate float64 evaluation, whose 128-piece table took two gathers a
// block: there each lookup of 32 entries is four permutes and three blends
// (row_avx2.h's F32Table32), and ln at 64K took 0.65 of the time on Zen 3.
// docs/elementwise.md ("The log family: the float32 path") has the error
// analysis.
//
//   x = 2^E z,  z in [0.7421875, 1.484375),  piece i = bits 18..22 of bits(x) - bits(0.7421875)
//   r = z c_i - 1            exact (one fma): c_i a short dyadic (polyfit.py)
//   log_b x = E log_b(2) + T_i + (r - r^2/2) / ln b + r^3 L_b(r),  T_i = -log_b(c_i)
//
// r - r^2/2 is s + sl exactly (one fma and its error), and s / ln b the
// exact pair p + pe (ln: s itself).  T_hi takes p by Fast2Sum (|T_i| > |p|
// off piece 16, where T_i = 0), and E log_b(2)_hi, exact, takes that sum by
// Fast2Sum (|E log_b 2| > |T_i + p| for E != 0, 0 for E = 0).  The rest is
// the low part: the pair is within 2^-35.27 of log_b x (at worst just above
// 1, where r^3 L_b(r) is 2^-13.4 of the result), 2^-34.98 with
// round_proven's inner rounding, which rounds the pair.
// Hard: x below 2^-126 (zeros, negatives and subnormals: the bits give z
// only for normal x; the rescue scales the subnormals), +inf and NaN.

struct LogF32Base {
  float t_hi[32], t_lo[32], l[4], two[2], k[2];  // T_i, L_b, log_b(2) (hi: 15 bits), 1/ln b: pairs
};
struct LogF32Data {
  float c[32];
  LogF32Base base[3];  // ln, log2, log10
};
alignas(64) constexpr LogF32Data kLogF32 = {
#include "elementwise/fn/log_table_f32.inc"
};

enum class LogBase { e, two, ten };

template <LogBase kBase>
struct LogF32 {
  static constexpr const LogF32Base& kB = kLogF32.base[static_cast<int>(kBase)];
  F32Table32 c{kLogF32.c}, t_hi{kB.t_hi}, t_lo{kB.t_lo};

  // x 2^kScale = 2^E z (E as a float), z's piece (its low five bits) and r =
  // z c_i - 1 (exact), for normal positive x.  kScale = -149 serves the
  // subnormals (rescue), as their bit patterns' integers (x 2^149 exactly):
  // E then reaches -149, and E log_b(2)_hi still has at most 23 bits.
  struct Reduced {
    F e, piece, r;
  };
  template <int kScale = 0>
  Reduced reduce(F x) const {
    // bits(x) - bits(0.7421875) = (E << 23) + (bits(z) - bits(0.7421875)):
    // the arithmetic shift gives E, its bits 18..22 the piece (the lookups
    // read the low five bits of the shifted lane).
    const F off = f32_sub_bits(x, f32_splat(0.7421875f));
    F e = f32_from_int_bits(f32_sra_bits(off, 23));
    if constexpr (kScale != 0) e = f32_add(e, f32_splat(static_cast<float>(kScale)));
    const F z = f32_sub_bits(x, f32_and_bits(off, 0xFF800000u));
    const F piece = f32_sra_bits(off, 18);
    return {e, piece, f32_fma(z, c.lookup(piece), f32_splat(-1.0f))};
  }

  // log_b(x 2^kScale) = h + *lo (the return value is h) within 2^-35.27
  // relative, for normal positive x; other lanes hold garbage.
  template <int kScale = 0>
  F pair(F x, F* lo) const {
    return pair_of(reduce<kScale>(x), lo, x);  // x: no low term (unread)
  }

  // log_b(2^E (1 + r) / c_i) as h + *lo, plus `low` where kLow (ln only:
  // log1p's correction, at most 2^-24 in magnitude, joins the low terms).
  template <bool kLow = false>
  F pair_of(const Reduced& q, F* lo, F low) const {
    static_assert(!kLow || kBase == LogBase::e, "a low term is added to ln only");
    const F r = q.r;
    // s + sl = r - r^2/2: r/2 is exact, r - s exact (Sterbenz), and the
    // second fma's sum is s's rounding error itself.
    const F hr = f32_mul(r, f32_splat(-0.5f));
    const F s = f32_fma(r, hr, r);
    const F sl = f32_fma(r, hr, f32_sub(r, s));
    // (s + sl) / ln b = p + pe + (s k_lo + sl k_hi), p + pe = s k_hi exactly.
    F p = s, small = sl;
    if constexpr (kLow) small = f32_add(sl, low);
    if constexpr (kBase != LogBase::e) {
      const F k_hi = f32_splat(kB.k[0]);
      p = f32_mul(s, k_hi);
      small = f32_fma(sl, k_hi, f32_fma(s, f32_splat(kB.k[1]), f32_fms(s, k_hi, p)));
    }
    F he1, he2;
    const F h1 = two_sum_fast(t_hi.lookup(q.piece), p, &he1);
    const F e_two = kBase == LogBase::two ? q.e : f32_mul(q.e, f32_splat(kB.two[0]));  // exact
    const F h = two_sum_fast(e_two, h1, &he2);
    const F t_low = t_lo.lookup(q.piece);
    const F t = kBase == LogBase::two ? t_low : f32_fma(q.e, f32_splat(kB.two[1]), t_low);
    const F r3 = f32_mul(f32_mul(r, r), r);
    const F l = f32_fma(f32_fma(f32_fma(f32_splat(kB.l[3]), r, f32_splat(kB.l[2])), r, f32_splat(kB.l[1])), r,
                        f32_splat(kB.l[0]));
    *lo = f32_fma(r3, l, f32_add(f32_add(f32_add(he1, he2), t), small));
    return h;
  }

  F eval(F x, uint32_t* hard) const {
    F lo;
    const F h = pair(x, &lo);
    FM unproven;
    const F y = round_proven(h, lo, &unproven);
    const FM normal = fm_and(f32_ge(x, f32_splat(0x1p-126f)), f32_lt(x, f32_splat(__builtin_inff())));
    *hard = fm_bits(fm_or(unproven, fm_not(normal)));
    return y;
  }
  // The subnormals by the same steps on x 2^149 (their bits' integer,
  // converted exactly: no arithmetic instruction takes a subnormal operand,
  // as a multiplication by 2^23 would, at a microcode assist on Sapphire
  // Rapids), then the special values' rules:
  // -inf at +-0, NaN below 0 (-inf included), +inf at +inf.
  F rescue(F x, F y, uint32_t* hard) const {
    const FM subnormal = fm_and(f32_lt(f32_splat(0.0f), x), f32_lt(x, f32_splat(0x1p-126f)));
    if (fm_bits(subnormal) & *hard) {
      F lo;
      const F h = pair<-149>(f32_from_int_bits(x), &lo);
      FM unproven;
      const F v = round_proven(h, lo, &unproven);
      y = replace_lanes(subnormal, v, fm_bits(unproven), y, hard);
    }
    y = settle_tails(x, y, 0.0f, -__builtin_inff(), __builtin_inff(), __builtin_inff(), hard);
    return settle_lanes(f32_lt(x, f32_splat(0.0f)), f32_splat(__builtin_nanf("")), y, hard);
  }
};

// log1p(-1) = -inf, NaN below -1 (-inf included), log1p(+inf) = +inf, and
// log1p(x) = x for |x| < 2^-126: x - x^2/2 + ... lies within 2^-252 of the
// float x, far inside its half-gap, and +-0 keep their sign.  The rules of
// both log1p paths (Log1pF32 below, log_coarse.h's Log1pCoarse).
inline F log1p_rescue(F x, F y, uint32_t* hard) {
  y = settle_tails(x, y, -1.0f, -__builtin_inff(), __builtin_inff(), __builtin_inff(), hard);
  y = settle_lanes(f32_lt(x, f32_splat(-1.0f)), f32_splat(__builtin_nanf("")), y, hard);
  return settle_lanes(f32_lt(f32_abs(x), f32_splat(0x1p-126f)), x, y, hard);
}

// log1p(x) = ln(v + vl), v + vl = 1 + x exactly (Fast2Sum on the larger of
// 1 and x first), on ln's steps above: the AVX2 row's fast path in front of
// Log1p (the AVX-512 row keeps log_coarse.h's coarse float64 evaluation),
// and softplus_f32.h's ln(1 + e^-|x|), whose argument is a pair w + wl.
// For |w| < 2^-7, v lies on piece 16 with E = 0, c = 1, and r = w itself
// (exact, where v - 1 would have lost w's low bits), plus wl / v; elsewhere
// ln v + vl/v.  The omitted (vl/v)^2/2 <= 2^-49 and the roundings of vl,
// the division and the sum into sl (each <= 2^-48) are below 2^-39.4 of
// |log1p x| >= 2^-7.01: within 2^-35.19 relative, 2^-34.91 with
// round_proven's inner rounding (docs/elementwise.md, "log1p, softplus and
// logsigmoid: the float32 paths").
// Hard: x <= -1, +inf, NaN and |x| < 2^-126 (the rescue's rules).
struct Log1pF32 {
  LogF32<LogBase::e> ln;

  // ln(1 + w + wl) = h + *lo (h the return value) for w + wl > -1 finite,
  // |wl| <= 2^-24 |w|.
  F pair(F w, F wl, F* lo) const {
    const F one = f32_splat(1.0f);
    F vl;
    const F v = two_sum_fast(f32_max(w, one), f32_min(w, one), &vl);
    LogF32<LogBase::e>::Reduced q = ln.reduce(v);
    const FM tiny = f32_lt(f32_abs(w), f32_splat(0x1p-7f));
    q.r = f32_select(tiny, w, q.r);
    return ln.pair_of<true>(q, lo, f32_div(f32_select(tiny, wl, f32_add(vl, wl)), v));
  }

  F eval(F x, uint32_t* hard) const {
    F lo;
    const F h = pair(x, f32_splat(0.0f), &lo);
    FM unproven;
    const F y = round_proven(h, lo, &unproven);
    const FM inside = fm_and(fm_and(f32_lt(f32_splat(-1.0f), x), f32_lt(x, f32_splat(__builtin_inff()))),
                             f32_ge(f32_abs(x), f32_splat(0x1p-126f)));
    *hard = fm_bits(fm_or(unproven, fm_not(inside)));
    return y;
  }
  F rescue(F x, F y, uint32_t* hard) const { return log1p_rescue(x, y, hard); }
};
