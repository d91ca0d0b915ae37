"""repdl.optim: torch.optim's optimizers with RepDL's step.

Each class extends its torch.optim namesake (same constructor arguments,
param_groups, state_dict format, hooks), and its step is the fixed float32
sequence of docs/CONTRACT.md ("Optimizers"), computed by RepDL's kernels:
the same bits on every machine, thread count and instruction set.
``foreach``, ``fused``, ``capturable`` and ``differentiable`` choose among
torch's implementations and raise NotImplementedError.
"""
from . import lr_scheduler  # noqa: F401
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "lr_scheduler"]
