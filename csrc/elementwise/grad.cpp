// The backward formulas of the correctly rounded unary functions
// (CONTRACT.md section 6, "Backward"; ops/elementwise.py's _<name>_grad is
// the same text as a sequence of primitives), each fused into one pass: per
// block of kBlock elements the correctly rounded steps run into scratch and
// the float32 steps follow in one loop, so a gradient costs one trip through
// cache instead of one per primitive, and one call instead of up to twelve.
//
// Same bits as the sequence of primitives: every `*`, `/`, `+`, `-` below
// is one IEEE-754 float32 operation in the formula's order (contraction is
// off, so the compiler may vectorise but never fuse), the correctly rounded
// steps are the unary kernels themselves, and a NaN result is written as
// 0x7FC00000 as each primitive would (NaN in gives NaN out for every step,
// so only the last one's canonicalisation shows).  A selection
// (torch.where in the formula) passes the chosen operand through bit for
// bit, as torch.where does.
#include <algorithm>
#include <cstdint>

#include "common/parallel.h"
#include "elementwise/elementwise.h"
#include "elementwise/select.h"

namespace repdl {
namespace elementwise {
namespace {
constexpr int64_t kBlock = 512;               // elements per pass (three scratch lines stay in L1)
constexpr int64_t kGrain = int64_t{1} << 14;  // elements per thread, at least

// The formulas' constants: fl32 of the real numbers, by bit pattern (the
// contract lists the same patterns).
const float kLn2 = float_of(0x3F317218u);
const float kLn10 = float_of(0x40135D8Eu);
const float kTwoSqrtPi = float_of(0x3F906EBBu);    // 2 / sqrt(pi)
const float kSqrt1_2 = float_of(0x3F3504F3u);      // 1 / sqrt(2)
const float kInvSqrt2Pi = float_of(0x3ECC422Au);   // 1 / sqrt(2 pi)
const float kBeta = float_of(0x3F4C422Au);         // sqrt(2 / pi)
const float kKappa = float_of(0x3D372713u);        // 0.044715
const float kKappa3 = float_of(0x3E095D4Eu);       // 3 * 0.044715
const float kSeluS = float_of(0x3F867D5Fu);
const float kSeluSA = float_of(0x3FE10966u);
constexpr float kSoftplusThreshold = 20.0f;        // torch's default, the default primitive's gradient

// One block: dx[0..m) from g, x, y (each m long) with scratch a, b.
struct Block {
  const float* g;
  const float* x;
  const float* y;
  float* dx;
  int64_t m;
  float* a;
  float* b;
};
using BlockFn = void (*)(const Block&);

// dx = f(i) for every element, canonical NaN.
template <class Fn>
inline void each(const Block& k, Fn f) {
  for (int64_t i = 0; i < k.m; ++i) k.dx[i] = canonical(f(i));
}

void exp_grad(const Block& k) { each(k, [&](int64_t i) { return k.g[i] * k.y[i]; }); }
void exp2_grad(const Block& k) { each(k, [&](int64_t i) { return (k.g[i] * k.y[i]) * kLn2; }); }
void expm1_grad(const Block& k) { each(k, [&](int64_t i) { return k.g[i] * (k.y[i] + 1.0f); }); }
void log_grad(const Block& k) { each(k, [&](int64_t i) { return k.g[i] / k.x[i]; }); }
void log2_grad(const Block& k) { each(k, [&](int64_t i) { return k.g[i] / (k.x[i] * kLn2); }); }
void log10_grad(const Block& k) { each(k, [&](int64_t i) { return k.g[i] / (k.x[i] * kLn10); }); }
void log1p_grad(const Block& k) { each(k, [&](int64_t i) { return k.g[i] / (k.x[i] + 1.0f); }); }
void sqrt_grad(const Block& k) { each(k, [&](int64_t i) { return k.g[i] / (k.y[i] * 2.0f); }); }
void rsqrt_grad(const Block& k) {
  each(k, [&](int64_t i) { return (k.g[i] * -0.5f) * (k.y[i] * (k.y[i] * k.y[i])); });
}
void reciprocal_grad(const Block& k) { each(k, [&](int64_t i) { return (k.g[i] * -1.0f) * (k.y[i] * k.y[i]); }); }
void sin_grad(const Block& k) {
  cos(k.x, k.a, k.m);
  each(k, [&](int64_t i) { return k.g[i] * k.a[i]; });
}
void cos_grad(const Block& k) {
  sin(k.x, k.a, k.m);
  each(k, [&](int64_t i) { return k.g[i] * (k.a[i] * -1.0f); });
}
void tanh_grad(const Block& k) { each(k, [&](int64_t i) { return k.g[i] * (1.0f - k.y[i] * k.y[i]); }); }
void sigmoid_grad(const Block& k) { each(k, [&](int64_t i) { return (k.g[i] * (1.0f - k.y[i])) * k.y[i]; }); }
void logsigmoid_grad(const Block& k) {
  for (int64_t i = 0; i < k.m; ++i) k.a[i] = k.x[i] * -1.0f;
  sigmoid(k.a, k.a, k.m);
  each(k, [&](int64_t i) { return k.g[i] * k.a[i]; });
}
// a = exp(-(x * x)); the gradient is g * (+-(2/sqrt(pi)) a).
void gauss(const Block& k) {
  for (int64_t i = 0; i < k.m; ++i) k.a[i] = (k.x[i] * k.x[i]) * -1.0f;
  exp(k.a, k.a, k.m);
}
void erf_grad(const Block& k) {
  gauss(k);
  each(k, [&](int64_t i) { return k.g[i] * (kTwoSqrtPi * k.a[i]); });
}
void erfc_grad(const Block& k) {
  gauss(k);
  each(k, [&](int64_t i) { return k.g[i] * ((kTwoSqrtPi * k.a[i]) * -1.0f); });
}
// cdf = 0.5 erfc(-(x / sqrt 2)), pdf = exp((x x) (-0.5)) / sqrt(2 pi): g (cdf + x pdf).
void gelu_grad(const Block& k) {
  for (int64_t i = 0; i < k.m; ++i) {
    k.a[i] = (k.x[i] * kSqrt1_2) * -1.0f;
    k.b[i] = (k.x[i] * k.x[i]) * -0.5f;
  }
  erfc(k.a, k.a, k.m);
  exp(k.b, k.b, k.m);
  each(k, [&](int64_t i) { return k.g[i] * (0.5f * k.a[i] + k.x[i] * (kInvSqrt2Pi * k.b[i])); });
}
// th = tanh(beta (x + kappa x^3)): g (0.5 (1 + th) + ((0.5 x)(1 - th th)) (beta (1 + 3 kappa x^2))).
void gelu_tanh_grad(const Block& k) {
  for (int64_t i = 0; i < k.m; ++i) {
    const float x = k.x[i], x_sq = x * x;
    k.a[i] = kBeta * (x + kKappa * (x_sq * x));
  }
  tanh(k.a, k.a, k.m);
  each(k, [&](int64_t i) {
    const float x = k.x[i], x_sq = x * x, th = k.a[i];
    const float left = 0.5f * (1.0f + th);
    const float right = ((0.5f * x) * (1.0f - th * th)) * (kBeta * (1.0f + kKappa3 * x_sq));
    return k.g[i] * (left + right);
  });
}
// x > 20 ? g : g sigmoid(x)  (t = x * beta = x exactly for beta = 1).
void softplus_grad(const Block& k) {
  sigmoid(k.x, k.a, k.m);
  for (int64_t i = 0; i < k.m; ++i) {
    k.dx[i] = pick_raw(all_if(k.x[i] > kSoftplusThreshold), k.g[i], canonical(k.g[i] * k.a[i]));
  }
}
// s = sigmoid(x): g (s (1 + x (1 - s))).
void silu_grad(const Block& k) {
  sigmoid(k.x, k.a, k.m);
  each(k, [&](int64_t i) {
    const float s = k.a[i];
    return k.g[i] * (s * (1.0f + k.x[i] * (1.0f - s)));
  });
}
// s = sigmoid(x), th = tanh(softplus(x)): g (th + (x s)(1 - th th)).
void mish_grad(const Block& k) {
  sigmoid(k.x, k.a, k.m);
  softplus(k.x, k.b, k.m);
  tanh(k.b, k.b, k.m);
  each(k, [&](int64_t i) {
    const float th = k.b[i];
    return k.g[i] * (th + (k.x[i] * k.a[i]) * (1.0f - th * th));
  });
}
// x > 0 ? g : g (1 exp(x))  (alpha = 1: the product by 1 is exact).
void elu_grad(const Block& k) {
  exp(k.x, k.a, k.m);
  for (int64_t i = 0; i < k.m; ++i) {
    k.dx[i] = pick_raw(all_if(positive(bits_of(k.x[i]))), k.g[i], canonical(k.g[i] * k.a[i]));
  }
}
// x > 0 ? g S : g (S A exp(x)).
void selu_grad(const Block& k) {
  exp(k.x, k.a, k.m);
  for (int64_t i = 0; i < k.m; ++i) {
    k.dx[i] = pick(all_if(positive(bits_of(k.x[i]))), k.g[i] * kSeluS, k.g[i] * (kSeluSA * k.a[i]));
  }
}

// In Unary's order (elementwise.h).
const BlockFn kGradients[] = {
    exp_grad, exp2_grad, expm1_grad, log_grad, log2_grad, log10_grad, log1p_grad, sqrt_grad, rsqrt_grad,
    reciprocal_grad, sin_grad, cos_grad, tanh_grad, sigmoid_grad, logsigmoid_grad, erf_grad, erfc_grad,
    gelu_grad, gelu_tanh_grad, softplus_grad, silu_grad, mish_grad, elu_grad, selu_grad,
};
static_assert(sizeof(kGradients) / sizeof(kGradients[0]) == static_cast<size_t>(Unary::count),
              "one gradient per unary function, in Unary's order");

void grad_range(BlockFn fn, const float* g, const float* x, const float* y, float* dx, int64_t n) {
  IeeeFpGuard guard;
  float a[kBlock], b[kBlock];
  for (int64_t s = 0; s < n; s += kBlock) fn(Block{g + s, x + s, y + s, dx + s, std::min(kBlock, n - s), a, b});
}
}  // namespace

void unary_grad_threaded(Unary f, const float* g, const float* x, const float* y, float* dx, int64_t n) {
  const BlockFn fn = kGradients[static_cast<int>(f)];
  parallel_ranges(n, threads_for(n, kGrain),
                  [&](int64_t s, int64_t e) { grad_range(fn, g + s, x + s, y + s, dx + s, e - s); });
}

}  // namespace elementwise
}  // namespace repdl
