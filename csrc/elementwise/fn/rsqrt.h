// rsqrt(x) = fl32(1 / sqrt x), one rounding.  W = 64 ulps; error <= 1.5 ulp:
// the float32 seed y = fl32(1 / fl32(sqrt x)) has relative error <= 2^-23;
// with e = 1 - x y^2 (one fma after h = x y; |error of e| <= 2^-53) one
// third-order step y + y (e/2 + 3e^2/8) leaves 5/16 e^3 < 2^-67 plus
// rounding.  Special: rsqrt(+-0) = +-inf, rsqrt(+inf) = +0, rsqrt(x < 0) = NaN.
struct Rsqrt {
  static constexpr bool kTable = true;
  static D eval(D x) {
    const D y = f32_rsqrt_seed(x);
    const D h = x * y;
    const D e = fma(-h, y, D(1.0));
    const D t = e * fma(e, D(0.375), D(0.5));
    const D v = fma(y, t, y);
    const D inf = from_bits((bits(x) & U(0x8000000000000000ull)) | U(0x7FF0000000000000ull));
    return select(eq(x, D(0.0)), inf, select(eq(x, D(__builtin_inf())), D(0.0), v));
  }
};
