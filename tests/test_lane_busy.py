"""Issue 40, round 8 (``portfolio.LANE_BUSY_RULE``): a lane started beside the core search is
dropped after ``LANE_BUSY_AFTER`` seconds when other processes kept more than
``BESIDE_LANE_BUSY`` cores busy meanwhile; the first core then runs the published slices itself,
as with one thread. The machine's measure is faked; no timing decides a pass or a fail (a wait
for a drop has a 60 s safety limit, reached only if the drop is broken, and the test then fails
on what it checks)."""

from __future__ import annotations

import threading
from unittest.mock import patch

import networkx as nx
import pytest
from conftest import in_regular_30, naive_max_r, topologies
from hypothesis import given, settings

from robustgraph.generators import erdos_renyi
from robustgraph.topology import Topology
from solvers import idle, lane, portfolio, search
from solvers.interrupt import StopSignal
from solvers.search import Progress
from solvers.types import Question, Request, Status
from solvers.witness import refutes_r

pytestmark = pytest.mark.skipif(not lane.available(), reason="needs ortools")


class _Sample:
    """``idle.CpuSample`` of a machine whose other processes kept ``BUSY`` cores busy."""

    BUSY: float | None = 2.0

    def __init__(self, pids=()) -> None:
        self.pids = pids

    def others_busy(self) -> float | None:
        return self.BUSY


def _hard() -> Topology:
    """A graph whose published model takes CP-SAT far longer than any test waits for a drop."""
    return erdos_renyi(60, 0.5, seed=1)


def _wait_until(flag, limit: float = 60.0) -> bool:
    done = threading.Event()
    for _ in range(int(limit / 0.01)):
        if flag():
            return True
        done.wait(0.01)
    return flag()


def _started(due: bool, after: float = 0.0) -> tuple[lane.PublishedLane, list]:
    """A lane on :func:`_hard`, started, whose drop after ``after`` seconds is ``due``; the
    list records each time the drop asked."""
    request = Request(_hard(), Question.max_r(), time_limit=60, threads=2)
    started = lane.PublishedLane(request, StopSignal())
    started.start()
    asked: list = []
    started.drop_after(after, lambda: asked.append(None) or due)
    return started, asked


def test_a_lane_whose_drop_is_due_is_stopped_and_proves_nothing():
    running, asked = _started(True)
    assert _wait_until(running.dropped)
    assert asked == [None] and not running.won()
    assert running.stop() is None  # killed: no outcome
    assert running._proc.poll() is not None  # the child has ended


def test_a_lane_whose_drop_is_not_due_runs_on_and_a_stop_cancels_a_pending_drop():
    kept, asked = _started(False)
    assert _wait_until(lambda: bool(asked))
    assert not kept.dropped() and kept._proc.poll() is None  # still solving
    kept.stop()
    later, never = _started(True, after=60.0)
    later.stop()
    later._timer.join()  # cancelled: it ends without asking
    assert never == [] and not later.dropped()


@pytest.mark.parametrize("busy, due", [(2.0, True), (0.51, True), (0.5, False), (0.0, False),
                                       (None, False)])
def test_the_drop_is_due_above_the_busy_threshold(monkeypatch, busy, due):
    monkeypatch.setattr(idle, "CpuSample", _Sample)
    monkeypatch.setattr(_Sample, "BUSY", busy)
    seen = []

    class _Lane:
        def pid(self) -> int:
            return 77

        def drop_after(self, seconds, check) -> None:
            seen.append((seconds, check()))

    portfolio._drop_when_busy(_Lane())
    assert seen == [(portfolio.LANE_BUSY_AFTER, due)]


@pytest.mark.parametrize("dropped", [True, False])
def test_after_a_drop_the_first_core_runs_the_published_slices_itself(monkeypatch, dropped):
    """A dropped lane: the slices of one thread (HiGHS, then CP-SAT) and a ``lane-dropped`` step;
    a running one: only a wait for it, as before."""
    from solvers import cpsat, highs

    calls, waits = [], []

    def published_slice(p, run, seconds, least=False, as_printed=False):
        calls.append(run)

    class _Lane:
        def dropped(self) -> bool:
            return dropped

        def won(self) -> bool:
            return False

        def wait(self, timeout=None) -> bool:
            waits.append(timeout)
            return False

    monkeypatch.setattr(search, "published_slice", published_slice)
    t = erdos_renyi(30, 0.3, seed=3)
    p = Progress(Request(t, Question.max_r(), time_limit=10.0), "portfolio", "strong", "t")
    portfolio._published_slices(p, _Lane())
    noted = [s["step"] for s in p.steps]
    if dropped:
        engines = [m.run for m in (highs, cpsat) if m.available()]
        assert calls == engines and waits == [] and "lane-dropped" in noted
    else:
        assert calls == [] and len(waits) == 1 and "lane-dropped" not in noted


@settings(max_examples=10, deadline=None)
@given(t=topologies(max_n=8).filter(lambda g: g.n >= 2))
def test_a_busy_machine_still_gets_the_exact_answer(t):
    """With the subset DP's range moved to 1 node (every r question starts a lane) and a machine
    faked busy, the lane is dropped at once: the answer is exact and right, as the exhaustive
    reference says, and no lane thread outlives the solve."""
    with (
        patch.object(portfolio, "EXHAUSTIVE_N", 1),
        patch.object(portfolio, "LANE_BUSY_AFTER", 0.0),
        patch.object(idle, "CpuSample", _Sample),
    ):
        res = portfolio.solve(Request(t, Question.max_r(), threads=2))
    assert res.status == Status.EXACT and res.value == naive_max_r(t)
    if res.witness is not None:
        assert refutes_r(t.in_neighbors, res.witness.s1, res.witness.s2, res.upper + 1)
    names = {th.name for th in threading.enumerate()}
    assert "published-lane" not in names


def test_symmetric_graphs_and_one_thread_start_no_drop(monkeypatch):
    """The hinted lane of a graph that skips the core search (the first core only waits for it
    when the machine is busy) and ``--threads 1`` (no lane) are left alone."""
    drops = []
    monkeypatch.setattr(portfolio, "_drop_when_busy", lambda lane: drops.append(lane))
    monkeypatch.setattr(portfolio, "_gap", lambda p, *a, **k: None)
    eight = Topology.from_networkx(nx.random_regular_graph(8, 60, seed=1002))
    portfolio.solve(Request(eight, Question.max_r(), time_limit=5, threads=2))
    portfolio.solve(Request(in_regular_30(False, 8), Question.max_r(), time_limit=5, threads=1))
    assert drops == []
    portfolio.solve(Request(in_regular_30(False, 8), Question.max_r(), time_limit=5, threads=2))
    assert len(drops) == 1
