"""The hard-case tables of the correctly rounded elementwise functions.

One file per function, ``repdl/crtables/<name>.inc``, written by
tools/cr/generate.py.  It is the single source of truth for both
implementations: the C++ kernels ``#include`` it as the body of a
``uint32_t`` array, and the reference backend parses it here.  Layout:
``//`` comment lines (provenance), then comma-separated integers: the
runtime window (float64 ulps), the entry count n, then n pairs (input bits,
correctly rounded result bits) sorted by input bits.
"""
import functools
import os

_DIR = os.path.dirname(__file__)


def path(name: str) -> str:
    return os.path.join(_DIR, f"{name}.inc")


@functools.lru_cache(maxsize=None)
def load(name: str):
    """(window, keys, values) of function `name`'s table; keys sorted."""
    with open(path(name)) as f:
        text = "".join(line.split("//", 1)[0] for line in f)
    nums = [int(tok, 0) for tok in text.replace(",", " ").split()]
    window, n = nums[0], nums[1]
    pairs = nums[2:]
    if len(pairs) != 2 * n:
        raise RuntimeError(f"repdl: hard-case table {path(name)} is corrupt ({len(pairs)} numbers for {n} entries)")
    keys, values = pairs[0::2], pairs[1::2]
    if any(a >= b for a, b in zip(keys, keys[1:])):
        raise RuntimeError(f"repdl: hard-case table {path(name)} is not sorted")
    return window, keys, values
