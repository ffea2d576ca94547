"""Issue 40, round 9: the published (r, s) model is told the proven lower bound on s*_r as well as
the upper one (``search.published_s_model``: ``lower <= s <= upper``), so CP-SAT stops at the
first pair whose value meets it: at R = r*, where s*_R >= 1 is known from the r answer
(``solvers.after_r``), a pair of value 1 ends the solve. The bound is proven, so no optimum is
cut off; the answers still agree with the definition's (``naive_max_s``)."""

import pytest
from conftest import naive_max_s, topologies
from hypothesis import given, settings

from robustgraph.generators import erdos_renyi
from solvers import cpsat, exhaustive, search
from solvers.milp_model import Outcome
from solvers.types import Question, Request


def _progress(t, r: int, lower: int) -> search.Progress:
    p = search.Progress(Request(t, Question.max_s(r)), "portfolio", "strong", "test")
    p.prove_lower(lower)
    return p


def _s_bounds(model) -> tuple[float, float]:
    """The bounds of the one constraint on ``s`` alone."""
    s = [v.name for v in model.vars].index("s")
    (row,) = [c for c in model.constraints if [v for v, _ in c.terms] == [s]]
    return row.lb, row.ub


@pytest.mark.parametrize("least", [False, True])
def test_the_model_is_told_both_proven_bounds(least):
    t = erdos_renyi(10, 0.5, seed=7396, directed=True)
    p = _progress(t, 1, 1)
    p.upper = 3  # as a checked pair of value 3 would leave it
    assert _s_bounds(search.published_s_model(p, least=least)) == (1, 3)
    p.prove_lower(2)
    assert _s_bounds(search.published_s_model(p, least=least)) == (2, 3)


def test_a_slice_without_a_lower_bound_is_told_zero():
    t = erdos_renyi(10, 0.5, seed=7397, directed=True)
    p = _progress(t, 1, 0)
    assert _s_bounds(search.published_s_model(p))[0] == 0


def test_the_slice_passes_the_told_model_to_the_solver():
    t = erdos_renyi(10, 0.5, seed=7398)
    p = _progress(t, 1, 1)
    seen = []

    def run(model, time_limit, threads, seed=0, **kw):
        seen.append(_s_bounds(model))
        return Outcome("unknown", None, None, 0.0, "UNKNOWN")

    search.published_s_slice(p, run, 1.0, least=True)
    assert seen == [(1, p.upper)] and p.lower == 1  # an unknown outcome proves nothing more


@pytest.mark.skipif(not cpsat.available(), reason="needs OR-Tools")
@settings(max_examples=25, deadline=None)
@given(topologies(max_n=7).filter(lambda g: g.n >= 3))
def test_told_the_r_answers_bound_the_slice_is_exact_and_agrees(t):
    """At R = r* (s*_R >= 1 proven by the r answer), a real CP-SAT slice with no time limit
    settles s*_R, and its value is the definition's, for both configurations."""
    r = exhaustive.solve(Request(t, Question.max_r())).value
    if r < 1:
        return
    expected = naive_max_s(t, r)
    for least in (False, True):
        p = _progress(t, r, 1)
        search.published_s_slice(p, cpsat.run, None, least=least)
        assert p.settled() and p.lower == expected
