"""The figures of one run: accuracy per round, protocol comparison, commit gate (and the graph).

Each figure is written as PNG (300 dpi), PDF and SVG (:func:`protocol_runner.analysis.figures.save`)
from the JSON of the run's ``summary.json`` (:func:`write_plots`):

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

References
----------
.. [1] H. Lee, V.-D. Yun, H. Oh, D. Panagou and S. P. Karimireddy, "Robust Multi-Agent LLMs
   under Byzantine Faults", arXiv:2605.09076, 2026.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

import protocol_runner.analysis.figures as fig
from protocol_runner.analysis.metrics import COMMIT_METRICS, COMMIT_RULES
from protocol_runner.analysis.provenance import Provenance
from protocol_runner.analysis.tables import BFTI, FAA, STRONG, WEAK
from protocol_runner.analysis.topology_plot import (
    agent_roles,
    attacks,
    find_topology,
    plot_topology,
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
    "plot_commit",
    "plot_comparison",
    "plot_rounds",
    "write_plots",
]

ROUNDS_PLOT = "rounds"
COMPARISON_PLOT = "protocols"
COMMIT_PLOT = "commit_gate"

GROUPS = (("weak", "Weak agents (W)", WEAK[1]), ("strong", "Strong agents (S)", STRONG[1]))
"""Per-round agent groups: key in ``rounds``, panel title, and the metric of their final answers."""

COMPARED = (
    (FAA, "FAA (% of agents correct)"),
    (BFTI, "BFTI = FAA − IAA (percentage points)"),
)
"""The metrics of the protocol comparison, with their axis labels."""

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


def plot_rounds(
    protocols: Mapping[str, Mapping[str, Any]],
    provenance: Provenance,
    directory: str | Path,
    *,
    ci: str,
) -> list[Path]:
    """Draw the per-round accuracy of weak and strong agents, all protocols on each panel.

    Parameters
    ----------
    protocols : mapping of str to dict
        ``summary.json``'s ``protocols``: each with ``rounds`` (per group, one estimate per
        round ``0..T``) and ``metrics``.
    provenance : Provenance
        For the title block.
    directory : str or Path
        Where ``rounds.{png,pdf,svg}`` go.
    ci : str
        The interval's level and method, stated in the figure.

    Returns
    -------
    list of Path
        The three files.
    """
    groups = [g for g in GROUPS if any(_has(p["rounds"][g[0]]) for p in protocols.values())]
    last = max([0] + [len(p["rounds"][g]) - 1 for p in protocols.values() for g, _, _ in groups])
    final_x = last + 1.2
    names = list(protocols)
    with fig.style():
        figure = Figure(figsize=(3.4 * max(1, len(groups)) + 0.4, 3.3), layout="constrained")
        axes = figure.subplots(1, max(1, len(groups)), squeeze=False, sharey=True)[0]
        for ax, (group, title, final_key) in zip(axes, groups, strict=False):
            for index, name in enumerate(names):
                data = protocols[name]
                look = fig.protocol_style(name, index)
                points = [(r, _triple(e)) for r, e in enumerate(data["rounds"][group])]
                points = [(r, t) for r, t in points if t is not None]
                xs = [r for r, _ in points]
                if len(xs) > 1:
                    ys = [t[0] for _, t in points]
                    ax.plot(xs, ys, color=look["color"], linestyle=look["linestyle"],
                            marker=look["marker"], markersize=3.5)
                    ax.fill_between(xs, [t[1] for _, t in points], [t[2] for _, t in points],
                                    color=look["color"], alpha=0.13, linewidth=0)
                elif xs:
                    value, low, high = points[0][1]
                    ax.errorbar(xs, [value], yerr=[[value - low], [high - value]],
                                color=look["color"], marker=look["marker"], linestyle="none")
                final = _triple(data["metrics"].get(final_key))
                if final is not None:
                    x = final_x + 0.16 * (index - (len(names) - 1) / 2)
                    value, low, high = final
                    ax.errorbar([x], [value], yerr=[[value - low], [high - value]],
                                color=look["color"], marker=look["marker"], markersize=6,
                                markeredgecolor="black", markeredgewidth=0.6,
                                linestyle="none")
            ax.axvline(last + 0.6, color="0.5", linewidth=0.8, linestyle=":")
            ax.set_xticks([*range(last + 1), final_x], [*map(str, range(last + 1)), "final"])
            ax.set_xlim(-0.4, final_x + 0.6)
            ax.set_ylim(-3, 103)
            ax.set_title(title)
            ax.set_xlabel("round t (0: initial answers; final: FAA)")
        axes[0].set_ylabel("accuracy (% of agents correct)")
        handles = [Line2D([], [], label=name, **fig.protocol_style(name, i))
                   for i, name in enumerate(names)]
        handles.append(Patch(facecolor="0.6", alpha=0.3, label=f"band / bar: {ci}"))
        figure.legend(handles=handles, loc="outside lower center", ncols=min(4, len(handles)),
                      frameon=False)
        fig.title_block(figure, "Accuracy per round, weak and strong agents", provenance)
        return fig.save(figure, directory, ROUNDS_PLOT)


def _has(estimates: Sequence[Any]) -> bool:
    return any(e is not None for e in estimates)


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

    Protocols sit on a categorical x axis (no line joins them); several series in a panel
    are dodged side by side and told apart by their marker fill and the legend.

    Returns
    -------
    list of Path
        ``stem.{png,pdf,svg}`` in ``directory``.
    """
    protocols = list(dict.fromkeys(
        p for panel in panels for series in panel.series.values() for p in series
    ))
    hues = list(dict.fromkeys(h for panel in panels for h in panel.series))
    fills = ["full", "none", "left", "bottom", "right", "top"]
    width = 0.7
    with fig.style():
        figure = Figure(
            figsize=(2.9 * len(COMPARED) + 0.6, 2.5 * len(panels) + 1.3), layout="constrained"
        )
        axes = figure.subplots(len(panels), len(COMPARED), squeeze=False, sharex=True)
        for row, panel in enumerate(panels):
            for col, (metric, label) in enumerate(COMPARED):
                ax = axes[row][col]
                for h, hue in enumerate(hues):
                    series = panel.series.get(hue, {})
                    offset = width * ((h + 0.5) / len(hues) - 0.5) if len(hues) > 1 else 0.0
                    for x, name in enumerate(protocols):
                        point = _triple((series.get(name) or {}).get(metric))
                        if point is None:
                            continue
                        look = fig.protocol_style(name, x)
                        value, low, high = point
                        ax.errorbar([x + offset], [value], yerr=[[value - low], [high - value]],
                                    color=look["color"], marker=look["marker"], markersize=5,
                                    fillstyle=fills[h % len(fills)], linestyle="none")
                if metric == BFTI:
                    ax.axhline(0, color="0.3", linewidth=0.8)
                else:
                    ax.set_ylim(-3, 103)
                ax.set_xticks(range(len(protocols)), protocols)
                ax.set_xlim(-0.6, len(protocols) - 0.4)
                ax.set_ylabel(label)
                ax.grid(axis="x", visible=False)
                if panel.title:
                    ax.set_title(panel.title)
        for ax in axes[-1]:
            ax.set_xlabel("protocol")
        handles = [Line2D([], [], color="0.2", marker="|", linestyle="none", markersize=10,
                          label=f"error bars: {ci}")]
        if len(hues) > 1:
            handles = [
                Line2D([], [], color="0.2", marker="o", linestyle="none",
                       fillstyle=fills[h % len(fills)], label=hue)
                for h, hue in enumerate(hues)
            ] + handles
        figure.legend(handles=handles, loc="outside lower center", ncols=min(4, len(handles)),
                      frameon=False)
        fig.title_block(figure, "Final answer accuracy and BFTI per protocol", provenance)
        return fig.save(figure, directory, stem)


def plot_commit(
    protocols: Mapping[str, Mapping[str, Any]],
    provenance: Provenance,
    directory: str | Path,
    *,
    ci: str,
    F: int,  # noqa: N803
) -> list[Path]:
    """Commit, escalation, abort and false-commit rates per protocol, gate vs plain quorum.

    ``protocols`` are those of ``summary.json`` with a ``commit_gate`` section (a run with
    ``--commit-gate``). Bars are the rates, error bars their confidence intervals; the label
    ``k/n`` over a bar counts the queries with that outcome of the ``n`` it rests on (for false
    commits: the false commits of the ``n`` commits).
    """
    names = [n for n, p in protocols.items() if p.get("commit_gate")]
    shades = {"gate": fig.OKABE_ITO["blue"], "plain": fig.OKABE_ITO["orange"]}
    hatches = {"gate": "", "plain": "//"}
    width = 0.38
    with fig.style():
        figure = Figure(figsize=(max(7.4, 1.7 * len(names) + 1.6), 5.0), layout="constrained")
        axes = figure.subplots(2, 2, sharex=True).ravel()
        outcomes = [m for m in ("commit", "escalation", "abort", "false_commit")
                    if m in COMMIT_METRICS]
        for ax, outcome in zip(axes, outcomes, strict=False):
            label = _COMMIT_LABELS[outcome]
            for r, rule in enumerate(COMMIT_RULES):
                xs = np.arange(len(names)) + (r - 0.5) * width
                for x, name in zip(xs, names, strict=True):
                    point = _triple(protocols[name]["commit_gate"][rule].get(outcome))
                    if point is None:
                        continue
                    value, low, high = point
                    ax.bar([x], [value], width=width, color=shades[rule], hatch=hatches[rule],
                           edgecolor="black", linewidth=0.5,
                           yerr=[[value - low], [high - value]], ecolor="black", capsize=2)
                    n = protocols[name]["commit_gate"][rule][outcome]["n"]
                    ax.text(x, high + 1.5, f"{round(value * n / 100)}/{n}", ha="center",
                            va="bottom", fontsize=5)
            ax.set_ylim(0, 112)
            ax.set_ylabel(label)
            ax.set_xticks(range(len(names)), names)
            ax.grid(axis="x", visible=False)
        for ax in axes[-2:]:
            ax.set_xlabel("protocol")
        handles = [
            Patch(facecolor=shades[rule], hatch=hatches[rule], edgecolor="black", label=text)
            for rule, text in _RULE_LABELS.items()
        ]
        handles.append(Line2D([], [], color="black", marker="|", linestyle="none",
                              markersize=10, label=f"error bars: {ci}"))
        figure.legend(handles=handles, loc="outside lower center", ncols=3, frameon=False)
        fig.title_block(
            figure, f"Commit gate decisions per protocol (f = F = {F}, quorum 2f+1 = {2 * F + 1})",
            provenance,
        )
        return fig.save(figure, directory, COMMIT_PLOT)


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

    Returns
    -------
    PlotOutcome
        The files written (three per figure), and a note for each figure skipped: no weak or
        strong agents for ``rounds``, no graph file for ``topology``; ``commit_gate`` only for
        a ``--commit-gate`` run.
    """
    directory = Path(results_dir)
    protocols = summary["protocols"]
    run = summary["run"]
    provenance = Provenance.of_run(run, [p["queries"] for p in protocols.values()])
    bootstrap = summary["bootstrap"]
    ci = f"{100 * bootstrap['confidence']:g}% CI, {bootstrap['method']}"
    files: list[Path] = []
    notes: list[str] = []
    if any(any(e is not None for e in p["rounds"][g]) for p in protocols.values()
           for g, _, _ in GROUPS):
        files += plot_rounds(protocols, provenance, directory, ci=ci)
    else:
        notes.append("no weak or strong agent has a round-0 answer; per-round figure skipped")
    graph_name = run.get("graph_name") or ""
    panel = Panel(graph_name, {"": {name: p["metrics"] for name, p in protocols.items()}})
    files += plot_comparison([panel], provenance, directory, ci=ci)
    if any(p.get("commit_gate") for p in protocols.values()):
        files += plot_commit(protocols, provenance, directory, ci=ci, F=run["F"])
    graph, note = find_topology(directory, config)
    if graph is None:
        notes.append(note)
    else:
        files += plot_topology(graph, agent_roles(records), directory, attacks=attacks(records),
                               banner=provenance.simulated)
    return PlotOutcome(tuple(files), tuple(notes))
