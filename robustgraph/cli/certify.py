"""``robustgraph certify`` and ``robustgraph verify``: write and re-check robustness certificates.

Exit codes are the deployment gate (docs/certificate.md): certify exits 0 when every claim is
proven with checkable proofs, 1 when one is refuted, 3 when one is undecided within the time
limit, 4 when engines disagree, 5 when the engines prove every claim but a lower bound has no
checkable proof (issue 44), 2 on a usage or input error; verify exits 0 for a valid
certificate, 1 for an invalid one, 2 when a file cannot be read.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from robustgraph import io
from robustgraph.certificate.claims import MODELS, Claim
from robustgraph.certificate.outcome import UNCHECKED_EXIT
from robustgraph.cli.batch import batch_options
from robustgraph.cli.certify_text import (
    cubes_line,
    record_line,
    render_report,
    summary_lines,
    unchecked_lines,
)
from robustgraph.cli.choices import DEFAULT_ENGINES, PROOF_MODES
from robustgraph.cli.claim_options import claims_from_options
from robustgraph.cli.common import (
    cap_at_cores,
    check_output,
    command_deadline,
    emit,
    json_option,
    span,
    threads_option,
)
from robustgraph.errors import ParameterError
from robustgraph.limits import FILE_BYTES, INFLATED_BYTES, budgets_set
from robustgraph.topology import Topology

if TYPE_CHECKING:
    from robustgraph.certificate.document import Certificate

CUBE_WORKERS = ("incremental", "independent")
"""``--cube-workers`` choices, the first the default: ``cubes.WORKER_KINDS`` (named here so that
``--help`` does not import the proof modules; a test keeps the two equal)."""

# The certifier, the certificate document and the verifier import numpy (the proof checkers):
# each command imports them in its body, so that --help stays light (issue 33).

__all__ = [
    "certify_command",
    "verify_command",
    "certify_generated",
]


def _graph_options(func: Any) -> Any:
    func = click.option(
        "--directed/--undirected",
        default=None,
        help="For formats that do not say (edge lists): read arcs or edges.",
    )(func)
    return click.option(
        "--format", "fmt", default=None, help="Graph file format (default: from the extension)."
    )(func)


def _progress(line: str) -> None:
    click.echo(f"robustgraph: certify: {line}", err=True)


class _LiveBounds:
    """A stderr line each time a running solve proves a new bound, e.g.
    ``robustgraph: certify:   bounds 12..15 (probe 12 infeasible)`` (the CLI uses it only when
    stderr is a terminal, so piped output is unchanged)."""

    def __init__(self) -> None:
        self.last: tuple[int, int] | None = None

    def __call__(self, lower: int, upper: int, text: str) -> None:
        if (lower, upper) != self.last and text != "done":
            self.last = (lower, upper)
            _progress(f"  bounds {span(lower, upper)} ({text})")


def certify_generated(topology: Topology, graph_path: str | Path) -> dict[str, Any]:
    """``robustgraph generate --certify``: prove r* and the tolerances that follow from it
    (``Claim.maximum()``), write CERT next to the graph.

    Uses the default engines. Returns what the generate summary shows: the certificate file,
    the verdict, the exit code it implies (0 proven, 3 undecided) and a one-line summary.
    """
    from robustgraph.certificate.certifier import certify
    from robustgraph.certificate.document import certificate_path

    target = certificate_path(graph_path)
    cert = certify(topology, Claim.maximum(), progress=_progress)
    cert.dump(target)
    return {
        "file": str(target),
        "verdict": cert.verdict,
        "exit_code": cert.exit_code,
        "summary": record_line(topology, cert.claims[0], None),
    }


@click.command(
    "certify",
    epilog="""\b
Examples:
  robustgraph certify merg7.json --F 3 --model sac -o merg7.cert.json
  robustgraph certify g.graphml --max --engines cpsat,highs --time-limit 60 -o g.cert.json
  robustgraph certify g.txt --rs 2 2 --undirected -o g.cert.json --json
  robustgraph certify --batch 'graphs/*.json' --executor ray -o certs/   # docs/scale-out.md
  robustgraph certify er40.txt --r 4 --proof lrat --cubes 2 --workers 2 -o er40.cert.json
  robustgraph certify er40.txt --r 4 --proof lrat --cubes 2 --cube-workers independent -o c.json
\b
Exit codes: 0 every claim proven with checkable proofs; 1 a claim refuted (the
witness is printed); 3 a claim undecided within the time limit; 4 engines disagree
(no certificate is written); 5 proven by the engines but a lower bound has no
checkable proof (verify rejects it); 2 usage or input error.
""",
)
@batch_options
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@click.option("--r", "r", type=int, default=None, help="Claim: the graph is R-robust.")
@click.option(
    "--rs", "rs", type=int, nargs=2, default=None, metavar="R S", help="Claim: (R,S)-robust."
)
@click.option(
    "--F",
    "faults",
    type=int,
    default=None,
    help="Claim: F Byzantine nodes tolerated (with --model).",
)
@click.option(
    "--model",
    type=click.Choice(MODELS),
    default=None,
    help="sac: (F+1)-robust; wmsr-local: (2F+1)-robust; wmsr-total: (F+1,F+1)-robust.",
)
@click.option(
    "--max",
    "maximum",
    is_flag=True,
    help="Claim: r* and the F it implies for sac and wmsr-local (F-total: --tolerance/--all).",
)
@click.option(
    "--tolerance",
    "asked",
    type=click.Choice(MODELS),
    multiple=True,
    help="With --max: also claim this tolerance (repeatable); sac and wmsr-local always.",
)
@click.option(
    "--all", "every", is_flag=True, help="With --max: every tolerance, wmsr-total (F-total) too."
)
@click.option(
    "--engines",
    default=",".join(DEFAULT_ENGINES),
    show_default=True,
    help="Comma-separated engines; with two or more, every one must prove each claim.",
)
@click.option(
    "--formulation",
    type=click.Choice(["published", "strong"]),
    default="strong",
    show_default=True,
    help="MILP/CP model for cpsat, highs and cbc.",
)
@click.option(
    "--time-limit",
    type=float,
    default=None,
    help="Seconds for the whole command (every question and engine shares one deadline).",
)
@click.option(
    "--proof",
    type=click.Choice(PROOF_MODES),
    default="auto",
    show_default=True,
    help="Proof of each lower bound: auto = the cheapest found (theorem, construction, "
    "exhaustive, core tree, LRAT); lrat = an LRAT refutation; coretree = the core search's "
    "tree, replayed by verify (r-robustness only); none = the engine's word only.",
)
@click.option(
    "--cubes",
    type=click.IntRange(min=1),
    default=None,
    metavar="K",
    help="Make the LRAT proof by cube and conquer: split by lookahead until 3^K cubes are "
    "open (K at most 6), refuted on --executor (hardest first) and combined into one proof.",
)
@click.option(
    "--cube-workers",
    type=click.Choice(CUBE_WORKERS),
    default=None,
    help="With --cubes: incremental (the default) = one solver per worker takes cube after "
    "cube from a shared queue and keeps what it learned; independent = a fresh solve per "
    "cube, each cube a task.",
)
@threads_option
@click.option(
    "--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Solver seed."
)
@click.option(
    "-o", "--output", required=True, type=click.Path(), help="Certificate file (--batch: a dir)."
)
@_graph_options
@json_option
def certify_command(
    file: str,
    r: int | None,
    rs: tuple[int, int] | None,
    faults: int | None,
    model: str | None,
    maximum: bool,
    asked: tuple[str, ...],
    every: bool,
    engines: str,
    formulation: str,
    time_limit: float | None,
    proof: str,
    cubes: int | None,
    cube_workers: str | None,
    threads: int,
    seed: int,
    output: str,
    fmt: str | None,
    directed: bool | None,
    as_json: bool,
    executor: str = "local",
    address: str | None = None,
    workers: int | None = None,
) -> None:
    """Prove or refute robustness claims about the graph in FILE and write a certificate.

    \b
    Name one or more claims:
      --r R                 the graph is R-robust
      --rs R S              the graph is (R,S)-robust
      --F F --model MODEL   F Byzantine nodes are tolerated under MODEL:
                              sac          (F+1)-robust, F-local model
                              wmsr-local   (2F+1)-robust, F-local model
                              wmsr-total   (F+1,F+1)-robust, F-total model
      --max                 r* and the largest F that follows from it under sac
                            and wmsr-local; with --tolerance wmsr-total or --all,
                            also the F-total tolerance (more questions, more time)
    Robustness counts in-neighbours (edge u -> v: v hears u). The certificate binds to
    the graph's content hash and holds a witness pair for every refutation; anyone can
    re-check it with 'robustgraph verify CERT FILE'.
    """
    from robustgraph.certificate.certifier import certify

    claims = claims_from_options(r, rs, faults, model, maximum, asked, every)
    if cubes is not None and proof not in ("auto", "lrat"):
        raise click.UsageError("--cubes makes LRAT proofs: it goes with --proof lrat or auto")
    if cube_workers is not None and cubes is None:
        raise click.UsageError("--cube-workers goes with --cubes K")
    check_output(output, keep={"the graph FILE": file})
    topology = io.read(file, format=fmt, directed=directed)
    if cubes is not None:
        from robustgraph.certificate.proofs.cubes import MAX_K

        if cubes > topology.n:
            raise ParameterError(f"--cubes {cubes}: the graph has only n = {topology.n} nodes")
        if cubes > MAX_K:
            raise ParameterError(f"--cubes {cubes}: 3^{cubes} cubes are too many; K is at most "
                                 f"{MAX_K} (3^{MAX_K} = {3**MAX_K} cubes)")
    kind = cube_workers or CUBE_WORKERS[0]
    options = {
        "engines": engines.split(","),
        "formulation": formulation,
        "time_limit": time_limit,
        "threads": threads,
        "seed": seed,
        "progress": _progress,
        "listener": _LiveBounds() if sys.stderr.isatty() else None,
        "proof": proof,
        "deadline": command_deadline(time_limit),
    }
    split_record = None
    if cubes is None:
        cert = certify(topology, *claims, **options)
    else:
        from robustgraph.certificate.proofs.cubes import Split
        from robustgraph.executors import make_executor

        with make_executor(executor, address=address, workers=workers) as pool:
            split = Split(cubes, pool, incremental=kind == "incremental")
            cert = certify(topology, *claims, **options, split=split)
            processes = getattr(pool, "workers", None)  # a local pool's; Ray: the cluster's
        split_record = _split_record(cert, cubes, kind, executor, processes)
    cert.dump(output)

    def render() -> None:
        for line in summary_lines(cert, topology, file):
            click.echo(line)
        if split_record is not None:
            click.echo(cubes_line(cert, cubes, _workers_text(split_record)))
        click.echo(f"written  {output}")

    document = cert.to_dict()
    if split_record is not None:  # what the command did, not part of the certificate file
        document["cube_split"] = split_record
    emit(document, as_json, render)
    if as_json and cert.exit_code == UNCHECKED_EXIT:  # the JSON's verdict is the engines'
        for line in unchecked_lines(cert):
            _progress(line)
    sys.exit(cert.exit_code)


def _split_record(
    cert: Certificate, k: int, kind: str, executor: str, processes: int | None
) -> dict[str, Any]:
    """``--json``'s ``cube_split``: the split asked for (K, ``lookahead``, which workers, on
    which executor, how many local processes: None on Ray, which uses the cluster's CPUs) and
    how many LRAT proofs it made (0: none ran; every LRAT proof of a ``--cubes`` run is split,
    :mod:`robustgraph.certificate.proofs.prover`)."""
    kinds = [c.proof["kind"] for r in cert.claims for c in r.checks if c.proof is not None]
    return {
        "k": k,
        "cubes": 3**k,
        "tree": "lookahead",
        "workers": kind,
        "executor": executor,
        "processes": processes,
        "lrat_proofs": sum(got == "lrat" for got in kinds),
    }


def _workers_text(record: dict[str, Any]) -> str:
    """The ``cubes`` line's words for where the cubes ran, e.g. ``2 incremental local
    workers``."""
    count = record["processes"]
    many = "" if count is None else f"{count} "
    plural = "" if count == 1 else "s"
    return f"on {many}{record['workers']} {record['executor']} worker{plural}"


@click.command(
    "verify",
    epilog="""\b
Examples:
  robustgraph verify merg7.cert.json merg7.json
  robustgraph verify g.cert.json g.graphml --require 'tolerance sac F=3' --require-proof
  robustgraph verify g.cert.json g.graphml --resolve-with cpsat --require-proven --json
  robustgraph verify g.min.json g.json   # a design's minimality certificate
  robustgraph verify n11r4.min.json g.json --max-bytes 300000000 --max-inflated 1000000000
\b
Exit codes: 0 valid (and meeting every --require*); 1 invalid, or short of a
--require* (each reason printed); 2 a file cannot be read.
""",
)
@click.argument("cert_path", metavar="CERT", type=click.Path(dir_okay=False))
@click.argument("file", type=click.Path(dir_okay=False))
@click.option(
    "--resolve-with",
    default=None,
    metavar="ENGINE",
    help="Also re-prove every question with ENGINE.",
)
@click.option("--time-limit", type=float, default=None, help="Seconds per re-solved question.")
@click.option(
    "--threads", type=int, default=1, show_default=True, callback=cap_at_cores,
    help="Solver threads for re-solving (at most the CPU cores).",
)
@click.option(
    "--require-proven",
    is_flag=True,
    help="Also fail (exit 1) when the certificate is valid but its verdict is not proven.",
)
@click.option(
    "--require-proof/--allow-unproven",
    default=True,
    show_default=True,
    help="Fail (exit 1) when a lower bound lacks a checked proof (the default), or accept "
    "such bounds as the engine's word (version 1 files, certify --proof none).",
)
@click.option(
    "--require",
    "require",
    default=None,
    metavar="CLAIM",
    help="Also fail (exit 1) unless checked proofs establish CLAIM: 'r R', 'rs R S' or "
    "'tolerance MODEL F=F' (e.g. 'tolerance sac F=3').",
)
@click.option(
    "--max-bytes", type=int, default=None, metavar="BYTES",
    help="Read input files of up to BYTES bytes for this command (default budget 64 MiB, "
    "or $ROBUSTGRAPH_MAX_BYTES); the verdict says it was set.",
)
@click.option(
    "--max-inflated", type=int, default=None, metavar="BYTES",
    help="Inflate compressed inputs (LRAT proofs) to up to BYTES bytes for this command "
    "(default budget 256 MiB, or $ROBUSTGRAPH_MAX_INFLATED); the verdict says it was set.",
)
@_graph_options
@json_option
def verify_command(
    cert_path: str,
    file: str,
    resolve_with: str | None,
    time_limit: float | None,
    threads: int,
    require_proven: bool,
    require_proof: bool,
    require: str | None,
    max_bytes: int | None,
    max_inflated: int | None,
    fmt: str | None,
    directed: bool | None,
    as_json: bool,
) -> None:
    """Re-check the certificate CERT against the graph in FILE.

    \b
    Checks the schema, that CERT binds to FILE (content hash, n, m, directed), every
    witness pair (polynomial time), that the questions asked are the ones the claims
    need, that bounds, statuses and verdicts are consistent and possible (no proven
    r above ceil(n/2) or above the minimum in-degree), and that every engine named
    answered every question without contradicting another, and the proof of every
    lower bound, with our own checkers and no solver: exhaustive recomputation (n <=
    20), a recognised theorem family, a construction ordering, or an LRAT refutation
    of the CNF it regenerates. Each bound is listed with what was checked; "true
    certificate" means every bound was. --resolve-with ENGINE re-proves each question
    with another engine.
    """
    if time_limit is not None and not time_limit > 0:
        raise ParameterError(f"--time-limit must be > 0 seconds, got {time_limit}")
    if threads < 1:
        raise ParameterError(f"--threads must be >= 1, got {threads}")
    if resolve_with is None and (time_limit is not None or threads != 1):
        raise ParameterError("--time-limit and --threads go with --resolve-with ENGINE")
    from robustgraph.certificate.document import Certificate, InvalidCertificate
    from robustgraph.certificate.proofs.minimum_report import load_minimum, verify_minimum
    from robustgraph.certificate.verifier import VerifyReport

    wanted = None if require is None else Claim.parse(require)
    budgets = {budget: value for budget, value in ((FILE_BYTES, max_bytes),
                                                  (INFLATED_BYTES, max_inflated))
               if value is not None}
    cert: Certificate | None = None
    with budgets_set(budgets):
        topology = io.read(file, format=fmt, directed=directed)
        minimum = load_minimum(cert_path)  # a design's minimality certificate (issue 43)
        if minimum is not None:
            report = verify_minimum(minimum, cert_path, topology)
        else:
            try:
                cert = Certificate.load(cert_path)
            except InvalidCertificate as exc:
                report = VerifyReport(False, (str(exc),), None, ())
            else:
                report = cert.verify(
                    topology,
                    resolve_with=resolve_with,
                    time_limit=time_limit,
                    threads=threads,
                    require=wanted,
                    require_proof=require_proof,
                )
    if require_proven and report.valid and report.verdict != "proven":
        reason = f"--require-proven: the verdict is {report.verdict}, not proven"
        report = replace(report, rejections=(*report.rejections, reason))
    if budgets:  # the user's consent to larger inputs is part of what was checked
        raised = ", ".join(f"{budget.name} {value:,} (default {budget.default:,})"
                           for budget, value in budgets.items())
        report = replace(report, checked=(*report.checked,
                                          f"input budgets set for this command: {raised}"))
    emit(report.to_dict(), as_json, lambda: render_report(report, cert_path, file, cert))
    sys.exit(report.exit_code)
