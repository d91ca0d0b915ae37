"""repdl.ops: the reproducible primitives, with torch's names and conventions.

Every function here computes exactly the graph that docs/CONTRACT.md gives
for it, on every device, thread count and instruction set.
"""
from . import arith as _arith
from . import elementwise as _elementwise
from . import linalg as _linalg
from . import loss as _loss
from . import reductions as _reductions
from . import softmax as _softmax
from .arith import *  # noqa: F401,F403
from .elementwise import *  # noqa: F401,F403
from .linalg import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .reductions import *  # noqa: F401,F403
from .softmax import *  # noqa: F401,F403

__all__ = [*_arith.__all__, *_linalg.__all__, *_reductions.__all__, *_softmax.__all__, *_loss.__all__, *_elementwise.__all__]
