"""Polynomial-time checks of reachability and of witness pairs (LeBlanc et al. 2013, Defs. 5-7).

A set S is r-reachable if some i in S has at least r in-neighbours outside S. These checks are
the trust anchor of every certificate: engines run them on each witness before returning it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = ["reach", "reachable_nodes", "refutes_r", "refutes_rs", "pair_problem"]


def reach(in_neighbors: Sequence[frozenset[int]], s: Iterable[int]) -> int:
    """``max_{i in S} |N_i \\ S|``: the largest r for which S is r-reachable (0 for empty S).

    Notes
    -----
    O(sum of in-degrees of S) time.
    """
    s = frozenset(s)
    return max((len(in_neighbors[i] - s) for i in s), default=0)


def reachable_nodes(
    in_neighbors: Sequence[frozenset[int]], s: Iterable[int], r: int
) -> frozenset[int]:
    """``X_S^r = {i in S : |N_i \\ S| >= r}``."""
    s = frozenset(s)
    return frozenset(i for i in s if len(in_neighbors[i] - s) >= r)


def pair_problem(n: int, s1: Iterable[int], s2: Iterable[int]) -> str | None:
    """Why (S1, S2) is not a pair of disjoint nonempty node sets of an n-node graph, or None."""
    a, b = frozenset(s1), frozenset(s2)
    if not a or not b:
        return "both sets of a witness must be nonempty"
    if a & b:
        return "the sets of a witness must be disjoint"
    if any(not 0 <= i < n for i in a | b):
        return "a witness names a node that is not in the graph"
    return None


def refutes_r(
    in_neighbors: Sequence[frozenset[int]], s1: Iterable[int], s2: Iterable[int], r: int
) -> bool:
    """True iff (S1, S2) proves the graph is NOT r-robust: neither set is r-reachable.

    Examples
    --------
    >>> path = [frozenset({1}), frozenset({0, 2}), frozenset({1})]
    >>> refutes_r(path, {0}, {1, 2}, 2)
    True
    """
    if pair_problem(len(in_neighbors), s1, s2):
        return False
    return reach(in_neighbors, s1) < r and reach(in_neighbors, s2) < r


def refutes_rs(
    in_neighbors: Sequence[frozenset[int]], s1: Iterable[int], s2: Iterable[int], r: int, s: int
) -> bool:
    """True iff (S1, S2) proves the graph is NOT (r, s)-robust.

    The pair violates all three conditions of (r, s)-robustness: not every node of S1 is
    r-reachable from outside S1, likewise for S2, and ``|X_S1^r| + |X_S2^r| < s``.
    """
    if pair_problem(len(in_neighbors), s1, s2):
        return False
    a, b = frozenset(s1), frozenset(s2)
    xa, xb = reachable_nodes(in_neighbors, a, r), reachable_nodes(in_neighbors, b, r)
    return len(xa) < len(a) and len(xb) < len(b) and len(xa) + len(xb) < s
