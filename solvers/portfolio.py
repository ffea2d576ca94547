"""The default engine: cheap proven bounds first, an exact engine only for the remaining gap.

Order of work for r* (each step only if the question is still open):

1. the exhaustive subset DP when n <= :data:`EXHAUSTIVE_N` (exact, well under a second);
2. the cheap bounds of :func:`solvers.search.initial_r`: rooted check (exact for r* = 0),
   degree / halves / vertex-cut / heuristic witnesses, spectral and extension lower bounds;
3. the strong decision model on the best available model engine (CP-SAT, else HiGHS, else
   CBC), probing at the upper bound, with the time left; with ``threads >= 2``, a race
   (``solvers.race``): CP-SAT (a short published slice, then the strong loop) and HiGHS (the
   strong loop) on one core each, sharing bounds, the first proof wins; under a time limit a
   stalled top probe hands over to the long witness search and probes from below, as with one
   thread (``solvers.search``), so a time-out reports bounds as tight.

For s*_r: exhaustive for small n, otherwise heuristic pairs (a pair refuting r-robustness gives
s*_r = 0) and the strong (r, s) model. Every bound is proven, every witness checked; on a time
limit the result is ``bounded``.
"""

from __future__ import annotations

import time

from solvers import exhaustive, heuristics, race, search
from solvers.types import Request, Result

__all__ = ["NAME", "EXHAUSTIVE_N", "available", "solve", "exact_backend"]

NAME = "portfolio"

EXHAUSTIVE_N = 18
"""Up to this many nodes the subset DP answers outright (about 0.1 s at 18 nodes)."""


def available() -> bool:
    """Always available: numpy alone answers small graphs and proves bounds on large ones."""
    return True


def exact_backend():
    """The first installed model engine, preferring CP-SAT, as ``(name, run, version)``, or None."""
    from solvers import cbc, cpsat, highs

    for module in (cpsat, highs, cbc):
        if module.available():
            return module.NAME, module.run, module.version()
    return None


def solve(request: Request) -> Result:
    """Answer ``request``: bounds first, subset DP for small graphs, strong model for the gap.

    Notes
    -----
    ``request.formulation`` is ignored: the portfolio always uses the strong model. The result's
    ``params["steps"]`` lists which bound or probe proved what (in a race, with its engine).
    With ``request.threads >= 2`` and two engines that can race (CP-SAT and HiGHS), the gap
    is raced on two cores (one worker each; more threads are not used); otherwise it is probed
    by the first installed engine with ``request.threads`` workers.
    """
    racers = race.racers() if request.threads >= 2 else []
    if len(racers) < 2:
        racers = []
    backend = exact_backend()
    versions = [r.version for r in racers] if racers else [backend[2]] if backend else []
    version = " + ".join(["portfolio", *versions])
    p = search.Progress(request, NAME, "strong", version)
    q = request.question
    if request.n < 2 or (q.about_s and q.r == 0):
        p.lower = p.upper
        return p.result()
    if request.n <= EXHAUSTIVE_N:
        return _exhaustive(p)
    if q.about_s:
        _bounds_s(p)
    else:
        search.initial_r(p)
    if not p.settled() and not p.out_of_time():
        if racers:
            race.race(p, racers)
            return p.result(exact_engine="+".join(r.name for r in racers))
        if backend is None:
            p.steps.append(
                {"step": "exact", "note": "no model engine installed (ortools/highspy/pulp)"}
            )
        else:
            (search.strong_s_loop if q.about_s else search.strong_r_loop)(p, backend[1])
    return p.result(exact_engine=backend[0] if backend else None)


def _exhaustive(p: search.Progress) -> Result:
    start = time.perf_counter()
    res = exhaustive.solve(p.request)
    if res.witness is not None:
        p.offer(res.witness)
    p.prove_lower(res.lower)
    p.steps.append(
        {"step": "exhaustive", "value": res.value, "seconds": round(time.perf_counter() - start, 4)}
    )
    return p.result()


def _bounds_s(p: search.Progress) -> None:
    nb = p.request.graph.in_neighbors
    r = p.request.question.r
    below = heuristics.search_r(nb, target=r, seed=p.request.seed)
    if below is not None and below[0] < r:
        p.offer(below[1])  # not r-robust: s*_r = 0
        p.note("not-r-robust", value=below[0])
        return
    found = heuristics.search_s(nb, r, seed=p.request.seed)
    if found is not None:
        p.offer(found[1])
    p.note("heuristic", value=found[0] if found else None)
