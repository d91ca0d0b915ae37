"""Which aten ops may run inside a reproducible computation without RepDL's
kernels: the allow-list the tests check every op's forward and backward
against, and the aten half of the drop-in mode's classification.

An op is reproducible as is when it cannot round: it moves, selects,
compares or allocates values (views, copies, fills, indexing, where,
scatter of single writes, comparisons), does exact integer or boolean
arithmetic, or is one IEEE-754 float operation per element (+ - * / with
alpha = 1, neg, abs), which every device rounds the same way.  Anything
else (reductions over floats, matmul, exp, fused forms such as addcmul,
alpha != 1, scatter-add, index_put with accumulate) is not, and must be
RepDL's own primitive.
"""
import torch

__all__ = ["is_exact", "float_args", "name", "MOVES", "IEEE"]

# Ops that never compute a new float value.
MOVES = {
    # views
    "view", "_unsafe_view", "reshape", "expand", "permute", "transpose", "t", "unsqueeze", "squeeze", "slice",
    "select", "as_strided", "alias", "detach", "unfold", "split", "split_with_sizes", "chunk", "narrow", "unbind",
    "diagonal", "view_as", "expand_as", "movedim", "flatten", "unflatten", "_reshape_alias", "numpy_T", "mT",
    "slice_backward", "select_backward",  # zeros with the gradient copied into the slice
    # allocation, fills and copies
    "empty", "empty_strided", "empty_like", "new_empty", "new_empty_strided", "zeros", "zeros_like", "new_zeros",
    "ones", "ones_like", "new_ones", "full", "full_like", "new_full", "fill", "fill_", "zero_", "copy_", "clone",
    "contiguous", "_to_copy", "to", "lift_fresh", "lift_fresh_copy", "scalar_tensor", "arange", "resize_",
    "set_", "_copy_from", "_copy_from_and_resize",
    # selection and indexing (each output a copy of one input value)
    "where", "gather", "index", "index_select", "masked_fill", "masked_select", "cat", "stack", "flip", "roll",
    "repeat", "tril", "triu", "constant_pad_nd", "take", "take_along_dim", "_local_scalar_dense", "item",
    "nonzero", "argsort", "sort", "topk", "argmax", "argmin", "searchsorted", "embedding",
    # comparisons and predicates
    "eq", "ne", "lt", "le", "gt", "ge", "isnan", "isinf", "isfinite", "signbit", "logical_and", "logical_or",
    "logical_not", "logical_xor", "any", "all", "equal", "is_nonzero", "is_same_size",
}
# Writes whose every destination receives one source value, not a sum.
_SINGLE_WRITES = {"scatter", "scatter_", "index_put", "index_put_", "masked_scatter", "index_fill", "index_fill_",
                  "masked_fill_"}
# One correctly rounded IEEE operation per element (or exact).
IEEE = {"add", "add_", "sub", "sub_", "mul", "mul_", "div", "div_", "neg", "neg_", "abs", "abs_", "rsub"}
# Exact only on integer and bool tensors (a float sum or product rounds).
_INTEGER = {"sum", "cumsum", "prod", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "remainder",
            "floor_divide", "bitwise_left_shift", "bitwise_right_shift", "__and__", "__or__", "__xor__",
            "__lshift__", "__rshift__", "max", "min", "amax", "amin", "maximum", "minimum", "clamp", "clamp_min",
            "clamp_max", "sign", "pow"}


def float_args(args, kwargs):
    """Whether a floating (or complex) tensor is among the arguments, lists included."""
    for a in (*args, *kwargs.values()):
        items = a if isinstance(a, (list, tuple)) else (a,)
        for t in items:
            if isinstance(t, torch.Tensor) and (t.dtype.is_floating_point or t.dtype.is_complex):
                return True
    return False


_NAMES = {}


def name(func) -> str:
    """An OpOverload's base name ('add' for aten.add.Tensor), cached."""
    found = _NAMES.get(func)
    if found is None:
        found = _NAMES[func] = func._schema.name.split("::")[-1]
    return found


def is_exact(func, args, kwargs) -> bool:
    """Whether this aten call (an OpOverload with its arguments) is
    reproducible as torch computes it."""
    if func.namespace == "repdl":
        return True
    if func.namespace not in ("aten", "prim"):
        return False
    name_ = name(func)
    overload = func._overloadname
    if name_ in MOVES:
        return True
    if name_ in _SINGLE_WRITES:
        positional = args[3] if name_.startswith("index_put") and len(args) > 3 else False
        return not kwargs.get("accumulate", positional) and "reduce" not in overload and "reduce" not in kwargs
    if name_ in IEEE:
        if not float_args(args, kwargs):
            return True  # integer arithmetic (floor division included) is exact
        alpha = kwargs.get("alpha", 1)
        return alpha == 1 and kwargs.get("rounding_mode") is None
    if name_ in _INTEGER:
        return not float_args(args, kwargs)
    return False
