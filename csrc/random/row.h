// One row of random kernels per instruction set (generic, avx2).  A row
// works on a range [j0, j1) of a draw's blocks and writes the elements those
// blocks define (n = the draw's element count, so the last block may be
// partial).  Rows differ in speed only: every row computes the same bits.
#pragma once

#include <cstdint>

#include "random/philox.h"

namespace repdl {
namespace random {

struct Row {
  // 4 * nblocks words of blocks (base + t mod 2^64, stream), t = 0..nblocks-1.
  void (*blocks)(Key key, uint64_t base, uint64_t stream, int64_t nblocks, uint32_t* out);
  void (*uniform)(Stream s, int64_t j0, int64_t j1, int64_t n, bool plain, float a, float span, float* out);
  void (*normal)(Stream s, int64_t j0, int64_t j1, int64_t n, bool affine, float mean, float stdv, float* out);
  // z[2k], z[2k+1] from words w[2k], w[2k+1], k < npairs.
  void (*box_muller)(const uint32_t* w, int64_t npairs, float* z);
};

namespace generic { const Row& row(); }
namespace avx2 { const Row& row(); }

// Elements of block range [j0, j1) for `per_block` elements per block.
inline void block_elements(int64_t j0, int64_t j1, int64_t n, int64_t per_block, int64_t* e0, int64_t* e1) {
  *e0 = j0 * per_block;
  *e1 = j1 * per_block < n ? j1 * per_block : n;
}

}  // namespace random
}  // namespace repdl
