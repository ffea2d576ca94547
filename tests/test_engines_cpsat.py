"""The CP-SAT adapter writes, field for field, the model OR-Tools' ``cp_model`` writes, and its
answers agree with the exhaustive engine."""

import pytest
from conftest import topologies
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solvers import cpsat, exhaustive, registry
from solvers.errors import SolverUnavailable
from solvers.milp_model import Model, published_r, published_s, strong_r, strong_s
from solvers.types import Question, Request

pytestmark = pytest.mark.skipif(not cpsat.available(), reason="needs ortools")


def _by_cp_model(model: Model) -> str:
    """The model as ``cp_model`` writes it from the same variables, rows, literals and hint."""
    from ortools.sat.python import cp_model

    cp = cp_model.CpModel()
    xs = [cp.new_int_var(int(v.lb), int(v.ub), v.name) for v in model.vars]
    for c in model.constraints:
        expr = sum(coef * xs[v] for v, coef in c.terms)
        lb = int(c.lb) if c.lb != float("-inf") else cp_model.INT_MIN
        ub = int(c.ub) if c.ub != float("inf") else cp_model.INT_MAX
        row = cp.add_linear_constraint(expr, lb, ub)
        if c.enforce:
            row.only_enforce_if([xs[v] if value else ~xs[v] for v, value in c.enforce])
    if model.objective:
        cp.minimize(sum(coef * xs[v] for v, coef in model.objective))
    for v, value in model.hint.items():
        cp.add_hint(xs[v], value)
    return str(cp.proto)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(t=topologies(max_n=9), kind=st.sampled_from(["pr", "ps", "sr", "ss"]), p=st.integers(1, 4))
def test_the_written_model_is_cp_models(t, kind, p):
    if t.n < 2:
        return
    nb = t.in_neighbors
    half = frozenset(range(t.n // 2))
    build = {
        "pr": lambda: published_r(nb),
        "ps": lambda: published_s(nb, p),
        "sr": lambda: strong_r(nb, p, hint=(half, frozenset(range(t.n)) - half), maximal=True),
        "ss": lambda: strong_s(nb, 1, p, maximal=True),
    }[kind]
    model = build()
    assert str(cpsat.proto(model)) == _by_cp_model(model)


def test_merged_terms_follow_cp_model():
    """Repeated variables add up, zero coefficients go, variables come in index order."""
    m = Model("rows")
    x = [m.var(f"x{i}") for i in range(3)]
    m.add([(x[2], 3), (x[1], 0), (x[0], -1), (x[2], 2)], lb=0, ub=5)
    m.add([(x[1], 1), (x[1], -1)], lb=0, ub=1)
    assert str(cpsat.proto(m)) == _by_cp_model(m)
    assert "vars: 0\n    vars: 2\n    coeffs: -1\n    coeffs: 5\n" in str(cpsat.proto(m))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(t=topologies(max_n=8))
def test_cpsat_agrees_with_exhaustive(t):
    if t.n < 2:
        return
    want = exhaustive.solve(Request(t, Question.max_r()))
    got = registry.solve(Request(t, Question.max_r(), threads=1, formulation="published"), "cpsat")
    assert (got.lower, got.upper) == (want.lower, want.upper)


def test_an_old_ortools_is_named(monkeypatch):
    """OR-Tools without the model buffer in ``cp_model_helper`` (before 9.15): one clear error."""
    from ortools.sat.python import cp_model_helper

    monkeypatch.delattr(cp_model_helper, "CpModelProto")
    with pytest.raises(SolverUnavailable, match="ortools >= 9.15"):
        cpsat.load()
