"""Answering a :class:`Request` with any model backend: the published and the strong strategy.

An adapter supplies ``run(model, time_limit, threads, seed) -> Outcome``; this module builds
models, reads outcomes and keeps only what is proven:

- ``published``: one optimisation model (Usevitch & Panagou 2020). The incumbent, decoded and
  checked, is the upper bound; ``ceil(bound - 1e-6)`` of the solver's proven objective bound is
  the lower bound.
- ``strong``: cheap bounds and a heuristic witness first (``solvers.bounds``,
  ``solvers.heuristics``), then decisions at probe = the current upper bound (for max
  questions) or at the asked threshold (for decisions). An infeasible probe proves the lower
  bound; a feasible one yields a checked witness that lowers the upper bound, and the loop goes
  on. Only one infeasibility proof is ever needed for a max question: at the true value.

A time limit, an ``unknown`` or an ``invalid`` outcome stops the search: the result is then
``bounded`` (or ``timeout``/``error`` when nothing beyond the trivial bounds is proven), never
``exact``. Every witness is checked with ``solvers.witness`` before it is returned.

One module: the published and the strong strategy share the progress record, the witness checks
and the way outcomes become proven bounds; each strategy alone is about 150 lines.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from typing import Any

from solvers import bounds, circulant, heuristics, linear
from solvers.errors import ParameterError
from solvers.interrupt import StopSignal
from solvers.milp_model import (
    FORMULATIONS,
    Model,
    Outcome,
    least_first,
    pair_from_values,
    published_r,
    published_r_below,
    published_s,
    strong_r,
    strong_s,
)
from solvers.twins import twin_classes
from solvers.types import Request, Result, Status, Witness
from solvers.witness import refutes_r, refutes_rs

__all__ = [
    "Runner",
    "solve_with",
    "finish",
    "Progress",
    "initial_r",
    "quick_r",
    "linear_r",
    "linear_s",
    "spend_large",
    "heuristic_r",
    "more_r",
    "published_slice",
    "published_below",
    "published_s_slice",
    "published_s_model",
    "record",
    "strong_r_loop",
    "strong_s_loop",
    "strong_r_model",
    "strong_s_model",
    "published_model",
    "absorb_probe",
    "absorb_published",
    "step_text",
    "climb_probe",
    "long_search",
    "keep_long_search",
    "TOP_SHARE",
    "IMPROVE_SHARE",
]

Runner = Callable[[Model, float | None, int, int], Outcome]


class Progress:
    """Collects proven bounds and the witness as a search goes; builds the final Result.

    When the request has a ``listener``, :meth:`tell` passes it the bounds after every noted
    step and every probe outcome, when a probe or the long witness search starts, and once
    more with the final bounds when the result is built; in a race (``solvers.race``) the
    outcomes are told under the race's lock, from the racer's thread.
    """

    def __init__(self, request: Request, engine: str, formulation: str | None, version: str):
        self.request = request
        self.engine = engine
        self.formulation = formulation
        self.version = version
        self.start = time.perf_counter()
        self.lower = 0
        self.upper = bounds.trivial_upper(request.question, request.n)
        self.witness: Witness | None = None
        self.steps: list[dict[str, Any]] = []
        self.failed = False
        self.listener = request.listener
        self.halt: Callable[[], bool] | None = None
        """Once true, the search ends as at its time limit (another core settled the question:
        ``solvers.lane``); nothing is proven by it."""
        self.stop: StopSignal | None = None
        """Raised with :attr:`halt`: stops the solve running then (``interrupt.StopSignal``)."""
        self._few_twins: bool | None = None  # :meth:`few_twins`, computed once

    def few_twins(self) -> bool:
        """True when the graph has at most n/2 twin classes (``solvers.twins``): the witness
        searches are then skipped (:func:`more_r`, :func:`heuristic_r`). Computed once per
        request: on the heuristic-first path (``portfolio.HEURISTIC_FIRST_RULE``) both ask."""
        if self._few_twins is None:
            nb = self.request.graph.in_neighbors
            self._few_twins = len(twin_classes(nb)) <= len(nb) // 2
        return self._few_twins

    def remaining(self) -> float | None:
        if self.request.time_limit is None:
            return None
        return self.request.time_limit - (time.perf_counter() - self.start)

    def out_of_time(self) -> bool:
        """True past the time limit, or once :attr:`halt` says another core has the answer."""
        if self.halt is not None and self.halt():
            return True
        left = self.remaining()
        return left is not None and left <= 0

    def prove_lower(self, value: int) -> None:
        self.lower = max(self.lower, min(value, self.upper))

    def offer(self, pair: tuple[frozenset[int], frozenset[int]] | Witness) -> int | None:
        """Check a candidate pair; if it proves a better upper bound, keep it. Returns its value."""
        w = pair if isinstance(pair, Witness) else Witness(*pair)
        nb = self.request.graph.in_neighbors
        q = self.request.question
        if q.about_s:
            value = bounds.pair_value_s(nb, w, q.r)
            ok = value is not None and refutes_rs(nb, w.s1, w.s2, q.r, value + 1)
        else:
            value = bounds.pair_value_r(nb, w)
            ok = refutes_r(nb, w.s1, w.s2, value + 1)
        if not ok:
            return None
        if value < self.upper or (value == self.upper and self.witness is None):
            self.upper = value  # a pair at the trivial bound too: every upper bound gets a witness
            self.witness = w
            self.lower = min(self.lower, value)
        return value

    def note(self, step: str, **info: Any) -> None:
        """Record a bound step with the bounds it left and the seconds since the start."""
        p = {"lower": self.lower, "upper": self.upper}
        seconds = round(time.perf_counter() - self.start, 4)
        self.steps.append({"step": step, **info, **p, "seconds": seconds})
        self.tell()

    def tell(self, text: str | None = None) -> None:
        """Pass the bounds and ``text`` (default: the last step in words) to the listener.

        A listener that raises is dropped for the rest of the search, and its exception with
        it: showing progress never changes or breaks a solve.
        """
        listener = self.listener
        if listener is None:
            return
        if text is None:
            text = step_text(self.steps[-1]) if self.steps else ""
        try:
            listener(self.lower, self.upper, text)
        except Exception:  # a display's bug must not end a proof: stop telling it
            self.listener = None

    def settled(self) -> bool:
        q = self.request.question
        if self.lower >= self.upper:
            return True
        target = q.target
        return target is not None and (self.lower >= target or self.upper < target)

    def result(self, **params: Any) -> Result:
        self.tell("done")
        return finish(
            self.request,
            self.lower,
            self.upper,
            self.witness,
            engine=self.engine,
            formulation=self.formulation,
            start=self.start,
            version=self.version,
            failed=self.failed,
            params={"steps": self.steps, **params},
        )


def step_text(step: dict[str, Any]) -> str:
    """A step of ``Progress.steps`` in a few words, for a listener.

    Examples
    --------
    >>> step_text({"model": "strong-r15", "probe": 15, "outcome": "infeasible", "engine": "highs"})
    'probe 15 infeasible (highs)'
    >>> step_text({"step": "heuristic", "value": 15, "lower": 1, "upper": 15})
    'after heuristic'
    """
    if "step" in step:
        return f"after {step['step']}"
    engine = f" ({step['engine']})" if "engine" in step else ""
    probe = step.get("probe")
    what = step.get("model", "model") if probe is None else f"probe {probe}"
    return f"{what} {step.get('outcome', '')}".rstrip() + engine


def finish(
    request: Request,
    lower: int,
    upper: int,
    witness: Witness | None,
    *,
    engine: str,
    formulation: str | None,
    start: float,
    version: str,
    failed: bool = False,
    params: dict[str, Any] | None = None,
) -> Result:
    """A Result with the status the bounds justify (exact only when proven)."""
    q = request.question
    return Result(
        question=q,
        status=Status.of(q, lower, upper, bounds.trivial_upper(q, request.n), failed),
        lower=lower,
        upper=upper,
        witness=witness,
        engine=engine,
        formulation=formulation,
        wall_time=time.perf_counter() - start,
        engine_version=version,
        params={
            "time_limit": request.time_limit,
            "threads": request.threads,
            "seed": request.seed,
            **(params or {}),
        },
    )


def solve_with(request: Request, engine: str, run: Runner, version: str) -> Result:
    """Answer ``request`` with a model backend, in ``request.formulation``.

    Raises
    ------
    ParameterError
        Unknown formulation.
    """
    if request.formulation not in FORMULATIONS:
        raise ParameterError(
            f"unknown formulation {request.formulation!r}; choose from {', '.join(FORMULATIONS)}"
        )
    p = Progress(request, engine, request.formulation, version)
    q = request.question
    if request.n < 2 or (q.about_s and q.r == 0):
        p.lower = p.upper  # n < 2: r* = s* = 0 by convention; r = 0: every set is 0-reachable
        return p.result()
    if request.formulation == "published":
        _published(p, run)
    elif q.about_s:
        _strong_s(p, run)
    else:
        _strong_r(p, run)
    return p.result()


def _call(
    p: Progress,
    run: Runner,
    model: Model,
    probe: int | None,
    budget: float | None = None,
    info: dict[str, Any] | None = None,
    **options: Any,
) -> Outcome:
    """Run ``model`` on ``run`` for what is left of the time (at most ``budget``), stopped by
    ``p.stop``; the outcome is recorded (:func:`record`, with ``info``) and returned."""
    left = p.remaining()
    if budget is not None:
        left = budget if left is None else min(left, budget)
    p.tell(f"{model.name} model" if probe is None else f"probing {probe}")
    try:
        stop = {} if p.stop is None else {"stop": p.stop}
        out = run(model, left, p.request.threads, p.request.seed, **stop, **options)
    except Exception as exc:  # a solver crash is reported as an error result, never as a proof
        out = Outcome("invalid", None, None, 0.0, f"{type(exc).__name__}: {exc}")
    record(p, model, probe, out, **(info or {}))
    return out


def record(p: Progress, model: Model, probe: int | None, out: Outcome, **info: Any) -> None:
    """Append a solve's step (model, probe, outcome, seconds and ``info``) to ``p``; an invalid
    outcome marks ``p`` failed."""
    p.steps.append(
        {
            "model": model.name,
            "probe": probe,
            **info,
            "outcome": out.status,
            "native": out.native,
            "seconds": round(out.seconds, 4),
        }
    )
    if out.status == "invalid":
        p.failed = True


def _published(p: Progress, run: Runner) -> None:
    model = published_model(p)
    absorb_published(p, model, _call(p, run, model, None))


def published_model(p: Progress) -> Model:
    """The published optimisation model of the request's question."""
    q = p.request.question
    nb = p.request.graph.in_neighbors
    return published_s(nb, q.r) if q.about_s else published_r(nb)


def absorb_published(p: Progress, model: Model, out: Outcome) -> None:
    """Keep what a published model's outcome proves: the checked incumbent and the dual bound."""
    if out.status == "infeasible":
        if p.request.question.about_s:  # no pair violates the first two conditions: (r, n)-robust
            p.lower = p.upper
        else:  # the r model always has solutions for n >= 2
            p.failed = True
    else:
        if out.values is not None:
            p.offer(pair_from_values(model, out.values))
        if out.bound is not None and out.status in ("optimal", "feasible", "unknown"):
            if math.isfinite(out.bound):
                p.prove_lower(math.ceil(out.bound - 1e-6))
    p.tell()


TOP_SHARE = 0.7
"""Share of the time left that a max question's probe at the upper bound may use while a gap of
more than one remains; if it stalls, the rest goes to probes from below (:func:`_climb`)."""


IMPROVE_SHARE = 0.25
"""Share of the time left after a stalled probe at the upper bound that a longer witness search
(:func:`_improve_r`) may use before the climb from below."""

FIRST_PROBE_SECONDS = 1.0
"""Time the first probe of a max question gets before a short long witness search (at most
:data:`FIRST_PROBE_SECONDS` too, and 5% of a time limit) and a new probe. A probe above r* makes
the solver look for a witness, which the long search often finds far sooner (ER(40, 1/2) seed 4:
probe 10 took 8.2 s to find the pair of value 9 the long search finds in under 1 s); a probe
that settles within the first second costs nothing extra."""


def _probe_loop(
    p: Progress,
    run: Runner,
    build: Callable[[int], Model],
    improve: Callable[[float], None] | None = None,
    search_first: bool = False,
) -> None:
    """Decide at probe = target (decisions) or the upper bound (max questions) until settled.

    For a max question under a time limit, a probe at the upper bound with a gap of more than
    one gets :data:`TOP_SHARE` of the time left. The first probe of a max question with an
    ``improve`` gets :data:`FIRST_PROBE_SECONDS`; if it is not settled by then, ``improve``
    runs briefly and the loop probes again. When a probe stalls, ``improve`` may spend
    :data:`IMPROVE_SHARE` of the rest looking for a better witness (lowering the upper bound)
    and :func:`_climb` spends what is left raising the lower bound, so a time-out reports
    bounds as tight as the time allowed. With ``search_first``, ``improve`` runs that brief
    search before the first probe instead, and the first probe gets the full budget (for
    graphs whose first probe is known to need more than :data:`FIRST_PROBE_SECONDS`).
    """
    target = p.request.question.target
    first = target is None and improve is not None
    if first and search_first:
        first = False
        left = p.remaining()
        improve(FIRST_PROBE_SECONDS if left is None else min(FIRST_PROBE_SECONDS, left / 20))
    while not p.settled() and not p.out_of_time():
        probe = target if target is not None else p.upper
        model = build(probe)
        climb = target is None and p.remaining() is not None and p.upper - p.lower > 1
        budget = TOP_SHARE * p.remaining() if climb else None
        if first:
            budget = min(FIRST_PROBE_SECONDS, budget or FIRST_PROBE_SECONDS)
        out = _call(p, run, model, probe, budget)
        if first and out.status == "unknown":  # not settled at once: look for a better witness
            first = False
            left = p.remaining()
            improve(FIRST_PROBE_SECONDS if left is None else min(FIRST_PROBE_SECONDS, left / 20))
            continue
        first = False
        if not absorb_probe(p, model, probe, out):
            if climb and out.status == "unknown":
                if improve is not None:
                    improve(IMPROVE_SHARE * p.remaining())
                _climb(p, run, build, stalled=probe)
            return


RETRIES = 3
"""Times :func:`_climb` gives the lowest open probe all the time left and still gets an
``unknown`` before the deadline (a solver that gave up early) before it stops: a guard against
a loop of solves that return at once, never reached by a solve that honours its limit."""


def _climb(p: Progress, run: Runner, build: Callable[[int], Model], stalled: int) -> None:
    """Raise the lower bound with probes below ``stalled`` (a probe that did not finish).

    Each probe sits halfway between the lower bound and the lowest stalled probe and gets half
    the time left: infeasible raises the lower bound, a checked witness lowers the upper bound,
    a stall moves the next probe down. Every bound is proven as in the main loop. When no
    probe is left strictly below (:func:`climb_probe` is None: the stalled probe is the lower
    bound + 1), that probe is tried again with all the time left, so the search ends exact or at
    the deadline, never before it with time unused (issue 40: the loop returned with 5-10 s of
    a 60 s limit left on a random 8-regular graph on 80 nodes).
    """
    retries = 0
    while not p.settled() and not p.out_of_time():
        probe = climb_probe(p.lower, p.upper, stalled)
        left = p.remaining()
        budget = None if left is None else left / 2
        if probe is None:
            if retries == RETRIES:
                return
            retries += 1
            probe, budget = p.lower + 1, None  # the lowest open probe, with the rest of the time
        model = build(probe)
        out = _call(p, run, model, probe, budget)
        if not absorb_probe(p, model, probe, out):
            if out.status != "unknown":
                return
            stalled = probe


def climb_probe(lower: int, upper: int, stalled: int) -> int | None:
    """The next probe from below: halfway between ``lower`` and ``min(stalled, upper)``.

    Parameters
    ----------
    lower, upper : int
        The proven bounds.
    stalled : int
        The lowest probe that did not finish (or any value above it that no probe may reach,
        such as a probe another racer is running, ``solvers.race``).

    Returns
    -------
    int or None
        A probe strictly between ``lower`` and ``min(stalled, upper)``, or None when there is
        none: every probe left has stalled or is the upper bound itself.

    Examples
    --------
    >>> climb_probe(1, 16, 16), climb_probe(8, 16, 12), climb_probe(11, 16, 12)
    (8, 10, None)
    """
    ceiling = min(stalled, upper)
    probe = lower + max(1, (ceiling - lower) // 2)
    return probe if probe < ceiling else None


def absorb_probe(p: Progress, model: Model, probe: int, out: Outcome) -> bool:
    """Keep what one decision at ``probe`` proves; False when the search cannot go on.

    Infeasible proves the lower bound ``probe``; a solution is decoded and checked, and must
    beat the probe (else the engine failed); no solution and no proof ends the search. The
    listener hears the bounds after it, with the last step (the outcome's) in words.
    """
    go_on = _absorb_probe(p, model, probe, out)
    p.tell()
    return go_on


def _absorb_probe(p: Progress, model: Model, probe: int, out: Outcome) -> bool:
    if out.status == "infeasible":
        p.prove_lower(probe)
        return True
    if out.values is not None:
        value = p.offer(pair_from_values(model, out.values))
        if value is None or value >= probe:  # the model promised a better pair
            p.failed = True
            return False
        return True
    return False


def initial_r(p: Progress) -> None:
    """Cheap proven bounds on r*, cheapest first, each noted in ``p.steps``, until settled.

    :func:`quick_r`, then :func:`more_r` (``solvers.bounds``, ``solvers.heuristics``).
    """
    if not quick_r(p):
        more_r(p)


def quick_r(p: Progress) -> bool:
    """The bounds that cost O(n^3) at most, O(n + m) above :data:`bounds.DENSE_MAX_N` nodes:
    rooted check (exact for r* = 0), degree witness, halves witness (spectral order; above the
    size, the refined splits of :func:`linear.split_pair`), the circulant lower bound
    (:func:`circulant.find`: O(n k^2)), the spectral lower bound (undirected, up to the size).
    True when they settle the question."""
    g = p.request.graph
    nb = g.in_neighbors
    sources = bounds.source_components(nb)
    if len(sources) >= 2:
        p.offer((sources[0], sources[1]))
        p.note("rooted", sources=len(sources))
        return p.settled()
    p.prove_lower(1)
    p.offer(bounds.degree_pair(nb)[1])
    p.note("degree", value=p.upper)
    dense = len(nb) <= bounds.DENSE_MAX_N
    if p.settled() or p.out_of_time():
        return p.settled()
    found = bounds.halves_pair(nb) if dense else linear.split_pair(nb, stop=p.out_of_time)
    if found is not None:
        p.offer(found[1])
        p.note("halves" if dense else "splits", value=found[0])
    if not p.settled() and not p.out_of_time():
        ring = circulant.find(nb, stop=p.out_of_time)
        if ring is not None:
            p.prove_lower(ring[0])  # C_n(1..k) is k-robust (docs/theory.md)
            p.note("circulant", k=ring[0])
    if not g.directed and not p.settled() and not p.out_of_time():
        if dense:
            p.prove_lower(bounds.spectral_lower(nb, False))
            p.note("spectral")
        else:
            p.note("spectral-skipped", max_n=bounds.DENSE_MAX_N)
    return p.settled()


def linear_s(p: Progress) -> None:
    """Witnesses for s*_r on graphs above :data:`bounds.DENSE_MAX_N` nodes, in O(n + m) memory,
    each checked by :meth:`Progress.offer`: two source components, the degree pair and the
    refined splits of :func:`linear.split_pair` (a pair neither of whose sides is entirely
    r-reachable proves ``s*_r <= |X_S1^r| + |X_S2^r|``; 0 when it refutes r-robustness)."""
    nb = p.request.graph.in_neighbors
    if len(nb) < 2:
        return
    sources = bounds.source_components(nb)
    if len(sources) >= 2:
        p.offer((sources[0], sources[1]))
    for pair in (bounds.degree_pair(nb), linear.split_pair(nb, stop=p.out_of_time)):
        if pair is not None and not p.settled():
            p.offer(pair[1])
    p.note("linear-witnesses")


LOCAL_STARTS = 8
"""Starts of :func:`linear.local_pair` that a large graph's question gets without a time limit
(with one, as many as the deadline allows)."""


def linear_r(p: Progress) -> None:
    """The bounds for graphs above :data:`bounds.DENSE_MAX_N` nodes, in O(n + m) memory, each
    only while time is left: :func:`quick_r`, then :func:`spend_large` (the local witness
    search and the extension lower bound, :func:`bounds.extension_proves`, stopped at the
    deadline)."""
    if not quick_r(p) and not p.out_of_time():
        spend_large(p)


def spend_large(p: Progress) -> None:
    """Tighten a large graph's bounds until they meet or the deadline (:data:`LOCAL_STARTS`
    rounds without one), in O(n + m) memory, each round a step ``local-search``: one start of
    the witness search :func:`linear.local_pair` (a pair below the upper bound, checked by
    :meth:`Progress.offer`), then the extension argument (:func:`bounds.extension_proves`) at
    the upper bound and at the lower bound + 1, each probe tried once. Issue 40: a random
    6-regular graph on 10^4 nodes ended at [1, 6] after 0.67 s of a 10 s limit; a start of the
    local search finds a pair of value 3 in about 0.15 s (the search runs before the extension
    bound, which took 0.3-0.9 s there and proved nothing: at a 1 s limit it left the degree
    witness, [1, 6], at load 8)."""
    nb = p.request.graph.in_neighbors
    out = linear.out_neighbors(nb)
    rng = random.Random(p.request.seed)
    target = p.request.question.target
    tried: set[int] = set()
    rounds = 0
    while not p.settled() and not p.out_of_time():
        if p.request.time_limit is None and rounds == LOCAL_STARTS:
            return
        rounds += 1
        found = linear.local_pair(nb, out, rng, p.upper, stop=p.out_of_time)
        if found is not None:
            p.offer(found[1])
        probes = [target] if target is not None else [p.upper, p.lower + 1]
        for probe in dict.fromkeys(probes):
            if probe in tried or probe <= p.lower or p.settled() or p.out_of_time():
                continue
            tried.add(probe)
            if bounds.extension_proves(nb, probe, stop=p.out_of_time):
                p.prove_lower(probe)
        p.note("local-search", round=rounds, value=None if found is None else found[0])


def more_r(p: Progress, *, heuristic: bool = True) -> None:
    """The dearer bounds, each only while time is left: the extension lower bound at the probe
    value (the asked r, or the upper bound), a vertex-cut witness, the heuristic witness search
    (:func:`heuristic_r`; ``heuristic=False``: it already ran), and the extension bound again if
    the heuristic lowered the upper bound. When at most n/2 twin classes exist, the witness
    searches are skipped: the strong model over class counts is then small and settles the
    question faster than they would."""
    nb = p.request.graph.in_neighbors
    target = p.request.question.target
    if p.settled() or p.out_of_time() or _extension(p) or p.out_of_time():
        return
    if p.few_twins():
        p.note("twins")  # the count model is small: witness searches would cost more than it
        return
    cut = bounds.cut_pair(nb)
    if cut is not None:
        p.offer(cut[1])
        p.note("vertex-cut", value=cut[0])
    if p.settled() or p.out_of_time() or not heuristic:
        return
    before = p.upper
    heuristic_r(p)
    if not p.settled() and p.upper < before and target is None and not p.out_of_time():
        _extension(p)


def heuristic_r(p: Progress) -> None:
    """The heuristic witness search (``heuristics.search_r``, stopped at the time limit), its
    pair offered (checked) and noted as ``heuristic``; nothing when the question is settled or
    the twins rule of :func:`more_r` holds."""
    if p.settled() or p.out_of_time() or p.few_twins():
        return
    nb = p.request.graph.in_neighbors
    target = p.request.question.target
    found = heuristics.search_r(nb, target=target, seed=p.request.seed, stop=p.out_of_time)
    if found is not None:
        p.offer(found[1])
        p.note("heuristic", value=found[0])


def published_slice(
    p: Progress,
    run: Runner,
    seconds: float,
    *,
    least: bool = False,
    as_printed: bool = False,
    told: tuple[int, Witness | None] | None = None,
    work: float | None = None,
) -> None:
    """Spend up to ``seconds`` on the published r model, told what ``p`` already proved.

    The model is Usevitch & Panagou's (``milp_model.published_r``) with ``t <= upper`` (proven,
    so no optimum is cut off); the held witness is its hint. The proven lower bound is not added:
    with ``t >= lower`` HiGHS took 0.72 s instead of 0.13 s on a preferential-attachment graph
    of 100 nodes (r = 3, seed 1001) and 0.20 s instead of 0.09 s on Watts-Strogatz(100, 6, 0.1)
    (2026-12-02), where the published HiGHS script needs 0.3-0.5 s in all. Its checked
    incumbent and its dual bound are kept (:func:`absorb_published`). It settles sparse and
    low-r* graphs in a fraction of a second where the strong model's infeasibility proof takes
    seconds (docs/performance.md). ``least``: the swap symmetry broken
    (``milp_model.least_first``). ``as_printed``: the model exactly as published instead
    (``milp_model.published_r``: told nothing, no hint, no symmetry broken), the second
    configuration that runs beside the lane (``portfolio.BESIDE_LANE_RULE``). ``told``: the
    upper bound and witness to tell the model instead of ``p``'s (proven earlier, so still
    valid): ``portfolio.SWITCH_RULE`` tells the least-first slice those it had before the printed
    window, whose incumbent, as hint and bound, made CP-SAT take over 8.8 s instead of 1.15 s on a
    scratch random 10-regular graph (n = 60, seed 7363; docs/performance.md, round 8).
    ``work``: CP-SAT's deterministic time limit too (``max_deterministic_time``, seconds of its
    own work measure, the same on an idle or a busy machine; ``portfolio.WIDE_HEAD_WORK``).
    """
    nb = p.request.graph.in_neighbors
    upper, w = (p.upper, p.witness) if told is None else told  # not t >= lower: note above
    hint = None if w is None else (w.s1, w.s2)
    model = published_r(nb) if as_printed else published_r_below(nb, upper, hint, least=least)
    if work is not None:
        model.tuning["cpsat"] = {**model.tuning.get("cpsat", {}), "max_deterministic_time": work}
    absorb_published(p, model, _call(p, run, model, None, seconds))


def published_below(
    p: Progress, run: Runner, t: int, seconds: float, *, ls_only: bool = False, **info: Any
) -> bool:
    """Ask the published r constraints as a decision at ``t <= t`` for up to ``seconds`` (and
    never past the deadline): the model of ``milp_model.published_r_below`` (told ``t``, which
    here is a question, not a proven bound) with its objective removed, no hint, the swap
    symmetry unbroken; ``ls_only``: CP-SAT's violation local search alone (``use_ls_only``, the
    model's ``tuning``; other engines ignore it). Infeasible proves ``r* >= t + 1`` (the optimum
    of the published model is r*, so no pair has value ``t`` or less), kept with
    ``p.prove_lower``; a solution is a pair of value at most ``t``, offered (checked by
    ``Progress.offer``); unknown proves nothing. The ask is recorded as a model step with
    ``probe`` = ``t`` and ``info``. True when it proved the bound (infeasible).
    ``portfolio.AFTER_WAIT_RULE``; issue 40, round 18 (i52a): at ``t <= 3`` on random
    10-regular graphs of 80 nodes, one worker, infeasible in 0.14-0.65 s of CP-SAT where the model
    minimising ``t`` proved no bound in 10 s; round 17 (i50b): at ``t <= 3`` on random 8-regular
    graphs of 80 nodes, one worker and ``use_ls_only`` found a pair of value 3 in 1.2-3.7 s on two
    of four rows where the one-worker default search found none in 10 s.

    Examples
    --------
    >>> from solvers.types import Question, Request
    >>> from robustgraph.topology import Topology
    >>> path = Topology.from_edges([(0, 1), (1, 2)], nodes=range(3))
    >>> p = Progress(Request(path, Question.max_r()), "x", None, "x")
    >>> def run(model, time_limit, threads, seed=0, **kw):
    ...     return Outcome("infeasible", None, None, 0.0, "fake")
    >>> published_below(p, run, 0, 1.0), p.lower, p.steps[-1]["probe"]
    (True, 1, 0)
    """
    model = published_r_below(p.request.graph.in_neighbors, t)
    model.objective = ()
    if ls_only:
        model.tuning["cpsat"] = {**model.tuning.get("cpsat", {}), "use_ls_only": True}
    out = _call(p, run, model, t, seconds, info)
    if out.status == "infeasible":
        p.prove_lower(t + 1)
    elif out.values is not None:
        p.offer(pair_from_values(model, out.values))
    p.tell()
    return out.status == "infeasible"


def published_s_slice(
    p: Progress, run: Runner, seconds: float, *, least: bool = False, upper: int | None = None
) -> None:
    """Spend up to ``seconds`` on the published (r, s) model (``milp_model.published_s``) with
    ``s <= upper`` (proven by a checked pair, so the optimum s*_r is not cut off), the search
    ending at a pair that meets the proven lower bound (``run``'s ``stop_at``, see
    :func:`published_s_model`): its checked incumbent and its dual bound are kept
    (:func:`absorb_published`). Issue 40: at r = r* the
    published (r, s) model on CP-SAT answered ER(25, 1/2) in 0.11 s and ER(30, 0.35) in 1.05 s,
    where the strong (r, s) loop took 0.9 and 3.1 s. ``least``: the swap symmetry broken
    (``milp_model.least_first``; the model's rows treat (S1, y1) and (S2, y2) alike and its
    objective sums both, so a swapped pair has the same value). ``upper``: the proven upper bound
    to tell the model instead of ``p``'s (see :func:`published_s_model`)."""
    model = published_s_model(p, least=least, upper=upper)
    absorb_published(p, model, _call(p, run, model, None, seconds, stop_at=p.lower))


def published_s_model(p: Progress, *, least: bool = False, upper: int | None = None) -> Model:
    """The published (r, s) model of ``p``'s question told ``s <= upper`` (``p``'s upper bound
    unless a proven one is given: ``portfolio.CORES_S_RULE`` tells the slice after its climb the
    bound held before the climb's head, so that it solves the model it would have solved without
    them), as :func:`published_s_slice` solves it; ``least``: its swap symmetry broken
    (``milp_model.least_first``).

    Issue 40, round 9: the proven lower bound is not a row of the model but the solve's
    ``stop_at`` (``cpsat.run``): the search ends at the first pair whose value meets it. At
    R = r*, where s*_R >= 1 is known from the r answer (``solvers.after_r``) and s*_R is often 1,
    CP-SAT otherwise goes on to prove that no pair has value 0, which is R-robustness, proven
    already. Told ``s >= lower`` as a row, CP-SAT proved scratch rows of s* = 1 up to 20x faster
    but took 2.6 s instead of 0.03 s on one of s* = 2 (docs/performance.md, "Issue 40, round 9
    (i40y)")."""
    model = published_model(p)
    s_var = [v.name for v in model.vars].index("s")
    model.add([(s_var, 1)], ub=p.upper if upper is None else upper)
    if least:
        least_first(model)
    return model


def _extension(p: Progress) -> bool:
    """Try the extension lower bound at the probe value; True when that settles the question."""
    target = p.request.question.target
    probe = target if target is not None else p.upper
    nb = p.request.graph.in_neighbors
    if probe > p.lower and bounds.extension_proves(nb, probe, stop=p.out_of_time):
        p.prove_lower(probe)
    p.note("extension", probe=probe)
    return p.settled()


def _strong_r(p: Progress, run: Runner) -> None:
    initial_r(p)
    strong_r_loop(p, run)


def strong_r_loop(p: Progress, run: Runner, *, search_first: bool = False) -> None:
    """Probe the strong r model until ``p`` is settled, the time is up or the solver gives up.

    ``search_first``: the brief long witness search runs before the first probe, not after a
    first probe of :data:`FIRST_PROBE_SECONDS` (see :func:`_probe_loop`)."""
    _probe_loop(
        p,
        run,
        lambda probe: strong_r_model(p, probe),
        lambda s: _improve_r(p, s),
        search_first=search_first,
    )


def _improve_r(p: Progress, seconds: float) -> None:
    """A longer witness search (:func:`heuristics.long_search_r`), checked like every pair."""
    p.tell("long witness search")
    attempt = sum(step.get("step") == "long-heuristic" for step in p.steps)
    keep_long_search(p, long_search(p, seconds, attempt, stop=p.out_of_time))


def long_search(
    p: Progress, seconds: float, attempt: int = 0, *, stop: Callable[[], bool] | None = None
) -> tuple[int, Witness] | None:
    """Run :func:`heuristics.long_search_r` on ``p``'s graph for about ``seconds``.

    ``attempt`` k seeds it with the request's seed + k, so a second search explores other
    starts than the first. Reads only ``p.request``, so a racer may run it outside the race's
    lock (``solvers.race``); the pair it returns is unchecked: pass it to
    :func:`keep_long_search`. ``stop``, once True, ends the search early with its best pair;
    so does the end of ``seconds`` (the search sizes its runs by a per-move time measured on an
    idle machine, which a busy one can exceed several times over).
    """
    seed = p.request.seed + attempt
    nb = p.request.graph.in_neighbors
    end = time.perf_counter() + seconds

    def over() -> bool:
        return time.perf_counter() >= end or (stop is not None and stop())

    return heuristics.long_search_r(nb, seconds, seed=seed, stop=over)


def keep_long_search(p: Progress, found: tuple[int, Witness] | None, **info: Any) -> None:
    """Offer the long search's pair to ``p`` (checked there) and note its checked value.

    The step ``long-heuristic`` records the value the check found (None: the pair was
    refused) and ``info``; nothing is noted when the search returned nothing.
    """
    if found is not None:
        p.note("long-heuristic", value=p.offer(found[1]), **info)


def strong_r_model(p: Progress, probe: int) -> Model:
    """The strong r decision at ``probe``, hinted with the held witness grown maximal."""
    nb = p.request.graph.in_neighbors
    witness = p.witness
    hint = None
    if witness is not None:
        w = heuristics.maximal_pair(nb, witness, probe)
        hint = (w.s1, w.s2)
    return strong_r(nb, probe, hint=hint)


def _strong_s(p: Progress, run: Runner) -> None:
    nb = p.request.graph.in_neighbors
    r = p.request.question.r
    below = heuristics.search_r(nb, target=r, seed=p.request.seed)
    if below is not None and below[0] < r:  # not r-robust: s*_r = 0
        p.offer(below[1])
    if not p.settled():
        found = heuristics.search_s(nb, r, seed=p.request.seed)
        if found is not None:
            p.offer(found[1])
    strong_s_loop(p, run)


def strong_s_loop(p: Progress, run: Runner) -> None:
    """Probe the strong (r, s) model until settled, out of time, or the solver gives up."""
    _probe_loop(p, run, lambda probe: strong_s_model(p, probe))


def strong_s_model(p: Progress, probe: int) -> Model:
    """The strong (r, s) decision at ``probe``, hinted with the held witness."""
    witness = p.witness
    hint = (witness.s1, witness.s2) if witness is not None else None
    return strong_s(p.request.graph.in_neighbors, p.request.question.r, probe, hint=hint)
