"""Layer benchmark cases, forward plus backward: convolutions, linear,
layer_norm, batch_norm, group_norm, softmax and attention, each as (name, torch step, RepDL step).
Used by bench/bench_nn.py and `repdl bench`."""
import torch
import torch.nn.functional as F

import repdl.nn.functional as RF


def fwd_bwd(fn, inputs, grad_output=None):
    """One forward and backward of fn(*inputs) (leaves that require grad),
    the output's gradient `grad_output` (default: ones)."""
    leaves = [t for t in inputs if isinstance(t, torch.Tensor) and t.requires_grad]

    def step():
        out = fn(*inputs)
        torch.autograd.grad(out, leaves, torch.ones_like(out) if grad_output is None else grad_output)

    return step


def leaf(*shape):
    return torch.randn(*shape).requires_grad_()


def conv_cases(quick):
    cases = [("conv2d 32x64x56x56 3x3 p1", (32, 64, 56, 64, 3, 1, 1, 1)),
             ("conv2d 32x3x224x224 7x7 s2 p3", (32, 3, 224, 64, 7, 2, 3, 1)),
             ("conv2d 32x64x56x56 1x1", (32, 64, 56, 64, 1, 1, 0, 1)),
             ("conv2d 32x64x56x56 -> 128 3x3 s2 p1", (32, 64, 56, 128, 3, 2, 1, 1)),
             ("conv2d 32x64x56x56 3x3 depthwise", (32, 64, 56, 64, 3, 1, 1, 64))]
    if quick:
        cases = [(name.replace("32x", "4x"), (4, *rest)) for name, (_, *rest) in cases]
    for name, (n, c, h, oc, k, s, p, g) in cases:
        first_layer = c == 3  # the input image of a network needs no gradient
        x = torch.randn(n, c, h, h).requires_grad_(not first_layer)
        w = leaf(oc, c // g, k, k)
        yield name + (" (no grad_input)" if first_layer else ""), \
            fwd_bwd(lambda a, b, s=s, p=p, g=g: F.conv2d(a, b, None, s, p, 1, g), (x, w)), \
            fwd_bwd(lambda a, b, s=s, p=p, g=g: RF.conv2d(a, b, None, s, p, 1, g), (x, w))


def layer_cases(quick):
    tokens = 512 if quick else 2048
    x, w, b = leaf(tokens, 768), leaf(3072, 768), leaf(3072)
    yield "linear 2048x768 -> 3072", fwd_bwd(F.linear, (x, w, b)), fwd_bwd(RF.linear, (x, w, b))
    x2, w2 = leaf(tokens, 3072), leaf(768, 3072)
    yield "linear 2048x3072 -> 768", fwd_bwd(F.linear, (x2, w2)), fwd_bwd(RF.linear, (x2, w2))
    h, lw, lb = leaf(tokens, 768), leaf(768), leaf(768)
    yield "layer_norm 2048x768", fwd_bwd(lambda a, c, d: F.layer_norm(a, (768,), c, d), (h, lw, lb)), \
        fwd_bwd(lambda a, c, d: RF.layer_norm(a, (768,), c, d), (h, lw, lb))
    for shape in ((8 if quick else 32, 64, 28, 28), (256, 512)):
        c = shape[1]
        x, bw, bb = leaf(*shape), leaf(c), leaf(c)
        running = {fw: (torch.zeros(c), torch.ones(c)) for fw in ("torch", "repdl")}
        yield f"batch_norm {'x'.join(map(str, shape))} training", \
            fwd_bwd(lambda a, c_, d, r=running["torch"]: F.batch_norm(a, *r, c_, d, True), (x, bw, bb)), \
            fwd_bwd(lambda a, c_, d, r=running["repdl"]: RF.batch_norm(a, *r, c_, d, True), (x, bw, bb))
    x, gw, gb = leaf(4 if quick else 16, 128, 32, 32), leaf(128), leaf(128)  # a diffusion UNet's GroupNorm(32, 128)
    yield f"group_norm {'x'.join(map(str, x.shape))} 32 groups", \
        fwd_bwd(lambda a, c_, d: F.group_norm(a, 32, c_, d), (x, gw, gb)), \
        fwd_bwd(lambda a, c_, d: RF.group_norm(a, 32, c_, d), (x, gw, gb))
    s = leaf(16 if quick else 64, 128, 128)
    gs = torch.randn(s.shape)  # ones would make softmax's gradient subnormal (in_cache.softmax_cases)
    yield "softmax 64x128x128", fwd_bwd(lambda a: F.softmax(a, -1), (s,), gs), \
        fwd_bwd(lambda a: RF.softmax(a, -1), (s,), gs)
    q, k, v = leaf(4, 8, 128, 64), leaf(4, 8, 128, 64), leaf(4, 8, 128, 64)
    yield "sdpa 4x8x128x64 causal", \
        fwd_bwd(lambda a, c, d: F.scaled_dot_product_attention(a, c, d, is_causal=True), (q, k, v)), \
        fwd_bwd(lambda a, c, d: RF.scaled_dot_product_attention(a, c, d, is_causal=True), (q, k, v))

