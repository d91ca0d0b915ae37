"""repdl.random: reproducible random numbers from RepDL's own stream.

Every value is a pure function of (seed, position) in a Philox4x32-10
stream (Salmon et al., SC'11) computed with integer operations, so it is
the same on every device, thread count, instruction set, machine and torch
release.  torch.manual_seed cannot promise that: CPU and CUDA generators
differ, and torch's sampling algorithms change between releases.  The
stream's layout, every transform and every initialiser's scalars are
written in docs/CONTRACT.md section 7.

    g = repdl.random.Generator(1234)
    x = repdl.random.randn(64, 128, generator=g)
    repdl.random.init.reset_parameters_(model, generator=g)
    state = g.get_state()            # resume later with g.set_state(state)

Without generator= the default generator is used (repdl.manual_seed).
"""
from . import augment, data, init  # noqa: F401
from ._draws import (bernoulli, normal_, rand, rand_like, randint, randn, randn_like, randperm,  # noqa: F401
                     trunc_normal_, uniform_)
from ._dropout import dropout, dropout1d, dropout2d, dropout3d, dropout_mask  # noqa: F401
from ._generator import (Generator, default_generator, get_rng_state, initial_seed, manual_seed,  # noqa: F401
                         set_rng_state)
from .augment import random_crop, random_horizontal_flip  # noqa: F401
from .data import RandomSampler, sample_generator  # noqa: F401

__all__ = ["Generator", "default_generator", "manual_seed", "initial_seed", "get_rng_state", "set_rng_state",
           "rand", "randn", "randint", "randperm", "bernoulli", "uniform_", "normal_", "trunc_normal_",
           "rand_like", "randn_like", "dropout", "dropout1d", "dropout2d", "dropout3d", "dropout_mask", "RandomSampler", "sample_generator", "random_crop",
           "random_horizontal_flip", "init", "data", "augment"]
