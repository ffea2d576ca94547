"""``robustgraph generate``: build a graph of a family with known robustness and write it out."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from robustgraph import io
from robustgraph.cli.choices import GENERATE_ENGINE
from robustgraph.cli.common import check_output, emit, json_option
from robustgraph.errors import ParameterError
from robustgraph.topology import Topology

if TYPE_CHECKING:
    from robustgraph import generators as gen

# robustgraph.generators imports numpy: the command imports it when it runs, so that --help
# stays light (issue 33).

__all__ = ["generate", "FAMILIES"]

FAMILIES: dict[str, str] = {
    "complete": "complete graph K_n",
    "merg": "gamma-MERG (fewest edges for ceil(n/2)-robustness)",
    "pa": "preferential attachment, (r,s)-robust",
    "er": "Erdos-Renyi G(n,p); with --r: resampled until proven r-robust",
    "circulant": "k-circulant C_n(1..k)",
    "k-in": "random k-in digraph",
}

# Options each variant reads; any other option given is an error rather than silently ignored.
_USES: dict[str, set[str]] = {
    "complete": set(),
    "merg": set(),
    "pa": {"r", "s", "seed"},
    "er": {"p", "seed", "directed"},
    "er-robust": {"r", "seed", "max_attempts", "engine"},
    "circulant": {"k"},
    "k-in": {"k", "seed"},
}
_FLAG = {"max_attempts": "--max-attempts"}


def _require(family: str, name: str, value: object) -> None:
    if value is None:
        raise ParameterError(f"family {family} needs --{name}")


def _variant(family: str, given: dict[str, bool]) -> str:
    """``er`` splits in two: plain G(n, p) with --p, the proven-robust resampler with --r."""
    if family != "er":
        return family
    if given["p"] == given["r"]:
        raise ParameterError(
            "family er needs exactly one of --p (plain G(n,p)) or --r (proven r-robust)"
        )
    return "er-robust" if given["r"] else "er"


def _build(
    variant: str, n: int, opts: dict[str, Any]
) -> tuple[Topology, gen.Guarantee, dict[str, Any]]:
    """The graph, its guarantee and extra facts (p, attempts) for one invocation."""
    from robustgraph import generators as gen

    r, s, k, p, seed = opts["r"], opts["s"], opts["k"], opts["p"], opts["seed"]
    if variant == "complete":
        return gen.complete(n), gen.guarantee("complete", n), {}
    if variant == "merg":
        return gen.gamma_merg(n), gen.guarantee("merg", n), {}
    if variant == "pa":
        _require(variant, "r", r)
        graph = gen.preferential_attachment(n, r, s, seed=seed)
        return graph, gen.guarantee("pa", n, r=r, s=s), {}
    if variant == "er":
        graph = gen.erdos_renyi(n, p, seed=seed, directed=opts["directed"])
        return graph, gen.guarantee("er", n), {"p": p}
    if variant == "er-robust":
        engine = opts["engine"]
        graph, attempts = gen.erdos_renyi_robust(
            n, r, seed=seed, max_attempts=opts["max_attempts"], engine=engine
        )
        extra = {"p": gen.robust_er_probability(n, r), "attempts": attempts}
        return graph, gen.guarantee("er-robust", n, r=r), extra
    _require(variant, "k", k)
    if variant == "circulant":
        return gen.k_circulant(n, k), gen.guarantee("circulant", n, k=k), {}
    return gen.random_k_in(n, k, seed=seed), gen.guarantee("k-in", n, k=k), {}


def _check_unused(variant: str, given: dict[str, bool]) -> None:
    extra = sorted(name for name, used in given.items() if used and name not in _USES[variant])
    if extra:
        flags = ", ".join(_FLAG.get(name, "--" + name) for name in extra)
        what = {"er-robust": "er with --r", "er": "er with --p"}.get(variant, variant)
        raise ParameterError(f"{what} does not take {flags}; see 'robustgraph generate --help'")


@click.command(
    "generate",
    epilog="""\b
Examples:
  robustgraph generate merg --n 7 -o merg7.json
  robustgraph generate pa --n 20 --r 3 --s 2 --seed 1 -o pa.graphml
  robustgraph generate er --n 20 --r 2 --seed 4 -o er.txt --json
  robustgraph generate k-in --n 12 --k 5 -o kin.json
""",
)
@click.argument("family", type=click.Choice(list(FAMILIES)), metavar="FAMILY")
@click.option("--n", "n", type=int, required=True, help="Number of nodes (agents).")
@click.option("--r", "r", type=int, default=None, help="Target r (pa, er).")
@click.option("--s", "s", type=int, default=None, help="Target s for pa (default 1).")
@click.option(
    "--k", "k", type=int, default=None, help="Neighbours per side (circulant), in-degree (k-in)."
)
@click.option("--p", "p", type=float, default=None, help="Edge probability (er without --r).")
@click.option("--seed", type=int, default=None, help="Random seed (pa, er, k-in); default 0.")
@click.option("--directed", is_flag=True, default=False, help="er with --p: draw arcs, not edges.")
@click.option(
    "--max-attempts", type=int, default=None, help="er with --r: draws allowed (default 1000)."
)
@click.option(
    "--engine",
    default=None,
    help=f"er with --r: engine proving each draw (default {GENERATE_ENGINE}).",
)
@click.option(
    "-o", "--output", required=True, type=click.Path(dir_okay=False), help="File to write."
)
@click.option(
    "--format",
    "fmt",
    default=None,
    help=f"File format: {', '.join(io.FORMATS)} (default: from the extension).",
)
@click.option(
    "--certify",
    "with_certificate",
    is_flag=True,
    help="Also prove r* and every tolerance; write NAME.cert.json next to the graph.",
)
@json_option
def generate(
    family: str,
    n: int,
    r: int | None,
    s: int | None,
    k: int | None,
    p: float | None,
    seed: int | None,
    directed: bool,
    max_attempts: int | None,
    engine: str | None,
    output: str,
    fmt: str | None,
    with_certificate: bool,
    as_json: bool,
) -> None:
    """Generate a graph with known robustness and write it to a file.

    \b
    FAMILY is one of:
      complete   complete graph K_n: ceil(n/2)-robust, the most any n nodes allow
      merg       gamma-MERG: ceil(n/2)-robust with the fewest possible edges
      pa         preferential attachment: (r,s)-robust (needs --r; --s defaults to 1)
      er         random G(n,p) with --p (no guarantee), or with --r: drawn at the
                 r-robustness threshold until a draw is proven r-robust
      circulant  each node joined to the --k nearest on each side: k-robust
                 (n >= 2k+2)
      k-in       directed: each node hears --k random others
    \b
    Robustness counts in-neighbours: a graph is r-robust when, for any two disjoint
    groups of agents, some agent in one of them hears at least r agents outside its
    group. SAC tolerates F Byzantine neighbours per agent on an (F+1)-robust graph.
    The summary states what the family's theorem proves, with its citation, and the
    graph's content hash. Nodes are labelled 0..n-1.
    """
    given = {
        "r": r is not None,
        "s": s is not None,
        "k": k is not None,
        "p": p is not None,
        "seed": seed is not None,
        "directed": directed,
        "max_attempts": max_attempts is not None,
        "engine": engine is not None,
    }
    variant = _variant(family, given)
    _check_unused(variant, given)
    opts = {
        "r": r,
        "s": 1 if s is None else s,
        "k": k,
        "p": p,
        "seed": 0 if seed is None else seed,
        "directed": directed,
        "max_attempts": 1000 if max_attempts is None else max_attempts,
        "engine": GENERATE_ENGINE if engine is None else engine,
    }
    check_output(output, graph=True, format=fmt)  # fail on a bad path or name before any work
    file_format = io.resolve_format(output, fmt).name
    graph, guarantee, extra = _build(variant, n, opts)
    io.write(graph, output, format=file_format)
    parameters = {name: opts[name] for name in sorted(_USES[variant])}
    data = {
        "family": family,
        "description": FAMILIES[family],
        "n": graph.n,
        "m": graph.m,
        "directed": graph.directed,
        "parameters": parameters,
        "guarantee": {
            "r_lower": guarantee.lower,
            "r_upper": guarantee.upper,
            "s": guarantee.s,
            "statement": guarantee.statement,
            "citation": guarantee.citation,
        },
        **extra,
        "file": output,
        "format": file_format,
        "hash": graph.content_hash,
    }
    if with_certificate:
        from robustgraph.cli.certify import certify_generated  # numpy, rich: not for --help

        data["certificate"] = certify_generated(graph, output)
    emit(data, as_json, lambda: _render(data))
    if with_certificate:
        sys.exit(data["certificate"]["exit_code"])


def _render(data: dict[str, Any]) -> None:
    kind = "arcs" if data["directed"] else "edges"
    rows = [
        ("family", f"{data['family']}: {data['description']}"),
        ("nodes", str(data["n"])),
        (kind, str(data["m"])),
    ]
    if data["parameters"]:
        rows.append(("parameters", " ".join(f"{k}={v}" for k, v in data["parameters"].items())))
    if "attempts" in data:
        rows.append(("attempts", f"{data['attempts']} draw(s) of G(n, p={data['p']:.4f}), "
                                 f"checked with engine {data['parameters']['engine']}"))
    rows += [
        ("robustness", data["guarantee"]["statement"]),
        ("source", data["guarantee"]["citation"]),
        ("written", f"{data['file']} ({data['format']})"),
        ("hash", data["hash"]),
    ]
    if "certificate" in data:
        cert = data["certificate"]
        rows.append(("certificate", f"{cert['file']}: {cert['summary']}"))
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        click.echo(f"{name:<{width}}  {value}")
