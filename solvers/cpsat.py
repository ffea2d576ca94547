"""The CP-SAT adapter (Google OR-Tools): translates a neutral :class:`Model` and runs it.

Enforcement literals are passed natively (``only_enforce_if``). Native statuses map explicitly:
OPTIMAL -> optimal, FEASIBLE -> feasible, INFEASIBLE -> infeasible, UNKNOWN -> unknown,
MODEL_INVALID -> invalid; anything else -> unknown.
"""

from __future__ import annotations

import importlib.util
import time
from importlib import metadata

from solvers.interrupt import StopSignal, run_interruptibly, watching
from solvers.milp_model import Model, Outcome
from solvers.search import solve_with
from solvers.types import Request, Result

__all__ = ["NAME", "available", "load", "version", "run", "solve"]

NAME = "cpsat"


def available() -> bool:
    """True when ``ortools`` is installed (found, not imported: the import costs about 1 s)."""
    return importlib.util.find_spec("ortools") is not None


def load() -> None:
    """Import OR-Tools now (about 1 s of CPU), e.g. before a time slice is measured out."""
    import ortools.sat.python.cp_model  # noqa: F401


def version() -> str:
    return f"ortools {metadata.version('ortools')}"


def run(
    model: Model,
    time_limit: float | None,
    threads: int,
    seed: int = 0,
    *,
    stop: StopSignal | None = None,
) -> Outcome:
    """Solve ``model`` with CP-SAT; ``threads`` workers, deterministic for a given seed.

    ``stop``, when given, ends the search early from another thread (``CpSolver.stop_search``);
    a stopped search reports what it had, like a time limit (``feasible`` or ``unknown``).
    """
    start = time.perf_counter()  # the import (about 1 s of CPU the first time) and the model
    from ortools.sat.python import cp_model  # building count against the time limit too

    cp = cp_model.CpModel()
    xs = [cp.new_int_var(v.lb, v.ub, v.name) for v in model.vars]
    for c in model.constraints:
        expr = sum(coef * xs[v] for v, coef in c.terms)
        lb = int(c.lb) if c.lb != float("-inf") else cp_model.INT_MIN
        ub = int(c.ub) if c.ub != float("inf") else cp_model.INT_MAX
        ct = cp.add_linear_constraint(expr, lb, ub)
        if c.enforce:
            ct.only_enforce_if([xs[v] if value else ~xs[v] for v, value in c.enforce])
    if model.objective:
        cp.minimize(sum(coef * xs[v] for v, coef in model.objective))
    for v, value in model.hint.items():
        cp.add_hint(xs[v], value)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = max(1, threads)
    solver.parameters.random_seed = seed
    if time_limit is not None:
        left = time_limit - (time.perf_counter() - start)
        solver.parameters.max_time_in_seconds = max(0.01, left)
    for key, value in model.tuning.get(NAME, {}).items():
        setattr(solver.parameters, key, value)
    # CP-SAT's own SIGINT handler ends the search as if timed out and leaves SIGINT at its
    # default action (a later Ctrl-C kills the process without cleanup): keep Python's.
    solver.parameters.catch_sigint_signal = False
    with watching(stop, solver.stop_search):
        native = run_interruptibly(lambda: solver.solve(cp), solver.stop_search)
    mapped = {
        cp_model.OPTIMAL: "optimal",
        cp_model.FEASIBLE: "feasible",
        cp_model.INFEASIBLE: "infeasible",
        cp_model.UNKNOWN: "unknown",
        cp_model.MODEL_INVALID: "invalid",
    }.get(native, "unknown")
    values = [solver.value(x) for x in xs] if mapped in ("optimal", "feasible") else None
    bound = solver.best_objective_bound if model.objective and mapped != "invalid" else None
    return Outcome(mapped, values, bound, time.perf_counter() - start, solver.status_name(native))


def solve(request: Request) -> Result:
    """Answer ``request`` with CP-SAT in the request's formulation (see ``solvers.search``)."""
    return solve_with(request, NAME, run, version())
