"""The HiGHS adapter, through ``highspy`` directly (not scipy's older bundled HiGHS).

Enforcement literals are linearised with exact big-M terms (:meth:`Model.linearised`). Native
model statuses map explicitly: kOptimal -> optimal, kInfeasible -> infeasible; kTimeLimit,
kIterationLimit, kSolutionLimit, kInterrupt, kHighsInterrupt, kMemoryLimit, kObjectiveBound,
kObjectiveTarget, kUnknown -> feasible when a primal feasible solution exists, else unknown;
kLoadError, kModelError, kPresolveError, kSolveError, kPostsolveError -> invalid; anything else
-> unknown. The proven bound is ``mip_dual_bound``.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import time
from contextlib import contextmanager

from solvers.interrupt import StopSignal, run_interruptibly, watching
from solvers.milp_model import Model, Outcome
from solvers.search import solve_with
from solvers.types import Request, Result

__all__ = ["NAME", "available", "load", "version", "run", "solve"]

NAME = "highs"

_ERRORS = ("kLoadError", "kModelError", "kPresolveError", "kSolveError", "kPostsolveError")
_STOPPED = (
    "kTimeLimit",
    "kIterationLimit",
    "kSolutionLimit",
    "kInterrupt",
    "kHighsInterrupt",
    "kMemoryLimit",
    "kObjectiveBound",
    "kObjectiveTarget",
    "kUnknown",
)


def available() -> bool:
    """True when ``highspy`` is installed (found, not imported)."""
    return importlib.util.find_spec("highspy") is not None


def load() -> None:
    """Import highspy now (hundredths of a second), e.g. before a time slice is measured out."""
    import highspy  # noqa: F401


@contextmanager
def _quiet_stdout():
    """HiGHS prints a banner on stdout at its first construction: keep stdout clean for --json."""
    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        os.close(devnull)
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def _new_highs():
    import highspy

    with _quiet_stdout():
        h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    return h


def version() -> str:
    h = _new_highs()
    return f"highspy {h.version()}"


def _run_and_release(h):
    """``h.run()``, then this thread's HiGHS worker threads stopped and joined
    (``resetGlobalScheduler(True)``) before it returns.

    HiGHS keeps a pool of worker threads per thread that solves; left to themselves they are
    stopped only when that thread's C++ thread-locals are destroyed, after the Python thread has
    been joined, so a process that exits at once (Ctrl-C: ``robustgraph: error: interrupted``)
    could tear down while they still ran. The clean-clone suite aborted once that way
    (``terminate called without an active exception``, exit -6, in
    ``test_ctrl_c_stops_a_native_solve[highs]``, 2026-12-07); counted in the thread that solved,
    right after a two-thread solve one HiGHS worker thread was still alive
    (``tests/test_highs_threads.py``; docs/performance.md, "Issue 40, round 33")."""
    import highspy

    try:
        return h.run()
    finally:
        highspy.Highs.resetGlobalScheduler(True)


def run(
    model: Model,
    time_limit: float | None,
    threads: int,
    seed: int = 0,
    *,
    stop: StopSignal | None = None,
) -> Outcome:
    """Solve ``model`` with HiGHS's MIP solver.

    ``stop``, when given, ends the search early from another thread (``cancelSolve``, seen by
    the user-interrupt callback); a stopped search reports what it had, like a time limit.
    """
    start = time.perf_counter()  # the import counts against the time limit too
    import highspy

    h = _new_highs()
    h.setOptionValue("threads", max(1, threads))
    h.setOptionValue("random_seed", seed)
    if time_limit is not None:
        left = time_limit - (time.perf_counter() - start)
        h.setOptionValue("time_limit", max(0.01, float(left)))
    rows = model.linearised()
    inf = highspy.kHighsInf
    lp = highspy.HighsLp()
    lp.num_col_ = len(model.vars)
    lp.num_row_ = len(rows)
    cost = [0.0] * len(model.vars)
    for v, c in model.objective:
        cost[v] += c
    lp.col_cost_ = cost
    lp.col_lower_ = [float(v.lb) for v in model.vars]
    lp.col_upper_ = [float(v.ub) for v in model.vars]
    lp.row_lower_ = [c.lb if c.lb != float("-inf") else -inf for c in rows]
    lp.row_upper_ = [c.ub if c.ub != float("inf") else inf for c in rows]
    starts, index, value = [0], [], []
    for c in rows:
        for v, coef in c.terms:
            index.append(v)
            value.append(float(coef))
        starts.append(len(index))
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    lp.a_matrix_.start_ = starts
    lp.a_matrix_.index_ = index
    lp.a_matrix_.value_ = value
    lp.a_matrix_.num_col_ = lp.num_col_
    lp.a_matrix_.num_row_ = lp.num_row_
    lp.integrality_ = [highspy.HighsVarType.kInteger] * len(model.vars)
    if h.passModel(lp) != highspy.HighsStatus.kOk:
        return Outcome(
            "invalid", None, None, time.perf_counter() - start, "passModel rejected the model"
        )
    if model.hint:
        keys = sorted(model.hint)
        h.setSolution(len(keys), keys, [float(model.hint[k]) for k in keys])
    h.HandleUserInterrupt = True  # so that cancelSolve (Ctrl-C, a StopSignal) stops the search
    with watching(stop, h.cancelSolve):
        run_interruptibly(lambda: _run_and_release(h), h.cancelSolve)
    native = h.modelStatusToString(h.getModelStatus())
    name = h.getModelStatus().name
    info = h.getInfo()
    has_solution = info.primal_solution_status == 2
    if name == "kOptimal":
        status = "optimal"
    elif name == "kInfeasible":
        status = "infeasible"
    elif name in _ERRORS:
        status = "invalid"
    elif name in _STOPPED:
        status = "feasible" if has_solution else "unknown"
    else:
        status = "unknown"
    values = list(h.getSolution().col_value) if status in ("optimal", "feasible") else None
    bound = None
    if model.objective and status in ("optimal", "feasible", "unknown"):
        bound = float(info.mip_dual_bound)
    return Outcome(status, values, bound, time.perf_counter() - start, native)


def solve(request: Request) -> Result:
    """Answer ``request`` with HiGHS in the request's formulation (see ``solvers.search``)."""
    return solve_with(request, NAME, run, version())
