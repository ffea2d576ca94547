"""Exact minimum edge counts of r-robust and (r, s)-robust graphs, with a certificate ``verify``
re-checks.

:func:`prove_minimum` proves that no r-robust graph on n nodes has fewer than L edges, for the
L it is given (a design's count) or a smaller one it finds on the way. The closed-form bounds
of :func:`robustgraph.certificate.proofs.minimality.formula_bounds` come first; otherwise a
counterexample-guided SAT search over graphs with at most L - 1 edges:

1. the CNF of :mod:`robustgraph.certificate.proofs.minimality` without pair clauses (the edge
   count and the minimum degree r) goes to an incremental SAT solver;
2. each model is a graph H; the exact oracle (:func:`robustgraph.design.oracle.find_pair`)
   either proves H r-robust -- a graph with fewer edges, so L drops to H's count and the search
   goes on -- or gives a witness pair (S1, S2), and the pair clause "some edge leaving S1 or S2
   that H lacks" is added, shortened while the definition still gives it (a member of S1 or
   S2 may keep up to r - 1 outside pairs out of the clause): the shortest such clauses of the
   witness widened and of its neighbours
   (:func:`robustgraph.design.minimum_loop.pair_clauses`);
3. when the solver answers UNSAT, the whole CNF is refuted once more by CaDiCaL with LRAT
   logging (:func:`robustgraph.certificate.proofs.sat.refute`), and the certificate is checked
   by :func:`robustgraph.certificate.proofs.minimality.check_minimum` before it is returned.
   (Logging LRAT through the incremental search instead and renumbering the log was measured
   slower: n = 10, r = 3 took 96 s of CPU against 52 s; docs/design.md.)

For (r, s)-robustness (s >= 2; LeBlanc et al. 2013, Def. 7) the oracle is the exhaustive subset
table (:func:`solvers.exhaustive.exact_s`) and a pair clause leaves out the members the graph
lets be r-reachable (at most s - 1 of them).

One module: the counterexample-guided search, its final refutation (one LRAT file or parts) and
the climb share the solver state and the pair clauses of one run, which a split would pass
between modules at every step.
"""

from __future__ import annotations

import gzip
import json
import math
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from robustgraph.certificate.proofs import minimality as mp
from robustgraph.certificate.proofs import sat
from robustgraph.certificate.proofs.prover import lrat_additions
from robustgraph.certificate.proofs.trim import trim
from robustgraph.design import minimum_cubes, minimum_split
from robustgraph.design.minimum_loop import (
    UNKNOWN,
    model_masks,
    pair_clause,
    pair_clauses,
    report,
    solve_until,
    stored,
    witness,
)
from robustgraph.design.minimum_seeds import SEEDS
from robustgraph.design.minimum_store import CaseStore
from robustgraph.errors import ParameterError
from robustgraph.generators import max_robustness
from robustgraph.limits import FILE_BYTES, INFLATED_BYTES, OverBudget
from solvers.extras import missing

__all__ = ["MAX_N_RS", "SPLIT_FROM", "MinimumResult", "minimum_path", "overflow", "pair_clause",
           "prove_minimum"]

SPLIT_FROM = 12
"""Fewest nodes at which ``prove_minimum`` splits each level by degree sequence by default
(``split=None``; docs/design.md, "The degree-sequence split")."""

MAX_N_RS = 16
"""Most nodes for an (r, s) proof, s >= 2: the oracle tabulates all 2^n node sets."""


@dataclass
class MinimumResult:
    """The outcome of :func:`prove_minimum`.

    ``lower_bound`` is proven (by ``document`` when it is not None); ``edges`` is the fewest
    edges of an r-robust graph known (the count asked about, or ``better``'s); the count is the
    exact minimum when the two are equal. ``better`` is a proven r-robust graph (neighbour
    bitmasks) with fewer edges than asked, found by the search. ``clauses`` are the pair
    clauses the single search held when it ended, finished or not (none for a search split by
    degree sequence, whose cases keep their own, in the certificate; ``pairs`` counts them):
    each holds for every r-robust graph whatever the count, so a later run may start from them
    (``prove_minimum(..., known=...)``).
    """

    n: int
    r: int
    edges: int
    lower_bound: int
    seconds: float
    document: dict[str, Any] | None = None
    files: dict[str, bytes] = field(default_factory=dict)
    better: list[int] | None = None
    pairs: int = 0
    note: str = ""
    s: int = 1
    clauses: list[mp.PairClause] = field(default_factory=list)

    @property
    def minimum(self) -> bool:
        """Whether ``edges`` is proven the fewest possible."""
        return self.document is not None and self.lower_bound == self.edges

    def dump(self, path: str | Path) -> None:
        """Write the certificate to ``path`` and its proof files beside it."""
        if self.document is None:
            raise ParameterError("no minimality certificate to write")
        path = Path(path)
        for name, data in self.files.items():
            (path.parent / name).write_bytes(data)
        path.write_text(json.dumps(self.document, indent=2) + "\n", encoding="utf-8")


def minimum_path(graph_path: str | Path) -> Path:
    """Where a design's minimality certificate goes: ``G.json`` -> ``G.min.json``.

    Examples
    --------
    >>> str(minimum_path("out/g.json"))
    'out/g.min.json'
    """
    path = Path(graph_path)
    return path.with_name(path.stem + ".min.json")


def _document(n: int, r: int, bound: int, proof: dict[str, Any], s: int = 1) -> dict[str, Any]:
    return {
        "format": mp.FORMAT,
        "version": 1,
        "statement": mp.statement(n, r, bound, s),
        "n": n,
        "r": r,
        **({"s": s} if s > 1 else {}),
        "directed": False,
        "lower_bound": bound,
        "proof": proof,
    }










def _new_solver(n: int, r: int, bound: int, pairs: list[mp.PairClause]) -> Any:
    from pysat.solvers import Cadical195

    solver = Cadical195()
    for clause in mp.encode(n, r, bound, pairs).clauses:
        solver.add_clause(list(clause))
    return solver




def _head(n: int, r: int, bound: int, pairs: list[mp.PairClause],
          kind: str) -> tuple[dict[str, Any], dict[str, bytes]]:
    """The fields an ``lrat`` and an ``lrat-parts`` proof share, and the pair-clause file."""
    cnf = mp.encode(n, r, bound, pairs)
    proof: dict[str, Any] = {"kind": kind, "encoding": mp.ENCODING, "variables": cnf.variables,
                             "clauses": len(cnf.clauses), "pairs": len(pairs)}
    fields, files = stored("pairs", mp.write_pairs(pairs), "pairs.gz")
    return proof | fields, files


def _lrat_proof(n: int, r: int, bound: int, pairs: list[mp.PairClause],
                proof_data: bytes, steps: int) -> tuple[dict[str, Any], dict[str, bytes]]:
    """The ``lrat`` proof object and its files, for a gzip-compressed refutation of
    :func:`robustgraph.certificate.proofs.minimality.encode` of these pairs."""
    proof, files = _head(n, r, bound, pairs, "lrat")
    fields, more = stored("lrat", proof_data, "lrat.gz")
    return proof | fields | {"steps": steps}, files | more


def _parts_proof(n: int, r: int, bound: int, pairs: list[mp.PairClause], split: list[int],
                 parts: list[tuple[bytes, int]]) -> tuple[dict[str, Any], dict[str, bytes]]:
    """The ``lrat-parts`` proof object and its files, for the gzip-compressed refutations (and
    their additions) of the CNF under each cube of ``split``, in order."""
    proof, files = _head(n, r, bound, pairs, "lrat-parts")
    proof["split"], proof["parts"] = split, []
    for data, steps in parts:
        fields, more = stored("part", data, "lrat.gz")
        proof["parts"].append({key[5:]: value for key, value in fields.items()} | {"steps": steps})
        files |= more
    proof["steps"] = sum(steps for _, steps in parts)
    return proof, files


def overflow(data: bytes, default: bool = False) -> float:
    """How far the gzip-compressed proof ``data`` is over the input budgets it is checked
    under (the budgets now, or with ``default`` their defaults): the larger of its bytes over
    the byte budget and its decompressed bytes over the decompressed-byte budget; at most 1
    when it fits. Decompresses in pieces, and stops counting at 16 times the budget.

    Examples
    --------
    >>> overflow(gzip.compress(b"x" * 1000)) < 1
    True
    """
    budgets = [b.default if default else b.value() for b in (FILE_BYTES, INFLATED_BYTES)]
    inflated, stream = 0, zlib.decompressobj(wbits=31)
    for start in range(0, len(data), 2**20):
        inflated += len(stream.decompress(data[start:start + 2**20]))
        if inflated > 16 * budgets[1]:
            break
    return max(len(data) / budgets[0], inflated / budgets[1])


def _fitting_parts(n: int, r: int, bound: int, pairs: list[mp.PairClause], over: float,
                   deadline: float) -> tuple[list[int], list[tuple[bytes, int]]] | None:
    """An ``lrat-parts`` refutation whose every file fits the input budgets, for a one-file
    proof ``over`` times too large, or None (time, or no split up to
    :data:`robustgraph.certificate.proofs.minimality.MAX_SPLIT` variables fits). Starts on
    ceil(log2(over)) + 2 variables (the largest part held about half the proof at n = 11, r = 5,
    split on 3) and adds 2 while a part is over."""
    k = math.ceil(math.log2(over)) + 2
    while k <= mp.MAX_SPLIT:
        found = _parts_refutation(n, r, bound, pairs, k, deadline)
        if found is None or all(overflow(data) <= 1 for data, _ in found[1]):
            return found
        k += 2
    return None


def _parts_refutation(n: int, r: int, bound: int, pairs: list[mp.PairClause], k: int,
                      deadline: float) -> tuple[list[int], list[tuple[bytes, int]]] | None:
    """Refute the CNF in the 2^k parts of an ``lrat-parts`` proof, one after another: the split
    (the k edge variables in the most pair clauses) and each part's gzip-compressed, trimmed
    refutation of the CNF with its cube (:func:`.minimality.part_cnf`), with its additions; or
    None at the deadline."""
    cnf = mp.encode(n, r, bound, pairs)
    split = minimum_cubes.split_variables(pairs, k)
    parts = []
    for index in range(2 ** len(split)):
        status, text = sat.refute(mp.part_cnf(cnf, split, index),
                                  max(deadline - time.monotonic(), 0.01))
        if status is not False or text is None:
            return None
        text = trim(text)
        parts.append((gzip.compress(text, compresslevel=1, mtime=0), lrat_additions(text)))
    return split, parts


def _refutation(n: int, r: int, bound: int, pairs: list[mp.PairClause],
                deadline: float, cubes: int = 0) -> tuple[bytes, int] | None:
    """Refute the whole CNF once more with LRAT logging: the gzip-compressed proof, trimmed to
    the lemmas its empty clause uses (:func:`robustgraph.certificate.proofs.trim.trim`), and
    its additions; or None at the deadline. With ``cubes`` = k >= 1, by cube and conquer on
    2^k cubes, two worker processes (:mod:`robustgraph.design.minimum_cubes`; each cube's proof
    trimmed the same way).

    Trimming keeps a refutation the checker accepts exactly when it accepts the log (the
    module notes of :mod:`robustgraph.certificate.proofs.trim`); it drops the deletions too.
    Measured in docs/design.md ("What the counterexample loop costs").
    """
    if cubes:
        found = minimum_cubes.refute(n, r, bound, pairs, cubes, deadline)
        text = None if found is None else found[0]
    else:
        status, text = sat.refute(mp.encode(n, r, bound, pairs),
                                  max(deadline - time.monotonic(), 0.01))
        text = trim(text) if status is False and text is not None else None
    if text is None:
        return None
    return gzip.compress(text, compresslevel=1, mtime=0), lrat_additions(text)


PROGRESS_EVERY = 10_000
"""Pair clauses between two progress lines of :func:`prove_minimum`."""




class _Rate:
    """Candidates (the solver's models, one pair clause each) per CPU second between two
    progress lines: how fast the counterexample loop runs as its pair clauses pile up."""

    def __init__(self, clauses: int) -> None:
        self.clauses, self.cpu = clauses, time.process_time()

    def tick(self, clauses: int) -> str:
        """The rate since the previous call (or since the level's search began), as text."""
        now = time.process_time()
        text = f"{(clauses - self.clauses) / max(now - self.cpu, 1e-9):,.0f} candidates/s"
        self.clauses, self.cpu = clauses, now
        return text


def _search(n: int, r: int, s: int, level: int, pairs: list[mp.PairClause], budget: int,
            deadline: float, progress: Callable[[str], None] | None
            ) -> tuple[str, list[int] | None]:
    """The counterexample-guided search for a graph with at most ``level`` - 1 edges, the pair
    clauses found appended to ``pairs``: ``("unsat", None)`` when none is left,
    ``("robust", masks)`` for a proven (r, s)-robust one, else ``(why it stopped, None)``."""
    solver = _new_solver(n, r, level, pairs)
    rate = _Rate(len(pairs))
    try:
        while True:
            status = solve_until(solver, deadline)
            if status is None:
                return "the time limit stopped the SAT search", None
            if status is False:
                return "unsat", None
            masks = model_masks(n, solver.get_model())
            pair = witness(masks, r, s, budget, deadline)
            if pair is UNKNOWN:
                return "an exact check ran out of budget or time", None
            if pair is None:
                return "robust", masks
            held = len(pairs)
            for clause in pair_clauses(n, r, s, masks, pair):
                pairs.append(clause)
                solver.add_clause(list(clause.literals))
            if len(pairs) // PROGRESS_EVERY > held // PROGRESS_EVERY:
                report(progress, f"level {level}: {len(pairs):,} pair clauses, "
                                  f"{rate.tick(len(pairs))}")
    finally:
        solver.delete()


def _certify(n: int, r: int, s: int, level: int, pairs: list[mp.PairClause], deadline: float,
             cubes: int, parts: int) -> tuple[dict[str, Any], dict[str, bytes]] | str:
    """Refute the CNF of ``level`` with these pair clauses and check the certificate: its proof
    object and files, or why there is none (the time limit, or the check's refusal)."""
    found = (_parts_refutation(n, r, level, pairs, parts, deadline) if parts
             else (None, _refutation(n, r, level, pairs, deadline, cubes)))
    if not parts and not cubes and found[1] is not None and (over := overflow(found[1][0])) > 1:
        found = _fitting_parts(n, r, level, pairs, over, deadline) or found
    if found is None or found[1] is None:
        return "the time limit stopped the LRAT refutation"
    proof, files = (_lrat_proof(n, r, level, pairs, *found[1]) if found[0] is None
                    else _parts_proof(n, r, level, pairs, *found))
    try:
        mp.check_minimum(_document(n, r, level, proof, s), files.__getitem__)
    except (mp.MinimalityError, OverBudget) as exc:  # a proof too big to check proves nothing
        return f"the proof did not check: {exc}"
    return proof, files


def _checked(n: int, r: int, s: int, level: int, proof: dict[str, Any],
             files: dict[str, bytes]) -> tuple[dict[str, Any], dict[str, bytes]] | str:
    """A ``degree-split`` proof of ``level`` once the checker accepts it, or why not."""
    try:
        mp.check_minimum(_document(n, r, level, proof, s), files.__getitem__)
    except (mp.MinimalityError, OverBudget) as exc:
        return f"the proof did not check: {exc}"
    return proof, files


def prove_minimum(
    n: int,
    r: int,
    edges: int,
    *,
    s: int = 1,
    time_limit: float = 60.0,
    budget: int = 2_000_000,
    search: bool = True,
    cubes: int = 0,
    parts: int = 0,
    climb: bool = False,
    progress: Callable[[str], None] | None = None,
    known: Sequence[mp.PairClause] = (),
    split: bool | None = None,
    seed: str = "off",
    store: str | Path | None = None,
    reverse: bool = False,
) -> MinimumResult:
    """Prove that no r-robust (or (r, s)-robust) graph on n nodes has fewer than ``edges``
    edges, or find one.

    Parameters
    ----------
    n, r : int
        Nodes (at most :data:`robustgraph.certificate.proofs.minimality.MAX_N` for the SAT
        proof; :data:`MAX_N_RS` when s >= 2) and robustness, 1 <= r <= ceil(n/2).
    edges : int
        The edge count of a known r-robust (or (r, s)-robust) graph.
    s : int
        1 (r-robustness) or up to n: (r, s)-robustness (LeBlanc et al. 2013, Def. 7), where
        the oracle is the exhaustive subset table (:func:`solvers.exhaustive.exact_s`).
    time_limit : float
        Seconds for the whole proof (search and LRAT refutation).
    budget : int
        Branch-and-bound nodes per oracle check.
    search : bool
        Run the SAT search when no closed-form bound meets ``edges``; False certifies the best
        closed-form bound only.
    cubes : int
        0: the final refutation by one CaDiCaL run; k >= 1: by cube and conquer on 2^k cubes
        and two processes (:mod:`robustgraph.design.minimum_cubes`), combined into one LRAT
        refutation of the same CNF.
    parts : int
        0: one refutation file, or, when that file is over the input budgets (and ``cubes`` is
        0), an ``lrat-parts`` proof on as many variables as make every part fit (the one-file
        proof when none does); k >= 1: an ``lrat-parts`` proof, 2^k refutations of the CNF
        under the cubes on k edge variables, each its own file (so that each may fit the
        input budgets where one file would not; module notes of
        :mod:`robustgraph.certificate.proofs.minimality`). Not with ``cubes``.
    climb : bool
        False: refute ``edges`` - 1 edges directly. True: refute one level at a time, from one
        above the best closed-form bound up to ``edges``, the pair clauses of every level kept
        for the next (a pair clause holds whatever the level) and each level certified (refuted
        and checked) before the next: a run the time limit stops still proves the highest
        level it certified (the result's ``lower_bound``, its certificate in ``document``).
    progress : callable, optional
        Called with a line (level, pair clauses, candidates per CPU second since the last
        line, CPU seconds) every :data:`PROGRESS_EVERY`
        pair clauses and at each level certified.
    known : sequence of PairClause
        Pair clauses to start the search from (a stopped run's ``clauses``); each is checked
        against the definition first (:func:`.minimality.pair_clause_problem`).
    split : bool or None
        True: refute each level case by case over the degree sequences it allows, a
        ``degree-split`` proof (:mod:`robustgraph.design.minimum_split`; r >= 2, not with
        ``cubes``, ``parts`` or ``known``); False: one search and one CNF; None (default): the
        split from :data:`SPLIT_FROM` nodes on, where it was measured cheaper.
    seed : str
        With the split: how each new case is seeded with the pair clauses of the cases refuted
        before it (:mod:`robustgraph.design.minimum_seeds`): ``off``, ``all`` (every one) or
        ``violated`` (those its models violate). Each case's certificate lists its seeds among
        its pair clauses, re-derived by the checker like the others.
    store : path, optional
        With the split: a folder where each case is written as soon as it is refuted, and
        from which the cases of an earlier run of the same n, r, s are taken first
        (:mod:`robustgraph.design.minimum_store`), so a run stopped by its time limit, ^C or a
        restart resumes from its finished cases. The whole proof is checked before it is
        handed out, stored cases included.
    reverse : bool
        With the split: take each level's cases from the last. With a store, a case found
        there when its turn comes (stored by another run meanwhile) is taken, not searched:
        two runs on one store, one of them reversed, share each level's cases between them.

    Returns
    -------
    MinimumResult
        With a checked certificate in ``document`` (``files`` its proof files) when a bound
        was proven; ``minimum`` says whether it meets the edge count. On a time limit the
        proven bound is the best closed-form one (with ``climb``, the highest level certified),
        and the result says so in ``note``.

    Raises
    ------
    ParameterError
        For a known pair clause the definition does not give.
    MissingExtra
        When the SAT proof is needed and python-sat is not installed (the ``proofs`` extra).

    Examples
    --------
    >>> res = prove_minimum(6, 2, 8, time_limit=30)
    >>> res.minimum, res.lower_bound, res.document["proof"]["kind"]
    (True, 8, 'lrat')

    Notes
    -----
    Exponential in the worst case (every model may be a new graph); n <= 10 takes seconds to
    minutes on the cells we measured, n = 11 (r = 2-5) and n = 12 (r = 2) 1.5-35 minutes of CPU.
    One-file proofs of n = 11, r = 3-5 and n = 12, r = 2 (90-470 MB gzip) are over the default
    input budgets; in parts, n = 11, r = 4 and 5 fit them. A proof that does not fit even in
    parts checks here only with the budgets raised, else the result falls back to the
    closed-form bound (docs/design.md, "Exact minima").
    """
    if parts and cubes:
        raise ParameterError("cubes and parts are two ways to split the refutation: choose one")
    if split and (parts or cubes or known):
        raise ParameterError("the degree-sequence split refutes its own cases: not with cubes, "
                             "parts or known pair clauses")
    by_degree = (split if split is not None
                 else n >= SPLIT_FROM and not (parts or cubes or known)) and r >= 2
    if seed not in SEEDS:
        raise ParameterError(f"seed = {seed!r}: expected one of {', '.join(SEEDS)}")
    if (seed != "off" or store is not None) and not by_degree:
        raise ParameterError("seeding and a case store belong to the degree-sequence split "
                             "(r >= 2, split not False)")
    if not 0 <= parts <= mp.MAX_SPLIT:
        raise ParameterError(f"parts = {parts}: expected 0 to {mp.MAX_SPLIT} split variables")
    if not (n >= 2 and 1 <= r <= max_robustness(n) and 1 <= s <= n) or edges < 1:
        raise ParameterError(f"no minimum to prove for n = {n}, r = {r}, s = {s}, "
                             f"edges = {edges}")
    for i, clause in enumerate(known, 1):
        if problem := mp.pair_clause_problem(n, r, clause, s):
            raise ParameterError(f"known pair clause {i}: {problem}")
    began = time.monotonic()
    deadline = began + time_limit
    formulas = mp.formula_bounds(n, r)
    name = max(formulas, key=formulas.__getitem__)
    best = formulas[name]

    formula = {"kind": "formula", "formula": name}

    def done(bound: int, proof: dict[str, Any], files: dict[str, bytes], checked: bool = False,
             **extra: Any):
        doc = _document(n, r, bound, proof, s)
        if not checked:  # never hand out a proof we refuse
            mp.check_minimum(doc, files.__getitem__)
        return MinimumResult(n, r, edges, bound, time.monotonic() - began, doc, files, s=s,
                             **extra)

    if edges <= best:
        return done(best, formula, {})
    if not search:
        return done(best, formula, {}, note="no SAT search asked for")
    top = mp.MAX_N if s == 1 else MAX_N_RS
    if n > top:
        return done(best, formula, {}, note=f"no SAT proof above n = {top}")
    if not sat.available():
        raise missing("pysat", "--prove-minimal")
    pairs: list[mp.PairClause] = list(known)
    better: list[int] | None = None
    last: tuple[int, dict[str, Any], dict[str, bytes]] | None = None  # highest level certified
    level, note = (best + 1 if climb else edges), ""
    cases = minimum_split.Split(n, seed, None if store is None else CaseStore(store, n, r, s),
                                reverse)
    if by_degree and (taken := cases.resume()):
        report(progress, f"{taken} refuted cases taken from {cases.store.path}")
    while level <= edges:
        if by_degree:
            status, found = minimum_split.search_level(n, r, s, level, budget, deadline,
                                                       progress, cases)
        else:
            status, found = _search(n, r, s, level, pairs, budget, deadline, progress)
        if status == "robust":  # an r-robust graph below the level: the count to beat drops
            better, edges = found, sum(m.bit_count() for m in found) // 2
            level = level if climb else edges  # climbing: edges = level - 1, proven just below
            continue
        if status != "unsat":
            note = status
            break
        made = (_checked(n, r, s, level, *found) if by_degree
                else _certify(n, r, s, level, pairs, deadline, cubes, parts))
        if isinstance(made, str):
            note = made
            break
        last = (level, *made)
        report(progress, f"level {level} certified: at least {level} edges")
        level += 1
    held = last[1].get("pairs", 0) if by_degree and last else len(pairs)
    if last is None:
        return done(best, formula, {}, better=better, pairs=held, note=note, clauses=pairs)
    return done(*last, better=better, pairs=held, note=note if last[0] < edges else "",
                checked=True, clauses=pairs)
