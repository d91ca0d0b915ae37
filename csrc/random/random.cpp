// Whole draws: split a draw's blocks over threads, pick the ISA row, and the
// transforms that are integer work (randint, keys, masks), which need no row.
//
// Threads take contiguous ranges of blocks; a block's words, and so its
// elements, depend only on (key, offset + block index).  Thread count and
// ISA change speed only.
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "common/isa.h"
#include "common/nan.h"
#include "common/parallel.h"
#include "random/philox.h"
#include "random/row.h"

namespace repdl {
namespace random {
namespace {

constexpr int64_t kChunk = 256;  // blocks per chunk in the loops below

const Row& active_row() { return avx2_active() ? avx2::row() : generic::row(); }

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// body(j0, j1) over [0, nblocks) on up to enough threads for `grain` blocks each.
template <class Body>
void over_blocks(int64_t nblocks, int64_t grain, const Body& body) {
  parallel_ranges(nblocks, threads_for(nblocks, grain), body);
}

// Words of blocks [j0, j1) in chunks: f(first_block, nblocks, words).
template <class F>
void chunks(const Row& row, Stream s, int64_t j0, int64_t j1, const F& f) {
  alignas(64) uint32_t w[4 * kChunk];
  for (int64_t j = j0; j < j1; j += kChunk) {
    const int64_t nb = std::min(kChunk, j1 - j);
    row.blocks(s.key, s.offset + static_cast<uint64_t>(j), 0, nb, w);
    f(j, nb, w);
  }
}

inline uint64_t mulhi64(uint64_t a, uint64_t b) {
#if defined(__SIZEOF_INT128__)
  return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#else
  const uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
  const uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
  return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
#endif
}

inline uint64_t word_pair(const uint32_t* w) { return (static_cast<uint64_t>(w[0]) << 32) | w[1]; }

}  // namespace

void words(Stream s, int64_t n, uint32_t* out) {
  const Row& row = active_row();
  over_blocks(ceil_div(n, 4), 1 << 14, [&](int64_t j0, int64_t j1) {
    chunks(row, s, j0, j1, [&](int64_t j, int64_t nb, const uint32_t* w) {
      const int64_t e0 = 4 * j, e1 = std::min(n, 4 * (j + nb));
      std::copy(w, w + (e1 - e0), out + e0);
    });
  });
}

void blocks(uint64_t seed, uint64_t base, uint64_t stream, int64_t nblocks, uint32_t* out) {
  active_row().blocks(key_of_seed(seed), base, stream, nblocks, out);
}

void uniform(Stream s, int64_t n, bool plain, float a, float span, float* out) {
  const Row& row = active_row();
  over_blocks(ceil_div(n, 4), 1 << 14, [&](int64_t j0, int64_t j1) { row.uniform(s, j0, j1, n, plain, a, span, out); });
}

void normal(Stream s, int64_t n, bool affine, float mean, float stdv, float* out) {
  const Row& row = active_row();
  over_blocks(ceil_div(n, 4), 1 << 11, [&](int64_t j0, int64_t j1) { row.normal(s, j0, j1, n, affine, mean, stdv, out); });
}

void normal_from_words(const uint32_t* w, int64_t n, float* out) {
  const Row& row = active_row();
  const int64_t pairs = ceil_div(n, 2);
  // Pairs in groups of 512 over threads; an odd n's last z1 goes to scratch.
  over_blocks(ceil_div(pairs, 512), 4, [&](int64_t g0, int64_t g1) {
    alignas(64) float z[1024];
    for (int64_t g = g0; g < g1; ++g) {
      const int64_t p0 = 512 * g, np = std::min<int64_t>(512, pairs - p0);
      row.box_muller(w + 2 * p0, np, z);
      std::copy(z, z + std::min<int64_t>(2 * np, n - 2 * p0), out + 2 * p0);
    }
  });
}

void randint(Stream s, int64_t n, int64_t low, uint64_t range, int64_t* out64, int32_t* out32) {
  const Row& row = active_row();
  over_blocks(ceil_div(n, 2), 1 << 13, [&](int64_t j0, int64_t j1) {
    chunks(row, s, j0, j1, [&](int64_t j, int64_t nb, const uint32_t* w) {
      const int64_t e0 = 2 * j, e1 = std::min(n, 2 * (j + nb));
      for (int64_t i = e0; i < e1; ++i) {
        const uint64_t v = static_cast<uint64_t>(low) + mulhi64(word_pair(w + 2 * (i - e0)), range);
        if (out64 != nullptr) out64[i] = static_cast<int64_t>(v);
        else out32[i] = static_cast<int32_t>(static_cast<int64_t>(v));
      }
    });
  });
}

void perm_keys(Stream s, int64_t n, int64_t* out) {
  const Row& row = active_row();
  over_blocks(ceil_div(n, 2), 1 << 13, [&](int64_t j0, int64_t j1) {
    chunks(row, s, j0, j1, [&](int64_t j, int64_t nb, const uint32_t* w) {
      const int64_t e0 = 2 * j, e1 = std::min(n, 2 * (j + nb));
      for (int64_t i = e0; i < e1; ++i)
        out[i] = static_cast<int64_t>(word_pair(w + 2 * (i - e0)) ^ (uint64_t{1} << 63));
    });
  });
}

void randperm(Stream s, int64_t n, int64_t* out64, int32_t* out32) {
  if (n <= 0) return;
  const Row& row = active_row();
  std::vector<uint64_t> key(static_cast<size_t>(n));
  over_blocks(ceil_div(n, 2), 1 << 13, [&](int64_t j0, int64_t j1) {
    chunks(row, s, j0, j1, [&](int64_t j, int64_t nb, const uint32_t* w) {
      const int64_t e0 = 2 * j, e1 = std::min(n, 2 * (j + nb));
      for (int64_t i = e0; i < e1; ++i) key[i] = word_pair(w + 2 * (i - e0));
    });
  });
  // Any correct sort of the pairs (U_i, i) gives the one permutation.  The
  // keys are uniform, so bucketing by their top b bits (about four keys a
  // bucket) and sorting each small bucket is a fast one.
  int b = 0;
  while (b < 24 && (int64_t{4} << b) <= n) ++b;
  const int64_t nbuckets = int64_t{1} << b;
  const auto bucket = [b](uint64_t k) { return b == 0 ? int64_t{0} : static_cast<int64_t>(k >> (64 - b)); };
  std::vector<int64_t> start(static_cast<size_t>(nbuckets) + 1, 0);
  for (int64_t i = 0; i < n; ++i) ++start[bucket(key[i]) + 1];
  for (int64_t k = 0; k < nbuckets; ++k) start[k + 1] += start[k];
  std::vector<std::pair<uint64_t, int64_t>> items(static_cast<size_t>(n));
  {
    std::vector<int64_t> fill(start.begin(), start.end() - 1);
    for (int64_t i = 0; i < n; ++i) items[fill[bucket(key[i])]++] = {key[i], i};
  }
  over_blocks(nbuckets, 1 << 10, [&](int64_t k0, int64_t k1) {
    for (int64_t k = k0; k < k1; ++k) std::sort(items.begin() + start[k], items.begin() + start[k + 1]);
    for (int64_t i = start[k0]; i < start[k1]; ++i) {
      if (out64 != nullptr) out64[i] = items[i].second;
      else out32[i] = static_cast<int32_t>(items[i].second);
    }
  });
}

void bernoulli_scalar(Stream s, int64_t n, uint32_t threshold, float* out) {
  const Row& row = active_row();
  over_blocks(ceil_div(n, 4), 1 << 14, [&](int64_t j0, int64_t j1) {
    chunks(row, s, j0, j1, [&](int64_t j, int64_t nb, const uint32_t* w) {
      const int64_t e0 = 4 * j, e1 = std::min(n, 4 * (j + nb));
      for (int64_t i = e0; i < e1; ++i) out[i] = (w[i - e0] >> 8) < threshold ? 1.0f : 0.0f;
    });
  });
}

void bernoulli_tensor(Stream s, int64_t n, const float* p, float* out) {
  const Row& row = active_row();
  over_blocks(ceil_div(n, 4), 1 << 14, [&](int64_t j0, int64_t j1) {
    chunks(row, s, j0, j1, [&](int64_t j, int64_t nb, const uint32_t* w) {
      const int64_t e0 = 4 * j, e1 = std::min(n, 4 * (j + nb));
      for (int64_t i = e0; i < e1; ++i)
        out[i] = static_cast<float>(w[i - e0] >> 8) * 0x1p-24f < p[i] ? 1.0f : 0.0f;
    });
  });
}

void dropout(Stream s, int64_t n, uint32_t threshold, float scale, const float* x, float* y) {
  const Row& row = active_row();
  over_blocks(ceil_div(n, 4), 1 << 14, [&](int64_t j0, int64_t j1) {
    chunks(row, s, j0, j1, [&](int64_t j, int64_t nb, const uint32_t* w) {
      const int64_t e0 = 4 * j, e1 = std::min(n, 4 * (j + nb));
      for (int64_t i = e0; i < e1; ++i)
        y[i] = canonical_nan(x[i] * ((w[i - e0] >> 8) >= threshold ? scale : 0.0f));
    });
  });
}

void keep_mask(Stream s, int64_t n, uint32_t threshold, uint8_t* out) {
  const Row& row = active_row();
  over_blocks(ceil_div(n, 4), 1 << 14, [&](int64_t j0, int64_t j1) {
    chunks(row, s, j0, j1, [&](int64_t j, int64_t nb, const uint32_t* w) {
      const int64_t e0 = 4 * j, e1 = std::min(n, 4 * (j + nb));
      for (int64_t i = e0; i < e1; ++i) out[i] = (w[i - e0] >> 8) >= threshold ? 1 : 0;
    });
  });
}

void trunc_normal(Stream s, int64_t n, float mean, float stdv, float a, float b, float* out) {
  const Row& row = active_row();
  // One block per element: attempt j of element i is block (offset + i, j),
  // its words 0 and 1 a Box-Muller pair whose z0 is tried.
  over_blocks(n, 1 << 12, [&](int64_t i0, int64_t i1) {
    alignas(64) uint32_t pairs[2 * kChunk];
    alignas(64) float z[2 * kChunk];
    chunks(row, s, i0, i1, [&](int64_t j, int64_t nb, const uint32_t* w) {
      for (int64_t t = 0; t < nb; ++t) {
        pairs[2 * t] = w[4 * t];
        pairs[2 * t + 1] = w[4 * t + 1];
      }
      row.box_muller(pairs, nb, z);
      for (int64_t t = 0; t < nb; ++t) {
        float y = std::fma(stdv, z[2 * t], mean);
        uint64_t attempt = 1;
        while (!(a <= y && y <= b)) {
          if (attempt == kTruncMaxAttempts) {
            y = std::min(std::max(mean, a), b);
            break;
          }
          uint32_t blk[4];
          row.blocks(s.key, s.offset + static_cast<uint64_t>(j + t), attempt, 1, blk);
          float zz[2];
          row.box_muller(blk, 1, zz);
          y = std::fma(stdv, zz[0], mean);
          ++attempt;
        }
        out[j + t] = y;
      }
    });
  });
}

}  // namespace random
}  // namespace repdl
