"""``robustgraph info`` and ``robustgraph convert``: look at a graph file, or change its format.

``info`` reports size, degrees, connectivity, a cheap upper bound on the robustness r* and the
content hash; ``convert`` reads a file in one format and writes it in another, then reads the
result back to check that the graph survived (its content hash).
"""

from __future__ import annotations

import math
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click

from robustgraph import io
from robustgraph.cli.common import emit, json_option, warn
from robustgraph.cli.connectivity import (
    connectivity_pairs,
    strong_components,
    vertex_connectivity,
    weak_components,
)
from robustgraph.graphs import GraphInput, as_topology

__all__ = [
    "CONNECTIVITY_MAX_N",
    "CONNECTIVITY_MAX_WORK",
    "convert",
    "degree_bound",
    "info",
    "summarize",
]

CONNECTIVITY_MAX_N = 300
"""Above this many nodes ``info`` skips the vertex connectivity (it says so)."""

CONNECTIVITY_MAX_WORK = 20_000_000
"""Skip the vertex connectivity when (max-flow calls) x (n + m) exceeds this (a few seconds)."""

_FORMAT_HELP = "Format name: " + ", ".join(io.FORMATS) + " (default: from the extension)."
_DIRECTED_HELP = (
    "Read an edge or adjacency list or LGL file as a digraph (--directed) or a graph "
    "(--undirected). Default: the edge list's sidecar FILE.meta.json or the file's "
    "'# directed' / '# undirected' comment; a file with neither must list every edge both "
    "ways, else the flag is required (never guessed). Formats that record the kind (GraphML, "
    "GML, JSON, Pajek, GEXF, DOT, graph6, Matrix Market) "
    "must agree with the flag."
)
_DROP_HELP = "Drop self-loops and repeated edges with a warning instead of failing."


# ----------------------------------------------------------------- the numbers info reports
def degree_bound(topology: GraphInput) -> tuple[int, str]:
    """An upper bound on the maximum robustness r* from the node count and in-degrees.

    Parameters
    ----------
    topology : Topology
        Any graph or digraph.

    Returns
    -------
    (int, str)
        The bound and the rule that gave it.

    Notes
    -----
    With ``delta`` the minimum in-degree and n >= 2 (r* = 0 below that, by convention):

    - r* <= ceil(n/2) for every graph: split V into halves S1, S2 of sizes ceil(n/2) and
      floor(n/2); a node of S1 has at most floor(n/2) in-neighbours outside S1 and a node of S2
      at most ceil(n/2) outside S2 (LeBlanc et al. 2013, Sec. IV: no graph is more robust than
      the complete graph, which is ceil(n/2)-robust by their Lemma 4).
    - r* <= delta whenever r* >= 2: for a node i, take S1 = {i}, S2 = V \\ {i}; a node of S2 has
      at most one in-neighbour (i) outside S2, so S1 must be r-reachable: |N_i| >= r.
    - For delta = 0 that argument only gives r* <= 1, and r* = 1 happens: the directed out-star
      is 1-robust although its centre hears no one. So r* = 0 when two nodes hear no one (take
      S1 = {i}, S2 = {j}), or when a node hears no one and no one hears it; otherwise r* <= 1.

    O(n + m) time.

    Examples
    --------
    >>> from robustgraph import Topology
    >>> star = Topology.from_edges([(0, 1), (0, 2), (0, 3)], directed=True)
    >>> degree_bound(star)
    (1, 'one node hears no one')
    >>> degree_bound(Topology.from_edges([(0, 1), (1, 2), (2, 0)]))
    (2, 'min(ceil(n/2), min in-degree)')

    References
    ----------
    H. J. LeBlanc, H. Zhang, X. Koutsoukos, S. Sundaram, "Resilient asymptotic consensus in
    robust networks", IEEE JSAC 31(4), 2013.
    """
    topology = as_topology(topology)
    n = topology.n
    if n < 2:
        return 0, "fewer than two nodes"
    deaf = [i for i, d in enumerate(topology.in_degrees) if d == 0]
    if len(deaf) >= 2:
        return 0, "two nodes hear no one"
    if deaf:
        heard = any(deaf[0] in nbrs for nbrs in topology.in_neighbors)
        return (1, "one node hears no one") if heard else (0, "a node is isolated")
    return min(math.ceil(n / 2), min(topology.in_degrees)), "min(ceil(n/2), min in-degree)"


def _degrees(values: tuple[int, ...] | list[int]) -> dict[str, float]:
    return {"min": min(values), "max": max(values), "mean": round(sum(values) / len(values), 4)}


def summarize(topology: GraphInput) -> dict[str, Any]:
    """Everything ``robustgraph info`` reports about a graph, as a JSON-ready dict.

    Keys: ``n``, ``m``, ``directed``, ``in_degree`` (min/max/mean; ``degree`` for a graph),
    ``out_degree`` (digraphs), ``connected`` and ``components`` (graphs) or
    ``strongly_connected``, ``weakly_connected``, ``strong_components``, ``weak_components``
    (digraphs), ``vertex_connectivity`` (None when skipped, with ``vertex_connectivity_note``),
    ``r_upper_bound`` and ``r_upper_bound_rule`` (:func:`degree_bound`), ``content_hash``.
    """
    topology = as_topology(topology)
    t = topology
    data: dict[str, Any] = {"n": t.n, "m": t.m, "directed": t.directed}
    if t.directed:
        data["in_degree"] = _degrees(t.in_degrees)
        data["out_degree"] = _degrees([len(outs) for outs in t.out_neighbors])
        strong = strong_components(t)
        weak = weak_components(t)
        data |= {
            "strongly_connected": strong == 1,
            "weakly_connected": weak == 1,
            "strong_components": strong,
            "weak_components": weak,
        }
    else:
        data["degree"] = _degrees(t.in_degrees)
        components = weak_components(t)
        data |= {"connected": components == 1, "components": components}
    work = (len(connectivity_pairs(t)) if 2 <= t.n <= CONNECTIVITY_MAX_N else 0) * (t.n + t.m)
    if t.n > CONNECTIVITY_MAX_N:
        note = f"skipped: more than {CONNECTIVITY_MAX_N} nodes"
        kappa = None
    elif work > CONNECTIVITY_MAX_WORK:
        note = (
            f"skipped: would take about {work:.1e} flow steps (limit {CONNECTIVITY_MAX_WORK:.0e})"
        )
        kappa = None
    else:
        note, kappa = None, vertex_connectivity(t)
    data["vertex_connectivity"] = kappa
    data["vertex_connectivity_note"] = note
    bound, rule = degree_bound(t)
    data["r_upper_bound"] = bound
    data["r_upper_bound_rule"] = rule
    data["content_hash"] = t.content_hash
    return data


# ----------------------------------------------------------------- command plumbing
@contextmanager
def _warnings_to_stderr() -> Iterator[None]:
    """Show the readers' and writers' UserWarnings as one ``warning:`` line each on stderr."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    for item in caught:
        if issubclass(item.category, UserWarning):
            warn(str(item.message))


def _directed_option(func: Any) -> Any:
    return click.option("--directed/--undirected", "directed", default=None, help=_DIRECTED_HELP)(
        func
    )


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' * (count != 1)}"


def _info_rows(data: dict[str, Any]) -> list[tuple[str, str]]:
    kind = "directed" if data["directed"] else "undirected"
    rows = [
        ("nodes", str(data["n"])),
        ("edges", f"{data['m']} ({'arcs' if data['directed'] else 'edges'}, {kind})"),
    ]

    def degree_row(name: str, d: dict[str, float]) -> tuple[str, str]:
        return name, f"min {d['min']}, max {d['max']}, mean {d['mean']:g}"

    if data["directed"]:
        rows.append(degree_row("in-degree", data["in_degree"]))
        rows.append(degree_row("out-degree", data["out_degree"]))
        strong = _plural(data["strong_components"], "strong component")
        weak = _plural(data["weak_components"], "weak component")
        rows.append(
            (
                "connected",
                f"strongly: {_yes(data['strongly_connected'])} ({strong}), "
                f"weakly: {_yes(data['weakly_connected'])} ({weak})",
            )
        )
    else:
        rows.append(degree_row("degree", data["degree"]))
        components = _plural(data["components"], "component")
        rows.append(("connected", f"{_yes(data['connected'])} ({components})"))
    kappa = data["vertex_connectivity"]
    rows.append(
        (
            "vertex connectivity",
            str(kappa) if kappa is not None else data["vertex_connectivity_note"],
        )
    )
    rows.append(
        (
            "robustness",
            f"r* <= {data['r_upper_bound']}  ({data['r_upper_bound_rule']}; a cheap bound, "
            "not a certificate)",
        )
    )
    rows.append(("content hash", data["content_hash"]))
    return rows


def _render_info(path: str, fmt: str, data: dict[str, Any]) -> None:
    """A rich table on a terminal; plain ``key  value`` lines (no padding) when piped (then rich,
    50 ms of imports, is not loaded)."""
    title = f"{path} ({fmt})"
    rows = _info_rows(data)
    console = None
    if sys.stdout.isatty():
        from rich.console import Console

        console = Console(highlight=False)
    if console is None or not console.is_terminal:
        width = max(len(key) for key, _ in rows)
        click.echo("\n".join([title] + [f" {key:<{width}}  {value}" for key, value in rows]))
        return
    from rich.table import Table

    table = Table(title=title, show_header=False, title_justify="left", box=None)
    table.add_column(style="bold", no_wrap=True)
    table.add_column(overflow="fold")
    for key, value in rows:
        table.add_row(key, value)
    console.print(table)


# ----------------------------------------------------------------- the commands
@click.command(
    "info",
    epilog="""\b
Examples:
  robustgraph info merg7.json
  robustgraph info edges.txt --directed --json
  robustgraph info graph.mtx.gz""",
)
@click.argument("file", metavar="FILE")
@click.option("--format", "fmt", default=None, metavar="F", help=_FORMAT_HELP)
@_directed_option
@click.option("--drop-invalid", is_flag=True, help=_DROP_HELP)
@json_option
def info(
    file: str, fmt: str | None, directed: bool | None, drop_invalid: bool, as_json: bool
) -> None:
    """Describe the graph in FILE: size, degrees, connectivity, a robustness bound, hash.

    \b
    Reports the number of nodes n and edges m, whether the graph is directed, the
    in-degree range (and out-degree for digraphs), (strong) connectivity and the number
    of components, the vertex connectivity (skipped for large graphs, with a note), a
    cheap upper bound on the robustness r* (from n and the in-degrees; 'robustgraph
    certify' gives the exact value) and the content hash that certificates bind to.
    A directed edge u -> v means v hears u.
    """
    file_format = io.resolve_format(file, fmt)
    with _warnings_to_stderr():
        topology = io.read(
            file, format=file_format.name, directed=directed, drop_invalid=drop_invalid
        )
    data = {"file": file, "format": file_format.name, **summarize(topology)}
    emit(data, as_json, lambda: _render_info(file, file_format.name, data))


@click.command(
    "convert",
    epilog="""\b
Examples:
  robustgraph convert merg7.json merg7.graphml
  robustgraph convert edges.txt g.gml --directed
  robustgraph convert data.csv g.g6 --drop-invalid --json""",
)
@click.argument("source", metavar="IN")
@click.argument("target", metavar="OUT")
@click.option("--from", "from_fmt", default=None, metavar="F", help="Format of IN. " + _FORMAT_HELP)
@click.option("--to", "to_fmt", default=None, metavar="F", help="Format of OUT. " + _FORMAT_HELP)
@_directed_option
@click.option("--drop-invalid", is_flag=True, help=_DROP_HELP)
@json_option
def convert(
    source: str,
    target: str,
    from_fmt: str | None,
    to_fmt: str | None,
    directed: bool | None,
    drop_invalid: bool,
    as_json: bool,
) -> None:
    """Convert the graph in IN to OUT, another format (chosen by extension or --to).

    \b
    After writing OUT it reads OUT back and compares content hashes. They differ only
    when OUT's format cannot store something IN had: graph6, sparse6 and Matrix Market
    store no node labels (nodes become 0..n-1, with a warning). Writing a digraph to
    graph6/sparse6 is an error. Compressed files (.gz, .bz2, .xz) work both ways.
    """
    in_format = io.resolve_format(source, from_fmt)
    out_format = io.resolve_format(target, to_fmt)  # a bad name fails before any work
    with _warnings_to_stderr():
        topology = io.read(
            source, format=in_format.name, directed=directed, drop_invalid=drop_invalid
        )
        io.write(topology, target, format=out_format.name)
        back = io.read(target, format=out_format.name, directed=topology.directed)
    data = {
        "input": source,
        "output": target,
        "from": in_format.name,
        "to": out_format.name,
        "n": topology.n,
        "m": topology.m,
        "directed": topology.directed,
        "content_hash": topology.content_hash,
        "output_hash": back.content_hash,
        "same_graph": back.content_hash == topology.content_hash,
    }

    def render() -> None:
        kind = "directed" if topology.directed else "undirected"
        click.echo(
            f"wrote {target} ({out_format.name}): n={topology.n}, m={topology.m}, {kind}, "
            f"{back.content_hash}"
        )
        if not data["same_graph"]:
            click.echo(f"  input hash was {topology.content_hash} (labels not stored)")

    emit(data, as_json, render)
