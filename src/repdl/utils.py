"""repdl.utils: the research prototype's helper names (get_hash)."""
from .verify import get_hash

__all__ = ["get_hash"]
