"""Edges as index arrays: the Topology rules checked in bulk, and igraph's edges exported.

The Topology (:mod:`robustgraph.topology`) and the file readers (:mod:`robustgraph.io`) hold
edges as two integer sequences, tails and heads, and check them here. Up to
:data:`SMALL_EDGES` edges they stay Python lists, checked by a loop; above it they become numpy
arrays, checked in O(m log m) numpy instead of a Python loop. Two implementations of one rule,
on purpose: importing numpy costs about 0.3 s of CPU on the development machine (more than the
whole r* computation of a 20-node graph), while a loop over 10,000 edges takes a few ms; the
hypothesis test in tests/test_io.py checks the two agree.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "SMALL_EDGES",
    "drop_edges",
    "edge_codes",
    "edge_problem",
    "igraph_edge_arrays",
    "index_arrays",
    "index_bounds",
    "invalid_edges",
    "invalid_positions",
]

SMALL_EDGES = 10_000
"""Up to this many edges, :func:`index_arrays` keeps lists and the checks loop in Python."""

def index_arrays(tails: Any, heads: Any) -> tuple[Any, Any]:
    """``(tails, heads)`` as lists of int up to :data:`SMALL_EDGES` edges, else as int64 numpy
    arrays (flattened); numpy is imported only in the second case or when given arrays."""
    arrays = type(tails).__module__ == "numpy" or type(heads).__module__ == "numpy"
    if not arrays and len(tails) <= SMALL_EDGES:
        return list(map(int, tails)), list(map(int, heads))
    import numpy as np

    return (np.asarray(tails, dtype=np.int64).ravel(), np.asarray(heads, dtype=np.int64).ravel())


def index_bounds(tails: Any, heads: Any) -> tuple[int, int]:
    """The smallest and largest index among the edges' endpoints (``(0, -1)`` for no edge)."""
    if not len(tails):
        return 0, -1
    if isinstance(tails, list):
        return min(min(tails), min(heads)), max(max(tails), max(heads))
    return int(min(tails.min(), heads.min())), int(max(tails.max(), heads.max()))


def invalid_positions(tails: Any, heads: Any, n: int, directed: bool) -> list[int]:
    """The positions, ascending, of the edges :func:`invalid_edges` marks: self-loops, and every
    repeat of an earlier edge. Lists (:func:`index_arrays`) are checked by a loop, O(m) with a
    set; numpy arrays by :func:`invalid_edges`."""
    if isinstance(tails, list):
        seen: set[tuple[int, int]] = set()
        bad = []
        for k, (u, v) in enumerate(zip(tails, heads, strict=True)):
            key = (u, v) if directed or u < v else (v, u)
            if u == v or key in seen:
                bad.append(k)
            else:
                seen.add(key)
        return bad
    import numpy as np

    return np.flatnonzero(invalid_edges(tails, heads, n, directed)).tolist()


def drop_edges(tails: Any, heads: Any, positions: list[int]) -> tuple[Any, Any]:
    """``(tails, heads)`` without the edges at ``positions``, lists or arrays as given."""
    if isinstance(tails, list):
        gone = set(positions)
        keep = [k for k in range(len(tails)) if k not in gone]
        return [tails[k] for k in keep], [heads[k] for k in keep]
    import numpy as np

    mask = np.ones(tails.size, dtype=bool)
    mask[positions] = False
    return tails[mask], heads[mask]


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
    import numpy as np

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
    import numpy as np

    pairs = graph.get_edgelist()
    flat = np.fromiter(itertools.chain.from_iterable(pairs), dtype=np.int64, count=2 * len(pairs))
    return flat[0::2], flat[1::2]


def edge_problem(labels: Sequence[Hashable], i: int, j: int, directed: bool) -> str:
    """Words for an invalid edge ``i -> j`` found by :func:`invalid_edges`."""
    if i == j:
        return f"self-loop at node {labels[i]!r}"
    arrow = "->" if directed else "--"
    return f"duplicate edge {labels[i]!r} {arrow} {labels[j]!r}"


def edge_codes(
    in_neighbors: Sequence[Sequence[int]], rank: Sequence[int], directed: bool
) -> list[int]:
    """The edges as sorted integers ``rank[tail] * n + rank[head]``, an undirected edge once as
    its pair of ranks in order (``robustgraph.topology.Topology.content_hash``).

    ``in_neighbors[h]`` holds the tails of the arcs into ``h`` (an undirected edge is in both
    ends' sets); ``rank`` is a permutation of ``range(n)``. A loop and a sort of Python ints up to
    :data:`SMALL_EDGES` arcs, numpy above it (the two are tested to agree in tests/test_startup.py).
    """
    n = len(in_neighbors)
    sizes = [len(s) for s in in_neighbors]
    if sum(sizes) <= SMALL_EDGES:
        pairs = ((rank[t], rank[h]) for h, s in enumerate(in_neighbors) for t in s
                 if directed or t < h)  # fmt: skip
        return sorted(a * n + b if directed or a < b else b * n + a for a, b in pairs)
    import numpy as np

    ranks = np.asarray(rank, dtype=np.int64)
    heads = np.repeat(np.arange(n, dtype=np.int64), sizes)
    tails = np.fromiter(itertools.chain.from_iterable(in_neighbors), np.int64, count=sum(sizes))
    if not directed:  # each edge once (as Topology.edge_indices), then as its sorted pair
        keep = tails < heads
        tails, heads = ranks[tails[keep]], ranks[heads[keep]]
        tails, heads = np.minimum(tails, heads), np.maximum(tails, heads)
    else:  # the arc tail -> head: tail is an in-neighbour of head
        tails, heads = ranks[tails], ranks[heads]
    return np.sort(tails * n + heads).tolist()
