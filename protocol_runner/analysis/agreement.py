"""How far a reproduced table is from the paper's: statistics that do not reward wide intervals.

"The paper's value lies inside our 95% interval in N of M cells" counts non-rejections: the
fewer the questions and seeds, the wider the intervals and the larger N (issue 42). So beside
that count, :func:`agreement` gives, over the same cells (all values in percentage points):

- **count**: cells whose published value lies inside our 95% bootstrap interval, no slack;
  reported as agreement only when our intervals are narrow enough to reject a real
  difference: their median half-width at most :data:`MEANINGFUL_HALF_WIDTH` points. Otherwise
  the count is printed as not meaningful.
- **MAE**: the mean of ``|ours - paper|``; wide intervals do not shrink it.
- **standardised distance** ``z = |ours - paper| / sqrt(se_ours^2 + sigma^2)`` with
  ``se_ours`` our interval's half-width over 1.96 (the bootstrap's standard error) and
  ``sigma`` the paper's own run-to-run noise (:func:`paper_noise`); the share of cells with
  ``z <= 2`` (about 95% if ours and the paper's differ only by noise).
- **a naive predictor** on the same cells, by the same statistics: each cell predicted by the
  mean of the paper's other published cells of the same metric in the same column (no
  simulation at all: :func:`leave_one_out`). A simulator that does not beat it explains
  nothing beyond each column's average.

References
----------
Lee et al., "Robust Multi-Agent LLMs under Byzantine Faults", arXiv:2605.09076, 2026: Tables 1,
5, 6 and 9 (the repeated IAA columns :func:`paper_noise` reads).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from protocol_runner.analysis.paper_values import paper_tables

__all__ = [
    "LEGEND",
    "MEANINGFUL_HALF_WIDTH",
    "NOISE_TABLES",
    "Agreement",
    "CellComparison",
    "agreement",
    "leave_one_out",
    "paper_noise",
]

Z95 = 1.959963984540054
"""The standard normal's 97.5% quantile: a 95% interval's half-width in standard errors."""

MEANINGFUL_HALF_WIDTH = 5.0
"""The widest median half-width (points) of our 95% intervals at which the inside-the-interval
count is read as agreement: at wider intervals a 5-point miss is not rejected. Our choice."""

WITHIN = 2.0
"""The standardised distance counted as agreement (about a 95% two-sided band)."""

NOISE_TABLES = ("table1", "table5", "table6", "table9")
"""The paper's measured (not averaged) metric tables; Table 3 is Table 9's mean."""

_REPEATED = ("IAA", "W_IAA", "S_IAA")
"""Columns the rows of one column re-measure: initial answers do not depend on the method
or the topology, so their spread over a column's rows is the paper's run-to-run noise."""


@cache
def paper_noise() -> tuple[float, int]:
    """The paper's run-to-run standard deviation of one published value, in points, and its
    degrees of freedom.

    The pooled within-column standard deviation of :data:`_REPEATED` over the rows of each
    column (benchmark and composition) of :data:`NOISE_TABLES`: every row of a column
    re-measures the same agents' initial answers on the same questions.

    >>> sigma, dof = paper_noise()
    >>> round(sigma, 2), dof
    (1.02, 127)
    """
    squares, dof = 0.0, 0
    for name in NOISE_TABLES:
        for metric in _REPEATED:
            groups: dict[tuple[Any, ...], list[float]] = {}
            for row in paper_tables()[name].rows:
                if row.get(metric) is not None:
                    key = (row["benchmark"], row.get("composition"))
                    groups.setdefault(key, []).append(float(row[metric]))
            for values in groups.values():
                mean = sum(values) / len(values)
                squares += sum((v - mean) ** 2 for v in values)
                dof += len(values) - 1
    return math.sqrt(squares / dof), dof


@dataclass(frozen=True)
class CellComparison:
    """One published cell and ours, in points: our mean and 95% interval, the paper's value,
    the naive prediction (None: no other cell to average) and whether the cell is in-sample
    for the simulator's fit (None: unknown)."""

    ours: float
    low: float
    high: float
    paper: float
    naive: float | None = None
    fitted: bool | None = None

    @property
    def inside(self) -> bool:
        """The count's rule: the paper's value inside our 95% interval, no slack."""
        return self.low <= self.paper <= self.high

    def z(self, sigma: float, value: float | None = None) -> float:
        """``|value - paper| / sqrt(se_ours^2 + sigma^2)`` (``value``: ours by default).

        >>> round(CellComparison(50.0, 46.08, 53.92, 53.0).z(1.0), 3)  # se 2, sigma 1
        1.342
        """
        se = (self.high - self.low) / (2 * Z95)
        scale = math.hypot(se, sigma)
        diff = abs((self.ours if value is None else value) - self.paper)
        return math.inf if scale == 0 and diff else (diff / scale if scale else 0.0)


@dataclass(frozen=True)
class Agreement:
    """The statistics of :func:`agreement` over one set of cells (module docstring)."""

    cells: int
    inside: int
    median_half_width: float
    mae: float
    within: float
    naive_cells: int
    naive_mae: float | None
    naive_within: float | None
    sigma: float

    @property
    def meaningful(self) -> bool:
        """Whether the count can be read as agreement (:data:`MEANINGFUL_HALF_WIDTH`)."""
        return self.median_half_width <= MEANINGFUL_HALF_WIDTH

    def to_json(self) -> dict[str, Any]:
        return {
            "cells": self.cells,
            "count": {"inside": self.inside, "rule": "paper inside our 95% interval, no slack",
                      "median_half_width": round(self.median_half_width, 3),
                      "meaningful": self.meaningful,
                      "meaningful_if_half_width_at_most": MEANINGFUL_HALF_WIDTH},
            "mae": round(self.mae, 3),
            "standardised": {"share_within": round(self.within, 4), "within": WITHIN,
                             "paper_sigma": round(self.sigma, 3)},
            "naive": {"cells": self.naive_cells,
                      "mae": None if self.naive_mae is None else round(self.naive_mae, 3),
                      "share_within": None if self.naive_within is None
                      else round(self.naive_within, 4),
                      "rule": "mean of the paper's other cells of the same metric and column"},
        }

    def line(self, what: str) -> str:
        """The statistics in one sentence (a reader wraps it), ``what`` naming the cells; the
        definitions are :data:`LEGEND`'s."""
        naive = ("no naive prediction" if self.naive_mae is None else
                 f"naive MAE {self.naive_mae:.1f}, z <= {WITHIN:g} in "
                 f"{100 * self.naive_within:.0f}%")
        count = f"inside our 95% interval (no slack): {self.inside} of {self.cells}"
        if not self.meaningful:
            count += (f"; this count and the z share mean nothing here: our intervals' median "
                      f"half-width is {self.median_half_width:.1f} > {MEANINGFUL_HALF_WIDTH:g} "
                      "points (more questions and seeds narrow it)")
        return (f"{what}: MAE {self.mae:.1f}, z <= {WITHIN:g} in {100 * self.within:.0f}%; "
                f"{naive}; {count}")


LEGEND = ("How far ours are from the paper's, in points (z = |ours - paper| / the SE combining "
          "ours and the paper's run-to-run SD, {sigma:.1f} point; naive: each cell predicted by "
          "the mean of the paper's other cells of its metric and column):")
"""The heading of :meth:`Agreement.line`'s sentences (``sigma``: :func:`paper_noise`)."""


def agreement(cells: Sequence[CellComparison], sigma: float | None = None) -> Agreement | None:
    """The statistics of the module docstring over ``cells``; None for no cell.

    ``sigma`` (points) defaults to :func:`paper_noise`.

    >>> cells = [CellComparison(50.0, 46.08, 53.92, 53.0, 51.0),
    ...          CellComparison(40.0, 30.0, 50.0, 41.0, 45.0)]
    >>> a = agreement(cells, sigma=1.0)
    >>> a.inside, a.mae, a.within, a.naive_mae, round(a.median_half_width, 2)
    (2, 2.0, 1.0, 3.0, 6.96)
    """
    if not cells:
        return None
    sigma = paper_noise()[0] if sigma is None else sigma
    naive = [c for c in cells if c.naive is not None]
    return Agreement(
        cells=len(cells),
        inside=sum(c.inside for c in cells),
        median_half_width=statistics.median((c.high - c.low) / 2 for c in cells),
        mae=statistics.fmean(abs(c.ours - c.paper) for c in cells),
        within=statistics.fmean(c.z(sigma) <= WITHIN for c in cells),
        naive_cells=len(naive),
        naive_mae=statistics.fmean(abs(c.naive - c.paper) for c in naive) if naive else None,
        naive_within=(statistics.fmean(c.z(sigma, c.naive) <= WITHIN for c in naive)
                      if naive else None),
        sigma=sigma,
    )


def leave_one_out(values: Mapping[Hashable, tuple[Hashable, float]]) -> dict[Hashable, float]:
    """The naive prediction of each cell: the mean of the other cells of its group.

    ``values`` maps a cell to ``(group, published value)``; a cell alone in its group gets no
    prediction.

    >>> leave_one_out({"a": ("IAA", 50.0), "b": ("IAA", 52.0), "c": ("IAA", 54.0),
    ...                "d": ("RA", 70.0)})
    {'a': 53.0, 'b': 52.0, 'c': 51.0}
    """
    sums: dict[Hashable, list[float]] = {}
    for group, value in values.values():
        entry = sums.setdefault(group, [0.0, 0])
        entry[0] += value
        entry[1] += 1
    return {cell: (sums[group][0] - value) / (sums[group][1] - 1)
            for cell, (group, value) in values.items() if sums[group][1] > 1}
