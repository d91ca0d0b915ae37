"""Correctly rounded float32 log, cos and sin for the reference normal transform.

These are the elementwise family's reference functions (issue 3,
``repdl.backends.reference.elementwise``); the C++ kernels reach the same
functions through ``csrc/random/crmath.h``.  Both sides switch together.
"""
from ..backends.reference import elementwise as _ew

log = _ew.log
cos = _ew.cos
sin = _ew.sin
