"""Initialisers with torch.nn.init's arguments, drawing from RepDL's stream.

Scalars (gains, standard deviations, bounds) are computed in Python float
with + - * / and math.sqrt only, in the order written in each docstring and
in docs/CONTRACT.md section 7; math.pow, ``**``, exp and log never enter,
because their last bit differs between C libraries.  The values are then
drawn with ``uniform_``, ``normal_`` or ``trunc_normal_``.

``reset_parameters_(module)`` gives a module tree torch's default
initialisation *distributions* (nn.Linear, Conv, Embedding, norms, RNNs,
attention, ...) from RepDL's stream, in a fixed order.
"""
import math

import torch
from torch import nn

from . import _args
from ._draws import normal_, trunc_normal_, uniform_  # noqa: F401  (trunc_normal_: re-exported)

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_",
           "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "reset_parameters_",
           "init_module_"]

_LINEAR_FNS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d")
_SQRT5 = math.sqrt(5.0)


# ---- scalars ------------------------------------------------------------------------------

def calculate_gain(nonlinearity, param=None) -> float:
    """torch.nn.init.calculate_gain, with negative_slope * negative_slope for
    torch's negative_slope ** 2:

    linear, conv*, sigmoid: 1;  tanh: 5.0 / 3;  relu: sqrt(2.0);  selu: 3.0 / 4;
    leaky_relu: sqrt(2.0 / (1 + s * s)), s = param (default 0.01)."""
    if nonlinearity in _LINEAR_FNS or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise ValueError(f"repdl.random.init.calculate_gain: negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope * slope))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"repdl.random.init.calculate_gain: unsupported nonlinearity {nonlinearity}")


def _fans(op, tensor):
    """(fan_in, fan_out): size(1) * receptive field and size(0) * receptive
    field, the receptive field being the product of dims 2.. (torch's rule)."""
    _args.float32_tensor(op, "tensor", tensor)
    if tensor.dim() < 2:
        raise ValueError(
            f"repdl.random.init.{op}: fan in and fan out can not be computed for a tensor with fewer than 2 dimensions")
    receptive = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _fan(op, tensor, mode):
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"repdl.random.init.{op}: mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _fans(op, tensor)
    return fan_in if mode == "fan_in" else fan_out


def _gain(op, gain):
    return _args.finite(f"init.{op}", "gain", gain)


# ---- initialisers ------------------------------------------------------------------------

def constant_(tensor, val):
    """Fill with fl32(val) (no draws)."""
    _args.float32_tensor("init.constant_", "tensor", tensor)
    val = _args.real("init.constant_", "val", val)
    with torch.no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    return constant_(tensor, 1.0)


def zeros_(tensor):
    return constant_(tensor, 0.0)


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """std = gain * sqrt(2.0 / (fan_in + fan_out)); bound = sqrt(3.0) * std;
    uniform_(tensor, -bound, bound)."""
    fan_in, fan_out = _fans("xavier_uniform_", tensor)
    gain = _gain("xavier_uniform_", gain)
    if tensor.numel() == 0:
        return tensor
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator=generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """std = gain * sqrt(2.0 / (fan_in + fan_out)); normal_(tensor, 0, std)."""
    fan_in, fan_out = _fans("xavier_normal_", tensor)
    gain = _gain("xavier_normal_", gain)
    if tensor.numel() == 0:
        return tensor
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator=generator)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """gain = calculate_gain(nonlinearity, a); std = gain / sqrt(fan);
    bound = sqrt(3.0) * std; uniform_(tensor, -bound, bound)."""
    fan = _fan("kaiming_uniform_", tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    if tensor.numel() == 0:
        return tensor
    std = gain / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator=generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """gain = calculate_gain(nonlinearity, a); std = gain / sqrt(fan);
    normal_(tensor, 0, std)."""
    fan = _fan("kaiming_normal_", tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    if tensor.numel() == 0:
        return tensor
    std = gain / math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator=generator)


# ---- default initialisation of modules --------------------------------------------------
# Each rule: (module type, function(module, generator)).  A rule draws for its
# module's own parameters (and, where torch's default reaches into children,
# theirs) in the order written; reset_parameters_ walks modules in
# module.modules() order (depth-first, registration order).

def _weight_and_fan_in_bias(m, g):
    """nn.Linear and nn.Conv*: kaiming_uniform_(weight, a=sqrt(5.0)); bias ~
    U(-1 / sqrt(fan_in), 1 / sqrt(fan_in)), or +0.0 if fan_in is 0."""
    kaiming_uniform_(m.weight, a=_SQRT5, generator=g)
    if m.bias is not None:
        fan_in, _ = _fans("reset_parameters_", m.weight)
        if fan_in > 0:
            bound = 1 / math.sqrt(fan_in)
            uniform_(m.bias, -bound, bound, generator=g)
        else:
            zeros_(m.bias)


def _bilinear(m, g):
    """bound = 1 / sqrt(weight.size(1)); weight, then bias, ~ U(-bound, bound)."""
    bound = 1 / math.sqrt(m.weight.size(1))
    uniform_(m.weight, -bound, bound, generator=g)
    if m.bias is not None:
        uniform_(m.bias, -bound, bound, generator=g)


def _embedding(m, g):
    """weight ~ N(0, 1); the padding_idx row, if any, +0.0."""
    normal_(m.weight, generator=g)
    if m.padding_idx is not None:
        with torch.no_grad():
            m.weight[m.padding_idx].fill_(0)


def _affine(m, g):
    """LayerNorm, GroupNorm, RMSNorm: weight 1, bias 0.  No draws."""
    if getattr(m, "weight", None) is not None:
        ones_(m.weight)
    if getattr(m, "bias", None) is not None:
        zeros_(m.bias)


def _norm_with_stats(m, g):
    """BatchNorm*, InstanceNorm*, SyncBatchNorm: running_mean 0, running_var
    1, num_batches_tracked 0; weight 1, bias 0.  No draws."""
    if getattr(m, "track_running_stats", False) and m.running_mean is not None:
        with torch.no_grad():
            m.running_mean.zero_()
            m.running_var.fill_(1)
            m.num_batches_tracked.zero_()
    _affine(m, g)


def _rnn(m, g):
    """RNN, LSTM, GRU and their cells: stdv = 1.0 / sqrt(hidden_size) (0 if
    hidden_size is 0); every parameter, in parameters() order, ~ U(-stdv, stdv)."""
    stdv = 1.0 / math.sqrt(m.hidden_size) if m.hidden_size > 0 else 0
    for p in m.parameters():
        uniform_(p, -stdv, stdv, generator=g)


def _multihead_attention(m, g):
    """in_proj_weight (or q, k, v_proj_weight) xavier_uniform_; bias_k,
    bias_v xavier_normal_; out_proj.weight as nn.Linear's weight; in_proj_bias
    and out_proj.bias +0.0 (out_proj.bias keeps nn.Linear's rule when there
    is no in_proj_bias, as in torch)."""
    if m._qkv_same_embed_dim:
        xavier_uniform_(m.in_proj_weight, generator=g)
    else:
        for w in (m.q_proj_weight, m.k_proj_weight, m.v_proj_weight):
            xavier_uniform_(w, generator=g)
    if m.bias_k is not None:
        xavier_normal_(m.bias_k, generator=g)
    if m.bias_v is not None:
        xavier_normal_(m.bias_v, generator=g)
    _weight_and_fan_in_bias(m.out_proj, g)
    if m.in_proj_bias is not None:
        zeros_(m.in_proj_bias)
        zeros_(m.out_proj.bias)


def _prelu(m, g):
    """weight = fl32(init) (no draws)."""
    constant_(m.weight, m.init)


def _transformer_xavier(m, g):
    """nn.Transformer, after every submodule's own default (in modules()
    order): every parameter with dim > 1, in parameters() order,
    xavier_uniform_ (torch's nn.Transformer._reset_parameters)."""
    for p in m.parameters():
        if p.dim() > 1:
            xavier_uniform_(p, generator=g)


def _rules():
    r = [
        (nn.MultiheadAttention, _multihead_attention),
        (nn.Linear, _weight_and_fan_in_bias),
        (nn.modules.conv._ConvNd, _weight_and_fan_in_bias),
        (nn.Bilinear, _bilinear),
        (nn.Embedding, _embedding),
        (nn.EmbeddingBag, _embedding),
        (nn.modules.batchnorm._NormBase, _norm_with_stats),
        (nn.LayerNorm, _affine),
        (nn.GroupNorm, _affine),
        (nn.modules.rnn.RNNBase, _rnn),
        (nn.modules.rnn.RNNCellBase, _rnn),
        (nn.PReLU, _prelu),
    ]
    if hasattr(nn, "RMSNorm"):
        r.append((nn.RMSNorm, _affine))
    return tuple(r)


_RULES = _rules()
# Rules that handle their whole subtree.
_SUBTREE = (nn.MultiheadAttention,)


def _rule(m):
    for cls, fn in _RULES:
        if isinstance(m, cls):
            return fn
    return None


def _check_params(m, recurse):
    for name, p in m.named_parameters(recurse=recurse):
        if isinstance(p, nn.parameter.UninitializedParameter):
            raise ValueError(f"repdl.random.init.reset_parameters_: {type(m).__name__}.{name} is not "
                             "materialized yet (lazy module); run a forward pass first")
        if p.dtype != torch.float32:
            raise TypeError(f"repdl.random.init.reset_parameters_: {type(m).__name__}.{name} has dtype "
                            f"{p.dtype}; RepDL initialises torch.float32 parameters only")


def _plan(module, strict):
    """Steps (callables of the generator) for module's tree, every module
    checked before any step runs."""
    steps, seen = [], set()

    def visit(m):
        if id(m) in seen:
            return
        seen.add(id(m))
        fn = _rule(m)
        if fn is not None:
            _check_params(m, recurse=isinstance(m, _SUBTREE))
            steps.append(lambda g, m=m, fn=fn: fn(m, g))
            if isinstance(m, _SUBTREE):
                seen.update(id(c) for c in m.modules())
                return
        else:
            own = [n for n, _ in m.named_parameters(recurse=False)]
            if own and strict:
                raise TypeError(
                    f"repdl.random.init.reset_parameters_: no default initialisation is known for "
                    f"{type(m).__name__} (its parameters {own}); initialise it explicitly, or pass strict=False "
                    f"to leave such parameters untouched")
        for c in m.children():
            visit(c)
        if isinstance(m, nn.Transformer):
            steps.append(lambda g, m=m: _transformer_xavier(m, g))

    visit(module)
    return steps


def reset_parameters_(module, generator=None, *, strict=True):
    """Give every parameter of `module`'s tree torch's default initialisation
    distribution, drawn from RepDL's stream.  Returns module.

    Modules are visited in module.modules() order; each known type draws its
    own parameters in the order its rule states (see the rules above and
    docs/CONTRACT.md section 7).  A module of unknown type that holds
    parameters of its own raises TypeError (before any draw) unless
    strict=False, which leaves those parameters untouched."""
    if not isinstance(module, nn.Module):
        raise TypeError(f"repdl.random.init.reset_parameters_: expects an nn.Module, got {type(module).__name__}")
    g = _args.generator("init.reset_parameters_", generator)
    steps = _plan(module, strict)
    with torch.no_grad():
        for step in steps:
            step(g)
    return module


def init_module_(module, generator=None):
    """The default initialisation of one module of a known type (the rules
    above): its own parameters only (MultiheadAttention: its out_proj too).
    repdl.nn's layers call it from reset_parameters.  Returns module."""
    fn = _rule(module)
    if fn is None:
        raise TypeError(f"repdl.random.init.init_module_: no default initialisation is known for "
                        f"{type(module).__name__}")
    _check_params(module, recurse=isinstance(module, _SUBTREE))
    g = _args.generator("init.init_module_", generator)
    with torch.no_grad():
        fn(module, g)
    return module
