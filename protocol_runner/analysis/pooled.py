"""A sweep's cells pooled over seeds: per (other axes, protocol) one estimate, CIs over both.

A sweep whose grid varies ``seed`` has one cell per seed. For its table and figures the cells
that differ only in their seed are pooled (:func:`pool_cells`): each metric's value is the mean
over all their queries, and its confidence interval comes from a two-level bootstrap [1]_
(:func:`two_level_bootstrap`): resample the seeds with replacement, then the queries within
each resampled seed, so the interval reflects the variation between seeds as well as between
queries. A group of one cell keeps the cell's own estimates (those of its ``summary.json``).

Why our own code: the one-level resampling of
:func:`protocol_runner.analysis.metrics.bootstrap_means` treats a run's queries as the whole
sample; no library in the project's dependencies offers the nested (cluster) bootstrap on a
NaN-masked table.

References
----------
.. [1] A. C. Davison and D. V. Hinkley, "Bootstrap Methods and their Application", Cambridge
   University Press, 1997, Sec. 3.8 (multistage sampling: resample clusters, then units within).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from protocol_runner.analysis.metrics import query_values
from protocol_runner.analysis.report import load_results

__all__ = ["PooledRow", "pool_cells", "two_level_bootstrap"]


def two_level_bootstrap(
    tables: Sequence[np.ndarray],
    *,
    resamples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
) -> list[dict[str, float | int] | None]:
    """Column means over all rows of ``tables`` (one per seed) with two-level percentile CIs.

    Parameters
    ----------
    tables : sequence of ndarray of shape (q_s, m)
        Per seed, the per-query values; NaN where a metric is undefined for a query.
    resamples : int
        Bootstrap resamples B.
    confidence : float
        Interval level in (0, 1).
    seed : int
        Seed of the resampling generator.

    Returns
    -------
    list of dict or None
        Per column ``{"value", "low", "high", "n", "seeds"}`` (fractions; ``n`` the defined
        values), None for a column defined nowhere.

    Examples
    --------
    >>> a, b = np.array([[1.0], [1.0]]), np.array([[0.0], [0.0]])
    >>> est = two_level_bootstrap([a, b], resamples=400, seed=1)[0]
    >>> est["value"], est["seeds"], est["low"] == 0.0, est["high"] == 1.0
    (0.5, 2, True, True)

    Notes
    -----
    A seed drawn k times contributes the sum of k independent resamples of its queries, drawn
    at once as one multinomial of k q_s draws. O(B sum_s q_s m) time.
    """
    rng = np.random.default_rng(seed)
    n_seeds = len(tables)
    m = tables[0].shape[1]
    picks = rng.multinomial(n_seeds, np.full(n_seeds, 1.0 / n_seeds), size=resamples)
    numerator = np.zeros((resamples, m))
    denominator = np.zeros((resamples, m))
    for s, table in enumerate(tables):
        defined = ~np.isnan(table)
        q = table.shape[0]
        counts = rng.multinomial(picks[:, s] * q, np.full(q, 1.0 / q)).astype(float)
        numerator += counts @ np.where(defined, table, 0.0)
        denominator += counts @ defined.astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(denominator > 0, numerator / denominator, np.nan)
    stacked = np.vstack(tables)
    tail = (1.0 - confidence) / 2.0
    out: list[dict[str, float | int] | None] = []
    for column in range(m):
        values = stacked[:, column]
        defined = values[~np.isnan(values)]
        if defined.size == 0:
            out.append(None)
            continue
        low, high = np.nanquantile(means[:, column], [tail, 1.0 - tail])
        out.append({"value": round(float(defined.mean()), 6), "low": round(float(low), 6),
                    "high": round(float(high), 6), "n": int(defined.size), "seeds": n_seeds})
    return out


@dataclass(frozen=True)
class PooledRow:
    """One row of a sweep's table: the labels of the non-seed axes, a protocol, its metrics
    (``summary.json`` shape), and the seeds and queries they rest on."""

    labels: Mapping[str, str]
    protocol: str
    metrics: Mapping[str, Any]
    seeds: tuple[str, ...]
    queries: int


def pool_cells(
    summary: Mapping[str, Any],
    directory: str | Path,
    keys: Sequence[str],
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
        The sweep directory (the cells' ``results.jsonl`` are read for groups of several seeds).
    keys : sequence of str
        The metrics to pool (keys of :func:`protocol_runner.analysis.metrics.query_values`).
    resamples, confidence
        Bootstrap settings of the pooled intervals (seeded with 0).

    Returns
    -------
    list of PooledRow
        In grid order of each group's first cell; protocols in the cells' order.
    """
    axes = [a for a in summary["varying"] if a != "seed"]
    groups: dict[tuple[str, ...], list[Mapping[str, Any]]] = {}
    for cell in summary["cells"]:
        if cell["status"] == "done":
            groups.setdefault(tuple(cell["labels"][a] for a in axes), []).append(cell)
    rows = []
    for labels, cells in groups.items():
        named = dict(zip(axes, labels, strict=True))
        seeds = tuple(str(c["labels"]["seed"]) for c in cells)
        protocols = list(dict.fromkeys(p for c in cells for p in c["protocols"]))
        if len(cells) == 1:
            for name, data in cells[0]["protocols"].items():
                rows.append(PooledRow(named, name, data["metrics"], seeds, data["queries"]))
            continue
        records = [load_results(Path(directory) / c["directory"]).records for c in cells]
        for name in protocols:
            tables = [
                np.array([[np.nan if v.get(k) is None else v[k] for k in keys]
                          for v in (query_values(r) for r in recs if r.protocol == name)],
                         dtype=float).reshape(-1, len(keys))
                for recs in records
            ]
            tables = [t for t in tables if t.shape[0]]
            estimates = two_level_bootstrap(tables, resamples=resamples, confidence=confidence)
            metrics = dict(zip(keys, estimates, strict=True))
            rows.append(PooledRow(named, name, metrics, seeds, sum(t.shape[0] for t in tables)))
    return rows
