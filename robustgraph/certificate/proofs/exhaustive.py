"""Exhaustive proofs: the verifier recomputes s*_r itself by subset enumeration (small n only).

A proof by computation: it carries no data, and the verifier trusts no certifier, only the
subset dynamic programme of :mod:`solvers.exhaustive` (LeBlanc et al. 2013, Defs. 6-7), which
is tested against brute force. Bounded to :data:`MAX_N` nodes so that ``verify`` stays fast.
"""

from __future__ import annotations

from collections.abc import Sequence

from solvers.exhaustive import exact_s

__all__ = ["MAX_N", "check"]

MAX_N = 20
"""Largest graph an exhaustive proof may be for (2^20 subsets: about 1 s to check)."""


def check(in_neighbors: Sequence[frozenset[int]], r: int, s: int) -> str | None:
    """Why the graph is not shown (r, s)-robust by recomputation, or None when it is.

    Parameters
    ----------
    in_neighbors : sequence of frozenset of int
        The graph (n <= :data:`MAX_N`).
    r, s : int
        The robustness to confirm; (r, 1) is r-robustness.

    Returns
    -------
    str or None

    Examples
    --------
    >>> k4 = [frozenset(set(range(4)) - {i}) for i in range(4)]
    >>> check(k4, 2, 4) is None
    True

    Notes
    -----
    O(n 2^n) time and memory.
    """
    n = len(in_neighbors)
    if n > MAX_N:
        return f"an exhaustive proof is for n <= {MAX_N}; this graph has n = {n}"
    masks = [sum(1 << j for j in nb) for nb in in_neighbors]
    value, _ = exact_s(masks, r)
    if value >= s:
        return None
    return f"recomputation gives s*_{r} = {value} < {s}: the graph is not ({r}, {s})-robust"
