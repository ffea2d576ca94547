"""Dense numpy views of a graph's in-neighbour sets, shared by the bounds, heuristics and models.

Row ``i`` of the adjacency matrix lists node ``i``'s in-neighbours (the nodes it hears), so the
in-Laplacian ``L = D_in - A`` of Usevitch & Panagou (Automatica 2020) is ``diag(A 1) - A``, and
``(L b)_i = |N_i \\ S|`` for a member ``i`` of the set ``S`` with indicator ``b``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["adjacency", "in_laplacian", "outside_counts"]


def adjacency(in_neighbors: Sequence[frozenset[int]]) -> np.ndarray:
    """``A[i, j] = 1`` iff ``j -> i`` (i hears j), as an ``int64`` n x n matrix.

    Examples
    --------
    >>> adjacency([frozenset({1}), frozenset()]).tolist()
    [[0, 1], [0, 0]]
    """
    n = len(in_neighbors)
    a = np.zeros((n, n), dtype=np.int64)
    for i, nbrs in enumerate(in_neighbors):
        if nbrs:
            a[i, list(nbrs)] = 1
    return a


def in_laplacian(in_neighbors: Sequence[frozenset[int]]) -> np.ndarray:
    """The in-Laplacian ``L = D_in - A_in`` (integer matrix)."""
    a = adjacency(in_neighbors)
    return np.diag(a.sum(axis=1)) - a


def outside_counts(a: np.ndarray, members: np.ndarray) -> np.ndarray:
    """``|N_i \\ S|`` for every node i, where ``members`` is S's boolean indicator."""
    return a.sum(axis=1) - a @ members.astype(np.int64)
