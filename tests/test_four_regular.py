"""The 4-regular rule of issue 40 (solvers/portfolio.py, FOUR_REGULAR_RULE): an undirected
4-regular graph above CORES_LONG_N nodes skips the core search and the lane, and its hinted
published slice runs in-process with every thread; smaller ones and k-in digraphs keep them."""

import networkx as nx
import pytest

from robustgraph.generators import random_k_in
from robustgraph.topology import Topology
from solvers import cpsat, lane, portfolio
from solvers.types import Question, Request, Status
from solvers.witness import refutes_r


def _regular(d: int, n: int) -> Topology:
    return Topology.from_networkx(nx.random_regular_graph(d, n, seed=11))


def test_which_graphs_the_rule_takes():
    four = Request(_regular(4, 80), Question.max_r(), threads=2)
    assert portfolio._four_regular(four)
    assert portfolio._cores_budget(four) is None
    assert not portfolio._lane_due(four)
    for other in (_regular(4, 60), random_k_in(80, 4, seed=11), _regular(8, 80)):
        request = Request(other, Question.max_r(), threads=2)
        assert not portfolio._four_regular(request)
    small = Request(_regular(4, 60), Question.max_r(), threads=2)
    assert portfolio._cores_budget(small) == portfolio.CORES_SECONDS  # keeps the core search
    kin = Request(random_k_in(80, 4, seed=11), Question.max_r(), threads=2)
    assert portfolio._cores_budget(kin) is not None


@pytest.mark.skipif(not (lane.available() and cpsat.available()), reason="needs ortools")
def test_a_large_four_regular_graph_gets_the_hinted_slice_with_both_threads(monkeypatch):
    t = _regular(4, 80)
    threads_seen = []
    real_run = cpsat.run

    def recorded(model, time_limit, threads, *args, **kwargs):
        threads_seen.append((model.name, threads))
        return real_run(model, time_limit, threads, *args, **kwargs)

    def no_lane(*args, **kwargs):
        raise AssertionError("no lane for a 4-regular graph above CORES_LONG_N nodes")

    monkeypatch.setattr(cpsat, "run", recorded)
    monkeypatch.setattr(portfolio, "_start_lane", no_lane)
    res = portfolio.solve(Request(t, Question.max_r(), threads=2))
    assert res.status == Status.EXACT
    assert refutes_r(t.in_neighbors, res.witness.s1, res.witness.s2, res.value + 1)
    steps = res.params["steps"]
    assert not any(s.get("step") == "cores" for s in steps)
    assert threads_seen and threads_seen[0] == ("published-r", 2)
