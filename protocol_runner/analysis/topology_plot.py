"""The run's communication graph drawn with the agents' roles and its certified robustness.

``topology.{png,pdf,svg}`` (:func:`plot_topology`): nodes on a circle in label order
(deterministic), each coloured and shaped by its agent's role (strong: blue circle, weak:
orange square, adversary: vermillion triangle, no agent: grey diamond; Okabe-Ito colours,
told apart by shape in greyscale too). The title names the user's graph (the ``--graph`` file
or the ``--topology`` spec the run was given, not the copy ``topology.json``); the caption
states the certified r and the F it tolerates under SAC, which needs (F+1)-robustness under the
F-local model [1]_, and the certificate gate's verdict for the run's F.

A several-seed results directory (``run --seeds``, ``reproduce``) whose seeds differ in their
graph (a random family such as ``er:r=4`` draws one per seed) or in where the agents sit
(random placement) gets small multiples (:func:`find_topologies`, :func:`topology_panels`):
one panel per seed with its own roles, size and certified r, and a caption with the range of
certified r over the draws, the F every draw tolerates and on how many seeds' graphs the gate
certified the run's F.

References
----------
.. [1] H. Lee et al., "Robust Multi-Agent LLMs under Byzantine Faults", arXiv:2605.09076,
   2026: SAC tolerates F Byzantine neighbours per agent on an (F+1)-robust graph.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from matplotlib.figure import Figure
from matplotlib.lines import Line2D

import protocol_runner.analysis.figures as fig
from protocol_runner.analysis.names import topology_name
from protocol_runner.run.records import QueryRecord
from robustgraph import io
from robustgraph.certificate.document import Certificate
from robustgraph.errors import RobustgraphError
from robustgraph.topology import Topology

if TYPE_CHECKING:
    from protocol_runner.analysis.provenance import Provenance

__all__ = [
    "ROLE_STYLE",
    "TOPOLOGY_PLOT",
    "RunGraph",
    "agent_roles",
    "attacks",
    "find_topologies",
    "find_topology",
    "plot_topology",
    "topology_panels",
]

TOPOLOGY_PLOT = "topology"
TOPOLOGY_FILE = "topology.json"
CONFIG_FILE = "config.json"
CERTIFICATE_FILE = "certificate.json"
ROLE_STYLE = {
    "strong": (fig.OKABE_ITO["blue"], "o"),
    "weak": (fig.OKABE_ITO["orange"], "s"),
    "adversary": (fig.OKABE_ITO["vermillion"], "^"),
}
"""Node colour and marker per role."""
_NO_AGENT = ("#BBBBBB", "D")


def agent_roles(records: Sequence[QueryRecord]) -> dict[str, str]:
    """Node label (as text) -> role of the agent on it, from the first record's round 0.

    Examples
    --------
    >>> from protocol_runner.run.records import Turn
    >>> r0 = (Turn(0, "a", "strong", "1", True), Turn(1, "b", "adversary", None, False))
    >>> rec = QueryRecord("sac/q", "x", "sac", "q", 0, "math", "1", 0, 1, {}, (r0,), r0)
    >>> agent_roles([rec])
    {'a': 'strong', 'b': 'adversary'}
    """
    if not records:
        return {}
    first = records[0]
    turns = first.rounds[0] if first.rounds else first.final
    return {turn.node: turn.role for turn in turns}


def attacks(records: Sequence[QueryRecord]) -> tuple[str, ...]:
    """The attacks the adversaries followed, in order of first appearance in the first record.

    Examples
    --------
    >>> from protocol_runner.run.records import Turn
    >>> bad = Turn(1, "b", "adversary", "9", False, {"attack": "fixed"})
    >>> rec = QueryRecord("sac/q", "x", "sac", "q", 0, "math", "1", 0, 1, {}, ((bad,),), (bad,))
    >>> attacks([rec])
    ('fixed',)
    """
    if not records:
        return ()
    first = records[0]
    turns = first.rounds[0] if first.rounds else first.final
    names = [
        str(t.details["attack"]) for t in turns if t.role == "adversary" and "attack" in t.details
    ]
    return tuple(dict.fromkeys(names))


@dataclass(frozen=True)
class RunGraph:
    """The run's graph, the name the user gave it, its certificate (if it binds to the graph),
    the certificate gate's verdict from ``config.json`` (if any), and the seed whose graph it
    is in a several-seed directory (None for a single run)."""

    topology: Topology
    name: str
    certificate: Certificate | None
    gate: Mapping[str, Any] | None = None
    seed: int | None = None

    def certified_r(self) -> tuple[int, int | None] | None:
        """Proven bounds (lower, upper or None) on r*: the lower bound is the gate's
        ``proven_r``, else the best lower bound a check of the certificate proved; the upper
        bound the smallest one a certificate check proved (None without a certificate)."""
        checks = []
        if self.certificate is not None:
            checks = [c for rec in self.certificate.claims for c in rec.checks
                      if c.bound_on == "r*"]
        upper = min((c.upper for c in checks), default=None)
        if self.gate is not None and self.gate.get("proven_r") is not None:
            return int(self.gate["proven_r"]), upper
        if not checks:
            return None
        return max(c.lower for c in checks), upper

    def title(self) -> str:
        """The user's graph name, its kind and size."""
        kind = "digraph" if self.topology.directed else "graph"
        name = topology_name(self.name)
        return f"{name}: {kind}, n = {self.topology.n}, m = {self.topology.m}"

    def proven(self) -> str:
        """What was proven about r*, in a few words: ``certified 4-robust (r* = 4)``."""
        bounds = self.certified_r()
        if bounds is None:
            return "no certificate: robustness not certified"
        lower, upper = bounds
        proven = f"r* = {lower}" if lower == upper else f"r* >= {lower}"
        if upper is not None and upper > lower:
            proven = f"{lower} <= r* <= {upper}"
        return f"certified {lower}-robust ({proven})"

    def caption(self) -> str:
        """Certified r, the F it tolerates under SAC, and the gate's verdict for this run."""
        text = self.proven()
        bounds = self.certified_r()
        if bounds is not None:
            text += (
                f"; tolerates F = {bounds[0] - 1} Byzantine neighbours per agent under SAC "
                "(F-local, needs (F+1)-robust)"
            )
        if self.gate is not None:
            verdict = "certified" if self.gate.get("certified") else "NOT certified"
            reason = self.gate.get("reason", "")
            text += f"\nthis run, F = {self.gate.get('F')}: {verdict} ({reason})"
        return text


def find_topologies(
    results_dir: str | Path,
    config: Mapping[str, Any] | None = None,
    seed_dirs: Sequence[str | Path] = (),
) -> tuple[list[RunGraph], str | None]:
    """The graph of a run, or of each seed of a several-seed results directory.

    A several-seed directory (``run --seeds``, ``reproduce``) keeps each seed's run, graph,
    certificate and ``config.json`` in its ``seed_dirs``
    (:func:`protocol_runner.analysis.report.seed_dirs`): one :class:`RunGraph` per seed, in
    that order, each with its own certificate, gate verdict and seed (from its
    ``config.json``; a random family such as ``er:r=4`` draws a graph per seed). Otherwise
    :func:`find_topology` of the directory.

    Returns
    -------
    (list of RunGraph, str or None)
        The graphs, or ``[]`` with a one-line note saying why (no graph file, or unreadable).
    """
    if not seed_dirs:
        graph, note = find_topology(results_dir, config)
        return ([] if graph is None else [graph]), note
    graphs = []
    for seed_dir in map(Path, seed_dirs):
        try:
            own = json.loads((seed_dir / CONFIG_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            own = None
        own = own if isinstance(own, dict) else dict(config or {})
        graph, note = find_topology(seed_dir, own)
        if graph is None:
            return [], note
        graphs.append(replace(graph, seed=(own.get("run") or {}).get("seed")))
    return graphs, None


def find_topology(
    results_dir: str | Path, config: Mapping[str, Any] | None = None
) -> tuple[RunGraph | None, str | None]:
    """The run's graph and certificate in ``results_dir`` (one run), or why none was found.

    The files are those ``config["files"]`` names (``topology`` and ``certificate``), by
    default ``topology.json`` and ``certificate.json`` as the runner writes them; the graph's
    name is ``config["topology_source"]`` (what the user passed), else the file's name. The
    certificate is used only when it binds to the graph (same content hash).

    Returns
    -------
    (RunGraph or None, str or None)
        The graph, or None with a one-line note saying why (no graph file, or unreadable).
    """
    directory = Path(results_dir)
    config = config or {}
    files = config.get("files") or {}
    graph_path = directory / files.get("topology", TOPOLOGY_FILE)
    if not graph_path.is_file():
        return None, f"{directory}: no graph file {graph_path.name}; topology plot skipped"
    try:
        topology = io.read(graph_path)
    except RobustgraphError as exc:
        return None, f"{graph_path}: unreadable graph ({exc}); topology plot skipped"
    certificate = None
    certificate_path = directory / files.get("certificate", CERTIFICATE_FILE)
    if certificate_path.is_file():
        try:
            loaded = Certificate.load(certificate_path)
        except RobustgraphError:
            loaded = None
        if loaded is not None and loaded.graph.hash == topology.content_hash:
            certificate = loaded
    gate = config.get("gate")
    name = str(config.get("topology_source") or graph_path.name)
    return RunGraph(topology, name, certificate, gate if isinstance(gate, dict) else None), None


def topology_panels(
    graphs: Sequence[RunGraph], records: Sequence[QueryRecord]
) -> list[tuple[RunGraph, dict[str, str]]]:
    """Each graph with its agents' roles (:func:`agent_roles` of its seed's records); a single
    panel when every seed ran on the same graph with the same roles.

    Examples
    --------
    >>> g = Topology.from_edges([("a", "b")])
    >>> same = [RunGraph(g, "g", None, seed=s) for s in (1, 2)]
    >>> [(graph.seed, roles) for graph, roles in topology_panels(same, [])]
    [(1, {})]
    """
    panels = [
        (g, agent_roles([r for r in records if g.seed is None or r.seed == g.seed]))
        for g in graphs
    ]
    first = panels[0]
    if all(g.topology.content_hash == first[0].topology.content_hash and roles == first[1]
           for g, roles in panels):
        return [first]
    return panels


def _handle(colour: str, marker: str, label: str) -> Line2D:
    return Line2D([], [], marker=marker, linestyle="", markersize=8, markerfacecolor=colour,
                  markeredgecolor="black", label=label)


def _draw(ax: Any, topology: Topology, roles: Mapping[str, str], node_size: int,
          font_size: float = 7) -> None:
    """The graph on a circle in label order, nodes coloured and shaped by role."""
    import networkx as nx

    nxgraph = topology.to_networkx()
    positions = nx.circular_layout(list(topology.labels))
    arrows = {"arrows": True, "arrowsize": 10, "node_size": node_size}
    if not topology.directed:
        arrows = {}
    nx.draw_networkx_edges(nxgraph, positions, ax=ax, edge_color="#999999", width=0.9, **arrows)
    for role, (colour, marker) in [*ROLE_STYLE.items(), (None, _NO_AGENT)]:
        nodes = [v for v in topology.labels if roles.get(str(v)) == role
                 or (role is None and str(v) not in roles)]
        if nodes:
            nx.draw_networkx_nodes(nxgraph, positions, nodelist=nodes, ax=ax, node_color=colour,
                                   node_shape=marker, node_size=node_size, edgecolors="black",
                                   linewidths=0.8)
    if topology.n <= 60:
        nx.draw_networkx_labels(nxgraph, positions, ax=ax, font_size=font_size,
                                font_color="black")
    ax.set_aspect("equal")
    ax.set_axis_off()


def _one_graph(graphs: Sequence[RunGraph]) -> bool:
    return len({g.topology.content_hash for g in graphs}) == 1


def _several(panels: Sequence[tuple[RunGraph, Mapping[str, str]]]) -> tuple[str, str]:
    """Title and caption of one panel per seed. One graph, agents placed per seed: the graph's
    own title and caption. Several draws: their number, the range of certified r over them,
    the F every draw tolerates, and on how many the gate certified the run's F."""
    graphs = [g for g, _ in panels]
    first, k = graphs[0], len(graphs)
    if _one_graph(graphs):
        return f"{first.title()}; agents placed per seed ({k} seeds)", first.caption()
    kind = "digraph" if first.topology.directed else "graph"
    title = (f"{topology_name(first.name)}: {k} random draws of the {kind} (one per seed), "
             f"n = {first.topology.n}")
    bounds = [g.certified_r() for g in graphs]
    if any(b is None for b in bounds):
        proven = f"certified on {sum(b is not None for b in bounds)} of {k} draws"
    else:
        lows = sorted(b[0] for b in bounds)
        span = (f"certified r = {lows[0]} on each of the {k} seeds' graphs" if lows[0] == lows[-1]
                else f"certified r from {lows[0]} to {lows[-1]} over the {k} seeds' graphs")
        proven = (
            f"{span}; every one tolerates F = {lows[0] - 1} Byzantine neighbours per agent "
            "under SAC (F-local, needs (F+1)-robust)"
        )
    gates = [g.gate for g in graphs if g.gate is not None]
    if gates:
        certified = sum(bool(g.get("certified")) for g in gates)
        fs = "/".join(dict.fromkeys(str(g.get("F")) for g in gates))
        proven += f"\nthis run, F = {fs}: certified on {certified} of {len(gates)} seeds' graphs"
    return title, proven


def plot_topology(
    panels: Sequence[tuple[RunGraph, Mapping[str, str]]],
    directory: str | Path,
    *,
    attacks: Sequence[str] = (),
    provenance: Provenance | None = None,
) -> list[Path]:
    """Draw the graph(s) with each node's role; title: the graph's name (and the run's title
    block); caption: certified r, F.

    One panel (the graph of a run, or of every seed when all ran on it with the same roles):
    the caption states its certified r, the F it tolerates and the gate's verdict. Several
    (:func:`topology_panels`: a random family drew one graph per seed, or the agents were
    placed per seed): small multiples, one per seed, each subtitled with its seed, size and
    certified r; the caption gives the range of certified r over the draws, the F every one
    tolerates and on how many the gate certified the run's F (one graph with agents placed per
    seed: the graph's own caption, one panel per placement). A digraph's arcs point from
    speaker to listener (``u -> v``: v hears u).

    Parameters
    ----------
    panels : sequence of (RunGraph, mapping of str to str)
        From :func:`topology_panels`: each graph and its node labels -> role
        (:func:`agent_roles`).
    directory : str or Path
        Where ``topology.{png,pdf,svg}`` go.
    attacks : sequence of str
        The adversaries' attacks, named in the legend.
    provenance : Provenance, optional
        The run's task set, backend, models, roster, F, T, seeds and query counts, under the
        graph's name as on the other figures (and the simulated banner where it applies).

    Returns
    -------
    list of Path
        The three files (and the caption file on paper: :func:`.figures.finish`).
    """
    n = max(g.topology.n for g, _ in panels)
    chosen = fig.current()
    columns = min(2 if chosen.paper and chosen.columns == 1 else 3, len(panels))
    lines = (len(panels) + columns - 1) // columns
    side = min(7.0, 3.0 + 0.18 * n) if len(panels) == 1 else min(3.6, 2.2 + 0.08 * n)
    node_size = (420 if len(panels) == 1 else 240) if n <= 30 else 120
    if chosen.paper:  # print size: smaller nodes, labels and subtitles
        node_size = ((150, 260) if len(panels) == 1 else (90, 120))[chosen.columns - 1]
        node_size = node_size if n <= 30 else node_size // 2
    with fig.style():
        across = chosen.width / columns
        size = fig.size((side * columns + 2.2, side * lines + 0.9), lines,
                        (min(across, 2.8) + 0.45, min(across, 3.4) + 0.45),
                        extra=0.1 if lines * columns > len(panels) else 0.7)
        figure = Figure(figsize=size, layout="constrained")
        grid = figure.subplots(lines, columns, squeeze=False)
        for ax, (graph, roles) in zip(grid.ravel(), panels, strict=False):
            _draw(ax, graph.topology, roles, node_size, 5.5 if chosen.paper else 7)
            if len(panels) == 1:
                continue
            subtitle = f"seed {graph.seed}"
            if not _one_graph([g for g, _ in panels]):
                subtitle += f": m = {graph.topology.m}\n{graph.proven()}"
            ax.set_title(subtitle, fontsize=6.5 if chosen.paper else 8)
        for ax in grid.ravel()[len(panels):]:
            ax.set_axis_off()
        roles = panels[0][1]
        counts = {role: sum(1 for r in roles.values() if r == role) for role in ROLE_STYLE}
        labels = {role: f"{role} agent ({counts[role]})" for role in ROLE_STYLE}
        if attacks:
            labels["adversary"] = f"adversary ({counts['adversary']}; attack {', '.join(attacks)})"
        handles = [_handle(c, m, labels[role]) for role, (c, m) in ROLE_STYLE.items()]
        if any(str(v) not in r for g, r in panels for v in g.topology.labels):
            handles.append(_handle(*_NO_AGENT, "no agent"))
        spare = grid.ravel()[len(panels):]
        if chosen.paper and len(spare):  # on paper the legend fills the empty slot
            spare[0].legend(handles=handles, loc="center", frameon=False, title="role")
        else:
            where = "outside lower center" if chosen.paper else "outside right center"
            figure.legend(handles=handles, loc=where, frameon=False, title="role",
                          ncols=2 if chosen.paper else 1)
        if len(panels) == 1:
            title, caption = panels[0][0].title(), panels[0][0].caption()
        else:
            title, caption = _several(panels)
        return fig.finish(figure, directory, TOPOLOGY_PLOT, title, provenance,
                          notes=caption.split("\n"))
