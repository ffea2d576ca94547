"""Issue 40, "a deadline that is spent": a question is answered before its time limit only when
the answer is exact. On a fake clock, moved only by the fake engines (no timing decides a
pass or a fail): a stalled probe at the upper bound, with no integer left for the climb, is
tried again with what is left (``solvers.search``); with the published model's lane on the
other core, the lane keeps the time the first core's steps left (``solvers.portfolio``)."""

from __future__ import annotations

import time

import networkx as nx
import pytest

from robustgraph.topology import Topology
from solvers import exhaustive, portfolio, search
from solvers.interrupt import StopSignal
from solvers.milp_model import Outcome
from solvers.search import Progress
from solvers.types import Question, Request, Status
from solvers.witness import refutes_r

LIMIT = 60.0


class _Clock:
    """``perf_counter`` of ``solvers.search`` and ``solvers.portfolio``: moved only by fakes."""

    thread_time = staticmethod(time.thread_time)
    process_time = staticmethod(time.process_time)

    def __init__(self) -> None:
        self.now = 1000.0

    def perf_counter(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch) -> _Clock:
    fake = _Clock()
    monkeypatch.setattr(search, "time", fake)
    monkeypatch.setattr(portfolio, "time", fake)
    return fake


def _graphs() -> list[Topology]:
    return [
        Topology.from_networkx(nx.complete_graph(9)),  # r* = 5
        Topology.from_networkx(nx.circulant_graph(12, [1, 2, 3])),  # r* = 3
        Topology.from_networkx(nx.complete_bipartite_graph(4, 6)),  # r* = 4
    ]


def _engine(clock: _Clock, truth: int, proves_on: int | None, calls: list):
    """Proves every probe below ``truth`` at once; the probe at ``truth`` (the hard proof)
    spends its whole time limit and answers unknown, except on its ``proves_on``-th try."""

    def run(model, time_limit, threads, seed, *, stop=None):
        probe = int(model.name.removeprefix("strong-r"))
        calls.append((probe, time_limit))
        if probe < truth:
            return Outcome("infeasible", None, None, 0.0, "fake: proved")
        assert probe == truth and time_limit is not None  # never above the held witness
        tries = sum(1 for seen, _ in calls if seen == truth)
        if tries == proves_on:
            clock.now += time_limit / 2
            return Outcome("infeasible", None, None, time_limit / 2, "fake: proved late")
        clock.now += time_limit
        return Outcome("unknown", None, None, time_limit, "fake: stalled")

    return run


def _start(t: Topology) -> tuple[Progress, int]:
    """A Progress at [r* - 2, r*] with the exhaustive witness held: a gap the top probe must
    close, with one integer for the climb."""
    request = Request(t, Question.max_r(), time_limit=LIMIT)
    truth = exhaustive.solve(request)
    p = Progress(request, "portfolio", "strong", "test")
    p.offer(truth.witness)
    p.prove_lower(truth.value - 2)
    return p, truth.value


@pytest.mark.parametrize("t", _graphs(), ids=["K9", "C12(1,2,3)", "K4,6"])
@pytest.mark.parametrize("proves_on", [None, 3, 4])
def test_a_stalled_top_probe_is_retried_until_the_deadline(monkeypatch, clock, t, proves_on):
    """The top probe stalls, the long witness search finds nothing, the climb proves r* - 1 and
    has no probe left: the top probe gets the rest of the time. The result is exact (when the
    fake proves it on a later try) or bounded at the deadline, never earlier; every solve
    kept the deadline, and nothing unproven is claimed."""

    def no_witness(p, seconds):  # the long witness search: spends its time, finds nothing
        clock.now += seconds

    monkeypatch.setattr(search, "_improve_r", no_witness)
    p, truth = _start(t)
    calls: list = []
    search.strong_r_loop(p, _engine(clock, truth, proves_on, calls))
    res = p.result()
    end = p.start + LIMIT
    assert all(limit <= end - p.start + 1e-9 for _, limit in calls)
    if proves_on is not None and sum(probe == truth for probe, _ in calls) >= proves_on:
        assert res.status is Status.EXACT and res.value == truth
        assert clock.now <= end
    else:
        assert res.status is Status.BOUNDED
        assert clock.now == pytest.approx(end)  # the whole deadline was spent
        assert (res.lower, res.upper) == (truth - 1, truth)
    assert refutes_r(t.in_neighbors, res.witness.s1, res.witness.s2, res.upper + 1)


def test_an_engine_that_gives_up_at_once_cannot_loop_forever(clock):
    """A solver that answers unknown at once with time left: the retries are bounded."""
    p, truth = _start(_graphs()[0])
    calls: list = []

    def gives_up(model, time_limit, threads, seed, *, stop=None):
        calls.append(model.name)
        return Outcome("unknown", None, None, 0.0, "fake: gave up")

    search._climb(p, gives_up, lambda probe: search.strong_r_model(p, probe), stalled=truth)
    assert len(calls) <= search.RETRIES + 1
    assert p.result().status is Status.BOUNDED


class _FakeLane:
    """The published model's lane, on the fake clock: it proves r* (the exhaustive answer)
    ``wins_after`` fake seconds after its start, or never (None)."""

    def __init__(self, clock: _Clock, truth, wins_after: float | None) -> None:
        self.clock = clock
        self.truth = truth
        self.signal = StopSignal()
        self.at = clock.now if wins_after is None else clock.now + wins_after
        self.never = wins_after is None
        self.waited: list = []
        self.stopped = False

    def won(self) -> bool:
        return not self.never and self.clock.now >= self.at

    def wait(self, timeout=None) -> bool:
        self.waited.append(timeout)
        if self.never:
            self.clock.now += timeout
            return False
        self.clock.now = min(self.at, self.clock.now + timeout)
        return self.won()

    def stop(self):
        self.stopped = True

    def pid(self) -> None:
        return None

    def drop_after(self, seconds, due) -> None:  # a machine with a core to spare: never due
        self.drop = seconds

    def dropped(self) -> bool:
        return False

    def absorb(self, p: Progress) -> None:
        if self.won():
            p.offer(self.truth.witness)
            p.prove_lower(self.truth.value)
        p.note("published-lane", outcome="optimal" if self.won() else None)


@pytest.mark.parametrize("wins_after", [None, 45.0, 59.0])
def test_the_lane_keeps_the_time_the_first_core_left(monkeypatch, clock, wins_after):
    """The first core's steps end at 40 s of 60 with the question open: the lane keeps the
    remaining 20 s. Old code stopped it at 40 s and answered ``bounded``."""
    t = Topology.from_networkx(nx.random_regular_graph(4, 26, seed=7))
    request = Request(t, Question.max_r(), time_limit=LIMIT, threads=2)
    truth = exhaustive.solve(Request(t, Question.max_r()))
    lanes = []

    def start_lane(req):
        lanes.append(_FakeLane(clock, truth, wins_after))
        return lanes[-1]

    def first_core(
        p, found, lane, quick_done=False, sample=None
    ):  # 40 s of steps that prove only the degree witness
        clock.now += 40.0
        p.offer(truth.witness)
        return None

    monkeypatch.setattr(portfolio, "_start_lane", start_lane)
    monkeypatch.setattr(portfolio, "_cores", lambda request, halt=None: None)
    monkeypatch.setattr(portfolio, "_gap", first_core)
    res = portfolio.solve(request)
    (lane,) = lanes
    assert lane.stopped and lane.waited and lane.waited[0] == pytest.approx(20.0)
    if wins_after is None:
        assert res.status is Status.BOUNDED
        assert clock.now - 1000.0 == pytest.approx(LIMIT)
    else:
        assert res.status is Status.EXACT and res.value == truth.value
        assert clock.now - 1000.0 == pytest.approx(wins_after)
    assert any(s.get("step") == "lane-rest" for s in res.params["steps"])
