"""Issue 40, round 13 (i43a): the core search bisecting over k (``cores.search_r``'s ``bisect``)
and the portfolio's rule for it (``portfolio.CORES_BISECT_RULE``: r* questions above
``CORES_LONG_N`` nodes).

Nothing here is timed: the order of the searches over k is checked on a recording fake of
``cores.pair_within``, the rule's decision on a recording fake of ``cores.solve``, and the answers
of the bisecting search, alone and in the portfolio with the rule forced on every graph, against
the subset DP on random graphs and digraphs (hypothesis, the repo's profile)."""

from __future__ import annotations

import networkx as nx
import pytest
from conftest import topologies
from hypothesis import HealthCheck, given, settings

from robustgraph.topology import Topology
from solvers import cores, exhaustive, portfolio, registry
from solvers.types import Question, Request, Status
from solvers.witness import refutes_r


def _masks(t: Topology) -> list[int]:
    return [sum(1 << j for j in s) for s in t.in_neighbors]


def _truth(t: Topology) -> int:
    return exhaustive.solve(Request(t, Question.max_r())).value


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(t=topologies(max_n=11))
def test_bisecting_search_agrees_with_exhaustive(t):
    if t.n < 2:  # search_r needs two nodes (cores.solve answers one: r* = 0)
        assert cores.solve(Request(t, Question.max_r()), bisect=True).value == 0
        return
    lower, upper, witness = cores.search_r(_masks(t), bisect=True)
    assert lower == upper == _truth(t)
    assert refutes_r(t.in_neighbors, witness.s1, witness.s2, upper + 1)


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_bisecting_search_on_block_models(directed, seed):
    """Three blocks of 6, dense inside, sparse across: the shape the rule was measured on."""
    probs = [[0.8 if a == b else 0.1 for b in range(3)] for a in range(3)]
    g = nx.stochastic_block_model([6, 6, 6], probs, seed=seed, directed=directed)
    t = Topology.from_networkx(g)
    lower, upper, witness = cores.search_r(_masks(t), bisect=True)
    assert lower == upper == _truth(t)
    assert refutes_r(t.in_neighbors, witness.s1, witness.s2, upper + 1)


def _probes(monkeypatch, t: Topology, **kw) -> tuple[list[int], list[tuple[int, int]]]:
    """The k of each search ``cores.search_r`` makes on ``t``, and the bounds it told after
    each (``tell``); its answer checked against the subset DP."""
    probed: list[int] = []
    told: list[tuple[int, int]] = []
    real = cores.pair_within

    def recording(in_masks, k, stop=None):
        probed.append(k)
        return real(in_masks, k, stop=stop)

    monkeypatch.setattr(cores, "pair_within", recording)
    lower, upper, _ = cores.search_r(_masks(t), tell=lambda lo, up, w: told.append((lo, up)), **kw)
    assert lower == upper == _truth(t)
    return probed, told


def test_bisecting_probes_the_middle_of_the_bounds(monkeypatch):
    """A 3-block model of 20 nodes (r* = 2, start pair 5): descending, each search is at
    upper - 1 (k = 4, 3, 2, 1: a pair each time until none at 1); bisecting, at the middle of
    the bounds held (k = 2 of [0, 5]: a pair of value 2; k = 0 of [0, 2]: none; k = 1 of [1, 2]:
    none). A decision searches at r - 1 only, whatever the order."""
    probs = [[0.9 if a == b else 0.1 for b in range(3)] for a in range(3)]
    t = Topology.from_networkx(nx.stochastic_block_model([7, 7, 6], probs, seed=1))
    down, told = _probes(monkeypatch, t)
    assert down == [4, 3, 2, 1]
    assert all(k == up - 1 for k, (_lo, up) in zip(down[1:], told, strict=False))
    middle, told = _probes(monkeypatch, t, bisect=True)
    assert middle == [2, 0, 1]
    assert all(k == (lo + up - 1) // 2 for k, (lo, up) in zip(middle[1:], told, strict=False))
    probed = []
    monkeypatch.setattr(cores, "pair_within", lambda m, k, stop=None: probed.append(k))
    cores.search_r(_masks(t), target=2, bisect=True)
    assert probed == [1]


def test_a_stopped_bisecting_search_keeps_only_proven_bounds():
    t = Topology.from_networkx(nx.gnp_random_graph(18, 0.5, seed=3))
    truth = _truth(t)
    res = cores.solve(Request(t, Question.max_r()), cpu=0.0, bisect=True)
    assert res.params["bisect"] is True
    assert res.lower <= truth <= res.upper
    assert refutes_r(t.in_neighbors, res.witness.s1, res.witness.s2, res.upper + 1)


def _recorded(monkeypatch, n: int, question: Question) -> dict:
    """The keywords ``portfolio._cores`` passes to a recording fake of ``cores.solve`` for a
    path graph on ``n`` nodes (irregular, sparse: it gets a core budget at every n here)."""
    seen: dict = {}

    def fake(request, seconds=None, cpu=None, *, halt=None, bisect=False):
        seen["bisect"] = bisect
        return None

    monkeypatch.setattr(cores, "solve", fake)
    t = Topology.from_networkx(nx.path_graph(n))
    portfolio._cores(Request(t, question, time_limit=10))
    return seen


def test_the_rule_bisects_r_star_above_cores_long_n_only(monkeypatch):
    above = portfolio.CORES_LONG_N + 1
    assert _recorded(monkeypatch, above, Question.max_r()) == {"bisect": True}
    assert _recorded(monkeypatch, portfolio.CORES_LONG_N, Question.max_r()) == {"bisect": False}
    assert _recorded(monkeypatch, above, Question.is_r_robust(2)) == {"bisect": False}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(t=topologies(max_n=9))
def test_portfolio_with_the_rule_on_every_graph_agrees_with_exhaustive(t):
    """``CORES_LONG_N`` and ``EXHAUSTIVE_N`` at 1: every graph of two nodes or more that gets a
    core budget takes the bisecting core search (``CORES_BISECT_RULE``)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(portfolio, "CORES_LONG_N", 1)
        mp.setattr(portfolio, "EXHAUSTIVE_N", 1)
        request = Request(t, Question.max_r())
        res = registry.solve(request, "portfolio")
        budget = portfolio._cores_budget(request)
    assert res.status is Status.EXACT
    assert res.value == _truth(t)
    if t.n >= 2:
        assert refutes_r(t.in_neighbors, res.witness.s1, res.witness.s2, res.upper + 1)
    if t.n >= 2 and budget is not None:  # not a 4-regular graph (FOUR_REGULAR_RULE)
        first = res.params["steps"][0]
        assert first["step"] == "cores" and first.get("bisect") is True, first


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_portfolio_hands_a_stopped_bisecting_search_on(directed, seed, monkeypatch):
    """No CPU for the bisecting core search on 17 nodes (the rule forced: ``CORES_LONG_N`` and
    ``EXHAUSTIVE_N`` at 16; its stop looked at every search node): it stops with the bounds
    proven before its first branch, which go on to the quick bounds and the models; the
    answer stays exact and agrees with the subset DP."""
    monkeypatch.setattr(cores, "_CHECK_EVERY", 1)
    monkeypatch.setattr(portfolio, "CORES_LONG_N", 16)
    monkeypatch.setattr(portfolio, "EXHAUSTIVE_N", 16)
    monkeypatch.setattr(portfolio, "CORES_SHORT_SECONDS", 0.0)
    t = Topology.from_networkx(nx.gnp_random_graph(17, 0.45, seed=seed, directed=directed))
    res = registry.solve(Request(t, Question.max_r()), "portfolio")
    assert res.status is Status.EXACT and res.value == _truth(t)
    assert refutes_r(t.in_neighbors, res.witness.s1, res.witness.s2, res.upper + 1)
    first = res.params["steps"][0]
    assert first["step"] == "cores" and first.get("bisect") is True, first
    assert first["lower"] < first["upper"]  # stopped: the models finished the work
