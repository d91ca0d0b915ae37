// The hard-case tables (one generated file per function, shared with the
// reference backend) and the portable scalar helpers of cr.h.
#include <cmath>
#include <cstring>

#include "elementwise/cr.h"

namespace repdl {
namespace elementwise {
namespace {

// Each .inc file is "W, count, x0, r0, x1, r1, ..." (tools/cr/generate.py):
// one block per function that has a table.
constexpr uint32_t kExp[] = {
#include "../../src/repdl/crtables/exp.inc"
};
constexpr uint32_t kExp2[] = {
#include "../../src/repdl/crtables/exp2.inc"
};
constexpr uint32_t kExpm1[] = {
#include "../../src/repdl/crtables/expm1.inc"
};
constexpr uint32_t kLog[] = {
#include "../../src/repdl/crtables/log.inc"
};
constexpr uint32_t kLog2[] = {
#include "../../src/repdl/crtables/log2.inc"
};
constexpr uint32_t kLog10[] = {
#include "../../src/repdl/crtables/log10.inc"
};
constexpr uint32_t kLog1p[] = {
#include "../../src/repdl/crtables/log1p.inc"
};
constexpr uint32_t kRsqrt[] = {
#include "../../src/repdl/crtables/rsqrt.inc"
};
constexpr uint32_t kSin[] = {
#include "../../src/repdl/crtables/sin.inc"
};
constexpr uint32_t kCos[] = {
#include "../../src/repdl/crtables/cos.inc"
};
constexpr uint32_t kTanh[] = {
#include "../../src/repdl/crtables/tanh.inc"
};
constexpr uint32_t kSigmoid[] = {
#include "../../src/repdl/crtables/sigmoid.inc"
};
constexpr uint32_t kLogsigmoid[] = {
#include "../../src/repdl/crtables/logsigmoid.inc"
};
constexpr uint32_t kErf[] = {
#include "../../src/repdl/crtables/erf.inc"
};
constexpr uint32_t kErfc[] = {
#include "../../src/repdl/crtables/erfc.inc"
};
constexpr uint32_t kGelu[] = {
#include "../../src/repdl/crtables/gelu.inc"
};
constexpr uint32_t kGeluTanh[] = {
#include "../../src/repdl/crtables/gelu_tanh.inc"
};
constexpr uint32_t kSoftplus[] = {
#include "../../src/repdl/crtables/softplus.inc"
};
constexpr uint32_t kSilu[] = {
#include "../../src/repdl/crtables/silu.inc"
};
constexpr uint32_t kMish[] = {
#include "../../src/repdl/crtables/mish.inc"
};
constexpr uint32_t kElu[] = {
#include "../../src/repdl/crtables/elu.inc"
};
constexpr uint32_t kSelu[] = {
#include "../../src/repdl/crtables/selu.inc"
};

template <size_t N>
constexpr CrTable make(const uint32_t (&a)[N]) {
  static_assert(N >= 2, "a table file starts with W and the entry count");
  return CrTable{a[0], a[1], a + 2};
}

// Functions exact by construction (IEEE sqrt and division) have none.
constexpr CrTable kNone{0, 0, nullptr};

}  // namespace

const CrTable& table(Unary f) {
  static constexpr CrTable exp_t = make(kExp), exp2_t = make(kExp2), expm1_t = make(kExpm1), log_t = make(kLog),
                           log2_t = make(kLog2), log10_t = make(kLog10), log1p_t = make(kLog1p),
                           rsqrt_t = make(kRsqrt), sin_t = make(kSin), cos_t = make(kCos);
  static constexpr CrTable tanh_t = make(kTanh), sigmoid_t = make(kSigmoid), logsigmoid_t = make(kLogsigmoid);
  static constexpr CrTable erf_t = make(kErf), erfc_t = make(kErfc);
  static constexpr CrTable gelu_t = make(kGelu);
  static constexpr CrTable gelu_tanh_t = make(kGeluTanh);
  static constexpr CrTable softplus_t = make(kSoftplus), silu_t = make(kSilu), mish_t = make(kMish), elu_t = make(kElu), selu_t = make(kSelu);
  switch (f) {
    case Unary::exp: return exp_t;
    case Unary::exp2: return exp2_t;
    case Unary::expm1: return expm1_t;
    case Unary::log: return log_t;
    case Unary::log2: return log2_t;
    case Unary::log10: return log10_t;
    case Unary::log1p: return log1p_t;
    case Unary::rsqrt: return rsqrt_t;
    case Unary::sin: return sin_t;
    case Unary::cos: return cos_t;
    case Unary::tanh: return tanh_t;
    case Unary::sigmoid: return sigmoid_t;
    case Unary::logsigmoid: return logsigmoid_t;
    case Unary::erf: return erf_t;
    case Unary::erfc: return erfc_t;
    case Unary::gelu: return gelu_t;
    case Unary::gelu_tanh: return gelu_tanh_t;
    case Unary::softplus: return softplus_t;
    case Unary::silu: return silu_t;
    case Unary::mish: return mish_t;
    case Unary::elu: return elu_t;
    case Unary::selu: return selu_t;
    default: return kNone;  // sqrt, reciprocal
  }
}

uint64_t midpoint_distance(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  const int e = static_cast<int>((b >> 52) & 0x7FF);
  if (e == 0 || e == 0x7FF) return ~uint64_t{0};
  const uint64_t mant = (b & ((uint64_t{1} << 52) - 1)) | (uint64_t{1} << 52);
  int s = 29 + (e < 1023 - 126 ? (1023 - 126) - e : 0);
  if (s > 60) s = 60;
  const uint64_t low = mant & ((uint64_t{1} << s) - 1), half = uint64_t{1} << (s - 1);
  return low > half ? low - half : half - low;
}

float settle(const CrTable& t, uint32_t xbits, double v, float r) {
  if (t.count == 0 || midpoint_distance(v) > t.window) return r;
  uint32_t lo = 0, hi = t.count;
  while (lo < hi) {
    const uint32_t mid = (lo + hi) / 2;
    if (t.pairs[2 * mid] < xbits) lo = mid + 1;
    else hi = mid;
  }
  if (lo < t.count && t.pairs[2 * lo] == xbits) {
    float out;
    std::memcpy(&out, &t.pairs[2 * lo + 1], sizeof out);
    return out;
  }
  return r;
}

namespace {
// 2/pi = 0.a2f9836e4e441529fc27... (hex), bits b_1 b_2 ... from the most
// significant bit of word 0 (tools/cr/polyfit.py prints them; a test checks
// them against MPFR).
const uint64_t kTwoOverPiBits[6] = {
    0xa2f9836e4e441529ull, 0xfc2757d1f534ddc0ull, 0xdb6295993c439041ull,
    0xfe5163abdebbc561ull, 0xb7246e3a424dd2e0ull, 0x06492eea09d1921cull,
};
using u128 = unsigned __int128;
using i128 = __int128;

// Bits b_s .. b_{s+125} of 2/pi as a 126-bit integer (b_j = 0 for j < 1).
u128 two_over_pi_window(int s) {
  const int p = s - 1;  // 0-based position of b_s
  if (p < 0) return two_over_pi_window(1) >> (-p);
  const int w = p / 64, o = p % 64;
  u128 top = (static_cast<u128>(kTwoOverPiBits[w]) << 64) | kTwoOverPiBits[w + 1];
  if (o != 0) top = (top << o) | (kTwoOverPiBits[w + 2] >> (64 - o));
  return top >> 2;
}
}  // namespace

double reduce_pio2_large(float x, int64_t* q) {
  uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  const bool negative = (b >> 31) != 0;
  const uint64_t m = (b & 0x7FFFFFu) | 0x800000u;       // |x| = m * 2^e, m < 2^24
  const int e = static_cast<int>((b >> 23) & 0xFF) - 150;  // e >= -3 for |x| >= 2^20
  // |x| * 2/pi mod 4 = (m * W mod 2^126) * 2^-124, W = bits b_{e-1} .. b_{e+124}:
  // bits b_j with j <= e-2 add multiples of 4 and the truncated tail adds
  // less than m * 2^-124 < 2^-100.
  const u128 w = two_over_pi_window(e - 1);
  const u128 lo = static_cast<u128>(m) * static_cast<uint64_t>(w);
  const u128 hi = static_cast<u128>(m) * static_cast<uint64_t>(w >> 64);
  const u128 p = (lo + (hi << 64)) & ((static_cast<u128>(1) << 126) - 1);
  int64_t k = static_cast<int64_t>(p >> 124);
  const u128 frac = p & ((static_cast<u128>(1) << 124) - 1);
  i128 f = static_cast<i128>(frac);
  if ((frac >> 123) & 1) {  // round k to nearest: f in [-2^123, 2^123)
    f -= static_cast<i128>(1) << 124;
    k += 1;
  }
  // r = f * 2^-124 * pi/2, with f split into two doubles (f = fh + fl exactly).
  const double fh = static_cast<double>(f);
  const double fl = static_cast<double>(f - static_cast<i128>(fh));
  constexpr double kPio2Hi = 0x1.921fb54442d18p+0, kPio2Lo = 0x1.1a62633145c07p-54;
  double r = std::fma(fh, kPio2Hi, std::fma(fh, kPio2Lo, fl * kPio2Hi)) * 0x1p-124;
  if (negative) {
    r = -r;
    k = -k;
  }
  *q = k & 3;
  return r;
}

}  // namespace elementwise
}  // namespace repdl
