"""Certifier side only: refute a CNF with CaDiCaL 1.9.5 (python-sat), logging an LRAT proof.

The verifier never runs this: it checks the logged proof with :mod:`.lrat`. python-sat's
``with_proof`` writes DRAT; CaDiCaL's own ``lrat`` option (set before the tracer is attached)
writes text LRAT with hints, so no DRAT-to-LRAT conversion is needed.

A time limit is kept by solving in slices of :data:`CONFLICTS_PER_SLICE` conflicts
(``conf_budget`` + ``solve_limited``): python-sat cannot interrupt CaDiCaL 1.9.5 (its
``interrupt`` raises ``NotImplementedError`` in the caller's thread), while a conflict budget
works; each slice resumes the same search, so the proof log stays one refutation.
"""

from __future__ import annotations

import tempfile
import time

from robustgraph.certificate.proofs.cnf import Cnf
from solvers.errors import SolverUnavailable

__all__ = ["CONFLICTS_PER_SLICE", "available", "refute"]

CONFLICTS_PER_SLICE = 5_000
"""Conflicts per slice of a time-limited solve: a few milliseconds to a few tenths of a second."""


def available() -> bool:
    """True when python-sat (with CaDiCaL 1.9.5) is installed."""
    try:
        import pysolvers  # noqa: F401
        from pysat.solvers import Cadical195  # noqa: F401
    except ImportError:
        return False
    return True


def refute(cnf: Cnf, time_limit: float | None = None) -> tuple[bool | None, bytes | None]:
    """Solve ``cnf``; return ``(False, lrat_text)`` when unsatisfiable.

    ``(True, None)`` when satisfiable, ``(None, None)`` when stopped at ``time_limit`` seconds.

    Raises
    ------
    SolverUnavailable
        When python-sat is not installed.
    """
    if not available():
        raise SolverUnavailable("LRAT proofs need python-sat: pip install python-sat")
    import pysolvers
    from pysat.solvers import Cadical195

    solver = Cadical195()
    try:
        pysolvers.cadical195_set(solver.cadical, "lrat", 1)
        pysolvers.cadical195_set(solver.cadical, "binary", 0)
        solver.prfile = tempfile.TemporaryFile()
        solver.prfp = pysolvers.cadical195_tracepr(solver.cadical, solver.prfile)
        for clause in cnf.clauses:
            solver.add_clause(list(clause))
        if time_limit is None:
            status = solver.solve()
        else:
            deadline = time.monotonic() + time_limit
            status = None
            while status is None and time.monotonic() < deadline:
                solver.conf_budget(CONFLICTS_PER_SLICE)
                status = solver.solve_limited()
        if status is not False:
            return status, None
        pysolvers.flushpr(solver.prfp)
        solver.prfile.seek(0)
        return False, solver.prfile.read()
    finally:
        solver.delete()
