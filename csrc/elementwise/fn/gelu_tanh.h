// gelu_tanh(x) = fl32((x/2) (1 + tanh(c (x + k x^3)))), gelu with
// approximate='tanh', with the real constants c = sqrt(2/pi) and k =
// 0.044715 (exactly).  W = 64 ulps; error <= 7 ulp.
//
// (1 + tanh y)/2 = 1/(1 + e^(-2y)), so with t = 2y = A x + B x^3 (A = 2c, B =
// 2ck, float64 pairs from tools/cr/fit_erf.py) and E = e^(-|t|) in (0, 1]:
// f = x / (1 + E) for x >= 0 and x E / (1 + E) for x < 0: nothing cancels.
// For x < 0 the result is about x e^(-|t|) with |t| up to 112, so t is
// needed to about 2^-58 absolutely: it is formed as th + tl in
// double-double (x^2 exact, x^3 and the products by A and B split exactly
// with fma, TwoSum), |error| < 2^-95 for |x| <= 12.  e^(-th - tl) is
// exp_reduce(-|th|) with tl added to the reduced argument, then
// exp_reduced: <= 4 u (erf_family.h units); x E, 1 + E and the division add
// 3 u.  x is clamped to [-12, 12] for t (|t| <= 142.6: beyond, E <
// 2^-205 no longer matters); x < -11 gives -0 (|f(-11)| < 2^-158); |x| <
// 2^-60 gelu_near_zero.  gelu_tanh(+inf) = +inf, gelu_tanh(-inf) = -0.
#include "elementwise/fn/erf_family.h"

constexpr double kGeluTanhA[2] = {0x1.9884533d43651p+0, -0x1.cbc0d30ebfd15p-54};   // 2 sqrt(2/pi)
constexpr double kGeluTanhB[2] = {0x1.2444f2a4d8b4bp-4, -0x1.6c843a29d1c70p-61};   // 2 sqrt(2/pi) 0.044715

struct GeluTanh {
  static constexpr bool kTable = true;
  static D eval(D x) {
    const D xc = vmin(D(12.0), vmax(D(-12.0), x));  // NaN stays NaN
    const D ph = xc * kGeluTanhA[0];
    const D pl = fma(xc, D(kGeluTanhA[0]), -ph) + xc * kGeluTanhA[1];
    const D x2 = xc * xc;  // exact
    const D x3h = x2 * xc;
    const D x3l = fma(x2, xc, -x3h);
    const D qh = x3h * kGeluTanhB[0];
    const D ql = fma(x3h, D(kGeluTanhB[0]), -qh) + fma(x3l, D(kGeluTanhB[0]), x3h * kGeluTanhB[1]);
    const D th = ph + qh;  // TwoSum: th + e = ph + qh exactly
    const D bb = th - ph;
    const D e = (ph - (th - bb)) + (qh - bb);
    const D tl = e + (pl + ql);
    const M neg = lt(x, D(0.0));
    D kmagic;
    const D r = exp_reduce(-abs_of(th), &kmagic) + select(neg, tl, -tl);
    const D big_e = exp_reduced(r) * pow2_from_magic(kmagic);
    const D v = select(neg, x * big_e, x) / (D(1.0) + big_e);
    return select(lt(abs_of(x), D(kGeluTiny)), gelu_near_zero(x), select(lt(x, D(-11.0)), D(-0.0), v));
  }
};
