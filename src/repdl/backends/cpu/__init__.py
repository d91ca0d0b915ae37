"""The CPU backend: C++ kernels (repdl._C), bit-identical to the reference."""
from .linalg import fma32, matmul  # noqa: F401
from .elementwise import *  # noqa: F401,F403
