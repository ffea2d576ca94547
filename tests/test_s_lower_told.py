"""Issue 40, round 9: the published (r, s) slice ends its search at a pair whose value meets the
proven lower bound on s*_r (``cpsat.run``'s ``stop_at``; ``search.published_s_slice``,
``first_proof.published_s_both``): at R = r*, where s*_R >= 1 is known from the r answer
(``solvers.after_r``), a pair of value 1 ends the solve instead of a proof of R-robustness. The
bound only stops the search, it is not a row of the model (told as a row, CP-SAT's search changed
and a scratch row of s* = 2 got 80x slower). The answers still agree with the definition's
(``naive_max_s``)."""

import pytest
from conftest import naive_max_s, topologies
from hypothesis import given, settings

from robustgraph.generators import erdos_renyi
from solvers import cpsat, exhaustive, first_proof, search
from solvers.milp_model import Model, Outcome
from solvers.types import Question, Request


def _progress(t, r: int, lower: int) -> search.Progress:
    p = search.Progress(Request(t, Question.max_s(r)), "portfolio", "strong", "test")
    p.prove_lower(lower)
    return p


def _s_rows(model) -> list[tuple[float, float]]:
    """The bounds of every constraint on ``s`` alone."""
    s = [v.name for v in model.vars].index("s")
    return [(c.lb, c.ub) for c in model.constraints if [v for v, _ in c.terms] == [s]]


@pytest.mark.parametrize("least", [False, True])
def test_the_model_gets_the_upper_bound_as_a_row_and_not_the_lower(least):
    t = erdos_renyi(10, 0.5, seed=7396, directed=True)
    p = _progress(t, 1, 1)
    p.upper = 3  # as a checked pair of value 3 would leave it
    ((lb, ub),) = _s_rows(search.published_s_model(p, least=least))
    assert ub == 3 and lb < 1


@pytest.mark.parametrize("lower", [0, 1, 2])
def test_the_slice_tells_the_solver_the_proven_lower_bound(lower):
    t = erdos_renyi(10, 0.5, seed=7398)
    p = _progress(t, 1, lower)
    seen = []

    def run(model, time_limit, threads, seed=0, **kw):
        seen.append(kw.get("stop_at"))
        return Outcome("unknown", None, None, 0.0, "UNKNOWN")

    search.published_s_slice(p, run, 1.0, least=True)
    assert seen == [lower] and p.lower == lower  # an unknown outcome proves nothing more


def test_both_configurations_are_told_it():
    t = erdos_renyi(10, 0.5, seed=7399, directed=True)
    p = _progress(t, 1, 1)
    seen = []

    def run(model, time_limit, threads, seed=0, *, stop, stop_at=None):
        seen.append(stop_at)
        return Outcome("unknown", None, None, 0.0, "UNKNOWN")

    first_proof.published_s_both(p, run, 1.0, 0.3)
    assert seen == [1, 1]


def _min_sum() -> Model:
    """min x + y over x, y in {0..5} with x + y >= 2: optimum 2, many solutions above it."""
    m = Model("toy")
    x, y = m.var("x", 0, 5), m.var("y", 0, 5)
    m.add([(x, 1), (y, 1)], lb=2)
    m.objective = ((x, 1), (y, 1))
    return m


@pytest.mark.skipif(not cpsat.available(), reason="needs OR-Tools")
def test_cpsat_reports_a_solution_that_meets_the_told_bound_as_optimal():
    out = cpsat.run(_min_sum(), None, 1, 0, stop_at=2)
    assert out.status == "optimal" and out.bound == 2.0
    assert out.values is not None and out.values[0] + out.values[1] == 2


@pytest.mark.skipif(not cpsat.available(), reason="needs OR-Tools")
def test_a_told_bound_below_the_optimum_changes_nothing():
    """A bound the model cannot meet never stops the search: the solver's own proof, as without."""
    told, plain = cpsat.run(_min_sum(), None, 1, 0, stop_at=1), cpsat.run(_min_sum(), None, 1, 0)
    assert told.status == plain.status == "optimal"
    assert told.native == plain.native != "STOP_AT" and told.bound == plain.bound == 2.0


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
