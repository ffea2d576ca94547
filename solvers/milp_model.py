"""One backend-neutral description of the robustness models, translated by each engine adapter.

Two formulations:

``published`` -- the MILPs of Usevitch & Panagou, "Determining r- and (r,s)-robustness of
digraphs using mixed integer linear programming", Automatica 111 (2020), kept as the baseline.
With the in-Laplacian ``L = D_in - A_in`` and set indicators ``b1, b2``:

- r*: ``min t`` s.t. ``L b1 <= t 1``, ``L b2 <= t 1``, ``b1 + b2 <= 1``,
  ``1 <= 1'b_k <= n - 1``, b binary, t integer (``(L b)_i`` is ``|N_i \\ S|`` for a member
  and ``<= 0`` otherwise, so the optimum is r*).
- s*_r (their second step, r fixed): indicators ``y_k`` of the r-reachable members,
  ``min s`` s.t. ``L b_k - n y_k <= (r - 1) 1``, ``y_k <= b_k``, ``1'b_k - 1'y_k >= 1`` (not
  every member r-reachable), ``1'y1 + 1'y2 <= s``, the same set constraints, s integer.
  Infeasible means no pair violates the first two conditions, so s*_r = n.

``strong`` -- decision models with enforcement literals, for one probe value p:

- r: is there a pair with ``reach <= p - 1`` on both sides? ``x_ki => sum_{j in N_i} x_kj >=
  d_i - p + 1`` (a member keeps all but p - 1 in-neighbours inside); ``x_ki => 1'x_k >=
  d_i - p + 2`` (size); nodes too large for any pair fixed to 0; the swap symmetry S1 <-> S2
  broken by ``1'x_1 <= 1'x_2``; and, optionally, maximality: a node in neither set must be
  p-reachable from outside each set (any pair can be grown to such a one without losing the
  property, see ``heuristics.maximal_pair``). Twin classes (``solvers.twins``) are
  aggregated: one integer count per class and set replaces the members' binaries.
- s: is there a pair, neither side all r-reachable, with ``1'y1 + 1'y2 <= p - 1``, where
  ``x_ki and not y_ki => sum_{j in N_i} x_kj >= d_i - r + 1``.

Infeasible proves the graph p-robust (r) or (r, p)-robust (s); feasible gives a witness pair.
A model records its variables, linear constraints with optional enforcement literals, objective
and solution hint; CP-SAT takes enforcement natively, the MILP adapters linearise it with
big-M coefficients computed from variable bounds (:meth:`Model.linearised`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from solvers.twins import TwinClass, twin_classes

__all__ = [
    "laplacian_row",
    "Var",
    "Constraint",
    "Model",
    "FORMULATIONS",
    "published_r",
    "published_s",
    "strong_r",
    "strong_s",
    "pair_from_values",
    "smaller_first",
    "least_first",
    "hint_pair",
    "published_r_below",
    "Outcome",
    "OUTCOMES",
]

OUTCOMES = ("optimal", "feasible", "infeasible", "unknown", "invalid")

FORMULATIONS = ("published", "strong")

INF = float("inf")


@dataclass(frozen=True)
class Outcome:
    """What an adapter returns for one model: a status from :data:`OUTCOMES`, never more.

    ``optimal``: proven optimal (for a feasibility model: a solution was found);
    ``feasible``: a solution, optimality not proven (time limit); ``infeasible``: proven;
    ``unknown``: stopped with no solution and no proof; ``invalid``: the solver rejected the
    model or failed. ``bound`` is the solver's proven lower bound on the objective, if any.
    """

    status: str
    values: list[float] | None
    bound: float | None
    seconds: float
    native: str


@dataclass(frozen=True)
class Var:
    """An integer variable with finite bounds (binary when ``lb, ub = 0, 1``)."""

    name: str
    lb: int
    ub: int


@dataclass(frozen=True)
class Constraint:
    """``lb <= sum(coef * var) <= ub``, enforced only when every ``(var, value)`` literal holds."""

    terms: tuple[tuple[int, int], ...]
    lb: float
    ub: float
    enforce: tuple[tuple[int, int], ...] = ()


@dataclass
class Model:
    """A minimisation (or feasibility, when ``objective`` is empty) model over integer variables.

    ``sets`` names the indicator variables of S1 and S2 so that any solution decodes to a pair.
    """

    name: str
    vars: list[Var] = field(default_factory=list)
    constraints: list[Constraint] = field(default_factory=list)
    objective: tuple[tuple[int, int], ...] = ()
    hint: dict[int, int] = field(default_factory=dict)
    sets: tuple[list[int], list[int]] = ((), ())  # type: ignore[assignment]
    """Per class, the variable counting its members in S1 and in S2 (a binary for a singleton)."""
    classes: list[tuple[int, ...]] = field(default_factory=list)
    """The nodes of each class (twin classes in the strong r model, singletons otherwise)."""
    flags: tuple[list[int], list[int]] = ((), ())  # type: ignore[assignment]
    """Per class, a binary that is 1 iff the class meets S1 (resp. S2)."""
    free: list[int] = field(default_factory=list)
    """Per class, a binary that is 1 iff a member is in neither set (maximal models only)."""
    tuning: dict[str, dict[str, object]] = field(default_factory=dict)
    """Per-engine solver parameters that suit this model, e.g. ``{"cpsat": {...}}``."""

    def var(self, name: str, lb: int = 0, ub: int = 1) -> int:
        self.vars.append(Var(name, lb, ub))
        return len(self.vars) - 1

    def add(
        self,
        terms: Sequence[tuple[int, int]],
        lb: float = -INF,
        ub: float = INF,
        enforce: Sequence[tuple[int, int]] = (),
    ) -> None:
        self.constraints.append(Constraint(_merged(terms), lb, ub, tuple(enforce)))

    def activity(self, terms: Sequence[tuple[int, int]]) -> tuple[int, int]:
        """Smallest and largest value of a linear expression over the variable bounds."""
        lo = hi = 0
        for v, c in terms:
            a, b = c * self.vars[v].lb, c * self.vars[v].ub
            lo += min(a, b)
            hi += max(a, b)
        return lo, hi

    def linearised(self) -> list[Constraint]:
        """The constraints with enforcement literals replaced by big-M terms.

        ``[lits] => lb <= e`` becomes ``e + sum_l M (1 - l) >= lb`` with ``M = lb - min(e)``
        (a literal on value 0 contributes ``M l``); likewise for ``ub``. Exact for binaries.
        """
        out: list[Constraint] = []
        for c in self.constraints:
            if not c.enforce:
                out.append(c)
                continue
            lo, hi = self.activity(c.terms)
            if c.lb > -INF and c.lb > lo:
                out.append(_relaxed(c.terms, c.lb - lo, c.lb, c.enforce, lower=True))
            if c.ub < INF and c.ub < hi:
                out.append(_relaxed(c.terms, hi - c.ub, c.ub, c.enforce, lower=False))
        return out


def _relaxed(terms, big_m, rhs, enforce, *, lower: bool) -> Constraint:
    sign = 1 if lower else -1
    extra: list[tuple[int, int]] = []
    constant = 0
    for v, value in enforce:
        # lower: e + M*(1 - x) >= rhs  ->  e - M x >= rhs - M ; value 0 literal: e + M x >= rhs
        if value == 1:
            extra.append((v, -sign * int(big_m)))
            constant += big_m
        else:
            extra.append((v, sign * int(big_m)))
    if lower:
        return Constraint(_merged(tuple(terms) + tuple(extra)), rhs - constant, INF)
    return Constraint(_merged(tuple(terms) + tuple(extra)), -INF, rhs + constant)


def _merged(terms: Sequence[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """One term per variable (coefficients added, zeros dropped), in first-seen order."""
    acc: dict[int, int] = {}
    for v, c in terms:
        acc[v] = acc.get(v, 0) + c
    return tuple((v, c) for v, c in acc.items() if c != 0)


def _set_vars(m: Model, n: int) -> tuple[list[int], list[int]]:
    b1 = [m.var(f"b1_{i}") for i in range(n)]
    b2 = [m.var(f"b2_{i}") for i in range(n)]
    m.sets = m.flags = (b1, b2)
    m.classes = [(i,) for i in range(n)]
    for i in range(n):
        m.add([(b1[i], 1), (b2[i], 1)], ub=1)
    return b1, b2


def _proper_nonempty(m: Model, b: Sequence[int]) -> None:
    """``1 <= 1'b <= n - 1`` as two rows: ``1'b >= 1`` alone is a clause to CP-SAT, which then
    propagates it as one. As a single ranged row it stayed a linear constraint, and the
    published model on CP-SAT (one worker) took 20-31 s instead of 0.44 s to prove r* of a
    random 8-regular graph on 80 nodes (networkx seed 1002), 1.6 s instead of 1.2 s on issue
    32's (seed 8105; 2026-12-02)."""
    m.add([(bi, 1) for bi in b], lb=1)
    m.add([(bi, 1) for bi in b], ub=len(b) - 1)


def laplacian_row(in_neighbors: Sequence[frozenset[int]], i: int) -> list[tuple[int, int]]:
    """Row ``i`` of the in-Laplacian ``L = D_in - A`` (Usevitch & Panagou 2020; the matrix is
    ``solvers.arrays.in_laplacian``) as its nonzero ``(column, coefficient)`` pairs by column:
    ``(L b)_i = |N_i \\ S|`` for a member i of S. O(|N_i| log |N_i|) and no numpy: the lane's child
    (``solvers.lane``) builds the published model without importing it (issue 40, round 7: numpy
    was 0.04-0.08 s of the child's 0.17 s of start-up CPU).

    Examples
    --------
    >>> laplacian_row([frozenset({1, 2}), frozenset({0}), frozenset()], 0)
    [(0, 2), (1, -1), (2, -1)]
    """
    coef = dict.fromkeys(in_neighbors[i], -1)
    coef[i] = coef.get(i, 0) + len(in_neighbors[i])
    return [(j, c) for j, c in sorted(coef.items()) if c != 0]


def published_r(in_neighbors: Sequence[frozenset[int]]) -> Model:
    """Usevitch & Panagou's MILP for r* (optimum = r*). Needs n >= 2."""
    n = len(in_neighbors)
    lap = [laplacian_row(in_neighbors, i) for i in range(n)]
    m = Model("published-r")
    b1, b2 = _set_vars(m, n)
    t = m.var("t", 0, n)
    for b in (b1, b2):
        _proper_nonempty(m, b)
        for i in range(n):
            row = [(b[j], coef) for j, coef in lap[i]]
            m.add(row + [(t, -1)], ub=0)
    m.objective = ((t, 1),)
    return m


def published_r_below(
    in_neighbors: Sequence[frozenset[int]],
    upper: int,
    hint: tuple[frozenset[int], frozenset[int]] | None = None,
    *,
    least: bool = False,
) -> Model:
    """:func:`published_r` with ``t <= upper`` (a proven upper bound on r*, so no optimum is cut
    off) and, when given, ``hint`` (a pair of value ``upper``) as the solution hint, ``t`` too;
    with ``least``, the swap symmetry broken by :func:`least_first` (the hint oriented to it).
    With its objective removed and ``upper`` a value asked rather than proven, it is the decision
    "is there a pair of value at most ``upper``?" (``search.published_below``).

    Examples
    --------
    >>> path = [frozenset({1}), frozenset({0, 2}), frozenset({1})]
    >>> m = published_r_below(path, 1, (frozenset({0}), frozenset({2})))
    >>> t = [v.name for v in m.vars].index("t")
    >>> m.constraints[-1].ub, m.hint[t]
    (1, 1)
    """
    m = published_r(in_neighbors)
    t = [v.name for v in m.vars].index("t")
    m.add([(t, 1)], ub=upper)
    if hint is not None:
        hint_pair(m, hint)
        m.hint[t] = upper
    if least:
        least_first(m)
    return m


def published_s(in_neighbors: Sequence[frozenset[int]], r: int) -> Model:
    """Usevitch & Panagou's second-step MILP for s*_r (optimum = s*_r; infeasible: s*_r = n)."""
    n = len(in_neighbors)
    lap = [laplacian_row(in_neighbors, i) for i in range(n)]
    m = Model("published-s")
    b1, b2 = _set_vars(m, n)
    y1 = [m.var(f"y1_{i}") for i in range(n)]
    y2 = [m.var(f"y2_{i}") for i in range(n)]
    s = m.var("s", 0, 2 * n)
    for b, y in ((b1, y1), (b2, y2)):
        _proper_nonempty(m, b)
        m.add([(bi, 1) for bi in b] + [(yi, -1) for yi in y], lb=1)
        for i in range(n):
            row = [(b[j], coef) for j, coef in lap[i]]
            m.add(row + [(y[i], -n)], ub=r - 1)
            m.add([(y[i], 1), (b[i], -1)], ub=0)
    m.add([(yi, 1) for yi in y1 + y2] + [(s, -1)], ub=0)
    m.objective = ((s, 1),)
    return m


def smaller_first(m: Model) -> None:
    """Swap symmetry: S1 is the smaller set, ``sum y1 <= sum y2``.

    Any pair can be swapped to satisfy it. On dense graphs, where the sets of a witness are
    nearly a bisection, it proves infeasible probes 2-3x faster than fixing the side of the
    lowest-degree node (G(40, 1/2), three seeds: 16 -> 10 s, 34 -> 7 s, 16 -> 6 s).
    """
    y1, y2 = m.sets
    m.add([(y, 1) for y in y1] + [(y, -1) for y in y2], ub=0)


def least_first(m: Model) -> None:
    """Swap symmetry of a model over one binary per node (``m.sets``): the least-index node of
    S1 u S2 is in S1.

    The model's rows treat S1 and S2 alike (r-reachability asks the same of both sets), so
    swapping the sets of a solution gives a solution of the same value: no optimum is cut
    off. Written in O(n) rows with prefix flags ``a_i`` (``a_i = 1`` only if a node before i is
    in S1): ``a_0 = 0``, ``a_{i+1} <= a_i + b1_i`` and ``b2_i <= a_i``. A hint on the sets
    (:func:`hint_pair`) is swapped to satisfy it and the flags are hinted too. Issue 40, round
    4: on the hinted published model of random 6-regular graphs of 80 nodes (scratch seeds
    7233-7240, CP-SAT with one worker) the optimum was proved in 7.2 s in all instead of
    12.6 s, faster on 7 of 8 (docs/performance.md, "Issue 40, round 4").

    Examples
    --------
    >>> path = [frozenset({1}), frozenset({0, 2}), frozenset({1})]
    >>> m = published_r(path)
    >>> hint_pair(m, (frozenset({2}), frozenset({0})))
    (frozenset({2}), frozenset({0}))
    >>> least_first(m)
    >>> b1, b2 = m.sets
    >>> m.hint[b1[0]], m.hint[b2[2]]
    (1, 1)
    """
    b1, b2 = m.sets
    n = len(b1)
    if m.hint and any(m.hint.get(b2[i]) for i in range(n)):
        first = min(i for i in range(n) if m.hint.get(b1[i]) or m.hint.get(b2[i]))
        if m.hint.get(b2[first]):  # the hinted pair, swapped
            for i in range(n):
                m.hint[b1[i]], m.hint[b2[i]] = m.hint.get(b2[i], 0), m.hint.get(b1[i], 0)
    a = [m.var(f"a_{i}", 0, 0 if i == 0 else 1) for i in range(n)]
    for i in range(n):
        m.add([(b2[i], 1), (a[i], -1)], ub=0)
        if i + 1 < n:
            m.add([(a[i + 1], 1), (a[i], -1), (b1[i], -1)], ub=0)
    if m.hint:
        seen = 0
        for i in range(n):
            m.hint[a[i]] = seen
            seen |= int(m.hint.get(b1[i], 0))


def _count_vars(m: Model, classes: Sequence[TwinClass]) -> tuple[list[int], ...]:
    """Per class and side: the count ``y`` of members in the set and ``u = [y >= 1]``.

    A singleton class uses one binary for both. Also ``y1 + y2 <= |class|``.
    """
    m.classes = [c.members for c in classes]
    y1, y2, u1, u2 = [], [], [], []
    for k, c in enumerate(classes):
        for y, u, side in ((y1, u1, 1), (y2, u2, 2)):
            if c.size == 1:
                y.append(m.var(f"b{side}_{c.members[0]}"))
                u.append(y[-1])
            else:
                y.append(m.var(f"y{side}_{k}", 0, c.size))
                u.append(m.var(f"u{side}_{k}"))
                m.add([(y[-1], 1), (u[-1], -1)], lb=0)
                m.add([(y[-1], 1), (u[-1], -c.size)], ub=0)
        m.add([(y1[k], 1), (y2[k], 1)], ub=c.size)
    m.sets, m.flags = (y1, y2), (u1, u2)
    return y1, y2, u1, u2


def strong_r(
    in_neighbors: Sequence[frozenset[int]],
    probe: int,
    *,
    hint: tuple[frozenset[int], frozenset[int]] | None = None,
    maximal: bool = True,
    classes: Sequence[TwinClass] | None = None,
) -> Model:
    """Is there a pair with ``max(reach(S1), reach(S2)) <= probe - 1``? Infeasible: r* >= probe.

    Variables count the members of each twin class in each set (``solvers.twins``; a
    singleton's count is its binary indicator), so interchangeable nodes are never branched on
    one by one. A member of class c in S keeps ``need_c = d_c - probe + 1`` in-neighbours inside
    S: ``[y_c >= 1] => sum_{h heard by c} y_h (+ y_c - 1 if c is a clique) >= need_c``.
    """
    n = len(in_neighbors)
    classes = twin_classes(in_neighbors) if classes is None else classes
    m = Model(f"strong-r{probe}")
    # infeasible probes (the common, hard case) are proved far faster with CP-SAT's full LP
    m.tuning["cpsat"] = {"linearization_level": 2}
    y1, y2, u1, u2 = _count_vars(m, classes)
    deg = [len(in_neighbors[c.members[0]]) for c in classes]
    need = [d - probe + 1 for d in deg]  # in-neighbours a member keeps inside its set
    smallest = max(1, min(need) + 1)  # no set can be smaller
    for y, u in ((y1, u1), (y2, u2)):
        m.add([(yc, 1) for yc in y], lb=smallest, ub=n - smallest)
        for k, c in enumerate(classes):
            if need[k] + 1 + smallest > n:  # a member's set plus the other set exceed n nodes
                m.add([(u[k], 1)], ub=0)
                continue
            own = [(y[k], 1)] if c.complete else []
            if need[k] > 0:
                heard = [(y[h], 1) for h in c.hears] + own
                m.add(heard, lb=need[k] + int(c.complete), enforce=[(u[k], 1)])
            if need[k] + 1 > smallest:
                m.add([(yc, 1) for yc in y], lb=need[k] + 1, enforce=[(u[k], 1)])
    smaller_first(m)
    if maximal:
        _maximal_classes(m, classes, deg, probe)
    if hint is not None:
        hint_pair(m, hint)
    return m


def _maximal_classes(m: Model, classes: Sequence[TwinClass], deg: Sequence[int], r: int) -> None:
    """A node in neither set has at least r in-neighbours outside each set.

    ``g_c`` says class c has a member in neither set (``y1 + y2 + g <= |c|`` and
    ``y1 + y2 + |c| g >= |c|``); such a member hears ``sum_h y_h (+ y_c if c is a clique)``
    nodes of each set.
    """
    y1, y2 = m.sets
    for k, c in enumerate(classes):
        free = m.var(f"f_{k}")
        m.free.append(free)
        m.add([(y1[k], 1), (y2[k], 1), (free, 1)], ub=c.size)
        m.add([(y1[k], 1), (y2[k], 1), (free, c.size)], lb=c.size)
        for y in (y1, y2):
            own = [(y[k], 1)] if c.complete else []
            m.add([(y[h], 1) for h in c.hears] + own, ub=deg[k] - r, enforce=[(free, 1)])


def strong_s(
    in_neighbors: Sequence[frozenset[int]],
    r: int,
    probe: int,
    *,
    hint: tuple[frozenset[int], frozenset[int]] | None = None,
    maximal: bool = False,
) -> Model:
    """Is there a pair, neither side all r-reachable, with at most ``probe - 1`` reachable nodes?"""
    n = len(in_neighbors)
    deg = [len(s) for s in in_neighbors]
    m = Model(f"strong-s{probe}")
    b1, b2 = _set_vars(m, n)
    y1 = [m.var(f"y1_{i}") for i in range(n)]
    y2 = [m.var(f"y2_{i}") for i in range(n)]
    for b, y in ((b1, y1), (b2, y2)):
        m.add([(bi, 1) for bi in b], lb=1, ub=n - 1)
        m.add([(bi, 1) for bi in b] + [(yi, -1) for yi in y], lb=1)
        for i in range(n):
            m.add([(y[i], 1), (b[i], -1)], ub=0)
            need = deg[i] - r + 1
            if need > 0:  # an unreachable member keeps all but r - 1 in-neighbours inside
                m.add([(b[j], 1) for j in in_neighbors[i]], lb=need, enforce=[(b[i], 1), (y[i], 0)])
                m.add([(bj, 1) for bj in b], lb=need + 1, enforce=[(b[i], 1), (y[i], 0)])
            # y is exact: a counted member has at least r in-neighbours outside its set
            m.add([(b[j], 1) for j in in_neighbors[i]], ub=deg[i] - r, enforce=[(y[i], 1)])
    m.add([(yi, 1) for yi in y1 + y2], ub=probe - 1)
    smaller_first(m)
    if maximal:  # a free node could join a set as one more unreachable member, lowering |X|
        singletons = [TwinClass((i,), False, tuple(sorted(in_neighbors[i]))) for i in range(n)]
        _maximal_classes(m, singletons, deg, r)
    if hint is not None:
        for y, side in zip((y1, y2), hint_pair(m, hint), strict=True):
            for i in range(n):
                m.hint[y[i]] = int(i in side and len(in_neighbors[i] - side) >= r)
    return m


def hint_pair(
    m: Model, pair: tuple[frozenset[int], frozenset[int]]
) -> tuple[frozenset[int], frozenset[int]]:
    """Hint the class counts with ``pair`` (smaller set first); returns the pair."""
    s1, s2 = pair if len(pair[0]) <= len(pair[1]) else pair[::-1]
    for k, members in enumerate(m.classes):
        counts = [len(set(members) & side) for side in (s1, s2)]
        for y, u, count in zip(m.sets, m.flags, counts, strict=True):
            m.hint[y[k]] = count
            m.hint[u[k]] = int(count > 0)
        if m.free:
            m.hint[m.free[k]] = int(len(members) > sum(counts))
    return s1, s2


def pair_from_values(m: Model, values: Sequence[float]) -> tuple[frozenset[int], frozenset[int]]:
    """Decode S1 and S2 from a solution vector (values rounded to the nearest integer)."""
    s1: set[int] = set()
    s2: set[int] = set()
    for k, members in enumerate(m.classes):
        c1, c2 = (round(values[y[k]]) for y in m.sets)
        s1.update(members[:c1])
        s2.update(members[c1 : c1 + c2])
    return frozenset(s1), frozenset(s2)
