// erf(x) = fl32(erf x).  W = 64 ulps; error <= 13.2 ulp (erf_family.h):
// |x| < 1/2: x P(x^2), <= 6 u.  |x| >= 1/2: 1 - erfc(|x|) with erfc(|x|) =
// e^(-x^2) erfcx(|x|) (x^2 exact), <= 26.4 u relative to erfc(|x|) <= 0.48,
// while the result is >= 0.52: <= 26.4 * 0.48 * 2^-53 + half an ulp of the
// result, <= 13.2 ulp; then the sign of x.  Beyond 10.5 erfcx and e^-s are
// clamped, leaving 1 - 2^-177.  erf(+-0) = +-0, erf(+-inf) = +-1.
#include "elementwise/fn/erf_family.h"

struct Erf {
  static constexpr bool kTable = true;
  static D eval(D x) {
    const D ax = abs_of(x);
    const D big = copy_sign(D(1.0) - erfc_abs(ax, x * x), x);
    return select(lt(ax, D(0.5)), erf_small(x), big);
  }
};
