"""``design(n, r)``: the sparsest r-robust graph the search finds, certified by the exact engines.

Pipeline: pick the sparsest proven start (the construction, the hub designs of
:mod:`robustgraph.design.starts` and its connector, hub-graph, cherry and planned connector
designs once the oracle, or where it answers unknown the cores search of
:mod:`solvers.cores`, proves them, or at r = ceil(n/2) the gamma-MERG, which is edge-minimal),
run the certified local search of :mod:`robustgraph.design.search` until the time limit (when
it stalls first, again from the circulant C_n(1..r) with the time left), then certify the
result with :func:`robustgraph.certificate.certifier`. A degree cap that no start meets is
handled by growing a graph from the empty one (:func:`robustgraph.design.augment`).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from robustgraph.certificate.certifier import DEFAULT_ENGINES
from robustgraph.certificate.document import Certificate
from robustgraph.design import bounds, planned, repaired, starts
from robustgraph.design.augmentation import grow
from robustgraph.design.common import certify_design, from_topology, to_topology
from robustgraph.design.minimum import MinimumResult, prove_minimum
from robustgraph.design.oracle import UNKNOWN, find_pair
from robustgraph.design.search import DesignGraph, Moves, SearchStats, local_search
from robustgraph.errors import ParameterError
from robustgraph.generators import gamma_merg, k_circulant, max_robustness
from robustgraph.topology import Topology
from solvers import cores

__all__ = ["DesignResult", "design"]

RESTARTS = 4
"""Most restarts from the circulant after a stalled search (each ends at a stall too)."""

START_CHECK_SECONDS = 5.0
"""Most seconds the cores search gets for one start candidate the oracle leaves unknown."""

REPAIR_SEEDS = 12
"""Most seeds of the repaired hub skeletons tried as starts (``_repaired_candidates``)."""

REPAIR_HUBS = (4, 6)
"""Hubs of the repaired skeletons beyond the lemma's sparsest hub design, tried in turn for
each seed (six: n = 100, r = 3 at 265, docs/design.md, round 17, second pass)."""

REPAIR_SHARE = 0.75
"""Share of the time left to the search's deadline that the repaired skeletons may take."""


@dataclass
class DesignResult:
    """A designed graph, how it compares, how it was found, and its certificate.

    ``edges`` counts arcs for a digraph. ``construction`` is the preferential-attachment count
    (LeBlanc et al. 2013, Thm. 5), ``reference`` what the design may never exceed (the
    construction, or the gamma-MERG count at r = ceil(n/2)), ``lower_bound`` the best proven lower
    bound (docs/theory.md, section 4, or ``minimum``'s certificate). ``certificate`` is None
    only when certification was switched off.
    """

    topology: Topology
    r: int
    s: int
    start: str
    start_edges: int
    construction: int
    reference: int
    lower_bound: int
    seconds: float
    seed: int
    time_limit: float
    stats: SearchStats
    certificate: Certificate | None = None
    certify_seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    minimum: MinimumResult | None = None
    """The minimality proof (:func:`robustgraph.design.minimum.prove_minimum`), when one ran:
    its certificate proves ``lower_bound``."""

    @property
    def edges(self) -> int:
        return self.topology.m

    @property
    def certified(self) -> bool:
        return self.certificate is not None and self.certificate.verdict == "proven"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (the certificate itself is written to its own file)."""
        return {
            "n": self.topology.n,
            "r": self.r,
            "s": self.s,
            "directed": self.topology.directed,
            "edges": self.edges,
            "construction": self.construction,
            "reference": self.reference,
            "lower_bound": self.lower_bound,
            "minimum": self.minimum is not None and self.minimum.minimum,
            "minimum_seconds": round(self.minimum.seconds, 3) if self.minimum else None,
            "ratio": round(self.edges / self.construction, 4),
            "start": self.start,
            "start_edges": self.start_edges,
            "seconds": round(self.seconds, 3),
            "certify_seconds": round(self.certify_seconds, 3),
            "seed": self.seed,
            "time_limit": self.time_limit,
            "certificate_verdict": self.certificate.verdict if self.certificate else None,
            "search": self.stats.to_dict(),
            "notes": self.notes,
        }


def _check_cap(r: int, s: int, max_degree: int | None, n: int) -> None:
    if max_degree is None:
        return
    if isinstance(max_degree, bool) or not isinstance(max_degree, int):
        raise ParameterError(f"max degree must be an integer, got {max_degree!r}")
    need = r + s - 1
    if max_degree < need:
        target = (
            f"({r},{s})-robust graph hears at least r + s - 1 ="
            if s > 1
            else f"{r}-robust graph hears at least"
        )
        raise ParameterError(
            f"max degree {max_degree} is below {need}: every node of a {target} {need} others"
        )
    if max_degree > n - 1:
        raise ParameterError(f"max degree must be at most n - 1 = {n - 1}, got {max_degree}")


def _within_cap(masks: list[int], directed: bool, cap: int | None) -> bool:
    if cap is None:
        return True
    if any(m.bit_count() > cap for m in masks):
        return False
    if directed:
        outs = [sum(m >> u & 1 for m in masks) for u in range(len(masks))]
        return max(outs) <= cap
    return True


def _candidates(
    n: int, r: int, s: int, directed: bool, deadline: float = float("inf")
) -> list[tuple[str, list[int], bool]]:
    """Starting graphs as (name, masks, proven): proven by a theorem, or to be checked.

    The hub designs, O(n^4 r) together, stop at ``deadline`` (``time.monotonic``); the
    construction, always proven, is always there.
    """
    found = [("construction", starts.construction(n, r, s, directed=directed), True)]
    if directed or s > 1:
        return found
    if r == max_robustness(n):
        found.append(("gamma-MERG", from_topology(gamma_merg(n)), True))
        return found
    if n >= 2 * r + 2:  # exactly r-robust with degree 2r: a start under tight degree caps
        found.append(("circulant", from_topology(k_circulant(n, r)), True))
    for k in range(r, n - r + 1):
        if time.monotonic() > deadline:
            break
        masks = starts.hub_design(n, r, k)
        found.append((f"hubs(k={k})", masks, starts.common_neighbour_proof(masks, r)))
    hubs = _proven_hubs(found)
    if hubs is None:
        return found
    return (found + _connector_candidates(n, r, hubs) + _hub_graph_candidates(n, r, hubs)
            + _cherry_candidates(n, r, hubs, deadline) + _repaired_candidates(n, r, hubs, deadline))


def _proven_hubs(found: list[tuple[str, list[int], bool]]) -> int | None:
    """The hub count of the sparsest hub design the lemma proves, if any."""
    proven = [c for c in found if c[2] and c[0].startswith("hubs")]
    if not proven:
        return None
    best = min(proven, key=lambda c: starts.edge_count(c[1], False))
    return int(best[0][len("hubs(k="):-1])


def _hub_graph_candidates(n: int, r: int, hubs: int) -> list[tuple[str, list[int], bool]]:
    """Hub-graph designs (:func:`robustgraph.design.starts.hub_graph_design`, unproven: the
    oracle checks them) with ``hubs`` to ``hubs + 2`` hubs and a star or path of e < 2r hub
    edges, each distinct graph once: the range that held the sparsest proven ones at n = 8-13,
    20 and 50 (issue 43)."""
    extra: dict[tuple[int, ...], tuple[str, list[int], bool]] = {}
    for k in range(hubs, min(hubs + 3, n)) if r >= 2 else ():
        for kind in ("star", "path"):
            for e in range(min(k, 2 * r)):
                masks = starts.hub_graph_design(n, r, k, starts.hub_graph_edges(k, e, kind))
                extra.setdefault(tuple(masks), (f"hub-graph(k={k},{kind}={e})", masks, False))
    return list(extra.values())


def _cherry_candidates(
    n: int, r: int, hubs: int, deadline: float = float("inf")
) -> list[tuple[str, list[int], bool]]:
    """Planned connectors (unproven: the oracle checks them) with ``hubs`` to ``hubs + 2``
    hubs, which they fit on the nodes of the lemma's sparsest hub design with ``hubs`` hubs
    (n = 100, r = 2: 9 against 8; issue 43): at r = 2 the cherry designs
    (:func:`robustgraph.design.planned.cherry_design`), for r >= 3 the planned connector designs
    (:func:`robustgraph.design.planned.planned_connector_design`) with g = 1..k pairs. None is
    built after ``deadline`` (``time.monotonic``)."""
    found: list[tuple[str, list[int], bool]] = []
    for k in range(max(hubs, 2 * r - 1), min(hubs + 3, n)):
        for g in [0] if r == 2 else range(1, min(k, (n - k) // 2) + 1):
            if time.monotonic() > deadline:
                return found
            if r == 2:
                found.append((f"cherries(k={k})", planned.cherry_design(n, k), False))
            else:
                found.append((f"planned(k={k},g={g})",
                              planned.planned_connector_design(n, r, k, g), False))
    return found


def _repaired_candidates(
    n: int, r: int, hubs: int, deadline: float = float("inf")
) -> list[tuple[str, list[int], bool]]:
    """Repaired hub skeletons (:func:`robustgraph.design.repaired.repaired_design`) with
    ``hubs`` plus each of :data:`REPAIR_HUBS` hubs, seeds 0 to :data:`REPAIR_SEEDS` - 1 in
    turn, for r >= 3 (where the planned designs stay above the family count of
    docs/design.md, point 10), until :data:`REPAIR_SHARE` of the time left to ``deadline``
    has passed (issue 43, round 17). The same call gives the same candidates while the
    builds finish in time, and fewer seeds under heavy load. Each is proven r-robust by the
    exact cores search as it is built, so it is marked proven."""
    found: list[tuple[str, list[int], bool]] = []
    if r < 3:
        return found
    stop_at = time.monotonic() + max(0.0, deadline - time.monotonic()) * REPAIR_SHARE
    for seed in range(REPAIR_SEEDS):
        for k in REPAIR_HUBS:
            if hubs + k > n - r:
                continue
            masks = repaired.repaired_design(n, r, hubs + k, seed=seed, deadline=stop_at)
            if masks is None:
                return found
            found.append((f"repaired(k={hubs + k},seed={seed})", masks, True))
    return found


def _connector_candidates(n: int, r: int, hubs: int) -> list[tuple[str, list[int], bool]]:
    """Connector designs (:func:`robustgraph.design.starts.connector_design`, unproven: the
    oracle checks them) with ``hubs`` hubs (those of the sparsest proven hub design) and one
    more, and 1, k - 1 or k connector pairs (the counts that did best at n = 11-50, r = 2, 3;
    issue 43)."""
    extra = []
    for k in (hubs, hubs + 1):
        for g in sorted({1, k - 1, k}):
            if k >= 2 * r - 1 and g >= 1 and k + 2 * g <= n:
                extra.append((f"connectors(k={k},g={g})", starts.connector_design(n, r, k, g),
                              False))
    return extra


def _best_start(
    n: int, r: int, s: int, directed: bool, cap: int | None, budget: int, deadline: float
) -> tuple[str, list[int]] | None:
    """The sparsest candidate within the degree cap that is proven r-robust."""
    options = sorted(
        _candidates(n, r, s, directed, deadline), key=lambda c: starts.edge_count(c[1], directed)
    )
    for name, masks, proven in options:
        if not _within_cap(masks, directed, cap):
            continue
        if proven or _proves(masks, r, budget, deadline):
            return name, masks
        # A witness, or no proof in time: try the next candidate.
    return None


def _proves(masks: list[int], r: int, budget: int, deadline: float) -> bool:
    """True if the oracle proves the graph r-robust, or, when it answers UNKNOWN, the exact
    cores search of :mod:`solvers.cores` (LeBlanc et al. 2013, Def. 7: no two disjoint sets of
    reach at most r - 1) finds no pair within :data:`START_CHECK_SECONDS`. The hub-graph
    designs at n = 50 are unknown to the oracle at its budget and take the cores search
    milliseconds (issue 43)."""
    answer = find_pair(masks, r, budget=budget, deadline=deadline)
    if answer is not UNKNOWN:
        return answer is None
    stop_at = min(deadline, time.monotonic() + START_CHECK_SECONDS)
    try:
        return cores.pair_within(masks, r - 1, stop=lambda: time.monotonic() > stop_at) is None
    except cores.OutOfTime:
        return False


def _restart(
    graph: DesignGraph,
    n: int,
    r: int,
    s: int,
    directed: bool,
    cap: int | None,
    rng: random.Random,
    deadline: float,
    say: Callable[[str], None],
    notes: list[str],
) -> tuple[DesignGraph, bool]:
    """Use the time a stalled local search leaves: search again from the circulant
    C_n(1..r) (r-robust by docs/theory.md's theorem; undirected, s = 1, n >= 2r + 2, degree
    2r within the cap), at most :data:`RESTARTS` times and until the deadline, and keep the
    graph with the fewest edges.

    Returns the best graph and whether a Ctrl-C ended a search. Every graph it may return was
    proven r-robust by the oracle at each step, as in :func:`local_search`.
    """
    if directed or s > 1 or n < 2 * r + 2 or (cap is not None and cap < 2 * r):
        return graph, False
    best, rounds = graph, 0
    while rounds < RESTARTS and deadline - time.monotonic() > 1.0:
        other = DesignGraph(from_topology(k_circulant(n, r)), graph.moves)
        interrupted = local_search(other, rng, deadline=deadline)
        rounds += 1
        if other.count() < best.count():
            best = other
            say(f"{best.count()} edges (restart {rounds} from the circulant)")
            notes.append(f"best graph from restart {rounds}, from the circulant C_n(1..r)")
        if interrupted:
            return best, True
    return best, False


def design(
    n: int,
    r: int,
    s: int = 1,
    *,
    directed: bool = False,
    max_degree: int | None = None,
    time_limit: float = 30.0,
    seed: int = 0,
    budget: int = 20_000,
    certify_result: bool = True,
    engines: str | tuple[str, ...] = DEFAULT_ENGINES,
    certify_time_limit: float | None = None,
    prove_minimal: bool = False,
    minimal_time_limit: float = 300.0,
    progress: Callable[[str], None] | None = None,
) -> DesignResult:
    """Design an (r, s)-robust graph on n nodes with as few edges as the search finds.

    Parameters
    ----------
    n : int
        Number of nodes, at least 2.
    r : int
        Target robustness, 1 <= r <= ceil(n/2).
    s : int
        Target s of (r, s)-robustness (1: plain r-robustness). s > 1 uses the exact engines for
        every check and only deletes edges, so it suits small n.
    directed : bool
        Design a digraph (fewest arcs); robustness counts in-neighbours.
    max_degree : int, optional
        Cap on every node's degree (digraph: on in- and out-degree each).
    time_limit : float
        Seconds for the search (the certification comes on top).
    seed : int
        Seeds the search; the same seed and limits give the same graph unless the time limit
        cuts the search short.
    budget : int
        Branch-and-bound nodes per oracle check; a check that needs more refuses the move.
    certify_result : bool
        Certify the output with ``engines`` (default: the portfolio).
    engines : str or tuple of str
        Engines for the certificate.
    certify_time_limit : float, optional
        Seconds for the certificate (one deadline for all its questions).
    prove_minimal : bool
        Undirected, s = 1: prove the edge count minimal with the SAT search of
        :func:`robustgraph.design.minimum.prove_minimum` (n <= 24; in practice n <= 10 for
        every r), which may also find a graph with fewer edges and return it. Without it (and
        under a degree cap) the best closed-form bound is certified, and proves the count
        minimal where they meet.
    minimal_time_limit : float
        Seconds for that proof.
    progress : callable, optional
        Receives one-line progress messages.

    Returns
    -------
    DesignResult
        Never more edges than the construction (or the gamma-MERG at r = ceil(n/2)).

    Raises
    ------
    ParameterError
        Impossible n, r, s, max degree or time limit; s > 1 with a degree cap the (r, s)
        construction exceeds (exit code 2).
    NotFound
        No graph within the degree cap found (exit code 1).

    Examples
    --------
    >>> res = design(12, 3, time_limit=2, certify_result=False)
    >>> res.edges <= res.construction
    True

    References
    ----------
    LeBlanc, Zhang, Koutsoukos & Sundaram, IEEE JSAC 31(4), 2013 (Def. 6, Thm. 5); H. Lee &
    D. Panagou, arXiv:2507.00415, 2025 (gamma-MERG).
    """
    bounds.check_target(n, r, s)
    bounds.check_size(n, r, s, directed=directed)
    _check_cap(r, s, max_degree, n)
    if not time_limit > 0:
        raise ParameterError(f"time limit must be > 0 seconds, got {time_limit}")
    say = progress or (lambda _line: None)
    began = time.monotonic()
    deadline = began + time_limit
    rng = random.Random(seed)
    moves = Moves(r, directed, s=s, max_degree=max_degree, budget=budget)
    start = _best_start(n, r, s, directed, max_degree, budget, deadline)
    notes: list[str] = []
    if start is None and s > 1:
        raise ParameterError(
            f"no ({r},{s})-robust start fits max degree {max_degree}: the (r,s) construction's "
            f"hubs have degree {n - 1}; drop --max-degree or design for s = 1"
        )
    if start is None:
        say(f"no structured start within max degree {max_degree}; growing one edge by edge")
        masks = grow([0] * n, moves, rng, deadline=deadline)
        start = ("grown", masks)
        notes.append("start grown from the empty graph under the degree cap")
    name, masks = start
    graph = DesignGraph(list(masks), moves)
    start_edges = graph.count()
    say(f"start: {name} with {start_edges} edges; searching for {time_limit:g} s")
    if name != "gamma-MERG":  # the gamma-MERG is edge-minimal already (Lee & Panagou)
        interrupted = local_search(
            graph,
            rng,
            deadline=deadline,
            on_improve=lambda g: say(f"{g.count()} edges"),
        )
        if not interrupted:
            graph, interrupted = _restart(graph, n, r, s, directed, max_degree, rng, deadline,
                                          say, notes)
        if interrupted:
            say(f"search stopped by Ctrl-C; keeping the best graph, {graph.count()} edges")
            notes.append(
                f"search stopped by Ctrl-C after {time.monotonic() - began:.1f} s "
                "(the best graph found so far)"
            )
    masks = graph.masks
    minimum = None
    if not directed:  # the lower bound's certificate; the SAT search if asked
        count = graph.count()
        search = prove_minimal and max_degree is None
        if search:
            say(f"proving {count} edges minimal (at most {minimal_time_limit:g} s)")
        minimum = prove_minimum(n, r, count, s=s, time_limit=minimal_time_limit, search=search)
        if minimum.better is not None:
            masks = minimum.better
            notes.append(f"the minimality search found a graph with {minimum.edges} edges")
        if search:
            say("minimum proven" if minimum.minimum else
                f"lower bound {minimum.lower_bound} proven; {minimum.note}")
    seconds = time.monotonic() - began
    topology = to_topology(masks, directed)
    result = DesignResult(
        topology=topology,
        r=r,
        s=s,
        start=name,
        start_edges=start_edges,
        construction=bounds.construction_edges(n, r, s, directed=directed),
        reference=bounds.reference_edges(n, r, s, directed=directed),
        lower_bound=(
            minimum.lower_bound if minimum else bounds.lower_bound(n, r, directed=directed)
        ),
        seconds=seconds,
        seed=seed,
        time_limit=time_limit,
        stats=graph.stats,
        notes=notes,
        minimum=minimum,
    )
    if certify_result:
        t0 = time.monotonic()
        result.certificate = certify_design(
            topology, r, s, engines=engines, time_limit=certify_time_limit, progress=progress
        )
        result.certify_seconds = time.monotonic() - t0
    return result
