"""The steps of one counterexample-guided minimality search that the single loop
(:mod:`robustgraph.design.minimum`) and the degree-sequence split
(:mod:`robustgraph.design.minimum_split`) share: a SAT model as a graph, its witness pair, the
pair clause the witness gives, the solver run to a deadline, a proof file named by its hash.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from typing import Any

from robustgraph.certificate.proofs import minimality as mp
from robustgraph.certificate.proofs import sat
from robustgraph.design.oracle import UNKNOWN, Unknown, find_pair, peel, widest_pair
from solvers.exhaustive import exact_s

__all__ = ["UNKNOWN", "model_masks", "pair_clause", "pair_clauses", "report", "solve_until",
           "stored", "witness"]


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


def pair_clauses(n: int, r: int, s: int, masks: list[int],
                 pair: tuple[int, int]) -> list[mp.PairClause]:
    """The shortest pair clauses of graph ``masks`` among the witnesses near ``pair``, each
    violated by the graph (so each cuts it off).

    For r-robustness (s = 1) the candidates are ``pair`` widened
    (:func:`robustgraph.design.oracle.widest_pair`) and, for each member x of either side
    (S1 say), the pair (peel(S1 - x), S2) widened, when that peel is nonempty (peel(S1 - x) is
    a nonempty set that is not r-reachable, inside S1, so it and S2 are a witness, and widening
    keeps one); each gives its :func:`pair_clause`, and those of the fewest literals are kept
    (several when tied, each once). For s >= 2, the one clause of ``pair``. Measured in
    docs/design.md ("The degree-sequence split"): shorter clauses, fewer models, shorter
    refutations, for more work per model.

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
    s1, s2 = pair
    starts = {pair}
    for k, (side, other) in enumerate(((s1, s2), (s2, s1))):
        rest = side
        while rest:
            low = rest & -rest
            rest ^= low
            if smaller := peel(masks, masks, r, side & ~low):
                starts.add((smaller, other) if k == 0 else (other, smaller))
    wide = {widest_pair(masks, r, start) for start in starts}
    found = {}
    for a, b in sorted(wide):
        clause = pair_clause(n, r, masks, a, b)
        found.setdefault(clause.literals, clause)
    fewest = min(len(literals) for literals in found)
    return [clause for literals, clause in found.items() if len(literals) == fewest]


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
