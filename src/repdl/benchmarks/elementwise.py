"""The correctly rounded functions as benchmark cases: each function's torch
twin and its natural input domain.  Used by bench/bench_elementwise.py (16M
elements, from memory), bench/bench_in_cache.py and `repdl bench`."""
import torch

import repdl

FUNCTIONS = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal", "sin", "cos",
             "erf", "erfc", "gelu", "gelu_tanh"]

# Functions that are not torch.<name> / repdl.<name>.
TORCH = {"gelu": torch.nn.functional.gelu,
         "gelu_tanh": lambda t: torch.nn.functional.gelu(t, approximate="tanh")}
REPDL = {"gelu_tanh": lambda t: repdl.gelu(t, approximate="tanh")}
FUNCTIONS += ["tanh", "sigmoid", "logsigmoid", "softplus", "silu", "mish", "elu", "selu", "celu"]
TORCH.update({name: getattr(torch.nn.functional, name) for name in ("logsigmoid", "softplus", "silu", "mish", "elu",
                                                                    "selu", "celu")})
# Parametrised activations off their defaults (the contract's fixed sequences).
PARAMETRISED = [("softplus", dict(beta=2.0, threshold=10.0)), ("elu", dict(alpha=0.5)), ("celu", dict(alpha=2.0))]


def domain(name, x):
    if name in ("log", "log2", "log10", "sqrt", "rsqrt"):
        return x.abs()
    if name == "log1p":
        return x.abs() - 0.5
    if name in ("sin", "cos"):
        return x * 10
    return x


def pair(name):
    """(torch function, RepDL function) for a name of FUNCTIONS."""
    return TORCH.get(name) or getattr(torch, name), REPDL.get(name) or getattr(repdl, name)
