"""What a certificate's bounds rest on: each upper bound's witness and each lower bound's proof,
checked without any solver, and the robustness they establish (``verify --require``).

For every check the upper bound is a trivial bound or a witness pair (checked in
:mod:`~robustgraph.certificate.verifier`), and the lower bound ``L`` asserts (r, s)-robustness:
(L, 1) on r*, (r, L) on s*_r. A lower bound is *checked* when it is trivial (r = 0 or s = 0)
or its proof object passes :func:`robustgraph.certificate.proofs.checker.check_proof`; a
lower bound without a proof is the engine's word only, and is reported as such.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from robustgraph.certificate.claims import Claim
from robustgraph.certificate.outcome import question_text, trivial_upper
from robustgraph.certificate.proofs.checker import ProofError, View, check_proof
from robustgraph.certificate.records import Check, ClaimRecord
from robustgraph.errors import CertificateError
from robustgraph.topology import Topology

if TYPE_CHECKING:
    from robustgraph.certificate.document import Certificate

__all__ = ["Bound", "check_bounds", "disproof", "negation", "proven", "requirement_problem"]


@dataclass(frozen=True)
class Bound:
    """One check's two bounds and what was checked of each.

    ``robustness`` is the (r, s) its lower bound asserts; ``proof`` the kind of the checked
    proof (``trivial`` for r = 0 or s = 0), or None when the lower bound is the engine's word.
    """

    where: str
    question: str
    upper_text: str
    lower_text: str
    robustness: tuple[int, int]
    proof: str | None

    @property
    def line(self) -> str:
        return f"{self.where} {self.question}: {self.upper_text}; {self.lower_text}"

    def to_dict(self) -> dict[str, object]:
        r, s = self.robustness
        return {
            "where": self.where,
            "question": self.question,
            "upper": self.upper_text,
            "lower": self.lower_text,
            "robustness": {"r": r, "s": s},
            "proof": self.proof,
        }


def _upper_text(topology: Topology, check: Check) -> str:
    q = check.bound_on
    if check.upper >= trivial_upper(topology, check.question) or check.witness is None:
        return f"upper bound {q} <= {check.upper}: trivial bound"
    return f"upper bound {q} <= {check.upper}: witness checked"


def _lower(
    view: View, check: Check, read: Callable[[str], bytes]
) -> tuple[str, str | None, str | None]:
    """(text, proof kind or None, problem or None) for the check's lower bound."""
    q = check.bound_on
    r, s = check.robustness
    head = f"lower bound {q} >= {check.lower}"
    if r <= 0 or s <= 0:
        if check.proof is not None:
            return head, None, f"{head} is trivial but carries a proof"
        return f"{head}: trivial", "trivial", None
    if check.proof is None:
        return f"{head}: engine's word only, no proof", None, None
    try:
        done = check_proof(view, r, s, check.proof, read)
    except ProofError as exc:
        return head, None, f"{head}: the {check.proof.get('kind')} proof fails: {exc}"
    except CertificateError as exc:
        return head, None, f"{head}: {exc}"
    return f"{head}: {done.text}", done.kind, None


def check_bounds(cert: Certificate, topology: Topology) -> tuple[list[Bound], list[str]]:
    """Check every proof of ``cert`` against ``topology``; the bounds and the problems found.

    The answer is kept in ``cert.checked`` under the graph's content hash, for this very
    certificate object (a copy made with ``dataclasses.replace`` shares the dict but not the
    answer), so a second caller (the run gate after ``verify``) gets it without checking the
    proofs again.

    Notes
    -----
    The cost of the proofs' checkers (:mod:`robustgraph.certificate.proofs.checker`), once per
    certificate and graph.
    """
    key = topology.content_hash
    owner, bounds, problems = cert.checked.get(key, (None, [], []))
    if owner is not cert:
        bounds, problems = _check_bounds(cert, topology)
        cert.checked[key] = (cert, bounds, problems)
    return list(bounds), list(problems)


def _check_bounds(cert: Certificate, topology: Topology) -> tuple[list[Bound], list[str]]:
    view = View.of(topology)
    bounds, problems = [], []
    for i, record in enumerate(cert.claims, 1):
        for j, check in enumerate(record.checks, 1):
            where = f"claim {i} check {j}"
            text, kind, problem = _lower(view, check, cert.read_file)
            if problem:
                problems.append(f"{where}: {problem}")
                continue
            upper = _upper_text(topology, check)
            q = question_text(check.question)
            bounds.append(Bound(where, q, upper, text, check.robustness, kind))
    return bounds, problems


def proven(bounds: Sequence[Bound]) -> list[tuple[int, int, str]]:
    """The (r, s)-robustness facts with a checked lower bound: ``(r, s, proof kind)``."""
    return [(*b.robustness, b.proof) for b in bounds if b.proof is not None]


def _implies(fact: tuple[int, int], r: int, s: int) -> bool:
    """Whether (fr, fs)-robustness implies (r, s)-robustness (LeBlanc et al. 2013): monotone in
    r and s, and a (2F+1)-robust graph is (F+1, F+1)-robust."""
    fr, fs = fact
    if fr >= r and fs >= s:
        return True
    return fs >= 1 and s <= (fr - 1) // 2 + 1 and r <= (fr - 1) // 2 + 1


def requirement_problem(
    claim: Claim, facts: Sequence[tuple[int, int, str]]
) -> tuple[str | None, str | None]:
    """``(problem, kind)``: why the checked facts do not prove ``claim`` (None when they do),
    and the kind of proof that does.

    Raises
    ------
    ValueError
        For a ``max`` claim, which is not a requirement.
    """
    q = claim.question()
    if q is None:
        raise ValueError("a max claim cannot be required")
    r, s = (q.r, q.s) if q.about_s else (q.r, 1)
    for fr, fs, kind in sorted(facts, key=lambda f: (f[2] == "trivial", -f[0], -f[1])):
        if _implies((fr, fs), r, s):
            return None, kind
    best = max((f[0] for f in facts if f[1] >= 1 and f[2] != "trivial"), default=0)
    most = (
        f"its checked lower bounds prove {best}-robustness at most"
        if best
        else "it has no checked lower bound above the trivial r* >= 0"
    )
    return f"the certificate does not prove {claim.describe()} with a checked proof ({most})", None


def disproof(claim: Claim, records: Sequence[ClaimRecord]) -> str | None:
    """Why ``records`` prove ``claim`` false, or None: a check whose witnessed upper bound
    contradicts it (``verify --require`` on a refuted certificate; issue 44, item 4).

    r* <= u refutes (r, s)-robustness for r > u; s*_q <= u refutes it for r >= q and s > u,
    since (r, s)-robustness is monotone in r and s and implies r-robustness (LeBlanc et al.
    2013). Only meaningful once the witnesses are checked (``verify`` does that first).
    """
    q = claim.question()
    if q is None:
        raise ValueError("a max claim cannot be required")
    r, s = (q.r, q.s) if q.about_s else (q.r, 1)
    for i, record in enumerate(records, 1):
        for j, check in enumerate(record.checks, 1):
            if check.witness is None:
                continue
            ask = check.question
            if (ask.about_s and r >= ask.r and s > check.upper) or (
                not ask.about_s and r > check.upper
            ):
                return (
                    f"the certificate proves that the graph {negation(claim)}: "
                    f"{check.bound_on} <= {check.upper} (claim {i} check {j}, checked)"
                )
    return None


def negation(claim: Claim) -> str:
    """What a refutation of a decision claim says of the graph, in words.

    Examples
    --------
    >>> negation(Claim.tolerance(4, "sac"))
    'is NOT 5-robust, so it does NOT tolerate F = 4 under sac'
    >>> negation(Claim.rs_robust(2, 2))
    'is NOT (2, 2)-robust'
    """
    q = claim.question()
    if q is None:
        raise ValueError("a max claim has no negation")
    needs = f"({q.r}, {q.s})-robust" if q.about_s else f"{q.r}-robust"
    if claim.kind == "tolerance":
        return f"is NOT {needs}, so it does NOT tolerate F = {claim.F} under {claim.model}"
    return f"is NOT {needs}"
