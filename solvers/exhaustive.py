"""Exact robustness by subset enumeration: the reference engine, vectorised with numpy.

For every node set S (a bitmask over n <= :data:`MAX_N` nodes) it tabulates
``reach(S) = max_{i in S} |N_i \\ S|`` (for r*) or, for (r, s), ``|X_S^r|`` when S is not
entirely r-reachable, in one byte per set. Then (LeBlanc et al. 2013, Defs. 6-7):

- r*: the graph has a pair with ``max(reach(S1), reach(S2)) <= k`` iff some S1 in
  ``F_k = {S nonempty : reach(S) <= k}`` has a member of F_k inside its complement. One packed
  bit per set: the up-closure ``G_k[T] = OR_{U within T} F_k[U]`` (n passes of word operations,
  the six inside a 64-bit word by shift-and-mask) and ``F_k AND G_k[V \\ S]`` (the complement is
  the bit-reversed array). A binary search over k between proven bounds finds r*: a k without a
  pair proves r* > k, a pair proves r* <= its value.
- s*_r: the subset-minimum transform ``best[T] = min over nonempty U within T`` of the byte
  table (n passes of ``np.minimum``), then ``min over S1 of |X_S1| + best[V \\ S1]``.

A witness S2 inside ``T = V \\ S1`` is found by descent: while T itself is not a minimiser, some
``T \\ {i}`` holds one (every proper subset lies in such a ``T \\ {i}``), O(n^2) look-ups.

Why own code: no library computes r- or (r, s)-robustness; this is the reference every other
engine is tested against, so it stays short and follows the definitions.

Live bounds (``Request.listener``, r questions): each probe of the binary search tells the
bounds it proved, an upper bound only with its pair checked by ``solvers.witness``; s questions
tell their value at the end.

Notes
-----
O(n 2^n) time and 2^n bytes per table (n = 24: two 16 MiB tables, well under a second).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from solvers.errors import SolverUnavailable
from solvers.types import Listener, Request, Result, Status, Witness
from solvers.witness import refutes_r, refutes_rs

__all__ = ["MAX_N", "solve", "available", "exact_r", "exact_s"]

MAX_N = 26
"""Largest n the exhaustive engine accepts: 2^26 subsets need about 0.3 GiB of working memory."""

_BIG = 127
"""Table entry of a set that never minimises (the empty set; for s, an all-reachable set)."""

_OUT = -64
"""Added for a non-member node, so that it never raises ``reach`` (entries stay >= -64 + 0)."""

_CHUNK = 1 << 18
"""Bytes of the reach table built at a time (cache-sized: the n additions stay in cache)."""

_IN_WORD = tuple(
    np.uint64(m)
    for m in (
        0x5555555555555555,
        0x3333333333333333,
        0x0F0F0F0F0F0F0F0F,
        0x00FF00FF00FF00FF,
        0x0000FFFF0000FFFF,
        0x00000000FFFFFFFF,
    )
)
"""Bit j of mask i is set iff bit i of j is clear: the sets that pass i extends by node i."""

Tell = Callable[[int, int, "tuple[int, int] | None"], None]

_REVERSED = np.array([int(f"{b:08b}"[::-1], 2) for b in range(256)], dtype=np.uint8)


def available() -> bool:
    """The exhaustive engine needs only numpy, so it is always available."""
    return True


def _tabulate(
    in_masks: list[int],
    dtype: type,
    add: Callable[[np.ndarray, np.ndarray], object],
    finish: Callable[[np.ndarray, np.ndarray], None] | None = None,
) -> np.ndarray:
    """A byte per set S, ``add(entries, |N_i \\ S|)`` over the nodes i, chunk by chunk.

    S is split into its low and high bits, so ``|N_i \\ S| = low[i, S_lo] + high[i, S_hi]`` is
    one addition of two small rows; a node outside S gets :data:`_OUT` on top (a negative
    count). ``finish(entries, sizes)``, when given, rewrites a chunk once its sums are in, with
    ``sizes = |S|``. The chunks are cache-sized, so the n additions never leave the cache.
    """
    n = len(in_masks)
    lo_bits = (n + 1) // 2
    lo = np.arange(1 << lo_bits, dtype=np.uint32)
    hi = np.arange(1 << (n - lo_bits), dtype=np.uint32)
    masks = np.array(in_masks, dtype=np.uint32).reshape(-1, 1)
    low = np.bitwise_count(masks & ~lo & np.uint32((1 << lo_bits) - 1)).astype(np.int8)
    high = np.bitwise_count((masks >> np.uint32(lo_bits)) & ~hi).astype(np.int8)
    for i in range(n):
        half, sets, bit = (low, lo, i) if i < lo_bits else (high, hi, i - lo_bits)
        half[i, (sets >> np.uint32(bit)) & 1 == 0] += _OUT
    table = np.zeros((hi.size, lo.size), dtype=dtype)
    rows = max(1, _CHUNK >> lo_bits)
    outside = np.empty((min(rows, hi.size), lo.size), dtype=np.int8)
    for start in range(0, hi.size, rows):
        block = table[start : start + rows]
        out = outside[: len(block)]
        for i in range(n):
            add(block, np.add(high[i, start : start + len(block), None], low[i], out=out))
        if finish is not None:
            sizes = np.bitwise_count(hi[start : start + len(block), None]) + np.bitwise_count(lo)
            finish(block, sizes)
    return table.reshape(-1)


def _reach_table(in_masks: list[int]) -> np.ndarray:
    """``reach(S) = max_{i in S} |N_i \\ S|`` for every S (0 for the empty set), int8."""
    return _tabulate(in_masks, np.int8, lambda t, c: np.maximum(t, c, out=t))


def _reachable_counts(in_masks: list[int], r: int) -> np.ndarray:
    """``|X_S^r|`` when some member of S is not r-reachable, else :data:`_BIG`, uint8."""

    def finish(t: np.ndarray, sizes: np.ndarray) -> None:
        t[t >= sizes] = _BIG

    return _tabulate(in_masks, np.uint8, lambda t, c: np.add(t, c >= r, out=t), finish)


def _pack(flags: np.ndarray) -> np.ndarray:
    """One bit per set (bit S of the little-endian array), padded to whole 64-bit words."""
    bits = np.packbits(flags, bitorder="little")
    return np.pad(bits, (0, -bits.size % 8))


def _up_closure(bits: np.ndarray, n: int) -> np.ndarray:
    """``G[T] = OR over U within T of F[U]`` on a packed bitset, in place: node i's pass ORs
    ``F[T \\ {i}]`` into ``F[T]`` (inside a word by shift and mask, above by whole words)."""
    words = bits.view(np.uint64)
    for i in range(min(n, 6)):
        words |= (words & _IN_WORD[i]) << np.uint64(1 << i)
    for i in range(6, n):
        pairs = words.reshape(-1, 2, 1 << (i - 6))
        pairs[:, 1, :] |= pairs[:, 0, :]
    return bits


def _complements(bits: np.ndarray, n: int) -> np.ndarray:
    """``R[S] = G[V \\ S]``: ``V \\ S = 2^n - 1 - S``, so the bit array read backwards."""
    backwards = _REVERSED[bits[::-1]]
    if n < 6:  # 2^n bits at the start of one word: move them back down
        word = backwards.view(np.uint64) >> np.uint64(64 - (1 << n))
        backwards = word.view(np.uint8)
    return backwards


def _bit(bits: np.ndarray, s: int) -> bool:
    return bool(bits[s >> 3] >> (s & 7) & 1)


def _descend(t: int, n: int, is_min: Callable[[int], bool], holds: Callable[[int], bool]) -> int:
    """A nonempty subset of T at which ``is_min`` holds, given ``holds(U)``: some subset of U
    is one (true at T). Each step drops a node, keeping ``holds``."""
    while not is_min(t):
        t = next(u for i in range(n) if t >> i & 1 and (u := t & ~(1 << i)) and holds(u))
    return t


def _pair_within(reach: np.ndarray, n: int, k: int) -> tuple[int, int] | None:
    """Two disjoint nonempty sets with ``reach <= k`` each, as bitmasks, or None."""
    inside = _pack(reach <= k)
    inside[0] &= 0xFE  # not the empty set
    closure = _up_closure(inside.copy(), n)
    both = inside & _complements(closure, n)
    hits = np.flatnonzero(both)
    if hits.size == 0:
        return None
    byte = int(hits[0])
    s1 = 8 * byte + (int(both[byte]) & -int(both[byte])).bit_length() - 1
    full = (1 << n) - 1
    s2 = _descend(full ^ s1, n, lambda t: _bit(inside, t), lambda u: _bit(closure, u))
    return s1, s2


def _bits(mask: int, n: int) -> frozenset[int]:
    return frozenset(i for i in range(n) if mask >> i & 1)


def exact_r(in_masks: list[int], *, tell: Tell | None = None) -> tuple[int, Witness | None]:
    """r* and a pair (S1, S2), neither of which is (r*+1)-reachable. O(n 2^n).

    Parameters
    ----------
    in_masks : list of int
        Node i's in-neighbours as a bitmask.
    tell : callable, optional
        ``tell(lower, upper, pair)`` after each probe of the binary search: the proven bounds
        and the pair of bitmasks at the upper bound (None while only the bound ``ceil(n/2)``
        of two halves stands, which needs no pair).

    Examples
    --------
    >>> exact_r([0b110, 0b101, 0b011])[0]  # the triangle K_3
    2
    """
    n = len(in_masks)
    if n < 2:
        return 0, None
    reach = _reach_table(in_masks)
    lower, upper, pair = 0, (n + 1) // 2, None  # halves: a member hears <= ceil(n/2) outside
    while lower < upper or pair is None:
        k = (lower + upper - 1) // 2 if lower < upper else upper
        found = _pair_within(reach, n, k)
        if found is None:
            lower = k + 1
        else:
            pair = found
            upper = max(int(reach[found[0]]), int(reach[found[1]]))
        if tell is not None:
            tell(lower, upper, pair)
    return upper, Witness(_bits(pair[0], n), _bits(pair[1], n))


def _subset_minimum(values: np.ndarray, n: int) -> np.ndarray:
    """``best[T] = min over nonempty U within T of values[U]`` (:data:`_BIG` for T empty)."""
    best = values.copy()
    best[0] = _BIG
    for i in range(n):
        pairs = best.reshape(-1, 2, 1 << i)
        np.minimum(pairs[:, 1, :], pairs[:, 0, :], out=pairs[:, 1, :])
    return best


def exact_s(in_masks: list[int], r: int) -> tuple[int, Witness | None]:
    """s*_r (in 0..n) and, when s*_r < n, a pair violating (r, s*_r + 1)-robustness. O(n 2^n)."""
    n = len(in_masks)
    if n < 2:
        return 0, None
    counts = _reachable_counts(in_masks, r)
    best = _subset_minimum(counts, n)
    total = counts + best[::-1].astype(np.uint16)  # best[V \\ S] for every S
    total[0] = total[-1] = 2 * _BIG
    s1 = int(np.argmin(total))
    if total[s1] >= n:
        return n, None
    full = (1 << n) - 1
    target = best[full ^ s1]
    s2 = _descend(full ^ s1, n, lambda t: counts[t] == target, lambda u: best[u] == target)
    return int(total[s1]), Witness(_bits(s1, n), _bits(s2, n))


def solve(request: Request) -> Result:
    """Answer any :class:`Question` exactly. Refuses graphs above :data:`MAX_N` nodes.

    A ``request.listener`` hears, for an r question, ``(lower, upper, text)`` after each probe
    of the binary search (an upper bound only once its pair is checked), and for every
    question ``(value, value, "done")`` at the end.

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
    q = request.question
    listener = _Listener(request.listener)
    if q.about_s:
        value, witness = exact_s(in_masks, q.r)
        ok = witness is None or refutes_rs(nbrs, witness.s1, witness.s2, q.r, value + 1)
    else:

        def tell(lower: int, upper: int, pair: tuple[int, int] | None) -> None:
            if pair is not None:
                w = (_bits(pair[0], n), _bits(pair[1], n))
                if not refutes_r(nbrs, *w, upper + 1):
                    raise AssertionError("exhaustive engine produced a pair that does not verify")
            listener(lower, upper, "subset DP")

        value, witness = exact_r(in_masks, tell=tell if request.listener else None)
        ok = witness is None or refutes_r(nbrs, witness.s1, witness.s2, value + 1)
    if not ok:  # a bug in the DP, never a user error: fail loudly rather than certify
        raise AssertionError("exhaustive engine produced a witness that does not verify")
    listener(value, value, "done")
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


class _Listener:
    """Passes bounds to a request's listener; one that raises is dropped (as in
    ``search.Progress.tell``): showing progress never changes or breaks a solve."""

    def __init__(self, listener: Listener | None) -> None:
        self.listener = listener

    def __call__(self, lower: int, upper: int, text: str) -> None:
        if self.listener is None:
            return
        try:
            self.listener(lower, upper, text)
        except Exception:  # a display's bug must not end a proof: stop telling it
            self.listener = None
