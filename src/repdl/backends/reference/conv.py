"""Reference: 2-D convolution and its gradients (CONTRACT.md, "Convolution"),
as the reference matmul over explicitly built im2col matrices.  Building
them only moves values (and writes +0.0 for padding and stride holes), so
the chains are exactly the matmul's."""
import torch
import torch.nn.functional as F

from .arith import binary
from .linalg import matmul


def _cols(x, kernel, stride, padding, dilation, groups):
    """(N, G, C/G * KH * KW, OH * OW): the zero-padded im2col of x, rows
    (c, kh, kw) lexicographic within each group."""
    n, c = x.shape[:2]
    cols = F.unfold(x, kernel, dilation=dilation, padding=padding, stride=stride)
    return cols.reshape(n, groups, -1, cols.shape[-1])


def conv2d(x, w, bias, out_hw, stride, padding, dilation, groups):
    """y[n, oc] = chain over (c, kh, kw) of w[oc, c, kh, kw] * tap, then
    fl32(y[n, oc] + bias[oc]) where bias is given."""
    oc = w.shape[0]
    cols = _cols(x, w.shape[2:], stride, padding, dilation, groups)
    wg = w.reshape(groups, oc // groups, -1)
    y = matmul(wg, cols).reshape(x.shape[0], oc, *out_hw)
    return y if bias is None else binary("add", y, bias.reshape(-1, 1, 1))


def _dy_gather(dy, input_hw, kernel, stride, padding, dilation, groups):
    """(N, G, OC/G * KH * KW, H * W): b[(oc, kh, kw), (ih, iw)] = dy[oc, oh,
    ow] for the output reached from (ih, iw) by tap (kh, kw), +0.0 where
    none is (padding, stride holes)."""
    n, oc, oh, ow = dy.shape
    (h, w), (kh, kw) = input_hw, kernel

    def axis(size, out, k, s, p, d):
        i = torch.arange(size, device=dy.device).view(1, -1)
        t = i + p - torch.arange(k, device=dy.device).view(-1, 1) * d   # (k, size)
        o = torch.div(t, s, rounding_mode="floor")
        ok = (t >= 0) & (t % s == 0) & (o < out)
        return torch.where(ok, o, torch.full_like(o, out)), ok       # index `out` is the zero slot

    ih, okh = axis(h, oh, kh, stride[0], padding[0], dilation[0])
    iw, okw = axis(w, ow, kw, stride[1], padding[1], dilation[1])
    padded = F.pad(dy, (0, 1, 0, 1))                                  # (N, OC, OH + 1, OW + 1), last row/col 0
    # index (kh, H) x (kw, W) -> flat position in the padded output plane
    flat = (ih.view(kh, 1, h, 1) * (ow + 1) + iw.view(1, kw, 1, w))  # (kh, kw, H, W)
    b = padded.reshape(n, oc, -1)[:, :, flat.reshape(-1)]             # (N, OC, kh*kw*H*W)
    return b.reshape(n, groups, (oc // groups) * kh * kw, h * w)


def conv2d_input(dy, w, input_size, stride, padding, dilation, groups):
    """dx[n, c] = chain over (oc, kh, kw) of w[oc, c, kh, kw] * dy at the
    output that tap reaches (+0.0 where none does)."""
    n, c, h, wd = input_size
    oc, cg, kh, kw = w.shape
    b = _dy_gather(dy, (h, wd), (kh, kw), stride, padding, dilation, groups)
    # a[g, c, (oc, kh, kw)] = w[g*OCg + oc, c, kh, kw]
    a = w.reshape(groups, oc // groups, cg, kh * kw).permute(0, 2, 1, 3).reshape(groups, cg, -1)
    return matmul(a, b).reshape(n, c, h, wd)


def conv2d_weight(x, dy, weight_size, stride, padding, dilation, groups):
    """dw[oc, c, kh, kw] = chain over (n, oh, ow) of dy[n, oc, oh, ow] * tap."""
    oc = weight_size[0]
    n = x.shape[0]
    cols = _cols(x, weight_size[2:], stride, padding, dilation, groups)      # (N, G, K, P)
    cols = cols.permute(1, 0, 3, 2).reshape(groups, -1, cols.shape[2])      # (G, N*P, K)
    g = dy.reshape(n, groups, oc // groups, -1).permute(1, 2, 0, 3).reshape(groups, oc // groups, -1)  # (G, OCg, N*P)
    return matmul(g, cols).reshape(weight_size)
