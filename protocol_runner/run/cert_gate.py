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
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from robustgraph.certificate.assurance import check_bounds, proven, requirement_problem
from robustgraph.certificate.certifier import certify
from robustgraph.certificate.claims import Claim
from robustgraph.certificate.document import Certificate, InvalidCertificate
from robustgraph.certificate.witness import witness_words
from robustgraph.errors import CertificateError
from robustgraph.generators import DEFAULT_ENGINE
from robustgraph.topology import Topology

__all__ = ["GateReport", "NotCertified", "check_gate", "obtain_certificate", "proven_r"]


class NotCertified(CertificateError):
    """The certificate does not prove the robustness the run needs (exit 1: checked, not met)."""

    exit_code = 1


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

    def to_json(self) -> dict[str, Any]:
        return {
            "F": self.F,
            "needed_r": self.needed_r,
            "proven_r": self.proven_r,
            "certified": self.certified,
            "allow_uncertified": self.allow_uncertified,
            "reason": self.reason,
            "proof": self.proof,
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
    )
    limit = "no time limit" if time_limit is None else f"{time_limit:g} s per question"
    return certificate, f"certified by the runner ({DEFAULT_ENGINE}, {limit})"


def check_gate(
    certificate: Certificate,
    topology: Topology,
    F: int,  # noqa: N803 - the paper's F
    *,
    allow_uncertified: bool = False,
) -> GateReport:
    """Whether ``certificate`` proves the (F+1)-robustness SAC needs against F faults.

    Returns
    -------
    GateReport
        ``certified`` tells whether it does; when not, the run goes on only with
        ``allow_uncertified`` (recorded in the report).

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
    if best >= needed and unmet is None:
        reason = (
            f"the certificate proves {best}-robustness ({kind} proof checked); F = {F} needs "
            f"{needed}"
        )
        return GateReport(F, needed, best, True, allow_uncertified, reason, kind)
    if best >= needed:
        reason = f"{best}-robustness is the engine's word only: {unmet}"
    else:
        reason = _refutation(certificate, topology, needed) or (
            f"the certificate proves only {best}-robustness (undecided within its time "
            f"limit); F = {F} needs {needed}-robustness"
        )
    if not allow_uncertified:
        raise NotCertified(
            f"refusing to run SAC with F = {F}: {reason}; pass --allow-uncertified to run anyway "
            "(recorded in the results)"
        )
    return GateReport(F, needed, best, False, True, reason)
