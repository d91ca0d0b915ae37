// The public API (elementwise.h): instruction-set dispatch, the registry and
// the threaded entry points.
#include "common/isa.h"
#include "common/parallel.h"
#include "elementwise/cr.h"
#include "elementwise/elementwise.h"

namespace repdl {
namespace elementwise {
namespace {
constexpr int64_t kGrain = int64_t{1} << 14;  // elements per thread, at least (pow_int)
}  // namespace

// The active instruction set's row: all three compute the same float64
// values (row_*.h), so the choice changes speed only.
#define REPDL_ON_ROW(call)                                \
  switch (active_isa()) {                                 \
    case Isa::avx512: return avx512_row::call;            \
    case Isa::avx2: return avx2_row::call;                \
    default: return generic_row::call;                    \
  }

#define REPDL_DEFINE(name, S)                          \
  void name(const float* x, float* y, int64_t n) {     \
    REPDL_ON_ROW(name(x, y, n))                        \
  }
REPDL_ELEMENTWISE_UNARY(REPDL_DEFINE)
#undef REPDL_DEFINE

void pow_int(const float* x, int64_t p, float* y, int64_t n) {
  REPDL_ON_ROW(pow_int(x, p, y, n))
}

void exp_prefetching(const float* x, float* y, int64_t n, const void* a, const void* b, int64_t bytes) {
  REPDL_ON_ROW(exp_prefetching(x, y, n, a, b, bytes))
}

void silu_sigmoid(const float* x, float* y, float* s, int64_t n) {
  REPDL_ON_ROW(silu_sigmoid(x, y, s, n))
}

void eval64(Unary f, const float* x, double* y, int64_t n) {
  REPDL_ON_ROW(eval64(f, x, y, n))
}

namespace {
#define REPDL_NAME(name, S) #name,
const char* const kNames[] = {REPDL_ELEMENTWISE_UNARY(REPDL_NAME)};
#undef REPDL_NAME
#define REPDL_FN(name, S) name,
const UnaryFn kFns[] = {REPDL_ELEMENTWISE_UNARY(REPDL_FN)};
#undef REPDL_FN
static_assert(sizeof(kFns) / sizeof(kFns[0]) == static_cast<size_t>(Unary::count),
              "cr.h's list and elementwise.h's Unary must name the same functions in the same order");
}  // namespace

const char* unary_name(Unary f) { return kNames[static_cast<int>(f)]; }
UnaryFn unary(Unary f) { return kFns[static_cast<int>(f)]; }

// A share of 4K elements is worth a second thread for every function but
// the two that are one IEEE instruction each (about 0.2 ns an element on
// the AVX-512 row): at 2 threads, kernel time new / old with a grain of 4K
// in place of 16K (one process, Zen 4): 8K inputs expm1 0.71, logsigmoid
// 0.59, gelu 0.59, log1p 0.63, log 0.65, sigmoid 0.68-0.73, exp 0.85-0.89
// (0.42 ns an element: a share of 1.7 us still gains), rsqrt 0.77-0.79;
// 16K expm1 0.50, gelu 0.60, silu 0.64, exp2 0.70; but reciprocal at 8K
// 1.84, and sqrt at 8K and 16K within noise of 1.  (Torch takes a second
// thread at 8K for the costlier ones: expm1, log1p, sin, cos and logsigmoid
// ran 1.3-1.6x faster on two.)  The slower rows take longer per element,
// so there the grains err towards fewer threads.
int64_t grain(Unary f) {
  if (f == Unary::sqrt || f == Unary::reciprocal) return int64_t{1} << 14;
  return int64_t{1} << 12;
}

void unary_threaded(Unary f, const float* x, float* y, int64_t n) {
  const UnaryFn fn = unary(f);
  parallel_ranges(n, threads_for(n, grain(f)), [&](int64_t b, int64_t e) { fn(x + b, y + b, e - b); });
}
void silu_sigmoid_threaded(const float* x, float* y, float* s, int64_t n) {
  parallel_ranges(n, threads_for(n, grain(Unary::silu)),
                  [&](int64_t b, int64_t e) { silu_sigmoid(x + b, y + b, s + b, e - b); });
}
void pow_int_threaded(const float* x, int64_t p, float* y, int64_t n) {
  parallel_ranges(n, threads_for(n, kGrain), [&](int64_t i, int64_t e) { pow_int(x + i, p, y + i, e - i); });
}

}  // namespace elementwise
}  // namespace repdl
