// log on float32 lanes, correctly rounded with its own rounding test: the
// fast path the AVX-512 row puts in front of Log (log.h), as exp_f32.h is in
// front of Exp.  The coarse float64 evaluation it replaced there (on
// log_coarse.h's pieces, as log2, log10 and log1p still are) ran eight
// lanes an instruction, about 53 instructions a block of sixteen; this
// path runs sixteen, about 34.  docs/elementwise.md ("log: the float32 path") has the error
// analysis.
//
//   x = 2^E z,  z in [0.7421875, 1.484375),  piece i = bits 18..22 of bits(x) - bits(0.7421875)
//   r = z c_i - 1            exact (one fma): c_i a short dyadic (polyfit.py)
//   ln x = (E ln2_hi + T_hi) + (E ln2_lo + T_lo) + (r - r^2/2) + r^3 L(r)
//
// E ln2_hi + T_hi is exact (one fma: both terms on the 2^-17 grid, below
// 2^7) and takes E ln2_lo + T_lo by Fast2Sum; r - r^2/2 is s + sl exactly
// (one fma and its error), and s joins by Fast2Sum (|T| > |s| off piece
// 16, |E ln2| > |s| for E != 0, and 0 on piece 16 at E = 0).  The rest is
// the low part, within 2^-34.9 of ln x (at worst just above 1, where r^3
// L(r) is 2^-13.4 of ln x); round_proven rounds the pair.  Hard: x below
// 2^-126 (zeros, negatives and subnormals: the bits give z only for normal
// x; the rescue scales the subnormals), +inf and NaN.

struct LogF32Data {
  float c[32], t_hi[32], t_lo[32], l[4], ln2[2];
};
alignas(64) constexpr LogF32Data kLogF32 = {
#include "elementwise/fn/log_table_f32.inc"
};

struct LogF32 {
  F32Table32 c{kLogF32.c}, t_hi{kLogF32.t_hi}, t_lo{kLogF32.t_lo};

  // ln(x 2^kScale) = h + *lo (the return value is h) within 2^-34.9
  // relative, for normal positive x; other lanes hold garbage.  kScale =
  // -149 serves the subnormals (rescue), as their bit patterns' integers
  // (x 2^149 exactly): E then reaches -149, and E ln2_hi still has at most
  // 23 bits (ln2_hi has 15).
  template <int kScale = 0>
  F pair(F x, F* lo) const {
    // bits(x) - bits(0.7421875) = (E << 23) + (bits(z) - bits(0.7421875)):
    // the arithmetic shift gives E, its bits 18..22 the piece (the lookups
    // read the low five bits of the shifted lane).
    const F off = f32_sub_bits(x, f32_splat(0.7421875f));
    F e = f32_from_int_bits(f32_sra_bits(off, 23));
    if constexpr (kScale != 0) e = f32_add(e, f32_splat(static_cast<float>(kScale)));
    const F z = f32_sub_bits(x, f32_and_bits(off, 0xFF800000u));
    const F piece = f32_sra_bits(off, 18);
    const F r = f32_fma(z, c.lookup(piece), f32_splat(-1.0f));
    // s + sl = r - r^2/2: r/2 is exact, r - s exact (Sterbenz), and the
    // second fma's sum is s's rounding error itself.
    const F hr = f32_mul(r, f32_splat(-0.5f));
    const F s = f32_fma(r, hr, r);
    const F sl = f32_fma(r, hr, f32_sub(r, s));
    // E ln2 + T as the pair a2 + ae: a exactly, b rounded once (exact for
    // E = 0), their sum by Fast2Sum (a = 0 only where b = 0).  Keeping b out
    // of the low part keeps that part below 2^-13 of h, and with it
    // round_proven's inner rounding (T_lo alone reaches 2^-11 of h near x
    // = 1).
    const F a = f32_fma(e, f32_splat(kLogF32.ln2[0]), t_hi.lookup(piece));
    const F b = f32_fma(e, f32_splat(kLogF32.ln2[1]), t_lo.lookup(piece));
    F ae, he;
    const F h = two_sum_fast(two_sum_fast(a, b, &ae), s, &he);
    const F r3 = f32_mul(f32_mul(r, r), r);
    const F l = f32_fma(f32_fma(f32_fma(f32_splat(kLogF32.l[3]), r, f32_splat(kLogF32.l[2])), r,
                                f32_splat(kLogF32.l[1])),
                        r, f32_splat(kLogF32.l[0]));
    *lo = f32_fma(r3, l, f32_add(f32_add(sl, he), ae));
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
  // converted exactly: no arithmetic on a subnormal, which costs a
  // microcode assist on Intel's cores), then the special values' rules
  // (log_coarse.h): -inf at +-0, NaN below 0, +inf at +inf.
  F rescue(F x, F y, uint32_t* hard) const {
    const FM subnormal = fm_and(f32_lt(f32_splat(0.0f), x), f32_lt(x, f32_splat(0x1p-126f)));
    if (fm_bits(subnormal) & *hard) {
      F lo;
      const F h = pair<-149>(f32_from_int_bits(x), &lo);
      FM unproven;
      const F v = round_proven(h, lo, &unproven);
      y = replace_lanes(subnormal, v, fm_bits(unproven), y, hard);
    }
    return LogCoarseBase::rescue(x, y, hard);
  }
};
