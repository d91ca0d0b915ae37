// Scatter-style accumulation (docs/CONTRACT.md, "Scatter-style ops"): the
// backward of every op that copies one source value to several places
// (embedding, padding, pooling, gather).  dst starts at +0.0 and
//     for i = 0, 1, ..., n-1:  dst[index[i], :] = dst[index[i], :] + src[i, :]
// one rounding each, contributions in ascending source position.  Threads
// split the destination rows (each scans every i, so the order per row is
// the sequential one).
#pragma once

#include <cstdint>

namespace repdl {
namespace scatter {

// dst (rows, d) dense, overwritten; src (n, d) dense; index[i] in [0, rows).
void index_accumulate(const float* src, const int64_t* index, int64_t n, int64_t d, float* dst, int64_t rows);

}  // namespace scatter
}  // namespace repdl
