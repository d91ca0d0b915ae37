// gelu(x) = fl32(x Phi(x)) = fl32((x/2) erfc(-x/sqrt 2)), gelu with
// approximate='none'.  W = 64 ulps; error <= 30 ulp (erf_family.h), one
// formula for every x: z = -x/sqrt 2 is rounded (relative error <= 1.5 u,
// which moves erfcx by <= 1.5 u), but e^(-z^2) is e^(-x^2/2) with x^2/2
// exact, so the condition number 2 z^2 of erfc never meets a rounded
// argument.  x <= 0: (x/2) e^(-x^2/2) erfcx(|z|), <= 26.4 + 1.5 + 1 u.
// x > 0: (x/2) (2 - erfc(|z|)) with erfc(|z|) <= 1 <= 2 - erfc(|z|): <= 30 u.
// Limits: x < -14.75 gives -0 (|gelu(-14.75)| < 2^-158), and for |x| <
// 2^-60 gelu_near_zero.  gelu(+inf) = +inf, gelu(-inf) = -0.
#include "elementwise/fn/erf_family.h"

struct Gelu {
  static constexpr bool kTable = true;
  static D eval(D x) {
    const D z = x * D(-kSqrt1_2);
    const D e = erfc_abs(abs_of(z), (x * x) * 0.5);
    const D c = select(gt(x, D(0.0)), D(2.0) - e, e);  // erfc(z)
    const D v = (x * 0.5) * c;
    return select(lt(abs_of(x), D(kGeluTiny)), gelu_near_zero(x), select(lt(x, D(-14.75)), D(-0.0), v));
  }
};
