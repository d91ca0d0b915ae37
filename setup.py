"""Build the C++ kernels as repdl._C.

The extension includes no PyTorch headers: it sees tensors as raw pointers,
sizes and strides, so one wheel works with every torch release.  Every file is
compiled for the baseline x86-64 (or the host's baseline elsewhere); files that
need AVX2+FMA switch it on for themselves with `#pragma GCC target`, and the
runtime dispatcher (csrc/common/isa.cpp) only calls them on CPUs that have it.
"""
import glob
import os
import platform

from setuptools import Extension, setup

# Flags that change bits are fixed here and nowhere else:
#   -ffp-contract=off   no silent a*b+c -> fma; kernels write every fma explicitly
#   -fno-fast-math      IEEE semantics: no reassociation, no FTZ, no reciprocal tricks
#   -fno-finite-math-only  NaN and inf are values the kernels must handle
#   -fno-math-errno     nothing reads errno; without it, sqrt keeps a scalar
#                       errno branch and loops around it cannot vectorise
#                       (the IEEE sqrt instruction gives the same bits)
CXXFLAGS = [
    "-std=c++17",
    "-O3",
    "-fno-fast-math",
    "-ffp-contract=off",
    "-fno-finite-math-only",
    "-fno-math-errno",
    "-fopenmp",
    "-fvisibility=hidden",
    "-Wall",
    "-Wno-unknown-pragmas",
    # Vector-typed helpers are internal (hidden, inlined): their ABI never matters.
    "-Wno-psabi",
]
if platform.machine() in ("x86_64", "AMD64", "i686"):
    CXXFLAGS.append("-msse2")

sources = sorted(glob.glob(os.path.join("csrc", "**", "*.cpp"), recursive=True))
# Headers, included kernel bodies and generated tables: a change to any of
# them must rebuild the extension (setuptools only watches `sources`).
depends = sorted(
    f for pattern in ("*.h", "*.inc") for f in glob.glob(os.path.join("csrc", "**", pattern), recursive=True)
) + sorted(glob.glob(os.path.join("src", "repdl", "crtables", "*.inc")))

setup(
    ext_modules=[
        Extension(
            "repdl._C",
            sources=sources,
            depends=depends,
            include_dirs=["csrc"],
            extra_compile_args=CXXFLAGS,
            # libgomp: `import repdl` imports torch first, whose bundled
            # libgomp.so.1 then serves both, so there is one OpenMP thread
            # pool and torch.set_num_threads governs RepDL's kernels too.
            extra_link_args=["-fopenmp"],
            language="c++",
        )
    ],
    options={"build_ext": {"parallel": os.cpu_count() or 1}},
)
