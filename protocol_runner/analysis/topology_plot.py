"""The run's communication graph drawn with the agents' roles and its certified robustness.

``topology.{png,pdf,svg}`` (:func:`plot_topology`): nodes on a circle in label order
(deterministic), each coloured and shaped by its agent's role (strong: blue circle, weak:
orange square, adversary: vermillion triangle, no agent: grey diamond; Okabe-Ito colours,
told apart by shape in greyscale too). The title names the user's graph (the ``--graph`` file
or the ``--topology`` spec the run was given, not the copy ``topology.json``); the caption
states the certified r and the F it tolerates under SAC, which needs (F+1)-robustness under the
F-local model [1]_, and the certificate gate's verdict for the run's F.

References
----------
.. [1] H. Lee et al., "Robust Multi-Agent LLMs under Byzantine Faults", arXiv:2605.09076,
   2026: SAC tolerates F Byzantine neighbours per agent on an (F+1)-robust graph.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure
from matplotlib.lines import Line2D

import protocol_runner.analysis.figures as fig
from protocol_runner.run.records import QueryRecord
from robustgraph import io
from robustgraph.certificate.document import Certificate
from robustgraph.errors import RobustgraphError
from robustgraph.topology import Topology

__all__ = [
    "ROLE_STYLE",
    "TOPOLOGY_PLOT",
    "RunGraph",
    "agent_roles",
    "attacks",
    "find_topology",
    "plot_topology",
]

TOPOLOGY_PLOT = "topology"
TOPOLOGY_FILE = "topology.json"
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
    """The run's graph, the name the user gave it, its certificate (if it binds to the graph)
    and the certificate gate's verdict from ``config.json`` (if any)."""

    topology: Topology
    name: str
    certificate: Certificate | None
    gate: Mapping[str, Any] | None = None

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
        return f"{self.name}: {kind}, n = {self.topology.n}, m = {self.topology.m}"

    def caption(self) -> str:
        """Certified r, the F it tolerates under SAC, and the gate's verdict for this run."""
        bounds = self.certified_r()
        if bounds is None:
            text = "no certificate: robustness not certified"
        else:
            lower, upper = bounds
            proven = f"r* = {lower}" if lower == upper else f"r* >= {lower}"
            if upper is not None and upper > lower:
                proven = f"{lower} <= r* <= {upper}"
            text = (
                f"certified {lower}-robust ({proven}); tolerates F = {lower - 1} Byzantine "
                "neighbours per agent under SAC (F-local, needs (F+1)-robust)"
            )
        if self.gate is not None:
            verdict = "certified" if self.gate.get("certified") else "NOT certified"
            reason = self.gate.get("reason", "")
            text += f"\nthis run, F = {self.gate.get('F')}: {verdict} ({reason})"
        return text


def find_topology(
    results_dir: str | Path, config: Mapping[str, Any] | None = None
) -> tuple[RunGraph | None, str | None]:
    """The run's graph and certificate in ``results_dir``, or why no graph was found.

    A several-seed results directory (``run --seeds``, ``reproduce``) keeps each seed's graph in
    ``seed-S/``: when every seed ran on one graph, that graph (and the first seed's
    certificate) is drawn; when a random family drew one per seed, nothing is.

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
    if not graph_path.is_file():  # a several-seed run (run --seeds): its seeds' one graph
        seeds = sorted(directory.glob(f"seed-*/{graph_path.name}"))
        if not seeds:
            return None, f"{directory}: no graph file {graph_path.name}; topology plot skipped"
        hashes = set()
        for path in seeds:
            try:
                hashes.add(io.read(path).content_hash)
            except RobustgraphError as exc:
                return None, f"{path}: unreadable graph ({exc}); topology plot skipped"
        if len(hashes) > 1:
            return None, (
                f"{directory}: the seeds ran on {len(hashes)} different graphs (a random family "
                "draws one per seed); topology plot skipped"
            )
        directory, graph_path = seeds[0].parent, seeds[0]
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


def _handle(colour: str, marker: str, label: str) -> Line2D:
    return Line2D([], [], marker=marker, linestyle="", markersize=8, markerfacecolor=colour,
                  markeredgecolor="black", label=label)


def plot_topology(
    graph: RunGraph,
    roles: Mapping[str, str],
    directory: str | Path,
    *,
    attacks: Sequence[str] = (),
    banner: bool = False,
) -> list[Path]:
    """Draw the graph with each node's role; title: the graph's name; caption: certified r and F.

    A digraph's arcs point from speaker to listener (``u -> v``: v hears u).

    Parameters
    ----------
    graph : RunGraph
        From :func:`find_topology`.
    roles : mapping of str to str
        Node label as text -> role (:func:`agent_roles`).
    directory : str or Path
        Where ``topology.{png,pdf,svg}`` go.
    attacks : sequence of str
        The adversaries' attacks, named in the legend.
    banner : bool
        Print :data:`~protocol_runner.analysis.figures.SIMULATED_BANNER` (simulated backend).

    Returns
    -------
    list of Path
        The three files.
    """
    import networkx as nx

    topology = graph.topology
    nxgraph = topology.to_networkx()
    positions = nx.circular_layout(list(topology.labels))
    side = min(7.0, 3.0 + 0.18 * topology.n)
    node_size = 420 if topology.n <= 30 else 120
    with fig.style():
        figure = Figure(figsize=(side + 2.2, side + 0.8), layout="constrained")
        ax = figure.subplots()
        arrows = {"arrows": True, "arrowsize": 10, "node_size": node_size}
        if not topology.directed:
            arrows = {}
        nx.draw_networkx_edges(nxgraph, positions, ax=ax, edge_color="#999999", width=0.9,
                               **arrows)
        for role, (colour, marker) in [*ROLE_STYLE.items(), (None, _NO_AGENT)]:
            nodes = [v for v in topology.labels if roles.get(str(v)) == role
                     or (role is None and str(v) not in roles)]
            if nodes:
                nx.draw_networkx_nodes(nxgraph, positions, nodelist=nodes, ax=ax,
                                       node_color=colour, node_shape=marker,
                                       node_size=node_size, edgecolors="black", linewidths=0.8)
        if topology.n <= 60:
            nx.draw_networkx_labels(nxgraph, positions, ax=ax, font_size=7, font_color="black")
        counts = {role: sum(1 for r in roles.values() if r == role) for role in ROLE_STYLE}
        labels = {role: f"{role} agent ({counts[role]})" for role in ROLE_STYLE}
        if attacks:
            labels["adversary"] = f"adversary ({counts['adversary']}; attack {', '.join(attacks)})"
        handles = [_handle(c, m, labels[role]) for role, (c, m) in ROLE_STYLE.items()]
        if any(str(v) not in roles for v in topology.labels):
            handles.append(_handle(*_NO_AGENT, "no agent"))
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False,
                  title="role")
        ax.set_aspect("equal")
        ax.set_axis_off()
        figure.suptitle(graph.title(), fontsize=10)
        figure.supxlabel(graph.caption(), fontsize=8, linespacing=1.4)
        if banner:
            fig.simulated_banner(figure)
        return fig.save(figure, directory, TOPOLOGY_PLOT)
