"""A fast exact decision oracle for r-robustness, built for the many checks of a design search.

Graphs are lists of in-neighbour bitmasks (bit j of ``masks[i]`` set iff j -> i). The oracle
rests on three facts (LeBlanc et al. 2013, Def. 6: S is r-reachable if some i in S has at least r
in-neighbours outside S):

1. Sets that are *not* r-reachable ("closed" sets below) are closed under union: a member of S
   has no more in-neighbours outside ``S | T`` than outside S. So every node set X holds a largest
   closed subset, ``peel(X)``: repeatedly drop members with r or more in-neighbours outside.
2. G is not r-robust iff some split (X, V \\ X) has ``peel(X)`` and ``peel(V \\ X)`` both
   nonempty (given a witness (S1, S2), take X = V \\ S2).
3. ``peel`` is monotone. A branch and bound over splits therefore keeps two proven supersets,
   ``PA = peel(A | U)`` and ``PB = peel(B | U)`` (A, B: nodes placed; U: unplaced), prunes when
   either is empty, stops with a witness when they are disjoint, and otherwise branches on a node
   of their intersection. Swapping twin nodes (same in- and out-neighbours) is an automorphism,
   so a node sent to B takes its unplaced twins along.

After a graph change that only removes in-neighbours (``removed``: pairs (w, x), node w no longer
hears x), a new witness must contain some such w in one set, with x outside it, whose own count
fell below r: that set was r-reachable before only through w. The search then fixes w in A and
x in B and prunes when w leaves ``PA``, which makes the check after one edge removal far cheaper
than a full check. Every answer is exact: a witness is a checked pair, ``None`` a completed
search. Only a node budget or a deadline can stop a search early, and then the answer is
:data:`UNKNOWN`.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from solvers.twins import twin_groups

__all__ = [
    "UNKNOWN",
    "Unknown",
    "Pair",
    "peel",
    "is_closed",
    "out_masks",
    "twin_masks",
    "find_pair",
    "widest_pair",
    "check_after_removal",
    "WitnessPool",
]

Pair = tuple[int, int]
"""A witness as two disjoint nonempty bitmasks, neither set r-reachable."""

_BRANCHINGS = ("degree", "overlap")


class Unknown:
    """The answer of a search stopped by its budget or deadline (neither proof nor witness)."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = Unknown()


def _bits(mask: int) -> Iterable[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def out_masks(masks: Sequence[int]) -> list[int]:
    """Out-neighbour bitmasks from in-neighbour bitmasks (the same list for an undirected graph)."""
    outs = [0] * len(masks)
    for i, m in enumerate(masks):
        for j in _bits(m):
            outs[j] |= 1 << i
    return outs


def peel(masks: Sequence[int], outs: Sequence[int], r: int, x: int, todo: int | None = None) -> int:
    """The largest subset of ``x`` that is not r-reachable (0 if there is none).

    Drops every member with at least r in-neighbours outside the current set, then rechecks only
    the out-neighbours of dropped nodes, until nothing changes. ``todo`` limits the first round
    to those members: pass the out-neighbours of R when ``x`` is a peeled set minus R.

    Examples
    --------
    >>> path = [0b010, 0b101, 0b010]  # 0 - 1 - 2
    >>> bin(peel(path, path, 1, 0b011)), peel(path, path, 2, 0b001)
    ('0b0', 1)

    Notes
    -----
    O(n + m) big-integer operations.
    """
    todo = x if todo is None else todo & x
    while todo:
        dropped = 0
        for i in _bits(todo):
            if (masks[i] & ~x).bit_count() >= r:
                dropped |= 1 << i
        if not dropped:
            return x
        x &= ~dropped
        todo = 0
        for i in _bits(dropped):
            todo |= outs[i]
        todo &= x
    return x


def is_closed(masks: Sequence[int], r: int, s: int) -> bool:
    """True iff the nonempty set ``s`` is not r-reachable: every member hears < r nodes outside."""
    return bool(s) and all((masks[i] & ~s).bit_count() < r for i in _bits(s))


def twin_masks(masks: Sequence[int], outs: Sequence[int], exclude: int = 0) -> list[int]:
    """For each node, the bitmask of its twins: nodes it can swap with by an automorphism.

    i and j are twins when ``in(i) - j == in(j) - i``, ``out(i) - j == out(j) - i`` and the arcs
    between them are symmetric. Nodes in ``exclude`` have no twins (they are fixed by the caller).
    """
    twins = [0] * len(masks)
    for group, _ in twin_groups(masks, outs):
        members = group & ~exclude  # dropping fixed nodes leaves the others pairwise twins
        if members & (members - 1):
            for i in _bits(members):
                twins[i] |= members & ~(1 << i)
    return twins


@dataclass
class _Search:
    masks: Sequence[int]
    outs: Sequence[int]
    r: int
    anchor: int  # bit of the node that must stay in PA (0: no such node)
    twins: list[int]
    budget: int
    branching: str
    deadline: float | None = None
    nodes: int = 0

    def peel(self, x: int, removed: int | None = None) -> int:
        """``peel(x)``; with ``removed``, x is a peeled set minus ``removed`` (incremental)."""
        if removed is None:
            return peel(self.masks, self.outs, self.r, x)
        todo = 0
        for i in _bits(removed):
            todo |= self.outs[i]
        return peel(self.masks, self.outs, self.r, x & ~removed, todo)

    def alive_a(self, pa: int) -> bool:
        return bool(pa) and (not self.anchor or bool(pa & self.anchor))

    def choose(self, inter: int) -> int:
        best_score, best = None, -1
        for i in _bits(inter):
            if self.branching == "degree":
                score = -self.masks[i].bit_count()
            else:
                score = (self.masks[i] & inter).bit_count()
            if best_score is None or score > best_score:
                best_score, best = score, i
        return best

    def run(self, a: int, b: int, full: int) -> Pair | None | Unknown:
        free = full & ~(a | b)
        # Each stack entry carries its peels: a child differs from its parent by nodes leaving
        # one side's candidate set, so only that side is re-peeled, incrementally.
        stack = [(a, b, self.peel(a | free), self.peel(b | free))]
        while stack:
            a, b, pa, pb = stack.pop()
            self.nodes += 1
            if self.nodes > self.budget:
                return UNKNOWN
            if (
                self.deadline is not None
                and not self.nodes % 256
                and time.monotonic() > self.deadline
            ):
                return UNKNOWN
            if not self.alive_a(pa) or not pb:
                continue
            inter = pa & pb
            if not inter:
                return pa, pb
            # Contested nodes may all go to one side: if the other side's core survives without
            # them, it is disjoint from this side's core and the pair is a witness already.
            qa = self.peel(pa, inter)
            if self.alive_a(qa):
                return qa, pb
            qb = self.peel(pb, inter)
            if qb:
                return pa, qb
            i = self.choose(inter)
            bit = 1 << i
            free = full & ~(a | b)
            to_b = bit | (self.twins[i] & free)
            stack.append((a, b | to_b, self.peel(pa, to_b), pb))
            stack.append((a | bit, b, pa, self.peel(pb, bit)))
        return None


def find_pair(
    masks: Sequence[int],
    r: int,
    *,
    removed: Iterable[tuple[int, int]] | None = None,
    budget: int = 200_000,
    branching: str | None = None,
    deadline: float | None = None,
) -> Pair | None | Unknown:
    """A witness that the graph is not r-robust, ``None`` if it is, or :data:`UNKNOWN`.

    Parameters
    ----------
    masks : sequence of int
        In-neighbour bitmasks.
    r : int
        The robustness to decide, r >= 1.
    removed : iterable of (w, x), optional
        The graph was r-robust before node w stopped hearing x, for each pair (and any edges added
        since only help). The search then only looks for witnesses that the removals created.
        ``None``: a full check, with no assumption about an earlier graph.
    budget : int
        Most branch-and-bound nodes to visit over all sub-searches before answering UNKNOWN.
    branching : {"degree", "overlap"}, optional
        Which contested node to branch on: smallest degree, or most neighbours among the
        contested nodes. ``None`` runs both in turn with doubling budgets (a portfolio), which
        guards against either rule's bad cases.
    deadline : float, optional
        ``time.monotonic()`` value after which the search answers UNKNOWN.

    Returns
    -------
    (int, int) or None or UNKNOWN
        Two disjoint nonempty bitmasks, neither r-reachable; or None when the graph is proven
        r-robust (given the ``removed`` premise); or UNKNOWN when the budget ran out or the
        deadline passed.

    Raises
    ------
    ValueError
        Fewer than two nodes, or an unknown branching rule.

    Examples
    --------
    >>> k4 = [0b1110, 0b1101, 0b1011, 0b0111]
    >>> find_pair(k4, 2) is None, find_pair(k4, 3) is None
    (True, False)

    Notes
    -----
    Worst case exponential (the problem is coNP-complete, Zhang, Fata & Sundaram 2015); a
    budgeted search costs O(budget (n + m)) big-integer operations.

    References
    ----------
    LeBlanc, Zhang, Koutsoukos & Sundaram, IEEE JSAC 31(4), 2013, Def. 6.
    """
    n = len(masks)
    if n < 2:
        raise ValueError("robustness pairs need at least two nodes")
    if r <= 0:
        return None
    if branching is not None and branching not in _BRANCHINGS:
        raise ValueError(f"branching must be one of {_BRANCHINGS}")
    outs = out_masks(masks)
    full = (1 << n) - 1
    if removed is None:
        jobs = [(0, 1, 0)]  # (anchor bit, A, B): node 0 on side A, as splits are unordered
    else:
        jobs = [(1 << w, 1 << w, 1 << x) for w, x in sorted(set(removed))]
    twins = [twin_masks(masks, outs, exclude=a | b) for _, a, b in jobs]
    rules = [branching] if branching else list(_BRANCHINGS)
    # Smallest-degree branching wins on most graphs we measured; "overlap" gets a quarter of
    # each round as insurance against its bad cases.
    weights = {"degree": 3, "overlap": 1} if len(rules) > 1 else {rules[0]: 4}
    share = max(1, budget // (8 * len(jobs)))
    pending = list(range(len(jobs)))
    spent = 0
    while pending:
        still = []
        for k in pending:
            anchor, a, b = jobs[k]
            for rule in rules:
                search = _Search(
                    masks, outs, r, anchor, twins[k], share * weights[rule], rule, deadline
                )
                answer = search.run(a, b, full)
                spent += search.nodes
                if answer is not UNKNOWN:
                    break
            if answer is UNKNOWN:
                still.append(k)
            elif answer is not None:
                return answer
        pending = still
        if pending and (spent >= budget or (deadline is not None and time.monotonic() > deadline)):
            return UNKNOWN
        share *= 2
    return None


def widest_pair(masks: Sequence[int], r: int, pair: Pair) -> Pair:
    """A witness grown from ``pair`` until neither side can grow: S2 becomes ``peel(V - S1)``
    and S1 becomes ``peel(V - S2)``, in turn, until both stay as they are.

    Each step keeps a witness: ``peel(V - S1)`` is the largest set disjoint from S1 that is not
    r-reachable, so it holds S2 (fact 1 of the module notes: not r-reachable sets are closed
    under union, LeBlanc et al. 2013, Def. 6), and likewise for S1; the sides only grow, so the
    loop ends. A wider pair leaves fewer nodes outside both sides, whose missing pairs every
    pair clause of the minimality search must list (docs/design.md, "The degree-sequence
    split": measured, it shortens the clauses and cuts the search's models).

    Examples
    --------
    >>> path = [0b0010, 0b0101, 0b1010, 0b0100]  # 0 - 1 - 2 - 3
    >>> widest_pair(path, 2, (0b0001, 0b1000)) == (0b0001, 0b1110)
    True

    Notes
    -----
    At most n + 1 rounds of two peels: O(n (n + m)) big-integer operations.
    """
    outs = out_masks(masks)
    full = (1 << len(masks)) - 1
    s1, s2 = pair
    while True:
        t2 = peel(masks, outs, r, full & ~s1)
        t1 = peel(masks, outs, r, full & ~t2)
        if (t1, t2) == (s1, s2):
            return s1, s2
        s1, s2 = t1, t2


def check_after_removal(
    masks: Sequence[int],
    r: int,
    removed: Iterable[tuple[int, int]],
    *,
    budget: int = 200_000,
    deadline: float | None = None,
) -> Pair | None | Unknown:
    """:func:`find_pair` for a graph that was r-robust before the listed removals, with a cheap
    refutation first: a node w that now hears fewer than r nodes makes ({w}, V - {w}) a witness
    when r >= 2 (the other side's members hear at most w outside). For r = 1 that pair is checked,
    since a root of a digraph may hear no one."""
    removed = list(removed)
    for w, _ in removed:
        if masks[w].bit_count() < r:
            pair = 1 << w, ((1 << len(masks)) - 1) & ~(1 << w)
            if is_closed(masks, r, pair[1]):
                return pair
    return find_pair(masks, r, removed=removed, budget=budget, deadline=deadline)


class WitnessPool:
    """Recent witnesses, tried first on new candidates: a cheap refutation before any search.

    A pair that refuted one candidate often refutes the next, since search moves change few
    edges. ``find`` checks each stored pair on the candidate in O(n) big-integer operations.
    """

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self.pairs: list[Pair] = []

    def add(self, pair: Pair) -> None:
        if pair in self.pairs:
            self.pairs.remove(pair)
        self.pairs.insert(0, pair)
        del self.pairs[self.size :]

    def find(self, masks: Sequence[int], r: int) -> Pair | None:
        for k, (s1, s2) in enumerate(self.pairs):
            if is_closed(masks, r, s1) and is_closed(masks, r, s2):
                if k:
                    self.pairs.insert(0, self.pairs.pop(k))
                return s1, s2
        return None
