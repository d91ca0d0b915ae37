"""repdl.nn.functional: torch.nn.functional's names and signatures over
RepDL's reproducible ops (docs/CONTRACT.md gives each one's graph and
gradient).  Dropouts draw from RepDL's stream (repdl.random)."""
from .. import ops as _ops
from ..ops import (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_max_pool1d, adaptive_max_pool2d,  # noqa: F401
                   avg_pool1d, avg_pool2d, batch_norm, binary_cross_entropy, binary_cross_entropy_with_logits,
                   celu, conv1d, conv2d, conv_transpose1d, conv_transpose2d, cosine_embedding_loss, cross_entropy,
                   elu, embedding, gelu, group_norm, hardsigmoid, hardswish, hardtanh, huber_loss, instance_norm,
                   kl_div, l1_loss, layer_norm, leaky_relu, linear, logsigmoid, margin_ranking_loss, max_pool1d,
                   max_pool2d, mish, mse_loss, nll_loss, pad, prelu, relu, relu6, rms_norm,
                   scaled_dot_product_attention, selu, sigmoid, silu, smooth_l1_loss, softplus, tanh)
from ..random import dropout, dropout1d, dropout2d, dropout3d  # noqa: F401
from ._bilinear import bilinear  # noqa: F401


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """torch.nn.functional.softmax (dim is required: the implicit choice is not supported)."""
    return _ops.softmax(input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """torch.nn.functional.log_softmax (dim is required)."""
    return _ops.log_softmax(input, dim, dtype)


__all__ = ["adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool1d", "adaptive_max_pool2d", "avg_pool1d",
           "avg_pool2d", "batch_norm", "bilinear", "binary_cross_entropy", "binary_cross_entropy_with_logits", "celu",
           "conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d", "cosine_embedding_loss", "cross_entropy",
           "dropout", "dropout1d", "dropout2d", "dropout3d", "elu", "embedding", "gelu", "group_norm", "hardsigmoid",
           "hardswish", "hardtanh", "huber_loss", "instance_norm", "kl_div", "l1_loss", "layer_norm", "leaky_relu",
           "linear", "log_softmax", "logsigmoid", "margin_ranking_loss", "max_pool1d", "max_pool2d", "mish",
           "mse_loss", "nll_loss", "pad", "prelu", "relu", "relu6", "rms_norm", "scaled_dot_product_attention",
           "selu", "sigmoid", "silu", "smooth_l1_loss", "softmax", "softplus", "tanh"]
