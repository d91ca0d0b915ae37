"""RepDL: bit-for-bit reproducible float32 training and inference for PyTorch.

The same bits on every run, thread count, CPU instruction set, machine,
PyTorch version and device.  See docs/CONTRACT.md for what each op computes.
"""
import torch  # noqa: F401  (first: see _native)

from . import _native, backends, ops, testing  # noqa: F401
from ._native import isa, set_isa  # noqa: F401
from .ops import *  # noqa: F401,F403
from . import random  # noqa: F401
from . import nn  # noqa: F401
from . import checkpoint, distributed, optim, utils  # noqa: F401
from .convert import from_torch_module  # noqa: F401
from .random import manual_seed  # noqa: F401
from .distributed import GradientAccumulator  # noqa: F401
from .dropin import (NonReproducibleError, NonReproducibleWarning, audit, disable, enable,  # noqa: F401
                     reproducible)

__version__ = "0.1.0"
