"""The figures of a run: accuracy per round, protocol comparison, commit gate (and the graph).

Each figure is written as PNG (300 dpi), PDF and SVG (:func:`protocol_runner.analysis.figures.save`)
from the JSON of the run's ``summary.json`` (:func:`write_plots`). The per-round and commit-gate
figures take rows of panels (:class:`ProtocolRow`, :func:`plot_rows`): a run has one row, a
directory of runs one per run and a sweep one per combination of its varying axes, all
protocols on every panel:

- ``rounds`` (:func:`plot_rounds`): the SAC paper's per-round weak (W) and strong (S) accuracy
  (its Tables 2 and 4 as curves [1]_): one panel per agent group, every protocol on it, the
  confidence interval as a band, and the final answers (the FAA of the group) marked at
  "final", which for the one-shot protocols (majority vote, CrS) is their only value after
  round 0;
- ``protocols`` (:func:`plot_comparison`): FAA and BFTI per protocol with their confidence
  intervals as error bars, protocols on a categorical axis;
- ``commit_gate`` (:func:`plot_commit`): for a ``--commit-gate`` run, the commit, escalation,
  abort and false-commit rates per protocol, for the gate and for a plain 2f+1 quorum;
- ``topology`` (:func:`protocol_runner.analysis.topology_plot.plot_topology`).

:func:`write_plots` writes every figure the run has data for and says why it skipped the others.

One module: the three figures share their row and panel types, the interval helpers and the
paper-style tick and legend handling, and :func:`write_plots` draws all of them; the graph,
which shares none of that, is :mod:`protocol_runner.analysis.topology_plot`.

References
----------
.. [1] H. Lee, V.-D. Yun, H. Oh, D. Panagou and S. P. Karimireddy, "Robust Multi-Agent LLMs
   under Byzantine Faults", arXiv:2605.09076, 2026.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

import protocol_runner.analysis.figures as fig
from protocol_runner.analysis.metrics import COMMIT_METRICS, COMMIT_RULES
from protocol_runner.analysis.names import protocol_name, topology_name
from protocol_runner.analysis.provenance import Provenance
from protocol_runner.analysis.tables import BFTI, FAA, STRONG, WEAK
from protocol_runner.analysis.topology_plot import (
    attacks,
    find_topologies,
    plot_topology,
    topology_panels,
)
from protocol_runner.run.records import QueryRecord

__all__ = [
    "COMMIT_PLOT",
    "COMPARED",
    "COMPARISON_PLOT",
    "GROUPS",
    "ROUNDS_PLOT",
    "Panel",
    "PlotOutcome",
    "ProtocolRow",
    "has_rounds",
    "plot_commit",
    "plot_comparison",
    "plot_rounds",
    "plot_rows",
    "write_plots",
]

ROUNDS_PLOT = "rounds"
COMPARISON_PLOT = "protocols"
COMMIT_PLOT = "commit_gate"

GROUPS = (("weak", "Weak agents (W)", WEAK[1]), ("strong", "Strong agents (S)", STRONG[1]))
"""Per-round agent groups: key in ``rounds``, panel title, and the metric of their final answers."""

COMPARED = (
    (FAA, "FAA (% of agents correct)", "FAA (%)"),
    (BFTI, "BFTI = FAA − IAA (percentage points)", "BFTI (pp)"),
)
"""The metrics of the protocol comparison, with their axis labels (screen, paper)."""

_COMMIT_LABELS = {
    "commit": "Commits (% of queries)",
    "escalation": "Escalations (% of queries)",
    "abort": "Aborts (% of queries)",
    "false_commit": "False commits (% of commits)",
}
_RULE_LABELS = {"gate": "evidence-diversity gate", "plain": "plain 2f+1 quorum"}


def _triple(estimate: Mapping[str, float] | None) -> tuple[float, float, float] | None:
    if not estimate:
        return None
    return 100 * estimate["value"], 100 * estimate["low"], 100 * estimate["high"]


def _error_bar_handle(color: str, label: str) -> Any:
    """A legend entry drawn as an error bar (a point with whiskers and caps), for the note on
    what the bars are: a lone ``|`` marker read as a stray tick (issue 44)."""
    scratch = Figure().subplots()
    return scratch.errorbar([0], [0], yerr=[1], color=color, marker="o", markersize=3,
                            linestyle="none", label=label)


def _panel_title(row: str, metric: str, col: int) -> str:
    """A comparison panel's title: its metric, the row's graph before it in the first column
    only (both panels of a row once bore the graph's name and nothing else; issue 44)."""
    if row and col == 0:
        return f"{topology_name(row)}: {metric}"
    return metric


def _yerr(value: float, low: float, high: float) -> list[list[float]]:
    """Error-bar lengths below and above ``value`` for the interval [low, high], drawn to
    reach the estimate where the interval misses it: with a handful of bootstrap resamples
    (``report --resamples 1``) a percentile interval need not hold its estimate, which
    matplotlib refused as negative lengths (issue 44).

    Examples
    --------
    >>> _yerr(50.0, 40.0, 70.0), _yerr(50.0, 55.0, 60.0)
    ([[10.0], [20.0]], [[0.0], [10.0]])
    """
    return [[max(value - low, 0.0)], [max(high - value, 0.0)]]


@dataclass(frozen=True)
class ProtocolRow:
    """One row of panels: its title (``""`` for none) and, per protocol, its ``summary.json``
    document (``metrics``, ``rounds``, ``commit_gate`` with a commit gate).

    A run's figure has one row; a directory of runs one per run (topology); a sweep one per
    combination of its varying axes other than the seed.
    """

    title: str
    protocols: Mapping[str, Mapping[str, Any]]


def _rounds(data: Mapping[str, Any], group: str) -> Sequence[Any]:
    return (data.get("rounds") or {}).get(group) or ()


def _row_title(row: ProtocolRow, title: str) -> str:
    """A panel's title on screen: the row's name for readers (:func:`topology_name`) over
    ``title``."""
    return f"{topology_name(row.title)}\n{title}" if row.title else title


def plot_rounds(
    rows: Sequence[ProtocolRow],
    provenance: Provenance,
    directory: str | Path,
    *,
    ci: str,
    stem: str = ROUNDS_PLOT,
) -> list[Path]:
    """Draw the per-round accuracy of weak and strong agents, all protocols on each panel.

    One row of panels per ``rows`` entry, one column per agent group that has answers; every
    panel shares the axes, so protocols and rows compare at a glance.

    Parameters
    ----------
    rows : sequence of ProtocolRow
        Each protocol's ``rounds`` (per group, one estimate per round ``0..T``) and
        ``metrics`` (the group's FAA, drawn at "final").
    provenance : Provenance
        For the title block.
    directory : str or Path
        Where ``stem.{png,pdf,svg}`` go.
    ci : str
        The interval's level and method, stated in the figure.
    stem : str
        The files' name.

    Returns
    -------
    list of Path
        The three files (and the caption file on paper: :func:`.figures.finish`).
    """
    docs = [p for row in rows for p in row.protocols.values()]
    groups = [g for g in GROUPS if any(_has(_rounds(p, g[0])) for p in docs)]
    last = max([0] + [len(_rounds(p, g)) - 1 for p in docs for g, _, _ in groups])
    final_x = last + 1.2
    names = list(dict.fromkeys(n for row in rows for n in row.protocols))
    columns = max(1, len(groups))
    paper = fig.current().paper
    with fig.style():
        size = fig.size((3.4 * columns + 0.4, 2.6 * len(rows) + 1.0), len(rows), (1.35, 1.7))
        figure = Figure(figsize=size, layout="constrained")
        grid = figure.subplots(len(rows), columns, squeeze=False, sharey=True, sharex=True)
        for line, (axes, row) in enumerate(zip(grid, rows, strict=True)):
            for ax, (group, title, final_key) in zip(axes, groups, strict=False):
                for index, name in enumerate(names):
                    if name in row.protocols:
                        _round_curve(ax, row.protocols[name], group, final_key,
                                     fig.protocol_style(name, index),
                                     final_x + 0.16 * (index - (len(names) - 1) / 2))
                ax.axvline(last + 0.6, color="0.5", linewidth=0.8, linestyle=":")
                if not paper:
                    ax.set_title(_row_title(row, title))
                elif line == 0:  # on paper: the groups over the columns, rows by name
                    ax.set_title(title)
            if paper:
                axes[0].set_ylabel(topology_name(row.title) if row.title else "accuracy (%)")
            else:
                axes[0].set_ylabel("accuracy (% of agents correct)")
        if paper and any(row.title for row in rows):
            figure.supylabel("accuracy (% of agents correct)", fontsize=7)
        for ax in grid[-1]:
            ax.set_xticks([*range(last + 1), final_x], [*map(str, range(last + 1)), "final"])
            ax.set_xlim(-0.4, final_x + 0.6)
            ax.set_ylim(-3, 103)
            ax.set_xlabel("round t (0: initial; final: FAA)" if paper
                          else "round t (0: initial answers; final: FAA)")
        handles = [Line2D([], [], label=protocol_name(name), **fig.protocol_style(name, i))
                   for i, name in enumerate(names)]
        handles.append(_band_handle(names, _ci_label(ci)))
        figure.legend(handles=handles, loc="outside lower center",
                      ncols=min(2 if paper and len(names) > 2 else 4, len(handles)),
                      frameon=False)
        return fig.finish(figure, directory, stem, "Accuracy per round, weak and strong agents",
                          provenance, notes=_ci_notes(ci))


def _ci_label(ci: str) -> str:
    """The intervals' legend text: in full on screen; on paper the level only (``95% CI``),
    the method going to the caption (:func:`_ci_notes`)."""
    return ci.split(",")[0] if fig.current().paper else ci


def _ci_notes(ci: str) -> list[str]:
    """The caption's line on the intervals, on paper (on screen the legend says it)."""
    return [f"Intervals: {ci}."] if fig.current().paper else []


def _band_handle(names: Sequence[str], ci: str) -> Patch:
    """The legend's entry for the bands: outlined in a protocol's colour as the bands are, so
    it is not mistaken for where two bands overlap."""
    colour = fig.protocol_style(names[0], 0)["color"] if names else "0.4"
    return Patch(facecolor=colour, alpha=0.15, edgecolor=colour, linewidth=0.6,
                 label=f"band and bars: {ci}")


def _round_curve(ax: Any, data: Mapping[str, Any], group: str, final_key: str,
                 look: Mapping[str, str], final_x: float) -> None:
    """One protocol on one panel: its rounds as a curve and band (a point with an error bar
    when it has round 0 only), its final answers as a marked point at ``final_x``."""
    points = [(r, _triple(e)) for r, e in enumerate(_rounds(data, group))]
    points = [(r, t) for r, t in points if t is not None]
    xs = [r for r, _ in points]
    if len(xs) > 1:
        ax.plot(xs, [t[0] for _, t in points], color=look["color"],
                linestyle=look["linestyle"], marker=look["marker"], markersize=3.5)
        ax.fill_between(xs, [t[1] for _, t in points], [t[2] for _, t in points],
                        facecolor=look["color"], alpha=0.13, linewidth=0)
        for bound in (1, 2):  # the band's edges in its colour: overlaps stay readable
            ax.plot(xs, [t[bound] for _, t in points], color=look["color"], linewidth=0.5,
                    linestyle=look["linestyle"], alpha=0.6)
    elif xs:
        value, low, high = points[0][1]
        ax.errorbar(xs, [value], yerr=_yerr(value, low, high), color=look["color"],
                    marker=look["marker"], linestyle="none")
    final = _triple(data["metrics"].get(final_key))
    if final is not None:
        value, low, high = final
        ax.errorbar([final_x], [value], yerr=_yerr(value, low, high),
                    color=look["color"], marker=look["marker"],
                    markersize=4.5 if fig.current().paper else 6,
                    markeredgecolor="black", markeredgewidth=0.6, linestyle="none")


def _has(estimates: Sequence[Any]) -> bool:
    return any(e is not None for e in estimates)


def has_rounds(docs: Iterable[Mapping[str, Any]]) -> bool:
    """Whether any of the protocols' ``summary.json`` documents has a weak or strong agent's
    accuracy in some round (what :func:`plot_rounds` draws)."""
    return any(_has(_rounds(p, g)) for p in docs for g, _, _ in GROUPS)


@dataclass(frozen=True)
class Panel:
    """One panel row of the comparison: its title and, per series (a hue; ``""`` for one),
    per protocol, the ``summary.json`` metrics (``{"FAA": {...}, "BFTI": {...}}``).

    Examples
    --------
    >>> faa = {"value": 0.8, "low": 0.7, "high": 0.9, "n": 100}
    >>> panel = Panel("merg7.json", {"": {"sac": {"FAA": faa, "BFTI": None}}})
    >>> [_triple(m["FAA"]) for m in panel.series[""].values()]
    [(80.0, 70.0, 90.0)]
    """

    title: str
    series: Mapping[str, Mapping[str, Mapping[str, Any]]]


def plot_comparison(
    panels: Sequence[Panel],
    provenance: Provenance,
    directory: str | Path,
    *,
    ci: str,
    stem: str = COMPARISON_PLOT,
) -> list[Path]:
    """FAA and BFTI per protocol with CI error bars: one row of panels per ``panels`` entry.

    Protocols sit on a categorical x axis (no line joins them), each metric's axis listing the
    protocols that have it (the judge-only control has no BFTI: no empty slot); several series
    in a panel are dodged side by side and told apart by their marker fill and the legend.
    Each metric's y axis is shared by all rows, so rows compare at a glance.

    Returns
    -------
    list of Path
        ``stem.{png,pdf,svg}`` in ``directory`` (and the caption file on paper).
    """
    protocols = list(dict.fromkeys(
        p for panel in panels for series in panel.series.values() for p in series
    ))
    shown = {
        metric: [name for name in protocols if any(
            _triple((series.get(name) or {}).get(metric))
            for panel in panels for series in panel.series.values()
        )] or protocols
        for metric, _, _ in COMPARED
    }
    hues = list(dict.fromkeys(h for panel in panels for h in panel.series))
    fills = ["full", "none", "left", "bottom", "right", "top"]
    width = 0.7
    paper = fig.current().paper
    with fig.style():
        size = fig.size((2.9 * len(COMPARED) + 0.6, 2.5 * len(panels) + 1.3), len(panels),
                        (1.3, 1.7))
        figure = Figure(figsize=size, layout="constrained")
        axes = figure.subplots(len(panels), len(COMPARED), squeeze=False, sharex="col",
                               sharey="col")
        for row, panel in enumerate(panels):
            for col, (metric, label, short) in enumerate(COMPARED):
                ax = axes[row][col]
                names = shown[metric]
                for h, hue in enumerate(hues):
                    series = panel.series.get(hue, {})
                    offset = width * ((h + 0.5) / len(hues) - 0.5) if len(hues) > 1 else 0.0
                    for x, name in enumerate(names):
                        point = _triple((series.get(name) or {}).get(metric))
                        if point is None:
                            continue
                        look = fig.protocol_style(name, protocols.index(name))
                        value, low, high = point
                        ax.errorbar([x + offset], [value], yerr=_yerr(value, low, high),
                                    color=look["color"], marker=look["marker"],
                                    markersize=4 if paper else 5,
                                    fillstyle=fills[h % len(fills)], linestyle="none")
                if metric == BFTI:
                    ax.axhline(0, color="0.3", linewidth=0.8)
                else:
                    ax.set_ylim(-3, 103)
                _protocol_ticks(ax, names)
                ax.set_xlim(-0.6, len(names) - 0.4)
                ax.set_ylabel(short if paper else label)
                ax.grid(axis="x", visible=False)
                ax.set_title(_panel_title(panel.title, metric, col))
        for ax in axes[-1]:
            ax.set_xlabel("protocol")
        handles = [_error_bar_handle("0.2", f"error bars: {_ci_label(ci)}")]
        if len(hues) > 1:
            handles = [
                Line2D([], [], color="0.2", marker="o", linestyle="none",
                       fillstyle=fills[h % len(fills)], label=hue)
                for h, hue in enumerate(hues)
            ] + handles
        figure.legend(handles=handles, loc="outside lower center",
                      ncols=min(2 if paper else 4, len(handles)), frameon=False)
        return fig.finish(figure, directory, stem, "Final answer accuracy and BFTI per protocol",
                          provenance, notes=_ci_notes(ci))


def _protocol_ticks(ax: Any, names: Sequence[str]) -> None:
    """Protocols on a categorical x axis by their display names, slanted where three or more
    would collide (one column of a paper)."""
    ax.set_xticks(range(len(names)), [protocol_name(n) for n in names])
    chosen = fig.current()
    if chosen.paper and chosen.columns == 1 and len(names) > 2:
        ax.tick_params(axis="x", labelrotation=30)
        for tick in ax.get_xticklabels():
            tick.set_horizontalalignment("right")


def plot_commit(
    rows: Sequence[ProtocolRow],
    provenance: Provenance,
    directory: str | Path,
    *,
    ci: str,
    stem: str = COMMIT_PLOT,
) -> list[Path]:
    """Commit, escalation, abort and false-commit rates per protocol, gate vs plain quorum.

    The protocols of ``rows`` with a ``commit_gate`` section (a run with ``--commit-gate``)
    are drawn: for one row a 2 x 2 grid of the four outcomes, for several one row of four
    panels per row. Bars are the rates, error bars their confidence intervals; the label
    ``k/n`` over a bar counts the queries with that outcome of the ``n`` it rests on (for false
    commits: the false commits of the ``n`` commits). The gate's f (the Byzantine voters it
    tolerates, not SAC's F) is in the summary's commit-gate table.
    """
    names = list(dict.fromkeys(
        n for row in rows for n, p in row.protocols.items() if p.get("commit_gate")
    ))
    outcomes = [m for m in ("commit", "escalation", "abort", "false_commit")
                if m in COMMIT_METRICS]
    shades = {"gate": fig.OKABE_ITO["blue"], "plain": fig.OKABE_ITO["orange"]}
    hatches = {"gate": "", "plain": "//"}
    width = 0.38
    panel = max(1.85, 0.6 * len(names) + 0.7)
    with fig.style():
        if len(rows) == 1:
            size = fig.size((max(7.4, 2 * panel + 0.4), 5.0), 2, (1.5, 2.0))
            figure = Figure(figsize=size, layout="constrained")
            grid = figure.subplots(2, 2, sharex=True)
            cells = [(ax, rows[0], o) for ax, o in zip(grid.ravel(), outcomes, strict=False)]
            bottom = list(grid[-1])
        else:
            size = fig.size((panel * len(outcomes) + 0.4, 2.4 * len(rows) + 1.3), len(rows),
                            (1.3, 1.6))
            figure = Figure(figsize=size, layout="constrained")
            grid = figure.subplots(len(rows), len(outcomes), squeeze=False, sharex=True)
            cells = [(grid[i][j], row, o) for i, row in enumerate(rows)
                     for j, o in enumerate(outcomes)]
            bottom = list(grid[-1])
        for ax, row, outcome in cells:
            for r, rule in enumerate(COMMIT_RULES):
                for x, name in enumerate(names):
                    gate = (row.protocols.get(name) or {}).get("commit_gate") or {}
                    estimate = (gate.get(rule) or {}).get(outcome)
                    point = _triple(estimate)
                    if point is None:
                        continue
                    value, low, high = point
                    x_bar = x + (r - 0.5) * width
                    ax.bar([x_bar], [value], width=width, color=shades[rule],
                           hatch=hatches[rule], edgecolor="black", linewidth=0.5,
                           yerr=_yerr(value, low, high), ecolor="black", capsize=2)
                    n = estimate["n"]
                    ax.text(x_bar, high + 1.5, f"{round(value * n / 100)}/{n}", ha="center",
                            va="bottom", fontsize=5)
            ax.set_ylim(0, 112)
            what, unit = _COMMIT_LABELS[outcome].rstrip(")").split(" (")
            if fig.current().paper:  # print size: the outcome as the title, its unit on the axis
                ax.set_ylabel(unit)
                ax.set_title(f"{topology_name(row.title)}: {what}" if row.title else what)
            else:
                ax.set_ylabel(_COMMIT_LABELS[outcome])
            _protocol_ticks(ax, names)
            ax.grid(axis="x", visible=False)
            if row.title and not fig.current().paper:
                ax.set_title(topology_name(row.title), fontsize=8)
        for ax in bottom:
            ax.set_xlabel("protocol")
        handles = [
            Patch(facecolor=shades[rule], hatch=hatches[rule], edgecolor="black", label=text)
            for rule, text in _RULE_LABELS.items()
        ]
        handles.append(_error_bar_handle("black", f"error bars: {_ci_label(ci)}"))
        one_column = fig.current().paper and fig.current().columns == 1
        figure.legend(handles=handles, loc="outside lower center", ncols=1 if one_column else 3,
                      frameon=False)
        return fig.finish(figure, directory, stem,
                          "Commit gate decisions per protocol (quorum 2f+1)", provenance,
                          notes=_ci_notes(ci))


def plot_rows(
    rows: Sequence[ProtocolRow], provenance: Provenance, directory: str | Path, *, ci: str
) -> list[Path]:
    """The figures drawn row by row that ``rows`` have data for: ``rounds`` (when a weak or
    strong agent answered) and ``commit_gate`` (when a protocol ran the commit gate)."""
    docs = [p for row in rows for p in row.protocols.values()]
    files = plot_rounds(rows, provenance, directory, ci=ci) if has_rounds(docs) else []
    if any(p.get("commit_gate") for p in docs):
        files += plot_commit(rows, provenance, directory, ci=ci)
    return files


@dataclass(frozen=True)
class PlotOutcome:
    """The figure files written and a note for each figure that was skipped."""

    files: tuple[Path, ...]
    notes: tuple[str, ...]


def write_plots(
    results_dir: str | Path,
    summary: Mapping[str, Any],
    records: Sequence[QueryRecord],
    config: Mapping[str, Any] | None = None,
    seed_dirs: Sequence[Path] = (),
) -> PlotOutcome:
    """Write every figure of the run into ``results_dir`` that it has data for.

    Parameters
    ----------
    results_dir : str or Path
        The run's results directory.
    summary : mapping
        The run's ``summary.json`` document (:meth:`Summary.to_json
        <protocol_runner.analysis.report.Summary.to_json>`).
    records : sequence of QueryRecord
        The run's records (for the agents' roles and attacks).
    config : mapping, optional
        The run's ``config.json`` (graph name and files, the certificate gate's verdict).
    seed_dirs : sequence of Path
        A several-seed run's per-seed directories (each seed's graph, certificate and config).

    Returns
    -------
    PlotOutcome
        The files written (three per figure, and its caption file on paper), and a note for
        each figure skipped: no weak or strong agents for ``rounds``, no graph file for
        ``topology``; ``commit_gate`` only for a ``--commit-gate`` run.
    """
    directory = Path(results_dir)
    protocols = summary["protocols"]
    run = summary["run"]
    provenance = Provenance.of_run(run, [p["queries"] for p in protocols.values()])
    bootstrap = summary["bootstrap"]
    ci = f"{100 * bootstrap['confidence']:g}% CI, {bootstrap['method']}"
    files: list[Path] = []
    notes: list[str] = []
    row = ProtocolRow("", protocols)
    if has_rounds(protocols.values()):
        files += plot_rounds([row], provenance, directory, ci=ci)
    else:
        notes.append("no weak or strong agent has a round-0 answer; per-round figure skipped")
    graph_name = run.get("graph_name") or ""
    panel = Panel(graph_name, {"": {name: p["metrics"] for name, p in protocols.items()}})
    files += plot_comparison([panel], provenance, directory, ci=ci)
    if any(p.get("commit_gate") for p in protocols.values()):
        files += plot_commit([row], provenance, directory, ci=ci)
    graphs, note = find_topologies(directory, config, seed_dirs)
    if not graphs:
        notes.append(note)
    else:
        files += plot_topology(topology_panels(graphs, records), directory,
                               attacks=attacks(records), provenance=provenance)
    return PlotOutcome(tuple(files), tuple(notes))
