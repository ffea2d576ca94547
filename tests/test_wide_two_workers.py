"""Issue 40, round 16 (``portfolio.WIDE_TWO_WORKERS_RULE``): with two threads, an undirected
regular graph of more than ``CORES_LONG_N`` nodes and degree >= ``WIDE_DEGREE`` gets one CP-SAT
solve of the published model as printed with ``WIDE_LANE_WORKERS`` workers in the lane's child,
and the first core waits for it for the whole time left (no solve beside it). The lane's answer
with two workers is checked against the subset enumeration on random small graphs; the rule
itself on fakes (no timing decides a pass or a fail)."""

from __future__ import annotations

import networkx as nx
import pytest
from conftest import naive_max_r, topologies
from hypothesis import given, settings

from robustgraph.topology import Topology
from solvers import cpsat, lane, portfolio, search
from solvers.interrupt import StopSignal
from solvers.milp_model import Outcome
from solvers.search import Progress
from solvers.types import Question, Request, Status
from solvers.witness import refutes_r


def _regular(d: int, n: int) -> Topology:
    return Topology.from_networkx(nx.random_regular_graph(d, n, seed=7661))


def _payload(t: Topology) -> dict:
    return {"in_neighbors": [sorted(s) for s in t.in_neighbors], "time_limit": None, "seed": 0}


@pytest.mark.skipif(not cpsat.available(), reason="needs ortools")
@settings(max_examples=30)
@given(topologies(max_n=9).filter(lambda g: g.n >= 2))
def test_a_two_worker_child_proves_r_star_of_the_enumeration(t):
    """The child's printed model with two CP-SAT workers, absorbed as the portfolio does: exact,
    r* of the subset enumeration, its pair checked."""
    request = Request(t, Question.max_r())
    fake = lane.PublishedLane(request, StopSignal(), workers=2)
    fake.outcome = lane._outcome(lane.solve_payload({**_payload(t), "workers": 2}))
    p = Progress(request, "portfolio", "strong", "test")
    fake.absorb(p)
    res = p.result()
    assert res.status == Status.EXACT and res.value == naive_max_r(t)
    if res.witness is not None:
        assert refutes_r(t.in_neighbors, res.witness.s1, res.witness.s2, res.upper + 1)


@pytest.mark.parametrize(("extra", "workers"), [({}, 1), ({"workers": 2}, 2)])
def test_the_payloads_workers_reach_cpsat(monkeypatch, extra, workers):
    """``lane.solve_payload`` runs CP-SAT with the payload's ``workers`` (one when absent)."""
    threads = []

    def run(model, time_limit, n_threads, seed=0, **kw):
        threads.append(n_threads)
        return Outcome("unknown", None, None, 0.0, "fake")

    monkeypatch.setattr(cpsat, "run", run)
    lane.solve_payload({**_payload(_regular(8, 80)), **extra})
    assert threads == [workers]


def test_a_lane_sends_its_workers_in_the_payload(monkeypatch):
    """``PublishedLane.start`` writes ``workers`` into the child's payload."""
    sent = []
    fake = lane.PublishedLane(Request(_regular(8, 80), Question.max_r()), StopSignal(), workers=2)
    monkeypatch.setattr(lane, "spawn", lambda: "child")
    monkeypatch.setattr(fake, "_wait_child", lambda data: sent.append(data))
    fake.start()
    fake._thread.join()
    (data,) = sent
    assert b'"workers": 2' in data


@pytest.mark.parametrize(("d", "n", "workers"), [(10, 80, 2), (8, 80, 2), (8, 60, 1), (6, 80, 1)])
def test_only_a_wide_graphs_lane_gets_two_workers(monkeypatch, d, n, workers):
    """``_hinted_lane``: the lane of a wide graph (``portfolio._wide``) gets WIDE_LANE_WORKERS
    workers, every other symmetric graph's lane one."""
    started = []

    def start(request, upper=None, hint=None, *, child=None, as_printed=False, workers=1):
        started.append(workers)
        return "lane"

    monkeypatch.setattr(portfolio, "_start_lane", start)
    request = Request(_regular(d, n), Question.max_r(), time_limit=10.0, threads=1)
    p = Progress(request, "portfolio", "strong", "t")
    assert portfolio._hinted_lane(p, object()) == "lane"
    assert started == [workers] and portfolio.WIDE_LANE_WORKERS == 2


class _TwoWorkerLane:
    """A two-worker lane that proves r* when first waited for; records the waits."""

    workers = 2
    signal = StopSignal()

    def __init__(self) -> None:
        self.waited: list = []
        self._won = False

    def wait(self, timeout=None) -> bool:
        self.waited.append(timeout)
        self._won = True
        return True

    def won(self) -> bool:
        return self._won

    def dropped(self) -> bool:
        return False

    def stop(self) -> None:
        return None

    def absorb(self, p: search.Progress) -> None:
        p.note("published-lane", engine="cpsat", outcome="optimal")


def test_the_first_core_waits_for_a_two_worker_lane_and_runs_nothing(monkeypatch):
    """``_solve`` with a two-worker lane: one wait for the whole time left (``lane-rest``), no
    solve beside it, no slice, no lane-wait step; the first core's steps end there."""
    fake = _TwoWorkerLane()
    ran = []
    monkeypatch.setattr(portfolio, "_hinted_lane", lambda p, child: fake)
    monkeypatch.setattr(portfolio.lane_module, "spawn", lambda: type("C", (), {"pid": 0})())
    monkeypatch.setattr(search, "published_slice", lambda *a, **k: ran.append(a))
    request = Request(_regular(10, 80), Question.max_r(), time_limit=10.0, threads=1)
    res = portfolio._solve(request, [])
    names = [s["step"] for s in res.params["steps"]]
    assert ran == [] and len(fake.waited) == 1 and 9.0 < fake.waited[0] <= 10.0
    assert "lane-rest" in names and "beside-lane" not in names and "lane-wait" not in names
    assert names[-1] == "published-lane"
