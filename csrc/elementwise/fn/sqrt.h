// sqrt(x) = fl32(sqrt x): the IEEE-754 float32 square root is correctly
// rounded by definition (sqrt(-0) = -0, sqrt(x < 0) = NaN); no table.
struct Sqrt {
  static constexpr bool kTable = false;
  static F eval32(F x) { return f32_sqrt(x); }
};
