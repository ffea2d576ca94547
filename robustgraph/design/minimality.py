"""Whether an augmentation adds the fewest edges possible: proven minimal, or the best found.

Two proofs, the cheap one first:

1. **degree bound**: for r >= 2 every node of an r-robust graph hears at least r nodes (the pair
   ``({i}, V - {i})``: no node of ``V - {i}`` hears more than one node outside it), so a node
   short of r in-neighbours needs that many new ones; an added edge serves two nodes of an
   undirected graph, one of a digraph. For r = 1 an undirected graph must be connected: one
   edge per extra component. A graph that is not r-robust (the search found a witness) needs at
   least one edge. An augmentation of that size is minimal.
2. **exhaustive**: otherwise, while few enough sets of allowed edges remain (:data:`MAX_SETS`),
   every set of k allowed edges, k from the degree bound up to one below the count found, is
   added and checked with the exact oracle (:func:`robustgraph.design.oracle.find_pair`). None
   robust proves the count minimal; the first robust one is a smaller augmentation, minimal
   since no smaller size works.

A check the oracle cannot settle within its budget, or the deadline, leaves the count "best
found" with the lower bound proven so far. Definitions: LeBlanc et al. 2013, Def. 6.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from robustgraph.design.oracle import UNKNOWN, find_pair
from robustgraph.design.search import Edge, Moves

__all__ = ["MAX_SETS", "Minimality", "degree_bound", "prove_minimal"]

MAX_SETS = 5_000
"""Most edge sets the exhaustive proof checks; beyond it the count stays "best found"."""


@dataclass(frozen=True)
class Minimality:
    """``proven``: no allowed augmentation has fewer than ``lower_bound`` edges and one of that
    size is known (``better``, when the exhaustive pass found it smaller than the search's);
    ``how`` says which proof, or why none."""

    proven: bool
    lower_bound: int
    how: str
    better: tuple[Edge, ...] | None = None


def _components(masks: Sequence[int]) -> int:
    seen, count = 0, 0
    for start in range(len(masks)):
        if seen >> start & 1:
            continue
        count += 1
        frontier = 1 << start
        while frontier:
            seen |= frontier
            nxt = 0
            for i in range(len(masks)):
                if frontier >> i & 1:
                    nxt |= masks[i]
            frontier = nxt & ~seen
    return count


def degree_bound(masks: Sequence[int], r: int, directed: bool) -> int:
    """Fewest edges (arcs) any augmentation of ``masks`` to r-robustness adds.

    Examples
    --------
    >>> ring = [0b10010, 0b00101, 0b01010, 0b10100, 0b01001]  # the 5-cycle
    >>> degree_bound(ring, 3, False), degree_bound(ring, 1, False)
    (3, 0)
    """
    if r == 1:
        return 0 if directed else _components(masks) - 1
    short = sum(max(0, r - m.bit_count()) for m in masks)
    return short if directed else math.ceil(short / 2)


def _candidates(masks: Sequence[int], moves: Moves) -> list[Edge]:
    n = len(masks)
    pairs = [(a, b) for a in range(n) for b in range(n) if a != b]
    if not moves.directed:
        pairs = [(a, b) for a, b in pairs if a < b]
    return [(a, b) for a, b in pairs if not masks[b] >> a & 1 and (a, b) not in moves.forbidden]


def _within_cap(masks: Sequence[int], edges: Sequence[Edge], moves: Moves) -> bool:
    """Whether every node that gains an edge ends at most at the degree cap (digraph: in- and
    out-degree each), as :func:`robustgraph.design.augmentation.augment` allows."""
    cap = moves.max_degree
    if cap is None:
        return True
    n = len(masks)
    ins = [m.bit_count() for m in masks]
    outs = [sum(m >> i & 1 for m in masks) for i in range(n)]
    gained: set[tuple[str, int]] = set()
    for a, b in edges:
        if moves.directed:
            ins[b] += 1
            outs[a] += 1
            gained |= {("in", b), ("out", a)}
        else:
            ins[a] += 1
            ins[b] += 1
            gained |= {("in", a), ("in", b)}
    return all((ins if kind == "in" else outs)[v] <= cap for kind, v in gained)


def prove_minimal(
    masks: Sequence[int],
    found: int,
    moves: Moves,
    *,
    deadline: float,
    budget: int = 200_000,
    max_sets: int = MAX_SETS,
    not_robust: bool = False,
) -> Minimality:
    """Whether ``found`` added edges is the fewest that make ``masks`` (the original graph)
    r-robust under ``moves`` (forbidden pairs, degree cap); see the module notes.

    ``not_robust`` says the original graph is known not to be r-robust (a witness pair was
    found): then at least one edge is needed, and one added edge is minimal without a check.

    Examples
    --------
    >>> ring = [0b10010, 0b00101, 0b01010, 0b10100, 0b01001]  # the 5-cycle, 3-robust: K5
    >>> m = prove_minimal(ring, 5, Moves(3, False), deadline=time.monotonic() + 60)
    >>> m.proven, m.lower_bound, len(m.better)
    (True, 4, 4)
    >>> prove_minimal(ring, 4, Moves(3, False), deadline=time.monotonic() + 60).how
    'every set of 3 allowed edges checked, none makes it 3-robust'
    """
    r = moves.r
    low = degree_bound(masks, r, moves.directed)
    if found == 0:
        return Minimality(True, 0, f"the graph is already {r}-robust")
    if found <= low:
        return Minimality(True, found, "degree bound: every node needs r in-neighbours"
                          if r > 1 else "one edge per extra connected component")
    if not_robust and found == 1:
        return Minimality(True, 1, f"the graph is not {r}-robust (a witness pair was found), "
                                   "so at least one edge is needed")
    basis = "degree bound"
    if not_robust and low == 0:
        low, basis = 1, "not r-robust, so at least one edge"
    pool = _candidates(masks, moves)
    sizes = range(low, found)
    if sum(math.comb(len(pool), k) for k in sizes) > max_sets:
        return Minimality(False, low, f"{basis}; more than {max_sets:,} smaller edge sets "
                                      "to check")
    for k in sizes:
        for edges in combinations(pool, k):
            if time.monotonic() > deadline:
                return Minimality(False, k, f"the time limit stopped the proof at {k} edges")
            if not _within_cap(masks, edges, moves):
                continue
            trial = list(masks)
            for a, b in edges:
                trial[b] |= 1 << a
                if not moves.directed:
                    trial[a] |= 1 << b
            answer = find_pair(trial, r, budget=budget, deadline=deadline)
            if answer is UNKNOWN:
                return Minimality(False, k, f"an exact check ran out of budget at {k} edges")
            if answer is None:
                return Minimality(True, k, f"no set of fewer than {k} allowed edges makes it "
                                           f"{r}-robust (degree bound {low}, then every set "
                                           f"checked)", better=edges)
    span = f"{low}" if low == found - 1 else f"{low} to {found - 1}"
    return Minimality(True, found, f"every set of {span} allowed edges checked, none makes it "
                                   f"{r}-robust")
