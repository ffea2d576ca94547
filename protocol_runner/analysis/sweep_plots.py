"""The table and figures of a sweep: Table 1, FAA/BFTI, rounds, commit gate; seeds pooled.

:func:`write_sweep_report` writes ``table1.{md,tex,csv}`` into the sweep directory
(:func:`protocol_runner.analysis.tables.sweep_table`) and the figures below into ``plots/``
(:func:`plot_sweep`), all over the sweep's cells pooled over seeds
(:mod:`protocol_runner.analysis.pooled`: two-level bootstrap intervals over seeds and queries
when several seeds were pooled). Seeds are never an axis.

- ``protocols.{png,pdf,svg}``: the comparison figure of
  :func:`protocol_runner.analysis.plots.plot_comparison`: a panel row per value of
  ``topology`` (when it varies; else of ``attack``), protocols on the categorical x axis, the
  other varying axes as dodged series, every point with its confidence interval;
- ``rounds.{png,pdf,svg}``: the per-round accuracy of weak and strong agents of
  :func:`protocol_runner.analysis.plots.plot_rounds`, every protocol on each panel, one row of
  panels per combination of the varying axes (:func:`protocol_rows`);
- ``commit_gate.{png,pdf,svg}`` (a sweep with ``options.commit_gate``): the commit,
  escalation, abort and false-commit rates of :func:`protocol_runner.analysis.plots.plot_commit`
  per protocol, one row of panels per combination of the varying axes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import protocol_runner.analysis.plots as plots
from protocol_runner.analysis.names import axis_value
from protocol_runner.analysis.pooled import PooledRow, pool_cells
from protocol_runner.analysis.provenance import Provenance
from protocol_runner.analysis.tables import sweep_table, write_tables

__all__ = [
    "PANEL_AXES",
    "PLOTS_DIR",
    "SWEEP_PLOT",
    "SWEEP_PLOTS",
    "panels",
    "plot_sweep",
    "protocol_rows",
    "write_sweep_report",
]

PLOTS_DIR = "plots"

SWEEP_PLOT = plots.COMPARISON_PLOT
SWEEP_PLOTS = (plots.COMPARISON_PLOT, plots.ROUNDS_PLOT, plots.COMMIT_PLOT)
"""The stems of the sweep's figures in ``plots/``."""
PANEL_AXES = ("topology", "attack")
"""Axes that get a panel row each, first varying one wins."""


def panels(rows: Sequence[PooledRow], varying: Sequence[str]) -> list[plots.Panel]:
    """The comparison panels of pooled rows: a panel row per topology (or attack), a series
    per combination of the other varying axes (seeds excluded: they are pooled).

    Examples
    --------
    >>> r = [PooledRow({"topology": "merg", "attack": a}, "sac", {"metrics": {}}, ("1",), 5)
    ...      for a in ("fixed", "collude")]
    >>> ps = panels(r, ["topology", "attack"])
    >>> [p.title for p in ps], list(ps[0].series)
    (['gamma-MERG'], ['attack: fixed', 'attack: collude'])
    """
    axes = [a for a in varying if a != "seed"]
    panel_axis = next((a for a in PANEL_AXES if a in axes), None)
    hue_axes = [a for a in axes if a != panel_axis]
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for row in rows:
        title = axis_value(panel_axis, row.labels[panel_axis]) if panel_axis else ""
        hue = ", ".join(axis_value(a, row.labels[a]) for a in hue_axes)
        out.setdefault(title, {}).setdefault(hue, {})[row.protocol] = row.metrics
    return [plots.Panel(t, s) for t, s in out.items()]


def protocol_rows(rows: Sequence[PooledRow], varying: Sequence[str]) -> list[plots.ProtocolRow]:
    """One row of panels per combination of the varying axes other than the seed, in grid
    order, each with its protocols' pooled documents.

    Examples
    --------
    >>> r = [PooledRow({"topology": t}, p, {"metrics": {}}, ("1", "2"), 6)
    ...      for t in ("merg", "complete") for p in ("sac", "majority")]
    >>> [(row.title, list(row.protocols)) for row in protocol_rows(r, ["topology", "seed"])]
    [('gamma-MERG', ['sac', 'majority']), ('complete', ['sac', 'majority'])]
    """
    axes = [a for a in varying if a != "seed"]
    out: dict[str, dict[str, Any]] = {}
    for row in rows:
        title = ", ".join(axis_value(a, row.labels[a]) for a in axes)
        out.setdefault(title, {})[row.protocol] = row.data
    return [plots.ProtocolRow(title, protocols) for title, protocols in out.items()]


def plot_sweep(
    rows: Sequence[PooledRow],
    summary: Mapping[str, Any],
    provenance: Provenance,
    directory: str | Path,
    *,
    confidence: float = 0.95,
) -> list[Path]:
    """Write the sweep's figures of pooled ``rows`` (at least one) into ``directory``.

    Returns
    -------
    list of Path
        ``protocols.{png,pdf,svg}``, then ``rounds.*`` when weak or strong agents answered
        round 0, then ``commit_gate.*`` when the cells ran the commit gate.
    """
    seeds = max(len(r.seeds) for r in rows)
    method = (
        "two-level percentile bootstrap over seeds, then queries" if seeds > 1
        else "percentile bootstrap over queries"
    )
    ci = f"{100 * confidence:g}% CI, {method}"
    files = plots.plot_comparison(panels(rows, summary["varying"]), provenance, directory,
                                  ci=ci, stem=SWEEP_PLOT)
    return files + plots.plot_rows(protocol_rows(rows, summary["varying"]), provenance,
                                   directory, ci=ci)


def _provenance(summary: Mapping[str, Any], directory: Path) -> Provenance:
    """The cells' provenance merged: from each finished cell's own ``summary.json``."""
    parts = []
    for cell in summary["cells"]:
        if cell["status"] != "done":
            continue
        path = directory / cell["directory"] / "summary.json"
        run = json.loads(path.read_text(encoding="utf-8"))["run"]
        parts.append(Provenance.of_run(run, [p["queries"] for p in cell["protocols"].values()]))
    return Provenance.merge(parts)


def write_sweep_report(
    summary: Mapping[str, Any],
    directory: str | Path,
    *,
    resamples: int = 2000,
    confidence: float = 0.95,
    plots: bool = True,
) -> list[Path]:
    """Write a sweep's Table 1 (``table1.*``) and, with ``plots``, its figures (``plots/``).

    Parameters
    ----------
    summary : mapping
        The sweep's ``summary.json`` document (:func:`protocol_runner.sweep.execute.merge`).
    directory : str or Path
        The sweep directory.
    resamples, confidence
        Bootstrap settings of the intervals pooled over seeds.
    plots : bool
        Also write the figures. Earlier figures in ``plots/`` (and the ``faa_by_*.png`` of
        older versions) are removed either way, so the folder matches the grid.

    Returns
    -------
    list of Path
        The files written (no table or figure without a finished cell).
    """
    out = Path(directory)
    figures = out / PLOTS_DIR
    figures.mkdir(parents=True, exist_ok=True)
    old = [*figures.glob("faa_by_*.png"), *(p for s in SWEEP_PLOTS for p in figures.glob(f"{s}.*"))]
    for path in old:
        path.unlink()
    rows = pool_cells(summary, out, resamples=resamples, confidence=confidence)
    if not rows:
        return []
    provenance = _provenance(summary, out)
    table = sweep_table(summary, rows, confidence=confidence, simulated=provenance.simulated,
                        uncertified=provenance.uncertified)
    rests_on = " · ".join(provenance.lines()[:2])  # backend, models, seeds, queries
    table = replace(table, caption=f"{rests_on}. {table.caption}")
    files = write_tables(table, out)
    if plots:
        files += plot_sweep(rows, summary, provenance, figures, confidence=confidence)
    return files
