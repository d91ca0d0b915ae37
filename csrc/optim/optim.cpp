// The entry points: split the elements over threads and hand each thread's
// contiguous run to the instruction set's loops.  An element's update never
// depends on another element, so the split cannot change a bit.
#include "optim/optim.h"

#include "common/isa.h"
#include "common/parallel.h"

namespace repdl {
namespace optim {
namespace {

constexpr int64_t kGrain = int64_t{1} << 15;  // elements per thread, at least

const Rows& rows() { return avx2_active() ? kAvx2Rows : kGenericRows; }

float* at(float* base, int64_t offset) { return base == nullptr ? nullptr : base + offset; }

template <class Body>
void split(int64_t n, const Body& body) {
  parallel_ranges(n, threads_for(n, kGrain), body);
}

}  // namespace

void sgd(const Sgd& s, float* p, const float* grad, float* buf, int64_t n) {
  const Rows& r = rows();
  split(n, [&](int64_t b, int64_t e) { r.sgd(s, p + b, grad + b, at(buf, b), e - b); });
}

void adam(const Adam& s, float* p, const float* grad, float* m, float* v, float* vmax, int64_t n) {
  const Rows& r = rows();
  split(n, [&](int64_t b, int64_t e) { r.adam(s, p + b, grad + b, m + b, v + b, at(vmax, b), e - b); });
}

void rmsprop(const Rmsprop& s, float* p, const float* grad, float* v, float* gavg, float* buf, int64_t n) {
  const Rows& r = rows();
  split(n, [&](int64_t b, int64_t e) { r.rmsprop(s, p + b, grad + b, v + b, at(gavg, b), at(buf, b), e - b); });
}

void adagrad(const Adagrad& s, float* p, const float* grad, float* sum, int64_t n) {
  const Rows& r = rows();
  split(n, [&](int64_t b, int64_t e) { r.adagrad(s, p + b, grad + b, sum + b, e - b); });
}

}  // namespace optim
}  // namespace repdl
