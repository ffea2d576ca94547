"""``augment``: the fewest edges the search finds that make an existing graph r-robust.

Existing edges are kept, forbidden pairs are never added, and a degree cap is respected. Two
phases, both certified by the exact oracle of :mod:`robustgraph.design.oracle`:

1. **grow**: while the graph is not r-robust, take the oracle's witness (S1, S2) (two disjoint
   sets, neither r-reachable) and add the edge that brings a member of S1 or S2 closest to r
   in-neighbours outside its set, preferring an edge that helps both sets at once. A witness no
   allowed edge can ever break proves the target impossible: a set stays non-r-reachable until
   one of its members hears one more node outside it (LeBlanc et al. 2013, Def. 6).
2. **trim**: the certified local search deletes and rewires added edges only.

Then :mod:`robustgraph.design.minimality` says whether the count is proven minimal or the best
found. The search works on a canonical node order (labels sorted as the content hash sorts
them), so one graph gets one answer whatever the order of its file, and every random choice
comes from the seed.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from robustgraph import limits
from robustgraph.certificate.certifier import DEFAULT_ENGINES
from robustgraph.certificate.document import Certificate
from robustgraph.design import bounds
from robustgraph.design.common import certify_design, from_topology, to_topology
from robustgraph.design.minimality import Minimality, degree_bound, prove_minimal
from robustgraph.design.oracle import UNKNOWN, Pair, find_pair
from robustgraph.design.search import DesignGraph, Edge, Moves, SearchStats, local_search
from robustgraph.errors import ParameterError, RobustgraphError
from robustgraph.graphs import as_topology
from robustgraph.topology import Label, Topology

__all__ = ["AugmentResult", "Infeasible", "NotFound", "augment", "canonical_order", "grow"]


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
    minimality: Minimality | None = None

    @property
    def certified(self) -> bool:
        return self.certificate is not None and self.certificate.verdict == "proven"

    @property
    def proven_minimal(self) -> bool:
        """Whether no allowed augmentation adds fewer edges (else: the best found in time)."""
        return self.minimality is not None and self.minimality.proven

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
            "minimal": "proven" if self.proven_minimal else "best found",
            "added_lower_bound": self.minimality.lower_bound if self.minimality else 0,
            "minimal_reason": self.minimality.how if self.minimality else None,
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
    names: Sequence[Label] | None = None,
) -> list[int]:
    """Add edges to ``masks`` until the graph is proven r-robust; return the new masks.

    ``names`` (node i's label, in the masks' order) words the witness of :class:`Infeasible`;
    without it the witness is given by index.

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
                s1, s2 = (
                    [i if names is None else names[i] for i in range(graph.n) if side >> i & 1]
                    for side in pair
                )
                what = "indices" if names is None else "labels"
                raise Infeasible(
                    f"no allowed edge can make it {r}-robust: node sets {s1} and {s2} ({what}) "
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
    order = canonical_order(topology)  # position p of the search holds node order[p]
    pos = [0] * n
    for p, i in enumerate(order):
        pos[i] = p
    original = _permute(from_topology(topology), pos)

    def key(a: int, b: int) -> Edge:
        return (a, b) if topology.directed else (min(a, b), max(a, b))

    fixed = frozenset(key(pos[a], pos[b]) for a, b in topology.edge_indices())
    asked = {key(pos[a], pos[b]) for a, b in _label_pairs(topology, forbid, "--forbid")}
    moves = Moves(
        r,
        topology.directed,
        fixed=fixed,
        forbidden=frozenset(asked - fixed),
        max_degree=max_degree,
        budget=budget,
    )
    names = [topology.labels[i] for i in order]
    masks = grow(original, moves, rng, deadline=deadline, names=names)
    graph = DesignGraph(masks, moves)
    grown = graph.count() - topology.m
    say(f"grown: {grown} edges added; trimming until no move helps (at most {time_limit:g} s "
        "in all)")
    interrupted = local_search(
        graph, rng, deadline=deadline, on_improve=lambda g: say(f"{g.count()} edges")
    )
    masks = graph.masks
    stopped = Minimality(False, degree_bound(original, r, topology.directed),
                         "degree bound; Ctrl-C stopped the search")
    if interrupted:
        say(f"trimming stopped by Ctrl-C; keeping the best graph, {graph.count()} edges")
        minimality = stopped
    else:
        try:
            minimality = prove_minimal(original, graph.count() - topology.m, moves,
                                       deadline=deadline, not_robust=grown > 0)
        except KeyboardInterrupt:  # as in the search: keep the graph, say what is not proven
            interrupted, minimality = True, stopped
        if minimality.better is not None:
            masks = list(original)
            for a, b in minimality.better:
                masks[b] |= 1 << a
                if not topology.directed:
                    masks[a] |= 1 << b
    count = sum(m.bit_count() for m in masks) // (1 if topology.directed else 2) - topology.m
    say(f"{count} edges added: {'proven minimal' if minimality.proven else 'best found'} "
        f"({minimality.how})")
    result_topology = to_topology(_permute(masks, order), topology.directed, topology.labels)
    added = set(result_topology.edge_indices()) - set(topology.edge_indices())
    labels = topology.labels
    result = AugmentResult(
        topology=result_topology,
        added=sorted(((labels[a], labels[b]) for a, b in added), key=lambda e: _label_key(*e)),
        r=r,
        original_edges=topology.m,
        seconds=time.monotonic() - began,
        seed=seed,
        stats=graph.stats,
        grown=grown,
        minimality=minimality,
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


def _label_key(*labels: Label) -> tuple[tuple[str, str], ...]:
    """Labels in the content hash's order (as strings), the type name breaking a tie."""
    return tuple((str(label), type(label).__name__) for label in labels)


def canonical_order(topology: Topology) -> list[int]:
    """The node indices of ``topology`` sorted by label as its content hash sorts them: the
    same list of labels for every file of the same graph.

    Examples
    --------
    >>> canonical_order(Topology.from_edges([("b", "a"), ("a", "c")]))
    [1, 0, 2]
    """
    return sorted(range(topology.n), key=lambda i: _label_key(topology.labels[i]))


def _permute(masks: list[int], perm: list[int]) -> list[int]:
    """The bitmask graph with node i renamed ``perm[i]``."""
    out = [0] * len(masks)
    for i, mask in enumerate(masks):
        out[perm[i]] = sum(1 << perm[j] for j in range(mask.bit_length()) if mask >> j & 1)
    return out
