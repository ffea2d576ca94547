"""Re-checking a certificate against its graph: binding, witnesses, proofs, consistency.

A witness pair is checked against the definitions (LeBlanc et al. 2013, Defs. 5-7) in
polynomial time; a lower bound is checked through its proof object by our own small checkers
(:mod:`robustgraph.certificate.assurance`), without running any solver. A lower bound without a
proof is reported as the engine's word only; ``--resolve-with`` can still re-prove it with an
independent engine.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from robustgraph.certificate.assurance import (
    Bound,
    check_bounds,
    disproof,
    proven,
    requirement_problem,
)
from robustgraph.certificate.claims import Claim
from robustgraph.certificate.outcome import (
    claim_outcome,
    conflict,
    next_question,
    overall_verdict,
    run_problems,
)
from robustgraph.certificate.records import Check, ClaimRecord, Run, aggregate
from robustgraph.certificate.witness import witness_problem
from robustgraph.graphs import as_topology
from robustgraph.limits import PROOF_STEPS
from robustgraph.topology import Topology
from solvers import registry
from solvers.types import Question, Request

if TYPE_CHECKING:
    from robustgraph.certificate.document import Certificate

__all__ = ["VerifyReport", "verify"]


@dataclass(frozen=True)
class VerifyReport:
    """The outcome of :func:`verify`.

    ``valid`` is True when nothing is wrong; ``reasons`` says what is, one line each; ``verdict``
    is the certificate's own (``proven``, ``refuted``, ``undecided``), which a valid certificate
    may well report as ``refuted``; ``checked`` lists what was checked.
    """

    valid: bool
    reasons: tuple[str, ...]
    verdict: str | None
    checked: tuple[str, ...]
    bounds: tuple[Bound, ...] = ()
    rejections: tuple[str, ...] = ()
    """Why a valid certificate falls short of what was required (``require``,
    ``require_proof``); empty when nothing was required or all was met."""

    @property
    def fully_checked(self) -> bool:
        """True when valid and every lower bound was checked by a proof (or is trivial)."""
        return self.valid and all(bound.proof is not None for bound in self.bounds)

    @property
    def exit_code(self) -> int:
        """0 valid (and meeting every requirement), else 1 (what ``robustgraph verify`` exits
        with)."""
        return 0 if self.valid and not self.rejections else 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "fully_checked": self.fully_checked,
            "verdict": self.verdict,
            "reasons": list(self.reasons),
            "rejections": list(self.rejections),
            "checked": list(self.checked),
            "bounds": [bound.to_dict() for bound in self.bounds],
        }


def _binding_problem(cert: Certificate, topology: Topology) -> str | None:
    g = cert.graph
    ours = (topology.content_hash, topology.n, topology.m, topology.directed)
    if (g.hash, g.n, g.m, g.directed) == ours:
        return None
    kind = {True: "directed", False: "undirected"}
    return (
        f"certificate is for another graph: it binds to {g.hash} (n = {g.n}, m = {g.m}, "
        f"{kind[g.directed]}), the file is {topology.content_hash} (n = {topology.n}, "
        f"m = {topology.m}, {kind[topology.directed]})"
    )


def _check_problems(topology: Topology, check: Check, engines: list[str]) -> list[str]:
    problems = []
    for run in check.runs:
        problems += run_problems(topology, check.question, run)
        if run.engine not in registry.engine_names():
            known = ", ".join(registry.engine_names())
            problems.append(f"run by unknown engine {run.engine!r} (engines: {known})")
    if [run.engine for run in check.runs] != engines:
        problems.append(
            f"runs by {', '.join(run.engine for run in check.runs)} but the certificate names "
            f"engines {', '.join(engines)}: every engine must answer every question"
        )
    disagreement = conflict(check.question, check.runs)
    if disagreement:
        problems.append(disagreement)
    lower, upper, witness = aggregate(check.runs)
    if (check.lower, check.upper) != (lower, upper):
        problems.append(
            f"{check.bound_on} bounds [{check.lower}, {check.upper}] are not those its runs proved "
            f"[{lower}, {upper}]"
        )
    if check.witness != witness and check.witness is not None:
        problem = witness_problem(topology, check.question, check.upper, check.witness)
        if problem:
            problems.append(f"witness invalid: {problem}")
    elif check.witness != witness:
        problems.append(f"the witness for {check.bound_on} <= {check.upper} is missing")
    return problems


def _asked(q: Question) -> str:
    return f"{q.kind}(r={q.r}, s={q.s})"


def _record_problems(topology: Topology, record: ClaimRecord, engines: list[str]) -> list[str]:
    problems = []
    for j, check in enumerate(record.checks):
        expected = next_question(topology, record.claim, record.checks[:j])
        if expected != check.question:
            wanted = "nothing more" if expected is None else _asked(expected)
            return [f"check {j + 1} asks {_asked(check.question)} but the claim needs {wanted}"]
        problems += [f"check {j + 1}: {p}" for p in _check_problems(topology, check, engines)]
    # A max claim's F-total search may end before its last question (certify asks none after
    # the deadline): the values are then the bounds the questions asked prove, and the claim
    # is undecided, which the recomputed verdict below checks.
    verdict, values = claim_outcome(topology, record.claim, record.checks)
    if record.verdict != verdict:
        problems.append(
            f"verdict {record.verdict} does not follow from its checks, which give {verdict}"
        )
    if record.values != values:
        problems.append(
            f"values {record.values} do not follow from its checks, which give {values}"
        )
    return problems


def _resolve_problems(topology: Topology, check: Check, engine: str, request: Request) -> list[str]:
    request = replace(request, question=check.question)
    run = Run.of(topology, engine, registry.solve(request, engine))
    problems = run_problems(topology, check.question, run)
    q = check.bound_on
    if run.lower > check.upper or run.upper < check.lower:
        problems.append(
            f"re-solving with {engine} gives {run.lower} <= {q} <= {run.upper}, which contradicts "
            f"the certificate's {check.lower} <= {q} <= {check.upper}"
        )
    else:
        target = check.question.target
        needed = check.lower if target is None else (target if check.holds else 0)
        if run.lower < needed:
            problems.append(
                f"{engine} could not confirm {q} >= {needed} (it proved {q} >= {run.lower}, "
                f"status {run.status})"
            )
    return problems


def proof_work(proof: dict[str, Any] | None, n: int, m: int) -> int:
    """The steps the checker of ``proof`` takes on a graph of ``n`` nodes and ``m`` edges, known
    before it runs, in the units the checkers report (``proofs.checker.check_proof``): ``2^n``
    subsets (exhaustive), ``m`` (theorem), the order plus the base's proof (construction), the
    recorded steps (LRAT) or tree nodes (core tree); 0 without a proof.

    Examples
    --------
    >>> proof_work({"kind": "exhaustive"}, 20, 50)
    1048576
    >>> proof_work({"kind": "construction", "base": ["a", "b"], "order": ["c"],
    ...             "base_proof": {"kind": "exhaustive"}}, 3, 3)
    5
    """
    kind = (proof or {}).get("kind")
    if proof is None or kind not in ("exhaustive", "construction", "lrat", "theorem", "coretree"):
        return 0
    if kind == "exhaustive":
        return 1 << min(n, 64)
    if kind == "construction":
        base = proof.get("base") or []
        return len(proof.get("order") or []) + proof_work(proof.get("base_proof"), len(base), m)
    if kind in ("lrat", "coretree"):
        steps = proof.get("steps" if kind == "lrat" else "nodes")
        return steps if isinstance(steps, int) and steps >= 0 else 0
    return m


def _repeats(cert: Certificate) -> tuple[set[int], list[str]]:
    """The claims (1-based) that repeat an earlier one, and the reason for the first: checking
    a claim again proves nothing new, and 1,000 copies of one exhaustive claim took 37 s."""
    first: dict[Claim, int] = {}
    repeats: set[int] = set()
    for i, record in enumerate(cert.claims, 1):
        if first.setdefault(record.claim, i) != i:
            repeats.add(i)
    if not repeats:
        return repeats, []
    i = min(repeats)
    claim = cert.claims[i - 1].claim
    return repeats, [f"claim {i} ({claim.describe()}) repeats claim {first[claim]}; a "
                     f"certificate states each claim once ({len(repeats)} repeat(s); no proof "
                     "was checked)"]


def _check_work(cert: Certificate, topology: Topology) -> None:
    """Hold the proofs' work summed over every claim to the ``proof steps`` budget
    (``OverBudget``, exit 2), before any proof is checked."""
    work = sum(
        proof_work(check.proof, topology.n, topology.m)
        for record in cert.claims for check in record.checks
    )
    PROOF_STEPS.check(work, f"the proof work of the certificate's {len(cert.claims)} claim(s), "
                            "summed (2^n per exhaustive proof, m per theorem, LRAT steps)")


def verify(
    cert: Certificate,
    topology: Topology,
    *,
    resolve_with: str | None = None,
    time_limit: float | None = None,
    threads: int = 1,
    require: Claim | None = None,
    require_proof: bool = False,
) -> VerifyReport:
    """Check that ``cert`` is a true certificate of ``topology``.

    Checks, in order: the certificate binds to this graph (content hash, n, m, directed); for
    every claim, the questions asked are the ones the claim needs, in order (so a claim edited
    upward is caught; a ``max`` claim's F-total search may stop early, leaving it undecided);
    every run's bounds are ordered, possible (a proven r* above ceil(n/2) or above
    max(1, min in-degree) is impossible) and consistent with its status (a proven verdict needs
    ``exact`` runs); every engine named in the parameters answered every question and none
    contradicts another (and names a known engine); every witness verifies; every proof object
    of a lower bound checks (:mod:`robustgraph.certificate.assurance`); each check's bounds,
    each verdict, each ``max`` value and the overall verdict follow from the runs (a claim no
    graph on n nodes satisfies is checked like any other: only its refutation can be valid).
    Optionally every question is re-solved with
    ``resolve_with``, whose result must agree and confirm each lower bound.

    Parameters
    ----------
    cert : Certificate
        As read by ``Certificate.load`` (which has already checked the schema).
    topology : Topology
        The graph the certificate should be about.
    resolve_with : str, optional
        An engine to re-prove every question with (e.g. ``cpsat`` for a ``highs`` certificate).
    time_limit : float, optional
        Seconds per re-solved question.
    threads : int
        Solver threads for re-solving.
    require : Claim, optional
        A decision claim the checked lower bounds must prove (else a rejection).
    require_proof : bool
        Reject the certificate when any lower bound lacks a checked proof.

    Returns
    -------
    VerifyReport

    Raises
    ------
    OverBudget
        The proofs' work summed over the claims (:func:`proof_work`) is over the ``proof
        steps`` budget; checked before any proof is.

    Examples
    --------
    >>> from robustgraph import Topology
    >>> from robustgraph.certificate import Claim, certify
    >>> k4 = Topology.from_edges([(u, v) for u in range(4) for v in range(u + 1, 4)])
    >>> cert = certify(k4, Claim.r_robust(2), engines="exhaustive")
    >>> verify(cert, k4).valid
    True

    Notes
    -----
    Without re-solving: O(sum over checks of (n + m)) time plus the proofs' checkers
    (exhaustive O(n 2^n) for n <= 20, LRAT linear in the proof's size).
    """
    topology = as_topology(topology)  # a networkx/igraph graph or edge list too
    checked = ["schema"]
    binding = _binding_problem(cert, topology)
    if binding:
        return VerifyReport(False, (binding,), cert.verdict, tuple(checked))
    checked.append("graph hash, n, m, directed")
    engines = cert.provenance["parameters"]["engines"]
    repeats, reasons = _repeats(cert)
    for i, record in enumerate(cert.claims, 1):
        if i in repeats:
            continue
        where = f"claim {i} ({record.claim.describe()})"
        reasons += [f"{where}: {p}" for p in _record_problems(topology, record, engines)]
    witnesses = sum(
        run.witness is not None for rec in cert.claims for c in rec.checks for run in c.runs
    )
    checked.append(f"{witnesses} witness(es) and the consistency of {len(cert.claims)} claim(s)")
    bounds: list[Bound] = []
    if not repeats:
        _check_work(cert, topology)
        bounds, problems = check_bounds(cert, topology)
        reasons += problems
    proofs = sum(bound.proof not in (None, "trivial") for bound in bounds)
    checked.append(f"{proofs} proof(s) of lower bounds")
    overall = overall_verdict(record.verdict for record in cert.claims)
    if cert.verdict != overall:
        reasons.append(
            f"overall verdict {cert.verdict} does not follow from the claims, which give {overall}"
        )
    if resolve_with is not None and not reasons:
        seed = cert.provenance["parameters"]["seed"]
        base = Request(
            topology, Question.max_r(), time_limit=time_limit, threads=threads, seed=seed
        )
        for i, record in enumerate(cert.claims, 1):
            where = f"claim {i} ({record.claim.describe()})"
            for check in record.checks:
                problems = _resolve_problems(topology, check, resolve_with, base)
                reasons += [f"{where}: {p}" for p in problems]
        count = sum(len(record.checks) for record in cert.claims)
        checked.append(f"re-solved {count} question(s) with {resolve_with}")
    rejections = []
    if require_proof:
        rejections += [f"{b.where} {b.question}: {b.lower_text}" for b in bounds if b.proof is None]
    if require is not None:
        unmet, _ = requirement_problem(require, proven(bounds))
        if unmet:
            rejections.append(disproof(require, cert.claims) or unmet)
    return VerifyReport(
        not reasons, tuple(reasons), cert.verdict, tuple(checked), tuple(bounds), tuple(rejections)
    )
