"""Exact r* by branch and bound over reach-k cores: pure Python bitmasks, no numpy, no solver.

For k >= 0 let ``F_k = {S nonempty : reach(S) <= k}``, ``reach(S) = max_{i in S} |N_i \\ S|``
(LeBlanc et al. 2013, Def. 6). A graph is (k+1)-robust iff no two disjoint members of F_k
exist (Def. 7), so r* is the least k that has such a pair. Two facts make the search small:

- F_k is closed under union (a member of S hears no more outside ``S | T`` than outside S), so
  every set U holds a largest member, its *core* ``core_k(U)``, found by peeling: drop every
  node of U with more than k in-neighbours outside U, until none is left to drop (a node
  dropped this way is in no member within U);
- a node x that must lie in A needs ``d_x - k`` in-neighbours inside A; if ``core_k`` of what A
  may use holds exactly that many, all of them are in A (and out of B).

The search for a pair (A, B) at k names a = the first node of ``A | B`` in a fixed order (in A:
the swap symmetry) and b = the first node of B; nodes before a are in neither set, nodes
between a and b are not in B. It keeps the forced sets X (in A), Y (in B) and what A and B may
not use, and deduces, to a fixed point:

- a node of X whose in-neighbours in ``core_k`` of what A may use are exactly ``d_x - k``
  forces them all into A (likewise for Y and B);
- a node that may not be in B but hears ``d_v - k`` nodes of X is in A: some pair is
  *maximal* (A = core_k(V \\ B), B = core_k(V \\ A)), and such a pair holds it;
- Hall's condition for every x in X and y in Y: their ``need_x + need_y`` in-neighbours (in A
  and in B) are distinct nodes, so ``|(N_x & core_A) | (N_y & core_B)|`` is at least that; when
  it is exactly that, the nodes only x hears are in A and those only y hears are in B.

A branch fails when a core loses a forced node or Hall's condition fails, and succeeds when the
two cores are disjoint (both are members of F_k). Otherwise it branches on a node both cores
hold: in the side of the tightest forced node, or not. The order is by in-degree, highest
first: their sets are the most constrained, so the first roots, which are searched with the
fewest exclusions, are cut soonest.

r* is found from above: a checked pair of value v (degree pair, halves) gives r* <= v; a pair
at k = v - 1 lowers v; when the search at k = v - 1 finds none, r* = v is proven. A decision
``is_r_robust(r)`` is one search at k = r - 1. Every pair is checked with ``solvers.witness``.

Why own code: no library decides r-robustness, and a MILP or CP-SAT model of it cannot use the
union-closed cores; this search imports nothing heavy and answers every graph of
``benchmarks/vs_published.py`` up to 30 nodes in at most 0.1 s, and ER and digraph G(40, 1/2)
in 0.3-4 s (docs/performance.md). The tree still grows quickly with n and density: the
portfolio gives it a time budget and passes its proven bounds on to the subset DP or the
models.

Notes
-----
Exponential in the worst case; each search node costs O(n^2) word operations (the peeling).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence

from solvers.errors import SolverUnavailable
from solvers.types import Request, Result, Status, Witness
from solvers.witness import refutes_r

__all__ = [
    "NAME", "OutOfTime", "available", "needs_at", "order_by_in_degree", "pair_within", "search_r",
    "solve",
]

NAME = "cores"

_CHECK_EVERY = 64
"""Search nodes between two calls of ``stop``."""


_ROOT_BUDGET = 500
"""Search nodes each root gets in the first of the two passes over the roots
(:meth:`_Search.pair`)."""


class OutOfTime(Exception):
    """Raised inside the search when ``stop()`` turns true; no bound is kept from that search."""


class _OverBudget(Exception):
    """Raised inside one root's search when it has used its pass's budget of search nodes."""


def available() -> bool:
    """Always available: plain Python."""
    return True


def order_by_in_degree(in_masks: Sequence[int]) -> list[int]:
    """Nodes by in-degree, highest first (ties by index): on digraph G(40, 1/2) seed 1003 the
    proof at k = r* - 1 took 106,834 search nodes in this order, 406,074 by in- plus out-degree."""
    return sorted(range(len(in_masks)), key=lambda i: (-in_masks[i].bit_count(), i))


_order = order_by_in_degree  # the search's own name for it


class _Search:
    """The pair search on a relabelled graph (node ``i`` here is ``order[i]``): A and B within
    ``pool`` (default: every node), a node i of A needing ``need_a[i]`` in-neighbours inside A
    and of B ``need_b[i]`` inside B (at one k: ``d_i - k`` both, :func:`needs_at`). A is the side
    of the first node of ``A | B``, so with two different needs a caller searches both
    orientations (``cores_s.pair_with_exceptions``)."""

    def __init__(
        self,
        in_masks: Sequence[int],
        need_a: Sequence[int],
        need_b: Sequence[int],
        stop: Callable[[], bool] | None,
        pool: int | None = None,
    ):
        self.nb = list(in_masks)
        self.need_a, self.need_b = need_a, need_b
        self.full = (1 << len(in_masks)) - 1 if pool is None else pool
        self.out = [0] * len(in_masks)  # out-neighbours: who hears node i
        for i, m in enumerate(in_masks):
            rest = m
            while rest:
                low = rest & -rest
                rest ^= low
                self.out[low.bit_length() - 1] |= 1 << i
        self.stop = stop
        self.nodes = 0
        self.budget_end: float = math.inf  # self.nodes at which the current root stops

    def failing(self, u: int, among: int, need: Sequence[int]) -> int:
        """The nodes of ``among`` with fewer than ``need`` in-neighbours in U."""
        nb, found = self.nb, 0
        while among:
            low = among & -among
            among ^= low
            i = low.bit_length() - 1
            if (nb[i] & u).bit_count() < need[i]:
                found |= low
        return found

    def shrink(self, u: int, removed: int, need: Sequence[int]) -> int:
        """``core_k(U \\ removed)`` when every node of U outside ``removed`` has its ``need``
        in U (a core, or U with its failing nodes as ``removed``): only a node that hears a
        removed node can fail next, so only those are rechecked (peeling)."""
        out = self.out
        u &= ~removed
        while removed:
            heard = 0
            while removed:
                low = removed & -removed
                removed ^= low
                heard |= out[low.bit_length() - 1]
            removed = self.failing(u, heard & u, need)
            u &= ~removed
        return u

    def core(self, u: int, need: Sequence[int]) -> int:
        """``core_k(U)``: the largest member of F_k within U (0 if none)."""
        return self.shrink(u, self.failing(u, u, need), need)

    def tight(self, forced: int, core: int, need: Sequence[int]) -> tuple[int, int, int]:
        """Nodes that forced members with no slack in ``core`` force too, and the free
        in-neighbours (in ``core``) of the forced member with the least slack, with that slack."""
        nb = self.nb
        add, best, least = 0, 0, len(nb) + 1
        rest = forced
        while rest:
            low = rest & -rest
            rest ^= low
            i = low.bit_length() - 1
            inside = nb[i] & core
            free = inside & ~forced
            if free:
                slack = inside.bit_count() - need[i]
                if slack <= 0:
                    add |= free
                elif slack < least:
                    best, least = free, slack
        return add, best, least

    def hall(self, x: int, a: int, y: int, b: int) -> tuple[int, int] | None:
        """Hall's condition for each x in X and y in Y: they need ``need_x + need_y`` distinct
        in-neighbours, ``need_x`` in A and ``need_y`` in B, so ``|(N_x & A) | (N_y & B)|``
        must be at least that (else None). When it is exactly that, every such node is used:
        those only x hears are in A, those only y hears in B (returned, as forced)."""
        nb, need_a, need_b = self.nb, self.need_a, self.need_b
        ys, rest = [], y
        while rest:
            low = rest & -rest
            rest ^= low
            j = low.bit_length() - 1
            ys.append((nb[j] & b, max(need_b[j], 0)))
        add_x = add_y = 0
        rest = x
        while rest:
            low = rest & -rest
            rest ^= low
            i = low.bit_length() - 1
            ax, nx = nb[i] & a, max(need_a[i], 0)
            for by, ny in ys:
                room = (ax | by).bit_count() - nx - ny
                if room < 0:
                    return None
                if room == 0:
                    add_x |= ax & ~by
                    add_y |= by & ~ax
        return add_x & ~x, add_y & ~y

    def pulled(self, forced: int, elsewhere: int, need: Sequence[int]) -> int:
        """Nodes of ``elsewhere`` (not in the other set) that hear ``need`` members of
        ``forced``: a maximal pair holds them on this side (only pool nodes: an excluded node
        may lie in ``elsewhere`` but in no set)."""
        nb = self.nb
        add, rest = 0, elsewhere & ~forced & self.full
        while rest:
            low = rest & -rest
            rest ^= low
            i = low.bit_length() - 1
            if (nb[i] & forced).bit_count() >= need[i]:
                add |= low
        return add

    def pair(self) -> tuple[int, int] | None:
        """Two disjoint members of F_k as bitmasks, or None when there are none.

        A root (a, b) puts every node before a out of A and every node before b out of B, so
        A lies in ``tails[a]`` and B in ``tails[b]``, where ``tails[i]`` is core_k of the nodes
        from i on: a root whose a or b is not in its tail fails at once, and the others start
        from those cores (proofs at n = 100: 4,950 roots fell to 3-5 on the graphs measured).

        The roots are searched in two passes: first each gets at most :data:`_ROOT_BUDGET`
        search nodes, then the roots left get what they need. A pair in a later root is then
        found without first exhausting the large, fruitless trees of the roots before it; a
        proof redoes at most that many nodes per large root. Against one pass (``search_r``
        alone on 117 graphs of ``benchmarks/vs_published.py``, 2026-12-02): r* of ER(50, 0.35),
        digraph G(50, 0.2), a random 4-regular graph on 80 nodes and Watts-Strogatz(100, 6),
        whose time went to finding the pair at k = r*, in 0.01-0.29 s instead of 0.05-1.98 s;
        where a proof took the time, 4-11% slower (digraph G(60, 0.2): 2.02 s, was 1.81 s),
        ER(40, 1/2) 36% (0.76 s, was 0.56 s), a random 4-regular graph on 100 nodes 44% (1.23 s,
        was 0.86 s); 103 graphs changed by under 0.01 s."""
        tails_a = self._tails(self.need_a)
        tails_b = tails_a if self.need_b is self.need_a else self._tails(self.need_b)
        n = len(self.nb)
        starts_b = [i for i in range(n) if tails_b[i] >> i & 1]
        roots = [(a, b) for a in range(n) if tails_a[a] >> a & 1 for b in starts_b if b > a]
        for budget in (_ROOT_BUDGET, None):
            left = []
            for a, b in roots:
                before = (1 << a) - 1
                between = ((1 << b) - 1) & ~before & ~(1 << a)
                no_a, no_b = before | 1 << b, before | 1 << a | between
                self.budget_end = math.inf if budget is None else self.nodes + budget
                try:
                    found = self._branch(1 << a, 1 << b, no_a, no_b, tails_a[a], tails_b[b])
                except _OverBudget:
                    left.append((a, b))
                    continue
                if found is not None:
                    return found
            roots = left
        return None

    def _tails(self, need: Sequence[int]) -> list[int]:
        """``tails[i]``: the core of the pool's nodes from i on."""
        tails, core = [], self.core(self.full, need)
        for i in range(len(self.nb)):
            tails.append(core)
            core = self.shrink(core, core & 1 << i, need)
        return tails

    def _branch(
        self, x: int, y: int, no_a: int, no_b: int, a: int, b: int
    ) -> tuple[int, int] | None:
        """Search below the node (X, Y, not in A, not in B); ``a`` and ``b`` are cores that
        hold what A and B may use (the parent's)."""
        self.nodes += 1
        if self.stop is not None and self.nodes % _CHECK_EVERY == 0 and self.stop():
            raise OutOfTime
        if self.nodes > self.budget_end:
            raise _OverBudget
        need_a, need_b = self.need_a, self.need_b
        while True:  # propagate to a fixed point
            a = self.shrink(a, a & no_a, need_a)
            if x & ~a:
                return None
            add_x, free_x, slack_x = self.tight(x, a, need_a)
            b = self.shrink(b, b & no_b, need_b)
            if not b or y & ~b:
                return None
            add_y, free_y, slack_y = self.tight(y, b, need_b)
            add_x |= self.pulled(x, no_b, need_a)
            add_y |= self.pulled(y, no_a, need_b)
            hall = self.hall(x, a, y, b)
            if hall is None:
                return None
            add_x, add_y = add_x | hall[0], add_y | hall[1]
            if add_x & (add_y | no_a) or add_y & no_b:  # forced into both, or where it may not be
                return None
            if not (add_x | add_y):
                break
            x, no_b = x | add_x, no_b | add_x
            y, no_a = y | add_y, no_a | add_y
        both = a & b
        if not both:
            return a, b
        on_a, on_b = free_x & both, free_y & both
        if on_b and not (on_a and slack_x <= slack_y):  # branch on B's tightest forced node
            v = on_b & -on_b
            return self._branch(x, y | v, no_a | v, no_b, a, b) or self._branch(
                x, y, no_a, no_b | v, a, b
            )
        pick = on_a or both
        v = pick & -pick
        return self._branch(x | v, y, no_a, no_b | v, a, b) or self._branch(
            x, y, no_a | v, no_b, a, b
        )


def _relabel(in_masks: Sequence[int], order: Sequence[int]) -> list[int]:
    place = {v: i for i, v in enumerate(order)}
    out = []
    for v in order:
        m, rest = 0, in_masks[v]
        while rest:
            low = rest & -rest
            rest ^= low
            m |= 1 << place[low.bit_length() - 1]
        out.append(m)
    return out


def _back(mask: int, order: Sequence[int]) -> frozenset[int]:
    return frozenset(order[i] for i in range(len(order)) if mask >> i & 1)


def pair_within(
    in_masks: Sequence[int], k: int, *, stop: Callable[[], bool] | None = None
) -> Witness | None:
    """Two disjoint nonempty sets, neither (k+1)-reachable, or None: the graph is (k+1)-robust.

    Parameters
    ----------
    in_masks : sequence of int
        Node i's in-neighbours as a bitmask.
    k : int
        The reach both sets must stay within.
    stop : callable, optional
        Polled during the search; once it returns True the search raises :class:`OutOfTime`.

    Examples
    --------
    >>> ring = [0b10010, 0b00101, 0b01010, 0b10100, 0b01001]  # the 5-cycle
    >>> pair_within(ring, 0) is None, pair_within(ring, 1) is not None
    (True, True)
    """
    order = _order(in_masks)
    masks = _relabel(in_masks, order)
    need = needs_at(masks, k)
    found = _Search(masks, need, need, stop).pair()
    return None if found is None else Witness(_back(found[0], order), _back(found[1], order))


def needs_at(in_masks: Sequence[int], k: int, inside: int = 0) -> list[int]:
    """Each node's need at reach k: ``d_i - k`` in-neighbours inside its set, less those it
    hears in ``inside`` (nodes of the set that are not in the search's pool)."""
    return [m.bit_count() - k - (m & inside).bit_count() for m in in_masks]


def _value(in_masks: Sequence[int], w: Witness) -> int:
    def reach(s: frozenset[int]) -> int:
        mask = sum(1 << i for i in s)
        return max((in_masks[i] & ~mask).bit_count() for i in s)

    return max(reach(w.s1), reach(w.s2))


def search_r(
    in_masks: Sequence[int],
    *,
    target: int | None = None,
    stop: Callable[[], bool] | None = None,
    tell: Callable[[int, int, Witness], None] | None = None,
    bisect: bool = False,
) -> tuple[int, int, Witness | None]:
    """Proven ``(lower, upper, witness)`` on r*: exact unless ``stop`` cut the search short.

    For ``target`` r (the decision ``is_r_robust(r)``) it searches at k = r - 1 only. For r*
    it searches at k = upper - 1, from the degree or halves pair down; with ``bisect``, at the
    middle k = (lower + upper - 1) // 2 of the bounds instead: a pair there lowers the upper
    bound to its value, none raises the lower bound to k + 1, so both bounds move and no single
    search at a k far above r* (where the cores are large and the deductions weak) holds up
    the rest (``portfolio.CORES_BISECT_RULE``). The witness refutes ``(upper + 1)``-robustness.
    ``tell(lower, upper, witness)`` hears the bounds after each search at one k (the witness
    unchecked: check it before showing it). Needs n >= 2.

    Examples
    --------
    >>> search_r([0b110, 0b101, 0b011])[:2]  # the triangle K_3
    (2, 2)
    """
    n = len(in_masks)
    heard = [0] * n
    for m in in_masks:
        for i in range(n):
            heard[i] |= m >> i & 1
    i = min(range(n), key=lambda v: (max(in_masks[v].bit_count(), heard[v]), v))
    degree = Witness(frozenset({i}), frozenset(range(n)) - {i})  # value max(d_i, 1 or 0)
    halves = Witness(frozenset(range(n // 2)), frozenset(range(n // 2, n)))  # <= ceil(n/2)
    witness = min(degree, halves, key=lambda w: _value(in_masks, w))
    lower, upper = 0, _value(in_masks, witness)
    try:
        while lower < upper:
            k = upper - 1 if target is None else target - 1
            if target is None and bisect:
                k = (lower + upper - 1) // 2
            if target is not None and not lower < target <= upper:
                break
            found = pair_within(in_masks, k, stop=stop)
            if found is None:
                lower = k + 1
            else:
                witness, upper = found, _value(in_masks, found)
            if tell is not None:
                tell(lower, upper, witness)
    except OutOfTime:
        pass
    return lower, upper, witness


def solve(
    request: Request,
    seconds: float | None = None,
    cpu: float | None = None,
    *,
    halt: Callable[[], bool] | None = None,
    bisect: bool = False,
) -> Result:
    """Answer an r question (``max_r`` or ``is_r_robust``) by the core search.

    ``seconds`` (default: the request's time limit) bounds the search's wall time and ``cpu``
    its CPU time (this thread's: a busy machine stretches the one, not the other); when either
    runs out, or ``halt()`` turns true (another core has the answer), the result holds the
    bounds proven so far (``bounded``). ``bisect``: the order of the searches over k for r*
    (:func:`search_r`).

    Raises
    ------
    SolverUnavailable
        For an s question.
    """
    q = request.question
    if q.about_s:
        raise SolverUnavailable("the cores engine answers r questions only")
    began, cpu_start = time.perf_counter(), time.thread_time()
    nbrs = request.graph.in_neighbors
    n = len(nbrs)
    limit = request.time_limit if seconds is None else seconds

    def stop() -> bool:
        over = limit is not None and time.perf_counter() - began >= limit
        over = over or (halt is not None and halt())
        return over or (cpu is not None and time.thread_time() - cpu_start >= cpu)

    listener = request.listener

    def tell(lower: int, upper: int, witness: Witness | None) -> None:
        nonlocal listener
        if witness is not None and not refutes_r(nbrs, witness.s1, witness.s2, upper + 1):
            raise AssertionError("cores engine produced a witness that does not verify")
        if listener is not None:
            try:
                listener(lower, upper, "core search")
            except Exception:  # a display's bug must not end a proof: stop telling it
                listener = None

    if n < 2:
        lower, upper, witness = 0, 0, None
    else:
        masks = [sum(1 << j for j in s) for s in nbrs]
        lower, upper, witness = search_r(
            masks, target=q.target, stop=stop, tell=tell, bisect=bisect
        )
        tell(lower, upper, witness)  # a bounded search's last pair is checked here too
    if listener is not None:
        try:
            listener(lower, upper, "done")
        except Exception:  # a display's bug must not change a result
            pass
    return Result(
        question=q,
        status=Status.of(q, lower, upper, (n + 1) // 2),
        lower=lower,
        upper=upper,
        witness=witness,
        engine=NAME,
        formulation=None,
        wall_time=time.perf_counter() - began,
        engine_version="cores (pure Python)",
        params={"time_limit": limit, "cpu_limit": cpu, "bisect": bisect},
    )
