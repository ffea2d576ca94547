"""Plots across a sweep's grid: FAA per protocol against each axis that varies.

One PNG per varying axis (``faa_by_<axis>.png``): the axis's values on x, in grid order; for
each protocol, the mean final answer accuracy (FAA, Lee et al. 2026) over the finished cells
that share the value, with a bar from the lowest to the highest of those cells when there are
several. Drawn on matplotlib's Agg canvas directly, as :mod:`protocol_runner.analysis.plots` does.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

__all__ = ["PLOT_PREFIX", "grid_series", "plot_grid"]

PLOT_PREFIX = "faa_by_"


def grid_series(
    summary: Mapping[str, Any], axis: str
) -> tuple[list[str], dict[str, list[list[float]]]]:
    """The axis's values (grid order) and, per protocol, the FAA of the done cells at each.

    Examples
    --------
    >>> def cell(n, faa):
    ...     m = {"FAA": {"value": faa}}
    ...     return {"status": "done", "labels": {"n": n}, "protocols": {"sac": {"metrics": m}}}
    >>> grid_series({"cells": [cell("7", 0.5), cell("9", 0.75), cell("7", 1.0)]}, "n")
    (['7', '9'], {'sac': [[0.5, 1.0], [0.75]]})
    """
    values: list[str] = []
    for row in summary["cells"]:
        if row["labels"][axis] not in values:
            values.append(row["labels"][axis])
    series: dict[str, list[list[float]]] = {}
    for row in summary["cells"]:
        if row["status"] != "done":
            continue
        x = values.index(row["labels"][axis])
        for protocol, data in row["protocols"].items():
            faa = data["metrics"]["FAA"]
            if faa is not None:
                series.setdefault(protocol, [[] for _ in values])[x].append(faa["value"])
    return values, series


def plot_grid(summary: Mapping[str, Any], directory: str | Path) -> list[Path]:
    """Write ``faa_by_<axis>.png`` for every varying axis of ``summary`` into ``directory``.

    Earlier ``faa_by_*.png`` files there are removed first, so the folder matches the grid.
    Returns the files written (none when no axis varies or no cell finished).
    """
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob(f"{PLOT_PREFIX}*.png"):
        old.unlink()
    written = []
    for axis in summary["varying"]:
        values, series = grid_series(summary, axis)
        if not series:
            continue
        figure = Figure(figsize=(max(4.5, 1.1 * len(values) + 2.5), 3.6))
        ax = figure.add_subplot()
        positions = range(len(values))
        for protocol, groups in series.items():
            xs = [x for x in positions if groups[x]]
            means = [100 * sum(groups[x]) / len(groups[x]) for x in xs]
            low = [m - 100 * min(groups[x]) for m, x in zip(means, xs, strict=True)]
            high = [100 * max(groups[x]) - m for m, x in zip(means, xs, strict=True)]
            ax.errorbar(xs, means, yerr=[low, high], marker="o", capsize=3, label=protocol)
        ax.set_xticks(list(positions), values, rotation=20 if len(values) > 4 else 0)
        ax.set_xlabel(axis)
        ax.set_ylabel("FAA (%)")
        ax.set_ylim(0, 102)
        ax.set_title(f"FAA by protocol vs {axis} (mean over cells; bars: min-max)", fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        figure.tight_layout()
        FigureCanvasAgg(figure)
        path = out / f"{PLOT_PREFIX}{axis}.png"
        figure.savefig(path, format="png", dpi=120)
        written.append(path)
    return written
