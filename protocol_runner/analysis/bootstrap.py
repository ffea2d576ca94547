"""Percentile bootstrap intervals of column means, over seeds and then queries within a seed.

The metrics (:mod:`protocol_runner.analysis.metrics`) are means of per-query values; their
intervals come from :func:`bootstrap_means`, which resamples the seeds of a run and then the
queries of each drawn seed (a two-level, clustered bootstrap), the same resamples for every
column so that intervals of paired differences (BFTI) are paired. Own code rather than
``scipy.stats.bootstrap``: that resamples one level of independent observations and has no
notion of clusters, NaN-aware columns or shared resamples across columns.

References
----------
.. [1] B. Efron and R. J. Tibshirani, "An Introduction to the Bootstrap", Chapman & Hall, 1993,
   ch. 13 (the percentile interval).
.. [2] A. C. Davison and D. V. Hinkley, "Bootstrap Methods and their Application", Cambridge
   University Press, 1997, sec. 3.8 (resampling hierarchical data: clusters, then units
   within a cluster).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from robustgraph.errors import ParameterError

__all__ = ["Estimate", "bootstrap_means"]

_BLOCK = 256  # bootstrap resamples drawn per block (bounds memory at 256 x queries counts)


@dataclass(frozen=True)
class Estimate:
    """A metric's point estimate with its bootstrap confidence interval.

    ``value`` is the mean over seeds of the per-seed means over the queries where the metric is
    defined; ``n`` counts those queries (all seeds together); ``low`` and ``high`` bound the
    percentile bootstrap interval at the summary's confidence level.
    """

    value: float
    low: float
    high: float
    n: int

    def to_json(self) -> dict[str, float | int]:
        return {
            "value": round(self.value, 6),
            "low": round(self.low, 6),
            "high": round(self.high, 6),
            "n": self.n,
        }


def _resampled_means(
    table: np.ndarray, draws: int, rng: np.random.Generator
) -> np.ndarray:
    """Column means of ``draws`` query resamples of one seed's table, NaN-aware: (draws, m)."""
    q, m = table.shape
    defined = ~np.isnan(table)
    filled = np.where(defined, table, 0.0)
    weights = defined.astype(float)
    out = np.empty((draws, m))
    probabilities = np.full(q, 1.0 / q)
    for start in range(0, draws, _BLOCK):
        size = min(_BLOCK, draws - start)
        counts = rng.multinomial(q, probabilities, size=size).astype(float)
        numerator, denominator = counts @ filled, counts @ weights
        with np.errstate(invalid="ignore", divide="ignore"):
            out[start : start + size] = np.where(denominator > 0, numerator / denominator, np.nan)
    return out


def _nanmean(values: np.ndarray, axis: int) -> np.ndarray:
    defined = ~np.isnan(values)
    total = np.where(defined, values, 0.0).sum(axis=axis)
    count = defined.sum(axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def bootstrap_means(
    values: np.ndarray | Sequence[np.ndarray],
    *,
    resamples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
) -> list[Estimate | None]:
    """Column means of per-seed (queries x metrics) tables with two-level bootstrap intervals.

    The point estimate of a column is the mean over seeds of each seed's mean (a seed where the
    column is undefined everywhere is left out). Each bootstrap resample draws as many seeds as
    there are, with replacement, then for each drawn seed its queries with replacement (the
    same query resample for every column, so intervals of differences such as BFTI are
    paired), and takes the same mean of means. With one seed this is the ordinary bootstrap
    over queries. A NaN cell is a metric undefined for that query: means skip it.

    Parameters
    ----------
    values : ndarray of shape (q, m), or a sequence of them (one per seed, same m)
        Per-query values, NaN where undefined.
    resamples : int
        Number of bootstrap resamples (B); at least 1.
    confidence : float
        Interval level in (0, 1); the interval is the ``(1 - confidence) / 2`` and
        ``(1 + confidence) / 2`` quantiles of the resampled statistics.
    seed : int
        Seed of the resampling generator: the same seed and tables give the same intervals.

    Returns
    -------
    list of Estimate or None
        One per column; None for a column with no defined value.

    Raises
    ------
    ParameterError
        For ``resamples < 1``, a confidence outside (0, 1), a table that is not 2-D, or tables
        with different numbers of columns.

    Examples
    --------
    >>> est = bootstrap_means(np.array([[1.0], [0.0], [1.0], [1.0]]), resamples=500, seed=3)[0]
    >>> est.value, est.n, est.low <= est.value <= est.high
    (0.75, 4, True)
    >>> two = bootstrap_means([np.array([[1.0], [1.0]]), np.array([[0.0], [1.0], [0.0]])])[0]
    >>> round(two.value, 4), two.n  # (1 + 1/3) / 2: each seed weighs the same
    (0.6667, 5)

    Notes
    -----
    O(B k q m) time for k seeds of q queries: each seed's table is resampled B k times
    (multinomial rows in blocks of 256), memory O(B k m).

    References
    ----------
    Efron and Tibshirani (1993), ch. 13 (the percentile interval); Davison and Hinkley (1997),
    sec. 3.8 (two-stage resampling of clustered data).
    """
    if resamples < 1:
        raise ParameterError(f"bootstrap resamples must be >= 1, got {resamples}")
    if not 0 < confidence < 1:
        raise ParameterError(f"confidence must be in (0, 1), got {confidence}")
    tables = [np.asarray(values, dtype=float)] if isinstance(values, np.ndarray) else [
        np.asarray(t, dtype=float) for t in values
    ]
    if any(t.ndim != 2 for t in tables):
        raise ParameterError("bootstrap needs (queries x metrics) tables, one per seed")
    widths = {t.shape[1] for t in tables}
    if len(widths) > 1:
        raise ParameterError(f"per-seed tables have different numbers of columns: {widths}")
    tables = [t for t in tables if t.shape[0]]
    if not tables:
        return [None] * (widths.pop() if widths else 0)
    k, m = len(tables), tables[0].shape[1]
    rng = np.random.default_rng(seed)
    point = _nanmean(np.stack([_nanmean(t, 0) for t in tables]), 0)
    # slot j of resample b holds seed picks[b, j], its queries resampled independently.
    picks = rng.integers(0, k, size=(resamples, k)) if k > 1 else np.zeros((resamples, 1), int)
    slots = np.full((resamples, k, m), np.nan)
    for s, table in enumerate(tables):
        where = np.nonzero(picks == s)
        if where[0].size:
            slots[where] = _resampled_means(table, where[0].size, rng)
    statistic = _nanmean(slots, 1)
    tail = (1.0 - confidence) / 2.0
    out: list[Estimate | None] = []
    for column in range(m):
        n = int(sum((~np.isnan(t[:, column])).sum() for t in tables))
        if n == 0:
            out.append(None)
            continue
        low, high = np.nanquantile(statistic[:, column], [tail, 1.0 - tail])
        out.append(Estimate(float(point[column]), float(low), float(high), n))
    return out
