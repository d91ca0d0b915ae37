// GEMM registration table: block sizes and micro-kernel per instruction set.
// A new instruction set is one micro-kernel file plus one row here.
#include "gemm/gemm.h"
#include "gemm/pack.h"

#include <initializer_list>

namespace repdl {
namespace gemm {
namespace {

// Portable: a small tile of ordered scalar fmas.  Speed is secondary; it is
// the path that proves every other row gives the same bits.
const Config kGeneric = {"sgemm_generic_ref_4x8", 4, 8, 256, 128, 2048,
                          sgemm_generic_ref_4x8, pack_a, pack_b, 0};

// AVX2+FMA (Haswell and later, Zen): 12 of 16 ymm registers hold the 6x16
// C tile, 2 hold the B row, 1 the broadcast A element; 12 independent fma
// chains cover the 4-cycle fma latency at 2 fmas per cycle.  kc*nr*4 bytes
// = 16 KiB of B micro-panel fits in the 32 KiB L1D; mc*kc*4 = 144 KiB of A
// block sits in a 512 KiB-1 MiB L2.
// AVX-512F (Skylake-X and later, Zen 4): three tiles of 24 zmm of C
// (ukernel_avx512.cpp); B micro-panels of kc*nr*4 = 32-36 KiB stay in a
// 48 KiB L1D, A blocks of 144-240 KiB in a 1-2 MiB L2.
#if defined(__x86_64__) || defined(__i386__)
const Config kAvx2 = {"sgemm_avx2_fma_6x16", 6, 16, 256, 144, 3072,
                      sgemm_avx2_fma_6x16, pack_a_avx2_6, pack_b_avx2_16, 8};
const Config kAvx512Wide = {"sgemm_avx512_fma_8x48", 8, 48, 192, 192, 3072,
                            sgemm_avx512_fma_8x48, pack_a_avx512_8, pack_b_avx512_48, 0};
const Config kAvx512Narrow = {"sgemm_avx512_fma_6x64", 6, 64, 128, 192, 3072,
                              sgemm_avx512_fma_6x64, pack_a_avx2_6, pack_b_avx512_64, 8};
const Config kAvx512Short = {"sgemm_avx512_fma_12x32", 12, 32, 256, 240, 3072,
                             sgemm_avx512_fma_12x32, pack_a_avx512_12, pack_b_avx512_32, 4};
#else
const Config& kAvx2 = kGeneric;  // never selected: isa_supported(avx2) is false
const Config& kAvx512Wide = kGeneric;
const Config& kAvx512Narrow = kGeneric;
const Config& kAvx512Short = kGeneric;
#endif

}  // namespace

const Config& config(Isa isa, int64_t m, int64_t n) {
  switch (isa) {
    case Isa::avx512: {
      // The row that pads m and n least: full tiles of the wide and the
      // short kernel run at the same speed (about 100 GFLOP/s on one Zen 4
      // core), the narrow one at 0.96 of it (its kc of 128, set by L1, loads
      // and stores C half as often again), so its padded area counts 25/24.
      // Padding costs what it pads: n = 256, a transformer's width, fills
      // 5 1/3 wide panels, and there the short tile takes 0.88-0.91 of the
      // wide one's time.  Ties go to the narrow tile, then the wide one (a
      // little ahead of the short one at 256 x 1024 x 2048, A transposed).
      const Config* best = nullptr;
      int64_t best_cost = 0;
      for (const Config* c : {&kAvx512Narrow, &kAvx512Wide, &kAvx512Short}) {
        const int64_t area = (m + c->mr - 1) / c->mr * c->mr * ((n + c->nr - 1) / c->nr * c->nr);
        const int64_t cost = area * (c == &kAvx512Narrow ? 25 : 24);
        if (best == nullptr || cost < best_cost) best = c, best_cost = cost;
      }
      return *best;
    }
    case Isa::avx2: return kAvx2;
    default: return kGeneric;
  }
}

}  // namespace gemm
}  // namespace repdl
