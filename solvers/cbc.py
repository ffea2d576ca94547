"""The CBC adapter, through PuLP's bundled CBC binary.

PuLP's ``status`` calls a time-limited solve with an incumbent "Optimal"; the solution status
``sol_status`` tells the truth, so it alone is mapped: LpSolutionOptimal -> optimal,
LpSolutionIntegerFeasible -> feasible, LpSolutionInfeasible -> infeasible,
LpSolutionNoSolutionFound -> unknown, LpSolutionUnbounded -> invalid (our models are bounded);
one exception: CBC's "Integer infeasible" reaches PuLP as status Infeasible with sol_status
"No Solution Found", and that pair is a proof of infeasibility (a stopped search is reported as
status "Not Solved").
CBC's proven bound on a stopped search ("best possible" in its log) becomes the lower bound.
Enforcement literals are linearised with exact big-M terms (:meth:`Model.linearised`).
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import time
import warnings
from functools import lru_cache

from solvers.milp_model import Model, Outcome
from solvers.search import solve_with
from solvers.types import Request, Result

__all__ = ["NAME", "available", "version", "run", "solve"]

NAME = "cbc"

_BEST_POSSIBLE = re.compile(r"best possible ([-+0-9.eE]+)")


def available() -> bool:
    """True when PuLP imports and its bundled CBC binary runs."""
    try:
        import pulp  # noqa: F401
    except ImportError:
        return False
    return bool(_command(msg=False).available())


def _command(**options):
    """PuLP's bundled-CBC command (PuLP 3 warns that 4.0 moves CBC to an extra; keep quiet)."""
    import pulp

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return pulp.PULP_CBC_CMD(**options)


@lru_cache(maxsize=1)
def version() -> str:
    import pulp

    path = _command(msg=False).path
    try:
        out = subprocess.run([path, "-quit"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        out = ""
    found = re.search(r"Version:\s*(\S+)", out)
    return f"pulp {pulp.__version__} / CBC {found.group(1) if found else 'unknown'}"


def run(model: Model, time_limit: float | None, threads: int, seed: int = 0) -> Outcome:
    """Solve ``model`` with CBC (``seed`` is passed as CBC's ``randomCbcSeed``)."""
    import pulp

    with warnings.catch_warnings():  # PuLP 3 announces API changes for 4.0 on every call
        warnings.simplefilter("ignore", DeprecationWarning)
        return _run(pulp, model, time_limit, threads, seed)


def _run(pulp, model: Model, time_limit: float | None, threads: int, seed: int) -> Outcome:
    start = time.perf_counter()
    prob = pulp.LpProblem(model.name.replace("-", "_"), pulp.LpMinimize)
    xs = [
        pulp.LpVariable(f"x{k}", v.lb, v.ub, cat=pulp.LpInteger) for k, v in enumerate(model.vars)
    ]
    prob += pulp.lpSum(c * xs[v] for v, c in model.objective) if model.objective else 0
    for c in model.linearised():
        expr = pulp.lpSum(coef * xs[v] for v, coef in c.terms)
        if c.lb == c.ub:
            prob += expr == c.lb
            continue
        if c.lb != float("-inf"):
            prob += expr >= c.lb
        if c.ub != float("inf"):
            prob += expr <= c.ub
    for v, value in model.hint.items():
        xs[v].setInitialValue(value)
    with tempfile.TemporaryDirectory(prefix="robustgraph-cbc-") as tmp:
        log = os.path.join(tmp, "cbc.log")
        solver = _command(
            msg=False,
            timeLimit=None if time_limit is None else max(0.1, float(time_limit)),
            threads=max(1, threads),
            warmStart=bool(model.hint),
            logPath=log,
            options=[f"randomCbcSeed {seed + 1}"],
        )
        try:
            prob.solve(solver)
        except pulp.PulpSolverError as exc:
            return Outcome("invalid", None, None, time.perf_counter() - start, str(exc))
        text = open(log, encoding="utf-8", errors="replace").read() if os.path.exists(log) else ""
    mapped = {
        pulp.LpSolutionOptimal: "optimal",
        pulp.LpSolutionIntegerFeasible: "feasible",
        pulp.LpSolutionInfeasible: "infeasible",
        pulp.LpSolutionNoSolutionFound: "unknown",
        pulp.LpSolutionUnbounded: "invalid",
    }.get(prob.sol_status, "unknown")
    if mapped == "unknown" and prob.status == pulp.LpStatusInfeasible:
        mapped = "infeasible"  # CBC's "Integer infeasible": PuLP leaves sol_status at "none found"
    values = [x.varValue or 0.0 for x in xs] if mapped in ("optimal", "feasible") else None
    bound = None
    if model.objective and mapped == "optimal":
        bound = float(pulp.value(prob.objective))
    elif model.objective and mapped in ("feasible", "unknown"):
        found = _BEST_POSSIBLE.findall(text)
        bound = float(found[-1]) if found else None
    native = f"status={pulp.LpStatus[prob.status]}, sol_status={pulp.LpSolution[prob.sol_status]}"
    return Outcome(mapped, values, bound, time.perf_counter() - start, native)


def solve(request: Request) -> Result:
    """Answer ``request`` with CBC in the request's formulation (see ``solvers.search``)."""
    return solve_with(request, NAME, run, version())
