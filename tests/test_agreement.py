"""Agreement statistics that do not reward wide intervals (issue 42, item 2), and every cell
marked fitted or predicted (item 3)."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from protocol_runner.analysis.agreement import (
    MEANINGFUL_HALF_WIDTH,
    CellComparison,
    agreement,
    leave_one_out,
    paper_noise,
)
from protocol_runner.analysis.metrics import Estimate
from protocol_runner.analysis.reproduce_view import Pair

# four cells by hand (points): ours, 95% interval, paper, naive
FIXTURE = [
    CellComparison(50.0, 48.04, 51.96, 51.0, 55.0),   # se 1: z = 1/sqrt(2) = 0.71; inside
    CellComparison(60.0, 58.04, 61.96, 64.0, 62.0),   # se 1: z = 4/sqrt(2) = 2.83; outside
    CellComparison(30.0, 26.08, 33.92, 33.0, 40.0),   # se 2: z = 3/sqrt(5) = 1.34; inside
    CellComparison(70.0, 60.0, 80.0, 90.0, None),     # se 5.10: z = 20/5.2 = 3.85; outside
]


def test_each_statistic_on_a_fixture():
    found = agreement(FIXTURE, sigma=1.0)
    assert found.cells == 4 and found.inside == 2
    assert found.mae == pytest.approx((1 + 4 + 3 + 20) / 4)
    assert found.within == pytest.approx(2 / 4)  # z <= 2: the first and the third
    assert [round(c.z(1.0), 2) for c in FIXTURE] == [0.71, 2.83, 1.34, 3.85]
    assert found.naive_cells == 3
    assert found.naive_mae == pytest.approx((4 + 2 + 7) / 3)
    naive_z = [abs(c.naive - c.paper) / math.hypot((c.high - c.low) / 2 / 1.959963984540054, 1)
               for c in FIXTURE[:3]]
    assert found.naive_within == pytest.approx(sum(z <= 2 for z in naive_z) / 3)
    assert found.median_half_width == pytest.approx((1.96 + 3.92) / 2)
    assert found.meaningful
    data = found.to_json()
    assert data["count"]["inside"] == 2 and data["count"]["rule"].endswith("no slack")
    assert data["mae"] == 7.0 and data["standardised"]["share_within"] == 0.5


def test_wide_intervals_make_the_count_meaningless_not_agreement():
    wide = [replace(c, low=c.ours - 30, high=c.ours + 30) for c in FIXTURE]
    found = agreement(wide, sigma=1.0)
    assert found.inside == 4 and not found.meaningful  # every cell "agrees"...
    assert found.mae == agreement(FIXTURE, sigma=1.0).mae  # ...the MAE does not move
    line = found.line("all")
    assert "mean nothing here" in line and f"> {MEANINGFUL_HALF_WIDTH:g} points" in line
    assert "4 of 4" in line


def test_the_papers_noise_from_its_repeated_initial_columns():
    sigma, dof = paper_noise()
    assert 0.5 < sigma < 2.0 and dof > 100  # the pooled SD of IAA, W IAA, S IAA per column
    assert agreement([], sigma=1.0) is None


def test_naive_is_the_mean_of_the_other_cells_of_the_group():
    found = leave_one_out({1: ("a", 10.0), 2: ("a", 20.0), 3: ("a", 60.0), 4: ("b", 5.0)})
    assert found == {1: 40.0, 2: 35.0, 3: 15.0}


def test_the_count_has_no_slack():
    at = Estimate(0.5, 0.48, 0.52, 10)
    assert Pair("IAA", at, 52.0).inside and not Pair("IAA", at, 52.04).inside
    assert not Pair("W_IAA", at, 52.4, digits=0).inside  # no half-unit rounding slack either
