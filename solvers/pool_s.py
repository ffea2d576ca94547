"""The pool of ``heuristics.search_s`` (``portfolio.POOL_S_RULE``, issue 40, round 32): sets
that are not all r-reachable, each with its count of r-reachable members, from the peels the
heuristic runs and from peels of small in-neighbourhoods, and the best disjoint pair among them.

``|X_S^r|``, the r-reachable members of S, depends on S alone, so any two disjoint sets of the
pool make a pair (S1, S2) of value the sum of their counts: an upper bound on s*_r once checked
(``solvers.witness``). The heuristic's own pairs are the two sides of one split of the nodes;
s*_r's best pairs are often two small sets with most nodes in neither.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np

from solvers.types import Witness

if TYPE_CHECKING:
    from solvers.heuristics import Peel

__all__ = ["POOL_CENTRES", "POOL_MOST", "POOL_PER_PEEL", "balls", "pool_pair", "sets"]


POOL_PER_PEEL = 3
"""Sets each peel gives ``heuristics.search_s``'s pool: those of its sequence with the fewest
r-reachable members, not all r-reachable (``portfolio.POOL_S_RULE``)."""

POOL_CENTRES = 24
"""Nodes, least in-degree first, whose in-neighbourhoods (:func:`balls`) are peeled for the
pool: s*_r's best pairs are often two small sets around nodes of low in-degree, with most nodes
in neither set, which no split of all the nodes into two sides gives."""

POOL_MOST = 400
"""Sets of the pool, fewest r-reachable members first, that :func:`pool_pair` pairs up."""


def sets(peeled: Peel) -> list[tuple[int, int]]:
    """The :data:`POOL_PER_PEEL` sets of ``peeled``'s sequence (run with r) with the fewest
    r-reachable members, not all r-reachable: ``(count, members as a bit mask)``."""
    sizes = len(peeled.order) - np.arange(len(peeled.order))
    ok = np.flatnonzero(peeled.xcount < sizes)
    kept = ok[np.argsort(peeled.xcount[ok], kind="stable")[:POOL_PER_PEEL]]
    return [(int(peeled.xcount[t]), _mask(peeled.subset(int(t)))) for t in kept]


def _mask(members: np.ndarray) -> int:
    return sum(1 << int(i) for i in np.flatnonzero(members))


def balls(a: np.ndarray) -> Iterator[np.ndarray]:
    """For each of the :data:`POOL_CENTRES` nodes of least in-degree, the node with its
    in-neighbours, then with theirs too (each only while it holds at most half the nodes)."""
    n = a.shape[0]
    for v in np.argsort(a.sum(axis=1), kind="stable")[:POOL_CENTRES]:
        u = np.zeros(n, dtype=bool)
        u[v] = True
        for _radius in range(2):
            u = u | a[u].any(axis=0)
            if 2 * int(u.sum()) > n:
                break
            yield u


def pool_pair(pool: Sequence[tuple[int, int]]) -> tuple[int, Witness] | None:
    """The disjoint pair of least total count among the :data:`POOL_MOST` sets of ``pool``
    (``(count, bit mask)``, each set not all r-reachable) with the fewest r-reachable members.

    ``|X_S^r|`` depends on S alone, so two disjoint such sets make a pair of value the sum of
    their counts.
    """
    ranked = sorted(set(pool))[:POOL_MOST]
    best = None
    for i, (x1, m1) in enumerate(ranked):
        if best is not None and 2 * x1 >= best[0]:
            break
        for x2, m2 in ranked[i + 1 :]:
            if best is not None and x1 + x2 >= best[0]:
                break
            if m1 & m2 == 0:
                best = (x1 + x2, m1, m2)
                break
    if best is None:
        return None
    return best[0], Witness(_members(best[1]), _members(best[2]))


def _members(mask: int) -> frozenset[int]:
    return frozenset(i for i in range(mask.bit_length()) if mask >> i & 1)
