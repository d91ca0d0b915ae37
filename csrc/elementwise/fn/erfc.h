// erfc(x) = fl32(1 - erf x).  W = 64 ulps; error <= 26.4 ulp (erf_family.h):
// x >= 0: e^(-x^2) erfcx(x), x^2 exact, no cancellation anywhere (26.4 u).
// x < 0: 2 - erfc(|x|), where erfc(|x|) <= 1 <= the result, <= 13.7 ulp.
// Beyond 10.5 the clamped evaluation gives about 2^-177, which rounds to +0
// as erfc does (erfc(10.06) < 2^-150).  erfc(+-0) = 1 exactly, erfc(+inf)
// = +0, erfc(-inf) = 2.
#include "elementwise/fn/erf_family.h"

struct Erfc {
  static constexpr bool kTable = true;
  static D eval(D x) {
    const D e = erfc_abs(abs_of(x), x * x);
    return select(lt(x, D(0.0)), D(2.0) - e, e);
  }
};
