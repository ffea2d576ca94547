"""Certified greedy deletion and local search (delete, rewire) for sparse r-robust graphs.

The search only ever holds graphs proven r-robust: it starts from one (a construction with a
theorem, or a graph the exact oracle checked) and accepts a move only when the oracle of
:mod:`robustgraph.design.oracle` proves the result r-robust. Moves:

- **delete** an edge; kept when the graph stays r-robust.
- **rewire**: delete an edge, and when that creates a witness pair (S1, S2), add one edge that
  gives a node of S1 or S2 with exactly r - 1 in-neighbours outside its set one more (so that
  set becomes r-reachable); kept when the oracle proves the result r-robust. The edge count is
  unchanged, and the nodes that gained an edge are then tried for deletions.
- **kick**: when rewires stall, add two random edges and run a full deletion pass (an iterated
  local search that returns to the best graph whenever a kick ends worse).

Before the oracle's search, a check tries the common-neighbour lemma
(:func:`robustgraph.design.starts.common_neighbour_proof`), which proves most moves inside a hub
design at once, and a pool of recent witnesses, which refutes most failing moves at once.
Adding edges never lowers robustness, so a graph that was r-robust before a deletion stays the
premise of the oracle's incremental check (LeBlanc et al. 2013, Def. 6). A check that runs out
of budget counts as a failure: the move is refused, never accepted unproven.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from robustgraph.design.oracle import (
    UNKNOWN,
    Pair,
    WitnessPool,
    check_after_removal,
)
from robustgraph.design.starts import common_neighbour_proof
from solvers import exhaustive, registry
from solvers.types import Question, Request

__all__ = ["Edge", "Moves", "SearchStats", "DesignGraph", "greedy_delete", "local_search"]

Edge = tuple[int, int]


@dataclass(frozen=True)
class _Graph:
    """The engines' view of a bitmask graph (``solvers.types.GraphLike``)."""

    directed: bool
    in_neighbors: tuple[frozenset[int], ...]


def _members(mask: int) -> frozenset[int]:
    return frozenset(i for i in range(mask.bit_length()) if mask >> i & 1)


@dataclass
class SearchStats:
    """Counters of one search: oracle calls by outcome, and moves accepted."""

    checks: int = 0
    proofs: int = 0
    refutations: int = 0
    unknown: int = 0
    pool_hits: int = 0
    deletions: int = 0
    rewires: int = 0

    def to_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


@dataclass
class Moves:
    """What the search may do: the target, the fixed edges, forbidden pairs and degree cap."""

    r: int
    directed: bool
    s: int = 1
    fixed: frozenset[Edge] = frozenset()
    forbidden: frozenset[Edge] = frozenset()
    max_degree: int | None = None
    budget: int = 20_000
    rs_time: float = 10.0


@dataclass
class DesignGraph:
    """A mutable bitmask graph under search, with the oracle and its witness pool.

    ``masks[i]`` holds the in-neighbours of i. For an undirected graph an edge is a pair
    ``(u, v)`` with u < v; for a digraph ``(u, v)`` is the arc u -> v (v hears u).
    """

    masks: list[int]
    moves: Moves
    stats: SearchStats = field(default_factory=SearchStats)
    pool: WitnessPool = field(default_factory=WitnessPool)
    deadline: float | None = None

    @property
    def n(self) -> int:
        return len(self.masks)

    def key(self, u: int, v: int) -> Edge:
        return (u, v) if self.moves.directed or u < v else (v, u)

    def has(self, u: int, v: int) -> bool:
        return bool(self.masks[v] >> u & 1)

    def edges(self) -> list[Edge]:
        if self.moves.directed:
            return [(u, v) for v, m in enumerate(self.masks) for u in range(self.n) if m >> u & 1]
        return [(u, v) for v, m in enumerate(self.masks) for u in range(v) if m >> u & 1]

    def count(self) -> int:
        total = sum(m.bit_count() for m in self.masks)
        return total if self.moves.directed else total // 2

    def degree(self, i: int) -> tuple[int, int]:
        """(in-degree, out-degree) of node i; equal for an undirected graph."""
        ins = self.masks[i].bit_count()
        if not self.moves.directed:
            return ins, ins
        return ins, sum(m >> i & 1 for m in self.masks)

    def set_edge(self, u: int, v: int, present: bool) -> None:
        """Add (``present``) or remove edge (u, v) without any check."""
        pairs = [(u, v)] if self.moves.directed else [(u, v), (v, u)]
        for a, b in pairs:
            if present:
                self.masks[b] |= 1 << a
            else:
                self.masks[b] &= ~(1 << a)

    def lost(self, u: int, v: int) -> list[tuple[int, int]]:
        """``(w, x)``: node w stops hearing x when edge (u, v) goes."""
        return [(v, u)] if self.moves.directed else [(v, u), (u, v)]

    def removable(self, u: int, v: int) -> bool:
        return self.key(u, v) not in self.moves.fixed

    def addable(self, u: int, v: int) -> bool:
        """Whether edge (u, v) may be added: absent, not forbidden, within the degree cap."""
        if u == v or self.has(u, v) or self.key(u, v) in self.moves.forbidden:
            return False
        cap = self.moves.max_degree
        if cap is None:
            return True
        if self.moves.directed:
            return self.degree(u)[1] < cap and self.degree(v)[0] < cap
        return self.degree(u)[0] < cap and self.degree(v)[0] < cap

    def check(self, lost: list[tuple[int, int]]) -> Pair | None:
        """Prove the current graph r-robust given that it was before ``lost``: None if proven,
        else a witness (or ``(0, 0)`` when the budget ran out)."""
        self.stats.checks += 1
        if self.moves.s > 1:
            return self._check_rs()
        if not self.moves.directed and common_neighbour_proof(self.masks, self.moves.r):
            self.stats.proofs += 1
            return None
        pair = self.pool.find(self.masks, self.moves.r)
        if pair is not None:
            self.stats.pool_hits += 1
            self.stats.refutations += 1
            return pair
        answer = check_after_removal(
            self.masks, self.moves.r, lost, budget=self.moves.budget, deadline=self.deadline
        )
        if answer is UNKNOWN:
            self.stats.unknown += 1
            return (0, 0)
        if answer is None:
            self.stats.proofs += 1
            return None
        self.stats.refutations += 1
        self.pool.add(answer)
        return answer

    def _check_rs(self) -> Pair | None:
        """(r, s)-robustness through the exact engines (no incremental form exists here)."""
        graph = _Graph(self.moves.directed, tuple(_members(m) for m in self.masks))
        question = Question.is_rs_robust(self.moves.r, self.moves.s)
        engine = "exhaustive" if self.n <= exhaustive.MAX_N else "portfolio"
        limit = self.moves.rs_time
        if self.deadline is not None:
            limit = max(0.01, min(limit, self.deadline - time.monotonic()))
        result = registry.solve(Request(graph, question, time_limit=limit), engine)
        if result.holds:
            self.stats.proofs += 1
            return None
        if result.holds is None or result.witness is None:
            self.stats.unknown += 1
            return (0, 0)
        self.stats.refutations += 1
        w = result.witness
        return sum(1 << i for i in w.s1), sum(1 << i for i in w.s2)

    def try_delete(self, u: int, v: int) -> Pair | None:
        """Delete edge (u, v) if the graph stays r-robust; return None on success, else the
        witness (the edge is restored)."""
        self.set_edge(u, v, False)
        pair = self.check(self.lost(u, v))
        if pair is None:
            self.stats.deletions += 1
            return None
        self.set_edge(u, v, True)
        return pair

    def repairs(self, pair: Pair, rng: random.Random) -> list[Edge]:
        """Edges (a, b) whose addition makes one set of the witness r-reachable: b in the set
        hears exactly r - 1 nodes outside it, a is outside it."""
        found = []
        for side in pair:
            for b in range(self.n):
                if not side >> b & 1:
                    continue
                if (self.masks[b] & ~side).bit_count() != self.moves.r - 1:
                    continue
                for a in range(self.n):
                    if not side >> a & 1 and self.addable(a, b):
                        found.append(self.key(a, b) if not self.moves.directed else (a, b))
        found = sorted(set(found))
        rng.shuffle(found)
        # Edges from high-degree nodes first: they keep the hub structure of the starts (and
        # with it the cheap common-neighbour proof) more often than edges between leaves.
        return sorted(found, key=lambda e: -self.degree(e[0])[1] - self.degree(e[1])[0])

    def try_rewire(self, u: int, v: int, rng: random.Random, tries: int) -> Edge | None:
        """Replace edge (u, v) by a repair edge keeping r-robustness; return the new edge."""
        self.set_edge(u, v, False)
        pair = self.check(self.lost(u, v))
        if pair is None:  # the deletion alone is fine
            self.stats.deletions += 1
            return (u, v)
        if pair != (0, 0):
            for a, b in self.repairs(pair, rng)[:tries]:
                if (a, b) == self.key(u, v):
                    continue
                self.set_edge(a, b, True)
                if self.check(self.lost(u, v)) is None:
                    self.stats.rewires += 1
                    return (a, b)
                self.set_edge(a, b, False)
        self.set_edge(u, v, True)
        return None


def _order(graph: DesignGraph, edges: Iterable[Edge], rng: random.Random) -> list[Edge]:
    """Deletion order: edges between high-degree nodes first (they are the least needed), random
    among equals."""
    edges = list(edges)
    rng.shuffle(edges)
    return sorted(edges, key=lambda e: -(graph.degree(e[0])[1] + graph.degree(e[1])[0]))


def greedy_delete(
    graph: DesignGraph,
    rng: random.Random,
    *,
    deadline: float,
    edges: Iterable[Edge] | None = None,
) -> int:
    """One pass of certified greedy deletion; returns the number of edges deleted.

    Skips edges whose loss would leave a node below r in-neighbours, and fixed edges.
    """
    r = graph.moves.r
    deleted = 0
    pool = edges if edges is not None else graph.edges()
    for u, v in _order(graph, pool, rng):
        if time.monotonic() > deadline:
            break
        if not graph.has(u, v) or not graph.removable(u, v):
            continue
        if graph.masks[v].bit_count() <= r or (
            not graph.moves.directed and graph.masks[u].bit_count() <= r
        ):
            continue
        if graph.try_delete(u, v) is None:
            deleted += 1
    return deleted


def _kick(graph: DesignGraph, rng: random.Random, size: int) -> list[Edge]:
    """Add ``size`` random allowed edges (robustness can only grow); return them."""
    n = graph.n
    added: list[Edge] = []
    for _ in range(50 * size):
        if len(added) == size:
            break
        u, v = rng.randrange(n), rng.randrange(n)
        if graph.addable(u, v):
            graph.set_edge(u, v, True)
            added.append(graph.key(u, v))
    return added


def local_search(
    graph: DesignGraph,
    rng: random.Random,
    *,
    deadline: float,
    tries: int = 4,
    kicks: int = 30,
    on_improve: Callable[[DesignGraph], None] | None = None,
) -> bool:
    """Iterated local search: greedy deletion, rewires each followed by deletions around the new
    edge, and when rewiring stalls a kick (two random edges added, then a full greedy deletion
    pass), restarting from the best graph whenever a kick ends worse.

    Stops at the deadline, after ``kicks`` kicks without a new best, or on Ctrl-C
    (``KeyboardInterrupt``), which ends the search and keeps the best graph: the search's work is
    not lost, the caller still certifies and writes it.

    Parameters
    ----------
    graph : DesignGraph
        Proven r-robust on entry; on exit holds the best graph found, proven r-robust, with at
        most as many edges.
    rng : random.Random
        Seeded by the caller; the same seed and budget give the same walk (while the deadline
        is not reached).
    deadline : float
        ``time.monotonic()`` value to stop at.
    tries : int
        Repair edges tried per rewire.
    kicks : int
        Kicks in a row without improvement before giving up.
    on_improve : callable, optional
        Called whenever the best edge count drops.

    Returns
    -------
    bool
        True when a Ctrl-C ended the search.
    """
    graph.deadline = deadline
    best_masks = list(graph.masks)  # proven r-robust on entry
    try:
        _search(graph, rng, deadline, tries, kicks, on_improve, best_masks)
    except KeyboardInterrupt:
        return True
    finally:
        graph.masks[:] = best_masks
    return False


def _search(
    graph: DesignGraph,
    rng: random.Random,
    deadline: float,
    tries: int,
    kicks: int,
    on_improve: Callable[[DesignGraph], None] | None,
    best_masks: list[int],
) -> None:
    """The loop of :func:`local_search`; keeps ``best_masks`` (updated in place) current."""
    start = graph.count()
    greedy_delete(graph, rng, deadline=deadline)
    best = graph.count()
    best_masks[:] = graph.masks
    if best < start and on_improve:
        on_improve(graph)
    stale = failed_kicks = 0
    while time.monotonic() < deadline and failed_kicks <= kicks:
        candidates = [e for e in graph.edges() if graph.removable(*e)]
        if not candidates:
            break
        if stale > 4 * len(candidates):
            if graph.count() > best:
                graph.masks[:] = best_masks
            _kick(graph, rng, 2)
            greedy_delete(graph, rng, deadline=deadline)
            stale, failed_kicks = 0, failed_kicks + 1
        else:
            u, v = rng.choice(candidates)
            added = graph.try_rewire(u, v, rng, tries)
            if added is not None and added != (u, v):
                touched = [e for e in graph.edges() if set(e) & set(added) and e != added]
                greedy_delete(graph, rng, deadline=deadline, edges=touched)
            stale = 0 if added == (u, v) else stale + 1
        if graph.count() < best:
            best, stale, failed_kicks = graph.count(), 0, 0
            best_masks[:] = graph.masks
            if on_improve:
                on_improve(graph)
