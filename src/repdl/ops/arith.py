"""IEEE float32 arithmetic: add, sub, mul, div, neg and fma32 (docs/CONTRACT.md,
sections 1 and 6).

Each element is one correctly rounded IEEE-754 operation (fma32: one
rounding of a*b + c), over torch's broadcasting and type promotion; a Python
number operand is ``fl32`` of its exact value.  Primitives: ``repdl::add``,
``sub``, ``mul``, ``div`` (two tensors), ``repdl::<op>_scalar`` (a tensor and
a float32 number, on either side) and ``repdl::fma32``.  Operations whose
operands are all integer or bool tensors keep torch's exact integer result,
as torch does (``div`` of integers computes in float32, like torch's true
division).
"""
import numbers

import torch

from .. import _checks, backends
from .._checks import PLAIN_TYPES
from .._library import primitive
from .._scalar import fl32
from . import _batching, _grad

__all__ = ["add", "sub", "mul", "div", "neg", "fma32"]

Tensor = torch.Tensor
_NUMBER = (float, int)


# ---- backward formulas (docs/CONTRACT.md, "Gradients") ------------------------------------
# g is the output's gradient; an operand that was broadcast gets its
# gradient summed back over the broadcast dims (_grad.sum_to).

def _keep_shapes(ctx, inputs, output):
    """add and sub: their gradients read no tensor, only the operands'
    shapes (as torch's add saves nothing, so no operand stays alive until the
    backward for them)."""
    a, b = inputs
    ctx.shapes = (a.shape, b.shape)


def _save_operands(ctx, inputs, output):
    """mul: both operands (each is the other's gradient factor)."""
    _keep_shapes(ctx, inputs, output)
    ctx.save_for_backward(*inputs)


def _save_divisor(ctx, inputs, output):
    """div: the divisor and the quotient (b's gradient is -g * (y / b))."""
    _keep_shapes(ctx, inputs, output)
    ctx.save_for_backward(inputs[1], output)


def _add_backward(ctx, g):
    sa, sb = ctx.shapes
    return _grad.sum_to(g, sa), _grad.sum_to(g, sb)


def _sub_backward(ctx, g):
    sa, sb = ctx.shapes
    return _grad.sum_to(g, sa), (_grad.sum_to(neg(g), sb) if ctx.needs_input_grad[1] else None)


def _mul_backward(ctx, g):
    a, b = ctx.saved_tensors
    sa, sb = ctx.shapes
    ga = _grad.sum_to(_TENSOR_OPS["mul"](g, b), sa) if ctx.needs_input_grad[0] else None
    gb = _grad.sum_to(_TENSOR_OPS["mul"](g, a), sb) if ctx.needs_input_grad[1] else None
    return ga, gb


def _div_backward(ctx, g):
    b, y = ctx.saved_tensors
    sa, sb = ctx.shapes
    ga = _grad.sum_to(_TENSOR_OPS["div"](g, b), sa) if ctx.needs_input_grad[0] else None
    gb = _grad.sum_to(_TENSOR_OPS["mul"](neg(g), _TENSOR_OPS["div"](y, b)), sb) if ctx.needs_input_grad[1] else None
    return ga, gb


def _keep_scalar(ctx, inputs, output):
    _, ctx.scalar, ctx.left = inputs


def _save_scalar_div(ctx, inputs, output):
    """Only s / a's gradient reads tensors (a and the output): the other
    scalar ops keep none alive until the backward (each had kept its input
    and output, two tensors of its size)."""
    _keep_scalar(ctx, inputs, output)
    if ctx.left:
        ctx.save_for_backward(inputs[0], output)


def _add_scalar_backward(ctx, g):
    return g, None, None


def _sub_scalar_backward(ctx, g):
    return (neg(g) if ctx.left else g), None, None


def _mul_scalar_backward(ctx, g):
    return _SCALAR_OPS["mul"](g, ctx.scalar, False), None, None


def _div_scalar_backward(ctx, g):
    if not ctx.left:  # a / s
        return _SCALAR_OPS["div"](g, ctx.scalar, False), None, None
    a, y = ctx.saved_tensors  # s / a: -g * (y / a)
    return _TENSOR_OPS["mul"](neg(g), _TENSOR_OPS["div"](y, a)), None, None


_BACKWARD = {"add": _add_backward, "sub": _sub_backward, "mul": _mul_backward, "div": _div_backward}
_SETUP = {"add": _keep_shapes, "sub": _keep_shapes, "mul": _save_operands, "div": _save_divisor}
_SCALAR_BACKWARD = {"add": _add_scalar_backward, "sub": _sub_scalar_backward, "mul": _mul_scalar_backward,
                    "div": _div_scalar_backward}


def _binary_op(op):
    def impl(a: Tensor, b: Tensor) -> Tensor:
        return backends.for_tensor(a).binary(op, a, b)

    def fake(a, b):
        return a.new_empty(_checks.broadcast_shape(op, a.shape, b.shape))

    impl.__name__ = f"{op}_impl"
    prim = primitive(op, impl, fake, setup_context=_SETUP[op], backward=_BACKWARD[op],
                     vmap=_batching.elementwise(lambda a, b: prim(a, b)))
    return prim


def _scalar_op(op):
    def impl(a: Tensor, s: float, scalar_left: bool) -> Tensor:
        return backends.for_tensor(a).binary_scalar(op, a, s, scalar_left)

    def fake(a, s, scalar_left):
        return torch.empty_like(a, memory_format=torch.contiguous_format)

    def vmap(info, in_dims, a, s, scalar_left):
        return prim(a, s, scalar_left), in_dims[0]

    impl.__name__ = f"{op}_scalar_impl"
    setup = _save_scalar_div if op == "div" else _keep_scalar
    prim = primitive(f"{op}_scalar", impl, fake, setup_context=setup, backward=_SCALAR_BACKWARD[op],
                     vmap=vmap)
    return prim


_TENSOR_OPS = {op: _binary_op(op) for op in ("add", "sub", "mul", "div")}
# A tensor and a Python number, the common case (scalings, means, optimizer
# steps): no tensor is made for the number, which arrives as fl32(number)
# held in a Python float.
_SCALAR_OPS = {op: _scalar_op(op) for op in ("add", "sub", "mul", "div")}
_TORCH_INTEGER_OPS = {"add": torch.add, "sub": torch.sub, "mul": torch.mul}


def _fma32_impl(a: Tensor, b: Tensor, c: Tensor) -> Tensor:
    return backends.for_tensor(a).fma32(a, b, c)


def _fma32_fake(a, b, c):
    shape = _checks.broadcast_shape("fma32", _checks.broadcast_shape("fma32", a.shape, b.shape), c.shape)
    return a.new_empty(shape)


def _fma32_setup(ctx, inputs, output):
    a, b, c = inputs
    ctx.shapes = (a.shape, b.shape, c.shape)
    ctx.save_for_backward(a, b)


def _fma32_backward(ctx, g):
    """da = g * b, db = g * a, dc = g, each summed back to its operand's shape."""
    a, b = ctx.saved_tensors
    sa, sb, sc = ctx.shapes
    need = ctx.needs_input_grad
    return (_grad.sum_to(_TENSOR_OPS["mul"](g, b), sa) if need[0] else None,
            _grad.sum_to(_TENSOR_OPS["mul"](g, a), sb) if need[1] else None,
            _grad.sum_to(g, sc) if need[2] else None)


_fma32 = primitive("fma32", _fma32_impl, _fma32_fake, setup_context=_fma32_setup, backward=_fma32_backward,
                   vmap=_batching.elementwise(lambda a, b, c: _fma32(a, b, c)))


def _check_operand(op, name, v):
    if isinstance(v, Tensor):
        if v.dtype != torch.float32 and (v.dtype.is_floating_point or v.dtype.is_complex):
            raise TypeError(f"repdl.{op}: {name} has dtype {v.dtype}; {_checks.UNSUPPORTED}")
    elif isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"repdl.{op}: {name} must be a Tensor or a real number, got {type(v).__name__}")


def _as_float32(v, device):
    if v.device != device and v.dim() == 0 and v.device.type == "cpu":
        v = v.to(device)  # a 0-d CPU tensor joins any device, as in torch
    return v.to(torch.float32)  # float32 already, or integer/bool: fl32 of each value


def _binary(op, input, other):
    """fl32(input op other) with torch's broadcasting and promotion."""
    if type(input) in PLAIN_TYPES and input.dtype is torch.float32:
        if type(other) in _NUMBER:
            return _SCALAR_OPS[op](input, fl32(other), False)
        # Two CPU tensors share a device: two is_cpu getters, where comparing
        # devices makes a device object each (0.07 us more).
        if (type(other) in PLAIN_TYPES and other.dtype is torch.float32
                and (input.is_cpu and other.is_cpu or input.device == other.device)):
            return _TENSOR_OPS[op](input, other)  # the backends check that the shapes broadcast
    _check_operand(op, "input", input)
    _check_operand(op, "other", other)
    tensors = [v for v in (input, other) if isinstance(v, Tensor)]
    if not tensors:
        raise TypeError(f"repdl.{op}: at least one of input and other must be a Tensor")
    if op != "div" and all(not (t.dtype.is_floating_point or t.dtype.is_complex) for t in tensors) \
            and all(isinstance(v, (Tensor, int)) for v in (input, other)):
        return _TORCH_INTEGER_OPS[op](input, other)  # integer arithmetic: exact, as torch computes it
    if not any(isinstance(v, Tensor) and v.dtype == torch.float32 for v in (input, other)):
        # integer or bool tensors with a float number, or integer true division:
        # torch computes in its default dtype, which must be float32
        _checks.promoted_float(op, torch.get_default_dtype())
    if not isinstance(input, Tensor):
        return _SCALAR_OPS[op](_as_float32(other, other.device), fl32(input), True)
    if not isinstance(other, Tensor):
        return _SCALAR_OPS[op](_as_float32(input, input.device), fl32(other), False)
    device = next((t.device for t in tensors if t.dim() > 0), tensors[0].device)
    a, b = _as_float32(input, device), _as_float32(other, device)
    if a.device != b.device:
        _checks.check_same_device(op, input=a, other=b)
    _checks.broadcast_shape(op, a.shape, b.shape)
    return _TENSOR_OPS[op](a, b)


def _scaled(op, other, alpha):
    """other * fl32(alpha) for torch's alpha= (one rounding of its own)."""
    if type(alpha) is int and alpha == 1:  # the default, before the slower type checks
        return other
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):
        raise TypeError(f"repdl.{op}: alpha must be a real number, got {type(alpha).__name__}")
    return other if alpha == 1 else _binary("mul", other, alpha)


def add(input, other, *, alpha=1) -> Tensor:
    """fl32(input + other); with alpha != 1, input + fl32(other * fl32(alpha)):
    two roundings, never a fused multiply-add."""
    return _binary("add", input, _scaled("add", other, alpha))


def sub(input, other, *, alpha=1) -> Tensor:
    """fl32(input - other); with alpha != 1, input - fl32(other * fl32(alpha))."""
    return _binary("sub", input, _scaled("sub", other, alpha))


def mul(input, other) -> Tensor:
    """fl32(input * other)."""
    return _binary("mul", input, other)


def div(input, other, *, rounding_mode=None) -> Tensor:
    """fl32(input / other): IEEE-754 division, never a multiplication by a
    reciprocal."""
    if rounding_mode is not None:
        if rounding_mode in ("trunc", "floor"):
            raise NotImplementedError(
                f"repdl.div: rounding_mode={rounding_mode!r} is not supported yet; only true division "
                "(rounding_mode=None) is")
        raise RuntimeError(
            f"repdl.div: expected rounding_mode to be one of None, 'trunc', or 'floor' but found {rounding_mode!r}")
    return _binary("div", input, other)


def neg(input: Tensor) -> Tensor:
    """-input: the sign flipped exactly (input * -1, one exact operation), NaN
    canonical; integer tensors keep torch's integer negation."""
    _checks.check_tensor("neg", "input", input)
    if input.dtype != torch.float32 and not (input.dtype.is_floating_point or input.dtype.is_complex):
        return torch.neg(input)
    return _SCALAR_OPS["mul"](_checks.float32_input("neg", input), -1.0, False)


def fma32(a: Tensor, b: Tensor, c: Tensor) -> Tensor:
    """round(a*b + c) with a single rounding, elementwise with broadcasting."""
    _checks.check_float32("fma32", a=a, b=b, c=c)
    _checks.check_same_device("fma32", a=a, b=b, c=c)
    _checks.broadcast_shape("fma32", _checks.broadcast_shape("fma32", a.shape, b.shape), c.shape)
    return _fma32(a, b, c)
