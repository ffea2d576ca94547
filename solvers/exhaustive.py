"""Exact robustness by subset enumeration with bitmask dynamic programming: the reference engine.

For every node set S (a bitmask) it computes ``reach(S) = max_{i in S} |N_i \\ S|`` (or, for
(r, s), the count ``|X_S^r|``), then a subset-minimum transform over the complement, so that

    r* = min over S1 of max(reach(S1), min over nonempty S2 within V \\ S1 of reach(S2))

(LeBlanc et al. 2013, Def. 6), and likewise s*_r with ``|X_S1^r| + |X_S2^r|`` over pairs in which
neither set is entirely r-reachable (Def. 7). Both run in O(n 2^n) time and memory, vectorised
with numpy. Each answer comes with the minimising pair as its witness.

Live bounds (``Request.listener``). The subset-minimum transform makes n passes; pass k lets
node k leave the second set. Before pass k, entry T holds the best nonempty subset of T that
keeps every node of T from k up, so ``min over S1 of max(reach(S1), best[V \\ S1])`` is the
value of an actual pair (S1, S2): an upper bound on r*, falling to r* after the last pass
(before the first pass it is the best split of V into S1 and its complement). The listener
hears such a bound whenever it improves, its pair checked with ``solvers.witness`` first; the
lower bound stays 0 until the DP has ended, since no pair is ruled out before then.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from solvers.errors import SolverUnavailable
from solvers.types import Listener, Question, Request, Result, Status, Witness
from solvers.witness import refutes_r, refutes_rs

__all__ = ["MAX_N", "solve", "available", "exact_r", "exact_s"]

MAX_N = 24
"""Largest n the exhaustive engine accepts: 2^24 subsets need about 0.5 GiB of working memory."""

_BIG = np.int32(1 << 20)

_REPORT_SPACING = 4.0
"""With a listener, a pass's bound is computed only once the passes since the last one took
this many times as long as that one did: the bounds add at most a fifth to the transform's time
(each costs about two passes: at n = 24, 0.23 s against 0.12 s a pass)."""

Combine = Callable[[np.ndarray, np.ndarray], np.ndarray]
Check = Callable[[frozenset[int], frozenset[int], int], bool]


def available() -> bool:
    """The exhaustive engine needs only numpy, so it is always available."""
    return True


def _masks(n: int) -> np.ndarray:
    return np.arange(1 << n, dtype=np.uint32)


def _outside_counts(in_mask: int, subsets: np.ndarray) -> np.ndarray:
    """``|N_i \\ S|`` for every subset S, given node i's in-neighbour bitmask."""
    return np.bitwise_count(np.uint32(in_mask) & ~subsets)


def _reach_table(in_masks: list[int], subsets: np.ndarray) -> np.ndarray:
    reach = np.zeros(subsets.shape, dtype=np.int32)
    for i, in_mask in enumerate(in_masks):
        member = ((subsets >> np.uint32(i)) & np.uint32(1)).astype(bool)
        counts = _outside_counts(in_mask, subsets).astype(np.int32)
        np.maximum(reach, np.where(member, counts, 0), out=reach)
    return reach


def _not_fully_reachable_counts(in_masks: list[int], subsets: np.ndarray, r: int) -> np.ndarray:
    """``|X_S^r|`` where some node of S is not r-reachable, else a large sentinel."""
    reachable = np.zeros(subsets.shape, dtype=np.int32)
    for i, in_mask in enumerate(in_masks):
        member = ((subsets >> np.uint32(i)) & np.uint32(1)).astype(bool)
        reachable += member & (_outside_counts(in_mask, subsets) >= r)
    size = np.bitwise_count(subsets).astype(np.int32)
    return np.where(reachable < size, reachable, _BIG)


def _subset_minimum(
    values: np.ndarray, n: int, each_pass: Callable[[int, np.ndarray, np.ndarray], None] | None
) -> tuple[np.ndarray, np.ndarray]:
    """For every T: the minimum of ``values`` over nonempty subsets of T, and a subset at it.

    ``each_pass(k, best, arg)``, when given, is called before pass k (k = 0 .. n - 1), when
    ``best[T]`` and ``arg[T]`` hold the minimum over the nonempty subsets of T that keep every
    node of T from k up.
    """
    best = values.copy()
    best[0] = _BIG
    arg = np.arange(1 << n, dtype=np.uint32)
    for i in range(n):
        if each_pass is not None:
            each_pass(i, best, arg)
        b = best.reshape(-1, 2, 1 << i)
        a = arg.reshape(-1, 2, 1 << i)
        better = b[:, 0, :] < b[:, 1, :]
        b[:, 1, :] = np.where(better, b[:, 0, :], b[:, 1, :])
        a[:, 1, :] = np.where(better, a[:, 0, :], a[:, 1, :])
    return best, arg


def _bits(mask: int, n: int) -> frozenset[int]:
    return frozenset(i for i in range(n) if mask >> i & 1)


def _pair_at(
    table: np.ndarray, best: np.ndarray, arg: np.ndarray, n: int, combine: Combine
) -> tuple[int, frozenset[int], frozenset[int]]:
    """The least ``combine(table[S1], best[V \\ S1])`` over proper nonempty S1, with its pair."""
    subsets = _masks(n)
    full = np.uint32((1 << n) - 1)
    total = combine(table, best[full ^ subsets]).astype(np.int64)
    total[0] = _BIG
    total[-1] = _BIG
    s1 = int(np.argmin(total))
    s2 = int(arg[int(full) ^ s1])
    return int(total[s1]), _bits(s1, n), _bits(s2, n)


def _best_pair(
    table: np.ndarray, n: int, combine: Combine, teller: _Teller | None = None
) -> tuple[int, frozenset[int], frozenset[int]]:
    each_pass = None if teller is None else teller.watch(table, n, combine)
    best, arg = _subset_minimum(table, n, each_pass)
    return _pair_at(table, best, arg, n, combine)


class _Teller:
    """Tells a listener the upper bounds that the transform's pairs prove, each checked first.

    ``check(s1, s2, value)`` is True when the pair refutes the question's quantity above
    ``value`` (``solvers.witness``). A listener that raises is dropped, as in
    ``search.Progress.tell``.
    """

    def __init__(self, listener: Listener, check: Check) -> None:
        self.listener: Listener | None = listener
        self.check = check
        self.upper: int | None = None
        self.due_at = 0.0

    def tell(self, lower: int, upper: int, text: str) -> None:
        if self.listener is None:
            return
        try:
            self.listener(lower, upper, text)
        except Exception:  # a display's bug must not end a proof: stop telling it
            self.listener = None

    def watch(
        self, table: np.ndarray, n: int, combine: Combine
    ) -> Callable[[int, np.ndarray, np.ndarray], None]:
        """The ``each_pass`` callback of :func:`_subset_minimum` that reports on ``table``."""

        def each_pass(k: int, best: np.ndarray, arg: np.ndarray) -> None:
            start = time.perf_counter()
            if self.listener is None or start < self.due_at:
                return
            value, s1, s2 = _pair_at(table, best, arg, n, combine)
            self.due_at = start + (time.perf_counter() - start) * (1 + _REPORT_SPACING)
            if value >= _BIG or not self.check(s1, s2, value):
                return  # (s*) no pair yet with neither side entirely r-reachable
            if self.upper is None or value < self.upper:
                self.upper = value
                self.tell(0, value, "complement splits" if k == 0 else f"subset DP pass {k}/{n}")

        return each_pass


def exact_r(in_masks: list[int], *, teller: _Teller | None = None) -> tuple[int, Witness | None]:
    """r* and a pair (S1, S2), neither of which is (r*+1)-reachable. O(n 2^n)."""
    n = len(in_masks)
    if n < 2:
        return 0, None
    reach = _reach_table(in_masks, _masks(n))
    value, s1, s2 = _best_pair(reach, n, np.maximum, teller)
    return value, Witness(s1, s2)


def exact_s(
    in_masks: list[int], r: int, *, teller: _Teller | None = None
) -> tuple[int, Witness | None]:
    """s*_r (in 0..n) and, when s*_r < n, a pair violating (r, s*_r + 1)-robustness. O(n 2^n)."""
    n = len(in_masks)
    if n < 2:
        return 0, None
    counts = _not_fully_reachable_counts(in_masks, _masks(n), r)
    value, s1, s2 = _best_pair(counts, n, np.add, teller)
    if value >= n:
        return n, None
    return value, Witness(s1, s2)


def solve(request: Request) -> Result:
    """Answer any :class:`Question` exactly. Refuses graphs above :data:`MAX_N` nodes.

    A ``request.listener`` hears ``(0, upper, text)`` each time the transform holds a better
    checked pair (see the module notes), then ``(value, value, "done")``.

    Raises
    ------
    SolverUnavailable
        When n > MAX_N.
    """
    n = request.n
    if n > MAX_N:
        raise SolverUnavailable(
            f"exhaustive engine handles n <= {MAX_N} (2^n subsets); this graph has n = {n}"
        )
    start = time.perf_counter()
    nbrs = request.graph.in_neighbors
    in_masks = [sum(1 << j for j in s) for s in nbrs]
    q: Question = request.question
    if q.about_s:
        teller = _teller(request, lambda s1, s2, v: refutes_rs(nbrs, s1, s2, q.r, v + 1))
        value, witness = exact_s(in_masks, q.r, teller=teller)
        ok = witness is None or refutes_rs(nbrs, witness.s1, witness.s2, q.r, value + 1)
    else:
        teller = _teller(request, lambda s1, s2, v: refutes_r(nbrs, s1, s2, v + 1))
        value, witness = exact_r(in_masks, teller=teller)
        ok = witness is None or refutes_r(nbrs, witness.s1, witness.s2, value + 1)
    if not ok:  # a bug in the DP, never a user error: fail loudly rather than certify
        raise AssertionError("exhaustive engine produced a witness that does not verify")
    if teller is not None:
        teller.tell(value, value, "done")
    return Result(
        question=q,
        status=Status.EXACT,
        lower=value,
        upper=value,
        witness=witness,
        engine="exhaustive",
        formulation=None,
        wall_time=time.perf_counter() - start,
        engine_version=f"numpy {np.__version__}",
        params={"max_n": MAX_N},
    )


def _teller(request: Request, check: Check) -> _Teller | None:
    """A teller for the request's listener, or None when nobody listens (no extra work)."""
    return None if request.listener is None else _Teller(request.listener, check)
