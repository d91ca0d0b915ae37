// GEMM registration table: block sizes and micro-kernel per instruction set.
// A new instruction set is one micro-kernel file plus one row here.
#include "gemm/gemm.h"
#include "gemm/pack.h"

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
#if defined(__x86_64__) || defined(__i386__)
const Config kAvx2 = {"sgemm_avx2_fma_6x16", 6, 16, 256, 144, 3072,
                      sgemm_avx2_fma_6x16, pack_a_avx2_6, pack_b_avx2_16, 8};
#else
const Config& kAvx2 = kGeneric;  // never selected: isa_supported(avx2) is false
#endif

}  // namespace

const Config& config(Isa isa) { return isa == Isa::avx2 ? kAvx2 : kGeneric; }

}  // namespace gemm
}  // namespace repdl
