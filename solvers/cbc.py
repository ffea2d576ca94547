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

PuLP writes the model (MPS) and reads CBC's solution file; this adapter runs the CBC program
itself (:class:`~solvers.interrupt.ChildProcess`, with the command line PuLP's ``PULP_CBC_CMD``
would use) so that a Ctrl-C, or a :class:`~solvers.interrupt.StopSignal`, stops it: CBC gets
SIGINT, ends its search and writes its incumbent as on a time limit (killed if it takes more
than ``STOP_GRACE`` seconds). On Ctrl-C the solve then raises ``KeyboardInterrupt``, as CP-SAT
and HiGHS do; PuLP's own ``solve`` waits in the main thread, and a SIGINT to Python alone used
to leave CBC running after Python had exited.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import time
import warnings
from functools import lru_cache

from solvers.interrupt import ChildProcess, StopSignal, run_interruptibly, watching
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


def run(
    model: Model,
    time_limit: float | None,
    threads: int,
    seed: int = 0,
    *,
    stop: StopSignal | None = None,
) -> Outcome:
    """Solve ``model`` with CBC (``seed`` is passed as CBC's ``randomCbcSeed``).

    ``stop``, when given, ends the search early from another thread; a stopped search reports
    what it had, like a time limit (``feasible`` or ``unknown``, with CBC's proven bound).

    Raises
    ------
    KeyboardInterrupt
        Ctrl-C arrived during the solve (after CBC has exited).
    """
    import pulp

    with warnings.catch_warnings():  # PuLP 3 announces API changes for 4.0 on every call
        warnings.simplefilter("ignore", DeprecationWarning)
        return _run(pulp, model, time_limit, threads, seed, stop)


def _run(
    pulp, model: Model, time_limit: float | None, threads: int, seed: int, stop: StopSignal | None
) -> Outcome:
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
    prob.fixObjective()  # a decision has no objective: PuLP adds the dummy term CBC's file needs
    solver = _command(msg=False)
    with tempfile.TemporaryDirectory(prefix="robustgraph-cbc-") as tmp:
        mps, sol, log = (os.path.join(tmp, name) for name in ("model.mps", "model.sol", "cbc.log"))
        names = prob.writeMPS(mps, rename=1)[:3]  # variables, their names, constraint names
        args = [solver.path, mps]
        if model.hint:
            mst = os.path.join(tmp, "hint.mst")
            solver.writesol(mst, prob, *names)
            args += ["-mips", mst]
        if time_limit is not None:
            args += ["-sec", str(max(0.1, float(time_limit)))]
        args += ["-randomCbcSeed", str(seed + 1), "-threads", str(max(1, threads))]
        args += ["-timeMode", "elapsed", "-solve", "-printingOptions", "all", "-solution", sol]
        child = ChildProcess(args, output=log)
        try:
            with watching(stop, child.stop):
                code = run_interruptibly(child.run, child.stop)
        except OSError as exc:
            return Outcome("invalid", None, None, time.perf_counter() - start, str(exc))
        text = open(log, encoding="utf-8", errors="replace").read() if os.path.exists(log) else ""
        if code == 0 and os.path.exists(sol):
            status, values, _, _, _, sol_status = solver.readsol_MPS(sol, prob, *names)
            prob.assignVarsVals(values)
            prob.assignStatus(status, sol_status)
        elif child.stopped:  # stopped before it started, or killed after the grace period
            found = _BEST_POSSIBLE.findall(text) if model.objective else []
            bound = float(found[-1]) if found else None
            native = "not started" if code is None else f"killed after stop (exit {code})"
            return Outcome("unknown", None, bound, time.perf_counter() - start, native)
        else:
            native = f"CBC exited with code {code} without a solution"
            return Outcome("invalid", None, None, time.perf_counter() - start, native)
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
