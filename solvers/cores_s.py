"""Lower bounds on s*_r by the core search with exception nodes: pure Python, no solver.

For r >= 1 and disjoint nonempty S1, S2 let ``X_i`` be the nodes of S_i with at least r
in-neighbours outside S_i. The graph is (r, s)-robust iff every such pair has ``X_1 = S_1``,
``X_2 = S_2`` or ``|X_1| + |X_2| >= s`` (LeBlanc et al. 2013, Def. 7); s*_r is the largest such s.

**The reduction.** Let the graph be r-robust and s*_r >= t - 1 for some t >= 2. Then s*_r >= t
iff there is no set E of t - 1 nodes split into E_1 and E_2 (``|E_1| <= |E_2|``) with disjoint
sets ``S_i = E_i + T_i``, each T_i nonempty, where every node of T_i has at most r - 1
in-neighbours outside S_i. Proof: such a pair has ``X_i`` within E_i (so ``|X_1| + |X_2| <= t -
1``) and T_i outside X_i (so ``X_i != S_i``): the graph is not (r, t)-robust. Conversely a pair
refuting (r, t)-robustness has ``|X_1| + |X_2| <= t - 1``, and at least t - 1 since s*_r >= t - 1
rules out fewer; E_i = X_i and T_i = S_i - X_i, nonempty as X_i != S_i, give such sets.

For one E, the sets T_i allowed form a family closed under union (a node of T hears no more
outside ``T + T' + E_i`` than outside ``T + E_i``), so the pair of the T's is found or ruled out by
the core search of :mod:`solvers.cores` with a need per side: a node hearing e nodes of E_i needs
e fewer in-neighbours in T_i, and E is left out of both pools
(:func:`pair_with_exceptions`). A level t costs one such search per split of each E of t - 1
nodes (:func:`exception_sets`): n at t = 2, n(n - 1) at t = 3, so the search climbs only while a
level's count is within a cap (``portfolio.CORES_S_RULE``).

Why own code: no library decides (r, s)-robustness, and on the (r, s) rows where the published
model's proof of the lower bound takes seconds on CP-SAT (``digraph-35-p0.35-7170``: 5.5 s for
s*_6 >= 2) this search takes about as long as one proof of r-robustness per node
(docs/performance.md, "Issue 40, round 31").
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Iterator, Sequence

from solvers.cores import OutOfTime, _back, _relabel, _Search, needs_at, order_by_in_degree
from solvers.types import Witness

__all__ = ["PACE", "exception_sets", "pair_with_exceptions", "search_s"]


def exception_sets(n: int, size: int) -> int:
    """How many splits (E_1, E_2) of sets E of ``size`` nodes a level searches: one per E and
    ``|E_1| < |E_2|``, and half of those with ``|E_1| = |E_2|`` (the pair is unordered).

    Examples
    --------
    >>> exception_sets(35, 1), exception_sets(35, 2)
    (35, 1190)
    """
    splits = sum(math.comb(size, j) for j in range(size // 2 + 1))
    if size % 2 == 0 and size:
        splits -= math.comb(size, size // 2) // 2
    return math.comb(n, size) * splits


def _splits(n: int, size: int) -> Iterator[tuple[tuple[int, ...], list[int]]]:
    for e in itertools.combinations(range(n), size):
        for j in range(size // 2 + 1):
            for e1 in itertools.combinations(e, j):
                e2 = [v for v in e if v not in e1]
                if 2 * j == size and j and e1[0] > e2[0]:  # the same unordered split
                    continue
                yield e1, e2


PACE = 2.0
"""How far behind its share of the budget a level may run before it is abandoned: after ``done``
of its ``count`` exception sets, ``PACE x (done + 1) / count x budget`` seconds in it (issue
40, round 31: one set took 0.3-3.2 s on the dense rows of s*_r = 1 where v1's climb spent its
whole budget, 0.01-0.21 s on the rows it won)."""


def search_s(
    in_masks: Sequence[int],
    r: int,
    lower: int,
    upper: int,
    *,
    max_sets: int,
    budget: float | None = None,
    stop: Callable[[], bool] | None = None,
) -> tuple[int, Witness | None]:
    """Climb from a proven ``lower >= 1`` (the graph is r-robust) towards ``upper``: at each
    level t = lower + 1 while t <= upper, a pair of value t - 1 ends the climb with
    s*_r = t - 1, and none proves s*_r >= t.

    A level starts only while its :func:`exception_sets` count is at most ``max_sets`` and,
    under a ``budget`` of seconds, after the first level, its count times the seconds per set so
    far fits what is left of it; a level is abandoned once it runs behind :data:`PACE`, or past
    the budget, or when ``stop()`` turns true (polled between sets and inside each search).

    Returns
    -------
    (int, Witness or None)
        The lower bound proven, and the pair found (its value is that bound: check it with
        ``solvers.witness.refutes_rs`` before use), or None. An abandoned level proves nothing.
    """
    if lower < 1:
        raise ValueError("search_s needs a proven lower bound of at least 1 (r-robustness)")
    n = len(in_masks)
    began, searched = time.perf_counter(), 0
    level = {"began": began, "done": 0, "count": 1}

    def over() -> bool:
        if stop is not None and stop():
            return True
        if budget is None:
            return False
        now = time.perf_counter()
        share = PACE * (level["done"] + 1) / level["count"] * budget
        return now - began >= budget or now - level["began"] > share

    t = lower + 1
    while t <= upper:
        count = exception_sets(n, t - 1)
        spent = time.perf_counter() - began
        if count > max_sets or (
            budget is not None and searched and spent + count * spent / searched > budget
        ):
            break
        level.update(began=time.perf_counter(), done=0, count=count)
        try:
            for e1, e2 in _splits(n, t - 1):
                if over():
                    raise OutOfTime
                found = pair_with_exceptions(in_masks, r - 1, e1, e2, stop=over)
                if found is not None:
                    return t - 1, found
                level["done"] += 1
        except OutOfTime:
            break
        searched += count
        t += 1
    return t - 1, None


def pair_with_exceptions(
    in_masks: Sequence[int],
    k: int,
    in_a: Sequence[int],
    in_b: Sequence[int],
    *,
    stop: Callable[[], bool] | None = None,
) -> Witness | None:
    """Two disjoint sets A and B holding the exception nodes ``in_a`` and ``in_b`` (disjoint)
    and more, every other node of each with at most ``k`` in-neighbours outside its set, or None.

    The exceptions are left out of the search's pool and counted inside their set
    (``cores.needs_at``); the two needs differ, so both orientations of the first node of
    ``A | B`` are searched. The climb (:func:`search_s`) runs it for every split of every
    exception set.

    Examples
    --------
    >>> ring = [0b10010, 0b00101, 0b01010, 0b10100, 0b01001]  # the 5-cycle
    >>> pair_with_exceptions(ring, 0, [], [0]) is None  # {0} plus more in B, nothing leaks
    True
    >>> found = pair_with_exceptions(ring, 1, [], [0])
    >>> 0 in found.s2 and len(found.s2) >= 2
    True
    """
    order = order_by_in_degree(in_masks)
    place = {v: i for i, v in enumerate(order)}
    masks = _relabel(in_masks, order)
    e_a = sum(1 << place[v] for v in in_a)
    e_b = sum(1 << place[v] for v in in_b)
    need_a, need_b = needs_at(masks, k, e_a), needs_at(masks, k, e_b)
    pool = ((1 << len(masks)) - 1) & ~(e_a | e_b)
    for first, second, swapped in ((need_a, need_b, False), (need_b, need_a, True)):
        found = _Search(masks, first, second, stop, pool).pair()
        if found is not None:
            a, b = (found[1], found[0]) if swapped else found
            return Witness(_back(a | e_a, order), _back(b | e_b, order))
    return None
