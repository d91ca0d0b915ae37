"""The CPU backend: C++ kernels (repdl._C), bit-identical to the reference.

``NATIVE`` maps a primitive's name to its native entry, where it has one:
the common case of the primitive's CPU function taken in C, from the
tensors themselves (csrc/common/route.cpp), so a small call skips this
package's Python layers.
"""
from . import (arith as _arith, elementwise as _elementwise, linalg as _linalg, norm as _norm,
               reductions as _reductions, softmax as _softmax)
from .arith import binary, binary_, binary_scalar, clamp, clamp_backward, compare, fma32  # noqa: F401
from .conv import conv2d, conv2d_input, conv2d_weight  # noqa: F401
from .linalg import linear, matmul  # noqa: F401
from .norm import (batch_norm, batch_norm_backward, batch_norm_evaluate, batch_norm_running, group_norm,  # noqa: F401
                   group_norm_backward, norm_rows, norm_rows_backward)
from .optim import adagrad_step, adam_step, rmsprop_step, sgd_step  # noqa: F401
from .pool import avg_pool, avg_pool_backward, max_pool, max_pool_backward  # noqa: F401
from .scatter import index_accumulate  # noqa: F401
from .reductions import extremum, mean, sqdev, sum, sumprod  # noqa: F401
from .elementwise import *  # noqa: F401,F403
from .softmax import (attention_softmax, attention_softmax_backward, class_nll, class_nll_backward,  # noqa: F401
                      log_softmax_onehot_backward, log_softmax_stats, logsumexp, nll, nll_backward, softmax,
                      softmax_backward)

NATIVE = {**_arith.NATIVE, **_elementwise.NATIVE, **_linalg.NATIVE, **_norm.NATIVE, **_reductions.NATIVE,
          **_softmax.NATIVE}
