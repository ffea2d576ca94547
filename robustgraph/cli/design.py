"""``robustgraph design`` and ``robustgraph augment``: sparse certified r-robust graphs.

Both write the graph and its certificate (``G.json`` -> ``G.cert.json`` unless ``--cert``).
Exit codes follow ``robustgraph certify``: 0 certified, 3 the certificate is undecided within its
time limit, 1 the target cannot be met (augment: proven impossible or none found; design: no
graph within the degree cap found), 2 usage or input error, 130 interrupted.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from robustgraph import io, limits
from robustgraph.cli.choices import DEFAULT_ENGINES
from robustgraph.cli.common import check_output, emit, json_option
from robustgraph.errors import ParameterError
from solvers import registry

if TYPE_CHECKING:
    from robustgraph.certificate.document import Certificate

# The design search and the certificate document import numpy (the proof checkers): the
# commands import them when they run, so that --help stays light (issue 33).

__all__ = ["design", "augment"]


def _say(line: str) -> None:
    click.echo(f"robustgraph: {line}", err=True)


def _engines(text: str) -> tuple[str, ...]:
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    if not names:
        raise ParameterError("--engines needs at least one engine name")
    return names


def _write(topology: Any, output: str, cert: Certificate | None, cert_path: str | None) -> str:
    from robustgraph.certificate.document import certificate_path

    io.write(topology, output)
    target = Path(cert_path) if cert_path else certificate_path(output)
    if cert is not None:
        cert.dump(target)
    return str(target)


def _check_outputs(
    output: str, cert_path: str | None, engines: tuple[str, ...], file: str | None = None
) -> None:
    """Fail before the search, not after it: unknown engine, unwritable or format-less paths,
    a certificate path that would overwrite the graph written or read (``file``)."""
    from robustgraph.certificate.document import certificate_path

    unknown = [name for name in engines if name not in registry.engine_names()]
    if unknown:
        known = ", ".join(registry.engine_names())
        raise ParameterError(f"unknown engine {unknown[0]!r}; choose from {known}")
    check_output(output, graph=True)
    keep = {"the graph -o": output, "the graph FILE": file}
    check_output(cert_path or certificate_path(output), keep=keep)


def _exit_code(cert: Certificate | None) -> int:
    return 0 if cert is None else cert.exit_code


def _pct(edges: int, other: int) -> str:
    return f"{100 * (edges - other) / other:+.1f}%" if other else "n/a"


def _common_options(func: Any) -> Any:
    options = [
        click.option("--max-degree", type=int, default=None, help="Cap on every node's degree."),
        click.option(
            "--time-limit",
            type=float,
            default=30.0,
            show_default=True,
            help="Seconds for the search (certification comes on top).",
        ),
        click.option("--seed", type=int, default=0, show_default=True, help="Search seed."),
        click.option(
            "--budget",
            type=int,
            default=20_000,
            show_default=True,
            help="Branch-and-bound nodes per exact check inside the search.",
        ),
        click.option(
            "--engines",
            default=",".join(DEFAULT_ENGINES),
            show_default=True,
            help="Engines that certify the result (comma-separated; all must prove it).",
        ),
        click.option(
            "--certify-time-limit",
            type=float,
            default=None,
            help="Seconds for the certificate (one deadline for all its questions).",
        ),
        click.option(
            "-o", "--output", required=True, type=click.Path(dir_okay=False), help="Graph file."
        ),
        click.option(
            "--cert",
            "cert_path",
            default=None,
            type=click.Path(dir_okay=False),
            help="Certificate file (default: next to the graph, NAME.cert.json).",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def _check_budget(time_limit: float, budget: int) -> None:
    if not time_limit > 0:
        raise ParameterError(f"--time-limit must be > 0 seconds, got {time_limit}")
    if budget < 1:
        raise ParameterError(f"--budget must be >= 1, got {budget}")
    limits.at_most("--budget", budget, limits.MAX_BUDGET, "branch-and-bound nodes")


@click.command(
    "design",
    epilog="""\b
Examples:
  robustgraph design --n 14 --r 4 -o g.json   # 39 edges; the construction has 49
  robustgraph design --n 20 --r 3 --max-degree 6 -o g.json
  robustgraph design --n 10 --r 3 --directed -o d.json --json
  robustgraph design --n 10 --r 3 --prove-minimal -o g.json   # + g.min.json
\b
Exit codes: 0 designed and certified; 1 no graph found within --max-degree
(nothing written); 2 usage or input error (e.g. r above ceil(n/2), s above n,
max degree below r + s - 1, or --s > 1 with a cap the (r,s) construction
exceeds); 3 certificate undecided within its time limit; 130 interrupted
during certification.
""",
)
@click.option("--n", "n", type=int, required=True, help="Number of nodes.")
@click.option("--r", "r", type=int, required=True, help="Target robustness r.")
@click.option("--s", "s", type=int, default=1, show_default=True, help="Target s of (r,s).")
@click.option("--directed", is_flag=True, help="Design a digraph with the fewest arcs.")
@click.option(
    "--prove-minimal",
    is_flag=True,
    help="Prove the edge count minimal (undirected, s = 1, no --max-degree; n <= 24, in "
    "practice n <= 10) and write the minimality certificate NAME.min.json.",
)
@click.option(
    "--minimal-time-limit",
    type=float,
    default=300.0,
    show_default=True,
    help="Seconds for --prove-minimal.",
)
@_common_options
@json_option
def design(
    n: int,
    r: int,
    s: int,
    directed: bool,
    prove_minimal: bool,
    minimal_time_limit: float,
    max_degree: int | None,
    time_limit: float,
    seed: int,
    budget: int,
    engines: str,
    certify_time_limit: float | None,
    output: str,
    cert_path: str | None,
    as_json: bool,
) -> None:
    """Design an r-robust graph with as few edges as the certified search finds.

    Starts from the sparsest proven construction, deletes and rewires edges while an exact check
    proves r-robustness, then certifies the result with the exact engines. Prints the edge count
    against the preferential-attachment construction and the proven lower bound, whose
    certificate (undirected) goes to NAME.min.json: where the count meets it, no graph
    with fewer edges is r-robust (or (r,s)-robust). --prove-minimal searches for that proof
    (or a sparser graph).
    """
    _check_budget(time_limit, budget)
    if not minimal_time_limit > 0:
        raise ParameterError(f"--minimal-time-limit must be > 0 seconds, got {minimal_time_limit}")
    if prove_minimal and (directed or max_degree is not None):
        raise ParameterError("--prove-minimal covers undirected r- and (r,s)-robust designs "
                             "without --max-degree (not --directed or --max-degree)")
    names = _engines(engines)
    _check_outputs(output, cert_path, names)
    from robustgraph.design import design as design_graph
    from robustgraph.design.minimum import minimum_path

    result = design_graph(
        n,
        r,
        s,
        directed=directed,
        max_degree=max_degree,
        time_limit=time_limit,
        seed=seed,
        budget=budget,
        engines=names,
        certify_time_limit=certify_time_limit,
        prove_minimal=prove_minimal,
        minimal_time_limit=minimal_time_limit,
        progress=_say,
    )
    cert_file = _write(result.topology, output, result.certificate, cert_path)
    bound_file = minimum_file = None
    if result.minimum is not None and result.minimum.document is not None:
        bound_file = str(minimum_path(output))
        result.minimum.dump(bound_file)
        minimum_file = bound_file if result.minimum.minimum else None
    data = {**result.to_dict(), "graph": output, "certificate": cert_file,
            "lower_bound_certificate": bound_file, "minimum_certificate": minimum_file}
    noun = "arcs" if directed else "edges"
    target = f"({r},{s})-robust" if s > 1 else f"{r}-robust"

    def render() -> None:
        click.echo(f"{output}: {n} nodes, {target}, {result.edges} {noun}")
        click.echo(
            f"  construction {result.construction} ({_pct(result.edges, result.construction)}), "
            f"lower bound {result.lower_bound}"
            + (f", gamma-MERG {result.reference}" if result.reference < result.construction else "")
        )
        click.echo(f"  start {result.start} ({result.start_edges} {noun}), {result.seconds:.1f} s")
        if minimum_file:
            click.echo(f"  minimum: proven, no {target} graph on {n} nodes has fewer {noun} "
                       f"({minimum_file}; check it with 'robustgraph verify {minimum_file} "
                       f"{output}')")
        elif prove_minimal and result.minimum is not None:
            click.echo(f"  minimum: not proven ({result.minimum.note}; lower bound "
                       f"{result.lower_bound} proven in {bound_file})")
        verdict = result.certificate.verdict if result.certificate else "not certified"
        click.echo(f"  certificate: {verdict} ({cert_file}, {result.certify_seconds:.1f} s)")

    emit(data, as_json, render)
    sys.exit(_exit_code(result.certificate))


def _read_pairs(path: str, directed: bool) -> list[tuple[Any, Any]]:
    return io.read(path, directed=directed).edges()


@click.command(
    "augment",
    epilog="""\b
Examples:
  robustgraph augment deployed.json --r 3 -o fixed.json
  robustgraph augment g.edges --r 2 --max-degree 5 --forbid no.edges -o g2.json --json
\b
Exit codes: 0 augmented and certified; 1 no augmentation exists (the witness is
printed) or none was found; 2 usage or input error; 3 certificate undecided;
130 interrupted during certification.
""",
)
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--r", "r", type=int, required=True, help="Target robustness r.")
@click.option(
    "--forbid",
    type=click.Path(dir_okay=False),
    default=None,
    help="Graph file whose edges must never be added (same node labels).",
)
@click.option(
    "--directed/--undirected",
    default=None,
    help="For formats that do not say (edge lists): read arcs or edges.",
)
@_common_options
@json_option
def augment(
    file: str,
    r: int,
    forbid: str | None,
    directed: bool | None,
    max_degree: int | None,
    time_limit: float,
    seed: int,
    budget: int,
    engines: str,
    certify_time_limit: float | None,
    output: str,
    cert_path: str | None,
    as_json: bool,
) -> None:
    """Add the fewest edges the search finds to make FILE r-robust (existing edges kept).

    Grows the graph edge by edge along witnesses of non-robustness, trims the added edges with
    the certified local search, and certifies the result.
    """
    _check_budget(time_limit, budget)
    names = _engines(engines)
    _check_outputs(output, cert_path, names, file)
    topology = io.read(file, directed=directed)
    pairs = _read_pairs(forbid, topology.directed) if forbid else []
    from robustgraph.design import augment as augment_graph

    result = augment_graph(
        topology,
        r,
        max_degree=max_degree,
        forbid=pairs,
        time_limit=time_limit,
        seed=seed,
        budget=budget,
        engines=names,
        certify_time_limit=certify_time_limit,
        progress=_say,
    )
    cert_file = _write(result.topology, output, result.certificate, cert_path)
    data = {**result.to_dict(), "graph": output, "source": file, "certificate": cert_file}

    def render() -> None:
        click.echo(
            f"{output}: {file} + {len(result.added)} edges = {result.topology.m} edges, {r}-robust"
        )
        shown = ", ".join(f"{u}-{v}" for u, v in result.added[:20])
        more = f" (+{len(result.added) - 20} more)" if len(result.added) > 20 else ""
        click.echo(f"  added: {shown or 'none'}{more}")
        m = result.minimality
        if result.proven_minimal:
            click.echo(f"  minimal: proven ({m.how})")
        else:
            click.echo(f"  minimal: the best found in {result.seconds:.1f} s, not proven "
                       f"(lower bound {m.lower_bound}: {m.how})")
        verdict = result.certificate.verdict if result.certificate else "not certified"
        click.echo(f"  certificate: {verdict} ({cert_file}, {result.certify_seconds:.1f} s)")

    emit(data, as_json, render)
    sys.exit(_exit_code(result.certificate))
