"""Issue 40, round 6 (``portfolio.BESIDE_LANE_RULE``): with two threads, a graph that skips the
core search (``portfolio._symmetric``) has its lane run the hinted least-first published model
on CP-SAT; the first core, which used to wait idle for it, runs the published model as printed
(a second, different configuration: no bound, no hint, no symmetry broken) for the same time,
then waits for the lane only for what is left. On a fake clock, moved only by the fakes (no
timing decides a pass or a fail)."""

from __future__ import annotations

import os
import sys
import threading

import networkx as nx
import pytest
from conftest import in_regular_30

from robustgraph.generators import erdos_renyi
from robustgraph.topology import Topology
from solvers import cpsat, idle, portfolio, search
from solvers.milp_model import Outcome, published_r
from solvers.search import Progress
from solvers.types import Question, Request
from tests import test_deadline_spent

_Clock = test_deadline_spent._Clock
clock = test_deadline_spent.clock  # the fake clock's fixture (search's and portfolio's time)
LIMIT = 10.0


class _Lane:
    """A lane that never answers: records each wait (and moves the clock by it)."""

    def __init__(self, clock: _Clock, wins_at: float | None = None) -> None:
        self.clock = clock
        self.waited: list[float] = []
        self.wins_at = wins_at  # the lane proves r* at this fake time, if given

    def wait(self, timeout=None) -> bool:
        self.waited.append(timeout)
        if self.wins_at is not None and self.clock.now + timeout >= self.wins_at:
            self.clock.now = max(self.clock.now, self.wins_at)
            return True
        self.clock.now += timeout
        return False

    def won(self) -> bool:
        return self.wins_at is not None and self.clock.now >= self.wins_at


class _Sample:
    """``idle.CpuSample`` whose machine had ``FREE`` cores idle during the lane's first wait."""

    FREE: float | None = 1.0

    def free_cores(self) -> float | None:
        return self.FREE


@pytest.fixture(autouse=True)
def free(monkeypatch):
    """One core free unless a test says otherwise (``free.FREE = ...``)."""
    monkeypatch.setattr(idle, "CpuSample", _Sample)
    monkeypatch.setattr(_Sample, "FREE", 1.0)
    return _Sample


def _eight() -> Topology:
    return Topology.from_networkx(nx.random_regular_graph(8, 60, seed=1002))


def _slices(monkeypatch, clock: _Clock, spends: float, settles: bool = False) -> list:
    """Record each published slice (its runner, seconds and configuration); each spends
    ``spends`` seconds of the fake clock and, with ``settles``, closes the gap."""
    calls, nices = [], []

    def published_slice(p, run, seconds, least=False, as_printed=False):
        calls.append((run, seconds, least, as_printed))
        nices.append(_nice())
        clock.now += spends
        if settles:
            p.prove_lower(p.upper)

    monkeypatch.setattr(search, "published_slice", published_slice)
    return calls, nices


def _nice() -> int | None:
    """The calling thread's nice value (Linux: per thread), None elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


@pytest.mark.skipif(not cpsat.available(), reason="needs ortools")
@pytest.mark.parametrize("spends", [2.0, 6.0])
def test_a_symmetric_graph_runs_the_printed_model_beside_its_lane(monkeypatch, clock, spends):
    """The lane alone for BESIDE_LANE_AFTER seconds, then the slice for the rest of the lane's
    wait (REGULAR_SHARE of the time left); the lane is then waited for only what the slice left
    of it (nothing when the slice used it all)."""
    eight = _eight()
    request = Request(eight, Question.max_r(), time_limit=LIMIT, threads=1)
    assert portfolio._symmetric(request)
    calls, nices = _slices(monkeypatch, clock, spends)
    before = _nice()
    lane = _Lane(clock)
    p = Progress(request, "portfolio", "strong", "t")
    portfolio._published_slices(p, lane)
    share = portfolio.REGULAR_SHARE * LIMIT
    after = portfolio.BESIDE_LANE_AFTER
    ((run, seconds, least, as_printed),) = calls
    assert run is cpsat.run and as_printed and not least
    assert seconds == pytest.approx(share - after)
    if sys.platform.startswith("linux"):  # in a thread of the lowest priority (solvers.idle)
        assert nices == [idle.IDLE_NICE] and _nice() == before  # the caller's is unchanged
    first, rest = lane.waited
    assert first == pytest.approx(after)
    assert rest == pytest.approx(max(0.0, share - after - spends))
    assert p.steps[-1]["step"] == "lane-wait"


@pytest.mark.skipif(not cpsat.available(), reason="needs ortools")
def test_a_slice_that_settles_the_question_is_not_followed_by_a_wait(monkeypatch, clock):
    request = Request(_eight(), Question.max_r(), time_limit=LIMIT, threads=1)
    calls, nices = _slices(monkeypatch, clock, 1.0, settles=True)
    lane = _Lane(clock)
    p = Progress(request, "portfolio", "strong", "t")
    p.prove_lower(2)
    portfolio._published_slices(p, lane)
    assert len(calls) == 1 and p.settled()
    assert lane.waited == [pytest.approx(portfolio.BESIDE_LANE_AFTER)]  # none after the slice


@pytest.mark.skipif(not cpsat.available(), reason="needs ortools")
def test_a_lane_that_wins_within_the_first_wait_gets_no_second_solve(monkeypatch, clock):
    """An easy graph: the lane proves r* before BESIDE_LANE_AFTER; no CPU is spent beside it."""
    request = Request(_eight(), Question.max_r(), time_limit=LIMIT, threads=1)
    calls, _ = _slices(monkeypatch, clock, 1.0)
    lane = _Lane(clock, wins_at=clock.now + portfolio.BESIDE_LANE_AFTER / 2)
    p = Progress(request, "portfolio", "strong", "t")
    p.halt = lane.won  # as _solve sets it
    portfolio._published_slices(p, lane)
    assert calls == [] and lane.won()


@pytest.mark.parametrize("directed", [False, True])
def test_other_graphs_beside_a_lane_run_no_slice(monkeypatch, clock, directed):
    """A graph that gets the core search (30 nodes here) starts its lane beside it, unhinted;
    the first core still only waits for it (the rule is measured on symmetric graphs only)."""
    same = in_regular_30(directed, 8)
    for t in (same, erdos_renyi(30, 0.3, seed=3, directed=directed)):
        request = Request(t, Question.max_r(), time_limit=LIMIT, threads=1)
        assert not portfolio._symmetric(request)
        calls, nices = _slices(monkeypatch, clock, 1.0)
        lane = _Lane(clock)
        portfolio._published_slices(Progress(request, "portfolio", "strong", "t"), lane)
        assert calls == [] and len(lane.waited) == 1


@pytest.mark.skipif(not cpsat.available(), reason="needs ortools")
def test_one_thread_keeps_the_hinted_least_first_slice(monkeypatch, clock):
    request = Request(_eight(), Question.max_r(), time_limit=LIMIT, threads=1)
    calls, nices = _slices(monkeypatch, clock, 1.0)
    portfolio._published_slices(Progress(request, "portfolio", "strong", "t"), None)
    ((run, seconds, least, as_printed),) = calls
    assert run is cpsat.run and least and not as_printed
    assert nices == [_nice()]  # in the caller's thread, at its priority
    assert seconds == pytest.approx(portfolio.REGULAR_ALONE_SHARE * LIMIT)


def test_the_printed_configuration_is_not_the_lanes():
    """Never the same model with the same configuration twice at once: the first core's model
    is ``published_r`` row for row, with no hint, while the lane's is bounded, hinted and
    least-first (``lane.solve_payload``)."""
    eight = _eight()
    request = Request(eight, Question.max_r(), time_limit=LIMIT)
    p = Progress(request, "portfolio", "strong", "t")
    assert not search.quick_r(p) and p.witness is not None
    models = []

    def run(model, time_limit, threads, seed=0, **kw):
        models.append(model)
        return Outcome("unknown", None, None, 0.0, "fake")

    search.published_slice(p, run, 1.0, as_printed=True)
    search.published_slice(p, run, 1.0, least=True)
    printed, lanes = models
    plain = published_r(eight.in_neighbors)
    assert printed.constraints == plain.constraints and printed.hint == {}
    assert len(printed.vars) == len(plain.vars)
    assert lanes.hint and len(lanes.vars) > len(plain.vars)  # the least-first flags


@pytest.mark.skipif(not cpsat.available(), reason="needs ortools")
@pytest.mark.parametrize("cores", [0.2, None])
def test_no_second_solve_without_a_free_core(monkeypatch, clock, free, cores):
    """A busy machine (a fifth of a core idle during the lane's first second), or one whose
    counters cannot be read: the first core only waits for the lane, as before round 6."""
    free.FREE = cores
    request = Request(_eight(), Question.max_r(), time_limit=LIMIT, threads=1)
    calls, _ = _slices(monkeypatch, clock, 1.0)
    lane = _Lane(clock)
    p = Progress(request, "portfolio", "strong", "t")
    portfolio._published_slices(p, lane)
    assert calls == []
    share = portfolio.REGULAR_SHARE * LIMIT
    assert sum(lane.waited) == pytest.approx(share)  # the whole wait, for the lane
    (step,) = [s for s in p.steps if s.get("step") == "beside-lane"]
    assert step["ran"] is False and step["free_cores"] == cores


@pytest.mark.skipif(not cpsat.available(), reason="needs ortools")
def test_a_real_solve_with_the_printed_model_beside_the_lane_is_exact_and_checked(monkeypatch):
    """CP-SAT on both sides (a free core faked, no first wait): whichever side proves r*
    first, the answer is exact, its witness checks, and the lane's child has ended."""
    from solvers import lane as lane_module
    from solvers.witness import refutes_r

    monkeypatch.setattr(portfolio, "BESIDE_LANE_AFTER", 0.0)
    lanes = []
    real = lane_module.PublishedLane.start

    def start(self):
        lanes.append(self)
        return real(self)

    monkeypatch.setattr(lane_module.PublishedLane, "start", start)
    eight = _eight()
    res = portfolio.solve(Request(eight, Question.max_r(), threads=2, time_limit=60))
    assert res.status.value == "exact" and res.value == 3
    assert refutes_r(eight.in_neighbors, res.witness.s1, res.witness.s2, 4)
    steps = res.params["steps"]
    beside = [s for s in steps if s.get("step") == "beside-lane"]
    assert [s["ran"] for s in beside] in ([True], [False])  # False: the lane won at once
    (lane,) = lanes
    assert lane._proc is not None and lane._proc.poll() is not None
