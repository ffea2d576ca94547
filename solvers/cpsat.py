"""The CP-SAT adapter (Google OR-Tools): writes a neutral :class:`Model` for CP-SAT, runs it.

It talks to CP-SAT's own layer, ``ortools.sat.python.cp_model_helper`` (the model's protocol
buffer, ``SolveWrapper``), not to ``cp_model``: the same solver and the same model, but
``cp_model`` imports pandas, for its ``pd.Series`` helpers, and that import took 0.25 of the
0.4 s its import costs (``python -X importtime``; ``cp_model_helper`` alone: 0.05 s,
ortools 9.15, 2026-12-02). Every CP-SAT solve pays it once per process, and the published
model's lane (``solvers.lane``), a fresh process, on every graph. The model written here is the
one ``cp_model`` writes for the same variables and rows (``tests/test_engines_cpsat.py``).

Enforcement literals are passed natively. Native statuses map explicitly: OPTIMAL -> optimal,
FEASIBLE -> feasible, INFEASIBLE -> infeasible, UNKNOWN -> unknown, MODEL_INVALID -> invalid;
anything else -> unknown.
"""

from __future__ import annotations

import importlib.util
import time
from importlib import metadata

from solvers.errors import SolverUnavailable
from solvers.interrupt import StopSignal, run_interruptibly, watching
from solvers.milp_model import Model, Outcome
from solvers.types import Request, Result

__all__ = ["NAME", "available", "load", "version", "run", "solve", "proto"]

NAME = "cpsat"

INT_MIN, INT_MAX = -(2**63), 2**63 - 1
"""CP-SAT's unbounded sides of a row (``cp_model.INT_MIN``, ``cp_model.INT_MAX``)."""


def available() -> bool:
    """True when ``ortools`` is installed (found, not imported)."""
    return importlib.util.find_spec("ortools") is not None


def load():
    """Import CP-SAT's layer now (about 0.05 s), e.g. before a time slice is measured out; the
    module. OR-Tools before 9.15 has no model buffer there: :class:`SolverUnavailable`."""
    from ortools.sat.python import cp_model_helper

    if not hasattr(cp_model_helper, "CpModelProto"):
        raise SolverUnavailable(f"the cpsat engine needs ortools >= 9.15, not {version()}")
    return cp_model_helper


def version() -> str:
    return f"ortools {metadata.version('ortools')}"


def proto(model: Model):
    """``model`` as CP-SAT's model buffer (``CpModelProto``): variable i is ``model.vars[i]``,
    a row ``lb <= sum coef x <= ub`` a linear constraint over the domain [lb, ub] (an infinite
    side is CP-SAT's int64 end; a row without terms an empty "and" (true) or "or" (false)), an
    enforcement literal ``x = 0`` its negation ``-x - 1``: the buffer ``cp_model`` builds from
    the same calls, field for field (so CP-SAT's search, and its luck, is the same)."""
    cmh = load()
    out = cmh.CpModelProto()
    for v in model.vars:
        var = out.variables.add()
        var.name = v.name
        var.domain.extend([int(v.lb), int(v.ub)])
    for c in model.constraints:
        row = out.constraints.add()
        row.enforcement_literal.extend([v if value else -v - 1 for v, value in c.enforce])
        terms = _merged(c.terms)
        if not terms:  # 0 in [lb, ub]: true (an empty "and"), or false (an empty "or")
            (row.bool_and if c.lb <= 0 <= c.ub else row.bool_or).literals.extend([])
            continue
        row.linear.vars.extend(list(terms))
        row.linear.coeffs.extend(list(terms.values()))
        lb = int(c.lb) if c.lb != float("-inf") else INT_MIN
        ub = int(c.ub) if c.ub != float("inf") else INT_MAX
        row.linear.domain.extend([lb, ub] if lb <= ub else [])  # lb > ub: no value, infeasible
    if model.objective:
        terms = _merged(model.objective)
        out.objective.vars.extend(list(terms))
        out.objective.coeffs.extend(list(terms.values()))
        out.objective.scaling_factor = 1
    if model.hint:
        out.solution_hint.vars.extend(list(model.hint))
        out.solution_hint.values.extend([int(value) for value in model.hint.values()])
    return out


def _merged(terms) -> dict[int, int]:
    """A row's terms as ``cp_model`` writes them: one per variable, by index, none zero."""
    merged: dict[int, int] = {}
    for v, coef in terms:
        merged[v] = merged.get(v, 0) + int(coef)
    return {v: coef for v, coef in sorted(merged.items()) if coef}


def run(
    model: Model,
    time_limit: float | None,
    threads: int,
    seed: int = 0,
    *,
    stop: StopSignal | None = None,
    stop_at: int | None = None,
) -> Outcome:
    """Solve ``model`` with CP-SAT; ``threads`` workers, deterministic for a given seed.

    ``stop``, when given, ends the search early from another thread (``SolveWrapper.stop_search``);
    a stopped search reports what it had, like a time limit (``feasible`` or ``unknown``).
    ``stop_at``: a lower bound on the (minimised) objective that the caller has proven; the search
    ends at the first solution whose value meets it, which is then optimal, and is reported so,
    with that bound. Issue 40, round 9: the published (r, s) model at R = r* (s*_R >= 1 proven by
    the r answer) finds a pair of value 1 fast and then spends seconds proving R-robustness
    again; told ``s >= 1`` as a row instead, CP-SAT's search changed and some other rows got
    slower (a scratch digraph G(26, 0.35), R = 2, s* = 2: 0.03 s -> 2.6 s), so the bound only
    stops the search (docs/performance.md, "Issue 40, round 9 (i40y)").
    """
    start = time.perf_counter()  # the import and the model building count against the limit
    cmh = load()
    written = proto(model)
    params = cmh.SatParameters()
    params.num_workers = max(1, threads)
    params.random_seed = seed
    if time_limit is not None:
        params.max_time_in_seconds = max(0.01, time_limit - (time.perf_counter() - start))
    for key, value in model.tuning.get(NAME, {}).items():
        setattr(params, key, value)
    # CP-SAT's own SIGINT handler ends the search as if timed out and leaves SIGINT at its
    # default action (a later Ctrl-C kills the process without cleanup): keep Python's.
    params.catch_sigint_signal = False
    solver = cmh.SolveWrapper()
    solver.set_parameters(params)
    met = _stop_at_callback(cmh, stop_at) if stop_at is not None and model.objective else None
    if met is not None:
        solver.add_solution_callback(met)
    with watching(stop, solver.stop_search):
        response = run_interruptibly(lambda: solver.solve(written), solver.stop_search)
    native = response.status
    status = cmh.CpSolverStatus
    mapped = {
        status.OPTIMAL: "optimal",
        status.FEASIBLE: "feasible",
        status.INFEASIBLE: "infeasible",
        status.UNKNOWN: "unknown",
        status.MODEL_INVALID: "invalid",
    }.get(native, "unknown")
    values = list(response.solution) if mapped in ("optimal", "feasible") else None
    bound = response.best_objective_bound if model.objective and mapped != "invalid" else None
    if met is not None and met.reached and values is not None:
        if response.objective_value <= stop_at + 1e-6:  # the caller's proven bound is met
            mapped, bound = "optimal", float(stop_at)
            return Outcome(mapped, values, bound, time.perf_counter() - start, "STOP_AT")
    return Outcome(mapped, values, bound, time.perf_counter() - start, native.name)


def _stop_at_callback(cmh, value: int):
    """A CP-SAT solution callback that ends the search at the first solution of objective value at
    most ``value`` (:func:`run`'s ``stop_at``); ``reached`` says whether it did."""

    class StopAt(cmh.SolutionCallback):
        def __init__(self) -> None:
            super().__init__()
            self.reached = False

        def OnSolutionCallback(self) -> None:  # noqa: N802 (CP-SAT's name)
            if self.ObjectiveValue() <= value + 1e-6:
                self.reached = True
                self.StopSearch()

    return StopAt()


def solve(request: Request) -> Result:
    """Answer ``request`` with CP-SAT in the request's formulation (see ``solvers.search``)."""
    from solvers.search import solve_with  # not at import: the lane's child needs run() only

    return solve_with(request, NAME, run, version())
