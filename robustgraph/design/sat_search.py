"""The minimality prover's counterexample-guided SAT loop used as a search: an r-robust graph
with a given degree sequence, or a checked proof that there is none (docs/design.md, "Which
side is loose?", point 8).

For each degree sequence the case CNF of the degree-sequence split
(:func:`robustgraph.certificate.proofs.minimality.encode_case`: node i of degree exactly d_i,
sb*_l symmetry breaking within equal degrees) goes to the split's own loop
(:mod:`robustgraph.design.minimum_split`): each model is a graph, the exact oracle either
proves it r-robust (found) or gives a witness pair whose pair clause cuts it off. Pair clauses
hold for every r-robust graph (the module notes of
:mod:`robustgraph.certificate.proofs.minimality`), so an UNSAT answer says that no r-robust
graph has that degree sequence; it is claimed only once CaDiCaL's LRAT refutation of the case
CNF, and every pair clause, pass the certificate module's own checks (:func:`checked_case`).
A graph found is r-robust by the oracle's completed search; callers certify it again.

:func:`restricted_search` is the same loop on a lighter CNF for larger n, where the case CNF's
symmetry clauses over all pairs of equal degree stall the solver (n = 50: no first model in
60 s): symmetry breaking between consecutive nodes of equal degree only (a subset of sb*_l,
so the least labelling of every graph still satisfies it) and, optionally, no edge between
two nodes of degree r (the hub designs' leaves). Its "no model" is the solver's word about that
restricted class, with no proof; only a graph it finds is a result.

The sequences tried are restricted (:func:`restricted_sequences`): degree-r nodes, at most a
few of degree r + 1 and a few hubs, the shape of the proven minima at n = 8-12 (point 4).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from robustgraph.certificate.proofs import minimality as mp
from robustgraph.certificate.proofs.cnf import ClauseBuilder
from robustgraph.design import minimum_loop, minimum_split
from robustgraph.design.bounds import check_target
from robustgraph.errors import ParameterError

__all__ = ["CaseOutcome", "checked_case", "restricted_search", "restricted_sequences",
           "search_sequence"]


def restricted_sequences(n: int, r: int, edges: int, *, hubs: int, middle: int,
                         top: int | None = None) -> Iterator[tuple[int, ...]]:
    """Every graphical non-increasing degree sequence of n nodes with degree sum 2 ``edges``,
    least degree r, at most ``middle`` nodes of degree r + 1, at most ``hubs`` nodes of degree
    r + 2 or more, each at most ``top`` (default n - 1); in descending lexicographic order.

    Examples
    --------
    >>> list(restricted_sequences(6, 2, 7, hubs=1, middle=2))
    [(4, 2, 2, 2, 2, 2), (3, 3, 2, 2, 2, 2)]
    """
    if n < 1 or r < 1 or hubs < 0 or middle < 0:
        raise ParameterError("restricted_sequences needs n, r >= 1 and hubs, middle >= 0")
    top = n - 1 if top is None else min(top, n - 1)
    excess = 2 * edges - r * n

    def extend(prefix: list[int], left: int, most: int) -> Iterator[tuple[int, ...]]:
        # left: degree above r still to place; most: the largest degree still allowed
        if left == 0:
            sequence = tuple(prefix) + (r,) * (n - len(prefix))
            if mp.graphical(sequence):
                yield sequence
            return
        big = sum(d >= r + 2 for d in prefix)
        mid = sum(d == r + 1 for d in prefix)
        room = (hubs - big) * max(most - r, 0) if most >= r + 2 else 0
        if left > room + min(middle - mid, n - len(prefix)) or len(prefix) == n:
            return
        for d in range(min(most, r + left), r, -1):
            if (d >= r + 2 and big == hubs) or (d == r + 1 and mid == middle):
                continue
            yield from extend([*prefix, d], left - (d - r), d)

    if excess >= 0:
        yield from extend([], excess, top)


@dataclass
class CaseOutcome:
    """One degree sequence searched: ``status`` is ``"robust"`` (``masks`` is an r-robust
    graph with these degrees, by the oracle's completed search), ``"none"`` (a checked LRAT
    refutation: no r-robust graph has them; ``steps`` LRAT steps), or why the search stopped
    (nothing claimed). ``pairs``: pair clauses the loop added; ``seconds``: wall time."""

    degrees: tuple[int, ...]
    status: str
    seconds: float
    pairs: int = 0
    steps: int = 0
    masks: list[int] | None = field(default=None, repr=False)


def checked_case(n: int, r: int, degrees: tuple[int, ...], entry: dict,
                 files: dict[str, bytes]) -> int:
    """Check one refuted case with the certificate module's own checks: every pair clause given
    by the definition, the case CNF regenerated, its LRAT refutation checked. The steps.

    Raises
    ------
    robustgraph.certificate.proofs.minimality.MinimalityError
        A pair clause the definition does not give, or a refutation that does not check.
    """
    pairs = mp.parse_pairs(mp.proof_file(entry, "pairs", files.__getitem__), entry["pairs_file"])
    for k, pair in enumerate(pairs, 1):
        if problem := mp.pair_clause_problem(n, r, pair, degrees=degrees):
            raise mp.MinimalityError(f"pair clause {k}: {problem}")
    cnf = mp.encode_case(n, degrees, pairs)
    return mp.refutation_steps(cnf.clauses, mp.proof_file(entry, "lrat", files.__getitem__),
                               entry["lrat_file"], entry["steps"])


def search_sequence(n: int, r: int, degrees: tuple[int, ...], *, time_limit: float,
                    budget: int = 2_000_000) -> CaseOutcome:
    """Search for an r-robust graph on n nodes with exactly these degrees (node i of degree
    ``degrees[i]``, non-increasing), within ``time_limit`` seconds for the search and its
    refutation together.

    Examples
    --------
    >>> search_sequence(5, 2, (3, 3, 2, 2, 2), time_limit=10).status  # K_{2,3}
    'robust'
    >>> search_sequence(5, 2, (4, 2, 2, 2, 2), time_limit=10).status  # only K_{1,4} + a matching
    'none'

    Raises
    ------
    robustgraph.errors.ParameterError
        r < 2 or r > ceil(n/2) (no graph is r-robust), or degrees not n non-increasing ones.

    Notes
    -----
    Exponential in the worst case; one solver in this process.
    """
    check_target(n, r)
    if r < 2 or len(degrees) != n or list(degrees) != sorted(degrees, reverse=True):
        raise ParameterError("search_sequence needs r >= 2 and n non-increasing degrees")
    start = time.monotonic()
    deadline = start + time_limit
    status, found = minimum_split._case_search(n, r, 1, degrees, budget, deadline,
                                               minimum_split.Split(n))
    if status == "robust":
        return CaseOutcome(degrees, "robust", time.monotonic() - start, masks=found)
    if status != "unsat":
        return CaseOutcome(degrees, status, time.monotonic() - start)
    pairs, _ = found
    made = minimum_split._case_refutation(n, degrees, pairs, 0, deadline)
    if made is None:
        return CaseOutcome(degrees, "the time limit stopped the LRAT refutation",
                           time.monotonic() - start, len(pairs))
    steps = checked_case(n, r, degrees, *made)
    return CaseOutcome(degrees, "none", time.monotonic() - start, len(pairs), steps)


def _light_cnf(n: int, r: int, degrees: tuple[int, ...], leaf_edges: bool) -> list[list[int]]:
    """The clauses of :func:`restricted_search`: exact degrees, row i <= row i + 1 (without
    columns i, i + 1) for consecutive nodes of equal degree, no edge between two degree-r nodes
    unless ``leaf_edges``."""
    b = ClauseBuilder(n * (n - 1) // 2)
    for i in range(n):
        lits = [mp.edge_variable(n, i, j) for j in range(n) if j != i]
        b.at_most(lits, degrees[i])
        b.at_most([-x for x in lits], n - 1 - degrees[i])
        if i + 1 < n and degrees[i] == degrees[i + 1]:
            rest = [k for k in range(n) if k not in (i, i + 1)]
            mp.lex_at_most(b, [mp.edge_variable(n, i, k) for k in rest],
                           [mp.edge_variable(n, i + 1, k) for k in rest])
    if not leaf_edges:
        leaves = [i for i in range(n) if degrees[i] == r]
        for k, u in enumerate(leaves):
            for v in leaves[k + 1:]:
                b.add(-mp.edge_variable(n, u, v))
    return [list(clause) for clause in b.clauses]


def restricted_search(n: int, r: int, degrees: tuple[int, ...], *, time_limit: float,
                      leaf_edges: bool = True, budget: int = 2_000_000) -> CaseOutcome:
    """Search for an r-robust graph on n nodes with exactly these degrees on the light CNF
    (module notes): status ``"robust"`` with the graph (proven by the oracle's completed
    search), ``"no model"`` (the solver's word about the restricted class; no proof) or why it
    stopped.

    Examples
    --------
    >>> restricted_search(5, 2, (3, 3, 2, 2, 2), time_limit=10, leaf_edges=False).status
    'robust'
    >>> restricted_search(5, 2, (4, 2, 2, 2, 2), time_limit=10).status
    'no model'
    """
    from pysat.solvers import Cadical195

    check_target(n, r)
    if r < 2 or len(degrees) != n or list(degrees) != sorted(degrees, reverse=True):
        raise ParameterError("restricted_search needs r >= 2 and n non-increasing degrees")
    start = time.monotonic()
    deadline, pairs = start + time_limit, 0
    solver = Cadical195(bootstrap_with=_light_cnf(n, r, degrees, leaf_edges))
    try:
        while True:
            status = minimum_loop.solve_until(solver, deadline)
            if status is None:
                return CaseOutcome(degrees, "the time limit stopped the SAT search",
                                   time.monotonic() - start, pairs)
            if status is False:
                return CaseOutcome(degrees, "no model", time.monotonic() - start, pairs)
            masks = minimum_loop.model_masks(n, solver.get_model())
            pair = minimum_loop.witness(masks, r, 1, budget, deadline)
            if pair is minimum_loop.UNKNOWN:
                return CaseOutcome(degrees, "an exact check ran out of budget or time",
                                   time.monotonic() - start, pairs)
            if pair is None:
                return CaseOutcome(degrees, "robust", time.monotonic() - start, pairs,
                                   masks=masks)
            for clause in minimum_loop.pair_clauses(n, r, 1, masks, pair):
                pairs += 1
                solver.add_clause(list(clause.literals))
    finally:
        solver.delete()
