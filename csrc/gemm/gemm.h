// BLIS-style GEMM that keeps RepDL's sequential k chain.
//
// Contract (docs/CONTRACT.md, "mm"): every element of C = A B is
//     acc = +0.0;  for k = 0..K-1:  acc = fma32(A[i,k], B[k,j], acc)
// The loops below (jc -> pc -> ic -> jr -> ir, as in BLIS) only decide which
// elements are computed when and where their operands are staged.  Because
// the pc loop runs K blocks in ascending order and the micro-kernel loads the
// C tile and continues each chain, blocking, packing, threads and the
// instruction set never change a bit.
#pragma once

#include <cstdint>

#include "common/isa.h"

namespace repdl {
namespace gemm {

// C tile (mr x nr, row stride ldc, unit column stride) continues its chains
// over kc steps: c[i][j] = fma(a[k*mr + i], b[k*ldb + j], c[i][j]), k
// ascending; A is packed, B is a packed micro-panel (ldb = nr) or rows of B
// itself (ldb its row stride).  zero_init: chains start at +0.0 instead of
// loading C.  finish: this is the last K block, so NaN results become the
// canonical NaN.
using MicroKernel = void (*)(int64_t kc, const float* a, const float* b, int64_t ldb, float* c, int64_t ldc,
                             bool zero_init, bool finish);

// The C tile below a micro-kernel's own (rows mr to 2 mr - 1 from c, `cols`
// floats each), the one the macro-kernel passes next, asked into L1 as the
// kernel starts: its rows lie ldc apart, a page or more in wide products,
// and waiting on their loads took a sixth of the AVX-512 kernel's samples
// at 2048^3 (Xeon).  New / old time, one thread: 4096 x 768 x 3072 0.84,
// 2048^3 0.95, the transformer's shapes 0.98-1.01.  Prefetches never fault:
// past the block's last tile they only cost their issue.
inline void prefetch_next_tile(const float* c, int64_t ldc, int mr, int cols) {
  for (int i = mr; i < 2 * mr; ++i) {
    for (int j = 0; j < cols; j += 16) __builtin_prefetch(c + i * ldc + j, 0, 3);
    __builtin_prefetch(c + i * ldc + cols - 1, 0, 3);  // the row's last line when it is not 64-byte aligned
  }
}

struct Operand;

// Packing kernels (see pack.h for the layouts they produce).
using PackA = void (*)(const Operand& a, int64_t mc, int64_t kc, int mr, float* dst);
using PackB = void (*)(const Operand& b, int64_t kc, int64_t nc, int nr, int64_t p0, int64_t p1,
                       float* dst);

// One row of the registration table: the only ISA-specific part of GEMM.
struct Config {
  const char* name;  // bli-like: <dtype><op>_<isa>_<MR>x<NR>
  int mr, nr;        // register tile
  int64_t kc;        // K block: a packed B micro-panel (kc x nr) stays in L1
  int64_t mc;        // M block: a packed A block (mc x kc) stays in L2
  int64_t nc;        // N block: a packed B panel (kc x nc) stays in L3
  MicroKernel kernel;
  PackA pack_a;
  PackB pack_b;
  int64_t pack_slack;  // floats a packer may write past the end of its block
};

// The row for an instruction set and a product of m x n (rows may hold
// several tiles; every tile computes the same chains).
const Config& config(Isa isa, int64_t m, int64_t n);

// A strided float32 matrix operand.
struct Operand {
  const float* p;
  int64_t rs, cs;  // element strides of rows and columns (any sign, 0 allowed)
};

// One GEMM: C (m x n, row-major, row stride ldc) = A (m x k) B (k x n).
// With accumulate, the chains continue from the values already in C
// instead of starting at +0.0: a product over a K split into pieces (the
// images of a convolution's weight gradient) is then one chain per element.
struct Problem {
  int64_t m, n, k;
  Operand a, b;
  float* c;
  int64_t ldc;
  bool accumulate = false;
};

// Batched GEMM: C[t] = A[t] B[t] for t over a row-major multi-index; A and B
// move by their own strides per batch dim (0 where broadcast), C is dense.
struct Batch {
  int ndim;
  const int64_t* sizes;
  const int64_t* a_strides;
  const int64_t* b_strides;
};

// Threads split C's elements; called from inside a parallel region, it runs
// on the calling thread alone.
void run(const Problem& p, const Batch& batch);

// Micro-kernels (one file each) and ISA-specific packers.
void sgemm_generic_ref_4x8(int64_t, const float*, const float*, int64_t, float*, int64_t, bool, bool);
void sgemm_avx2_fma_6x16(int64_t, const float*, const float*, int64_t, float*, int64_t, bool, bool);
void sgemm_avx512_fma_8x48(int64_t, const float*, const float*, int64_t, float*, int64_t, bool, bool);
void sgemm_avx512_fma_6x64(int64_t, const float*, const float*, int64_t, float*, int64_t, bool, bool);
void sgemm_avx512_fma_12x32(int64_t, const float*, const float*, int64_t, float*, int64_t, bool, bool);
void pack_a_avx2_6(const Operand& a, int64_t mc, int64_t kc, int mr, float* dst);
void pack_b_avx2_16(const Operand& b, int64_t kc, int64_t nc, int nr, int64_t p0, int64_t p1,
                    float* dst);
void pack_a_avx512_8(const Operand& a, int64_t mc, int64_t kc, int mr, float* dst);
void pack_a_avx512_12(const Operand& a, int64_t mc, int64_t kc, int mr, float* dst);
void pack_b_avx512_32(const Operand& b, int64_t kc, int64_t nc, int nr, int64_t p0, int64_t p1, float* dst);
void pack_b_avx512_48(const Operand& b, int64_t kc, int64_t nc, int nr, int64_t p0, int64_t p1, float* dst);
void pack_b_avx512_64(const Operand& b, int64_t kc, int64_t nc, int nr, int64_t p0, int64_t p1, float* dst);

}  // namespace gemm
}  // namespace repdl
