// Threads take whole groups of lines; the ISA's row does the lines.
#include "softmax/softmax.h"

#include <algorithm>

#include "common/parallel.h"
#include "common/prefetch.h"

namespace repdl {
namespace softmax {
namespace {
const LineKernels& active_lines() {
#if defined(__x86_64__) || defined(__i386__)
  switch (active_isa()) {
    case Isa::avx512: return kAvx512Lines;
    case Isa::avx2: return kAvx2Lines;
    default: break;
  }
#endif
  return kGenericLines;
}

// Lines per group: group_lines(R), or fewer where that would leave threads
// without a group (a few long lines: (4, 50000) on 2 threads took 1.12x the
// time in one group of four).
int group_for(int64_t P, int64_t R, int threads) {
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(group_lines(R), (P + threads - 1) / threads)));
}
}  // namespace

void run(const reduce::View& v, Kind kind, float* y, const Scores* scores) {
  const int64_t P = v.P1 * v.P0;
  if (P == 0 || v.R == 0) return;
  const auto group_kernel = active_lines().process_group;
  // ~20 flops per element (the exp dominates).
  const int threads = threads_for(P * v.R * 20, int64_t{1} << 18);
  const int group = group_for(P, v.R, threads);
  const int64_t groups = (P + group - 1) / group;
  const bool ahead = from_memory(P * v.R, threads);  // lines.inc's next_span
  parallel_ranges(groups, threads, [&](int64_t gb, int64_t ge) {
    for (int64_t q = gb; q < ge; ++q) {
      const int64_t p0 = q * group;
      group_kernel(v, kind, scores, y, p0, static_cast<int>(std::min<int64_t>(group, P - p0)), ahead);
    }
  });
}

void backward(const reduce::View& v, bool log, const float* g, float* dx, const Scores* scores) {
  const int64_t P = v.P1 * v.P0;
  if (P == 0 || v.R == 0) return;
  const auto group_kernel = active_lines().backward_group;
  const int threads = threads_for(P * v.R * (log ? 20 : 4), int64_t{1} << 18);
  int group = group_for(P, v.R, threads);
  // softmax's chains (sumprod_rows) run no more lines side by side than
  // the rows kernel says; more in a group gain them nothing, and the group's
  // second pass then reads y and g from L2.  Lines of 512 and 1024 floats
  // crowd L1 sets and run eight at a time: in groups of eight (at 512 their
  // y and g are 32 KB) the kernel took 0.89 of its time at 1x256x512, 0.91
  // at 16x512x512 and 0.94 at 32x1024 (1 thread, Sapphire Rapids), where
  // at 384, 768 and 1000 floats a line, sixteen side by side, eight took
  // 1.02-1.13.  Short lines' larger groups (softmax.h) are not cut to the
  // chains' sixteen: their y and g stay in L1 (lines of 16, 128 a group:
  // 0.81 of the time in groups of sixteen).
  if (!log) {
    const int side = reduce::kernels(active_isa()).sumprod_rows_side_by_side(v.R);
    if (side < kWideGroup) group = std::min(group, side);
  }
  const int64_t groups = (P + group - 1) / group;
  const bool ahead = from_memory(P * v.R, threads);  // lines.inc's next_span
  parallel_ranges(groups, threads, [&](int64_t gb, int64_t ge) {
    for (int64_t q = gb; q < ge; ++q) {
      const int64_t p0 = q * group;
      group_kernel(v, log, scores, g, dx, p0, static_cast<int>(std::min<int64_t>(group, P - p0)), ahead);
    }
  });
}

void onehot_backward(const float* x, const float* stats, int64_t P, int64_t R, const int64_t* index,
                     const float* value, float* dx) {
  if (P == 0 || R == 0) return;
  const auto rows_kernel = active_lines().onehot_backward_rows;
  // Groups of rows whose exponentials stay in L1 or L2 until the subtraction rewrites them.
  const int group = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(kGroup, kGroupMaxLine / R)));
  const int64_t groups = (P + group - 1) / group;
  const int threads = threads_for(P * R * 20, int64_t{1} << 18);
  const bool ahead = from_memory(P * R, threads);
  parallel_ranges(groups, threads, [&](int64_t gb, int64_t ge) {
    for (int64_t q = gb; q < ge; ++q) {
      const int64_t p0 = q * group;
      rows_kernel(x, stats, P, R, index, value, dx, p0, static_cast<int>(std::min<int64_t>(group, P - p0)), ahead);
    }
  });
}

}  // namespace softmax
}  // namespace repdl
