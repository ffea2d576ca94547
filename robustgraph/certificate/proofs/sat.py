"""Certifier side only: refute a CNF with CaDiCaL 1.9.5 (python-sat), logging an LRAT proof.

The verifier never runs this: it checks the logged proof with :mod:`.lrat`. python-sat's
``with_proof`` writes DRAT; CaDiCaL's own ``lrat`` option (set before the tracer is attached)
writes text LRAT with hints, so no DRAT-to-LRAT conversion is needed.

A time limit is kept by solving in slices of a conflict budget (``conf_budget`` +
``solve_limited``): python-sat cannot interrupt CaDiCaL 1.9.5 (its ``interrupt`` raises
``NotImplementedError`` in the caller's thread), while a conflict budget works; each slice
resumes the same search, so the proof log stays one refutation. A conflict costs from
microseconds to a millisecond (ER(60, 1/2) at r = 10: 53,000 clauses, 1 ms per conflict, so a
fixed 5,000-conflict slice ran 6.9 s past a 0.3 s limit), so the budget adapts: the first slice
is :data:`FIRST_SLICE` conflicts, and each next one as many as the measured cost per conflict
fits into the seconds :func:`next_budget` aims at. Each slice is a new ``solve`` call, which
costs some search (0.2-second slices took 4-14% more CPU than growing ones on six scratch
graphs at r = 10-11, with as many proof steps; issue 40 round 5, docs/performance.md), so a later
slice aims at a share of the time already spent (:data:`SLICE_SHARE`), at least
:data:`SLICE_SECONDS`, and never past the time left: a solve of T seconds is cut O(log T)
times.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Mapping

from robustgraph.certificate.proofs.cnf import Cnf
from solvers.extras import missing

__all__ = [
    "FIRST_SLICE", "SLICE_SECONDS", "SLICE_SHARE", "available", "refute", "solve", "next_budget",
]

FIRST_SLICE = 100
"""Conflicts in the first slice of a time-limited solve, before the cost per conflict is known."""

SLICE_SECONDS = 0.2
"""Least seconds a later slice aims at (unless less time is left)."""

SLICE_SHARE = 0.5
"""A later slice aims at this share of the seconds already spent and of the seconds left,
when that exceeds :data:`SLICE_SECONDS` (0 gives round 4's fixed 0.2-second slices). Half of
what is left keeps the deadline unless the cost per conflict more than doubles within one
slice; half of what was spent makes slices grow by half each time. Measured on scratch seeds
4331-4333 only (issue 40, round 5; docs/performance.md)."""


def next_budget(conflicts: int, seconds: float, left: float, spent: float = 0.0) -> int:
    """Conflicts for the next slice, after ``conflicts`` took ``seconds``, ``spent`` seconds
    of the solve have passed and ``left`` remain.

    It is what fits, at that cost per conflict, into ``min(left, max(SLICE_SECONDS,
    SLICE_SHARE * min(spent, left)))`` seconds, and at least :data:`FIRST_SLICE`.

    Examples
    --------
    >>> next_budget(100, 0.1, 10.0)  # 1 ms per conflict: 0.2 s is 200 conflicts
    200
    >>> next_budget(100, 0.001, 0.05)  # 10 us per conflict, 50 ms left: 5,000 conflicts
    5000
    >>> next_budget(100, 0.1, 10.0, spent=4.0)  # half of the 4 s spent: 2,000 conflicts
    2000
    >>> next_budget(100, 0.1, 3.0, spent=40.0)  # half of the 3 s left: 1,500 conflicts
    1500
    """
    per_conflict = max(seconds, 1e-6) / conflicts
    aim = min(left, max(SLICE_SECONDS, SLICE_SHARE * min(spent, left)))
    return max(FIRST_SLICE, int(aim / per_conflict))


def available() -> bool:
    """True when python-sat (with CaDiCaL 1.9.5) is installed."""
    try:
        import pysolvers  # noqa: F401
        from pysat.solvers import Cadical195  # noqa: F401
    except ImportError:
        return False
    return True


def refute(
    cnf: Cnf, time_limit: float | None = None, *, options: Mapping[str, int] | None = None
) -> tuple[bool | None, bytes | None]:
    """Solve ``cnf``; return ``(False, lrat_text)`` when unsatisfiable.

    ``(True, None)`` when satisfiable, ``(None, None)`` when stopped at ``time_limit`` seconds.
    ``options`` are CaDiCaL options (name -> value, as its ``--name=value``) set before the
    clauses are added; they change the search, never what the proof must be (a refutation of
    ``cnf``: the caller checks it).

    Raises
    ------
    MissingExtra
        When python-sat is not installed (the ``proofs`` extra).
    """
    status, text, _ = solve(cnf, time_limit, options=options)
    return status, text


def solve(
    cnf: Cnf, time_limit: float | None = None, *, options: Mapping[str, int] | None = None
) -> tuple[bool | None, bytes | None, list[int] | None]:
    """As :func:`refute`, and the model (DIMACS literals) as third item when satisfiable."""
    if not available():
        raise missing("pysat", "LRAT proofs")
    import pysolvers
    from pysat.solvers import Cadical195

    solver = Cadical195()
    try:
        pysolvers.cadical195_set(solver.cadical, "lrat", 1)
        pysolvers.cadical195_set(solver.cadical, "binary", 0)
        for name, value in (options or {}).items():
            pysolvers.cadical195_set(solver.cadical, name, value)
        solver.prfile = tempfile.TemporaryFile()
        solver.prfp = pysolvers.cadical195_tracepr(solver.cadical, solver.prfile)
        for clause in cnf.clauses:
            solver.add_clause(list(clause))
        if time_limit is None:
            status = solver.solve()
        else:
            began = time.monotonic()
            deadline = began + time_limit
            status, budget = None, FIRST_SLICE
            while status is None and (start := time.monotonic()) < deadline:
                solver.conf_budget(budget)
                status = solver.solve_limited()
                now = time.monotonic()
                budget = next_budget(budget, now - start, deadline - now, now - began)
        if status is not False:
            return status, None, solver.get_model() if status else None
        pysolvers.flushpr(solver.prfp)
        solver.prfile.seek(0)
        return False, solver.prfile.read(), None
    finally:
        solver.delete()
