"""Issue 40, round 4: the published model with its S1/S2 swap symmetry broken
(``milp_model.least_first``) and the rule that gives it to graphs whose in-degrees all equal
(``portfolio.LEAST_FIRST_RULE``): the CP-SAT slice and the lane, never HiGHS, never another graph.

Nothing here is timed: the rule's tests record the calls instead of solving."""

from __future__ import annotations

import networkx as nx
import pytest
from conftest import naive_max_r, topologies
from hypothesis import given

from robustgraph.generators import erdos_renyi, random_k_in
from robustgraph.topology import Topology
from solvers import bounds, cpsat, lane, portfolio, search
from solvers.milp_model import least_first, pair_from_values, published_r, published_r_below
from solvers.types import Question, Request, Witness


def _holds(m, values) -> bool:
    """Every row of ``m`` (none is enforced in the published model) holds at ``values``."""
    for c in m.constraints:
        total = sum(coef * values[v] for v, coef in c.terms)
        if not c.lb - 1e-9 <= total <= c.ub + 1e-9:
            return False
    return all(v.lb <= values[k] <= v.ub for k, v in enumerate(m.vars))


@pytest.mark.skipif(not cpsat.available(), reason="needs OR-Tools")
@given(topologies(max_n=7))
def test_least_first_keeps_the_optimum_and_its_answer_is_least_first(t):
    if t.n < 2:
        return
    m = published_r(t.in_neighbors)
    least_first(m)
    out = cpsat.run(m, None, 1)
    assert out.status == "optimal"
    assert round(out.bound) == naive_max_r(t)
    s1, s2 = pair_from_values(m, out.values)
    assert s1 and s2 and min(s1 | s2) in s1
    assert bounds.pair_value_r(t.in_neighbors, Witness(s1, s2)) == naive_max_r(t)


@given(topologies(max_n=8))
def test_a_hinted_pair_is_swapped_so_that_the_hint_is_a_solution(t):
    if t.n < 2:
        return
    upper, pair = bounds.halves_pair(t.in_neighbors)
    hint = (pair.s1, pair.s2)
    for swap in (False, True):
        m = published_r_below(t.in_neighbors, upper, hint[::-1] if swap else hint, least=True)
        values = [m.hint.get(k, 0) for k in range(len(m.vars))]
        assert _holds(m, values)  # the whole hint satisfies every row, the new ones too
        assert set(pair_from_values(m, values)) == set(hint)


def _slice_calls(monkeypatch, topology: Topology) -> list[tuple[str, bool]]:
    """The (engine module, least) of each published slice with one thread, but the printed
    window of ``portfolio.SWITCH_RULE``."""
    seen: list[tuple[str, bool]] = []

    def record(p, run, seconds, *, least=False, as_printed=False, told=None):
        if not as_printed:  # SWITCH_RULE's printed window (tests/test_beside_lane.py)
            seen.append((run.__module__, least))

    monkeypatch.setattr(search, "published_slice", record)
    p = search.Progress(
        Request(topology, Question.max_r(), time_limit=100.0, threads=1), "portfolio", "strong", ""
    )
    p.offer(bounds.degree_pair(topology.in_neighbors)[1])
    portfolio._published_slices(p)
    return seen


@pytest.mark.skipif(not cpsat.available(), reason="needs OR-Tools")
@pytest.mark.parametrize(
    "topology",
    [random_k_in(60, 10, seed=7241), Topology.from_networkx(nx.random_regular_graph(6, 80, 7241))],
    ids=["k-in-10", "6-regular"],
)
def test_a_graph_whose_in_degrees_all_equal_gets_least_first_in_its_cpsat_slice(
    monkeypatch, topology
):
    assert _slice_calls(monkeypatch, topology) == [("solvers.cpsat", True)]


@pytest.mark.skipif(not cpsat.available(), reason="needs OR-Tools")
def test_any_other_graph_keeps_the_published_model_on_both_engines(monkeypatch):
    calls = _slice_calls(monkeypatch, erdos_renyi(40, 0.3, seed=7242))
    assert calls and all(least is False for _, least in calls)


class _Recorder:
    """Stands in for ``lane.PublishedLane``: keeps what it was told, starts nothing."""

    made: list[bool] = []

    def __init__(self, request, signal, upper=None, hint=None, least=False, child=None):
        _Recorder.made.append(least)

    def start(self) -> None:
        return None


@pytest.mark.parametrize(
    ("topology", "least"),
    [
        (Topology.from_networkx(nx.random_regular_graph(6, 80, 7243)), True),
        (erdos_renyi(40, 0.3, seed=7243), False),
    ],
    ids=["6-regular", "er"],
)
def test_the_lane_is_told_least_first_only_when_the_in_degrees_all_equal(
    monkeypatch, topology, least
):
    _Recorder.made = []
    monkeypatch.setattr(lane, "PublishedLane", _Recorder)
    portfolio._start_lane(Request(topology, Question.max_r(), time_limit=10.0))
    assert _Recorder.made == [least]


@pytest.mark.skipif(not cpsat.available(), reason="needs OR-Tools")
def test_the_lane_child_solves_the_least_first_model():
    t = Topology.from_networkx(nx.random_regular_graph(4, 12, seed=7244))
    nb = [sorted(s) for s in t.in_neighbors]
    upper, pair = bounds.halves_pair(t.in_neighbors)
    for extra in ({}, {"upper": upper, "hint": [sorted(pair.s1), sorted(pair.s2)]}):
        out = lane.solve_payload(
            {"in_neighbors": nb, "time_limit": None, "seed": 0, "least": True, **extra}
        )
        assert out["status"] == "optimal" and round(out["bound"]) == naive_max_r(t)
        s1, s2 = pair_from_values(published_r(t.in_neighbors), out["values"])
        assert min(s1 | s2) in s1  # the swap symmetry was broken in the child
