"""Issue 40, round 5 (``portfolio.LANE_WARM_RULE``): the lane of a graph that skips the core
search is started before the quick bounds it is told, so that its start-up runs beside them;
its child is adopted by the lane, or ended when the bounds settle the question alone."""

import networkx as nx
import pytest

from robustgraph.generators import k_circulant
from robustgraph.topology import Topology
from solvers import lane, portfolio, search
from solvers.types import Question, Request, Status
from solvers.witness import refutes_r

pytestmark = pytest.mark.skipif(not lane.available(), reason="needs ortools")


def _recording(monkeypatch):
    """Record the order of spawn, quick bounds and lane start, and every child spawned."""
    events, children = [], []
    real_spawn, real_quick, real_start = lane.spawn, search.quick_r, portfolio._start_lane

    def spawn():
        events.append("spawn")
        children.append(real_spawn())
        return children[-1]

    def quick_r(p):
        events.append("quick")
        return real_quick(p)

    def start_lane(request, upper=None, hint=None, *, child=None):
        events.append(("start", child))
        return real_start(request, upper, hint, child=child)

    monkeypatch.setattr(lane, "spawn", spawn)
    monkeypatch.setattr(search, "quick_r", quick_r)
    monkeypatch.setattr(portfolio, "_start_lane", start_lane)
    return events, children


def test_a_symmetric_graphs_lane_child_starts_before_the_quick_bounds(monkeypatch):
    eight = Topology.from_networkx(nx.random_regular_graph(8, 60, seed=1002))
    events, children = _recording(monkeypatch)
    res = portfolio.solve(Request(eight, Question.max_r(), threads=2))
    assert res.status == Status.EXACT and res.value == 3
    assert refutes_r(eight.in_neighbors, res.witness.s1, res.witness.s2, 4)
    (child,) = children
    assert events == ["spawn", "quick", ("start", child)]  # spawned first, then adopted
    assert child.poll() is not None  # ended with the solve
    assert any(s.get("step") == "published-lane" for s in res.params["steps"])


def test_a_spawned_child_is_ended_when_the_quick_bounds_settle_alone(monkeypatch):
    ring = k_circulant(60, 5)  # 10-regular, 60 nodes: symmetric; the circulant bound settles it
    assert portfolio._symmetric(Request(ring, Question.max_r()))
    events, children = _recording(monkeypatch)
    res = portfolio.solve(Request(ring, Question.max_r(), threads=2))
    assert res.status == Status.EXACT
    assert events == ["spawn", "quick"]  # no lane started
    (child,) = children
    assert child.poll() is not None and child.stdin.closed
    assert not any(s.get("step") == "published-lane" for s in res.params["steps"])


def test_other_graphs_and_one_thread_spawn_no_early_child(monkeypatch):
    four = Topology.from_networkx(nx.random_regular_graph(4, 40, seed=3))  # the core search
    events, _ = _recording(monkeypatch)
    portfolio.solve(Request(four, Question.max_r(), threads=2))
    assert not any(isinstance(e, tuple) and e[1] is not None for e in events)  # never adopted
    events.clear()
    eight = Topology.from_networkx(nx.random_regular_graph(8, 60, seed=1002))
    portfolio.solve(Request(eight, Question.max_r(), threads=1, time_limit=20))
    assert "spawn" not in events  # no lane with one thread
