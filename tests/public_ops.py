"""One call of every public op, for the tests that must cover all of them:
canonical NaN (test_nan_rule.py), flush-to-zero immunity
(test_flush_denormal.py), immunity to torch's default device and dtype
(test_torch_defaults.py) and compile against eager (test_compile.py).

``CASES[name] = (fn, args)``: ``args(x)`` builds the call's tensors from a
base (8, 6) float32 tensor ``x``, and ``fn(*args)`` makes the call.  Every
name in ``repdl.ops.__all__`` must appear (checked by ``test_every_public_op_has_a_case``),
so a new op cannot be left out.
"""
import torch

import repdl

TARGET = torch.tensor([0, 5, 2, 3, 1, 4, 0, 2])


def _x(x):
    return (x,)


def _xy(x):
    return x, x.flip(0)


def _sq(x):
    return x[:6], x[:6].t().flip(1)


CASES = {
    "add": (repdl.add, _xy),
    "sub": (lambda a, b: repdl.sub(a, b, alpha=3), _xy),
    "mul": (repdl.mul, _xy),
    "div": (repdl.div, _xy),
    "neg": (repdl.neg, _x),
    "fma32": (repdl.fma32, lambda x: (x, x.flip(0), x.flip(1))),
    "dot": (repdl.dot, lambda x: (x[0], x[1])),
    "mm": (repdl.mm, _sq),
    "bmm": (repdl.bmm, lambda x: (x.reshape(2, 4, 6), x.reshape(2, 6, 4))),
    "matmul": (repdl.matmul, lambda x: (x.reshape(2, 4, 6), x[:6, :5])),
    "addmm": (lambda i, a, b: repdl.addmm(i, a, b, beta=0.5, alpha=2), lambda x: (x[0, :6], *_sq(x))),
    "linear": (repdl.linear, lambda x: (x, x[:5], x[7, :5])),
    "sum": (lambda a: repdl.sum(a, 1), _x),
    "sum_pairwise": (lambda a: repdl.sum_pairwise(a, 0), _x),
    "mean": (lambda a: repdl.mean(a, 1), _x),
    "var": (lambda a: repdl.var(a, 0), _x),
    "std": (lambda a: repdl.std(a, 1, correction=0), _x),
    "max": (lambda a: repdl.max(a, 1).values, _x),
    "min": (lambda a: repdl.min(a), _x),
    "argmax": (lambda a: repdl.argmax(a, 0), _x),
    "argmin": (lambda a: repdl.argmin(a), _x),
    "softmax": (lambda a: repdl.softmax(a, 1), _x),
    "log_softmax": (lambda a: repdl.log_softmax(a, 0), _x),
    "logsumexp": (lambda a: repdl.logsumexp(a, 1), _x),
    "cross_entropy": (lambda a, t: repdl.cross_entropy(a, t, label_smoothing=0.1, reduction="none"),
                      lambda x: (x, TARGET)),
    "pow": (lambda a: repdl.pow(a, 3), _x),
    "gelu": (lambda a: repdl.gelu(a, approximate="tanh"), _x),
    "softplus": (lambda a: repdl.softplus(a, beta=2.0, threshold=5.0), _x),
    "elu": (lambda a: repdl.elu(a, alpha=0.5), _x),
    "celu": (lambda a: repdl.celu(a, alpha=2.0), _x),
    "clamp": (lambda a: repdl.clamp(a, -0.2, 0.3), _x),
    "hardtanh": (lambda a: repdl.hardtanh(a, -0.25, 0.5), _x),
    "leaky_relu": (lambda a: repdl.leaky_relu(a, 0.2), _x),
    "prelu": (repdl.prelu, lambda x: (x, x[0, :6].abs())),
    # spatial ops see x as a batch of images: (2, 2, 3, 4) or (2, 3, 8) and friends
    "conv1d": (lambda a, w, b: repdl.conv1d(a, w, b, stride=2, padding=1),
               lambda x: (x.reshape(2, 3, 8), x[:4].reshape(4, 3, 2), x[7, :4])),
    "conv2d": (lambda a, w, b: repdl.conv2d(a, w, b, padding=1, groups=2),
               lambda x: (x.reshape(2, 2, 3, 4), x[:3, :4].reshape(3, 1, 2, 2).repeat(2, 1, 1, 1), x[7, :6])),
    "conv_transpose1d": (lambda a, w: repdl.conv_transpose1d(a, w, stride=2, output_padding=1),
                         lambda x: (x.reshape(2, 3, 8), x[:3, :6].reshape(3, 2, 3))),
    "conv_transpose2d": (lambda a, w, b: repdl.conv_transpose2d(a, w, b, stride=2, padding=1),
                         lambda x: (x.reshape(2, 2, 3, 4), x[:3, :6].reshape(2, 1, 3, 3), x[7, :1])),
    "layer_norm": (lambda a, w, b: repdl.layer_norm(a, (6,), w, b), lambda x: (x, x[1], x[2])),
    "group_norm": (lambda a, w, b: repdl.group_norm(a, 2, w, b), lambda x: (x.reshape(2, 4, 6), x[0, :4], x[1, :4])),
    "rms_norm": (lambda a, w: repdl.rms_norm(a, (6,), w), lambda x: (x, x[3])),
    "batch_norm": (lambda a, w, b: repdl.batch_norm(a, None, None, w, b, training=True),
                   lambda x: (x.reshape(4, 2, 6), x[0, :2], x[1, :2])),
    "instance_norm": (repdl.instance_norm, lambda x: (x.reshape(2, 4, 6),)),
    "pad": (lambda a: repdl.pad(a, (2, 1, 1, 2), mode="reflect"), _x),
    "max_pool1d": (lambda a: repdl.max_pool1d(a, 3, 2, 1), lambda x: (x.reshape(2, 3, 8),)),
    "max_pool2d": (lambda a: repdl.max_pool2d(a, 2, 1, 1), lambda x: (x.reshape(2, 2, 3, 4),)),
    "avg_pool1d": (lambda a: repdl.avg_pool1d(a, 3, 2, 1), lambda x: (x.reshape(2, 3, 8),)),
    "avg_pool2d": (lambda a: repdl.avg_pool2d(a, 2, 1, 1, count_include_pad=False), lambda x: (x.reshape(2, 2, 3, 4),)),
    "adaptive_avg_pool1d": (lambda a: repdl.adaptive_avg_pool1d(a, 3), lambda x: (x.reshape(2, 3, 8),)),
    "adaptive_avg_pool2d": (lambda a: repdl.adaptive_avg_pool2d(a, (2, 3)), lambda x: (x.reshape(2, 2, 3, 4),)),
    "adaptive_max_pool1d": (lambda a: repdl.adaptive_max_pool1d(a, 3), lambda x: (x.reshape(2, 3, 8),)),
    "adaptive_max_pool2d": (lambda a: repdl.adaptive_max_pool2d(a, (2, 3)), lambda x: (x.reshape(2, 2, 3, 4),)),
    "nll_loss": (lambda a, t: repdl.nll_loss(a, t, ignore_index=2, reduction="none"),
                 lambda x: (x, torch.tensor([3, 4, 5, 0, 0, 1, 2, 2]))),
    "mse_loss": (repdl.mse_loss, _xy),
    "l1_loss": (lambda a, b: repdl.l1_loss(a, b, reduction="sum"), _xy),
    "smooth_l1_loss": (lambda a, b: repdl.smooth_l1_loss(a, b, reduction="none", beta=0.3), _xy),
    "huber_loss": (lambda a, b: repdl.huber_loss(a, b, delta=0.2), _xy),
    "binary_cross_entropy": (repdl.binary_cross_entropy, lambda x: (x * 0.1 + 0.5, x.flip(0) * 0.2 + 0.5)),
    "binary_cross_entropy_with_logits": (lambda a, t, w: repdl.binary_cross_entropy_with_logits(a, t, pos_weight=w),
                                         lambda x: (x, x.flip(0) * 0.2 + 0.5, x[0].abs())),
    "kl_div": (lambda a, t: repdl.kl_div(a, t, reduction="batchmean"), lambda x: (x, x.flip(0) * 0.2 + 0.5)),
    "cosine_embedding_loss": (lambda a, b, y: repdl.cosine_embedding_loss(a, b, y, 0.1),
                              lambda x: (x, x.flip(0), TARGET % 2 * 2 - 1)),
    "margin_ranking_loss": (lambda a, b, y: repdl.margin_ranking_loss(a, b, y, 0.1),
                            lambda x: (x[0], x[1], (TARGET[:6] % 2 * 2 - 1).float())),
    "embedding": (lambda i, w: repdl.embedding(i, w, padding_idx=2), lambda x: (TARGET.reshape(2, 4), x)),
    "scaled_dot_product_attention": (lambda q, k, v: repdl.scaled_dot_product_attention(q, k, v, is_causal=True),
                                     lambda x: (x.reshape(2, 4, 6), x.flip(0).reshape(2, 4, 6), x.flip(1).reshape(2, 4, 6))),
    "sign": (repdl.sign, _x),
}
# The rest are unary functions of one tensor.
for _name in repdl.ops.__all__:
    CASES.setdefault(_name, (getattr(repdl, _name), _x))

# Variants that take other code paths (weights, means, probability targets,
# Python numbers on either side of an operation).
VARIANTS = {
    "cross_entropy:weighted_mean": (
        lambda a, t, w: repdl.cross_entropy(a, t, weight=w, ignore_index=2), lambda x: (x, TARGET, x[0].abs())),
    "cross_entropy:none": (lambda a, t: repdl.cross_entropy(a, t, reduction="none"), lambda x: (x, TARGET)),
    "cross_entropy:probabilities": (
        lambda a, p: repdl.cross_entropy(a, p, label_smoothing=0.2), lambda x: (x, x.flip(0).abs())),
    "div:scalar_right": (lambda a: repdl.div(a, 1e-40), _x),
    "sub:scalar_left": (lambda a: repdl.sub(1e-39, a), _x),
    "mul:scalar": (lambda a: repdl.mul(a, 2.0 ** -100), _x),
    "addmm:default": (repdl.addmm, lambda x: (x[:6, :6], *_sq(x))),
    "mean:all": (repdl.mean, _x),
    "var:all": (repdl.var, _x),
    "softplus:default": (repdl.softplus, _x),
    "dropout": (lambda a: repdl.random.dropout(a, 0.3, generator=repdl.random.Generator(5)), _x),
    "pad:circular": (lambda a: repdl.pad(a, (2, 3), mode="circular"), _x),
    "pad:constant": (lambda a: repdl.pad(a, (1, -2, 0, 1), value=0.5), _x),
    "avg_pool2d:divisor_override": (lambda a: repdl.avg_pool2d(a, 2, 1, 1, divisor_override=3),
                                    lambda x: (x.reshape(2, 2, 3, 4),)),
    "max_pool2d:ceil": (lambda a: repdl.max_pool2d(a, 2, 2, ceil_mode=True, return_indices=True),
                        lambda x: (x.reshape(2, 2, 3, 4),)),
    "batch_norm:eval": (lambda a, m, v: repdl.batch_norm(a, m, v), lambda x: (x.reshape(4, 2, 6), x[0, :2], x[1, :2].abs())),
    "kl_div:log_target": (lambda a, t: repdl.kl_div(a, t, log_target=True), _xy),
    "scaled_dot_product_attention:gqa_mask": (
        lambda q, k, v, m: repdl.scaled_dot_product_attention(q, k, v, m, enable_gqa=True, scale=0.7),
        lambda x: (x.reshape(1, 4, 2, 6), x[:4].reshape(1, 2, 2, 6), x[4:].reshape(1, 2, 2, 6), x[:2, :2])),
}
ALL = {**CASES, **VARIANTS}
# Ops that refuse a NaN input, as torch does (its probabilities must lie in [0, 1]).
REJECTS_NAN = {"binary_cross_entropy"}


def outputs(result):
    """The float32 tensors of a result (a tensor, or a tuple of them)."""
    items = result if isinstance(result, (tuple, list)) else (result,)
    return [t for t in items if isinstance(t, torch.Tensor) and t.dtype == torch.float32]
