"""Issue 40, round 5 (``portfolio.LEAST_FIRST_S_RULE``): the published (r, s) model with its
S1/S2 swap symmetry broken (``milp_model.least_first``) keeps s*_r on every small graph, and
the portfolio's (r, s) slice on CP-SAT gets it. Nothing here is timed."""

from __future__ import annotations

import pytest
from conftest import naive_max_s, topologies
from hypothesis import given
from hypothesis import strategies as st

from robustgraph.generators import erdos_renyi
from solvers import cpsat, portfolio, search
from solvers.milp_model import least_first, pair_from_values, published_s
from solvers.types import Question, Request

pytestmark = pytest.mark.skipif(not cpsat.available(), reason="needs OR-Tools")


@given(topologies(max_n=7), st.integers(1, 4))
def test_least_first_keeps_s_star_and_its_answer_is_least_first(t, r):
    if t.n < 2:
        return
    m = published_s(t.in_neighbors, r)
    least_first(m)
    out = cpsat.run(m, None, 1)
    expected = naive_max_s(t, r)
    if out.status == "infeasible":  # no pair breaks the first two conditions: s*_r = n
        assert expected == t.n
        return
    assert out.status == "optimal"
    assert min(t.n, round(out.bound)) == expected
    s1, s2 = pair_from_values(m, out.values)
    assert s1 and s2 and min(s1 | s2) in s1


def test_the_portfolios_rs_slice_breaks_the_swap_symmetry(monkeypatch):
    seen = []
    monkeypatch.setattr(
        search,
        "published_s_slice",
        lambda p, run, seconds, least=False, upper=None: seen.append(least),
    )
    g = erdos_renyi(30, 0.2, seed=7267)
    p = search.Progress(Request(g, Question.max_s(1), time_limit=20.0), "portfolio", "strong", "")
    portfolio._published_s_slice(p)
    assert seen == [True]
