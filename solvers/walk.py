"""A batched search told the value it must reach: many walks on splits advanced together in numpy.

A split ``(S, V \\ S)`` costs its excess, the sum over nodes of ``max(0, c(v) - k)``, where
``c(v)`` counts v's in-neighbours on the other side; a split of excess 0 is a pair of value at
most ``k`` (LeBlanc et al. 2013, Def. 5: neither side is (k + 1)-reachable), and a split with a few
nodes over ``k`` often keeps such a pair once :func:`peel_batch` has removed them. Each move takes
a random node v over ``k`` and moves v or one of the in-neighbours it hears across to the other
side: the candidate that lowers the excess most (ties at random; one moved in the last
:data:`TABU` moves only if it reaches excess 0), or a random one with probability :data:`NOISE`,
as WalkSAT walks towards a model (Selman, Kautz and Cohen 1994). Each side keeps at least a
quarter of the nodes.

Why our own code: no library we can depend on runs such a walk on a graph's splits, and in pure
Python one start of 1,000 moves took about 12 ms on 60-80 nodes of degree 6-10 (issue 40,
round 27, ``docs/performance.md``). Here every step moves all the batch's walks at once, so the
interpreter's cost is paid per step, not per walk, and nothing is compiled at start-up (numba
needed about 0.5 s before its first move, round 27's scratch look). The caller checks every pair
like every witness (``solvers.witness``); this module proves nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from solvers.types import Witness

__all__ = ["Walk", "NOISE", "TABU", "BATCH", "MOVES", "PEEL_EXCESS", "SPAN"]

NOISE = 0.05
"""The chance that a move takes a random candidate instead of the best (round 27's decide phase:
0.05 with :data:`TABU` 2 found 40 pairs where 0.2 and 7 found 11, on the same seven cases)."""

TABU = 2
"""Moves for which a moved node is not moved again (unless that reaches excess 0)."""

BATCH = 1024
"""Walks advanced together."""

MOVES = 1000
"""Moves of each walk before it starts again from a new ball (round 27's starts)."""

SPAN = 1024
"""A node's code is ``side * SPAN + c(v)``: in-degrees below SPAN only."""

_KEYS = 64
"""Rows of random keys from which each step draws one per walk, to pick its node over k."""

PEEL_EXCESS = 1
"""A walk's split is peeled at a new low of its excess only once that excess is at most this
many times ``k``: early lows leave too many nodes over ``k`` for a pair to survive the peel."""


class Walk:
    """Batched walks on the splits of one graph, told ``k`` at each :meth:`run`.

    ``in_neighbors``: each node's in-neighbours (for an undirected graph, its neighbours).
    ``seed``: the walks' random numbers, so that a run is repeatable. Memory O(n^2) for the
    distance matrix the starts are drawn from (the graphs of ``portfolio.WALK_PROBE_RULE`` have at
    most a few hundred nodes) and O(BATCH * (n + m)) for the walks.

    Examples
    --------
    >>> cycle = [frozenset({(i - 1) % 12, (i + 1) % 12}) for i in range(12)]
    >>> pair = Walk(cycle, seed=0).run(1, moves=100)
    >>> [max(len(cycle[v] - side) for v in side) <= 1 for side in (pair.s1, pair.s2)]
    [True, True]
    >>> Walk(cycle, seed=0).run(0, moves=100, starts=2) is None  # a cycle is 1-robust
    True
    """

    def __init__(self, in_neighbors: Sequence[frozenset[int]], *, seed: int = 0) -> None:
        n = len(in_neighbors)
        if any(len(heard) >= SPAN for heard in in_neighbors):
            raise ValueError(f"Walk: in-degrees below {SPAN} only")
        self.n = n
        self.rng = np.random.default_rng(seed)
        width = max(1, max((len(h) for h in in_neighbors), default=0))
        self.heard = np.full((n, width), n, dtype=np.int64)  # n: an empty slot
        outs: list[list[int]] = [[] for _ in range(n)]
        for v, heard in enumerate(in_neighbors):
            row = sorted(heard)
            self.heard[v, : len(row)] = row
            for u in row:
                outs[u].append(v)
        out_width = max(1, max(map(len, outs), default=0))
        self.out = np.full((n + 1, out_width), n, dtype=np.int64)  # row n: the empty slot's
        for u, row in enumerate(outs):
            self.out[u, : len(row)] = row
        self.degree = np.array([len(h) for h in in_neighbors] + [0], dtype=np.int64)  # slot n: 0
        self.dist = _distances(self.heard, n)

    def run(
        self,
        k: int,
        *,
        moves: int = MOVES,
        starts: int | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> Witness | None:
        """A pair of value at most ``k``, or None after ``starts`` rounds of :data:`BATCH` walks
        of ``moves`` moves (no limit when None), or once ``stop()`` (looked at every move)."""
        n = self.n
        if n < 2 or k < 0:
            return None
        rounds = 0
        while starts is None or rounds < starts:
            if stop is not None and stop():
                return None
            rounds += 1
            pair = self._round(k, moves, stop)
            if pair is not None:
                return pair
        return None

    def _round(self, k: int, moves: int, stop: Callable[[], bool] | None) -> Witness | None:
        """One batch of walks from fresh balls, each of ``moves`` moves.

        Each walk's state is one small integer per node, ``side * SPAN + c(v)`` (side 2 and
        count 0 for the empty slot n), in one flat array (walk i's node v at ``i * (n + 1) + v``)
        read with ``take``; what a move needs of a node's code (is it over k, its excess, what it
        adds to a candidate's gain) is looked up in tables made for ``k``, so that a step makes
        a few passes over the candidates' hearers instead of one per comparison."""
        n, rng, span = self.n, self.rng, SPAN
        b, stride = BATCH, n + 1
        offset = np.arange(b, dtype=np.intp) * stride
        roots = rng.integers(n, size=b)
        order = np.argsort(self.dist[roots] + rng.random((b, n)), axis=1)
        side = np.zeros((b, stride), dtype=np.int16)
        np.put_along_axis(side, order[:, n // 2 :], 1, axis=1)
        side[:, n] = 2
        code = side * span + self._across(side)
        flat = code.reshape(-1)
        over_of, excess_of, adds = _tables(k)
        floor = max(1, n // 4)
        ones = side[:, :n].sum(axis=1, dtype=np.int64)
        excess = excess_of.take(code[:, :n]).sum(axis=1, dtype=np.int64)
        best = np.full(b, np.iinfo(np.int64).max)
        tabu = np.full(b * stride, -1, dtype=np.int64)
        every = np.arange(b)
        picks = rng.integers(1, 256, size=(_KEYS, n), dtype=np.uint8)
        for step in range(moves):
            low = (excess < best) & (excess <= PEEL_EXCESS * max(k, 1))
            if low.any():
                best = np.where(low, excess, best)
                pair = self._peel_first(code[low] // span, k)
                if pair is not None:
                    return pair
            if stop is not None and stop():
                return None
            # v: a random node over k in each walk (a walk with none has excess 0: peeled above)
            over = over_of.take(code[:, :n])
            v = np.argmax(picks.take(rng.integers(_KEYS, size=b), axis=0) * over, axis=1)
            cand = np.concatenate([v[:, None], self.heard.take(v, axis=0)], axis=1)  # (b, c)
            at = cand + offset[:, None]
            ccode = flat.take(at)
            cside = ccode // span
            across = ccode - cside * span
            sizes = np.where(cside == 1, ones[:, None], n - ones[:, None])
            ok = (cside != cside[:, :1]) & (cside < 2)
            ok[:, 0] = True
            ok &= (sizes > floor) & over_of.take(ccode[:, :1])
            degree = self.degree.take(cand)
            gain = np.maximum(0, across - k) - np.maximum(0, degree - across - k)
            hearers = self.out.take(cand, axis=0) + offset[:, None, None]  # (b, c, out width)
            gain += adds.take(flat.take(hearers) + (cside * (3 * span))[:, :, None]).sum(axis=2)
            allowed = ok & ((tabu.take(at) < step) | (gain == excess[:, None]))
            noisy = (rng.random(b) < NOISE)[:, None]
            jitter = rng.random(cand.shape)
            score = np.where(noisy, jitter, gain + 0.5 * jitter)
            usable = np.where(noisy, ok, allowed)
            pick = np.argmax(np.where(usable, score, -np.inf), axis=1)
            moving = usable[every, pick]
            if not moving.any():
                continue
            w = np.nonzero(moving)[0]
            u = cand[w, pick[w]]
            spot = offset[w] + u
            new = 1 - cside[w, pick[w]]
            flat[spot] = new * span + self.degree.take(u) - across[w, pick[w]]
            ones[w] += 2 * new - 1
            excess[w] -= gain[w, pick[w]]
            heard_by = self.out.take(u, axis=0) + offset[w][:, None]  # (len(w), out width)
            flat[heard_by] += np.where(flat.take(heard_by) // span == new[:, None], -1, 1)
            code[:, n] = 2 * span  # the empty slot: side 2, hears nobody
            tabu[spot] = step + TABU
        return None

    def _across(self, side: np.ndarray) -> np.ndarray:
        """c(v) for every walk: in-neighbours on the other side (column n: the empty slot, 0)."""
        n = self.n
        theirs = side[:, self.heard]  # (b, n, width)
        mine = side[:, :n, None]
        counts = ((theirs != mine) & (self.heard < n)[None]).sum(axis=2, dtype=np.int16)
        return np.concatenate([counts, np.zeros((side.shape[0], 1), dtype=np.int16)], axis=1)

    def _peel_first(self, side: np.ndarray, k: int) -> Witness | None:
        """:func:`solvers.linear.peel` at ``k`` on each split of ``side`` at once: the first
        split whose peeled sets are both nonempty, as a pair, else None."""
        n = self.n
        label = side[:, :n].astype(np.int8).copy()  # 0, 1; 2: removed
        valid = (self.heard < n)[None]
        padded = np.concatenate([label, np.full((label.shape[0], 1), 3, np.int8)], axis=1)
        while True:
            theirs = padded[:, self.heard]
            outside = ((theirs != padded[:, :n, None]) & valid).sum(axis=2)
            leave = (outside > k) & (padded[:, :n] < 2)
            if not leave.any():
                break
            padded[:, :n][leave] = 2
        label = padded[:, :n]
        alive = ((label == 0).any(axis=1)) & ((label == 1).any(axis=1))
        if not alive.any():
            return None
        first = label[int(np.argmax(alive))]
        s1 = frozenset(np.nonzero(first == 0)[0].tolist())
        s2 = frozenset(np.nonzero(first == 1)[0].tolist())
        return Witness(s1, s2)


def _tables(k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Lookups by a node's code ``side * SPAN + c`` (side 0, 1; 2 for the empty slot): is it over
    ``k``; its excess ``max(0, c - k)``; and, at ``side_u * 3 * SPAN + code``, what a hearer adds to
    the gain of moving a node u of side ``side_u`` (-1 when on u's side with ``c >= k``: it will
    hear u across; +1 when across with ``c > k``: it stops hearing u across; else 0)."""
    c = np.tile(np.arange(SPAN), 3)
    s = np.repeat(np.arange(3), SPAN)
    real = s < 2
    over = real & (c > k)
    excess = np.where(real, np.maximum(c - k, 0), 0)
    adds = np.zeros((3, 3 * SPAN), dtype=np.int64)
    for mine in (0, 1):
        adds[mine] = np.where(s == mine, -(c >= k).astype(np.int64), np.where(real, c > k, 0))
    return over, excess, adds.reshape(-1)


def _distances(heard: np.ndarray, n: int) -> np.ndarray:
    """Breadth-first distances between every two nodes along heard arcs, both ways (n + 1 where
    none), by frontier sets over a boolean adjacency matrix: O(n^2) memory, diameter steps."""
    adj = np.zeros((n, n + 1), dtype=bool)
    adj[np.repeat(np.arange(n), heard.shape[1]), heard.ravel()] = True
    adj = adj[:, :n]
    adj |= adj.T
    dist = np.full((n, n), n + 1, dtype=np.int64)
    np.fill_diagonal(dist, 0)
    reached = np.eye(n, dtype=bool)
    frontier = reached.copy()
    step = 0
    while frontier.any():
        step += 1
        nxt = (frontier.astype(np.float32) @ adj.astype(np.float32)) > 0
        nxt &= ~reached
        dist[nxt] = step
        reached |= nxt
        frontier = nxt
    return dist
