"""One level of a minimality proof split by degree sequence: a small counterexample-guided
search and an LRAT refutation per case.

"No r-robust graph on n nodes has at most L - 1 edges" is refuted case by case over the cover
``exactly`` of :func:`robustgraph.certificate.proofs.minimality.degree_sequences` (every
graphical non-increasing degree sequence with degrees >= r and sum exactly 2(L - 1): by edge
monotonicity, docs/theory.md section 8, a graph with fewer edges would extend to one with L - 1,
so fewer need no case of their own). Each case runs the loop of
:mod:`robustgraph.design.minimum` on the case CNF
(:func:`~robustgraph.certificate.proofs.minimality.encode_case`: node i of degree exactly d_i,
sb*_l within equal degrees): its own solver and its own pair clauses (for r-robustness the
degree clauses of :func:`robustgraph.design.minimum_loop.degree_clauses`, which may name edges
present inside a side since the case fixes every degree; docs/design.md, "Degree clauses"), then
CaDiCaL refutes the case CNF with LRAT logging, trimmed. Unseeded, the pair clauses of a case
are not carried to the next: measured, the cases stay small where one loop over all graphs
stalls; seeded (:mod:`robustgraph.design.minimum_seeds`), a case starts from the clauses of
earlier ones (docs/design.md, "The degree-sequence split"). With a store
(:mod:`robustgraph.design.minimum_store`) each refuted case is written to disk as it is refuted,
and a later run reuses it; two runs may share one store, one of them taking each level's cases
from the last (``Split.reverse``), each taking up the cases the other stored before it reaches
them.
"""

from __future__ import annotations

import gzip
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from robustgraph.certificate.proofs import minimality as mp
from robustgraph.certificate.proofs import sat
from robustgraph.certificate.proofs.prover import lrat_additions
from robustgraph.certificate.proofs.trim import trim
from robustgraph.design import minimum_loop as mm
from robustgraph.design.minimum_seeds import Pool
from robustgraph.design.minimum_store import CaseStore
from robustgraph.errors import ParameterError

__all__ = ["Split", "search_level"]

Case = tuple[dict[str, Any], dict[str, bytes]]


@dataclass
class Split:
    """What the levels of one split run share.

    ``refuted``: the cases refuted so far (degrees to the case's entry and files), reused
    whenever a cover holds them again; ``seed``: how a new case is seeded from ``pool``, the
    pair clauses of the cases refuted so far (one of
    :data:`robustgraph.design.minimum_seeds.SEEDS`); ``store``: where each refuted case is
    written as soon as it is refuted (and read back from by :meth:`resume`); ``reverse``:
    each level's cases taken from the last, so that a second run on the same store (started
    without it) meets the first only at the level's last case instead of repeating its work.
    """

    n: int
    seed: str = "off"
    store: CaseStore | None = None
    reverse: bool = False
    refuted: dict[tuple[int, ...], Case] = field(default_factory=dict)
    pool: Pool = field(init=False)

    def __post_init__(self) -> None:
        self.pool = Pool(self.n)

    def resume(self) -> int:
        """Take in the cases of the store (their pair clauses into the pool when seeding):
        how many."""
        found = self.store.load() if self.store is not None else {}
        for degrees, case in found.items():
            self._keep_stored(degrees, case)
        return len(found)

    def take(self, degrees: tuple[int, ...]) -> bool:
        """Whether the case is refuted: here already, or in the store (written there by
        another run since :meth:`resume`, then taken in)."""
        if degrees in self.refuted:
            return True
        found = self.store.load_case(degrees) if self.store is not None else None
        if found is None:
            return False
        self._keep_stored(degrees, found)
        return True

    def _keep_stored(self, degrees: tuple[int, ...], case: Case) -> None:
        """A case read from the store, kept as refuted; a pair file that does not parse is
        one line."""
        try:
            self.keep(degrees, case, save=False)
        except mp.MinimalityError as exc:
            raise ParameterError(f"stored case {list(degrees)}: {exc}") from None

    def keep(self, degrees: tuple[int, ...], case: Case, save: bool = True) -> None:
        """A refuted case: kept for the levels to come, its pair clauses pooled when seeding
        (each pool clause once: a seeded case lists its seeds first), written to the store."""
        self.refuted[degrees] = case
        if self.seed != "off":
            entry, files = case
            seeds = entry.get("seeds", 0)  # a stored entry's word: at worst a clause twice
            pairs = mp.parse_pairs(files[entry["pairs_file"]], entry["pairs_file"])
            self.pool.add(pairs[seeds if type(seeds) is int and seeds >= 0 else 0:])
        if save and self.store is not None:
            self.store.save(degrees, case)


def _case_search(n: int, r: int, s: int, degrees: tuple[int, ...], budget: int,
                 deadline: float, split: Split) -> tuple[str, Any]:
    """The counterexample-guided search of one case: ``("unsat", (pair clauses, seeds))``
    (the seeds first among them), ``("robust", masks)`` or ``(why it stopped, None)``."""
    from pysat.solvers import Cadical195

    usable = split.pool.within(degrees, r) if split.seed != "off" else None
    pairs = list(usable.clauses) if split.seed == "all" else []
    pool = usable if split.seed == "violated" else None
    seeds, solver = len(pairs), Cadical195()
    try:
        for clause in mp.encode_case(n, degrees, pairs).clauses:
            solver.add_clause(list(clause))
        while True:
            status = mm.solve_until(solver, deadline)
            if status is None:
                return "the time limit stopped the SAT search", None
            if status is False:
                return "unsat", (pairs, seeds)
            model = solver.get_model()
            if pool is not None and (pulled := pool.violated(model)):
                pairs[seeds:seeds] = pulled  # seeds first: new clauses join the pool later
                seeds += len(pulled)
                for pair in pulled:
                    solver.add_clause(list(pair.literals))
                continue
            masks = mm.model_masks(n, model)
            witness = mm.witness(masks, r, s, budget, deadline)
            if witness is mm.UNKNOWN:
                return "an exact check ran out of budget or time", None
            if witness is None:
                return "robust", masks
            clauses = mm.degree_clauses(n, r, degrees, masks, witness) if s == 1 \
                else mm.pair_clauses(n, r, s, masks, witness)
            for pair in clauses:
                pairs.append(pair)
                solver.add_clause(list(pair.literals))
    finally:
        solver.delete()


def _case_refutation(n: int, degrees: tuple[int, ...], pairs: list[mp.PairClause], seeds: int,
                     deadline: float) -> Case | None:
    """The case's entry of the proof and its two files, or None at the deadline. The entry
    records how many of its pair clauses came from the pool (``seeds``, the first ones; not
    read by the checker, which re-derives every pair clause alike)."""
    cnf = mp.encode_case(n, degrees, pairs)
    status, text = sat.refute(cnf, max(deadline - time.monotonic(), 0.01))
    if status is not False or text is None:
        return None
    text = trim(text)
    case: dict[str, Any] = {"degrees": list(degrees), "variables": cnf.variables,
                            "clauses": len(cnf.clauses), "steps": lrat_additions(text),
                            "pairs": len(pairs), "seeds": seeds}
    fields, files = mm.stored("pairs", mp.write_pairs(pairs), "pairs.gz")
    more, lrat = mm.stored("lrat", gzip.compress(text, compresslevel=1, mtime=0), "lrat.gz")
    return case | fields | more, files | lrat


def search_level(n: int, r: int, s: int, level: int, budget: int, deadline: float,
                 progress: Callable[[str], None] | None = None,
                 split: Split | None = None) -> tuple[str, Any]:
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
    split : Split, optional
        What the levels of a run share (default: a fresh, unseeded one without a store): its
        cases refuted before are reused as they are and added to (a case's CNF does not depend
        on the level; the covers of two levels share no case, so a climb refutes each degree
        sequence once); new cases are seeded from its pool and written to its store as they
        are refuted.

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
    split = Split(n) if split is None else split
    cover = list(mp.degree_sequences(n, r, 2 * (level - 1), exactly=True))
    order = list(enumerate(cover, 1))
    for k, degrees in reversed(order) if split.reverse else order:
        if not split.take(degrees):
            status, found = _case_search(n, r, s, degrees, budget, deadline, split)
            if status != "unsat":
                return status, found
            made = _case_refutation(n, degrees, *found, deadline)
            if made is None:
                return "the time limit stopped the LRAT refutation", None
            split.keep(degrees, made)
            mm.report(progress, f"level {level}: case {k}/{len(cover)} "
                                f"({' '.join(map(str, degrees))}) refuted, {len(found[0]):,} "
                                f"pair clauses ({found[1]:,} seeded), {made[0]['steps']:,} "
                                "steps")
    for degrees in cover:
        cases.append(split.refuted[degrees][0])
        files |= split.refuted[degrees][1]
    proof = {"kind": "degree-split", "encoding": mp.SPLIT_ENCODING, "cover": "exactly",
             "cases": cases,
             "steps": sum(case["steps"] for case in cases),
             "pairs": sum(case["pairs"] for case in cases)}
    return "unsat", (proof, files)
