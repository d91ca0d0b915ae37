"""repdl.nn: torch.nn-compatible layers and functional API, reproducible.

Every layer is the torch.nn class of the same name (same constructor
arguments, parameters, buffers, state_dict keys and repr), with its
forward computed by RepDL's ops and its default initialisation drawn from
RepDL's stream (repdl.manual_seed), so the same seed gives the same initial
weights on every machine.  torch's containers and shape modules (Sequential,
ModuleList, ModuleDict, Flatten, Unflatten, Identity) work with them
unchanged and are re-exported here for convenience.
"""
from torch.nn import Flatten, Identity, Module, ModuleDict, ModuleList, Parameter, Sequential, Unflatten  # noqa: F401

from . import functional, utils  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules

__all__ = ["functional", "utils", "Flatten", "Identity", "Module", "ModuleDict", "ModuleList", "Parameter", "Sequential",
           "Unflatten", *_modules]
