"""The runner's certificate gate: run SAC with F faults only on a graph proven (F+1)-robust.

Proven means what ``robustgraph verify --require 'tolerance sac F=F'`` means: a lower bound
whose proof object our own checkers validated (``robustgraph.certificate.assurance``, the same
check); a bound that is only an engine's word does not open the gate.

SAC tolerates F Byzantine agents in every neighbourhood (the F-local model) on an
(F+1)-robust graph (Lee et al. 2026; LeBlanc et al. 2013 for the robustness notion). Before a
run, :func:`obtain_certificate` loads a certificate and re-checks it against the graph, or
certifies the graph itself within a time limit; :func:`check_gate` then reads what the
certificate proves and refuses a run it does not cover, saying why in words (the witness pair
when the certificate refutes the claim), unless the run explicitly allows uncertified graphs,
which the results record.

Robustness is half of SAC's premise; the other half is where the Byzantine agents sit. Property
4.2 of the SAC paper assumes an F-local Byzantine set B (Def. 3.2): every agent outside B hears
at most F members of B, where B holds the adversarial agents and the faulty ones (Def. 3.1; the
weak honest agents, Sec. 5.1). :func:`check_placement` checks the run's actual B against F before
any work and refuses a placement outside the model (exit 2) unless the run allows uncertified
graphs, in which case the gate's report labels the run outside the model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from robustgraph.certificate.assurance import check_bounds, proven, requirement_problem
from robustgraph.certificate.certifier import certify
from robustgraph.certificate.claims import Claim
from robustgraph.certificate.document import Certificate, InvalidCertificate
from robustgraph.certificate.witness import witness_words
from robustgraph.errors import CertificateError, ParameterError
from robustgraph.generators import DEFAULT_ENGINE
from robustgraph.topology import Topology

__all__ = [
    "GateReport",
    "NotCertified",
    "OutsideModel",
    "Placement",
    "check_gate",
    "check_placement",
    "obtain_certificate",
    "proven_r",
]


class NotCertified(CertificateError):
    """The certificate does not prove the robustness the run needs (exit 1: checked, not met)."""

    exit_code = 1


class OutsideModel(ParameterError):
    """The run's Byzantine set is not F-local (exit 2: the requested run is outside SAC's model)."""


@dataclass(frozen=True)
class Placement:
    """The Byzantine set B checked against F: adversaries plus faulty agents (SAC Def. 3.1-3.2).

    ``max_heard`` is the most members of B any agent outside B hears (its in-neighbours in B),
    ``node`` one agent that hears that many (None when B is empty or is everyone).
    """

    F: int
    adversaries: tuple[str, ...]
    faulty: tuple[str, ...]
    max_heard: int
    node: str | None

    @property
    def f_local(self) -> bool:
        """Whether B is F-local (Def. 3.2): no agent outside B hears more than F of B."""
        return self.max_heard <= self.F

    def words(self) -> str:
        """``byzantine set checked: adversaries {1} + faulty {3, 5}; max per neighbourhood
        2 <= F = 3``, naming the agent that hears the most when that is over F."""
        sign = "<=" if self.f_local else ">"
        where = "" if self.f_local or self.node is None else f" (agent {self.node})"
        adversaries = "{" + ", ".join(self.adversaries) + "}"
        faulty = "{" + ", ".join(self.faulty) + "}"
        return (f"byzantine set checked: adversaries {adversaries} + faulty {faulty}; "
                f"max per neighbourhood {self.max_heard} {sign} F = {self.F}{where}")

    def to_json(self) -> dict[str, Any]:
        return {"adversaries": list(self.adversaries), "faulty": list(self.faulty),
                "max_heard": self.max_heard, "node": self.node, "F": self.F,
                "f_local": self.f_local}


def check_placement(
    topology: Topology,
    adversaries: Sequence[int],
    faulty: Sequence[int],
    F: int,  # noqa: N803 - the paper's F
    *,
    allow_outside: bool = False,
) -> Placement:
    """Check that the Byzantine set ``adversaries`` + ``faulty`` is F-local on ``topology``.

    SAC's guarantee (Lee et al. 2026, Property 4.2) holds for an F-local Byzantine set B =
    A + F (Def. 3.1-3.2, after LeBlanc et al. 2013): every agent outside B has at most F
    in-neighbours in B. O(n + m).

    Raises
    ------
    OutsideModel
        (exit 2) Some agent outside B hears more than F of B, unless ``allow_outside``.

    Examples
    --------
    >>> from robustgraph.generators import k_circulant
    >>> ring = k_circulant(10, 2)  # each agent hears the 2 agents on either side
    >>> outside = check_placement(ring, [1, 2, 8], [], 1, allow_outside=True)
    >>> outside.max_heard, outside.node, outside.f_local
    (3, '0', False)
    >>> check_placement(ring, [1, 2, 8], [], 3).words()
    'byzantine set checked: adversaries {1, 2, 8} + faulty {}; max per neighbourhood 3 <= F = 3'
    """
    byzantine = set(adversaries) | set(faulty)
    heard = [(len(byzantine.intersection(topology.in_neighbors[i])), i)
             for i in range(topology.n) if i not in byzantine]
    most, node = max(heard, key=lambda x: (x[0], -x[1]), default=(0, None))
    placement = Placement(
        F,
        tuple(str(topology.labels[i]) for i in sorted(adversaries)),
        tuple(str(topology.labels[i]) for i in sorted(faulty)),
        most,
        None if node is None else str(topology.labels[node]),
    )
    if not placement.f_local and not allow_outside:
        raise OutsideModel(
            f"refusing to run: the Byzantine set is not {F}-local (SAC's model, Def. 3.2): "
            f"{placement.words()}; raise --F, move the agents, or pass --allow-uncertified to "
            "run outside the model (recorded in the results)"
        )
    return placement


@dataclass(frozen=True)
class GateReport:
    """What the gate found: the robustness needed and proven, and whether the run may go on."""

    F: int
    needed_r: int
    proven_r: int
    certified: bool
    allow_uncertified: bool
    reason: str
    proof: str | None = None
    """The kind of checked proof that opened the gate (None when it stayed shut)."""
    placement: Placement | None = None
    """The Byzantine set checked against F (None: not checked, e.g. a gate on a graph alone)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "F": self.F,
            "needed_r": self.needed_r,
            "proven_r": self.proven_r,
            "certified": self.certified,
            "allow_uncertified": self.allow_uncertified,
            "reason": self.reason,
            "proof": self.proof,
            "byzantine": None if self.placement is None else self.placement.to_json(),
            "f_local": None if self.placement is None else self.placement.f_local,
        }


def proven_r(certificate: Certificate) -> int:
    """The largest r for which ``certificate`` proves r-robustness (0 if none).

    Every check contributes its proven lower bound: on r* directly, and for an (r, s) question
    with s*_r >= 1 the r itself, since (r, 1)-robustness is r-robustness (LeBlanc et al. 2013).

    Examples
    --------
    >>> from robustgraph.generators import gamma_merg
    >>> proven_r(certify(gamma_merg(7), Claim.tolerance(3, "sac"), engines="exhaustive"))
    4
    """
    best = 0
    for record in certificate.claims:
        for check in record.checks:
            question = check.question
            if question.about_s:
                if check.lower >= 1:
                    best = max(best, question.r)
            else:
                best = max(best, check.lower)
    return best


def _refutation(certificate: Certificate, topology: Topology, needed: int) -> str | None:
    for record in certificate.claims:
        for check in record.checks:
            if check.question.about_s or check.upper >= needed:
                continue
            if check.witness is None:  # a bound that needs no witness, e.g. r* <= ceil(n/2)
                return f"the graph is not {needed}-robust: r* <= {check.upper} (proven)"
            words = witness_words(topology, check.question, check.witness, needed)
            return f"the graph is not {needed}-robust: {words} (r* <= {check.upper})"
    return None


def obtain_certificate(
    topology: Topology,
    F: int,  # noqa: N803 - the paper's F
    *,
    path: str | Path | None = None,
    time_limit: float | None = 60.0,
    progress: Any = None,
) -> tuple[Certificate, str]:
    """The certificate the run is gated on, and where it came from.

    With ``path``, the certificate is loaded and re-checked against ``topology`` (hash, every
    witness, consistency); otherwise the graph is certified for ``F`` faults under SAC with the
    default engine within ``time_limit`` seconds per question.

    Raises
    ------
    CertificateError
        The file is not a valid certificate of this graph.
    """
    if path is not None:
        try:
            certificate = Certificate.load(path)
        except InvalidCertificate as exc:  # exit 1 is for a true certificate that falls short
            raise CertificateError(f"{path}: not a certificate: {exc}") from None
        report = certificate.verify(topology)
        if not report.valid:
            reason = report.reasons[0]
            raise CertificateError(f"{path}: not a valid certificate of the graph: {reason}")
        return certificate, str(path)
    certificate = certify(
        topology,
        Claim.tolerance(F, "sac"),
        engines=DEFAULT_ENGINE,
        time_limit=time_limit,
        progress=progress,
        proof_first=False,  # the engines' answer: the run's reports name r* itself
    )
    limit = "no time limit" if time_limit is None else f"{time_limit:g} s per question"
    return certificate, f"certified by the runner ({DEFAULT_ENGINE}, {limit})"


def check_gate(
    certificate: Certificate,
    topology: Topology,
    F: int,  # noqa: N803 - the paper's F
    *,
    allow_uncertified: bool = False,
    placement: Placement | None = None,
    protocols: Sequence[str] = ("sac",),
) -> GateReport:
    """Whether ``certificate`` proves the (F+1)-robustness SAC needs against F faults.

    With ``placement`` (:func:`check_placement`), the run is covered only if its Byzantine set
    is F-local too; the report's reason names the set checked either way. ``protocols`` are
    the run's protocols: a refusal names SAC when the run has it, else the protocols refused.

    Returns
    -------
    GateReport
        ``certified`` tells whether the run is covered; when not, the run goes on only with
        ``allow_uncertified`` (recorded in the report; a placement outside the F-local model
        is labelled so in its reason).

    Raises
    ------
    NotCertified
        (exit 1) When it does not and ``allow_uncertified`` is false; the message gives the
        witness pair in words when the certificate refutes (F+1)-robustness.

    Examples
    --------
    >>> from robustgraph.generators import k_circulant
    >>> ring = k_circulant(8, 1)
    >>> cert = certify(ring, Claim.tolerance(1, "sac"), engines="exhaustive")
    >>> check_gate(cert, ring, 1, allow_uncertified=True).certified
    False
    """
    needed = F + 1
    best = proven_r(certificate)
    bounds, problems = check_bounds(certificate, topology)
    unmet, kind = (
        requirement_problem(Claim.tolerance(F, "sac"), proven(bounds))
        if not problems
        else (problems[0], None)
    )
    checked = "" if placement is None else f"; {placement.words()}"
    if best >= needed and unmet is None:
        reason = (
            f"the certificate proves {best}-robustness ({kind} proof checked); F = {F} needs "
            f"{needed}{checked}"
        )
        if placement is None or placement.f_local:
            return GateReport(F, needed, best, True, allow_uncertified, reason, kind, placement)
        reason = f"outside the F-local model (SAC, Def. 3.2): {reason}"
        return GateReport(F, needed, best, False, True, reason, kind, placement)
    if best >= needed:
        reason = f"{best}-robustness is the engine's word only: {unmet}"
    else:
        reason = _refutation(certificate, topology, needed) or (
            f"the certificate proves only {best}-robustness (undecided within its time "
            f"limit); F = {F} needs {needed}-robustness"
        )
    if not allow_uncertified:
        refused = "SAC" if "sac" in protocols else ", ".join(protocols)
        raise NotCertified(
            f"refusing to run {refused} with F = {F}: {reason}; pass --allow-uncertified to run "
            "anyway (recorded in the results)"
        )
    if placement is not None and not placement.f_local:
        checked = f"; outside the F-local model (SAC, Def. 3.2): {placement.words()}"
    return GateReport(F, needed, best, False, True, reason + checked, None, placement)
