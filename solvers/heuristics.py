"""Heuristic witness search: good pairs (S1, S2) fast, as upper bounds and solver hints.

Every pair found here is checked by the caller (``solvers.witness``) before it proves anything;
the heuristics only ever *propose*.

The search rests on one exact sub-step. For a node set U, let
``rho(U) = min over nonempty T within U of reach(T)``. Greedy peeling computes it: remove, one
at a time, the member with the most in-neighbours outside the current set; the smallest reach
seen along the way is ``rho(U)``. (Proof: let T* attain rho(U); when the first node v of T* is
removed from the current set C containing T*, v has the largest outside count in C, and
``|N_v \\ C| <= |N_v \\ T*| <= rho(U)``, so ``reach(C) <= rho(U)``.) Hence for a split of V into
U and W, ``max(rho(U), rho(W))`` is an upper bound on r* attained by an explicit pair, and r* is
the minimum of that over all splits; the search samples splits (spectral and breadth-first
sweeps, then single-node moves). The same peeling sequences give pairs for s*_r.

:func:`search_r` and :func:`long_search_r` take a ``stop`` check (e.g. ``StopSignal.is_set``):
once it returns True they return the best pair found so far, after at most one more split or
tabu move (under a millisecond at n = 60), so a Ctrl-C or a race that is over never waits for
a long search to end.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from solvers import pool_s
from solvers.arrays import adjacency
from solvers.types import Witness

__all__ = [
    "Peel",
    "peel",
    "search_r",
    "long_search_r",
    "search_s",
    "maximal_pair",
    "move_scores",
]

_SWEEP_POINTS = 12
"""Prefix sizes tried per sweep order when n exceeds that many nodes."""

_TABU_WORK = 4 * 10**7
"""Matrix entries the tabu search may touch over all its starts (each move costs about 3 n^2),
so a large graph gets fewer moves and restarts instead of seconds of search."""


_LONG_ITERATIONS = 3000
"""Tabu moves per start in :func:`long_search_r` (long runs beat many short restarts: at
n = 50-100, 3000 moves from each of 10 starts found better pairs than 300 from each of 18)."""

_LONG_RESTARTS = 8

_MOVE_SECONDS = (1.2e-4, 5e-9)
"""Time of one tabu move, ``a + b * 3 n^2`` seconds (a 2-core VM: 0.16 ms at n = 40, 0.17 ms at
n = 60, 0.24 ms at n = 100), to fit :func:`long_search_r` into its time."""


@dataclass(frozen=True)
class Peel:
    """A greedy peeling of a node set U: ``order[t]`` is removed at step t.

    ``reach[t]`` is the reach of the set left before step t (U minus ``order[:t]``);
    ``xcount[t]`` is how many of its members are r-reachable (when r was given).
    """

    members: np.ndarray
    order: np.ndarray
    reach: np.ndarray
    xcount: np.ndarray | None

    def subset(self, t: int) -> np.ndarray:
        """Boolean indicator of the set left before step t."""
        s = self.members.copy()
        s[self.order[:t]] = False
        return s

    def min_reach(self) -> tuple[int, np.ndarray]:
        """``rho(U)`` and a subset of U attaining it."""
        t = int(np.argmin(self.reach))
        return int(self.reach[t]), self.subset(t)

    def min_reachable_count(self) -> tuple[int, np.ndarray] | None:
        """Fewest r-reachable members over the sets in the sequence that are not all r-reachable."""
        if self.xcount is None:
            raise ValueError("peel was run without r")
        sizes = len(self.order) - np.arange(len(self.order))
        ok = self.xcount < sizes
        if not ok.any():
            return None
        t = int(np.argmin(np.where(ok, self.xcount, np.iinfo(np.int64).max)))
        return int(self.xcount[t]), self.subset(t)


def peel(a: np.ndarray, members: np.ndarray, r: int | None = None) -> Peel:
    """Peel ``members`` by always removing the member with the most in-neighbours outside.

    Notes
    -----
    O(|U| n) time.
    """
    x = members.astype(bool).copy()
    out = a.sum(axis=1) - a @ x.astype(np.int64)
    k = int(x.sum())
    order = np.empty(k, dtype=np.int64)
    reach = np.empty(k, dtype=np.int64)
    xcount = np.empty(k, dtype=np.int64) if r is not None else None
    for t in range(k):
        masked = np.where(x, out, -1)
        v = int(np.argmax(masked))
        order[t] = v
        reach[t] = masked[v]
        if xcount is not None:
            xcount[t] = int(np.count_nonzero(masked >= r))
        x[v] = False
        out += a[:, v]
    return Peel(members.astype(bool).copy(), order, reach, xcount)


def _bits(mask: np.ndarray) -> frozenset[int]:
    return frozenset(int(i) for i in np.flatnonzero(mask))


def _orders(a: np.ndarray, seed: int) -> Iterator[np.ndarray]:
    """Node orders whose prefixes make promising splits: spectral, breadth-first, random."""
    n = a.shape[0]
    sym = ((a + a.T) > 0).astype(float)
    lap = np.diag(sym.sum(axis=1)) - sym
    _, vecs = np.linalg.eigh(lap)
    if n > 1:
        yield np.argsort(vecs[:, 1], kind="stable")
    deg = a.sum(axis=1)
    for start in np.argsort(deg, kind="stable")[: min(n, 2)]:
        yield _bfs_order(sym, int(start), deg)
    rng = np.random.default_rng(seed)
    yield rng.permutation(n)


def _bfs_order(sym: np.ndarray, start: int, deg: np.ndarray) -> np.ndarray:
    """Breadth-first order from ``start`` (ties: lower in-degree first); unreached nodes last."""
    n = sym.shape[0]
    dist = np.full(n, n + 1)
    dist[start] = 0
    frontier = [start]
    d = 0
    while frontier:
        d += 1
        nxt = np.flatnonzero((sym[frontier].sum(axis=0) > 0) & (dist > n))
        dist[nxt] = d
        frontier = list(nxt)
    return np.lexsort((deg, dist))


def _prefix_sizes(n: int) -> list[int]:
    if n - 1 <= _SWEEP_POINTS:
        return list(range(1, n))
    small = np.unique(np.geomspace(1, n / 2, _SWEEP_POINTS // 2).astype(int))
    return sorted({int(k) for k in small} | {n - int(k) for k in small} | {n // 2})


def _split_value(a: np.ndarray, u: np.ndarray) -> tuple[int, int, np.ndarray, np.ndarray]:
    v1, t1 = peel(a, u).min_reach()
    v2, t2 = peel(a, ~u).min_reach()
    return max(v1, v2), min(v1, v2), t1, t2


def search_r(
    in_neighbors: Sequence[frozenset[int]],
    *,
    target: int | None = None,
    iterations: int | None = None,
    restarts: int = 2,
    seed: int = 0,
    stop: Callable[[], bool] | None = None,
) -> tuple[int, Witness] | None:
    """A pair (S1, S2) with small ``max(reach(S1), reach(S2))``: an upper bound on r*.

    Sweeps (spectral and breadth-first orders, each prefix split peeled on both sides) give a
    start; a tabu search over labellings free/S1/S2 then moves one node at a time, minimising
    the largest outside count of a member and, on ties, how many members attain it.

    Parameters
    ----------
    in_neighbors : sequence of frozenset of int
        The graph.
    target : int, optional
        Stop as soon as a pair with value below ``target`` is found (refuting target-robustness).
    iterations : int, optional
        Tabu moves per start (default ``max(100, 4 n)``, fewer for large n: all starts together make
        at most about ``_TABU_WORK / (3 n^2)`` moves, and never fewer than 50 per start).
    restarts : int
        Extra tabu starts from random balanced splits (dropped first when the work budget
        does not cover them).
    seed : int
        Seeds the random sweep order and tie-breaking: the same seed gives the same pair.
    stop : callable, optional
        Polled after every sweep split and before every tabu move; once it returns True the
        search returns the best pair found so far (at least the first split's).

    Returns
    -------
    (value, Witness) or None
        None for graphs with fewer than two nodes.

    Notes
    -----
    O((sweep splits + iterations) n^2) time.

    Examples
    --------
    >>> ring = [frozenset({(i - 1) % 6, (i + 1) % 6}) for i in range(6)]
    >>> value, pair = search_r(ring)
    >>> value, search_r(ring, stop=lambda: True)[0] >= value
    (1, True)
    """
    a = adjacency(in_neighbors)
    n = a.shape[0]
    if n < 2:
        return None
    rng = np.random.default_rng(seed)
    best: tuple[int, int] | None = None
    best_pair = None
    starts = []
    for order in _orders(a, seed):
        for k in _prefix_sizes(n):
            u = np.zeros(n, dtype=bool)
            u[order[:k]] = True
            value, second, t1, t2 = _split_value(a, u)
            if best is None or (value, second) < best:
                best, best_pair = (value, second), (t1, t2)
            if (target is not None and best[0] < target) or (stop is not None and stop()):
                return best[0], Witness(_bits(best_pair[0]), _bits(best_pair[1]))
        if len(starts) == 0 and n > 1:
            half = np.zeros(n, dtype=bool)
            half[order[: n // 2]] = True
            starts.append(np.where(half, 1, 2))
    starts.insert(0, np.where(best_pair[0], 1, np.where(best_pair[1], 2, 0)))
    moves = _TABU_WORK // (3 * n * n)
    if iterations is None:
        restarts = max(0, min(restarts, moves // max(1, 4 * n) - len(starts)))
    for _ in range(restarts):  # random balanced splits: tabu from several basins
        starts.append(np.where(rng.permutation(n) < n // 2, 1, 2))
    budget = max(50, min(max(100, 4 * n), moves // len(starts)))
    steps = iterations if iterations is not None else budget
    value = best[0]
    for labels in starts:
        found, pair = _tabu(a, labels, steps, rng, target, stop)
        if found < value:
            value, best_pair = found, pair
        if (target is not None and value < target) or (stop is not None and stop()):
            break
    return value, Witness(_bits(best_pair[0]), _bits(best_pair[1]))


def long_search_r(
    in_neighbors: Sequence[frozenset[int]],
    seconds: float,
    *,
    seed: int = 0,
    stop: Callable[[], bool] | None = None,
) -> tuple[int, Witness] | None:
    """:func:`search_r` with long tabu runs, cut to fit in about ``seconds``.

    Up to 3000 moves from each of 10 starts (the default search makes at most ``4 n`` per
    start). On G(60, 1/2) this finds r* <= 15 where the default stops at 16, on the digraph
    G(60, 0.3) 9 instead of 10. Returns None when ``seconds`` affords fewer than 100 moves per
    start, or for graphs with fewer than two nodes. ``stop``, when it returns True, ends the
    search early with the best pair so far (see :func:`search_r`); the pair, like every pair
    here, is only a proposal for the caller to check (``solvers.witness``).
    """
    n = len(in_neighbors)
    starts = _LONG_RESTARTS + 2
    per_move = _MOVE_SECONDS[0] + _MOVE_SECONDS[1] * 3 * n * n
    iterations = min(_LONG_ITERATIONS, int(seconds / (per_move * starts)))
    if n < 2 or iterations < 100:
        return None
    return search_r(
        in_neighbors, iterations=iterations, restarts=_LONG_RESTARTS, seed=seed, stop=stop
    )


def _costs(hears: np.ndarray, deg: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Outside count of every member (``-1`` for free nodes); ``hears`` is the float adjacency."""
    sides = (labels[:, None] == np.array([1, 2])[None, :]).astype(np.float32)
    inside = (hears @ sides)[np.arange(len(labels)), np.maximum(labels - 1, 0)]
    return np.where(labels > 0, deg - inside.astype(np.int64), -1)


def _tabu(
    a: np.ndarray,
    labels: np.ndarray,
    steps: int,
    rng: np.random.Generator,
    target: int | None,
    stop: Callable[[], bool] | None = None,
) -> tuple[int, tuple[np.ndarray, np.ndarray]]:
    """Tabu search over labellings (0 free, 1 in S1, 2 in S2) minimising (max cost, #at max).

    Every step scores all 3n single-node moves with :func:`move_scores` and takes the best move
    that is not tabu (or that beats the best value found, the aspiration rule); ties are broken
    at random. ``stop`` is polled before every move; True returns the best labelling so far.
    """
    n = a.shape[0]
    deg = a.sum(axis=1)
    hears = a.astype(np.float32)
    labels = labels.copy()
    tabu_until = np.zeros(n, dtype=np.int64)
    cost = _costs(hears, deg, labels)
    best_value = int(cost.max())
    best = (labels == 1, labels == 2)
    for step in range(steps):
        if stop is not None and stop():
            break
        top, count, movers = move_scores(a, hears, deg, labels, cost)
        allowed = movers & ((np.tile(tabu_until, 3) <= step) | (top < best_value))
        if not allowed.any():
            break
        order = np.lexsort((rng.random(3 * n), count, top, ~allowed))
        choice = int(order[0])
        v, b = choice % n, choice // n
        labels[v] = b
        tabu_until[v] = step + 5 + int(rng.integers(0, 5))
        cost = _costs(hears, deg, labels)
        value = int(cost.max())
        if value < best_value:
            best_value, best = value, (labels == 1, labels == 2)
            if target is not None and value < target:
                break
    return best_value, best


def move_scores(
    a: np.ndarray, hears: np.ndarray, deg: np.ndarray, labels: np.ndarray, cost: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Score every move "node v takes label b" (entry ``b * n + v``): the largest outside count
    of a member afterwards, how many members attain it, and whether the move is allowed (v
    changes label and no set is emptied).

    A move of v from side L to side b changes only the outside counts of members that hear v:
    +1 on side L, -1 on side b. So a member's count moves by at most one and, with M the current
    largest count, the new largest count among the other members is M + 1, M or M - 1 whenever
    some other member ends at M - 1 or above; the counts at those levels follow from how many
    members of each side at levels M - 2 .. M hear v (one matrix product per step, instead of
    one n x n update per label). The rare move that leaves every other member below M - 1
    (and v itself too) is scored exactly, one node at a time.
    """
    n = a.shape[0]
    m = int(cost.max())
    levels = np.arange(m - 2, m + 1)
    side_of = labels[:, None] == np.array([1, 2])[None, :]  # (n, 2)
    level_of = (cost[:, None] == levels[None, :]) & (labels > 0)[:, None]  # (n, 3), members
    columns = (side_of[:, :, None] & level_of[:, None, :]).reshape(n, 6).astype(np.float32)
    by_side = np.zeros((3, 3, n), dtype=np.int64)  # [side, level, v]: members that hear v
    by_side[1:] = (columns.T @ hears).astype(np.int64).reshape(2, 3, n)
    at_level = level_of.sum(axis=0)[:, None] - level_of.T  # (3, n): other members per level
    from_side = by_side[labels, :, np.arange(n)].T  # (3, n): on v's side, per level
    up = from_side[2]  # members at M on v's side go up to M + 1 (the same for every b)
    at_m = at_level[2] - from_side[2] - by_side[:, 2] + from_side[1]  # (3, n): per target b
    at_m1 = at_level[1] - from_side[1] - by_side[:, 1] + from_side[0] + by_side[:, 2]
    others = np.where(up > 0, m + 1, np.where(at_m > 0, m, np.where(at_m1 > 0, m - 1, -1)))
    others_count = np.where(up > 0, up, np.where(at_m > 0, at_m, at_m1))
    mine = np.full((3, n), -1, dtype=np.int64)
    mine[1:] = deg - (hears @ side_of.astype(np.float32)).T.astype(np.int64)
    top = np.maximum(others, mine)
    count = np.where(others == top, others_count, 0) + (mine == top)
    target = np.arange(3)[:, None]
    sizes = np.array([0, np.count_nonzero(side_of[:, 0]), np.count_nonzero(side_of[:, 1])])
    movers = (labels[None, :] != target) & ~((labels > 0) & (sizes[labels] == 1))[None, :]
    for b, v in zip(*np.nonzero((others < 0) & (mine < m - 1) & movers), strict=True):
        top[b, v], count[b, v] = _move_exact(a, deg, labels, int(v), int(b))
    return top.ravel(), count.ravel(), movers.ravel()


def _move_exact(
    a: np.ndarray, deg: np.ndarray, labels: np.ndarray, v: int, b: int
) -> tuple[int, int]:
    """(largest outside count, how many attain it) after moving v to label b, computed directly."""
    moved = labels.copy()
    moved[v] = b
    new = _costs(a.astype(np.float32), deg, moved)
    top = int(new.max())
    return top, int(np.count_nonzero(new == top))


def search_s(
    in_neighbors: Sequence[frozenset[int]], r: int, *, seed: int = 0
) -> tuple[int, Witness] | None:
    """A pair, neither side all r-reachable, with few r-reachable nodes: an upper bound on s*_r.

    Each sampled split of the nodes (the sweeps of :func:`search_r`) is peeled on both sides,
    the two least counts giving a pair; the better of that and ``pool_s.pool_pair``, the best
    disjoint pair of a pool of the peels' sets (``portfolio.POOL_S_RULE``).

    Returns
    -------
    (value, Witness) or None
        ``value = |X_S1^r| + |X_S2^r|``; None when no sampled split yields such a pair.
    """
    a = adjacency(in_neighbors)
    n = a.shape[0]
    if n < 2:
        return None
    best = None
    pool: list[tuple[int, int]] = []
    for order in _orders(a, seed):
        for k in _prefix_sizes(n):
            u = np.zeros(n, dtype=bool)
            u[order[:k]] = True
            one, two = peel(a, u, r), peel(a, ~u, r)
            pool += pool_s.sets(one) + pool_s.sets(two)
            one, two = one.min_reachable_count(), two.min_reachable_count()
            if one is None or two is None:
                continue
            value = one[0] + two[0]
            if best is None or value < best[0]:
                best = (value, Witness(_bits(one[1]), _bits(two[1])))
                if value == 0:
                    return best
    for u in pool_s.balls(a):
        pool += pool_s.sets(peel(a, u, r))
    pooled = pool_s.pool_pair(pool)
    if pooled is not None and (best is None or pooled[0] < best[0]):
        return pooled
    return best


def maximal_pair(in_neighbors: Sequence[frozenset[int]], pair: Witness, r: int) -> Witness:
    """Grow a pair refuting r-robustness by free nodes that keep both sides below r-reachable.

    A free node v joins S1 when ``|N_v \\ (S1 + v)| <= r - 1``; adding it only lowers the outside
    counts of S1's members, so the pair still refutes r-robustness. Repeats until no free node
    joins either side. Used to give solvers hints that satisfy the strong model's maximality cuts.
    """
    s1, s2 = set(pair.s1), set(pair.s2)
    changed = True
    while changed:
        changed = False
        for v in range(len(in_neighbors)):
            if v in s1 or v in s2:
                continue
            for side in (s1, s2):
                if len(in_neighbors[v] - side) <= r - 1:
                    side.add(v)
                    changed = True
                    break
    return Witness(frozenset(s1), frozenset(s2))
