"""Exact robustness by subset enumeration with bitmask dynamic programming: the reference engine.

For every node set S (a bitmask) it computes ``reach(S) = max_{i in S} |N_i \\ S|`` (or, for
(r, s), the count ``|X_S^r|``), then a subset-minimum transform over the complement, so that

    r* = min over S1 of max(reach(S1), min over nonempty S2 within V \\ S1 of reach(S2))

(LeBlanc et al. 2013, Def. 6), and likewise s*_r with ``|X_S1^r| + |X_S2^r|`` over pairs in which
neither set is entirely r-reachable (Def. 7). Both run in O(n 2^n) time and memory, vectorised
with numpy. Each answer comes with the minimising pair as its witness.
"""

from __future__ import annotations

import time

import numpy as np

from solvers.errors import SolverUnavailable
from solvers.types import Question, Request, Result, Status, Witness
from solvers.witness import refutes_r, refutes_rs

__all__ = ["MAX_N", "solve", "available", "exact_r", "exact_s"]

MAX_N = 24
"""Largest n the exhaustive engine accepts: 2^24 subsets need about 0.5 GiB of working memory."""

_BIG = np.int32(1 << 20)


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


def _subset_minimum(values: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """For every T: the minimum of ``values`` over nonempty subsets of T, and a subset at it."""
    best = values.copy()
    best[0] = _BIG
    arg = np.arange(1 << n, dtype=np.uint32)
    for i in range(n):
        b = best.reshape(-1, 2, 1 << i)
        a = arg.reshape(-1, 2, 1 << i)
        better = b[:, 0, :] < b[:, 1, :]
        b[:, 1, :] = np.where(better, b[:, 0, :], b[:, 1, :])
        a[:, 1, :] = np.where(better, a[:, 0, :], a[:, 1, :])
    return best, arg


def _best_pair(table: np.ndarray, n: int, combine) -> tuple[int, frozenset[int], frozenset[int]]:
    subsets = _masks(n)
    full = np.uint32((1 << n) - 1)
    best, arg = _subset_minimum(table, n)
    total = combine(table, best[full ^ subsets]).astype(np.int64)
    total[0] = _BIG
    total[-1] = _BIG
    s1 = int(np.argmin(total))
    s2 = int(arg[int(full) ^ s1])
    bits = lambda mask: frozenset(i for i in range(n) if mask >> i & 1)  # noqa: E731
    return int(total[s1]), bits(s1), bits(s2)


def exact_r(in_masks: list[int]) -> tuple[int, Witness | None]:
    """r* and a pair (S1, S2), neither of which is (r*+1)-reachable. O(n 2^n)."""
    n = len(in_masks)
    if n < 2:
        return 0, None
    reach = _reach_table(in_masks, _masks(n))
    value, s1, s2 = _best_pair(reach, n, np.maximum)
    return value, Witness(s1, s2)


def exact_s(in_masks: list[int], r: int) -> tuple[int, Witness | None]:
    """s*_r (in 0..n) and, when s*_r < n, a pair violating (r, s*_r + 1)-robustness. O(n 2^n)."""
    n = len(in_masks)
    if n < 2:
        return 0, None
    counts = _not_fully_reachable_counts(in_masks, _masks(n), r)
    value, s1, s2 = _best_pair(counts, n, np.add)
    if value >= n:
        return n, None
    return value, Witness(s1, s2)


def solve(request: Request) -> Result:
    """Answer any :class:`Question` exactly. Refuses graphs above :data:`MAX_N` nodes.

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
        value, witness = exact_s(in_masks, q.r)
        ok = witness is None or refutes_rs(nbrs, witness.s1, witness.s2, q.r, value + 1)
    else:
        value, witness = exact_r(in_masks)
        ok = witness is None or refutes_r(nbrs, witness.s1, witness.s2, value + 1)
    if not ok:  # a bug in the DP, never a user error: fail loudly rather than certify
        raise AssertionError("exhaustive engine produced a witness that does not verify")
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
