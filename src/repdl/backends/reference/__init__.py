"""The reference backend: the contract (docs/CONTRACT.md) as code.

One small pure function per primitive, written with PyTorch ops whose
rounding is exact by construction (see ``_exact``), so it gives the same
bits on every device.  It is slow on purpose: clarity over speed.

Every entry point runs in the IEEE default floating-point environment
(``repdl._fpenv``): torch's CPU kernels would otherwise flush subnormals
under ``torch.set_flush_denormal(True)``.
"""
from ..._fpenv import ieee_env
from . import arith, conv, elementwise, linalg, norm, optim, pool, reductions, scatter, softmax

_ENTRY_POINTS = {
    arith: ("binary", "binary_", "binary_scalar", "clamp", "clamp_backward", "compare", "fma32"),
    conv: ("conv2d", "conv2d_input", "conv2d_weight"),
    linalg: ("linear", "matmul"),
    norm: ("norm_rows", "norm_rows_backward", "batch_norm", "batch_norm_backward",
           "batch_norm_evaluate", "batch_norm_running", "group_norm", "group_norm_backward"),
    optim: ("adagrad_step", "adam_step", "rmsprop_step", "sgd_step"),
    pool: ("avg_pool", "avg_pool_backward", "max_pool", "max_pool_backward"),
    reductions: ("extremum", "mean", "sqdev", "sum", "sumprod"),
    elementwise: tuple(elementwise.__all__),
    scatter: ("index_accumulate",),
    softmax: ("attention_softmax", "attention_softmax_backward", "class_nll", "class_nll_backward",
              "log_softmax_onehot_backward", "log_softmax_stats", "logsumexp", "nll", "nll_backward", "softmax",
              "softmax_backward"),
}
for _module, _names in _ENTRY_POINTS.items():
    for _name in _names:
        globals()[_name] = ieee_env(getattr(_module, _name))
del _module, _names, _name
