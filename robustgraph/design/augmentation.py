"""``augment``: the fewest edges the search finds that make an existing graph r-robust.

Existing edges are kept, forbidden pairs are never added, and a degree cap is respected. Two
phases, both certified by the exact oracle of :mod:`robustgraph.design.oracle`:

1. **grow**: while the graph is not r-robust, take the oracle's witness (S1, S2) (two disjoint
   sets, neither r-reachable) and add the edge that brings a member of S1 or S2 closest to r
   in-neighbours outside its set, preferring an edge that helps both sets at once. A witness no
   allowed edge can ever break proves the target impossible: a set stays non-r-reachable until
   one of its members hears one more node outside it (LeBlanc et al. 2013, Def. 6).
2. **trim**: the certified local search deletes and rewires added edges only.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from robustgraph import limits
from robustgraph.certificate.certifier import DEFAULT_ENGINES
from robustgraph.certificate.document import Certificate
from robustgraph.design import bounds
from robustgraph.design.common import certify_design, from_topology, to_topology
from robustgraph.design.oracle import UNKNOWN, Pair, find_pair
from robustgraph.design.search import DesignGraph, Edge, Moves, SearchStats, local_search
from robustgraph.errors import ParameterError, RobustgraphError
from robustgraph.graphs import as_topology
from robustgraph.topology import Label, Topology

__all__ = ["AugmentResult", "Infeasible", "NotFound", "augment", "grow"]


class Infeasible(RobustgraphError):
    """No allowed set of added edges can make the graph r-robust (exit code 1)."""

    exit_code = 1


class NotFound(RobustgraphError):
    """The search found no augmentation within its limits, without proving none exists (exit 1)."""

    exit_code = 1


@dataclass
class AugmentResult:
    """The augmented graph, the edges added (labels), and its certificate."""

    topology: Topology
    added: list[tuple[Label, Label]]
    r: int
    original_edges: int
    seconds: float
    seed: int
    stats: SearchStats
    certificate: Certificate | None = None
    certify_seconds: float = 0.0
    grown: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def certified(self) -> bool:
        return self.certificate is not None and self.certificate.verdict == "proven"

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.topology.n,
            "r": self.r,
            "directed": self.topology.directed,
            "original_edges": self.original_edges,
            "added_edges": len(self.added),
            "edges": self.topology.m,
            "added": [list(e) for e in self.added],
            "added_before_trim": self.grown,
            "seconds": round(self.seconds, 3),
            "certify_seconds": round(self.certify_seconds, 3),
            "seed": self.seed,
            "certificate_verdict": self.certificate.verdict if self.certificate else None,
            "search": self.stats.to_dict(),
            "notes": self.notes,
        }


def _outside(masks: list[int], i: int, side: int) -> int:
    return (masks[i] & ~side).bit_count()


def _breakable(graph: DesignGraph, side: int, original: list[int]) -> bool:
    """Whether some edge allowed in principle (absent at the start, not forbidden, both ends
    below the cap in the original graph) gives a member of ``side`` an outside in-neighbour."""
    cap = graph.moves.max_degree
    directed = graph.moves.directed
    n = graph.n
    outs = [sum(original[v] >> u & 1 for v in range(n)) for u in range(n)] if directed else None
    for b in range(n):
        if not side >> b & 1 or (cap is not None and original[b].bit_count() >= cap):
            continue
        for a in range(n):
            if side >> a & 1 or original[b] >> a & 1:
                continue
            if graph.key(a, b) in graph.moves.forbidden:
                continue
            if cap is not None:
                if directed and outs[a] >= cap:
                    continue
                if not directed and original[a].bit_count() >= cap:
                    continue
            return True
    return False


def _fixes(graph: DesignGraph, pair: Pair) -> list[tuple[int, Edge]]:
    """Addable edges that raise a witness member's outside count, scored (higher is better)."""
    masks = graph.masks
    scored = []
    for k, side in enumerate(pair):
        other = pair[1 - k]
        for b in range(graph.n):
            if not side >> b & 1:
                continue
            need = _outside(masks, b, side)
            for a in range(graph.n):
                if side >> a & 1 or not graph.addable(a, b):
                    continue
                score = 2 * need
                if not graph.moves.directed and other >> a & 1:
                    score += 2 * _outside(masks, a, other) + 1  # helps both sets
                edge = (a, b) if graph.moves.directed else graph.key(a, b)
                scored.append((score, edge))
    return scored


def _make_room(graph: DesignGraph, pair: Pair, original: list[int], rng: random.Random) -> None:
    """Free a saturated end of an edge that would break the witness by dropping one added edge
    there, then add the breaking edge (the next round re-checks everything)."""
    moves = graph.moves
    options = []
    for side in pair:
        for b in range(graph.n):
            if not side >> b & 1:
                continue
            for a in range(graph.n):
                if side >> a & 1 or graph.has(a, b) or graph.key(a, b) in moves.forbidden:
                    continue
                options.append((a, b))
    # Only edges the search added may go, so ends that were saturated at the start are useless.
    cap = moves.max_degree
    usable = [
        (a, b)
        for a, b in options
        if original[b].bit_count() < cap and (moves.directed or original[a].bit_count() < cap)
    ]
    if not usable:
        raise NotFound(
            "the degree cap blocks every edge that would break the witness; "
            "no augmentation found (none proven impossible either)"
        )
    a, b = rng.choice(usable)
    for end in (a, b):
        if graph.masks[end].bit_count() < cap:
            continue
        added = [e for e in graph.edges() if end in e and e not in moves.fixed and e != (a, b)]
        if added:
            graph.set_edge(*rng.choice(added), False)
    if graph.addable(a, b):
        graph.set_edge(a, b, True)


def grow(
    masks: list[int],
    moves: Moves,
    rng: random.Random,
    *,
    deadline: float,
    check_budget: int = 200_000,
) -> list[int]:
    """Add edges to ``masks`` until the graph is proven r-robust; return the new masks.

    Raises
    ------
    Infeasible
        A witness that no allowed edge can break (with the degree cap, judged on the original
        degrees): no augmentation exists.
    NotFound
        The deadline passed, a check ran out of budget, or the degree cap blocked every fix.
    """
    original = list(masks)
    graph = DesignGraph(list(masks), moves)
    r = moves.r
    swaps, max_swaps = 0, 4 * graph.n * graph.n
    while True:
        if time.monotonic() > deadline:
            raise NotFound("time limit reached before the graph became r-robust (raise it)")
        pair = find_pair(graph.masks, r, budget=check_budget)
        if pair is None:
            return graph.masks
        if pair is UNKNOWN:
            raise NotFound("the exact check ran out of budget while growing the graph")
        fixes = _fixes(graph, pair)
        if not fixes:
            if not any(_breakable(graph, side, original) for side in pair):
                s1, s2 = (sorted(i for i in range(graph.n) if side >> i & 1) for side in pair)
                raise Infeasible(
                    f"no allowed edge can make it {r}-robust: node sets {s1} and {s2} (indices) "
                    f"each hear fewer than {r} nodes outside themselves, and every edge that "
                    "could change that is present, forbidden or beyond the degree cap"
                )
            if swaps >= max_swaps:
                raise NotFound(
                    "the degree cap blocks every edge that would break the witness; "
                    "no augmentation found (none proven impossible either)"
                )
            swaps += 1
            _make_room(graph, pair, original, rng)
            continue
        best = max(score for score, _ in fixes)
        a, b = rng.choice([e for score, e in fixes if score == best])
        graph.set_edge(a, b, True)


def _label_pairs(topology: Topology, pairs: Iterable[tuple[Label, Label]], what: str) -> set[Edge]:
    by_text = {str(label): i for i, label in enumerate(topology.labels)}
    found: set[Edge] = set()
    for u, v in pairs:
        idx = []
        for label in (u, v):
            try:
                idx.append(topology.index(label))
            except KeyError:
                if str(label) not in by_text:
                    raise ParameterError(f"{what} names node {label!r}, not in the graph") from None
                idx.append(by_text[str(label)])
        a, b = idx
        if a == b:
            raise ParameterError(f"{what} pairs a node with itself: {u!r}")
        found.add((a, b) if topology.directed else (min(a, b), max(a, b)))
    return found


def augment(
    topology: Topology,
    r: int,
    *,
    max_degree: int | None = None,
    forbid: Iterable[tuple[Label, Label]] = (),
    time_limit: float = 30.0,
    seed: int = 0,
    budget: int = 20_000,
    certify_result: bool = True,
    engines: str | tuple[str, ...] = DEFAULT_ENGINES,
    certify_time_limit: float | None = None,
    progress: Callable[[str], None] | None = None,
) -> AugmentResult:
    """Add the fewest edges the search finds so that ``topology`` becomes r-robust.

    Parameters
    ----------
    topology : Topology
        The deployed graph; its edges are all kept.
    r : int
        Target robustness, 1 <= r <= ceil(n/2).
    max_degree : int, optional
        No node may end with a higher degree (digraph: in- and out-degree each); nodes already
        above it keep their edges but gain none.
    forbid : iterable of (label, label)
        Pairs that must never be joined (arcs u -> v for a digraph).
    time_limit : float
        Seconds for growing and trimming together.
    seed : int
        Seeds tie-breaking; the same seed and limits give the same result.
    budget : int
        Branch-and-bound nodes per oracle check while trimming.
    certify_result, engines, certify_time_limit, progress
        As for :func:`robustgraph.design.design`.

    Returns
    -------
    AugmentResult
        ``added`` lists the new edges by label; the original edges are all present.

    Raises
    ------
    ParameterError
        Bad r, degree cap below r, a forbidden pair naming an unknown node.
    Infeasible
        No allowed augmentation exists (exit 1), with the witness sets.
    NotFound
        None found within the limits (exit 1).

    Examples
    --------
    >>> from robustgraph.generators import k_circulant
    >>> res = augment(k_circulant(10, 1), 2, time_limit=2, certify_result=False)
    >>> res.topology.m - 10 == len(res.added)
    True
    """
    topology = as_topology(topology)  # a networkx/igraph graph or edge list too
    n = topology.n
    bounds.check_target(n, r)
    limits.at_most("n", n, limits.MAX_DESIGN_NODES, " nodes")  # the search's ceiling
    if max_degree is not None and (isinstance(max_degree, bool) or max_degree < r):
        raise ParameterError(
            f"max degree {max_degree} is below r = {r}: every node of an r-robust graph hears r"
        )
    if not time_limit > 0:
        raise ParameterError(f"time limit must be > 0 seconds, got {time_limit}")
    say = progress or (lambda _line: None)
    began = time.monotonic()
    deadline = began + time_limit
    rng = random.Random(seed)
    original = from_topology(topology)
    fixed = frozenset(topology.edge_indices())
    forbidden = frozenset(_label_pairs(topology, forbid, "--forbid") - fixed)
    moves = Moves(
        r, topology.directed, fixed=fixed, forbidden=forbidden, max_degree=max_degree, budget=budget
    )
    masks = grow(original, moves, rng, deadline=deadline)
    graph = DesignGraph(masks, moves)
    grown = graph.count() - topology.m
    say(f"grown: {grown} edges added; trimming for the rest of {time_limit:g} s")
    interrupted = local_search(
        graph, rng, deadline=deadline, on_improve=lambda g: say(f"{g.count()} edges")
    )
    if interrupted:
        say(f"trimming stopped by Ctrl-C; keeping the best graph, {graph.count()} edges")
    result_topology = to_topology(graph.masks, topology.directed, topology.labels)
    added = sorted(set(result_topology.edge_indices()) - fixed)
    result = AugmentResult(
        topology=result_topology,
        added=[(topology.labels[a], topology.labels[b]) for a, b in added],
        r=r,
        original_edges=topology.m,
        seconds=time.monotonic() - began,
        seed=seed,
        stats=graph.stats,
        grown=grown,
    )
    if interrupted:
        result.notes.append("trimming stopped by Ctrl-C (the best graph found so far)")
    if certify_result:
        t0 = time.monotonic()
        result.certificate = certify_design(
            result_topology, r, engines=engines, time_limit=certify_time_limit, progress=progress
        )
        result.certify_seconds = time.monotonic() - t0
    return result
