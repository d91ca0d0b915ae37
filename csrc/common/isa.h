// Runtime choice of instruction set.
//
// Every kernel family keeps one table row per instruction set; the row is
// picked here, once, from the CPU's features and the REPDL_ISA variable
// (auto | generic | avx2).  All rows compute the same bits: the choice only
// changes speed, which is exactly what tests prove by forcing `generic`.
#pragma once

namespace repdl {

enum class Isa { generic = 0, avx2 = 1 };

// The instruction set kernels use now.
Isa active_isa();
// Name of an instruction set ("generic", "avx2").
const char* isa_name(Isa isa);
// Whether this CPU can run `isa`.
bool isa_supported(Isa isa);
// Select an instruction set by name; returns false (and changes nothing) for
// an unknown name or one this CPU cannot run.  For tests and REPDL_ISA.
bool set_isa(const char* name);

}  // namespace repdl
