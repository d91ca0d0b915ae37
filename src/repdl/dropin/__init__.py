"""repdl.dropin: run unmodified PyTorch code reproducibly (``repdl.reproducible``)
and say exactly where it cannot (``repdl.audit``).  docs/dropin.md explains
the design; ``table`` is the classification of every op."""
from .audit import AuditReport, audit
from .mode import NonReproducibleError, NonReproducibleWarning, active, disable, enable, reproducible

__all__ = ["reproducible", "enable", "disable", "active", "audit", "AuditReport", "NonReproducibleError",
           "NonReproducibleWarning"]
