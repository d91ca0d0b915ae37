// reciprocal(x) = fl32(1 / x): one IEEE-754 float32 division, correctly
// rounded by definition (1/+-0 = +-inf, 1/+-inf = +-0); no table.
struct Reciprocal {
  static constexpr bool kTable = false;
  static F eval32(F x) { return f32_div(f32_splat(1.0f), x); }
};
