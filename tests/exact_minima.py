"""An independent enumerator of exact minimum edge counts of r-robust graphs, n <= 8.

Every graph on n <= 7 nodes up to isomorphism comes from the networkx graph atlas (Read &
Wilson, "An Atlas of Graphs"); every graph on 8 nodes is one of them plus a node of minimum
degree joined to any subset. Robustness is computed by the exhaustive subset DP
(:func:`solvers.exhaustive.exact_r`), which shares no code with the design search, the SAT
model of the minimality certificates or the bounds.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

import networkx as nx
import numpy as np

from solvers.exhaustive import exact_r

__all__ = ["graphs", "minimum_edges"]


def _masks(graph: nx.Graph, n: int) -> list[int]:
    masks = [0] * n
    for u, v in graph.edges():
        masks[u] |= 1 << v
        masks[v] |= 1 << u
    return masks


def graphs(n: int) -> Iterator[list[int]]:
    """Every graph on n nodes (2 <= n <= 8) as neighbour bitmasks, each isomorphism class at
    least once (n = 8: a few classes more than once)."""
    if n <= 7:
        for graph in nx.graph_atlas_g():
            if graph.number_of_nodes() == n:
                yield _masks(graph, n)
        return
    if n != 8:
        raise ValueError("the enumerator covers n <= 8")
    for base in graphs(7):
        degrees = [m.bit_count() for m in base]
        for joined in range(1 << 7):
            d = joined.bit_count()
            if any(degrees[i] + (joined >> i & 1) < d for i in range(7)):
                continue  # the new node must have the minimum degree
            masks = [*base, joined]
            for i in range(7):
                if joined >> i & 1:
                    masks[i] |= 1 << 7
            yield masks


@functools.cache
def minimum_edges(n: int) -> dict[int, int]:
    """``{r: fewest edges of an r-robust graph on n nodes}`` for r = 1..ceil(n/2)."""
    best: dict[int, int] = {}
    for masks in graphs(n):
        m = sum(x.bit_count() for x in masks) // 2
        top = exact_r(masks)[0]
        for r in range(1, top + 1):
            if best.get(r, m + 1) > m:
                best[r] = m
    return best


def s_star(masks: list[int], r: int) -> int:
    """The largest s (at most n) such that the graph is (r, s)-robust, 0 if none, straight
    from LeBlanc et al. 2013, Def. 7: over every pair of disjoint nonempty S1, S2 neither of
    whose members are all r-reachable, the least |X_S1^r| + |X_S2^r| (n when there is no such
    pair), by numpy over all 4^n pairs of sets."""
    n = len(masks)
    sets = np.arange(1 << n, dtype=np.int64)
    size = np.bitwise_count(sets)
    reach = np.zeros(1 << n, dtype=np.int64)
    for i in range(n):
        outside = np.bitwise_count(np.int64(masks[i]) & ~sets)
        reach += ((sets >> i) & 1).astype(bool) & (outside >= r)
    open_ = (sets > 0) & (reach < size)  # nonempty, not every member r-reachable
    a, b = np.nonzero(open_[:, None] & open_[None, :] & ((sets[:, None] & sets[None, :]) == 0))
    return int(min(n, (reach[a] + reach[b]).min())) if a.size else n


@functools.cache
def minimum_edges_rs(n: int) -> dict[tuple[int, int], int]:
    """``{(r, s): fewest edges of an (r, s)-robust graph on n nodes}`` for r = 1..ceil(n/2) and
    s = 1..n (every such cell has one: the complete graph)."""
    ordered = sorted(graphs(n), key=lambda masks: sum(x.bit_count() for x in masks))
    best: dict[tuple[int, int], int] = {}
    for r in range(1, (n + 1) // 2 + 1):
        for masks in ordered:
            m = sum(x.bit_count() for x in masks) // 2
            if all((r, s) in best for s in range(1, n + 1)):
                break
            if min(x.bit_count() for x in masks) < r:
                continue
            for s in range(1, s_star(masks, r) + 1):
                best.setdefault((r, s), m)
    return best
