"""CPU backend: 2-D convolution, its input gradient and its weight gradient
as GEMMs over im2col blocks (csrc/conv)."""
from ... import _C
from .outputs import row_major


def _geometry(x_shape, w_shape, out_hw, stride, padding, dilation, groups):
    n, c, h, w = x_shape
    oc, _, kh, kw = w_shape
    return (n, c, h, w, oc, kh, kw, *out_hw, *stride, *padding, *dilation, groups)


def conv2d(x, w, bias, out_hw, stride, padding, dilation, groups):
    """y (N, OC, OH, OW) = conv(x, w), + bias (OC) where given: each job's
    outputs while in cache, not a pass of their own."""
    x, w = x.contiguous(), w.contiguous()
    y = row_major((x.shape[0], w.shape[0], *out_hw))
    _C.conv_forward(*_geometry(x.shape, w.shape, out_hw, stride, padding, dilation, groups),
                    x.data_ptr(), w.data_ptr(), 0 if bias is None else bias.contiguous().data_ptr(), y.data_ptr())
    return y


def conv2d_input(dy, w, input_size, stride, padding, dilation, groups):
    """dx of shape input_size from dy (N, OC, OH, OW)."""
    dy, w = dy.contiguous(), w.contiguous()
    dx = row_major(input_size)
    _C.conv_grad_input(*_geometry(input_size, w.shape, dy.shape[2:], stride, padding, dilation, groups),
                       dy.data_ptr(), w.data_ptr(), dx.data_ptr())
    return dx


def conv2d_weight(x, dy, weight_size, stride, padding, dilation, groups):
    """dw of shape weight_size from x and dy."""
    x, dy = x.contiguous(), dy.contiguous()
    dw = row_major(weight_size)
    _C.conv_grad_weight(*_geometry(x.shape, weight_size, dy.shape[2:], stride, padding, dilation, groups),
                        x.data_ptr(), dy.data_ptr(), dw.data_ptr())
    return dw
