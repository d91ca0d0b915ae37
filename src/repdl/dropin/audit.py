"""repdl.audit: run code under the drop-in mode (non-strict) and report
every op it met, its class, how often, and where each unsupported op was
called."""
import collections
import contextlib
import json
import warnings

from .table import UNSUPPORTED, function_name

__all__ = ["audit", "recording", "AuditReport"]


class AuditReport:
    """What one audited run met.  ``rows``: (level, op, class, calls), most
    called first within each level; ``unsupported``: op -> {(direction,
    site): calls}; ``result``: what the audited function returned."""

    def __init__(self):
        self._counts = collections.Counter()
        self._sites = collections.defaultdict(collections.Counter)
        self.result = None

    # ---- recording (called by the mode) -----------------------------------

    def seen(self, level: str, op, cls: str) -> None:
        self._counts[(level, op, cls)] += 1

    def unsupported(self, op: str, level: str, direction: str, site: str) -> None:
        self._counts[(level, op, UNSUPPORTED)] += 1
        self._sites[op][(direction, site)] += 1

    # ---- reading ----------------------------------------------------------

    @property
    def rows(self):
        merged = collections.Counter()
        for (level, op, cls), n in self._counts.items():
            name = op if isinstance(op, str) else (function_name(op) if level == "function" else str(op))
            merged[(level, name, cls)] += n
        return sorted(((level, name, cls, n) for (level, name, cls), n in merged.items()),
                      key=lambda row: (row[0] != "function", -row[3], row[1]))

    @property
    def unsupported_ops(self) -> dict:
        return {op: dict(sites) for op, sites in self._sites.items()}

    @property
    def reproducible(self) -> bool:
        """True when nothing unsupported ran."""
        return not self._sites

    def to_dict(self) -> dict:
        return {
            "reproducible": self.reproducible,
            "ops": [{"level": level, "op": op, "class": cls, "calls": n} for level, op, cls, n in self.rows],
            "unsupported": [{"op": op, "direction": direction, "site": site, "calls": n}
                            for op, sites in sorted(self._sites.items())
                            for (direction, site), n in sorted(sites.items())],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def table(self) -> str:
        """The report as a readable table."""
        rows = self.rows
        width = max([len(op) for _, op, _, _ in rows] + [2])
        lines = [f"{'level':8} {'op':{width}} {'class':15} {'calls':>7}"]
        lines += [f"{level:8} {op:{width}} {cls:15} {n:7d}" for level, op, cls, n in rows]
        if self._sites:
            lines += ["", "unsupported ops and where they ran:"]
            for op, sites in sorted(self._sites.items()):
                for (direction, site), n in sorted(sites.items()):
                    lines.append(f"  {op} ({direction}) at {site}: {n} call(s)")
        else:
            lines += ["", "every op that ran is reproducible"]
        return "\n".join(lines)

    def __repr__(self):
        return (f"AuditReport({len(self._counts)} op classes, "
                f"{len(self._sites)} unsupported op(s))")


@contextlib.contextmanager
def recording():
    """``with recording() as report:`` runs the block under
    ``repdl.reproducible(strict=False)``, recording into `report` (which
    holds what ran even when the block raises).  Nothing is warned: the
    report lists what the warnings would."""
    from .mode import current_session, reproducible
    report = AuditReport()
    with reproducible(strict=False):
        session = current_session()
        saved, session.audit = session.audit, report
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", category=UserWarning)
                yield report
        finally:
            session.audit = saved


def audit(fn, *args, **kwargs) -> AuditReport:
    """Run ``fn(*args, **kwargs)`` under ``repdl.reproducible(strict=False)``
    and return the report; its ``result`` is fn's return value."""
    with recording() as report:
        report.result = fn(*args, **kwargs)
    return report
