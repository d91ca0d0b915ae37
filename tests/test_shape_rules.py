"""Shape and argument rules against torch's (contract section 8): for every
op, a table of argument shapes and dims; repdl must accept exactly what
torch accepts (with torch's result shape) and reject what torch rejects,
with torch's exception class."""
import pytest
import torch
import torch.nn.functional as F

import repdl


def T(*shape):
    return torch.ones(shape)


def I(*shape):
    return torch.zeros(shape, dtype=torch.int64)


# (name, repdl call, torch call, argument sets); each argument set is a tuple
# of positional arguments given to both.
MM = [(T(3, 4), T(4, 5)), (T(3, 4), T(5, 5)), (T(3), T(3, 4)), (T(2, 3, 4), T(4, 5)), (T(0, 4), T(4, 0)),
      (T(3, 0), T(0, 2))]
MATMUL = [(T(3), T(3)), (T(3), T(3, 4)), (T(4, 3), T(3)), (T(2, 4, 3), T(3, 5)), (T(3), T(2, 3, 5)),
          (T(2, 1, 3, 4), T(5, 4, 6)), (T(2, 3, 4), T(3, 4, 5)), (T(2, 3, 4), T(4, 3)), (T(3), T(4)),
          (T(), T(3)), (T(2, 4, 3), T(2, 3)), (T(0, 3), T(3)), (T(2, 0, 3), T(1, 3, 7))]
BMM = [(T(2, 3, 4), T(2, 4, 5)), (T(2, 3, 4), T(3, 4, 5)), (T(3, 4), T(4, 5)), (T(2, 3, 4), T(2, 3, 5)),
       (T(0, 3, 4), T(0, 4, 5))]
DOT = [(T(3), T(3)), (T(3), T(4)), (T(3, 1), T(3)), (T(0), T(0))]
ADDMM = [(T(*s), T(3, 4), T(4, 5)) for s in [(2, 3, 5), (1, 1, 1), (5,), (3, 1), (), (1, 5), (3, 5), (2, 5),
                                               (1,), (4,), (3, 5, 1)]] + [(T(3, 5), T(4), T(4, 5)),
                                                                          (T(3, 5), T(3, 4), T(3, 5))]
LINEAR = [(T(3, 4), T(5, 4), T(1, 5)), (T(2, 3, 4), T(5, 4), T(1, 5)), (T(2, 3, 4), T(5, 4), T(3, 5)),
          (T(3, 4), T(5, 4), T(2, 1, 5)), (T(3, 4), T(4)), (T(4), T(4)), (T(3, 4), T(5, 4), T()),
          (T(3, 4), T(5, 4), T(1)), (T(3, 4), T(5, 4), T(4)), (T(), T(5, 4)), (T(3, 4), T(2, 5, 4)),
          (T(3, 4), T(5, 3)), (T(4), T(5, 4), T(5)), (T(0, 4), T(5, 4), T(5)), (T(3, 4), T(4), T())]
BINARY = [(T(3, 1), T(4)), (T(2, 3), T(3, 2)), (T(), T(3)), (T(0, 3), T(1, 3)), (T(1, 0), T(5, 1)),
          (T(2, 1, 4), T(3, 1)), (T(3), T(4))]
FMA = [(T(3, 1), T(4), T(1)), (T(3), T(4), T(3)), (T(2, 1), T(1, 3), T(2, 3)), (T(3), T(3), T(2, 3))]
REDUCE_DIMS = [(T(3, 4), 1), (T(3, 4), -1), (T(3, 4), 2), (T(3, 4), -3), (T(3, 4), (0, 1)), (T(3, 4), (0, 0)),
               (T(3, 4), (1, -1)), (T(3, 4), None), (T(3, 4), ()), (T(), 0), (T(), -1), (T(), 1), (T(0, 3), 0),
               (T(2, 3, 4), (2, 0)), (T(3, 4), 1.0), (T(3, 4), [0]), (T(3, 4), "a")]
EXTREME_DIMS = [(T(3, 4), 1), (T(3, 4), -2), (T(3, 4), 2), (T(), 0), (T(0, 3), 1), (T(0, 3), 0), (T(3, 4), 1.0)]
SOFTMAX_DIMS = [(T(3, 4), 1), (T(3, 4), -2), (T(3, 4), 2), (T(), 0), (T(), -1), (T(0, 3), 1), (T(3, 4), 1.0)]
CE = [(T(3, 5), I(3)), (T(3, 5), I(2)), (T(5), I()), (T(5), I(1)), (T(3, 5, 2), I(3, 2)), (T(3, 5, 2), I(3, 5)),
      (T(3, 5, 2), I(3)), (T(3, 5), T(3, 5)), (T(3, 5), T(3, 4)), (T(3, 5), T(3)), (T(0, 5), I(0)),
      (T(3, 5), I(3, 1)), (T(), I())]

TABLE = [
    ("mm", repdl.mm, torch.mm, MM),
    ("matmul", repdl.matmul, torch.matmul, MATMUL),
    ("bmm", repdl.bmm, torch.bmm, BMM),
    ("dot", repdl.dot, torch.dot, DOT),
    ("addmm", repdl.addmm, torch.addmm, ADDMM),
    ("linear", repdl.linear, F.linear, LINEAR),
    ("add", repdl.add, torch.add, BINARY),
    ("sub", repdl.sub, torch.sub, BINARY),
    ("mul", repdl.mul, torch.mul, BINARY),
    ("div", repdl.div, torch.div, BINARY),
    ("fma32", repdl.fma32, lambda a, b, c: a * b + c, FMA),
    ("sum", repdl.sum, torch.sum, REDUCE_DIMS),
    ("sum_pairwise", repdl.sum_pairwise, torch.sum, REDUCE_DIMS),
    ("mean", repdl.mean, torch.mean, REDUCE_DIMS),
    ("var", repdl.var, torch.var, REDUCE_DIMS),
    ("std", repdl.std, torch.std, REDUCE_DIMS),
    ("logsumexp", repdl.logsumexp, torch.logsumexp, REDUCE_DIMS),
    ("max", repdl.max, torch.max, EXTREME_DIMS),
    ("min", repdl.min, torch.min, EXTREME_DIMS),
    ("argmax", repdl.argmax, torch.argmax, EXTREME_DIMS),
    ("argmin", repdl.argmin, torch.argmin, EXTREME_DIMS),
    ("softmax", repdl.softmax, torch.softmax, SOFTMAX_DIMS),
    ("log_softmax", repdl.log_softmax, torch.log_softmax, SOFTMAX_DIMS),
    ("cross_entropy", repdl.cross_entropy, F.cross_entropy, CE),
]

# Where torch's answer is not RepDL's, by decision (contract section 8):
# the implicit-dim forms and the reductions' empty/partial special cases
# torch treats as errors or warnings differently.
KNOWN_DIFFERENCES = {
    # torch.logsumexp requires dim; RepDL follows the other reductions (None = all dims)
    ("logsumexp", 7), ("logsumexp", 8),
    # torch accepts a string dim name for named tensors; both reject it for unnamed ones but with
    # different classes (torch: RuntimeError), RepDL: TypeError naming the argument
    ("sum", 16), ("sum_pairwise", 16), ("mean", 16), ("var", 16), ("std", 16), ("logsumexp", 16),
}


def outcome(fn, args):
    try:
        out = fn(*args)
    except Exception as e:  # noqa: BLE001 -- the class is what is compared
        return type(e)
    if isinstance(out, tuple):
        return tuple(tuple(o.shape) for o in out)
    return tuple(out.shape)


CASES = [(name, i, ours, theirs, args) for name, ours, theirs, table in TABLE for i, args in enumerate(table)]


@pytest.mark.parametrize("name,i,ours,theirs,args", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_accepts_and_rejects_what_torch_does(name, i, ours, theirs, args):
    if (name, i) in KNOWN_DIFFERENCES:
        pytest.skip("a documented difference from torch")
    want, got = outcome(theirs, args), outcome(ours, args)
    if isinstance(want, type):
        assert isinstance(got, type), f"{name}{[tuple(a.shape) if hasattr(a, 'shape') else a for a in args]}: " \
                                      f"torch raises {want.__name__}, RepDL returns shape {got}"
        assert issubclass(got, want), f"{name}: torch raises {want.__name__}, RepDL {got.__name__}"
    else:
        assert got == want, f"{name}{[tuple(a.shape) if hasattr(a, 'shape') else a for a in args]}: " \
                            f"torch gives {want}, RepDL {got}"


def test_non_tensor_arguments_raise_type_errors_naming_them():
    x = torch.ones(2, 3)
    with pytest.raises(TypeError, match="mat1"):
        repdl.addmm(torch.ones(2, 2), [[1.0]], torch.ones(1, 2))
    with pytest.raises(TypeError, match="weight"):
        repdl.cross_entropy(x, torch.tensor([0, 1]), weight=[1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="target"):
        repdl.cross_entropy(x, [0, 1])
    for fn in (repdl.sum, repdl.var, repdl.logsumexp, repdl.mean):
        with pytest.raises(TypeError, match="dim"):
            fn(x, 1.0)
