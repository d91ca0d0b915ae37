"""repdl.ops: the reproducible primitives, with torch's names and conventions.

Every function here computes exactly the graph that docs/CONTRACT.md gives
for it, on every device, thread count and instruction set.
"""
from .linalg import *  # noqa: F401,F403
from . import linalg as _linalg

__all__ = list(_linalg.__all__)
from .elementwise import *  # noqa: F401,F403,E402
__all__ += __import__(f"{__name__}.elementwise", fromlist=["__all__"]).__all__
