"""Linear-time witnesses for large sparse graphs: split pairs refined by majority moves.

A pair ``(S, V \\ S)`` has value ``max_v c(v)``, where ``c(v)`` counts v's in-neighbours on the
other side (LeBlanc et al. 2013, Def. 5: S is r-reachable iff some member hears r nodes outside
it), so it refutes ``(value + 1)``-robustness. :func:`split_pair` builds such splits from a few
node orders (breadth-first distances, and differences of distances from two nodes, which cut a
cycle into two arcs and a grid between two columns), each cut in two near the middle where the
key changes, then improved by moving a node whose count on the other side exceeds its count on
its own side (for an undirected graph, each move removes at least one edge from the cut, so at
most m moves; after them every node hears at most half its neighbours across). Every step
costs O(n log n + m) time and O(n + m) memory, no matrix; the caller checks the pair like
every witness (``solvers.witness``).
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Iterator, Sequence

from solvers.types import Witness

__all__ = [
    "out_neighbors",
    "distances",
    "split_pair",
    "refine",
    "peel",
    "local_pair",
    "MOVES_PER_ARC",
]

MOVES_PER_ARC = 2
"""Moves :func:`refine` makes at most, per arc plus node (an undirected graph needs at most m;
a digraph's moves may undo each other, so they are capped)."""

_CHECK_EVERY = 4096
"""Moves between two looks at the ``stop`` callback."""


def out_neighbors(in_neighbors: Sequence[frozenset[int]]) -> list[list[int]]:
    """``out[j]`` lists the nodes that hear j, in O(n + m) time."""
    out: list[list[int]] = [[] for _ in in_neighbors]
    for i, heard in enumerate(in_neighbors):
        for j in heard:
            out[j].append(i)
    return out


def distances(
    in_neighbors: Sequence[frozenset[int]], out: Sequence[Sequence[int]], source: int
) -> list[int]:
    """Breadth-first hop counts from ``source`` in the underlying undirected graph; ``n`` for
    nodes it does not reach.

    Examples
    --------
    >>> path = [frozenset({1}), frozenset({0, 2}), frozenset({1})]
    >>> distances(path, out_neighbors(path), 0)
    [0, 1, 2]
    """
    n = len(in_neighbors)
    dist = [n] * n
    dist[source] = 0
    queue = deque([source])
    while queue:
        v = queue.popleft()
        step = dist[v] + 1
        for u in (*in_neighbors[v], *out[v]):
            if dist[u] == n:
                dist[u] = step
                queue.append(u)
    return dist


def refine(
    in_neighbors: Sequence[frozenset[int]],
    out: Sequence[Sequence[int]],
    side: list[bool],
    *,
    stop: Callable[[], bool] | None = None,
    floor: int = 1,
) -> list[bool]:
    """Move nodes that hear more nodes across than on their own side, keeping at least
    ``floor`` nodes (at least one) on each side, at most :data:`MOVES_PER_ARC` ``(n + m)``
    moves or until ``stop()``; ``side`` is changed in place and returned. (Without a floor the
    moves empty one side of an expander down to one node: a random 6-regular graph on 10^4
    nodes ended with the degree pair, issue 40.)"""
    n = len(in_neighbors)
    across = [sum(side[u] != side[v] for u in in_neighbors[v]) for v in range(n)]
    sizes = [side.count(False), side.count(True)]
    queue = deque(v for v in range(n) if 2 * across[v] > len(in_neighbors[v]))
    budget = MOVES_PER_ARC * (n + sum(across) + sum(len(s) for s in in_neighbors))
    moves = 0
    while queue and moves < budget:
        v = queue.popleft()
        if 2 * across[v] <= len(in_neighbors[v]) or sizes[side[v]] <= max(1, floor):
            continue
        moves += 1
        if moves % _CHECK_EVERY == 0 and stop is not None and stop():
            break
        sizes[side[v]] -= 1
        side[v] = not side[v]
        sizes[side[v]] += 1
        across[v] = len(in_neighbors[v]) - across[v]
        for w in out[v]:  # w hears v: v's move flips whether v is across for w
            across[w] += 1 if side[w] != side[v] else -1
            if 2 * across[w] > len(in_neighbors[w]):
                queue.append(w)
    return side


def _orders(
    in_neighbors: Sequence[frozenset[int]], out: Sequence[Sequence[int]]
) -> Iterator[list[int]]:
    """Keys whose halves start the splits, one breadth-first search each, lazily (the caller
    may stop between them): hops from a least-degree node a, and hops from a minus hops from b,
    for b the node farthest from a and for b the nearest other least-degree node."""
    n = len(in_neighbors)
    degree = [len(in_neighbors[v]) + len(out[v]) for v in range(n)]
    a = min(range(n), key=lambda v: (degree[v], v))
    from_a = distances(in_neighbors, out, a)
    yield from_a
    far = max(range(n), key=lambda v: (from_a[v] < n, from_a[v], -v))
    low = [v for v in range(n) if v != a and degree[v] == degree[a]]
    near = min(low, key=lambda v: (from_a[v], v), default=None)
    for b in dict.fromkeys(x for x in (far, near) if x is not None and x != a):
        from_b = distances(in_neighbors, out, b)
        yield [x - y for x, y in zip(from_a, from_b, strict=True)]


def _cut(key: Sequence[int], ranked: Sequence[int]) -> int:
    """Where to cut ``ranked`` in two: between two different keys, as near the middle as
    possible (a cut inside a level of a grid's column order leaves a step whose corner nodes
    hear two nodes across), else the middle."""
    n = len(ranked)
    changes = [k for k in range(1, n) if key[ranked[k - 1]] != key[ranked[k]]]
    return min(changes, key=lambda k: (abs(2 * k - n), k), default=n // 2)


def split_pair(
    in_neighbors: Sequence[frozenset[int]], *, stop: Callable[[], bool] | None = None
) -> tuple[int, Witness] | None:
    """The best refined split ``(S, V \\ S)`` over the orders of the module notes, or None
    (fewer than two nodes, or ``stop()`` before the first split).

    Returns
    -------
    (int, Witness) or None
        The pair's value ``max_v c(v)`` (it refutes (value + 1)-robustness) and the pair.

    Examples
    --------
    >>> cycle = [frozenset({(i - 1) % 8, (i + 1) % 8}) for i in range(8)]
    >>> split_pair(cycle)[0]
    1

    Notes
    -----
    O(n log n + m) time and O(n + m) memory per order (three orders at most), plus the moves
    of :func:`refine`; ``stop`` is looked at after each search and sort, and every few
    thousand moves.
    """
    n = len(in_neighbors)
    if n < 2:
        return None
    out = out_neighbors(in_neighbors)
    best = None
    for key in _orders(in_neighbors, out):
        if stop is not None and stop():
            break
        ranked = sorted(range(n), key=lambda v: (key[v], v))
        if stop is not None and stop():
            break
        side = [False] * n
        for v in ranked[_cut(key, ranked) :]:
            side[v] = True
        side = refine(in_neighbors, out, side, stop=stop)
        value = max(sum(side[u] != side[v] for u in in_neighbors[v]) for v in range(n))
        if best is None or value < best[0]:
            s1 = frozenset(v for v in range(n) if not side[v])
            best = (value, Witness(s1, frozenset(range(n)) - s1))
    return best


def peel(
    in_neighbors: Sequence[frozenset[int]],
    out: Sequence[Sequence[int]],
    side: Sequence[bool],
    k: int,
    *,
    stop: Callable[[], bool] | None = None,
) -> Witness | None:
    """The largest ``S1`` within the nodes of side False and ``S2`` within those of side True in
    which every member hears at most ``k`` nodes outside its own set, or None when one of them
    is empty (or ``stop()`` came first).

    A node that hears more than ``k`` nodes outside its set leaves it (to neither set), which
    can only raise the outside counts of its set's other members, so what is removed must be
    removed from every such subset: the result is the largest one, and a pair of value at most
    ``k`` (LeBlanc et al. 2013, Def. 5: neither set is (k + 1)-reachable). O(n + m) time and
    memory; ``stop`` is looked at every few thousand removals.

    Examples
    --------
    >>> cycle = [frozenset({(i - 1) % 8, (i + 1) % 8}) for i in range(8)]
    >>> halves = [i >= 4 for i in range(8)]
    >>> w = peel(cycle, out_neighbors(cycle), halves, 1)
    >>> sorted(w.s1), sorted(w.s2)
    ([0, 1, 2, 3], [4, 5, 6, 7])
    >>> peel(cycle, out_neighbors(cycle), halves, 0) is None
    True
    """
    n = len(in_neighbors)
    label = [int(x) for x in side]  # 0 or 1; 2: in neither set
    outside = [sum(label[u] != label[v] for u in in_neighbors[v]) for v in range(n)]
    sizes = [label.count(0), label.count(1)]
    if 0 in sizes:
        return None
    queue = deque(v for v in range(n) if outside[v] > k)
    removed = 0
    while queue:
        v = queue.popleft()
        own = label[v]
        if own == 2 or outside[v] <= k:
            continue
        removed += 1
        if removed % _CHECK_EVERY == 0 and stop is not None and stop():
            return None
        label[v] = 2
        sizes[own] -= 1
        if sizes[own] == 0:
            return None
        for w in out[v]:  # w hears v, which is now outside w's set
            if label[w] == own:
                outside[w] += 1
                if outside[w] == k + 1:
                    queue.append(w)
    s1 = frozenset(v for v in range(n) if label[v] == 0)
    return Witness(s1, frozenset(v for v in range(n) if label[v] == 1))


def local_pair(
    in_neighbors: Sequence[frozenset[int]],
    out: Sequence[Sequence[int]],
    rng: random.Random,
    below: int,
    *,
    stop: Callable[[], bool] | None = None,
) -> tuple[int, Witness] | None:
    """One start of the large graphs' witness search: a pair of value below ``below``, or None.

    The start is a ball: the half of the nodes nearest a random root (ties broken at random),
    against the rest; :func:`refine` moves nodes while keeping a quarter of the nodes on each
    side, and the least ``k`` below ``below`` at which :func:`peel` keeps both sets nonempty is
    found by bisection (peeling at a larger ``k`` keeps supersets). O((n + m) log below) time,
    O(n + m) memory; the caller checks the pair like every witness (``solvers.witness``).
    """
    n = len(in_neighbors)
    if n < 2 or below <= 0 or (stop is not None and stop()):
        return None
    dist = distances(in_neighbors, out, rng.randrange(n))
    noise = [rng.random() for _ in range(n)]
    ranked = sorted(range(n), key=lambda v: (dist[v], noise[v]))
    side = [False] * n
    for v in ranked[n // 2 :]:
        side[v] = True
    refine(in_neighbors, out, side, stop=stop, floor=n // 4)
    lo, hi, best = 0, below - 1, None
    while lo <= hi and not (stop is not None and stop()):
        k = (lo + hi) // 2
        pair = peel(in_neighbors, out, side, k, stop=stop)
        if pair is None:
            lo = k + 1
        else:
            best, hi = (k, pair), k - 1
    return best
