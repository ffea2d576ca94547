"""PNG plots of a run: per-round weak/strong accuracy per protocol, and the topology by role.

Figures are drawn on matplotlib's Agg canvas directly (no pyplot, no global backend switch),
so plotting works headless and does not disturb a caller's matplotlib state.

- ``rounds.png`` (:func:`plot_rounds`): one panel per protocol; the accuracy of the weak and of
  the strong honest agents at rounds ``0..T``, with the bootstrap interval as a band (the SAC
  paper's per-round W/S curves, Lee et al. 2026).
- ``topology.png`` (:func:`plot_topology`): the communication graph with each node coloured by
  its agent's role (strong, weak, adversary), read from the run's graph file and checked against
  its certificate (:func:`find_topology`); roles come from the records themselves.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from protocol_runner.analysis.metrics import Estimate, ProtocolMetrics
from protocol_runner.run.records import QueryRecord
from robustgraph import io
from robustgraph.certificate.document import Certificate
from robustgraph.errors import RobustgraphError
from robustgraph.topology import Topology

__all__ = [
    "ROLE_COLORS",
    "ROUNDS_PNG",
    "TOPOLOGY_PNG",
    "PlotOutcome",
    "RunGraph",
    "agent_roles",
    "find_topology",
    "plot_rounds",
    "plot_topology",
    "write_plots",
]

ROUNDS_PNG = "rounds.png"
TOPOLOGY_PNG = "topology.png"
ROLE_COLORS = {"strong": "#1f77b4", "weak": "#ff7f0e", "adversary": "#d62728"}
"""Node and line colour per role; a node without an agent is grey."""

_UNASSIGNED = "#bbbbbb"
TOPOLOGY_FILE = "topology.json"
CERTIFICATE_FILE = "certificate.json"


def _save(figure: Figure, path: Path) -> Path:
    FigureCanvasAgg(figure)
    figure.savefig(path, format="png", dpi=120)
    return path


def _band(
    estimates: Sequence[Estimate | None],
) -> tuple[list[int], list[float], list[float], list[float]]:
    rounds, values, lows, highs = [], [], [], []
    for r, estimate in enumerate(estimates):
        if estimate is not None:
            rounds.append(r)
            values.append(100 * estimate.value)
            lows.append(100 * estimate.low)
            highs.append(100 * estimate.high)
    return rounds, values, lows, highs


def plot_rounds(protocols: Mapping[str, ProtocolMetrics], path: str | Path) -> Path:
    """Draw the per-round accuracy of weak and strong honest agents, one panel per protocol.

    Parameters
    ----------
    protocols : mapping of str to ProtocolMetrics
        From :func:`protocol_runner.analysis.metrics.compute_metrics`, at least one, each with
        round 0
        (:func:`write_plots` leaves out protocols without rounds, e.g. the judge-only control).
    path : str or Path
        Where to write the PNG.

    Returns
    -------
    Path
        ``path``.
    """
    names = list(protocols)
    columns = min(3, len(names))
    rows = math.ceil(len(names) / columns)
    figure = Figure(figsize=(4.2 * columns, 3.2 * rows + 0.4), layout="constrained")
    axes = figure.subplots(rows, columns, squeeze=False, sharey=True)
    for index, ax in enumerate(axes.flat):
        if index >= len(names):
            ax.set_visible(False)
            continue
        metrics = protocols[names[index]]
        for group, label in (("weak", "weak (W)"), ("strong", "strong (S)")):
            rounds, values, lows, highs = _band(metrics.rounds[group])
            if not rounds:
                continue
            color = ROLE_COLORS[group]
            if len(rounds) == 1:  # no communication rounds: one point with its interval
                error = [[values[0] - lows[0]], [highs[0] - values[0]]]
                ax.errorbar(
                    rounds, values, yerr=error, fmt="o", color=color, capsize=4, label=label
                )
                continue
            ax.plot(rounds, values, marker="o", color=color, label=label)
            ax.fill_between(rounds, lows, highs, color=color, alpha=0.18, linewidth=0)
        last = len(metrics.rounds["honest"]) - 1
        ax.set_xlim(-0.5 if last == 0 else -0.2, 0.5 if last == 0 else last + 0.2)
        ax.set_xticks(range(last + 1))
        ax.set_ylim(0, 100)
        ax.set_title(f"{names[index]} ({metrics.queries} queries)")
        ax.set_xlabel("round")
        ax.grid(alpha=0.3)
        if index % columns == 0:
            ax.set_ylabel("accuracy (%)")
        if ax.get_legend_handles_labels()[0]:
            ax.legend(loc="lower right", fontsize="small")
    figure.suptitle("Honest agents' accuracy per round (bands: bootstrap intervals)")
    return _save(figure, Path(path))


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


def plot_topology(
    topology: Topology,
    roles: Mapping[str, str],
    path: str | Path,
    *,
    title: str | None = None,
    attacks: Sequence[str] = (),
) -> Path:
    """Draw the communication graph with nodes coloured by role (strong, weak, adversary).

    Nodes sit on a circle in label order (deterministic); a digraph's arcs point from the
    speaker to the listener (``u -> v``: v hears u). A node without an agent in ``roles`` is
    grey.

    Parameters
    ----------
    topology : Topology
        The run's communication graph.
    roles : mapping of str to str
        Node label as text -> role (:func:`agent_roles`).
    path : str or Path
        Where to write the PNG.
    title : str, optional
        Figure title; default: the graph's size.
    attacks : sequence of str
        The adversaries' attack names, shown in the legend.

    Returns
    -------
    Path
        ``path``.
    """
    import networkx as nx

    graph = topology.to_networkx()
    positions = nx.circular_layout(list(topology.labels))
    colors = [ROLE_COLORS.get(roles.get(str(label), ""), _UNASSIGNED) for label in topology.labels]
    side = min(10.0, 4.0 + 0.25 * topology.n)
    figure = Figure(figsize=(side, side + 0.4), layout="constrained")
    ax = figure.subplots()
    arrows = {"arrows": True, "arrowsize": 12, "node_size": 600} if topology.directed else {}
    nx.draw_networkx_edges(graph, positions, ax=ax, edge_color="#888888", width=1.0, **arrows)
    nx.draw_networkx_nodes(
        graph, positions, ax=ax, node_color=colors, node_size=600, edgecolors="black"
    )
    if topology.n <= 60:
        nx.draw_networkx_labels(graph, positions, ax=ax, font_size=9, font_color="white")
    counts = {role: sum(1 for r in roles.values() if r == role) for role in ROLE_COLORS}
    labels = {role: f"{role} ({counts[role]})" for role in ROLE_COLORS}
    if attacks:
        labels["adversary"] = f"adversary ({counts['adversary']}; {', '.join(attacks)})"
    handles = [
        Line2D(
            [],
            [],
            marker="o",
            linestyle="",
            markersize=10,
            markerfacecolor=color,
            markeredgecolor="black",
            label=labels[role],
        )
        for role, color in ROLE_COLORS.items()
    ]
    if any(str(label) not in roles for label in topology.labels):
        handles.append(
            Line2D(
                [],
                [],
                marker="o",
                linestyle="",
                markersize=10,
                markerfacecolor=_UNASSIGNED,
                markeredgecolor="black",
                label="no agent",
            )
        )
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small")
    ax.set_aspect("equal")
    ax.set_axis_off()
    kind = "digraph" if topology.directed else "graph"
    figure.suptitle(title or f"{kind}: n = {topology.n}, m = {topology.m}", fontsize="medium")
    return _save(figure, Path(path))


@dataclass(frozen=True)
class RunGraph:
    """The run's graph as found in its results directory, with its certificate (if any) and
    the certificate gate's verdict from ``config.json`` (if any)."""

    topology: Topology
    path: Path
    certificate: Certificate | None
    gate: Mapping[str, Any] | None = None

    def title(self) -> str:
        """The title: the graph's size, and the gate's verdict or the certificate's claims."""
        kind = "digraph" if self.topology.directed else "graph"
        lines = [f"{self.path.name}: {kind}, n = {self.topology.n}, m = {self.topology.m}"]
        if self.gate is not None:
            status = "certified" if self.gate.get("certified") else "NOT certified"
            lines.append(f"{status}: {self.gate.get('reason', '')}")
        elif self.certificate is not None:
            statements = [
                f"{record.claim.describe()} ({record.verdict})"
                for record in self.certificate.claims
                if record.claim.kind != "max"
            ]
            if statements:
                lines.append("certificate: " + "; ".join(statements))
        return "\n".join(lines)


def find_topology(
    results_dir: str | Path, config: Mapping[str, Any] | None = None
) -> tuple[RunGraph | None, str | None]:
    """The run's graph and certificate in ``results_dir``, or why no graph was found.

    The files are those ``config["files"]`` names (``topology`` and ``certificate``), by
    default ``topology.json`` and ``certificate.json`` as the runner writes them. The
    certificate is used only when it binds to the graph (same content hash).

    Returns
    -------
    (RunGraph or None, str or None)
        The graph, or None with a one-line note saying why (no graph file, or unreadable).
    """
    directory = Path(results_dir)
    files = (config or {}).get("files") or {}
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
    gate = (config or {}).get("gate")
    return RunGraph(
        topology, graph_path, certificate, gate if isinstance(gate, dict) else None
    ), None


@dataclass(frozen=True)
class PlotOutcome:
    """The PNG files written and notes on the plots that were skipped."""

    files: tuple[Path, ...]
    notes: tuple[str, ...]


def write_plots(
    results_dir: str | Path,
    protocols: Mapping[str, ProtocolMetrics],
    records: Sequence[QueryRecord],
    config: Mapping[str, Any] | None = None,
) -> PlotOutcome:
    """Write ``rounds.png`` and ``topology.png`` into ``results_dir`` where there is data.

    Parameters
    ----------
    results_dir : str or Path
        The run's results directory.
    protocols : mapping of str to ProtocolMetrics
        The run's metrics.
    records : sequence of QueryRecord
        The run's records (for the agents' roles and attacks).
    config : mapping, optional
        The run's ``config.json`` (file names, the certificate gate's verdict).

    Returns
    -------
    PlotOutcome
        Files written, and a note for each plot that was skipped (no protocol with rounds;
        no graph file).
    """
    directory = Path(results_dir)
    files, notes = [], []
    with_rounds = {name: m for name, m in protocols.items() if m.rounds["honest"]}
    if with_rounds:
        files.append(plot_rounds(with_rounds, directory / ROUNDS_PNG))
    else:
        notes.append("no protocol of this run has rounds; per-round plot skipped")
    graph, note = find_topology(directory, config)
    if graph is None:
        notes.append(note)
    else:
        files.append(
            plot_topology(
                graph.topology,
                agent_roles(records),
                directory / TOPOLOGY_PNG,
                title=graph.title(),
                attacks=attacks(records),
            )
        )
    return PlotOutcome(tuple(files), tuple(notes))
