"""The human lines of ``robustgraph certify`` and ``robustgraph verify``: a certificate's
summary (one line per claim, its lower bounds, the verdict and, for exit 5, what is missing and
how to get it; what ``--cubes`` did) and a verify report (a refuted verdict spelled out so that
exit 0 cannot be read as "the graph is robust"; issue 44).

Kept apart from the commands (:mod:`robustgraph.cli.certify`) so that each module has one job;
nothing here imports numpy at module level (``--help`` stays light, issue 33).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from robustgraph.certificate.claims import MODELS, impossible
from robustgraph.certificate.outcome import UNCHECKED_EXIT, unchecked_bounds
from robustgraph.certificate.records import ClaimRecord
from robustgraph.certificate.witness import witness_words
from robustgraph.cli.common import span
from robustgraph.topology import Topology
from solvers.extras import install_hint

if TYPE_CHECKING:
    from robustgraph.certificate.document import Certificate
    from robustgraph.certificate.verifier import VerifyReport

__all__ = ["cubes_line", "record_line", "render_report", "summary_lines", "unchecked_lines"]


def _runs_text(record: ClaimRecord) -> str:
    runs = [run for check in record.checks for run in check.runs]
    engines = ", ".join(sorted({run.engine for run in runs}))
    if any(run.solved_by.startswith("proof (") for run in runs):  # TREE_DECIDES_RULE
        engines += ": decided by its proof, made first"
    return f"{engines}, {record.seconds:.3g} s"


def record_line(topology: Topology, record: ClaimRecord, time_limit: float | None) -> str:
    """One claim in words: what it states, its verdict (UNCHECKED, never PROVEN, for a proven
    claim with a lower bound on the engine's word only), the witness of a refutation."""
    claim = record.claim
    verdict = record.verdict.upper()
    if record.verdict == "proven" and unchecked_bounds([record]):
        verdict = "UNCHECKED (the engine says proven)"
    if claim.kind == "max":
        v = record.values
        tolerances = ", ".join(f"{m} {span(*v[m])}" for m in MODELS if m in v)
        text = f"r* = {span(*v['r'])}; tolerated F: {tolerances}"
        return f"{text}: {verdict} ({_runs_text(record)})"
    head = f"{claim.describe()}: {verdict}"
    why = impossible(claim, topology.n)
    if why is not None:  # refuted by n alone, the same on every path (docs/cli.md, certify)
        head = f"{head} ({why})"
    check = record.checks[0]
    if record.verdict == "refuted" and check.witness is None:
        return f"{head}: {check.bound_on} <= {check.upper} ({_runs_text(record)})"
    if record.verdict == "refuted":
        q = check.question
        return f"{head}: {witness_words(topology, q, check.witness, q.target)}"
    if record.verdict == "undecided":
        limit = "" if time_limit is None else f" within the {time_limit:g} s limit"
        bounds = f"{check.lower} <= {check.bound_on} <= {check.upper}"
        return f"{head}{limit}: {bounds} ({_runs_text(record)})"
    return f"{head} ({_runs_text(record)})"


def _proofs_text(record: ClaimRecord) -> str:
    """Each check's lower-bound proof, e.g. ``r* >= 4 lrat (1,234 steps, 0.2 s to check)``."""
    parts = []
    for check in record.checks:
        r, s = check.robustness
        head = f"{check.bound_on} >= {check.lower}"
        proof = check.proof
        if r < 1 or s < 1:
            parts.append(f"{head} trivial")
        elif proof is None:
            parts.append(f"{head} NO PROOF (the engine's word only)")
        else:
            size = {"lrat": f"{proof.get('steps', 0):,} steps, ",
                    "coretree": f"{proof.get('nodes', 0):,} tree nodes, "}.get(proof["kind"], "")
            parts.append(f"{head} {proof['kind']} ({size}{proof['check_seconds']:.2g} s to check)")
    return "; ".join(parts)


def _bounds_text(record: ClaimRecord, source: str) -> str:
    """The claim's lower-bound proofs; for a claim refuted with only trivial lower bounds
    (the engine stopped at the witness), the upper bound the witness proves instead of
    ``r* >= 0 trivial`` (issue 44, item 4)."""
    trivial = all(min(check.robustness) < 1 for check in record.checks)
    if record.verdict == "refuted" and trivial:
        check = record.checks[0]
        why = "by the witness" if check.witness is not None else "by n and the in-degrees"
        return (
            f"bounds: {check.bound_on} <= {check.upper} {why}; no lower bound was needed to "
            f"refute (robustgraph robustness {source} finds r*)"
        )
    return f"lower bounds: {_proofs_text(record)}"


def unchecked_lines(cert: Certificate) -> list[str]:
    """The verdict of a ``proven`` certificate with lower bounds on the engine's word only
    (exit :data:`UNCHECKED_EXIT`), and how to get checkable proofs (issue 44, item 1)."""
    from robustgraph.certificate.proof_records import LRAT_TIME_LIMIT
    from robustgraph.certificate.proofs import sat

    bounds = ", ".join(cert.unchecked)
    mode = cert.provenance["parameters"].get("proof", "auto")
    if mode == "none":
        how = "--proof none asked for no proof: certify again without it"
    elif mode in ("auto", "lrat") and not sat.available():
        how = (
            "python-sat (LRAT proofs) is not installed: "
            f"{install_hint('proofs')}, then certify again (docs/install.md)"
        )
    elif mode in ("auto", "lrat"):
        limit = cert.provenance["parameters"]["time_limit"]
        within = f"the {limit:g} s limit" if limit else f"{LRAT_TIME_LIMIT:g} s per bound"
        how = (
            f"no LRAT refutation within {within}: certify again with a larger --time-limit, "
            "or split the proof with --cubes K"
        )
    else:
        how = f"--proof {mode} found none: try --proof auto"
    return [
        f"verdict  UNCHECKED, NOT PROVEN (exit {cert.exit_code}): the engine says proven, but "
        f"{bounds} has no checkable proof, and verify rejects this certificate",
        f"to fix   {how}",
    ]


def cubes_line(cert: Certificate, k: int, where: str = "") -> str:
    """What ``--cubes K`` did, in one line: the LRAT proofs it split (``where`` they ran, e.g.
    ``on 2 incremental local workers``), or why it split none (issue 44, item 2: it never does
    nothing silently)."""
    kinds = [c.proof["kind"] for r in cert.claims for c in r.checks if c.proof is not None]
    lrat = sum(kind == "lrat" for kind in kinds)
    if lrat:
        return (
            f"cubes    {lrat} LRAT proof(s), each split by lookahead (3^{k} = {3**k} open cubes "
            f"as the target){' ' + where if where else ''} and combined"
        )
    if kinds:
        cheaper = ", ".join(sorted(set(kinds)))
        why = (
            f"every lower bound has a cheaper proof ({cheaper}), which --proof auto takes "
            "first; --proof lrat --cubes K splits the LRAT proof"
        )
    elif cert.unchecked:
        why = "no LRAT refutation was found (see the lower bounds above)"
    else:
        why = "no lower bound needs a proof (each is trivial)"
    return f"cubes    none run: {why}"


def summary_lines(cert: Certificate, topology: Topology, source: str) -> list[str]:
    """Human lines: the graph, one line per claim (witness in words when refuted), the verdict.

    A ``proven`` certificate some lower bound of which has no checkable proof never prints
    PROVEN: its claims read UNCHECKED and its verdict line says what is missing and how to
    get it (exit 5, :data:`~robustgraph.certificate.outcome.UNCHECKED_EXIT`).
    """
    kind = "directed" if topology.directed else "undirected"
    time_limit = cert.provenance["parameters"]["time_limit"]
    lines = [
        f"graph    {source}: n = {topology.n}, m = {topology.m}, {kind}, {topology.content_hash}"
    ]
    for i, record in enumerate(cert.claims, 1):
        lines.append(f"claim {i}  {record_line(topology, record, time_limit)}")
        lines.append(f"         {_bounds_text(record, source)}")
    if cert.exit_code == UNCHECKED_EXIT:
        return lines + unchecked_lines(cert)
    lines.append(f"verdict  {cert.verdict} (exit {cert.exit_code})")
    return lines


def _verdict_lines(report: VerifyReport, cert: Certificate | None, file: str) -> list[str]:
    """The verdict of a valid certificate, with a refuted or undecided one spelled out so that
    exit 0 (the certificate is true) cannot be read as "the graph is robust" (issue 44, item 3).
    """
    if report.verdict == "proven" or report.verdict is None or cert is None:
        return [] if report.verdict is None else [f"verdict  {report.verdict}"]
    from robustgraph.certificate.assurance import negation

    failed = [r.claim for r in cert.claims if r.verdict == report.verdict]
    if report.verdict == "refuted":
        said = "; and it ".join(negation(claim) for claim in failed if claim.kind != "max")
        lines = [f"verdict  REFUTED: {file} {said} (the upper bounds above, checked)"]
    else:
        lines = [
            "verdict  UNDECIDED: neither proven nor refuted: "
            + "; ".join(claim.describe() for claim in failed)
        ]
    if report.exit_code == 0:
        lines.append(
            "gate     exit 0 says only that the certificate is true, not that the graph is "
            "robust: a deployment gate adds --require CLAIM or --require-proven"
        )
    return lines


def render_report(
    report: VerifyReport, cert_path: str, file: str, cert: Certificate | None = None
) -> None:
    if report.valid:
        unproven = sum(bound.proof is None for bound in report.bounds)
        if report.verdict == "refuted":
            what = f"is a true certificate that {file} FAILS its claim: every bound checked"
        elif report.fully_checked:
            what = f"is a true certificate of {file}: every bound checked"
        else:
            what = (
                f"is consistent with {file}, but {unproven} lower bound(s) rest on the engine's "
                "word only (no proof)"
            )
        if report.rejections:
            click.echo(f"REJECTED {cert_path} {what}; it falls short of what was required:")
            for rejection in report.rejections:
                click.echo(f"  - {rejection}")
        else:
            click.echo(f"valid    {cert_path} {what}")
        for bound in report.bounds:
            click.echo(f"  {bound.line}")
        for line in _verdict_lines(report, cert, file):
            click.echo(line)
    else:
        click.echo(f"INVALID  {cert_path} is not a true certificate of {file}:")
        for reason in report.reasons:
            click.echo(f"  - {reason}")
        if report.verdict is not None:
            click.echo(f"claimed  {report.verdict} (not to be trusted: the certificate is invalid)")
    click.echo(f"checked  {'; '.join(report.checked) or 'nothing (the file is not a certificate)'}")
