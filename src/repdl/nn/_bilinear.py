"""bilinear (torch.nn.functional.bilinear) as two products: u[..., o, i] =
fmachain over j of (W[o, i, j], x2[..., j]), then y[..., o] = fmachain over i
of (x1[..., i], u[..., o, i]), then + bias (one rounding)."""
from .. import _checks
from ..ops import _prims as P
from ..ops import linalg


def bilinear(input1, input2, weight, bias=None):
    """x1^T W[o] x2 for every output o, then + bias."""
    _checks.check_float32("bilinear", input1=input1, input2=input2, weight=weight)
    if bias is not None:
        _checks.check_float32_tensor("bilinear", "bias", bias)
    if weight.dim() != 3 or input1.shape[-1] != weight.shape[1] or input2.shape[-1] != weight.shape[2] \
            or input1.shape[:-1] != input2.shape[:-1]:
        raise RuntimeError(f"repdl.bilinear: shapes input1 {tuple(input1.shape)}, input2 {tuple(input2.shape)} and "
                           f"weight {tuple(weight.shape)} do not match")
    u = linalg.matmul(weight, input2.unsqueeze(-1).unsqueeze(-3)).squeeze(-1)                     # (..., O, I)
    y = linalg.matmul(input1.unsqueeze(-2).unsqueeze(-2), u.unsqueeze(-1)).reshape(*u.shape[:-1])  # (..., O)
    return y if bias is None else P.add(y, bias)
