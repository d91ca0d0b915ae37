// Building blocks of the logistic family (sigmoid, logsigmoid, softplus,
// silu, mish), written in the row vocabulary after common.h.  Included
// inside a row namespace; includes nothing itself.
//
// The family is computed from u = e^-|x| <= 1, so that every sum of two
// terms below has terms of one sign: nothing cancels (docs/elementwise.md).
// Error bounds in float64 ulps of the result, as in common.h; a relative
// error of k 2^-53 is at most k ulps, and e ulps are at most 2e 2^-53
// relative.

constexpr uint64_t kSignBit = 0x8000000000000000ull;

inline D abs_(D x) { return from_bits(bits(x) & U(~kSignBit)); }
inline D neg_abs(D x) { return from_bits(bits(x) | U(kSignBit)); }

// e^a for a <= 0, with a clamped at -120 (e^-120 < 2^-173: every result it
// feeds is then far below 2^-151, where the float32 result is +-0 or not
// affected); NaN stays NaN.  Error <= 2.5 ulp (as exp.h): relative <= 5 2^-53.
inline D exp_nonpos(D a) {
  a = vmax(D(-120.0), a);
  D kmagic;
  const D r = exp_reduce(a, &kmagic);
  return exp_reduced(r) * pow2_from_magic(kmagic);
}

// ln(1 + u) for a float64 u in [0, 1] (NaN stays NaN).  Error <= 6 ulp,
// besides the error that u brings (ln(1 + u) passes on at most u's relative
// error, as u / ((1 + u) ln(1 + u)) <= 1).
//   u < 2^-29: u - u^2/2 in one fma (next term below 2^-58 relative): 1.1 ulp.
//   else: w = fl(1 + u) in [1, 2], c = u - (w - 1) exactly (Fast2Sum), so
//   1 + u = w + c with |c| <= 2^-53; ln(1 + u) = ln w + c/w - O(2^-107),
//   with ln w as in log.h (3 ulp) and c/w added to its low part by one fma
//   as c (2 - w) (no division: (2 - w) w = 1 - (w - 1)^2, so the term errs
//   by |c| (w - 1)^2 <= 2^-52 ln(1 + u) (w - 1), at most 2 ulp; |c/w| <=
//   2^-23 ln(1 + u) for u >= 2^-29, so nothing cancels: 1 ulp more).
inline D log1p_unit(D u) {
  const D w = D(1.0) + u;
  const D c = u - (w - D(1.0));
  D k;
  U row;
  const D r = log_reduce(w, &k, &row);
  const D t = gather(&kLogTable[0][1], row);
  const D hi = fma(k, kLn2Hi, t);
  const D lo = fma(k, kLn2Lo, log1p_reduced(r));
  const D big = hi + fma(c, D(2.0) - w, lo);
  const D small = fma(u * -0.5, u, u);
  return select(lt(u, D(0x1p-29)), small, big);
}
