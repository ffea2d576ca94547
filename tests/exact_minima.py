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
