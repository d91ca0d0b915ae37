// Runtime choice of instruction set.
//
// Every kernel family keeps one table row per instruction set; the row is
// picked here, once, from the CPU's features and the REPDL_ISA variable
// (auto | generic | avx2).  All rows compute the same bits: the choice only
// changes speed, which is exactly what tests prove by forcing `generic`.
#pragma once

namespace repdl {

// Ordered: every row a family has for an instruction set also serves the
// ones above it (the AVX2 rows run where AVX-512 is active) until that
// family gets a row of its own.
enum class Isa { generic = 0, avx2 = 1, avx512 = 2 };

// The instruction set kernels use now.
Isa active_isa();
// Whether the active instruction set includes AVX2+FMA (avx2 or avx512).
inline bool avx2_active() { return active_isa() >= Isa::avx2; }
// Name of an instruction set ("generic", "avx2", "avx512").
const char* isa_name(Isa isa);
// Whether this CPU can run `isa`.
bool isa_supported(Isa isa);
// Select an instruction set by name; returns false (and changes nothing) for
// an unknown name or one this CPU cannot run.  For tests and REPDL_ISA.
bool set_isa(const char* name);

}  // namespace repdl
