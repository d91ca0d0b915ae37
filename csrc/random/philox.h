// RepDL's random numbers: the Philox4x32-10 counter-based generator
// (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as 1, 2, 3",
// SC'11) and the transforms that turn its 32-bit words into samples.
//
// The stream is a pure function of (seed, offset): see docs/CONTRACT.md,
// "Random numbers".  The key is the seed's two 32-bit halves; block t of a
// draw at `offset` is Philox(key, counter = (offset + t mod 2^64, stream)),
// four 32-bit words.  Word m of a draw is word m % 4 of block m / 4.
// Threads and SIMD lanes split blocks (output elements) only, so the values
// never depend on either.
#pragma once

#include <cstdint>

namespace repdl {
namespace random {

constexpr uint32_t kM0 = 0xD2511F53u;  // Philox4x32 multipliers
constexpr uint32_t kM1 = 0xCD9E8D57u;
constexpr uint32_t kW0 = 0x9E3779B9u;  // Weyl key increments (golden ratio, sqrt(3) - 1)
constexpr uint32_t kW1 = 0xBB67AE85u;

struct Key {
  uint32_t k0, k1;
};

inline Key key_of_seed(uint64_t seed) {
  return Key{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
}

// One Philox4x32-10 block: ten rounds, the key bumped between rounds.
inline void philox4x32_10(const uint32_t ctr[4], Key key, uint32_t out[4]) {
  uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
  uint32_t k0 = key.k0, k1 = key.k1;
  for (int r = 0; r < 10; ++r) {
    if (r > 0) {
      k0 += kW0;
      k1 += kW1;
    }
    const uint64_t p0 = static_cast<uint64_t>(kM0) * c0;
    const uint64_t p1 = static_cast<uint64_t>(kM1) * c2;
    const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1 ^ k0;
    const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3 ^ k1;
    c1 = static_cast<uint32_t>(p1);
    c3 = static_cast<uint32_t>(p0);
    c0 = n0;
    c2 = n2;
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}

// A draw's position: the generator's key and the draw's first block.
struct Stream {
  Key key;
  uint64_t offset;
};

// ---- Whole draws (threaded, ISA-dispatched); n = elements -----------------
// Each writes a dense row-major output and consumes ceil(words / 4) blocks.

// The raw stream: n words, word m = word m % 4 of block m / 4.
void words(Stream s, int64_t n, uint32_t* out);
// Blocks (base + t mod 2^64, stream), t < nblocks, on the active ISA row
// (single thread): for known-answer tests of every row.
void blocks(uint64_t seed, uint64_t base, uint64_t stream, int64_t nblocks, uint32_t* out);
// fma32(span, u, a) with u = (w >> 8) * 2^-24; plain: u itself.
void uniform(Stream s, int64_t n, bool plain, float a, float span, float* out);
// Box-Muller pairs; affine: fma32(stdv, z, mean).
void normal(Stream s, int64_t n, bool affine, float mean, float stdv, float* out);
// Box-Muller of caller-given words (2 per pair): the transform alone, for tests.
void normal_from_words(const uint32_t* w, int64_t n, float* out);
// low + floor(U * range / 2^64), U = w[2i] * 2^32 + w[2i+1]; range >= 1.
void randint(Stream s, int64_t n, int64_t low, uint64_t range, int64_t* out64, int32_t* out32);
// (U xor 2^63) as int64: unsigned order of U as signed order, for randperm.
void perm_keys(Stream s, int64_t n, int64_t* out);
// The permutation listing i = 0..n-1 sorted by (U_i, i): randperm.
void randperm(Stream s, int64_t n, int64_t* out64, int32_t* out32);
// 1.0f if (w >> 8) < threshold else 0.0f.
void bernoulli_scalar(Stream s, int64_t n, uint32_t threshold, float* out);
// 1.0f if u < p[i] else 0.0f.
void bernoulli_tensor(Stream s, int64_t n, const float* p, float* out);
// keep = (w >> 8) >= threshold;  y = x * (keep ? scale : 0.0f), NaN canonical.
void dropout(Stream s, int64_t n, uint32_t threshold, float scale, const float* x, float* y);
// keep mask as bytes 0/1.
void keep_mask(Stream s, int64_t n, uint32_t threshold, uint8_t* out);
// Rejection: element i tries blocks (offset + i, j), j = 0, 1, ...
void trunc_normal(Stream s, int64_t n, float mean, float stdv, float a, float b, float* out);

constexpr uint64_t kTruncMaxAttempts = 65536;

}  // namespace random
}  // namespace repdl
