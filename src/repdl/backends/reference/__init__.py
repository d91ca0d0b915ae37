"""The reference backend: the contract (docs/CONTRACT.md) as code.

One small pure function per primitive, written with PyTorch ops whose
rounding is exact by construction (see ``_exact``), so it gives the same
bits on every device.  It is slow on purpose: clarity over speed.
"""
from .linalg import fma32, linear, matmul  # noqa: F401
from .reductions import extremum, sqdev, sum  # noqa: F401
from .elementwise import *  # noqa: F401,F403
from .softmax import logsumexp, softmax  # noqa: F401
