"""Edges as numpy index arrays: the Topology rules checked in bulk, and igraph's edges exported.

The Topology (:mod:`robustgraph.topology`) and the file readers (:mod:`robustgraph.io`) hold
edges as two integer arrays, tails and heads, and check them here in O(m log m) numpy instead of
a Python loop over the edges.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

__all__ = ["edge_problem", "igraph_edge_arrays", "invalid_edges"]


def invalid_edges(tails: np.ndarray, heads: np.ndarray, n: int, directed: bool) -> np.ndarray:
    """Which edges break the Topology rules: self-loops, and every repeat of an earlier edge.

    Parameters
    ----------
    tails, heads : numpy arrays of int
        Edge ``k`` is ``tails[k] -> heads[k]`` (for a graph, unordered).
    n : int
        Number of nodes (indices are below it).
    directed : bool
        Whether ``(u, v)`` and ``(v, u)`` are different edges.

    Returns
    -------
    numpy array of bool
        True at each self-loop and at each edge equal to an earlier one (the first stays).

    Notes
    -----
    O(m log m): one sort of the edge keys (a second, stable one only when some edge repeats).
    """
    lo, hi = (tails, heads) if directed else (np.minimum(tails, heads), np.maximum(tails, heads))
    key = lo * max(n, 1) + hi
    bad = tails == heads
    ordered = np.sort(key)  # no repeat (the usual case) needs no positions: a plain sort
    if not np.any(ordered[1:] == ordered[:-1]):
        return bad
    order = np.argsort(key, kind="stable")
    repeat = np.zeros(key.size, dtype=bool)
    repeat[order[1:]] = key[order][1:] == key[order][:-1]
    return bad | repeat


def igraph_edge_arrays(graph: Any) -> tuple[np.ndarray, np.ndarray]:
    """An igraph Graph's edges as two int64 arrays (tails, heads), in its edge order.

    igraph has no array export; ``np.fromiter`` over its edge list is about 3x faster than
    ``np.asarray`` on the list of pairs.
    """
    pairs = graph.get_edgelist()
    flat = np.fromiter(itertools.chain.from_iterable(pairs), dtype=np.int64, count=2 * len(pairs))
    return flat[0::2], flat[1::2]


def edge_problem(labels: Sequence[Hashable], i: int, j: int, directed: bool) -> str:
    """Words for an invalid edge ``i -> j`` found by :func:`invalid_edges`."""
    if i == j:
        return f"self-loop at node {labels[i]!r}"
    arrow = "->" if directed else "--"
    return f"duplicate edge {labels[i]!r} {arrow} {labels[j]!r}"
