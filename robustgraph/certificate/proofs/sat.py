"""Certifier side only: refute a CNF with CaDiCaL 1.9.5 (python-sat), logging an LRAT proof.

The verifier never runs this: it checks the logged proof with :mod:`.lrat`. python-sat's
``with_proof`` writes DRAT; CaDiCaL's own ``lrat`` option (set before the tracer is attached)
writes text LRAT with hints, so no DRAT-to-LRAT conversion is needed.
"""

from __future__ import annotations

import tempfile
import threading

from robustgraph.certificate.proofs.cnf import Cnf
from solvers.errors import SolverUnavailable

__all__ = ["available", "refute"]


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
        timer = None if time_limit is None else threading.Timer(time_limit, solver.interrupt)
        if timer is not None:
            timer.start()
        try:
            status = solver.solve_limited(expect_interrupt=True)
        finally:
            if timer is not None:
                timer.cancel()
        if status is not False:
            return status, None
        pysolvers.flushpr(solver.prfp)
        solver.prfile.seek(0)
        return False, solver.prfile.read()
    finally:
        solver.delete()
