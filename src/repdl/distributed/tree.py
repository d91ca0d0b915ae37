"""The pairwise tree over G microbatches (docs/CONTRACT.md section 19).

``pairsum`` (section 1) splits [0, n) at h, the largest power of two
strictly below n, and adds pairsum[0, h) + pairsum[h, n).  Its nodes are
the ranges the recursion visits.  Because every split is at a power of two
measured from the node's own start, a node's subtree is the pairwise sum of
its slice: a rank that holds microbatches [lo, hi) can compute every node
inside its range by itself, and the ranks' node sums combine in the tree's
own order.  These functions are pure: ranges in, ranges out.
"""
from typing import Callable, Dict, List, Tuple, TypeVar

__all__ = ["split", "cover", "combine", "Node"]

Node = Tuple[int, int]
T = TypeVar("T")


def split(lo: int, hi: int) -> int:
    """Where pairsum splits [lo, hi) (hi - lo >= 2): lo + the largest power
    of two strictly below hi - lo."""
    n = hi - lo
    if n < 2:
        raise ValueError(f"a range of {n} microbatch(es) has no split")
    return lo + (1 << ((n - 1).bit_length() - 1))


def cover(lo: int, hi: int, total: int) -> List[Node]:
    """The maximal nodes of the tree over [0, total) that lie inside
    [lo, hi), left to right: what a rank holding microbatches [lo, hi)
    sends.  At most about 2 log2(total) nodes; exactly one when [lo, hi) is
    itself a node (power-of-two world sizes dividing a power-of-two G)."""
    if not 0 <= lo <= hi <= total:
        raise ValueError(f"[{lo}, {hi}) is not inside [0, {total})")
    out = []

    def walk(a, b):
        if b <= lo or hi <= a or a == b:
            return
        if lo <= a and b <= hi:
            out.append((a, b))
            return
        h = split(a, b)
        walk(a, h)
        walk(h, b)

    walk(0, total)
    return out


def combine(sums: Dict[Node, T], total: int, add: Callable[[T, T], T]) -> T:
    """The root of the tree over [0, total) from node sums that cover it:
    each missing node is add(left, right) of its children, so the result
    is pairsum's, whatever the nodes were computed by."""

    def node(a, b):
        found = sums.get((a, b))
        if found is not None:
            return found
        if b - a < 2:
            raise KeyError(f"microbatch range [{a}, {b}) is missing")
        h = split(a, b)
        return add(node(a, h), node(h, b))

    return node(0, total)
