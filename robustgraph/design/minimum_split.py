"""One level of a minimality proof split by degree sequence: a small counterexample-guided
search and an LRAT refutation per case.

"No r-robust graph on n nodes has at most L - 1 edges" is refuted case by case over the cover
of :func:`robustgraph.certificate.proofs.minimality.degree_sequences` (every graphical
non-increasing degree sequence with degrees >= r and sum <= 2(L - 1)). Each case runs the loop
of :mod:`robustgraph.design.minimum` on the case CNF
(:func:`~robustgraph.certificate.proofs.minimality.encode_case`: node i of degree exactly
d_i, sb*_l within equal degrees): its own solver and its own pair clauses, then CaDiCaL refutes
the case CNF with LRAT logging, trimmed. The pair clauses of a case are not carried to the next:
measured, the cases stay small where one loop over all graphs stalls (docs/design.md, "The
degree-sequence split").
"""

from __future__ import annotations

import gzip
import time
from collections.abc import Callable
from typing import Any

from robustgraph.certificate.proofs import minimality as mp
from robustgraph.certificate.proofs import sat
from robustgraph.certificate.proofs.prover import lrat_additions
from robustgraph.certificate.proofs.trim import trim
from robustgraph.design import minimum_loop as mm

__all__ = ["search_level"]


def _case_search(n: int, r: int, s: int, degrees: tuple[int, ...], budget: int,
                 deadline: float) -> tuple[str, Any]:
    """The counterexample-guided search of one case: ``("unsat", pair clauses)``,
    ``("robust", masks)`` or ``(why it stopped, None)``."""
    from pysat.solvers import Cadical195

    solver, pairs = Cadical195(), []
    try:
        for clause in mp.encode_case(n, degrees, []).clauses:
            solver.add_clause(list(clause))
        while True:
            status = mm.solve_until(solver, deadline)
            if status is None:
                return "the time limit stopped the SAT search", None
            if status is False:
                return "unsat", pairs
            masks = mm.model_masks(n, solver.get_model())
            witness = mm.witness(masks, r, s, budget, deadline)
            if witness is mm.UNKNOWN:
                return "an exact check ran out of budget or time", None
            if witness is None:
                return "robust", masks
            pairs.append(mm.pair_clause(n, r, masks, *witness))
            solver.add_clause(list(pairs[-1].literals))
    finally:
        solver.delete()


def _case_refutation(n: int, degrees: tuple[int, ...], pairs: list[mp.PairClause],
                     deadline: float) -> tuple[dict[str, Any], dict[str, bytes]] | None:
    """The case's entry of the proof and its two files, or None at the deadline."""
    cnf = mp.encode_case(n, degrees, pairs)
    status, text = sat.refute(cnf, max(deadline - time.monotonic(), 0.01))
    if status is not False or text is None:
        return None
    text = trim(text)
    case: dict[str, Any] = {"degrees": list(degrees), "variables": cnf.variables,
                            "clauses": len(cnf.clauses), "steps": lrat_additions(text),
                            "pairs": len(pairs)}
    fields, files = mm.stored("pairs", mp.write_pairs(pairs), "pairs.gz")
    more, lrat = mm.stored("lrat", gzip.compress(text, compresslevel=1, mtime=0), "lrat.gz")
    return case | fields | more, files | lrat


def search_level(n: int, r: int, s: int, level: int, budget: int, deadline: float,
                 progress: Callable[[str], None] | None = None,
                 refuted: dict[tuple[int, ...], tuple[dict[str, Any], dict[str, bytes]]]
                 | None = None) -> tuple[str, Any]:
    """Refute "an (r, s)-robust graph on n nodes with at most ``level`` - 1 edges" case by case.

    Parameters
    ----------
    n, r, s : int
        Nodes, robustness (r >= 2) and s (1: r-robustness).
    level : int
        L: the level refuted is "at most L - 1 edges".
    budget : int
        Branch-and-bound nodes per oracle check.
    deadline : float
        ``time.monotonic()`` at which to stop.
    progress : callable, optional
        Called with a line after each case.
    refuted : dict, optional
        Cases refuted before (degrees to the case's entry and files), reused as they are and
        added to: a case's CNF does not depend on the level, so a climb refutes each degree
        sequence once (the cover of level L holds that of every lower level).

    Returns
    -------
    (str, object)
        ``("unsat", (proof, files))``: a ``degree-split`` proof object (not yet checked) and its
        files; ``("robust", masks)``: an (r, s)-robust graph with at most L - 1 edges (neighbour
        bitmasks); else ``(why it stopped, None)``.

    Notes
    -----
    Exponential in the worst case, as :func:`robustgraph.design.minimum.prove_minimum`; the
    cases run one after another in this process.
    """
    cases, files = [], {}
    refuted = {} if refuted is None else refuted
    cover = list(mp.degree_sequences(n, r, 2 * (level - 1)))
    for k, degrees in enumerate(cover, 1):
        if degrees not in refuted:
            status, found = _case_search(n, r, s, degrees, budget, deadline)
            if status != "unsat":
                return status, found
            made = _case_refutation(n, degrees, found, deadline)
            if made is None:
                return "the time limit stopped the LRAT refutation", None
            refuted[degrees] = made
            mm.report(progress, f"level {level}: case {k}/{len(cover)} "
                                f"({' '.join(map(str, degrees))}) refuted, {len(found):,} pair "
                                f"clauses, {made[0]['steps']:,} steps")
        cases.append(refuted[degrees][0])
        files |= refuted[degrees][1]
    proof = {"kind": "degree-split", "encoding": mp.SPLIT_ENCODING, "cases": cases,
             "steps": sum(case["steps"] for case in cases),
             "pairs": sum(case["pairs"] for case in cases)}
    return "unsat", (proof, files)
