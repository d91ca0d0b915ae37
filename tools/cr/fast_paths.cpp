// Measurements of the vector rows' fast paths (csrc/elementwise/fn/exp_f32.h,
// logistic_f32.h, rsqrt_f32.h, tanh_f32.h, log_f32.h, softplus_f32.h, erfc_coarse.h,
// log_coarse.h, softplus_coarse.h, sincos_coarse.h, erf_series.h), as quoted in
// docs/elementwise.md, on the AVX-512 row or, built with -DFAST_PATHS_AVX2,
// the AVX2 row (its float32 paths and its erf series; the pieces and the
// other coarse float64 evaluations are the AVX-512 row's alone).
// Measurements, not checks (crosscheck.py and verify.py check the results):
//
//   * how often each hands a lane to the accurate float64 path, over every
//     float32 of |x| in a range, each sign (a few seconds);
//   * with --errors, the largest relative error of exp's unscaled pair
//     (ExpF32::unscaled, h + lo times 2^m, on the row's table) over every
//     float32 |x| <= 87 against float64 exp, of gelu_tanh's pair (x times
//     the corrected quotient) against the float64 GeluTanh, of tanh's pair
//     against the float64 Tanh, of ln's, log2's and log10's pairs against
//     the float64 Log, Log2, Log10, of the AVX2 row's log1p and softplus
//     pairs (log_f32.h, softplus_f32.h) against the float64 Log1p and
//     Softplus, and the largest error of each coarse float64
//     evaluation over every float32 input it takes (all 2^32 bit patterns
//     but those C::outside hands on, results below 2^-126 or not finite,
//     which the window test sends on too, and the inputs of the exact
//     rules: erf's |x| >= 4, erfc's z <= -4, gelu's x > 5.65), in float64
//     ulps of the result, against the accurate evaluation (within 8 ulps,
//     the records in docs/elementwise.md): the measured side of each window
//     (about a minute per function on two cores).
//
// And one check, with --exact-tests (AVX-512 row): the rounding tests of
// the Newton kernels beside the divider (fn/sqrt_f32.h,
// fn/reciprocal_f32.h), which must accept no candidate but the correctly
// rounded result whatever their estimate gives, are handed, for every
// float32 input of their range, that result (the IEEE instruction's) and
// both its neighbours; the exit status is 1 if a neighbour passes (about
// 10 s on two cores).
//
// Names after the option (erf, log2, ...) keep the reports to those
// functions; the pair errors of exp, gelu_tanh, tanh, the logarithms and
// softplus are named exp_pair, gelu_tanh_pair, tanh_pair, log_pair,
// log2_pair, log10_pair, log1p_pair and softplus_pair.
//
//   g++ -O2 -std=c++17 -fopenmp -Icsrc -ffp-contract=off [-DFAST_PATHS_AVX2] -o /tmp/fast_paths \
//       tools/cr/fast_paths.cpp csrc/elementwise/tables.cpp && /tmp/fast_paths [--errors] [--exact-tests] [NAME ...]
#ifdef FAST_PATHS_AVX2
#pragma GCC target("avx2,fma")
#else
#pragma GCC target("avx512f,avx2,fma")
#endif
// As in row_avx512.cpp: GCC 12 reports its own _mm512_undefined_*() starts.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <type_traits>
#include <utility>

#include "elementwise/cr.h"

namespace repdl {
namespace elementwise {
#ifdef FAST_PATHS_AVX2
namespace avx2_row {
#include "elementwise/row_avx2.h"
#include "elementwise/kernels.h"
namespace {
#include "elementwise/row_simd.inc"
#include "elementwise/fn/softplus_f32.h"
}  // namespace
}  // namespace avx2_row
#else
namespace avx512_row {
#include "elementwise/row_avx512.h"
#include "elementwise/kernels.h"
namespace {
#include "elementwise/row_simd.inc"
#include "elementwise/fn/erfc_coarse.h"
#include "elementwise/fn/log_coarse.h"
#include "elementwise/fn/sincos_coarse.h"
#include "elementwise/fn/softplus_coarse.h"
#include "elementwise/fn/reciprocal_f32.h"
#include "elementwise/fn/sqrt_f32.h"
}  // namespace
}  // namespace avx512_row
#endif
}  // namespace elementwise
}  // namespace repdl

#ifdef FAST_PATHS_AVX2
using namespace repdl::elementwise::avx2_row;
#else
using namespace repdl::elementwise::avx512_row;
#endif

// xs[j] = the float whose bit pattern is (first + j) | sign, for the
// kFloatLanes lanes of a block.
void block_of_patterns(uint64_t first, uint32_t sign, float* xs) {
  for (int j = 0; j < kFloatLanes; ++j) {
    const uint32_t u = static_cast<uint32_t>(first + j) | sign;
    std::memcpy(xs + j, &u, sizeof u);
  }
}

// The share of hard lanes over the bit patterns [lo, hi), with the sign bit `sign`.
template <class K>
double hard_share(uint32_t lo, uint32_t hi, uint32_t sign) {
  const K kernel;
  uint64_t hard = 0;
  alignas(64) float xs[kFloatLanes];
  for (uint64_t b = lo; b < hi; b += kFloatLanes) {
    block_of_patterns(b, sign, xs);
    uint32_t h;
    kernel.eval(f32_load(xs), &h);
    hard += static_cast<uint64_t>(__builtin_popcount(h));
  }
  return static_cast<double>(hard) / (hi - lo);
}

// The functions named on the command line (all when none is).
std::set<std::string> g_names;
bool wanted(const char* name) { return g_names.empty() || g_names.count(name) != 0; }

// |x| in [lo, hi) as bit patterns: 2^-7 to 32 where the whole range is the
// path's (for rsqrt and the logarithms, x > 0 alone is), 2^-7 to 4 for erfc
// and gelu, whose range ends at 5.65 (gelu) or 4 (erfc), 2^-7 to 1 for
// log1p (defined above -1), 2^-7 to 10 for tanh (1 from 9.0109).
template <class K>
void report_hard(const char* name, uint32_t hi = 0x42000000u) {
  if (!wanted(name)) return;
  const uint32_t lo = 0x3C000000u;  // 2^-7
  std::printf("%-10s x > 0: 2^%.2f   x < 0: 2^%.2f\n", name, std::log2(hard_share<K>(lo, hi, 0)),
              std::log2(hard_share<K>(lo, hi, 0x80000000u)));
}

// |c - a| in ulps of a (a float64 ulp of a: 2^(e - 52) for 2^e <= |a| < 2^(e+1)).
double ulps(double c, double a) {
  int e;
  std::frexp(a, &e);
  return std::fabs(c - a) / std::ldexp(1.0, e - 53);
}

// The largest error over all 2^32 float32 bit patterns, in blocks of
// kFloatLanes on every thread, and the input where it occurs:
// errors(xs, err) sets err[j] for the block xs (negative: lane j does not
// count).
struct Worst {
  double error;
  uint32_t input;
};
template <class Errors>
Worst worst_over_all_inputs(const Errors& errors) {
  Worst worst{0, 0};
#pragma omp parallel
  {
    Worst local{0, 0};
#pragma omp for schedule(dynamic, 256)
    for (int64_t block = 0; block < (int64_t{1} << 32) / kFloatLanes; ++block) {
      alignas(64) float xs[kFloatLanes];
      double err[kFloatLanes];
      block_of_patterns(static_cast<uint64_t>(block) * kFloatLanes, 0, xs);
      errors(xs, err);
      for (int j = 0; j < kFloatLanes; ++j) {
        if (err[j] > local.error) {
          local.error = err[j];
          std::memcpy(&local.input, xs + j, sizeof local.input);
        }
      }
    }
#pragma omp critical
    if (local.error > worst.error) worst = local;
  }
  return worst;
}

// The largest relative error of exp's unscaled pair, (h + lo) 2^m with m =
// floor(k / N), over every float32 |x| <= 87, against float64 exp (within
// 2^-52 relative).
void report_exp_pair_error() {
  const ExpF32 exp;
  const Worst worst = worst_over_all_inputs([&](const float* xs, double* err) {
    alignas(64) float hs[kFloatLanes], los[kFloatLanes], ks[kFloatLanes];
    F lo, sk, kn;
    f32_store_raw(hs, exp.unscaled(f32_load(xs), &lo, &sk, &kn));
    f32_store_raw(los, lo);
    f32_store_raw(ks, kn);
    for (int j = 0; j < kFloatLanes; ++j) {
      const int m = static_cast<int>(std::floor(ks[j]));
      const double ref = std::exp(static_cast<double>(xs[j]));
      err[j] = std::fabs(xs[j]) <= 87.0f ? std::fabs(std::ldexp(static_cast<double>(hs[j]) + los[j], m) - ref) / ref
                                         : -1.0;
    }
  });
  std::printf("exp pair (N = %d) max relative error 2^%.2f, at 0x%08x\n", kExpF32N, std::log2(worst.error),
              worst.input);
}

// gelu_tanh's pair x (y0 + low) before round_proven (GeluTanhF32: x y0
// exactly plus x low) against the float64 GeluTanh, over every float32 x
// whose t lies in [-48, 64) (the quotient's range) and |x| >= 2^-64 (the
// lanes round_proven decides), relative: the measured side of its 2^-34.77.
void report_gelu_tanh_pair_error() {
  const GeluTanhF32 gelu_tanh;
  const Worst worst = worst_over_all_inputs([&](const float* xs, double* err) {
    alignas(64) float q[kFloatLanes], lows[kFloatLanes];
    alignas(64) double ref[kFloatLanes];
    F low;
    FM in_range;
    const F x = f32_load(xs);
    f32_store_raw(q, gelu_tanh.quotient(x, &low, &in_range));
    f32_store_raw(lows, low);
    const uint32_t quotient = fm_bits(in_range);
    store(ref, GeluTanh::eval(widen_lo(x)));
    store(ref + kLanes, GeluTanh::eval(widen_hi(x)));
    for (int j = 0; j < kFloatLanes; ++j) {
      const double v = static_cast<double>(xs[j]) * q[j] + static_cast<double>(xs[j]) * lows[j];
      const bool counts = (quotient >> j & 1) && std::fabs(xs[j]) >= 0x1p-64f && std::fabs(xs[j]) <= 8.87f;
      err[j] = counts ? std::fabs(v - ref[j]) / std::fabs(ref[j]) : -1.0;
    }
  });
  std::printf("gelu_tanh pair (N = %d) max relative error 2^%.2f, at 0x%08x\n", kExpF32N, std::log2(worst.error),
              worst.input);
}

// The largest relative error of a float32 path's pair h + lo (pair(x, &lo)
// returns h) against the float64 S::eval at arg(x), over the lanes where
// counts(x).
template <class S, class Pair, class Arg, class Counts>
Worst worst_pair_error(const Pair& pair, const Arg& arg, const Counts& counts) {
  return worst_over_all_inputs([&](const float* xs, double* err) {
    alignas(64) float hs[kFloatLanes], los[kFloatLanes];
    alignas(64) double ref[kFloatLanes];
    F lo;
    const F x = f32_load(xs);
    f32_store_raw(hs, pair(x, &lo));
    f32_store_raw(los, lo);
    const F a = arg(x);
    store(ref, S::eval(widen_lo(a)));
    store(ref + kLanes, S::eval(widen_hi(a)));
    for (int j = 0; j < kFloatLanes; ++j)
      err[j] = counts(xs[j]) ? std::fabs(static_cast<double>(hs[j]) + los[j] - ref[j]) / std::fabs(ref[j]) : -1.0;
  });
}

// tanh's pair q + low before round_proven (TanhF32::magnitude) against the
// float64 Tanh (within 12 float64 ulps), relative, over every float32 x
// (NaN and the infinities aside; |x| > 9.5 is the clamp's tanh 9.5): the
// measured side of its bound.
void report_tanh_pair_error() {
  const TanhF32 tanh;
  const Worst worst = worst_pair_error<Tanh>([&](F x, F* low) { return tanh.magnitude(x, low); },
                                             [](F x) { return f32_min(f32_splat(9.5f), f32_abs(x)); },
                                             [](float x) { return std::isfinite(x) && x != 0.0f; });
  std::printf("tanh pair (N = %d) max relative error 2^%.2f, at 0x%08x\n", kTanhF32N, std::log2(worst.error),
              worst.input);
}

// The pair h + lo of ln, log2 or log10 before round_proven (LogF32::pair)
// against the float64 S (within a few float64 ulps), relative, over every
// normal positive float32 x but 1 (whose logarithm is 0 on both): the
// measured side of their 2^-35.27.
template <LogBase kBase, class S>
void report_log_pair_error(const char* name) {
  const LogF32<kBase> log;
  const Worst worst = worst_pair_error<S>([&](F x, F* lo) { return log.pair(x, lo); }, [](F x) { return x; },
                                          [](float x) { return x >= 0x1p-126f && std::isfinite(x) && x != 1.0f; });
  std::printf("%s pair max relative error 2^%.2f, at 0x%08x\n", name, std::log2(worst.error), worst.input);
}

#ifdef FAST_PATHS_AVX2
// The AVX2 row's log1p pair (Log1pF32::pair of x and 0) against the float64
// Log1p over every float32 x > -1 with |x| >= 2^-126 (the path's range),
// and softplus's pair (SoftplusF32::pair) against the float64 Softplus over
// every |x| < 48 (logsigmoid's pair is softplus's at -x, negated): the
// measured sides of their 2^-35.19 and 2^-34.19.
void report_log1p_softplus_pair_errors() {
  if (wanted("log1p_pair")) {
    const Log1pF32 log1p;
    const Worst worst = worst_pair_error<Log1p>(
        [&](F x, F* lo) { return log1p.pair(x, f32_splat(0.0f), lo); }, [](F x) { return x; },
        [](float x) { return x > -1.0f && std::isfinite(x) && std::fabs(x) >= 0x1p-126f; });
    std::printf("log1p pair max relative error 2^%.2f, at 0x%08x\n", std::log2(worst.error), worst.input);
  }
  if (wanted("softplus_pair")) {
    const SoftplusF32<false> softplus;
    const Worst worst = worst_pair_error<Softplus>([&](F x, F* lo) { return softplus.pair(x, lo); },
                                                   [](F x) { return x; }, [](float x) { return std::fabs(x) < 48.0f; });
    std::printf("softplus pair max relative error 2^%.2f, at 0x%08x\n", std::log2(worst.error), worst.input);
  }
}
#endif

// The coarse evaluation C's largest error against the accurate S, rule()
// marking the inputs of C's exact rules.
template <class C, class S>
void report_error(const char* name, bool (*rule)(float) = [](float) { return false; }) {
  if (!wanted(name)) return;
  const C coarse;
  const Worst worst = worst_over_all_inputs([&](const float* xs, double* err) {
    alignas(64) double vc[kFloatLanes], va[kFloatLanes];
    const F x = f32_load(xs);
    const uint32_t skip = fm_bits(C::outside(x));
    if (skip == (1u << kFloatLanes) - 1) {  // sin's and cos's |x| >= 2^17: the accurate reduction is slow there
      std::fill(err, err + kFloatLanes, -1.0);
      return;
    }
    store(vc, coarse.eval(widen_lo(x)));
    store(vc + kLanes, coarse.eval(widen_hi(x)));
    store(va, S::eval(widen_lo(x)));
    store(va + kLanes, S::eval(widen_hi(x)));
    for (int j = 0; j < kFloatLanes; ++j) {
      const bool counts = !((skip >> j) & 1) && !rule(xs[j]) && std::isfinite(va[j]) && std::fabs(va[j]) >= 0x1p-126;
      err[j] = counts ? ulps(vc[j], va[j]) : -1.0;
    }
  });
  std::printf("%-10s max %.3g ulps (2^%.2f), window %d (2^%.0f), at 0x%08x\n", name, worst.error,
              std::log2(worst.error), C::kWindow, std::log2(C::kWindow), worst.input);
}

#ifndef FAST_PATHS_AVX2
// A rounding test `passes(x, c)` against the correct result `exact(x)`
// over every float32 x (bit patterns) for which `in_range(x)`: candidates
// c = exact(x) and its neighbours (bit patterns -1 and +1), those finite
// and nonzero.  Prints how many neighbours passed (must be none) and how
// many correct results failed (the boundary cases, sent to the IEEE
// instruction); returns whether none passed.
template <class Passes, class Exact, class InRange>
bool check_exact_test(const char* name, const Passes& passes, const Exact& exact, const InRange& in_range) {
  uint64_t wrong = 0, rejected = 0, inputs = 0;
#pragma omp parallel for schedule(dynamic, 256) reduction(+ : wrong, rejected, inputs)
  for (int64_t block = 0; block < (int64_t{1} << 32) / kFloatLanes; ++block) {
    alignas(64) float xs[kFloatLanes];
    block_of_patterns(static_cast<uint64_t>(block) * kFloatLanes, 0, xs);
    const F x = f32_load(xs), c = exact(x);
    uint32_t usable = 0;
    for (int j = 0; j < kFloatLanes; ++j) usable |= static_cast<uint32_t>(in_range(xs[j])) << j;
    inputs += static_cast<uint64_t>(__builtin_popcount(usable));
    const F ulp_bit = f32_splat(0x1p-149f);  // bit pattern 1
    for (int k = -1; k <= 1; ++k) {
      const F cand = k == 0 ? c : k > 0 ? f32_add_bits(c, ulp_bit) : f32_sub_bits(c, ulp_bit);
      alignas(64) float vs[kFloatLanes];
      f32_store_raw(vs, cand);
      uint32_t candidate = usable;
      for (int j = 0; j < kFloatLanes; ++j)
        if (!std::isfinite(vs[j]) || vs[j] == 0.0f) candidate &= ~(1u << j);
      const uint32_t pass = fm_bits(passes(x, cand)) & candidate;
      if (k == 0) {
        rejected += static_cast<uint64_t>(__builtin_popcount(candidate & ~pass));
      } else {
        wrong += static_cast<uint64_t>(__builtin_popcount(pass));
      }
    }
  }
  std::printf("%-10s %llu inputs: neighbours passed %llu, correct results failed %llu\n", name,
              static_cast<unsigned long long>(inputs), static_cast<unsigned long long>(wrong),
              static_cast<unsigned long long>(rejected));
  return wrong == 0;
}

// sqrt's test over every positive float; reciprocal's over |x| <= 2^96,
// the kernel's range (beyond it the estimate is NaN).
bool check_exact_tests() {
  const bool sqrt_ok = check_exact_test(
      "sqrt", [](F x, F s) { return SqrtF32::rounds_to_sqrt(x, s); }, [](F x) { return f32_sqrt(x); },
      [](float x) { return x > 0.0f && std::isfinite(x); });
  const bool reciprocal_ok = check_exact_test(
      "reciprocal", [](F x, F q) { return ReciprocalF32::rounds_to_reciprocal(x, q); },
      [](F x) { return f32_div(f32_splat(1.0f), x); },
      [](float x) { return x != 0.0f && std::fabs(x) <= 0x1p96f; });
  return sqrt_ok && reciprocal_ok;
}
#endif

int main(int argc, char** argv) {
  const bool errors = argc > 1 && std::string(argv[1]) == "--errors";
  for (int i = 1; i < argc; ++i)
    if (argv[i][0] != '-') g_names.insert(argv[i]);
#ifndef FAST_PATHS_AVX2
  if (argc > 1 && std::string(argv[1]) == "--exact-tests") return check_exact_tests() ? 0 : 1;
#endif
  report_hard<ExpF32>("exp");
  report_hard<Exp2F32>("exp2");
  report_hard<RsqrtF32>("rsqrt");
  report_hard<SigmoidF32>("sigmoid");
  report_hard<SiluF32>("silu");
  report_hard<GeluTanhF32>("gelu_tanh");
  report_hard<TanhF32>("tanh", 0x41200000u);
  report_hard<LogF32<LogBase::e>>("log");
  report_hard<LogF32<LogBase::two>>("log2");
  report_hard<LogF32<LogBase::ten>>("log10");
#ifdef FAST_PATHS_AVX2
  report_hard<Log1pF32>("log1p", 0x3F800000u);
  report_hard<SoftplusF32<false>>("softplus");
  report_hard<SoftplusF32<true>>("logsigmoid");
#endif
  if (errors) {
    if (wanted("exp_pair")) report_exp_pair_error();
    if (wanted("gelu_tanh_pair")) report_gelu_tanh_pair_error();
    if (wanted("tanh_pair")) report_tanh_pair_error();
    if (wanted("log_pair")) report_log_pair_error<LogBase::e, Log>("log");
    if (wanted("log2_pair")) report_log_pair_error<LogBase::two, Log2>("log2");
    if (wanted("log10_pair")) report_log_pair_error<LogBase::ten, Log10>("log10");
#ifdef FAST_PATHS_AVX2
    report_log1p_softplus_pair_errors();
#endif
  }
#ifdef FAST_PATHS_AVX2
  report_hard<Float64Tier<ErfSeries>>("erf", 0x40080000u);
  report_hard<Float64Tier<ErfcSeries>>("erfc", 0x40080000u);
  report_hard<Float64Tier<GeluSeries>>("gelu", 0x40400000u);
  if (errors) {
    report_error<ErfSeries, Erf>("erf", [](float x) { return std::fabs(x) >= 4.0f; });
    report_error<ErfcSeries, Erfc>("erfc", [](float z) { return z <= -4.0f; });
    report_error<GeluSeries, Gelu>("gelu", [](float x) { return x > kGeluIdentity; });
  }
#else
  report_hard<Float64Tier<ErfCoarse>>("erf");
  report_hard<Float64Tier<ErfcCoarse>>("erfc", 0x40800000u);
  report_hard<Float64Tier<GeluCoarse>>("gelu", 0x40800000u);
  report_hard<Float64Tier<Log1pCoarse>>("log1p", 0x3F800000u);
  report_hard<Float64Tier<SoftplusCoarse>>("softplus");
  report_hard<Float64Tier<LogsigmoidCoarse>>("logsigmoid");
  report_hard<Float64Tier<SinCoarse>>("sin");
  report_hard<Float64Tier<CosCoarse>>("cos");
  if (errors) {
    report_error<ErfCoarse, Erf>("erf", [](float x) { return std::fabs(x) >= 4.0f; });
    report_error<ErfcCoarse, Erfc>("erfc", [](float z) { return z <= -4.0f; });
    report_error<GeluCoarse, Gelu>("gelu", [](float x) { return x > kGeluIdentity; });
    report_error<Log1pCoarse, Log1p>("log1p");
    report_error<SoftplusCoarse, Softplus>("softplus");
    report_error<LogsigmoidCoarse, Logsigmoid>("logsigmoid");
    report_error<SinCoarse, Sin>("sin", [](float x) { return std::fabs(x) < 0x1p-12f; });
    report_error<CosCoarse, Cos>("cos");
  }
#endif
}
