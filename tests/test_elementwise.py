"""Correctly rounded elementwise functions (docs/CONTRACT.md section 6).

Every check is bitwise.  MPFR (gmpy2) is the oracle: samples spread over
every binade, every hard-case table entry, special values and every binade
boundary; then 2^21 random inputs per function, every path (the C++ rows,
generic, AVX2 and AVX-512 where the CPU has them, and the reference
backend) against verify.py's oracle.
The full 2^32 sweeps run through tools/cr/verify.py (test_exhaustive,
deselected by default).
"""
import importlib
import math
import os
import shutil
import struct
import subprocess
import sys

import pytest
import torch

import repdl
from repdl import _C
from repdl.backends import cpu as cpu_backend, reference as ref
from repdl.crtables import load as load_table
from repdl.testing import assert_bitwise_equal

from values import ROWS, _report, canonical, check_all_paths, f32, layouts, u32

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools", "cr"))
import oracle  # noqa: E402
from functions import FUNCTIONS  # noqa: E402

import gmpy2  # noqa: E402

UNARY = list(_C.cr_unary_names())
TABLED = [n for n in UNARY if n in FUNCTIONS]
MPFR = {n: s.mpfr for n, s in FUNCTIONS.items()}
MPFR.update({"sqrt": gmpy2.sqrt, "reciprocal": lambda v: 1 / v})
# The public function behind each C++ name (gelu's tanh form is repdl.gelu's keyword).
PUBLIC = {"gelu_tanh": lambda x: repdl.gelu(x, approximate="tanh")}


def public(name):
    return PUBLIC.get(name) or getattr(repdl, name)


NAN = 0x7FC00000
INF, NINF = 0x7F800000, 0xFF800000
PZ, NZ = 0x00000000, 0x80000000

# Results at zeros, infinities and NaN (the contract's special values); MPFR
# settles every finite nonzero input.  (MPFR's rec_sqrt(-0) is +inf; IEEE-754
# rSqrt and torch give -inf, and so does RepDL.)
SPECIAL = {
    #            +0    -0    +inf  -inf
    "exp":       (0x3F800000, 0x3F800000, INF, PZ),
    "exp2":      (0x3F800000, 0x3F800000, INF, PZ),
    "expm1":     (PZ, NZ, INF, 0xBF800000),
    "log":       (NINF, NINF, INF, NAN),
    "log2":      (NINF, NINF, INF, NAN),
    "log10":     (NINF, NINF, INF, NAN),
    "log1p":     (PZ, NZ, INF, NAN),
    "sqrt":      (PZ, NZ, INF, NAN),
    "rsqrt":     (INF, NINF, PZ, NAN),
    "reciprocal": (INF, NINF, PZ, NZ),
    "sin":       (PZ, NZ, NAN, NAN),
    "cos":       (0x3F800000, 0x3F800000, NAN, NAN),
    "softplus":   (0x3F317218, 0x3F317218, INF, PZ),
    "silu":       (PZ, NZ, INF, NZ),
    "mish":       (PZ, NZ, INF, NZ),
    "elu":        (PZ, NZ, INF, 0xBF800000),
    "selu":       (PZ, NZ, INF, 0xBFE10966),
    "tanh":       (PZ, NZ, 0x3F800000, 0xBF800000),
    "sigmoid":    (0x3F000000, 0x3F000000, 0x3F800000, PZ),
    "logsigmoid": (0xBF317218, 0xBF317218, NZ, NINF),
    "erf":        (PZ, NZ, 0x3F800000, 0xBF800000),
    "erfc":       (0x3F800000, 0x3F800000, PZ, 0x40000000),
    "gelu":       (PZ, NZ, INF, NZ),
    "gelu_tanh":  (PZ, NZ, INF, NZ),
}
_SPECIAL_INPUTS = (PZ, NZ, INF, NINF)


def expected(name, xbits):
    """fl32(f(x)) bits for each input (MPFR for finite nonzero x)."""
    fn = MPFR[name]
    out = []
    with oracle.CTX_F32:
        for b in xbits:
            if (b >> 23) & 0xFF == 0xFF and b & 0x7FFFFF:
                out.append(NAN)
            elif b in _SPECIAL_INPUTS:
                out.append(SPECIAL[name][_SPECIAL_INPUTS.index(b)])
            else:
                v = float(fn(gmpy2.mpfr(oracle.f32(b))))
                out.append(oracle.bits32(v))
    return out


def binade_samples(per_binade, seed):
    """Bit patterns: `per_binade` random significands in every binade of both
    signs (exponent fields 0..254: subnormals, every normal binade)."""
    g = torch.Generator().manual_seed(seed)
    e = torch.arange(255, dtype=torch.int64).repeat_interleave(per_binade)
    m = torch.randint(0, 1 << 23, (e.numel(),), generator=g, dtype=torch.int64)
    s = torch.randint(0, 2, (e.numel(),), generator=g, dtype=torch.int64)
    return ((s << 31) | (e << 23) | m).tolist()


def interesting_domain(name, seed, count):
    """Random bit patterns concentrated where the function is not trivially
    saturated (e.g. |x| < 104 for exp), so the samples probe real rounding."""
    g = torch.Generator().manual_seed(seed)
    lim = {"exp": 104.0, "exp2": 150.0, "expm1": 90.0, "tanh": 12.0, "sigmoid": 110.0, "logsigmoid": 110.0,
           "erf": 4.0, "erfc": 10.1, "gelu": 14.8, "gelu_tanh": 11.2}.get(name)
    if lim is None:
        return []
    x = (torch.rand(count, generator=g, dtype=torch.float64) * 2 - 1) * lim
    return u32(x.to(torch.float32))


# ---- MPFR: samples over every binade, special values, binade boundaries -----------------------

@pytest.mark.parametrize("name", UNARY)
def test_matches_mpfr_over_binades(name):
    xbits = binade_samples(96, seed=UNARY.index(name)) + interesting_domain(name, 7, 8000)
    check_all_paths(name, xbits, expected(name, xbits), "binade samples")


def boundary_inputs():
    """+-2^e and both float32 neighbours for every e, the largest finite
    values, zeros, infinities and NaNs with several payloads."""
    out = set()
    for e in range(1, 255):
        for s in (0, 1 << 31):
            b = s | (e << 23)
            out.update({b, b - 1, b + 1})
    for s in (0, 1 << 31):
        out.update({s | 1, s | 2, s | 0x7FFFFF, s | 0x400000, s | 0x7F7FFFFF, s | 0x7F800000,
                    s | 0x7FC00000, s | 0x7F800001, s | 0x7FFFFFFF, s | 0x7FA00000, s})
    return sorted(b & 0xFFFFFFFF for b in out)


@pytest.mark.parametrize("name", UNARY)
def test_special_values_and_binade_boundaries(name):
    xbits = boundary_inputs()
    check_all_paths(name, xbits, expected(name, xbits), "boundaries")


@pytest.mark.parametrize("name", UNARY)
def test_blocks_of_one_value(name):
    """Each boundary input alone in whole blocks (three of sixteen lanes).
    A vector row's rescue settles a block by exact rules that reach every
    lane of their range, hard or not, so a lane that only a rule makes right
    is right beside hard lanes (as above) and may be wrong alone: gelu(-0)
    on the AVX-512 row's series once gave +0 there."""
    xbits = boundary_inputs()
    want = expected(name, xbits)
    copies = 48
    check_all_paths(name, [b for b in xbits for _ in range(copies)], [w for w in want for _ in range(copies)],
                    "blocks of one value")


# Hand-checked values: exact results and famous hard cases.
EXACT = [
    ("exp2", 3.0, 8.0), ("exp2", -149.0, 2.0 ** -149), ("exp2", -150.0, 0.0), ("exp2", 128.0, math.inf),
    ("log2", 1024.0, 10.0), ("log2", 2.0 ** -149, -149.0), ("log10", 1e10, 10.0), ("log10", 1000.0, 3.0),
    ("exp", 0.0, 1.0), ("log", 1.0, 0.0), ("cos", 0.0, 1.0), ("sqrt", 4.0, 2.0), ("rsqrt", 0.25, 2.0),
    ("rsqrt", 2.0 ** -148, 2.0 ** 74), ("reciprocal", 2.0 ** 127, 2.0 ** -127), ("log1p", -1.0, -math.inf),
    ("expm1", -200.0, -1.0), ("exp", 88.72284, math.inf), ("exp", -104.0, 0.0),
]


@pytest.mark.parametrize("name,x,want", EXACT)
def test_exact_values(name, x, want):
    t = torch.tensor([x])
    assert_bitwise_equal(getattr(repdl, name)(t), torch.tensor([want]))
    assert_bitwise_equal(getattr(ref, name)(t), torch.tensor([want]))


# ---- the hard-case tables --------------------------------------------------------------------

@pytest.mark.parametrize("name", TABLED)
def test_every_table_entry(name):
    """Every listed input gives the listed result on every path, and MPFR
    agrees with the listed result."""
    window, keys, values = load_table(name)
    assert window == FUNCTIONS[name].window
    assert keys == sorted(set(keys))
    if not keys:
        pytest.skip(f"{name}: empty table")
    assert values == expected(name, keys), f"{name}: a table entry disagrees with MPFR"
    check_all_paths(name, keys, values, "table entries")


@pytest.mark.parametrize("name", TABLED)
def test_hard_cases_in_place(name):
    """A kernel called with y == x (softmax's backward and the fused
    gradients do) settles its hard cases from the inputs it read, not from
    the results it has already written over them: every table entry, among
    ordinary values at random offsets, on every row."""
    _, keys, values = load_table(name)
    if not keys:
        pytest.skip(f"{name}: empty table")
    g = torch.Generator().manual_seed(len(keys))
    n = 37 * len(keys)
    x = torch.randn(n, generator=g)
    where = torch.randperm(n, generator=g)[:len(keys)]
    x[where] = f32(keys)
    saved = repdl.isa()
    try:
        for isa in ROWS:
            repdl.set_isa(isa)
            y = x.clone()
            _C.cr_unary(UNARY.index(name), y.data_ptr(), y.data_ptr(), n)
            assert_bitwise_equal(y[where], f32(values), f"{name}, {isa} row, in place")
            assert_bitwise_equal(y, getattr(cpu_backend, name)(x), f"{name}, {isa} row, in place")
    finally:
        repdl.set_isa(saved)


# The thresholds of the fast paths' rescues (fn/double_float.h's
# settle_tails): from each on outwards, the function's rounded value is the
# limit.  Each is checked against MPFR with its neighbours by
# test_rescue_thresholds_are_the_edges, and lies among the fast-path edges
# below.  sigmoid's is exp's: below -48 sigmoid goes through exp's rescue.
RESCUE_THRESHOLDS = {  # name: [(threshold, limit, +1: the rule holds above it, -1: below)]
    "exp": [(-float.fromhex("0x1.9fe36ap+6"), 0.0, -1), (float.fromhex("0x1.62e430p+6"), math.inf, 1)],
    "exp2": [(-150.0, 0.0, -1), (128.0, math.inf, 1)],
    "sigmoid": [(-float.fromhex("0x1.9fe36ap+6"), 0.0, -1)],
    "softplus": [(-float.fromhex("0x1.9fe36ap+6"), 0.0, -1)],
    "logsigmoid": [(float.fromhex("0x1.9fe36ap+6"), -0.0, 1)],
    "silu": [(-float.fromhex("0x1.b2a428p+6"), -0.0, -1)],
    "erfc": [(float.fromhex("0x1.41bbf8p+3"), 0.0, 1)],
    "gelu": [(-float.fromhex("0x1.cb64eap+3"), -0.0, -1)],
    "gelu_tanh": [(-float.fromhex("0x1.58aaf4p+3"), -0.0, -1)],
}


def _rescue_edges(name):
    """Each rescue threshold of `name` and its neighbours, 3 ulps either way."""
    edges = u32(torch.tensor([t for t, _, _ in RESCUE_THRESHOLDS.get(name, [])], dtype=torch.float32))
    return [b + d for b in edges for d in range(-3, 4)]


def _float32_path_edges(name):
    """_range_edges(name) with the rescues' thresholds and bands: exp's,
    sigmoid's and silu's results below 2^-126 (ExpF32::scale_rounded), the
    logistic pair's [-87, -48) through exp's pair, rsqrt's scaled ranges,
    the subnormals near zero that silu, gelu and log1p settle by rule."""
    bands = [-86.99999, -87.0, -87.00001, -50.0, -60.5, -70.25, -80.0, -85.0, -88.0, -90.0, -91.6, -95.0, -100.0,
             -105.0, -108.0, -109.0, 2.0 ** -100, 1.5 * 2.0 ** -126, 1e-40, 2.0 ** 100, 1.9 * 2.0 ** 127]
    bands += torch.linspace(-108.7, -87.0, 129).tolist()  # exp's, sigmoid's, silu's results on the subnormal grid
    tiny = [1, 2, 3, 5, 0x80000001, 0x80000002, 0x80000003, 0x80000005, 0x00400001, 0x807FFFFF, 0x00800001,
            0x01000001, 0x20000001, 0xA0000001]  # odd multiples of 2^-149 (x/2 a tie) and small normals
    return _range_edges(name) + _rescue_edges(name) + u32(torch.tensor(bands)) + tiny


def _range_edges(name):
    """The inputs a vector row's fast path (fn/exp_f32.h, fn/logistic_f32.h,
    fn/rsqrt_f32.h, fn/tanh_f32.h, fn/log_f32.h, fn/erfc_coarse.h,
    fn/log_coarse.h, fn/softplus_coarse.h, fn/sincos_coarse.h) must hand to the
    float64 path or settle at its range's edges, besides the hard-case table:
    for exp and exp2, results that are powers of two approached from below (1 -
    2^-26 .. 1 - 2^-25, and near m ln2 for every m, or near the integers), the
    steps of the reduction (k changing, for tables of 8 and 32) and the range's
    ends (|x| around 87, 125); for rsqrt, 2^-96 and 2^96, powers of four and
    their neighbours; for the log family, the pieces' ends, 1, powers of two
    and ten, and log1p's edges; for softplus and logsigmoid, e^-|x| = 2^-7 and
    the exponent's ends; for gelu_tanh, t(x) = -48, the clamp at +-8.87 and the
    band down to its -0 edge; for tanh, the reduction's first steps, 1 - 2^-m
    leaving the table's grid, results 1 from below, the clamp and tiny x; for
    sigmoid and silu, the edges -48 (hard below), +-64 (e^-64 stands in for
    e^-x above 64), results 1 from below (x from 16 to 18), x/2 near zero and
    silu's 2^-64; for erf, erfc and gelu, the pieces' ends (multiples of 1/4 in
    |z|), the range's ends (+-4, gelu's +-5.65), erf's series edge 2^-13 and
    tiny x; for sin and cos, the reduction's steps, the floats nearest to
    multiples of pi/2, the range's end 2^17 and sin's 2^-12; for all, NaN,
    infinities, zeros and subnormals."""
    specials = [1e-45, -1e-45, 2.0 ** -126, -(2.0 ** -126), 0.0, -0.0, float("inf"), float("-inf"), float("nan")]
    if name in ("exp", "exp2"):
        below_one = [-(1 + i / 64) * 2.0 ** -26 for i in range(32)]
        unit = math.log(2) if name == "exp" else 1.0
        m_unit = u32(torch.tensor([m * unit for m in range(-125, 128)], dtype=torch.float64).to(torch.float32))
        near_powers = [b + d for b in m_unit for d in (-2, -1, 1, 2) if b not in (0, 0x80000000)]
        ends = ([86.99, 87.0, 87.00001, 88.0, 88.72283, 88.7229, 89.0, -87.0, -87.00001, -87.33, -87.34, -100.0,
                 -103.9, -104.0, -110.0] if name == "exp" else
                [124.99, 125.0, 125.00001, 126.5, 127.99999, 128.0, -124.99, -125.0, -125.00001, -126.0, -130.5,
                 -149.0, -149.5, -150.0, 0.015625, -0.015625, 0.0078125, 0.5 / 32 + 2.0 ** -29])
        # k = round(N x / unit) changing between neighbours, for both rows' tables (N = 8 on AVX2, 32 on
        # AVX-512): the reduced argument at its largest, and the first x with k != 0, where rh's exactness
        # rests on x's grid.
        steps = u32(torch.tensor([(i + 0.5) * unit / n for n in (8, 32) for i in range(-3, 3)]))
        near_steps = [b + d for b in steps for d in (-1, 0, 1)]
        return u32(torch.tensor(below_one + ends + specials)) + m_unit + near_powers + near_steps
    if name == "rsqrt":
        powers = u32(torch.tensor([4.0 ** k for k in range(-60, 61)] + [2.0 ** -96, 2.0 ** 96, 2.0 ** 97]))
        near = [b + d for b in powers for d in (-1, 1)]
        return powers + near + u32(torch.tensor([-1.0, -2.0 ** -96, 3e38, 1e-40] + specials))
    if name in ("log", "log2", "log10", "log1p"):
        # piece ends (bits 48-51 of the float64 above 0.703125) in a few binades, 1 from both sides, powers
        # of two and of ten, and for log1p u = 1 + x: x near -1, the r = x rule's edge 2^-7 and tiny x
        ends = [0.703125 * 2.0 ** e * (1 + i / 16) for e in (-100, -1, 0, 1, 20) for i in range(17)]
        if name == "log1p":
            ends = [u - 1 for u in ends if u > 0.5 and u < 2 ** 22] + [-0.9999999, -0.5, 2.0 ** -7, -(2.0 ** -7),
                                                                        2.0 ** -30, -(2.0 ** -60), 1e-40, 3e38]
        ends = u32(torch.tensor(ends + [1.0, 2.0, 0.5, 10.0, 100.0, 1e10, 2.0 ** -149, 2.0 ** 127, 2.0 ** -126, 3e38]))
        if name != "log1p":
            # the vector rows' float32 paths: their piece ends in a few binades, and where
            # tools/cr/fast_paths.cpp --errors log_pair, log2_pair, log10_pair found their largest errors
            ends += u32(_log_f32_piece_ends((-100, -1, 0, 1, 20)))
            ends += [0x3F8200C2, 0x3F820418, 0x3F8204D8, 0x3F8203D0, 0x3F82098C]
            ends += [0x00012345, 0x00400000, 0x007FFFFF]  # subnormals, which the rescue takes as their integers
        else:
            # the AVX2 row's float32 path: 1 + x at ln's piece ends (fn/log_f32.h) in a few binades
            ends += u32(_log_f32_piece_ends((-1, 0, 1, 20)) - 1)
        return ends + [b + d for b in ends for d in (-2, -1, 1, 2)] + u32(torch.tensor([-1.0, -1e-30] + specials))
    if name in ("softplus", "logsigmoid"):
        # u = e^-|x| = 2^-7 (the series' edge), the exponent's clamp at 110, results leaving the normal
        # numbers (|x| near 87.3 and 103), softplus's x = 14.55 and 20, and tiny x
        edges = [7 * math.log(2) * s + d for s in (1, -1) for d in (-1e-6, 0, 1e-6)]
        edges += [s * v for s in (1, -1) for v in (14.55, 14.6, 20.0, 87.3, 87.4, 103.0, 104.0, 109.9, 110.0, 110.1,
                                                   200.0, 3e38, 2.0 ** -24, 2.0 ** -60, 2.0 ** -140)]
        # the AVX2 row's float32 path (fn/softplus_f32.h): its range's end |x| = 48, and 1 + e^-|x| at ln's
        # piece ends
        edges += [s * v for s in (1, -1) for v in (48.0, 47.999996, 48.000004)]
        edges += [s * -math.log(v - 1) for s in (1, -1) for v in _log_f32_piece_ends((0, 1)).tolist() if 1 < v <= 2]
        return u32(torch.tensor(edges + specials))
    if name in ("erf", "erfc", "gelu"):
        scale = math.sqrt(2) if name == "gelu" else 1.0
        ends = [s * (k / 4 * scale) for k in range(17) for s in (1, -1)]
        ends = u32(torch.tensor(ends))
        ends = ends + [b + d for b in ends for d in (-1, 1) if b not in (0, 0x80000000)]
        edge = [5.65, 5.6499996, 5.6500006, -5.65, -5.6499996, -5.6500006, 14.75, -14.75, 20.0] if name == "gelu" else \
            [3.9999998, 4.0, 4.0000005, -3.9999998, -4.0, -4.0000005, 10.0, 10.06, -10.0]
        tiny = [2.0 ** -e * s for e in (24, 60, 100, 125, 126, 127, 140, 148) for s in (1, -1)]
        series = [b + d for b in (0x39000000, 0xB9000000) for d in (-1, 0, 1)]  # erf's two-term series below 2^-13
        return ends + u32(torch.tensor(edge + tiny + specials)) + series + [1, 3, 0x80000001, 0x80000003, 0x007FFFFF]
    if name in ("sin", "cos"):
        # k = round(16 x / pi) changing ((i + 1/2) pi/16, r at its largest), the floats nearest to multiples of
        # pi/2 (the zeros and extremes, where one of the table's terms is 0) up to the range's end 2^17, and
        # sin's rule below 2^-12
        edges = [(i + 0.5) * math.pi / 16 for i in range(40)] + [n * math.pi / 2 for n in range(1, 33)]
        edges += [n * math.pi / 2 for n in (100, 1001, 10 ** 4, 33333, 83443)]
        edges += [2.0 ** 17, 2.0 ** 16, 2.0 ** -12, 1.5 * 2.0 ** -12, 2.0 ** -13, 2.0 ** -60, 3e38]
        edges = u32(torch.tensor(edges))
        edges = edges + [b + d for b in edges for d in (-2, -1, 1, 2)]
        # where tools/cr/fast_paths.cpp --errors found the largest errors: near pi/32 (r at its largest), and
        # near multiples of pi with |k| above 2^19, whose r needs the reduction's third step (2^24 ulps without it)
        edges += [0x3DC90950, 0x3FD5A090, 0x47CD246F, 0x474D246F]
        return edges + [b | 0x80000000 for b in edges] + u32(torch.tensor(specials))
    if name == "tanh":
        # k changing (2|x| at (i + 1/2) ln2/N for both rows' tables, N = 16 and 32; k = 0 to 1 the smallest W),
        # m = 23 to 24 (2|x| = 24 ln2, where 1 - 2^-m leaves Th's grid), results 1 from below up to the clamp at
        # 9.5 (1 from 9.0109), the near-zero rule's 2^-13 and 2^-25 (y0 = 1/2 exactly below it), huge x
        edges = [(i + 0.5) * math.log(2) / (2 * n) for n in (16, 32) for i in range(4)]
        edges += [m * math.log(2) / 2 for m in (1, 23, 24, 27)]
        edges += [9.0109, 9.011, 9.49, 9.5, 9.51, 20.0, 1e30, 3e38] + [2.0 ** -e for e in (13, 25, 60, 127, 140)]
        edges = u32(torch.tensor(edges))
        edges = edges + [b + d for b in edges for d in (-1, 1)]
        return edges + [b | 0x80000000 for b in edges] + u32(torch.tensor(specials))
    if name == "gelu_tanh":
        # t(x) = -48 (x = -7.9142, hard below), x clamped at +-8.87 (|t| < 64), the band left to the
        # float64 path up to the -0 edge, results 1 from below, tiny x (2^-64: the near-zero rule's
        # edge; 2^-60: the float64 path's), huge x
        edges = [-7.9142, -7.9142003, -7.914199, -8.87, -8.869999, -8.870001, 8.87, 8.869999, 8.870001, 9.0, 20.0,
                 1e30, -1e30, 3e38, -3e38] + torch.linspace(-10.8, -7.9, 97).tolist()
        edges += [2.0 ** -e * s for e in (24, 25, 40, 60, 63, 64, 65, 100, 125, 126, 127, 140) for s in (1, -1)]
        return u32(torch.tensor(edges + specials)) + [0x1F800000 + d for d in (-1, 0, 1)]
    edges = [-47.99999, -48.0, -48.00001, -64.0, -87.5, -1e30, 47.99, 63.99999, 64.0, 64.00001, 100.0, 3e38]
    edges += [16 + i / 8 for i in range(17)] + [2.0 ** -e * s for e in (24, 25, 26, 60, 63, 64, 65, 100) for s in (1, -1)]
    # where e^-x's low part, or silu's product error, falls below 2^-126
    edges += [70 + i for i in range(20)] + [-40 - i / 4 for i in range(32)] + [2.0 ** -(50 + i) for i in range(14)]
    return u32(torch.tensor(edges + specials)) + [0x1F800000 + d for d in (-1, 0, 1)]  # 2^-64 and neighbours


@pytest.mark.parametrize("name", sorted(RESCUE_THRESHOLDS))
def test_rescue_thresholds_are_the_edges(name):
    """Each threshold of a rescue rule is where the correctly rounded result
    (MPFR) becomes the limit: at the threshold and one ulp outwards it is
    the limit, one ulp inwards it is not.  A threshold moved inwards would
    give the limit where it is wrong; moved outwards, it would leave lanes
    to the float64 path that a rule settles."""
    for t, limit, side in RESCUE_THRESHOLDS[name]:
        b = u32(torch.tensor([t], dtype=torch.float32))[0]
        outward = 1 if (side > 0) == (t > 0) else -1  # bit steps away from zero grow |x|
        got = expected(name, [b - outward, b, b + outward])
        want = u32(torch.tensor([limit], dtype=torch.float32))[0]
        assert got[1:] == [want, want] and got[0] != want, f"{name}: threshold {t!r} is not the edge of {limit}"


def _log_f32_piece_ends(binades):
    """The ends of ln's float32 pieces (bits 18-22 of bits(x) - bits(0.7421875), fn/log_f32.h) in the given
    binades, as a float32 tensor."""
    bits = torch.tensor([0x3F3E0000 + k * 2 ** 18 + e * 2 ** 23 for e in binades for k in range(33)], dtype=torch.int64)
    return bits.to(torch.int32).view(torch.float32)


def _float32_path_inputs(name):
    """Ordinary values with the hard-case table and _float32_path_edges,
    placed so that run_fast's queue of hard lanes fills, carries over from
    one chunk (256 values on AVX-512, 128 on AVX2) to the next, and ends in
    the tail."""
    _, keys, _ = load_table(name)
    hard = keys + _float32_path_edges(name)
    x = u32(repdl.random.randn(40 * 256 + 13, generator=repdl.random.Generator(14)) * 3)
    runs = [(300, 40), (300 + 512, 16), (2000, 1), (2300, 17)]  # (position, length): full queues, carries
    at = 0
    for pos, length in runs:
        x[pos:pos + length] = hard[at:at + length]
        at += length
    rest = hard[at:]
    spots = torch.randperm(len(x) - 3000, generator=torch.Generator().manual_seed(3))[:len(rest)] + 3000
    for b, i in zip(rest, spots.tolist()):
        x[i] = b
    x[-5:] = hard[:5]  # hard lanes in the tail
    return x


@pytest.mark.parametrize("name", ["exp", "exp2", "rsqrt", "sigmoid", "silu", "gelu_tanh", "tanh", "erf", "erfc", "gelu",
                                  "log", "log2", "log10", "log1p", "softplus", "logsigmoid", "sin", "cos"])
def test_float32_path_hard_lanes(name):
    """The vector rows' fast paths settle a lane themselves only where their
    own test proves the rounding (round_proven; the coarse float64
    evaluations' window); every other lane goes through the float64 path
    by the queue in run_fast.  Against MPFR, on every row, out
    of place and in place (y == x), at offsets that shift the chunks, and
    with flush-to-zero on (the paths' subnormal intermediates)."""
    xbits = _float32_path_inputs(name)
    _check_fast_rows(name, xbits, expected(name, xbits), "float32 path inputs")


def _every(lo, hi):
    """The bit patterns lo..hi-1 (unsigned) as int32."""
    return torch.arange(lo, hi, dtype=torch.int64).to(torch.int32)


# Dense ranges for the AVX-512 row's Newton kernels beside the divider:
# every float32 in [1, 4) (all significands, both exponent parities), the
# edges of each kernel's range, every subnormal, the largest and the
# special values; then the same with the sign bit set.
_BESIDE_DIVIDER_RANGES = {
    "sqrt": [(0x3F800000, 0x40800000), (0x0D000000, 0x0E000001)],  # [2^-101, 2^-99]: the steps take x from 2^-100
    "reciprocal": [(0x3F800000, 0x40800000), (0x6F000000, 0x70000001),  # [2^95, 2^97]: the steps take |x| to 2^96
                   (0x00800000, 0x01800000)],  # [2^-126, 2^-124]: 1/x near the largest floats
}


def _beside_divider_inputs(name):
    ranges = [*_BESIDE_DIVIDER_RANGES[name], (0, 0x00800000), (0x7F7FFF00, 0x7F800002), (0x7FC00000, 0x7FC00001)]
    positive = torch.cat([_every(lo, hi) for lo, hi in ranges])
    return torch.cat([positive, positive | torch.tensor(-(1 << 31), dtype=torch.int32)])


@pytest.mark.skipif("avx512" not in ROWS, reason="the AVX-512 row's Newton kernels: this CPU has no AVX-512F")
@pytest.mark.parametrize("name", sorted(_BESIDE_DIVIDER_RANGES))
def test_beside_the_divider(name):
    """The AVX-512 row's sqrt and reciprocal take alternate blocks of 16
    through the IEEE instruction and through Newton steps with an exact
    rounding test (fn/sqrt_f32.h, fn/reciprocal_f32.h, run_beside_divider):
    over dense ranges, from offsets 0 and 16 (so that every input meets
    both) and 5, out of place and in place, and with flush-to-zero on,
    they give the generic row's bits (IEEE sqrt and division)."""
    x = _beside_divider_inputs(name).view(torch.float32)
    saved = repdl.isa()
    try:
        repdl.set_isa("generic")
        want = getattr(cpu_backend, name)(x).view(torch.int32)
        repdl.set_isa("avx512")
        for off in (0, 16, 5):
            got = torch.empty_like(x[off:])
            _C.cr_unary(UNARY.index(name), x[off:].data_ptr(), got.data_ptr(), got.numel())
            bad = (got.view(torch.int32) != want[off:]).nonzero()
            assert len(bad) == 0, f"offset {off}: {len(bad)} wrong, first x = {hex(x[off:].view(torch.int32)[bad[0, 0]])}"
            y = x[off:].clone()
            _C.cr_unary(UNARY.index(name), y.data_ptr(), y.data_ptr(), y.numel())
            assert torch.equal(y.view(torch.int32), want[off:]), f"offset {off}, in place"
        if torch.set_flush_denormal(True):  # the caller's FTZ/DAZ, which the binding sets aside
            try:
                got = torch.empty_like(x)
                _C.cr_unary(UNARY.index(name), x.data_ptr(), got.data_ptr(), got.numel())
            finally:
                torch.set_flush_denormal(False)
            assert torch.equal(got.view(torch.int32), want), "flush-to-zero"
    finally:
        repdl.set_isa(saved)


@pytest.mark.skipif("avx512" not in ROWS, reason="the harness runs the AVX-512 row's kernels")
@pytest.mark.skipif(shutil.which("g++") is None, reason="builds tools/cr/fast_paths.cpp with g++")
def test_beside_the_divider_tests_are_exact(tmp_path):
    """The rounding tests of those kernels accept no neighbour of the
    correctly rounded result, over every float32 input of their range
    (tools/cr/fast_paths.cpp --exact-tests, about 10 s): what makes their
    results independent of the vendor's estimate, which the dense ranges
    above cannot show (this CPU's estimate leaves almost no wrong
    candidate for the tests to catch)."""
    root = os.path.join(os.path.dirname(__file__), "..")
    exe = str(tmp_path / "fast_paths")
    subprocess.run(["g++", "-O2", "-std=c++17", "-fopenmp", "-I" + os.path.join(root, "csrc"), "-ffp-contract=off",
                    "-o", exe, os.path.join(root, "tools", "cr", "fast_paths.cpp"),
                    os.path.join(root, "csrc", "elementwise", "tables.cpp")], check=True)
    run = subprocess.run([exe, "--exact-tests"], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.count("neighbours passed 0,") == 2, run.stdout


def _check_fast_rows(name, xbits, want, what):
    """Every path against want, then each vector row in place at offsets
    that shift the chunks, and with flush-to-zero on."""
    check_all_paths(name, xbits, want, what)
    x = f32(xbits)
    saved = repdl.isa()
    try:
        for isa in ROWS:
            repdl.set_isa(isa)
            for off in (0, 1, 15):
                y = x[off:].clone()
                _C.cr_unary(UNARY.index(name), y.data_ptr(), y.data_ptr(), y.numel())
                _report(name, xbits[off:], u32(y), want[off:], f"{isa} row, in place, offset {off}")
            if torch.set_flush_denormal(True):
                try:
                    y = torch.empty_like(x)
                    _C.cr_unary(UNARY.index(name), x.data_ptr(), y.data_ptr(), x.numel())
                finally:
                    torch.set_flush_denormal(False)
                _report(name, xbits, u32(y), want, f"{isa} row, flush-to-zero")
    finally:
        repdl.set_isa(saved)


def test_exp_zero_blocks():
    """exp's blocks whose every lane is at or below -103.972084 (+0 in
    every lane) are stored as zeros: the first of a run after its
    evaluation, the next ones before any (run_fast's ZeroBlocks).  Runs of
    -inf (a causal mask), of finite values at the edge and beyond, mixed
    with -inf, across chunks, broken by one lane just above the edge
    (-103.97208: the least subnormal), by NaN and by an ordinary block, and
    in the tail."""
    edge, above = float.fromhex("-0x1.9fe36ap+6"), float.fromhex("-0x1.9fe368p+6")
    x = repdl.random.randn(40 * 256 + 21, generator=repdl.random.Generator(15)) * 3
    x[16:16 * 40] = float("-inf")  # a run over a chunk boundary (256 values on AVX-512, 128 on AVX2)
    x[700:1100] = edge
    x[1100:1500:3] = -1e30
    x[1500:1900] = float("-inf")
    x[1700] = above  # breaks the run inside a block
    x[1900:2300] = -200.0
    x[2000] = float("nan")
    x[2500:2520] = float("-inf")  # one block and a bit, unaligned
    x[-21:] = float("-inf")  # a full block and the tail
    xbits = u32(x)
    _check_fast_rows("exp", xbits, expected("exp", xbits), "zero blocks")


def test_silu_and_sigmoid_in_one_pass(isa):
    """silu's recorded forward (backends' silu_and_sigmoid: both from one
    quotient, a lane hard for either settled for both) gives silu's and
    sigmoid's bits: against MPFR on both functions' fast-path edges and
    hard-case tables, on each row, at offsets that shift the chunks, with
    flush-to-zero on, and in strided layouts against the reference."""
    xbits = _float32_path_inputs("silu")
    xbits[500:500 + 64] = _float32_path_inputs("sigmoid")[300:300 + 64]
    want_y, want_s = expected("silu", xbits), expected("sigmoid", xbits)
    x = f32(xbits)
    for off in (0, 1, 15):
        y, s = cpu_backend.silu_and_sigmoid(x[off:])
        _report("silu", xbits[off:], u32(y), want_y[off:], f"{isa} row, with sigmoid, offset {off}")
        _report("sigmoid", xbits[off:], u32(s), want_s[off:], f"{isa} row, with silu, offset {off}")
    if torch.set_flush_denormal(True):
        try:
            y, s = cpu_backend.silu_and_sigmoid(x)
        finally:
            torch.set_flush_denormal(False)
        _report("silu", xbits, u32(y), want_y, f"{isa} row, with sigmoid, flush-to-zero")
        _report("sigmoid", xbits, u32(s), want_s, f"{isa} row, with silu, flush-to-zero")
    for name, view in layouts(x[:97 * 61].reshape(97, 61)):
        for got, want in zip(cpu_backend.silu_and_sigmoid(view), ref.silu_and_sigmoid(view)):
            assert got.shape == view.shape
            assert_bitwise_equal(got, want, name)


@pytest.mark.parametrize("tool, printer, inc", [
    ("polyfit", "exp_table_f32", "exp_table_f32.inc"),
    ("polyfit", "sincos_table", "sincos_table.inc"),
    ("polyfit", "log_table_f32", "log_table_f32.inc"),
    ("fit_erf", "erfc_pieces", "erfc_pieces.inc"),  # asserts each piece's error budget: about 20 s of mpmath
])
def test_generated_tables_are_the_tools_output(capsys, tool, printer, inc):
    """fn/<inc> is what tools/cr/<tool>.py's <printer>() prints (the tool's
    option of that name writes the file)."""
    getattr(importlib.import_module(tool), printer)()
    path = os.path.join(os.path.dirname(__file__), "..", "csrc", "elementwise", "fn", inc)
    with open(path) as f:
        assert capsys.readouterr().out == f.read()


@pytest.mark.parametrize("name", UNARY)
def test_compiled_table_is_the_shipped_file(name):
    """The C++ kernels #include the same file the reference parses."""
    window, blob = _C.cr_table(UNARY.index(name))
    if name not in FUNCTIONS:
        assert blob == b""
        return
    w, keys, values = load_table(name)
    pairs = [v for kv in zip(keys, values) for v in kv]
    assert window == w and blob == struct.pack(f"<{len(pairs)}I", *pairs)


def test_two_over_pi_bits():
    """The 2/pi bits of the large-argument sin/cos reduction (tables.cpp),
    as printed by MPFR."""
    src = open(os.path.join(os.path.dirname(__file__), "..", "csrc", "elementwise", "tables.cpp")).read()
    words = src.split("kTwoOverPiBits[6] = {")[1].split("};")[0].replace("ull", "").replace(",", " ").split()
    with gmpy2.context(precision=500):
        exact = int(gmpy2.floor(2 / gmpy2.const_pi() * gmpy2.mpfr(2) ** 384))
    assert [int(w, 16) for w in words] == [(exact >> (384 - 64 * (i + 1))) & (2 ** 64 - 1) for i in range(6)]


# ---- C++ rows == reference, bit for bit, on millions of inputs -------------------------------

def random_inputs(n, seed):
    g = torch.Generator().manual_seed(seed)
    k = n // 4
    parts = [
        torch.randint(-(1 << 31), (1 << 31) - 1, (k,), generator=g, dtype=torch.int32).view(torch.float32),
        torch.randn(k, generator=g),
        torch.randn(k, generator=g) * torch.exp2(torch.randint(-30, 30, (k,), generator=g).float()),
        (torch.rand(k, generator=g) * 2 - 1) * 120,
    ]
    return torch.cat(parts)


@pytest.mark.parametrize("name", UNARY)
def test_random_samples_against_mpfr(name):
    """2^21 random inputs per function, every path (every C++ row, the
    reference) against tools/cr/verify.py's oracle: long double libm, and
    MPFR for every input near a rounding midpoint or in disagreement."""
    import verify
    x = random_inputs(1 << 21, seed=UNARY.index(name))
    saved = repdl.isa()
    try:
        mism_c, mism_r, settled, errs = verify.check_inputs(name, x.view(torch.int32), ROWS, True)
    finally:
        repdl.set_isa(saved)
    assert mism_c == [] and mism_r == [], f"{name}: C++ {[hex(b) for b in mism_c[:5]]}, reference {[hex(b) for b in mism_r[:5]]}"


@pytest.mark.parametrize("name", TABLED)
def test_float64_rows_identical(name):
    """Every row computes the same float64 values before rounding (one
    algorithm, written once)."""
    if len(ROWS) == 1:
        pytest.skip("only the generic row runs here")
    x = random_inputs(1 << 16, seed=99).contiguous()
    out = {}
    for isa in ROWS:
        saved = repdl.isa()
        repdl.set_isa(isa)
        try:
            y = torch.empty(x.numel(), dtype=torch.float64)
            _C.cr_eval64(UNARY.index(name), x.data_ptr(), y.data_ptr(), x.numel())
            out[isa] = y
        finally:
            repdl.set_isa(saved)
    g = out["generic"]
    keep = ~torch.isnan(g)
    for isa in ROWS[:-1]:
        a = out[isa]
        assert torch.equal(torch.isnan(a), torch.isnan(g)), isa  # NaN payloads are not results
        assert torch.equal(a[keep].view(torch.int64), g[keep].view(torch.int64)), isa


@pytest.mark.parametrize("name", ["exp", "log", "sin"])
def test_threads_offsets_and_tails(name):
    x = random_inputs(1 << 18, seed=5)
    want = getattr(ref, name)(x)
    saved = torch.get_num_threads()
    try:
        for threads in (1, 2, 3):
            torch.set_num_threads(threads)
            assert_bitwise_equal(getattr(repdl, name)(x), want)
    finally:
        torch.set_num_threads(saved)
    for off in range(9):
        for n in range(0, 21):
            assert_bitwise_equal(getattr(repdl, name)(x[off:off + n]), want[off:off + n])


# ---- the public API --------------------------------------------------------------------------

@pytest.mark.parametrize("name", UNARY)
def test_dtypes(name):
    f = public(name)
    for dt in (torch.float16, torch.bfloat16, torch.float64, torch.complex64):
        with pytest.raises(TypeError, match="float32"):
            f(torch.ones(3, dtype=dt))
    for dt in (torch.int32, torch.int64, torch.uint8, torch.bool):
        x = torch.tensor([0, 1, 2, 3]).to(dt)
        assert_bitwise_equal(f(x), f(x.to(torch.float32)))
    with pytest.raises(TypeError):
        f([1.0, 2.0])


def test_integer_input_follows_default_dtype():
    saved = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        with pytest.raises(TypeError, match="float32"):
            repdl.exp(torch.arange(3))
    finally:
        torch.set_default_dtype(saved)


@pytest.mark.parametrize("name", ["exp", "sqrt", "cos"])
def test_shapes_and_layouts(name):
    f = getattr(repdl, name)
    g = torch.Generator().manual_seed(3)
    base = torch.randn(4, 6, 5, 3, generator=g)
    want = getattr(ref, name)(base)
    for label, x in [("contiguous", base), ("channels_last", base.contiguous(memory_format=torch.channels_last)),
                     ("transposed", base.transpose(1, 3)), ("sliced", base[:, ::2]),
                     ("transposed and sliced", base.transpose(0, 3)[:, ::2]), ("expanded", base[:1].expand(3, -1, -1, -1))]:
        y = f(x)
        assert y.shape == x.shape, label
        assert_bitwise_equal(y.contiguous(), getattr(ref, name)(x.contiguous()), label)
    assert y.stride() == torch.empty_like(x).stride()
    assert f(torch.tensor(0.5)).shape == ()
    assert f(torch.empty(0, 3)).shape == (0, 3)
    assert_bitwise_equal(f(base), want)


@pytest.mark.parametrize("name", ["log", "sin"])
def test_hard_cases_in_any_shape(name):
    """The table lookup works for 0-d, multi-dim and non-contiguous inputs."""
    _, keys, values = load_table(name)
    x, want = f32(keys[:12]), f32(values[:12])
    for path in (ref, repdl):
        f = getattr(path, name)
        for i in range(3):
            assert_bitwise_equal(f(x[i].reshape(())), want[i].reshape(()))
        assert_bitwise_equal(f(x.reshape(3, 4).t()), want.reshape(3, 4).t())
        assert_bitwise_equal(f(x.reshape(2, 6)[:, ::2]), want.reshape(2, 6)[:, ::2])


def test_ops_are_registered_custom_ops():
    from torch._subclasses.fake_tensor import FakeTensorMode
    for name in UNARY:
        assert hasattr(torch.ops.repdl, name)
    with FakeTensorMode():
        x = torch.empty(3, 4)
        assert repdl.exp(x).shape == (3, 4)
        assert repdl.div(x, torch.empty(4)).shape == (3, 4)
        assert repdl.pow(x, 3).shape == (3, 4)
    x = torch.randn(5, requires_grad=True)
    assert_bitwise_equal(torch.ops.repdl.exp(x.detach()), repdl.exp(x.detach()))


# ---- pow -------------------------------------------------------------------------------------

def _pow_sequence(x, p):
    """The contract's order, one float32 rounding per product."""
    import numpy as np
    x = x.numpy().astype(np.float32)
    with np.errstate(all="ignore"):
        r = np.ones_like(x)
        b = x.copy()
        m = abs(p)
        while m:
            if m & 1:
                r = (r * b).astype(np.float32)
            m >>= 1
            if m:
                b = (b * b).astype(np.float32)
        if p < 0:
            r = (np.float32(1) / r).astype(np.float32)
    return canonical(torch.from_numpy(r))


@pytest.mark.parametrize("p", [0, 1, 2, 3, 5, 7, 8, 13, 100, -1, -2, -3, -7, 2 ** 40 + 3, -(2 ** 63)])
def test_pow_order(p, isa):
    x = torch.cat([random_inputs(1 << 12, 4), torch.tensor([0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0])])
    want = _pow_sequence(x, p)
    assert_bitwise_equal(repdl.pow(x, p), want)
    assert_bitwise_equal(ref.pow_int(x, p), want)


def test_pow_errors_and_integers():
    x = torch.randn(4)
    for e in (2.0, 0.5, torch.tensor(2), 2 + 0j):
        with pytest.raises(TypeError, match="int"):
            repdl.pow(x, e)
    with pytest.raises(OverflowError):
        repdl.pow(x, 2 ** 70)
    assert torch.equal(repdl.pow(torch.arange(5), 3), torch.arange(5) ** 3)
    with pytest.raises(TypeError, match="float32"):
        repdl.pow(torch.ones(2, dtype=torch.float64), 2)
    assert_bitwise_equal(repdl.pow(x, 2), x * x)


# ---- the full sweep ----------------------------------------------------------------------------

def test_verifier_on_a_slice():
    """tools/cr/verify.py itself: a 2^16-input slice around 1.0 of sin,
    every row and the reference, in one process."""
    import verify
    threads, isa = torch.get_num_threads(), repdl.isa()
    try:
        mism_c, mism_r, settled, errs = verify.check_chunk("sin", 0x3F800000 - (1 << 15), 1 << 16, ROWS, True)
    finally:
        torch.set_num_threads(threads)
        repdl.set_isa(isa)
    assert mism_c == [] and mism_r == []
    assert errs[0][0] < 8 and errs[1][0] < 4  # float64 errors of the C++ row and the reference formula



@pytest.mark.exhaustive
@pytest.mark.parametrize("name", UNARY)
def test_exhaustive(name):
    """All 2^32 inputs (tools/cr/verify.py): minutes per function."""
    import verify
    rec = verify.verify(name, 0, 1 << 32, os.cpu_count() or 1, ROWS, True)
    assert rec["mismatches_cpp"] == 0 and rec["mismatches_reference"] == 0, rec
