"""A sweep's cells pooled over seeds: per (other axes, protocol) one estimate, CIs over both.

A sweep whose grid varies ``seed`` has one cell per seed. For its table and figures the cells
that differ only in their seed are pooled (:func:`pool_cells`): their records are summarised
together by :func:`protocol_runner.analysis.metrics.compute_metrics`, as ``run --seeds`` and
``reproduce`` summarise theirs: each metric's value is the mean over seeds of each seed's mean,
and its confidence interval comes from the two-level bootstrap of
:func:`protocol_runner.analysis.metrics.bootstrap_means` [1]_ (resample the seeds with
replacement, then the queries within each resampled seed), so the interval reflects the
variation between seeds as well as between queries. That holds for every metric, the
per-round accuracies and the commit-gate rates alike. A group of one cell keeps the cell's own
estimates (those of its ``summary.json``).

References
----------
.. [1] A. C. Davison and D. V. Hinkley, "Bootstrap Methods and their Application", Cambridge
   University Press, 1997, Sec. 3.8 (multistage sampling: resample clusters, then units within).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from protocol_runner.analysis.metrics import compute_metrics
from protocol_runner.analysis.report import SUMMARY_JSON, load_results

__all__ = ["PooledRow", "pool_cells"]


@dataclass(frozen=True)
class PooledRow:
    """One row of a sweep's table: the labels of the non-seed axes, a protocol, its
    ``summary.json`` document (``metrics``, ``rounds``, ``commit_gate`` with a commit gate),
    and the seeds and queries it rests on.

    Examples
    --------
    >>> faa = {"value": 0.8, "low": 0.7, "high": 0.9, "n": 6}
    >>> row = PooledRow({"topology": "merg"}, "sac", {"metrics": {"FAA": faa}}, ("1", "2"), 6)
    >>> row.metrics["FAA"]["value"], len(row.seeds)
    (0.8, 2)
    """

    labels: Mapping[str, str]
    protocol: str
    data: Mapping[str, Any]
    seeds: tuple[str, ...]
    queries: int

    @property
    def metrics(self) -> Mapping[str, Any]:
        """Every metric with its interval (``data["metrics"]``)."""
        return self.data["metrics"]


def _cell_protocols(directory: Path, cell: Mapping[str, Any]) -> Mapping[str, Any]:
    """The cell's per-protocol documents: from its ``summary.json``, else (a cell directory
    without one) the sweep summary's copy, which has the metrics only."""
    path = directory / cell["directory"] / SUMMARY_JSON
    try:
        return json.loads(path.read_text(encoding="utf-8"))["protocols"]
    except (OSError, ValueError, KeyError):
        return cell["protocols"]


def pool_cells(
    summary: Mapping[str, Any],
    directory: str | Path,
    *,
    resamples: int = 2000,
    confidence: float = 0.95,
) -> list[PooledRow]:
    """Pool the finished cells of a sweep that differ only in ``seed``.

    Parameters
    ----------
    summary : mapping
        The sweep's ``summary.json``.
    directory : str or Path
        The sweep directory (each cell's ``summary.json``, and ``results.jsonl`` for groups of
        several seeds, are read).
    resamples, confidence
        Bootstrap settings of the pooled intervals (seeded with 0).

    Returns
    -------
    list of PooledRow
        In grid order of each group's first cell; protocols in the cells' order.
    """
    root = Path(directory)
    axes = [a for a in summary["varying"] if a != "seed"]
    groups: dict[tuple[str, ...], list[Mapping[str, Any]]] = {}
    for cell in summary["cells"]:
        if cell["status"] == "done":
            groups.setdefault(tuple(cell["labels"][a] for a in axes), []).append(cell)
    rows = []
    for labels, cells in groups.items():
        named = dict(zip(axes, labels, strict=True))
        seeds = tuple(str(c["labels"]["seed"]) for c in cells)
        if len(cells) == 1:
            for name, data in _cell_protocols(root, cells[0]).items():
                rows.append(PooledRow(named, name, data, seeds, data["queries"]))
            continue
        order = list(dict.fromkeys(p for c in cells for p in c["protocols"]))
        records = [r for c in cells for r in load_results(root / c["directory"]).records]
        pooled = compute_metrics(records, resamples=resamples, confidence=confidence, seed=0,
                                 order=order)
        for name, metrics in pooled.items():
            rows.append(PooledRow(named, name, metrics.to_json(), seeds, metrics.queries))
    return rows
