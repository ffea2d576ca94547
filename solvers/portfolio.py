"""The default engine: cheap proven bounds first, an exact engine only for the remaining gap.

Order of work for r* (each step only if the question is still open and time is left):

1. the exhaustive subset DP when n <= :data:`EXHAUSTIVE_N` (exact, under half a second);
2. the quick bounds of :func:`solvers.search.quick_r`: rooted check (exact for r* = 0),
   degree and halves witnesses, the spectral lower bound;
3. slices of the published model (Usevitch & Panagou 2020), :data:`HIGHS_SLICE` seconds on
   HiGHS, then :data:`PUBLISHED_SLICE` on CP-SAT, each told the bounds and the witness so far
   (:func:`solvers.search.published_slice`):
   it settles sparse and low-r* graphs far sooner than the strong model (ER(40, 0.3): about
   1 s against over 100 s), so the portfolio is never much slower than the published model;
4. the dearer bounds of :func:`solvers.search.more_r`: extension lower bound, vertex-cut and
   heuristic witnesses;
5. the strong decision model on the best available model engine (CP-SAT, else HiGHS, else
   CBC), probing at the upper bound, with the time left; with ``threads >= 2``, a race
   (``solvers.race``): CP-SAT and HiGHS on the strong loop, one core each, sharing bounds, the
   first proof wins; under a time limit a stalled top probe hands over to the long witness
   search and probes from below, as with one thread (``solvers.search``), so a time-out
   reports bounds as tight.

For s*_r: exhaustive for small n, otherwise heuristic pairs (a pair refuting r-robustness gives
s*_r = 0) and the strong (r, s) model. Every bound is proven, every witness checked; on a time
limit the result is ``bounded``. No solver package is imported before a model is solved.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from solvers import exhaustive
from solvers.types import Request, Result

if TYPE_CHECKING:
    from solvers import search

__all__ = [
    "NAME",
    "EXHAUSTIVE_N",
    "HIGHS_SLICE",
    "PUBLISHED_SLICE",
    "available",
    "solve",
    "exact_backend",
]

NAME = "portfolio"

EXHAUSTIVE_N = 25
"""Up to this many nodes the subset DP answers outright (r* of a 25-node graph: about 0.4 s)."""

HIGHS_SLICE = 1.5
"""Seconds the published model gets on HiGHS first (cheap to start; settles sparse graphs)."""

PUBLISHED_SLICE = 2.0
"""Seconds the published model gets on CP-SAT next, before the dearer bounds and the strong
model."""


def available() -> bool:
    """Always available: numpy alone answers small graphs and proves bounds on large ones."""
    return True


def exact_backend():
    """The first installed model engine, preferring CP-SAT, as ``(name, run, version)``, or None.

    Imports the engine's package (OR-Tools, highspy or PuLP): call it only once a model is due.
    """
    from solvers import cbc, cpsat, highs

    for module in (cpsat, highs, cbc):
        if module.available():
            return module.NAME, module.run, module.version()
    return None


def _published_slices(p: search.Progress) -> None:
    """The published model on HiGHS, then on CP-SAT, each for its slice (a quarter of the time
    left if less), until one settles the question (:func:`solvers.search.published_slice`).

    HiGHS first: highspy imports in hundredths of a second where OR-Tools (with pandas) takes
    about a second of CPU, and on sparse, low-r* graphs HiGHS proves r* in 0.2-0.6 s of CPU
    (ER(30, 0.3), digraph G(30, 0.3), ER(40, 0.3), seed 1001)."""
    from solvers import cpsat, highs, search

    versions = []
    for module, seconds in ((highs, HIGHS_SLICE), (cpsat, PUBLISHED_SLICE)):
        left = p.remaining()
        if p.settled() or (left is not None and left <= 0) or not module.available():
            continue
        module.load()  # the import is not the slice's: it counts against the deadline only
        versions.append(module.version())
        p.version = " + ".join(["portfolio", *versions])
        left = p.remaining()
        search.published_slice(p, module.run, seconds if left is None else min(seconds, left / 4))


def solve(request: Request) -> Result:
    """Answer ``request``: subset DP for small graphs; else bounds, then models for the gap.

    Notes
    -----
    ``request.formulation`` is ignored. The result's ``params["steps"]`` lists which bound or
    solve proved what (in a race, with its engine). With ``request.threads >= 2`` and two
    engines that can race (CP-SAT and HiGHS), the gap after the published slice is raced on two
    cores (one worker each; more threads are not used); otherwise it is probed by the first
    installed engine with ``request.threads`` workers. No solver package is imported unless a
    model is solved.
    """
    q = request.question
    if request.n <= EXHAUSTIVE_N:
        return _exhaustive(request)
    from solvers import race, search  # the models and heuristics: only above the subset DP

    p = search.Progress(request, NAME, "strong", "portfolio")
    if q.about_s and q.r == 0:  # every set is 0-reachable: s*_0 = n
        p.lower = p.upper
        return p.result()
    if q.about_s:
        _bounds_s(p)
    elif not search.quick_r(p) and not p.out_of_time():
        _published_slices(p)
        search.more_r(p)
    if p.settled() or p.out_of_time():
        return p.result()
    racers = race.racers(published=0.0) if request.threads >= 2 else []
    if len(racers) >= 2:
        p.version = " + ".join(["portfolio", *(r.version for r in racers)])
        race.race(p, racers)
        return p.result(exact_engine="+".join(r.name for r in racers))
    backend = exact_backend()
    if backend is None:
        p.steps.append(
            {"step": "exact", "note": "no model engine installed (ortools/highspy/pulp)"}
        )
        return p.result(exact_engine=None)
    p.version = f"portfolio + {backend[2]}"
    (search.strong_s_loop if q.about_s else search.strong_r_loop)(p, backend[1])
    return p.result(exact_engine=backend[0])


def _exhaustive(request: Request) -> Result:
    """The subset DP's result, as the portfolio's (its one step: ``exhaustive``)."""
    res = exhaustive.solve(request)
    step = {"step": "exhaustive", "value": res.value, "seconds": round(res.wall_time, 4)}
    params = {"time_limit": request.time_limit, "threads": request.threads, "seed": request.seed}
    return replace(
        res,
        engine=NAME,
        formulation="strong",
        engine_version=f"portfolio + {res.engine_version}",
        params={**params, "steps": [step]},
    )


def _bounds_s(p: search.Progress) -> None:
    from solvers import heuristics

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
