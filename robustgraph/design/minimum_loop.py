"""The steps of one counterexample-guided minimality search that the single loop
(:mod:`robustgraph.design.minimum`) and the degree-sequence split
(:mod:`robustgraph.design.minimum_split`) share: a SAT model as a graph, its witness pair, the
pair clause the witness gives, the solver run to a deadline, a proof file named by its hash.
"""

from __future__ import annotations

import hashlib
import itertools
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from robustgraph.certificate.proofs import minimality as mp
from robustgraph.certificate.proofs import sat
from robustgraph.design.oracle import UNKNOWN, Unknown, find_pair, peel, widest_pair
from solvers.exhaustive import exact_s

__all__ = ["UNKNOWN", "degree_clause", "degree_clauses", "model_masks", "pair_clause",
           "pair_clauses", "report", "solve_until", "stored", "witness"]


def model_masks(n: int, model: list[int]) -> list[int]:
    """The graph of a SAT model over the edge variables, as neighbour bitmasks."""
    masks = [0] * n
    true = {lit for lit in model if lit > 0}
    for u in range(n):
        for v in range(u + 1, n):
            if mp.edge_variable(n, u, v) in true:
                masks[u] |= 1 << v
                masks[v] |= 1 << u
    return masks


def pair_clause(n: int, r: int, masks: list[int], s1: int, s2: int) -> mp.PairClause:
    """The pair clause for witness (S1, S2) of graph ``masks``: the outside pairs of S1 and S2
    the graph lacks, then shortened greedily (lowest pairs first) while every member keeps at
    most r - 1 outside pairs out of it and two literals remain.

    For a witness against (r, s)-robustness the members r-reachable in the graph (at most
    s - 1 of them) are left out: the clause holds the others only (module notes of
    :mod:`robustgraph.certificate.proofs.minimality`).

    Examples
    --------
    >>> path = [0b0010, 0b0101, 0b1010, 0b0100]  # 0-1-2-3, witness ({0, 1}, {2, 3}) at r = 2
    >>> pair_clause(4, 2, path, 0b0011, 0b1100).literals  # pairs (0, 2), (1, 3); (0, 3) dropped
    (2, 5)
    """
    sides = [s1, s2]
    kept = {}  # (node, side) -> outside pairs not in the clause
    clause = []
    for k, side in enumerate(sides):
        for i in range(n):
            if side >> i & 1 and (masks[i] & ~side).bit_count() < r:
                kept[(i, k)] = (masks[i] & ~side).bit_count()
    for u in range(n):
        for v in range(u + 1, n):
            cut = [(x, k) for k, side in enumerate(sides) for x, y in ((u, v), (v, u))
                   if (x, k) in kept and not side >> y & 1]
            if cut and not masks[u] >> v & 1:
                clause.append(((u, v), cut))
    literals = []
    for index, ((u, v), cut) in enumerate(clause):
        left = len(clause) - index + len(literals)
        if left > 2 and all(kept[c] < r - 1 for c in cut):
            for c in cut:
                kept[c] += 1
            continue
        literals.append(mp.edge_variable(n, u, v))
    # A wider clause holds too; padding with pairs the graph lacks keeps it refuted. Only when
    # it lacks a single pair is the clause a unit (the complete graph is the fewest edges).
    spare = (mp.edge_variable(n, u, v) for u in range(n) for v in range(u + 1, n)
             if not masks[u] >> v & 1 and mp.edge_variable(n, u, v) not in literals)
    while len(literals) < 2 and (pad := next(spare, None)):
        literals.append(pad)
    return mp.PairClause(
        tuple(i for i in range(n) if s1 >> i & 1),
        tuple(i for i in range(n) if s2 >> i & 1),
        tuple(sorted(literals)),
    )


def _near(masks: list[int], r: int, pair: tuple[int, int]) -> set[tuple[int, int]]:
    """``pair`` and, for each member x of either side (S1 say), (peel(S1 - x), S2) when that
    peel is nonempty: a nonempty set that is not r-reachable, inside S1, so with S2 a witness."""
    s1, s2 = pair
    near = {pair}
    for k, (side, other) in enumerate(((s1, s2), (s2, s1))):
        rest = side
        while rest:
            low = rest & -rest
            rest ^= low
            if smaller := peel(masks, masks, r, side & ~low):
                near.add((smaller, other) if k == 0 else (other, smaller))
    return near


def _fewest(clauses: Iterable[mp.PairClause]) -> list[mp.PairClause]:
    """The clauses of the fewest literals, each literal tuple once, in the order given."""
    found: dict[tuple[int, ...], mp.PairClause] = {}
    for clause in clauses:
        found.setdefault(clause.literals, clause)
    fewest = min(len(literals) for literals in found)
    return [clause for literals, clause in found.items() if len(literals) == fewest]


def pair_clauses(n: int, r: int, s: int, masks: list[int],
                 pair: tuple[int, int]) -> list[mp.PairClause]:
    """The shortest pair clauses of graph ``masks`` among the witnesses near ``pair``, each
    violated by the graph (so each cuts it off).

    For r-robustness (s = 1) the candidates are ``pair`` widened
    (:func:`robustgraph.design.oracle.widest_pair`) and, for each member x of either side
    (S1 say), the pair (peel(S1 - x), S2) widened, when that peel is nonempty; each gives its
    :func:`pair_clause`, and those of the fewest literals are kept (several when tied, each
    once). For s >= 2, the one clause of ``pair``. Measured in docs/design.md ("The
    degree-sequence split"): shorter clauses, fewer models, shorter refutations, for more work
    per model.

    Examples
    --------
    >>> path = [0b0010, 0b0101, 0b1010, 0b0100]  # 0-1-2-3, witness ({0}, {3}) at r = 2
    >>> [c.literals for c in pair_clauses(4, 2, 1, path, (0b0001, 0b1000))]
    [(2, 3)]

    Notes
    -----
    O(n) widenings: O(n^2 (n + m)) big-integer operations, and O(n) pair clauses of O(n^2).
    """
    if s > 1:
        return [pair_clause(n, r, masks, *pair)]
    wide = {widest_pair(masks, r, start) for start in _near(masks, r, pair)}
    return _fewest(pair_clause(n, r, masks, a, b) for a, b in sorted(wide))


def degree_clause(n: int, r: int, degrees: Sequence[int], masks: list[int], s1: int, s2: int,
                  drop_inside_first: bool) -> mp.PairClause:
    """A degree clause (module notes of :mod:`robustgraph.certificate.proofs.minimality`,
    "Degree clauses") for witness (S1, S2) of graph ``masks``, whose node i has degree
    ``degrees[i]``: every pair the graph lacks from a member of a side to a node outside it, and
    every edge it has inside a side (negated), then shortened greedily while every member stays
    held and two literals remain: the inside edges tried first when ``drop_inside_first``, else the
    missing pairs; within each, lowest pairs first.

    Examples
    --------
    >>> bridged = [0b000110, 0b000101, 0b001011, 0b110100, 0b101000, 0b011000]  # two triangles
    >>> degrees, sides = [2, 2, 3, 3, 2, 2], (0b000111, 0b111000)  # joined by {2, 3}; r = 2
    >>> degree_clause(6, 2, degrees, bridged, *sides, drop_inside_first=False).literals
    (-2, -6, -13, -14)
    >>> degree_clause(6, 2, degrees, bridged, *sides, drop_inside_first=True).literals
    (3, 5, 7, 8, 11, 12)
    """
    side = {i: k for k, members in enumerate((s1, s2)) for i in range(n) if members >> i & 1}
    size = (s1.bit_count(), s2.bit_count())
    missing, inside = [], []
    for u in range(n):
        for v in range(u + 1, n):
            a, b = side.get(u), side.get(v)
            if masks[u] >> v & 1:
                if a is not None and a == b:
                    inside.append((u, v))
            elif a != b:
                missing.append((u, v))
    unlisted = {i: n - size[k] for i, k in side.items()}  # outside pairs not listed
    forced = dict.fromkeys(side, 0)  # edges inside its side listed
    for u, v in missing:
        for x in (u, v):
            if x in side:
                unlisted[x] -= 1
    for u, v in inside:
        forced[u] += 1
        forced[v] += 1

    def held(x: int) -> bool:
        return min(unlisted[x], degrees[x] - forced[x]) <= r - 1

    # Dropping a missing pair gives its ends one more unlisted outside pair; dropping an inside
    # edge gives its ends one fewer forced inside neighbour.
    steps = [(inside, forced, -1), (missing, unlisted, 1)]
    dropped = set()
    for pairs, table, step in steps if drop_inside_first else steps[::-1]:
        for u, v in pairs:
            if len(missing) + len(inside) - len(dropped) <= 2:
                break
            ends = [x for x in (u, v) if x in side]
            for x in ends:
                table[x] += step
            if all(held(x) for x in ends):
                dropped.add((u, v))
            else:
                for x in ends:
                    table[x] -= step
    literals = [mp.edge_variable(n, u, v) for u, v in missing if (u, v) not in dropped]
    literals += [-mp.edge_variable(n, u, v) for u, v in inside if (u, v) not in dropped]
    # A wider clause holds too (u_i only falls, f_i only grows): pad to two literals with pairs
    # the graph lacks, then edges inside a side, so that no clause is a unit where avoidable.
    spare = itertools.chain(
        (mp.edge_variable(n, u, v) for u in range(n) for v in range(u + 1, n)
         if not masks[u] >> v & 1), (-mp.edge_variable(n, u, v) for u, v in inside))
    while len(literals) < 2 and (pad := next(spare, None)):
        if pad not in literals:
            literals.append(pad)
    return mp.PairClause(
        tuple(i for i in range(n) if s1 >> i & 1),
        tuple(i for i in range(n) if s2 >> i & 1),
        tuple(sorted(literals, key=abs)),
    )


def degree_clauses(n: int, r: int, degrees: Sequence[int], masks: list[int],
                   pair: tuple[int, int]) -> list[mp.PairClause]:
    """The shortest degree clauses (:func:`degree_clause`, both orders) of graph ``masks`` in a
    degree-split case among the witnesses near ``pair``: those of :func:`pair_clauses` before
    widening and after, and each side with the largest set outside it that is not r-reachable
    (a narrow side keeps few inside edges, a wide one few missing pairs). Measured in
    docs/design.md ("Degree clauses").

    Examples
    --------
    Two triangles {0, 1, 2} and {3, 4, 5} joined by the edge {2, 3}, r = 2: with its degrees
    fixed, edges {0, 1} and {4, 5} leave {0, 1} and {4, 5} one outside neighbour per member,
    where the pair clause of the same witness lists six missing pairs:

    >>> bridged = [0b000110, 0b000101, 0b001011, 0b110100, 0b101000, 0b011000]
    >>> [c.literals for c in degree_clauses(6, 2, [2, 2, 3, 3, 2, 2], bridged, (0b11, 0b111000))]
    [(-1, -15)]
    >>> [c.literals for c in pair_clauses(6, 2, 1, bridged, (0b11, 0b111000))]
    [(3, 5, 7, 8, 11, 12)]
    """
    full = (1 << n) - 1
    near = _near(masks, r, pair)
    candidates = set(near)
    for a, b in near:
        candidates.add(widest_pair(masks, r, (a, b)))
        for x in (a, b):
            if rest := peel(masks, masks, r, full & ~x):
                candidates.add((x, rest))
    return _fewest(degree_clause(n, r, degrees, masks, a, b, first)
                   for a, b in sorted(candidates) for first in (False, True))


def witness(masks: list[int], r: int, s: int, budget: int,
            deadline: float) -> tuple[int, int] | None | Unknown:
    """A pair violating (r, s)-robustness of ``masks`` (two bitmasks), None, or UNKNOWN: one
    against r-robustness first (both sets wholly unreachable, so it violates (r, s) too), then,
    for s >= 2, the exhaustive subset table."""
    found = find_pair(masks, r, budget=budget, deadline=deadline)
    if found is not None or s == 1:
        return found
    most, pair = exact_s(masks, r)
    if most >= s or pair is None:
        return None
    return sum(1 << i for i in pair.s1), sum(1 << i for i in pair.s2)


def solve_until(solver: Any, deadline: float) -> bool | None:
    """Solve in conflict-budget slices until the deadline (as :mod:`.sat` does)."""
    budget = sat.FIRST_SLICE
    while (start := time.monotonic()) < deadline:
        solver.conf_budget(budget)
        status = solver.solve_limited()
        if status is not None:
            return status
        now = time.monotonic()
        budget = sat.next_budget(budget, now - start, deadline - now)
    return None


def stored(key: str, data: bytes, suffix: str) -> tuple[dict[str, Any], dict[str, bytes]]:
    """A proof file named by its SHA-256: the proof fields ``{key}_file``, ``{key}_sha256``,
    ``{key}_bytes`` and the file."""
    digest = hashlib.sha256(data).hexdigest()
    name = f"min-{digest[:20]}.{suffix}"
    return ({f"{key}_file": name, f"{key}_sha256": digest, f"{key}_bytes": len(data)},
            {name: data})


def report(progress: Callable[[str], None] | None, text: str) -> None:
    """Hand ``text`` and the process's CPU seconds to ``progress``, if given."""
    if progress is not None:
        progress(f"{text}; {time.process_time():.1f} s of CPU")
