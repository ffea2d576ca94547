"""An LRAT refutation of the r-robustness CNF from the core search's own tree (no SAT solver).

One module: the tree walk, its unit propagation with reasons and the lemma writer share the
clause numbering of one proof, which splitting would pass between modules line by line.

The core search (``solvers/cores.py``) refutes "two disjoint members of F_k exist", k = r - 1,
by a search tree whose deductions are, but for two, unit propagation on the CNF of :mod:`.cnf`
(clauses numbered as there): *peeling* a node u out of A is the Sinz counter of u
(``x_u -> at most k of -x_j, j in N_u``) meeting k + 1 excluded in-neighbours, so ``-x_u``;
*forcing* (a member x of A whose in-neighbours still allowed in A are exactly ``d_x - k``) is
the same counter with k excluded, so every other in-neighbour is in A; a member of A is out of
B by clause 1. Hall's condition (x in A and y in B need ``need_x + need_y`` distinct
in-neighbours) is sound but not unit propagation: it is proven by cases on the nodes both may
use, with one lemma per (node, how many went to A) stated on the two counters' registers
(:meth:`_Tree.hall`). "Pulled" (a maximality argument: it drops pairs, it implies nothing) is
left out; the tree branches instead, in the core search's branching order.

Each deduction becomes one RUP lemma ``l or not D``, where D is the set of decisions it rests
on (tracked as a bitmask, as in conflict analysis) and the hints are the lemmas of the literals
it uses, then the counter's clauses along one register path (``O(d)`` of them), then the clause
that turns false. A failed node gives ``not D``; an inner node deciding v resolves its two
children's clauses on v (two hints), or keeps one child's clause when that one did not use v
(and then skips the other child). A lemma met twice (the same literal on the same decisions)
is written once. Clause 1's deduction (``x_v``, so ``-y_v``) gets no lemma of its own: the
steps that use it hint ``x_v``'s lemma and clause 1 of v in its place (each hint once), which
cut the written steps by 13% on ER(40, 1/2) at r = 10 (issue 40, round 6).

The search names the first node a of ``A | B`` in its own order (by in-degree), which was not
the order of clause 3 in encoding ``robustgraph-cnf-1``, so clause 3 is not used: the refutation
covers both orientations (taking a in canonical order instead, so that clause 3 refutes "a is in
B", grew that tree from 11,650 to 86,727 nodes: the search order tries the most constrained
roots first). In ``robustgraph-cnf-2`` clause 3 is in the search order, so it could refute "a is
in B" in one step and the mirror below could go; not done (issue 40, round 8).

With ``E_t`` = "the first t nodes (search order) are in neither set", it refutes
``E_t and x_a`` by the chain over the first node b of B (``y_b``, else ``-y_b`` and the next
b), the last link ``-y_b`` for every b being clause 2 of y; ``E_t and y_a`` is the same tree
with x and y (and the two sides' counters, and clause 2 of x and of y) swapped, so its lemmas
are written a second time with that renaming. ``not E_t`` follows from the two and
``not E_{t+1}``, ``not E_n`` is clause 2 of x, and ``not E_0`` is the empty clause.

Last, only the lemmas the empty clause reaches (through hints) are written, numbered in order.
The result is a plain LRAT refutation of the same CNF: the verifier (:mod:`.lrat`) checks it
unchanged, nothing is added to the trust base.

References
----------
C. Sinz, "Towards an optimal CNF encoding of Boolean cardinality constraints", CP 2005.
L. Cruz-Filipe et al., "Efficient certified RAT verification", CADE 2017 (LRAT).
H. J. LeBlanc et al., "Resilient asymptotic consensus in robust networks", IEEE JSAC 31(4), 2013.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Sequence

from robustgraph.certificate.proofs.cnf import Cnf, encode
from solvers.cores import OutOfTime, order_by_in_degree, pair_within

__all__ = ["ENCODING", "Refuted", "dry_run", "refute", "small_tree"]

ENCODING = "robustgraph-cnf-2"
"""The CNF the tree's lemmas refute: their hints name the sequential counters' clauses, so the
tree stays on ``robustgraph-cnf-2`` when CaDiCaL's proofs move to another encoding."""

_CHECK_EVERY = 256
"""Search nodes between two calls of ``stop``."""

Fact = tuple[int, int | tuple[int, ...] | None]
"""A literal's justification on the current path: (decision bitmask, lemma index, or the hints
that derive it inside the step that uses it, or None for a decision)."""


class Satisfiable(Exception):
    """The search met two disjoint cores: the graph is not r-robust (no refutation exists)."""


class Refuted:
    """The refutation's text and its counts: ``lemmas`` the tree's lemmas before trimming,
    ``nodes`` the search nodes."""

    def __init__(self, text: bytes, lemmas: int, nodes: int) -> None:
        self.text = text
        self.lemmas = lemmas
        self.nodes = nodes


class _Counters:
    """Clause ids of the Sinz counters of :func:`.cnf.encode` (s = 1), found by looking up the
    clauses the counter must contain: a mismatch with the encoding is a KeyError, not a proof
    the checker would reject later."""

    def __init__(self, nbrs: Sequence[Sequence[int]], k: int, cnf: Cnf) -> None:
        n = len(nbrs)
        self.n, self.k, self.nbrs = n, k, nbrs
        self.ids = {clause: cid for cid, clause in enumerate(cnf.clauses, 1)}
        self.base: list[list[int]] = [[0] * n, [0] * n]
        top = 2 * n
        for side in (0, 1):
            for i in range(n):
                self.base[side][i] = top
                d = len(nbrs[i])
                if k >= 1 and d > k:
                    top += sum(min(p + 1, k) for p in range(d - 1))
            if side == 0:
                self.registers = top - 2 * n  # per side: the mirror adds or takes this many
        self.offsets = [self._offsets(len(nb)) for nb in nbrs]

    def _offsets(self, d: int) -> list[int]:
        out, total = [], 0
        for p in range(max(d - 1, 0)):
            out.append(total)
            total += min(p + 1, self.k)
        return out

    def lit(self, side: int, i: int, p: int) -> int:
        """The variable of position p of node i's counter on ``side`` (x_j or y_j: the counter's
        literal there is its negation)."""
        return side * self.n + self.nbrs[i][p] + 1

    def reg(self, side: int, i: int, p: int, count: int) -> int:
        """The register "at least ``count`` of positions 0..p are true" (count >= 1)."""
        return self.base[side][i] + self.offsets[i][p] + count

    def step(self, side: int, i: int, p: int, count: int, true: bool) -> int:
        """The clause that moves the count past position p: with ``count`` true before p (its
        register true), p true or not; ``count + true == k + 1`` is the overflow clause, false
        when the guard is."""
        ids, lit = self.ids, self.lit(side, i, p)
        if not true:
            return ids[(-self.reg(side, i, p - 1, count), self.reg(side, i, p, count))]
        if count == self.k:
            member = side * self.n + i + 1
            if count == 0:
                return ids[(-member, lit)]
            return ids[(-member, lit, -self.reg(side, i, p - 1, count))]
        if count == 0:
            return ids[(lit, self.reg(side, i, p, 1))]
        return ids[(lit, -self.reg(side, i, p - 1, count), self.reg(side, i, p, count + 1))]

    def walk(
        self, side: int, i: int, start: int, count: int, end: int, true: set[int]
    ) -> tuple[list[int], int]:
        """The clauses from position ``start`` (``count`` true up to it; -1: none yet) through
        ``end``, with the positions ``true`` true; the count at ``end``, or k + 1 when the
        overflow clause (the last one given) is reached first."""
        out = []
        for p in range(start + 1, end + 1):
            if p in true:
                out.append(self.step(side, i, p, count, True))
                count += 1
                if count > self.k:
                    break
            elif count:
                out.append(self.step(side, i, p, count, False))
        return out, count

    def chain(self, side: int, i: int, positions: Sequence[int]) -> list[int]:
        """The clauses that, with the first k + 1 of ``positions`` (sorted) true in node i's
        counter on ``side`` and its guard false, propagate to a falsified overflow clause."""
        used = positions[: self.k + 1]
        out, count = self.walk(side, i, -1, 0, used[-1], set(used))
        if count <= self.k:
            raise AssertionError("fewer than k + 1 positions: no overflow")
        return out


class _Tree:
    """The proof search on the relabelled graph (node v here is canonical node ``canon[v]``)."""

    def __init__(
        self,
        canonical: Sequence[frozenset[int]],
        k: int,
        cnf: Cnf,
        stop: Callable[[], bool] | None,
        max_lemmas: float,
    ) -> None:
        n = len(canonical)
        self.max_lemmas = max_lemmas
        self.n, self.k = n, k
        nbrs = [sorted(nb) for nb in canonical]
        self.counters = _Counters(nbrs, k, cnf)
        masks = [sum(1 << j for j in nb) for nb in canonical]
        self.canon = order_by_in_degree(masks)
        place = {c: v for v, c in enumerate(self.canon)}
        self.nb = [sum(1 << place[j] for j in canonical[c]) for c in self.canon]
        self.need = [len(canonical[c]) - k for c in self.canon]
        self.out = [0] * n
        for v, m in enumerate(self.nb):
            for u in _bits(m):
                self.out[u] |= 1 << v
        self.position = [{place[j]: p for p, j in enumerate(nbrs[c])} for c in self.canon]
        self.facts: list[list[list[Fact | None]]] = [
            [[None] * n, [None] * n], [[None] * n, [None] * n]
        ]  # facts[side][true?][v]: side 0 is x (A), 1 is y (B)
        self.trail: list[tuple[list[Fact | None], int]] = []
        self.steps: list[tuple[int, int, list[int]]] = []  # (literal or 0, decisions, hints)
        self.seen: dict[tuple[int, int], int] = {}
        self.stop = stop
        self.nodes = 0

    # -- literals and lemmas ------------------------------------------------------------------

    def var(self, side: int, v: int) -> int:
        return side * self.n + self.canon[v] + 1

    def bit(self, side: int, v: int, value: bool) -> int:
        return 1 << (2 * (self.var(side, v) - 1) + (not value))

    def lemma(
        self, literal: int | tuple[int, ...], facts: Sequence[Fact], clauses: Sequence[int],
        drop: int = 0,
    ) -> Fact:
        """Record ``literal or not D`` (0: ``not D``; a tuple: those literals), D the facts'
        decisions but ``drop``; hints: the facts' lemmas, then ``clauses``."""
        decisions, hints, inline = 0, [], False
        for deps, ref in facts:
            decisions |= deps
            if isinstance(ref, int):
                hints.append(-ref - 1)
            elif ref is not None:
                hints.extend(ref)
                inline = True
        decisions &= ~drop
        lits = literal if isinstance(literal, tuple) else (literal,) if literal else ()
        key = (lits, decisions)
        ref = self.seen.get(key)
        if ref is None:
            ref = self.seen[key] = len(self.steps)
            hints += clauses
            if inline:  # a lemma met again through an inlined fact: a hint is unit only once
                hints = list(dict.fromkeys(hints))
            self.steps.append((lits, decisions, hints))
        return decisions, ref

    def set(self, side: int, value: bool, v: int, fact: Fact) -> None:
        row = self.facts[side][value]
        row[v] = fact
        self.trail.append((row, v))

    def undo(self, mark: int) -> None:
        trail = self.trail
        while len(trail) > mark:
            row, v = trail.pop()
            row[v] = None

    def decide(self, side: int, value: bool, v: int) -> None:
        self.set(side, value, v, (self.bit(side, v, value), None))

    def resolve(self, first: Fact, second: Fact, pos: int, neg: int) -> Fact:
        """``not D`` from the children's ``not D1`` (decision ``pos``) and ``not D2`` (``neg``)."""
        if not first[0] & pos:
            return first
        if not second[0] & neg:
            return second
        return self.lemma(0, [first, second], (), drop=pos | neg)

    # -- deductions ---------------------------------------------------------------------------

    def excluded_positions(self, side: int, i: int, out_of: int) -> list[int]:
        pos = self.position[i]
        return sorted(pos[j] for j in _bits(out_of))

    def peel(self, side: int, u: int, core: int) -> Fact:
        """``-x_u`` (side 0): more than k in-neighbours of u are out of ``core``."""
        excluded = self.nb[u] & ~core
        positions = self.excluded_positions(side, u, excluded)[: self.k + 1]
        by_position = {self.position[u][j]: j for j in _bits(excluded)}
        no = self.facts[side][False]
        facts = [no[by_position[p]] for p in positions]
        lit = -self.var(side, u)
        return self.lemma(lit, facts, self.counters.chain(side, self.canon[u], positions))

    def force(self, side: int, i: int, j: int, core: int) -> Fact:
        """``x_j`` (side 0): x_i is in A and exactly k of its in-neighbours are out of ``core``."""
        excluded = self.nb[i] & ~core
        no = self.facts[side][False]
        facts = [self.facts[side][True][i], *(no[e] for e in _bits(excluded))]
        positions = self.excluded_positions(side, i, excluded | 1 << j)
        chain = self.counters.chain(side, self.canon[i], positions)
        return self.lemma(self.var(side, j), facts, chain)

    def other_side(self, side: int, v: int) -> Fact:
        """``-y_v`` from ``x_v`` (or ``-x_v`` from ``y_v``): clause 1 of v, written inside the
        step that uses it (``x_v``'s lemma, if any, then clause 1) rather than as a lemma of its
        own: a step with two hints was an eighth of the tree's proof (issue 40, round 6)."""
        deps, ref = self.facts[side][True][v]  # a decision or a lemma, never inlined
        clause = self.canon[v] + 1
        return deps, (clause,) if ref is None else (-ref - 1, clause)

    def clash(self, side: int, v: int, no: Fact) -> Fact:
        """``not D``: v is forced into the set of ``side`` and ``no`` excludes it."""
        return self.lemma(0, [self.facts[side][True][v], no], ())

    def shrink(self, side: int, core: int, removed: int, forced: int) -> tuple[int, Fact | None]:
        """Peel ``core`` after ``removed`` left it (each with a ``-x`` fact); a conflict when a
        forced node is peeled."""
        core &= ~removed
        while removed:
            heard = 0
            for v in _bits(removed):
                heard |= self.out[v]
            failing = 0
            for u in _bits(heard & core):
                if (self.nb[u] & core).bit_count() < self.need[u]:
                    failing |= 1 << u
            for u in _bits(failing):
                fact = self.peel(side, u, core)
                if forced >> u & 1:
                    return core, self.clash(side, u, fact)
                self.set(side, False, u, fact)
            core &= ~failing
            removed = failing
        return core, None

    def propagate(
        self, cores: list[int], forced: list[int], pending: list[int]
    ) -> Fact | None:
        """Peeling and forcing to a fixed point (``cores``, ``forced`` updated in place)."""
        while True:
            for side in (0, 1):
                cores[side], conflict = self.shrink(side, cores[side], pending[side], forced[side])
                pending[side] = 0
                if conflict is not None:
                    return conflict
            changed = False
            for side in (0, 1):
                conflict, added = self.tighten(side, cores, forced, pending)
                if conflict is not None:
                    return conflict
                if added:
                    changed = True
                    break
            if changed:
                continue
            conflict, added = self.halls(cores, forced, pending)
            if conflict is not None or not added:
                return conflict

    def halls(
        self, cores: list[int], forced: list[int], pending: list[int]
    ) -> tuple[Fact | None, bool]:
        """Hall's condition on every x in X, y in Y (as the core search): a conflict when their
        in-neighbours left cannot hold ``need_x + need_y`` distinct nodes; when they just can,
        the nodes only x hears are in A, those only y hears in B (each by a conflict under its
        exclusion)."""
        nb, need = self.nb, self.need
        full = (1 << self.n) - 1
        cheapest: tuple[int, int, int] | None = None
        for x in _bits(forced[0]):
            if need[x] <= 0:
                continue
            ax = nb[x] & cores[0]
            for y in _bits(forced[1]):
                if need[y] <= 0:
                    continue
                by = nb[y] & cores[1]
                room = (ax | by).bit_count() - need[x] - need[y]
                if room < 0:
                    cost = (ax & by).bit_count() * (min(ax.bit_count() - need[x],
                                                        by.bit_count() - need[y]) + 1)
                    if cheapest is None or cost < cheapest[0]:
                        cheapest = (cost, x, y)
                    continue
                if room or cheapest is not None:
                    continue
                for side, only in ((0, ax & ~by & ~forced[0]), (1, by & ~ax & ~forced[1])):
                    for w in _bits(only):
                        conflict = self.hall_force(side, w, x, y, cores, forced, pending)
                        if conflict is not None:
                            return conflict, False
                    if only:
                        return None, True
        if cheapest is not None:  # the violated pair with the fewest lemmas (module notes)
            _, x, y = cheapest
            return self.hall(x, y, full & ~cores[0], full & ~cores[1]), False
        return None, False

    def hall_force(
        self, side: int, w: int, x: int, y: int, cores: list[int], forced: list[int],
        pending: list[int],
    ) -> Fact | None:
        """``x_w`` (side 0; ``y_w`` side 1): with w excluded, Hall's condition on (x, y) fails."""
        full = (1 << self.n) - 1
        mark = self.trail_mark()
        self.decide(side, False, w)
        out = [full & ~cores[0], full & ~cores[1]]
        out[side] |= 1 << w
        refuted = self.hall(x, y, out[0], out[1])
        self.undo(mark)
        bit = self.bit(side, w, False)
        if not refuted[0] & bit:
            return refuted
        self.set(side, True, w, (refuted[0] & ~bit, refuted[1]))
        forced[side] |= 1 << w
        other = 1 - side
        fact = self.other_side(side, w)
        if self.facts[other][True][w] is not None:
            return self.clash(other, w, fact)
        if self.facts[other][False][w] is None:
            self.set(other, False, w, fact)
            if cores[other] >> w & 1:
                pending[other] |= 1 << w
        return None

    def hall(self, x: int, y: int, out_a: int, out_b: int) -> Fact:
        """``not D``: x in A needs ``need_x`` of its in-neighbours not in ``out_a``, y in B
        ``need_y`` of its own not in ``out_b``, and there are too few for both.

        By cases on the nodes both may use (``overlap``), in canonical order, which is the
        order of both counters: each is out of A, or in A and (clause 1) out of B. The lemma
        of a state (i overlap nodes done, ``cx`` of them out of A) says its two registers
        ("at least X of x's positions up to the i-th node are out", and y's) cannot both hold;
        it follows, in one RUP step, from the lemmas of its two successors (or an overflow
        clause). ``O(|overlap| * slack)`` lemmas of ``O(d)`` hints each, not one per path."""
        nb, counters, canon = self.nb, self.counters, self.canon
        ax, by = nb[x] & ~out_a, nb[y] & ~out_b
        px, py = self.position[x], self.position[y]
        overlap = sorted(_bits(ax & by), key=canon.__getitem__)
        slack_x, slack_y = ax.bit_count() - self.need[x], by.bit_count() - self.need[y]
        no_a, no_b = self.facts[0][False], self.facts[1][False]
        guard_x, guard_y = self.facts[0][True][x], self.facts[1][True][y]
        base_x = {px[e]: no_a[e] for e in _bits(out_a & nb[x])}
        base_y = {py[e]: no_b[e] for e in _bits(out_b & nb[y])}
        every = [guard_x, guard_y, *base_x.values(), *base_y.values()]
        decisions = 0
        for deps, _ in every:
            decisions |= deps
        cx_, cy_ = canon[x], canon[y]
        true_x, true_y = set(base_x), set(base_y)
        at_x = [-1] + [px[z] for z in overlap]
        at_y = [-1] + [py[z] for z in overlap]

        def count(base: set[int], upto: int, done: int) -> int:
            return sum(1 for q in base if q <= upto) + done

        memo: dict[int, int] = {}

        def facts_in(base: dict[int, Fact], low: int, high: int) -> list[Fact]:
            return [f for q, f in base.items() if low < q <= high]

        def state(i: int, cx: int) -> int:
            """The lemma (its step index) of state (i, cx)."""
            found = memo.get(cx * (len(overlap) + 1) + i)
            if found is not None:
                return found
            cy = i - cx
            p, q = at_x[i], at_y[i]
            xs, ys = count(true_x, p, cx), count(true_y, q, cy)
            if cx > slack_x:  # x's counter overflows further on
                lits = (-counters.reg(0, cx_, p, xs),)
                walked, _ = counters.walk(0, cx_, p, xs, len(px) - 1, true_x)
                facts = [guard_x, *facts_in(base_x, p, len(px))]
                ref = self.lemma(lits, [*facts, (decisions, None)], walked)[1]
            elif cy > slack_y:
                lits = (-counters.reg(1, cy_, q, ys),)
                walked, _ = counters.walk(1, cy_, q, ys, len(py) - 1, true_y)
                facts = [guard_y, *facts_in(base_y, q, len(py))]
                ref = self.lemma(lits, [*facts, (decisions, None)], walked)[1]
            else:
                ref = transition(i, cx, cy, xs, ys)
            memo[cx * (len(overlap) + 1) + i] = ref
            return ref

        def lits_of(p: int, q: int, xs: int, ys: int) -> tuple[int, ...]:
            out = []
            if xs:
                out.append(-counters.reg(0, cx_, p, xs))
            if ys:
                out.append(-counters.reg(1, cy_, q, ys))
            return tuple(out)

        def transition(i: int, cx: int, cy: int, xs: int, ys: int) -> int:
            z = overlap[i]
            p0, q0, p, q = at_x[i], at_y[i], px[z], py[z]
            walk_x, xs2 = counters.walk(0, cx_, p0, xs, p - 1, true_x)
            walk_y, ys2 = counters.walk(1, cy_, q0, ys, q - 1, true_y)
            facts = facts_in(base_x, p0, p - 1) + facts_in(base_y, q0, q - 1)
            hints = walk_x + walk_y
            tail: list[int] = []
            # The two cases below are not one loop over the sides: in RUP order, the first
            # derives x_z (its child lemma is a unit before the counter step), the second uses it
            # (the counter step before its child lemma, which is the conflict).
            # z out of A
            if xs2 == self.k:
                facts.append(guard_x)
                tail.append(counters.step(0, cx_, p, xs2, True))
            else:
                if cx + 1 <= slack_x and ys2:
                    tail.append(counters.step(1, cy_, q, ys2, False))
                tail.append(-state(i + 1, cx + 1) - 1)
                tail.append(counters.step(0, cx_, p, xs2, True))
            tail.append(canon[z] + 1)  # x_z, so not y_z
            # z in A, out of B
            if ys2 == self.k:
                facts.append(guard_y)
                tail.append(counters.step(1, cy_, q, ys2, True))
            else:
                if cy + 1 <= slack_y and xs2:
                    tail.append(counters.step(0, cx_, p, xs2, False))
                tail.append(counters.step(1, cy_, q, ys2, True))
                tail.append(-state(i + 1, cx) - 1)
            lits = lits_of(p0, q0, xs, ys) if i else ()
            facts = list({f[1]: f for f in facts}.values())  # a hint once: twice is no unit
            return self.lemma(lits, [*facts, (decisions, None)], hints + tail)[1]

        return decisions, state(0, 0)

    def tighten(
        self, side: int, cores: list[int], forced: list[int], pending: list[int]
    ) -> tuple[Fact | None, bool]:
        core, added = cores[side], False
        other, yes = 1 - side, self.facts[1 - side][True]
        for i in _bits(forced[side]):
            inside = self.nb[i] & core
            free = inside & ~forced[side]
            if not free or inside.bit_count() != self.need[i]:
                continue
            for j in _bits(free):
                self.set(side, True, j, self.force(side, i, j, core))
                forced[side] |= 1 << j
                added = True
                fact = self.other_side(side, j)
                if yes[j] is not None:
                    return self.clash(other, j, fact), added
                if self.facts[other][False][j] is None:
                    self.set(other, False, j, fact)
                    if cores[other] >> j & 1:
                        pending[other] |= 1 << j
        return None, added

    # -- the search ---------------------------------------------------------------------------

    def node(self, cores: list[int], forced: list[int], pending: list[int]) -> Fact:
        """``not D`` for the path to this node (the facts set on it), or Satisfiable."""
        self.nodes += 1
        if len(self.steps) > self.max_lemmas:
            raise OutOfTime
        if self.stop is not None and self.nodes % _CHECK_EVERY == 0 and self.stop():
            raise OutOfTime
        conflict = self.propagate(cores, forced, pending)
        if conflict is not None:
            return conflict
        both = cores[0] & cores[1]
        if not both:
            raise Satisfiable
        side, v = self.choose(cores, forced, both)
        mark = self.trail_mark()
        pos, neg = self.bit(side, v, True), self.bit(side, v, False)
        self.decide(side, True, v)
        self.set(1 - side, False, v, self.other_side(side, v))
        now, gone = list(forced), [0, 0]
        now[side] |= 1 << v
        gone[1 - side] = 1 << v
        first = self.node(list(cores), now, gone)
        self.undo(mark)
        if not first[0] & pos:
            return first
        self.decide(side, False, v)
        gone = [0, 0]
        gone[side] = 1 << v
        second = self.node(list(cores), list(forced), gone)
        self.undo(mark)
        return self.resolve(first, second, pos, neg)

    def trail_mark(self) -> int:
        return len(self.trail)

    def choose(self, cores: list[int], forced: list[int], both: int) -> tuple[int, int]:
        """The core search's branching rule: a free in-neighbour (in both cores) of the forced
        node with the least slack, on B's side when B's is tighter; else the first of both."""
        best = []
        for side in (0, 1):
            free_best, least = 0, self.n + 1
            for i in _bits(forced[side]):
                inside = self.nb[i] & cores[side]
                free = inside & ~forced[side]
                slack = inside.bit_count() - self.need[i]
                if free and 0 < slack < least:
                    free_best, least = free, slack
            best.append((free_best & both, least))
        (on_a, slack_a), (on_b, slack_b) = best
        if on_b and not (on_a and slack_a <= slack_b):
            return 1, _low(on_b)
        return 0, _low(on_a or both)

    def refute(self) -> Fact:
        """``not E_0`` (the empty clause), through the chains of the module notes; the returned
        fact's lemma lives in the main copy, the chain's own steps in ``self.chain``."""
        n, full = self.n, (1 << self.n) - 1
        self.chain: list[tuple[int, list[tuple[int, int]]]] = []  # (decisions, hints)
        links: list[tuple[int, Fact]] = []
        end: tuple[int, Fact] | None = None
        for t in range(n):
            refuted_a = self.first_in_a(t, full)
            if not refuted_a[0] & self.bit(0, t, True):
                end = (0, refuted_a)  # E_t alone is refuted (the main copy)
                break
            links.append((t, refuted_a))
            self.decide(0, False, t)
            self.decide(1, False, t)
        if end is None:
            no = self.facts[0][False]
            end = (0, self.lemma(0, [no[u] for u in range(n)], [n + 1]))
        return self.close(links, end)

    def close(self, links: list[tuple[int, Fact]], end: tuple[int, Fact]) -> Fact:
        """Resolve ``not E_t`` from ``not (E_t and x_a)`` (both copies) and ``not E_{t+1}``,
        from the last t down; the chain's steps are kept as (decisions, hints) with hints
        (copy, lemma) where copy 0 is the main one, 1 the mirror, 2 the chain itself."""
        copy, (deps, ref) = end
        for t, (a_deps, a_ref) in reversed(links):
            no_x, no_y = self.bit(0, t, False), self.bit(1, t, False)
            if not deps & (no_x | no_y):
                continue
            hints, out = [], deps & ~(no_x | no_y)
            if deps & no_x:
                hints.append((0, a_ref))
                out |= a_deps & ~self.bit(0, t, True)
            if deps & no_y:
                hints.append((1, a_ref))
                out |= self.mirror(a_deps & ~self.bit(0, t, True))
            hints.append((copy, ref))
            self.chain.append((out, hints))
            copy, deps, ref = 2, out, len(self.chain) - 1
        self.final = (copy, ref)
        return deps, ref

    def first_in_a(self, t: int, full: int) -> Fact:
        """``not (E_t and x_a)``, a = node t: by the chain over B's first node b > t."""
        mark = self.trail_mark()
        self.decide(0, True, t)
        self.set(1, False, t, self.other_side(0, t))
        before = (1 << t) - 1
        links: list[tuple[int, Fact]] = []
        end: Fact | None = None
        for j in range(t + 1, self.n):
            inner = self.trail_mark()
            self.decide(1, True, j)
            self.set(0, False, j, self.other_side(1, j))
            between = ((1 << j) - 1) & ~before & ~(1 << t)
            cores = [full, full]
            pending = [before | 1 << j, before | 1 << t | between]
            refuted = self.node(cores, [1 << t, 1 << j], pending)
            self.undo(inner)
            if not refuted[0] & self.bit(1, j, True):
                end = refuted
                break
            links.append((j, refuted))
            self.decide(1, False, j)
        if end is None:  # no y left: clause 2 of y
            no = self.facts[1][False]
            end = self.lemma(0, [no[u] for u in range(self.n)], [self.n + 2])
        for j, refuted in reversed(links):
            end = self.resolve(refuted, end, self.bit(1, j, True), self.bit(1, j, False))
        self.undo(mark)
        return end

    def mirror(self, deps: int) -> int:
        shift = 2 * self.n
        return (deps & ((1 << shift) - 1)) << shift | deps >> shift


def _bits(mask: int):
    while mask:
        low = mask & -mask
        mask ^= low
        yield low.bit_length() - 1


def _low(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def _clause(literal: int, deps: int) -> list[int]:
    out = [literal] if literal else []
    for code in _bits(deps):
        var = code // 2 + 1
        out.append(var if code & 1 else -var)  # the decision's negation
    return out


def _write(tree: _Tree, cnf: Cnf) -> bytes:
    """The trimmed proof text: the reachable lemmas of the main copy, of the mirror copy, then
    the chain's steps, numbered in that order from the CNF's last clause id."""
    n, total = tree.n, len(cnf.clauses)
    per_side = (total - (2 * n + 2)) // 2
    steps = tree.steps
    need: list[set[int]] = [set(), set()]
    stack: list[tuple[int, int]] = []
    for _, hints in tree.chain:
        stack += [h for h in hints if h[0] < 2]
    if tree.final[0] < 2:
        stack.append(tree.final)
    while stack:
        copy, ref = stack.pop()
        if ref in need[copy]:
            continue
        need[copy].add(ref)
        stack += [(copy, -h - 1) for h in steps[ref][2] if h < 0]

    def mirror_clause(cid: int) -> int:
        if cid <= n:
            return cid
        if cid <= n + 2:
            return 2 * n + 3 - cid
        return cid + per_side if cid <= 2 * n + 2 + per_side else cid - per_side

    registers = tree.counters.registers

    def mirror_lit(lit: int) -> int:
        v = abs(lit)
        if v <= 2 * n:
            w = v + n if v <= n else v - n
        else:
            w = v + registers if v <= 2 * n + registers else v - registers
        return w if lit > 0 else -w

    ids: list[dict[int, int]] = [{}, {}]
    last = total
    lines: list[bytes] = []
    for copy in (0, 1):
        written: dict[int, str] = {}  # decisions -> their negated literals as text (shared)
        for ref in sorted(need[copy]):
            extra, deps, hints = steps[ref]
            text = written.get(deps)
            if text is None:
                negated = _clause(0, deps)
                written[deps] = text = " ".join(
                    map(str, [mirror_lit(x) for x in negated] if copy else negated)
                )
            out = []
            for h in hints:
                if h < 0:
                    out.append(ids[copy][-h - 1])
                else:
                    out.append(h if copy == 0 else mirror_clause(h))
            head = [mirror_lit(x) for x in extra] if copy else list(extra)
            last += 1
            ids[copy][ref] = last
            parts = [str(last), *map(str, head)] + ([text] if text else [])
            lines.append(" ".join([*parts, "0", *map(str, out), "0\n"]).encode())
            if not extra and not deps:
                return b"".join(lines)
    chain_ids: list[int] = []
    for deps, hints in tree.chain:
        out = [chain_ids[ref] if copy == 2 else ids[copy][ref] for copy, ref in hints]
        last += 1
        chain_ids.append(last)
        lines.append(_line(last, _clause(0, deps), out))
    return b"".join(lines)


def _line(cid: int, lits: list[int], hints: list[int]) -> bytes:
    return " ".join(map(str, [cid, *lits, 0, *hints, 0])).encode() + b"\n"


def refute(
    canonical: Sequence[frozenset[int]],
    r: int,
    *,
    stop: Callable[[], bool] | None = None,
    max_lemmas: float = math.inf,
) -> Refuted | None:
    """An LRAT refutation of ``encode(canonical, r, 1, ENCODING)`` from the core search, or None
    when the graph is not r-robust.

    Parameters
    ----------
    canonical : sequence of frozenset of int
        In-neighbours in canonical order (:func:`.cnf.canonical_in_neighbors`), n >= 2.
    r : int
        At least 1.
    stop : callable, optional
        Polled during the search; once True the search raises ``solvers.cores.OutOfTime``.
    max_lemmas : float, optional
        Raise ``OutOfTime`` too once the tree has recorded more lemmas than this.

    Returns
    -------
    Refuted or None
        The proof text is not checked here: the caller checks it (:func:`.lrat.check_refutation`).

    Examples
    --------
    >>> from robustgraph.certificate.proofs.lrat import check_refutation
    >>> k4 = [frozenset(set(range(4)) - {i}) for i in range(4)]
    >>> made = refute(k4, 2)
    >>> check_refutation(encode(k4, 2, 1, ENCODING).clauses, made.text.decode().splitlines()) > 0
    True

    Notes
    -----
    Exponential in the worst case, as the core search; each lemma costs O(d) hints.
    """
    cnf = encode(canonical, r, 1, ENCODING)
    tree = _Tree(canonical, r - 1, cnf, stop, max_lemmas)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * len(canonical) + 200))
    try:
        tree.refute()
    except Satisfiable:
        return None
    finally:
        sys.setrecursionlimit(limit)
    return Refuted(_write(tree, cnf), len(tree.steps), tree.nodes)


def small_tree(canonical: Sequence[frozenset[int]], r: int, nodes: int) -> bool:
    """True when the core search settles "r-robust" (no pair at k = r - 1) within about
    ``nodes`` search nodes (:func:`dry_run`): the tree this module turns into a proof then
    stays small (measured: 35-85 lemmas per search node at r = 8-11, each about 100 bytes).
    Costs at most that search.

    Examples
    --------
    >>> k4 = [frozenset(set(range(4)) - {i}) for i in range(4)]
    >>> small_tree(k4, 2, 100), small_tree(k4, 3, 100)
    (True, False)
    """
    return dry_run(canonical, r, nodes) is not None


def dry_run(canonical: Sequence[frozenset[int]], r: int, nodes: int) -> int | None:
    """The core search's nodes at k = r - 1, counted in its polls of 64 (0: fewer than 64), when
    it settles "r-robust" within ``nodes`` of them (rounded up to a poll); else None (a pair,
    or more nodes).

    Examples
    --------
    >>> k4 = [frozenset(set(range(4)) - {i}) for i in range(4)]
    >>> dry_run(k4, 2, 100), dry_run(k4, 3, 100)
    (0, None)
    """
    polls = 0

    def stop() -> bool:
        nonlocal polls
        polls += 1
        return polls * 64 > nodes

    masks = [sum(1 << j for j in nb) for nb in canonical]
    try:
        found = pair_within(masks, r - 1, stop=stop)
    except OutOfTime:
        return None
    return None if found is not None else polls * 64
