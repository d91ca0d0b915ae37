// The loops around the micro-kernel, threads, and batching.  Nothing here
// depends on the instruction set: the Config row supplies tile sizes and the
// micro-kernel.
#include "gemm/gemm.h"

#include <algorithm>
#include <cstring>

#include "common/parallel.h"
#include "common/scratch.h"
#include "gemm/pack.h"
#include "reduce/reduce.h"

namespace repdl {
namespace gemm {
namespace {

constexpr int kMaxTile = 16 * 32;  // floats; bounds mr*nr of every Config row

// The threads working on one GEMM; a team of one skips all barriers, so the
// same driver serves a thread that owns whole matrices of a batch.  A team
// whose `shared_b` is false never synchronises: each thread packs the B
// panels it multiplies into its own buffer.
struct Team {
  int size, rank;
  bool shared_b;
  void barrier() const {
    if (size > 1 && shared_b) {
#pragma omp barrier
    }
  }
};

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Where a macro-kernel finds B's micro-panels: packed (panel q at p + q *
// kc * nr, rows nr apart), or in B itself (panel q at p + q * nr, rows ldb
// apart) with a partial last panel packed at `edge`.
struct Panels {
  const float* p;
  int64_t stride, ldb;
  const float* edge;
};

// Packed A block (mc x kc) times B micro-panels [q0, q1), updating the C
// block whose top-left element is `c`.  Edge tiles run the same kernel on a
// staging tile that first receives the current C values, so partial tiles
// continue their chains exactly as full ones do.
void macro_kernel(const Config& cfg, int64_t mc, int64_t nc, int64_t kc, const float* apack, const Panels& b,
                  int64_t q0, int64_t q1, float* c, int64_t ldc, bool first, bool last) {
  const int mr = cfg.mr, nr = cfg.nr;
  alignas(64) float tile[kMaxTile];
  for (int64_t q = q0; q < q1; ++q) {
    const int64_t j0 = q * nr;
    const int cols = static_cast<int>(std::min<int64_t>(nr, nc - j0));
    const bool packed_edge = cols < nr && b.edge != nullptr;
    const float* bp = packed_edge ? b.edge : b.p + q * b.stride;
    const int64_t ldb = packed_edge ? nr : b.ldb;
    for (int64_t i0 = 0; i0 < mc; i0 += mr) {
      const int rows = static_cast<int>(std::min<int64_t>(mr, mc - i0));
      const float* ap = apack + (i0 / mr) * kc * mr;
      float* cp = c + i0 * ldc + j0;
      if (rows == mr && cols == nr) {
        cfg.kernel(kc, ap, bp, ldb, cp, ldc, first, last);
        continue;
      }
      if (!first)
        for (int i = 0; i < rows; ++i) std::memcpy(tile + i * nr, cp + i * ldc, cols * sizeof(float));
      cfg.kernel(kc, ap, bp, ldb, tile, nr, first, last);
      for (int i = 0; i < rows; ++i) std::memcpy(cp + i * ldc, tile + i * nr, cols * sizeof(float));
    }
  }
}

// Products with at most this many row panels read B's rows in place when
// they are contiguous: packing B, which costs about as much as reading it
// twice, only pays when many row panels reuse the packed copy.  Up to eight
// (m <= 64 on the 8 x 48 tile) read in place on Zen 4, new / old time with
// two: 32 x 4096 x 4096 0.81, 32 x 768 x 3072 0.83, 40 x 3072 x 768 0.80,
// 64 x 4096 x 4096 0.88, 56 x 2048 x 2048 0.86 (1 thread; 2 threads
// 0.80-0.91); a convolution of 32 output channels 0.93-0.94 (forward and
// input gradient).  Sixteen measured no better (0.93-0.99 one way,
// 1.00-1.10 the other, at m = 80 to 128).
constexpr int64_t kRowPanelsForDirectB = 8;

// A row split of C makes every thread read all of B, a column split all of
// A.  So columns are split when B is the larger operand and too large for a
// core's L2 (1-2 MB on the machines measured), where reading it once per
// thread costs most.  Two threads of a Xeon, columns / rows time: 64-128 x
// 4096 x 4096 0.78-0.85, 256 x 1024 x 4096 0.91, 512 x 768 x 3072 0.95, a
// transformer's weight gradient 256 x 2048 x 1024 0.96, 1024 x 1024 x 2048
// 1.00; with B in L2, 256 x 256 x 512 1.10 (its eleven panels split 6 : 5).
constexpr int64_t kColumnSplitFloats = int64_t{1} << 20;

// One GEMM by `team`.  Threads split rows of C in whole micro-panels; when C
// has too few rows for that, or B is the operand to split (above), each
// thread packs all of A and takes a share of the B micro-panels instead.  B
// panels are packed cooperatively into the shared `bpack`, or, in a team
// without shared_b, by each thread for itself; or not at all (see
// kRowPanelsForDirectB).
void gemm_team(const Config& cfg, const Problem& p, const Team& team, float* bpack) {
  const int mr = cfg.mr, nr = cfg.nr;
  const bool split_b = p.n > p.m && p.k * p.n >= kColumnSplitFloats;
  const bool split_rows = team.size == 1 || (p.m >= int64_t{team.size} * mr * 4 && !split_b);
  const bool direct_b = p.b.cs == 1 && ceil_div(p.m, mr) <= kRowPanelsForDirectB;
  int64_t m0 = 0, m1 = p.m;
  if (split_rows && team.size > 1) {
    int64_t b, e;
    split_range(ceil_div(p.m, mr), team.size, team.rank, &b, &e);
    m0 = b * mr;
    m1 = std::min(p.m, e * mr);
  }
  float* apack = thread_scratch(static_cast<size_t>(cfg.mc * cfg.kc + cfg.pack_slack), Scratch::gemm_a);
  float* edge = direct_b ? thread_scratch(static_cast<size_t>(cfg.kc * nr + cfg.pack_slack), Scratch::gemm_edge)
                         : nullptr;
  for (int64_t jc = 0; jc < p.n; jc += cfg.nc) {
    const int64_t nc = std::min(cfg.nc, p.n - jc);
    const int64_t panels = ceil_div(nc, nr);
    for (int64_t pc = 0; pc < p.k; pc += cfg.kc) {
      const int64_t kc = std::min(cfg.kc, p.k - pc);
      const bool first = pc == 0 && !p.accumulate, last = pc + kc == p.k;
      int64_t q0, q1;
      split_range(panels, team.size, team.rank, &q0, &q1);
      const Operand b_block{p.b.p + pc * p.b.rs + jc * p.b.cs, p.b.rs, p.b.cs};
      if (split_rows) {
        q0 = 0;
        q1 = panels;
      }
      Panels b{bpack, kc * nr, nr, nullptr};
      if (direct_b) {
        b = {b_block.p, nr, b_block.rs, nc % nr ? edge : nullptr};
        if (nc % nr && q1 == panels) {
          const int64_t j = (panels - 1) * nr;
          cfg.pack_b({b_block.p + j, b_block.rs, 1}, kc, nc - j, nr, 0, 1, edge);
        }
      } else {
        if (team.shared_b) {
          int64_t s0, s1;
          split_range(panels, team.size, team.rank, &s0, &s1);
          cfg.pack_b(b_block, kc, nc, nr, s0, s1, bpack);
        }
        team.barrier();
        if (!team.shared_b) cfg.pack_b(b_block, kc, nc, nr, q0, q1, bpack);
      }
      for (int64_t ic = m0; ic < m1; ic += cfg.mc) {
        const int64_t mc = std::min(cfg.mc, m1 - ic);
        cfg.pack_a({p.a.p + ic * p.a.rs + pc * p.a.cs, p.a.rs, p.a.cs}, mc, kc, mr, apack);
        macro_kernel(cfg, mc, nc, kc, apack, b, q0, q1, p.c + ic * p.ldc + jc, p.ldc, first, last);
      }
      if (!direct_b) team.barrier();  // bpack is overwritten next
    }
  }
}

// Element offsets of A and B for batch entry t (row-major multi-index).
void batch_offsets(const Batch& batch, int64_t t, int64_t* oa, int64_t* ob) {
  *oa = *ob = 0;
  for (int d = batch.ndim - 1; d >= 0; --d) {
    const int64_t i = t % batch.sizes[d];
    t /= batch.sizes[d];
    *oa += i * batch.a_strides[d];
    *ob += i * batch.b_strides[d];
  }
}

Problem entry(const Problem& p, const Batch& batch, int64_t t) {
  int64_t oa, ob;
  batch_offsets(batch, t, &oa, &ob);
  Problem q = p;
  q.a.p += oa;
  q.b.p += ob;
  q.c += t * p.m * p.ldc;
  return q;
}

// Below this many flops a whole GEMM stays on one thread.
constexpr int64_t kFlopsPerThread = int64_t{1} << 21;
// A batch entry below this many flops is given whole to one thread when the
// batch has enough entries to keep every thread busy; when it is not, its
// team packs B privately.  At this size two barriers per K block and the
// cache lines of a shared B buffer moving between cores cost more than
// packing B once per thread (100x120x400 with 2 threads: 76 us shared,
// 65 us private; torch.mm 61 us).
constexpr int64_t kSmallGemmFlops = int64_t{1} << 25;
// Teams up to this size pack B privately at every size too.  Each thread
// of a row split reads every panel of the B block, so a shared copy sends
// the other threads' share of it between cores on every K block; packing
// it again from B costs less (two threads of a Xeon with private 2 MB L2s,
// private / shared time: 256^3 0.74, m = 100-256 with k and n of 1024-4096
// 0.89-0.92, 512^3 0.94, from 1024^3 up 0.96-1.00, never above 1.00).
// Larger teams share one copy, packed cooperatively: their private copies,
// kc x nc floats each, would crowd the L3 they share.
constexpr int kPrivateBThreads = 4;

}  // namespace

void run(const Problem& p, const Batch& batch) {
  int64_t nb = 1;
  for (int d = 0; d < batch.ndim; ++d) nb *= batch.sizes[d];
  if (nb == 0 || p.m == 0 || p.n == 0) return;
  if (p.k == 0) {  // empty chains: every element is +0.0 (or stays as it is)
    if (p.accumulate) return;
    for (int64_t t = 0; t < nb; ++t)
      for (int64_t i = 0; i < p.m; ++i) std::fill_n(p.c + t * p.m * p.ldc + i * p.ldc, p.n, 0.0f);
    return;
  }
  if (p.m == 1 || (p.n == 1 && p.ldc == 1)) {
    // One row or one column of C: each element is an fma chain against a
    // single vector, so packing (which only pays for reuse) is skipped and
    // the operand matrix is streamed once by the reduction kernels.
    for (int64_t t = 0; t < nb; ++t) {
      const Problem q = entry(p, batch, t);
      if (q.m == 1)
        reduce::dot({q.b.p, 1, 0, q.n, q.b.cs, q.k, q.b.rs}, q.a.p, q.a.cs, q.c, p.accumulate);
      else
        reduce::dot({q.a.p, 1, 0, q.m, q.a.rs, q.k, q.a.cs}, q.b.p, q.b.rs, q.c, p.accumulate);
    }
    return;
  }
  const Config& cfg = config(active_isa(), p.m, p.n);
  const int64_t flops = 2 * p.m * p.n * p.k;
  const int threads = threads_for(flops * nb, kFlopsPerThread);
  const size_t bpack_floats = static_cast<size_t>(cfg.kc * ceil_div(std::min(cfg.nc, p.n), cfg.nr) * cfg.nr);

  if (threads > 1 && nb >= threads && flops < kSmallGemmFlops) {
    parallel_ranges(nb, threads, [&](int64_t t0, int64_t t1) {
      float* bpack = thread_scratch(bpack_floats, Scratch::gemm_b);
      for (int64_t t = t0; t < t1; ++t) gemm_team(cfg, entry(p, batch, t), Team{1, 0, false}, bpack);
    });
    return;
  }
  float* bpack = thread_scratch(bpack_floats, Scratch::gemm_b);
  if (threads == 1) {
    for (int64_t t = 0; t < nb; ++t) gemm_team(cfg, entry(p, batch, t), Team{1, 0, false}, bpack);
    return;
  }
  const bool shared_b = flops >= kSmallGemmFlops && threads > kPrivateBThreads;
#pragma omp parallel num_threads(threads)
  {
    IeeeFpGuard guard;
    const Team team{omp_get_num_threads(), omp_get_thread_num(), shared_b};
    float* own = shared_b ? bpack : thread_scratch(bpack_floats, Scratch::gemm_b);
    for (int64_t t = 0; t < nb; ++t) gemm_team(cfg, entry(p, batch, t), team, own);
  }
}

}  // namespace gemm
}  // namespace repdl
