"""Find the circulant C_n(1..k) inside a graph: a proven lower bound ``r* >= k``.

Theorem (docs/theory.md, "k_circulant(n, k)", our proof): for ``n >= 2k + 2`` the circulant
C_n(1..k), node p joined to ``p +- 1, ..., p +- k (mod n)``, is k-robust. Adding arcs never
lowers robustness (every ``|N_i \\ S|`` can only grow), so a graph that holds C_n(1..k) on some
node order (``order[p]`` plays node p, arcs both ways) has ``r* >= k``. Robust-design code and
``robustgraph generate circulant`` build such graphs, and on them every general method is slow:
the core search and the MILP models need 1.5-8 s and more to prove r* = k of C_60(1..10) to
C_100(1..16) (docs/performance.md), this check well under a millisecond per edge.

Two orders are tried, cheapest first:

- the identity order (generator output): the largest k for which every node p hears
  ``p +- 1..k``, O(n k) set lookups after a test of node 0 alone;
- for a 2k-regular graph, the order walked along the cycle C_n(1): in C_n(1..k)
  two nodes one step apart share ``2k - 2`` neighbours and nodes t >= 2 steps apart at most
  ``2k - 3`` (their closed windows of ``2k + 1`` nodes overlap in ``2k + 1 - t``, plus
  ``2k + 1 + t - n`` round the far side when that is positive), so for ``n > 2k + 2`` each node
  has exactly two neighbours sharing ``2k - 2`` with it: the previous and the next. (At
  ``n = 2k + 2`` the graph is K_n less a perfect matching, whose r* = k the minimum degree
  already proves.) The walk gives up at the first node where that fails (at once on a random
  regular graph), then the whole graph is checked against C_n(1..k) on the order walked; only
  a graph that passes is recognised, whatever its labels.

Why own code: networkx has no circulant recognition (general circulant recognition is a hard
isomorphism question; C_n(1..k) needs only the walk above), and the lower bound must come with
its order, which :mod:`robustgraph.certificate.proofs.theorem` checks again on its own.

Notes
-----
O(n k) time for the identity order, O(n k^2) for the walk; O(n) memory beyond the graph.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

__all__ = ["Circulant", "find", "ring_k"]

Circulant = tuple[int, list[int]]
"""``(k, order)``: the graph holds C_n(1..k) with ``order[p]`` as node p."""


def ring_k(in_neighbors: Sequence[frozenset[int]], order: Sequence[int]) -> int:
    """The largest k, with ``n >= 2k + 2``, such that ``order[p]`` hears ``order[p +- t]`` for
    every p and ``1 <= t <= k`` (0 if none).

    Examples
    --------
    >>> c8 = [frozenset({(i - 1) % 8, (i + 1) % 8, (i - 2) % 8, (i + 2) % 8}) for i in range(8)]
    >>> ring_k(c8, range(8)), ring_k(c8, [0, 2, 4, 6, 1, 3, 5, 7])
    (2, 0)
    """
    n = len(in_neighbors)
    k = (n - 2) // 2
    for p in range(n):
        heard = in_neighbors[order[p]]
        t = 0
        while t < k and order[(p + t + 1) % n] in heard and order[(p - t - 1) % n] in heard:
            t += 1
        k = t
        if k == 0:
            break
    return max(k, 0)


def _walk(in_neighbors: Sequence[frozenset[int]], stop: Callable[[], bool] | None) -> list[int]:
    """The nodes in cycle order for a 2k-regular undirected graph that is C_n(1..k) on some
    order, or ``[]`` as soon as a node has not exactly two neighbours sharing ``2k - 2``."""
    n = len(in_neighbors)
    share = len(in_neighbors[0]) - 2

    def steps(v: int) -> list[int]:
        heard = in_neighbors[v]
        return [u for u in heard if len(heard & in_neighbors[u]) == share]

    first = steps(0)
    if len(first) != 2:
        return []
    order, seen = [0, first[0]], {0, first[0]}
    while len(order) < n:
        if stop is not None and len(order) % 1024 == 0 and stop():
            return []
        ahead = [u for u in steps(order[-1]) if u != order[-2]]
        if len(ahead) != 1 or ahead[0] in seen:
            return []
        order.append(ahead[0])
        seen.add(ahead[0])
    return order


def find(
    in_neighbors: Sequence[frozenset[int]], *, stop: Callable[[], bool] | None = None
) -> Circulant | None:
    """``(k, order)`` with the largest k found, ``k >= 2``, such that the graph holds
    C_n(1..k) on ``order``; None when neither order shows one (the graph may still hold one).

    The walk is tried when every node hears the same even number ``2k >= 4`` of nodes; its
    order counts only when every node hears exactly its ``2k`` ring neighbours on it, so a
    digraph passes only when it is the undirected circulant. ``stop``, polled during the walk,
    makes it give up (None) when it turns true.

    Examples
    --------
    >>> from random import Random
    >>> n, k = 30, 4
    >>> ring = [{(i + d) % n for d in range(-k, k + 1) if d} for i in range(n)]
    >>> name = list(range(n)); Random(1).shuffle(name)
    >>> relabelled = [frozenset()] * n
    >>> for i in range(n):
    ...     relabelled[name[i]] = frozenset(name[j] for j in ring[i])
    >>> found = find(relabelled)
    >>> found[0], ring_k(relabelled, found[1])
    (4, 4)
    """
    n = len(in_neighbors)
    if n < 6:
        return None
    if {1, 2, n - 2, n - 1} <= in_neighbors[0]:
        k = ring_k(in_neighbors, range(n))
        if k >= 2:
            return k, list(range(n))
    degree = len(in_neighbors[0])
    if degree % 2 or degree < 4 or any(len(nb) != degree for nb in in_neighbors):
        return None
    order = _walk(in_neighbors, stop)
    if not order:
        return None
    k = ring_k(in_neighbors, order)
    return (k, order) if 2 * k == degree else None
