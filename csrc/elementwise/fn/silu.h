// silu(x) = fl32(x / (1 + e^-x)) = fl32(x sigmoid(x)), one rounding.  W = 64
// ulps; error <= 11 ulp: as sigmoid.h with x u / d for x < 0 (one more
// rounding).  x is clamped at -120 (|x e^x| < 2^-165 there rounds to -0, as
// for every smaller x), so silu(-inf) = -0, not NaN; silu(+-0) = +-0,
// silu(+inf) = +inf.
// Near zero, silu(x) = x/2 + x^2/4 - x^4/48 + ... lies above x/2 (towards
// +inf) by less than 2^-61 |x/2| for |x| < 2^-60, and x/2 is a float32 or,
// below 2^-125, exactly a float32 midpoint (every odd multiple of 2^-150):
// 2^24 inputs whose value sits on a midpoint to within 2^-100.  There the
// row returns x (1/2 +- 2^-44), which lies above x/2 by 2^-43 |x/2| (2^9 to
// 2^10 ulps, the only place the error exceeds 11 ulp): on the same side as
// silu(x), with nothing between them, and beyond every window, so it
// rounds as silu(x) does without a table (as gelu does, erf_family.h).
struct Silu {
  static constexpr bool kTable = true;
  static D eval(D x) {
    const D xc = vmax(D(-120.0), x);  // NaN stays NaN
    const D u = exp_nonpos(neg_abs(xc));
    const D v = select(lt(xc, D(0.0)), xc * u, xc) / (D(1.0) + u);
    const D near_zero = x * select(lt(x, D(0.0)), D(0.5 - 0x1p-44), D(0.5 + 0x1p-44));
    return select(lt(abs_(x), D(0x1p-60)), near_zero, v);
  }
};
