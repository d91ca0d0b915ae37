"""repdl.ops: the reproducible primitives, with torch's names and conventions.

Every function here computes exactly the graph that docs/CONTRACT.md gives
for it, on every device, thread count and instruction set.
"""
from . import arith as _arith
from . import attention as _attention
from . import conv as _conv
from . import elementwise as _elementwise
from . import embedding as _embedding
from . import linalg as _linalg
from . import loss as _loss
from . import loss_pointwise as _loss_pointwise
from . import norm as _norm
from . import padding as _padding
from . import piecewise as _piecewise
from . import pool as _pool
from . import reductions as _reductions
from . import softmax as _softmax
from .arith import *  # noqa: F401,F403
from .attention import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .elementwise import *  # noqa: F401,F403
from .embedding import *  # noqa: F401,F403
from .linalg import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .loss_pointwise import *  # noqa: F401,F403
from .norm import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .piecewise import *  # noqa: F401,F403
from .pool import *  # noqa: F401,F403
from .reductions import *  # noqa: F401,F403
from .softmax import *  # noqa: F401,F403

__all__ = [name for module in (_arith, _linalg, _reductions, _softmax, _loss, _loss_pointwise, _elementwise, _piecewise,
                               _conv, _norm, _padding, _pool, _embedding, _attention) for name in module.__all__]
