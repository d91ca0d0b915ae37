// softmax's division by its line's reciprocal (csrc/softmax/lines.inc,
// divide_by_reciprocal) against the IEEE quotient: for divisors b in [1, 2)
// (the steps are scale-free while nothing underflows, so one binade of each
// stands for all), every dividend a in [1, 2), z = fl(1/b), and
//
//   q0 = fl(a z),  q1 = fma(fma(-q0, b, a), z, q0),  q2 = fma(fma(-q1, b, a), z, q1)
//
// must equal fl(a / b).  q2 rests on Markstein's theorem (z within half an
// ulp of 1/b, q1 within one ulp of a/b; docs/PERFORMANCE.md, twentieth
// round); this is the measured side.  It also counts q1 alone.  Default: the
// 4096 divisors nearest 2 (where a z errs most against an ulp of a/b < 1)
// and 512 spread over the binade, every dividend each (seconds on two
// cores); --all: every divisor, 2^46 pairs (about two hours).
//
// Second, the route of divide()'s other lines (those holding an e in (0,
// 2^-64)): fl32(fl64(a) / fl64(b)) must equal fl32(a / b) where the
// quotient is subnormal, which the theorem on innocuous double rounding
// covers (float64 has more than 2 24 + 2 bits) but whose grid is no longer
// the significand's.  For 64 divisors in [1, 2) (32 nearest 2, 32 spread)
// and 16 of them times 2^9 (a line's sum near its length), every dividend
// whose quotient lies below 2^-125: the subnormal results and the binade
// above them.
//
//   g++ -O2 -fopenmp -ffp-contract=off -o /tmp/division_check tools/division_check.cpp && /tmp/division_check [--all]
#pragma GCC target("avx2,fma")
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

namespace {

float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// Wrong quotients over every dividend for the divisor 1 + m 2^-23: q2's
// and q1's.
void count_wrong(uint32_t m, int64_t* wrong2, int64_t* wrong1) {
  const float b = from_bits(0x3F800000u | m);
  const float z = 1.0f / b;
  int64_t w2 = 0, w1 = 0;
  for (uint32_t am = 0; am < (1u << 23); ++am) {
    const float a = from_bits(0x3F800000u | am);
    const float q0 = a * z;
    const float q1 = std::fma(std::fma(-q0, b, a), z, q0);
    const float q2 = std::fma(std::fma(-q1, b, a), z, q1);
    const uint32_t want = bits_of(a / b);
    w2 += bits_of(q2) != want;
    w1 += bits_of(q1) != want;
  }
  *wrong2 += w2;
  *wrong1 += w1;
}

// The mantissa of divisor i of a sample in [1, 2): the `nearest` nearest 2
// first, then others spread over the binade (a multiplicative hash).
uint32_t divisor_mantissa(int64_t i, int64_t nearest) {
  return i < nearest ? 0x7FFFFFu - static_cast<uint32_t>(i) : static_cast<uint32_t>(i * 2654435761u) & 0x7FFFFFu;
}

// Wrong quotients of the float64 route over every dividend a in (0, b
// 2^-125).
int64_t count_wrong_float64(float b) {
  double bd = b;
  asm("" : "+m"(bd));  // or GCC folds the route back into a / b (lines.inc)
  const uint32_t top = bits_of(b * 0x1p-125f);
  int64_t wrong = 0;
  for (uint32_t u = 1; u < top; ++u) {
    const float a = from_bits(u);
    wrong += bits_of(static_cast<float>(static_cast<double>(a) / bd)) != bits_of(a / b);
  }
  return wrong;
}

}  // namespace

int main(int argc, char** argv) {
  const bool all = argc > 1 && std::string(argv[1]) == "--all";
  const int64_t divisors = all ? (int64_t{1} << 23) : 4096 + 512;
  int64_t wrong2 = 0, wrong1 = 0;
#pragma omp parallel for reduction(+ : wrong2, wrong1) schedule(dynamic, 4)
  for (int64_t i = 0; i < divisors; ++i) {
    count_wrong(all ? static_cast<uint32_t>(i) : divisor_mantissa(i, 4096), &wrong2, &wrong1);
  }
  std::printf("%lld divisors x 2^23 dividends: q2 (two corrections) %lld wrong, q1 (one) %lld wrong\n",
              static_cast<long long>(divisors), static_cast<long long>(wrong2), static_cast<long long>(wrong1));
  int64_t wrong64 = 0;
#pragma omp parallel for reduction(+ : wrong64) schedule(dynamic, 1)
  for (int i = 0; i < 64 + 16; ++i) {
    const float b = from_bits(0x3F800000u | divisor_mantissa(i % 64, 32));
    wrong64 += count_wrong_float64(b * (i < 64 ? 1.0f : 0x1p9f));
  }
  std::printf("80 divisors, every dividend below 2^-125 times the divisor: float64 route %lld wrong\n",
              static_cast<long long>(wrong64));
  return wrong2 != 0 || wrong64 != 0;
}
