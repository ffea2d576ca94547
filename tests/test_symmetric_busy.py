"""Issue 40, round 23 (``portfolio.SYMMETRIC_BUSY_RULE``): with two threads, a graph of
``portfolio._symmetric`` on a machine whose other processes kept more than ``BESIDE_LANE_BUSY``
cores busy from the lane's child's spawn to the end of the quick bounds gets no lane: the child
is stopped, a ``lane-skipped`` step records the reading, and the question is solved as
``--threads 1`` solves it. The machine's reading is faked (``idle.CpuSample.others_busy``); no
timing decides a pass or a fail. The small graphs qualify as symmetric with ``CORES_LARGE_N``
and ``EXHAUSTIVE_N`` lowered; their r* comes from the exhaustive engine."""

from __future__ import annotations

import threading

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustgraph.generators import erdos_renyi, random_k_in
from robustgraph.topology import Topology
from solvers import exhaustive, idle, lane, portfolio, search
from solvers.search import Progress
from solvers.types import Question, Request, Status
from solvers.witness import refutes_r

pytestmark = pytest.mark.skipif(not lane.available(), reason="needs ortools")

_SMALL = {"CORES_LARGE_N": 8, "EXHAUSTIVE_N": 8}
"""Thresholds under which graphs of 10-14 nodes of in-degree 5 or more are ``_symmetric`` and
get a lane (``_lane_due``: more than ``EXHAUSTIVE_N`` nodes)."""


class _Sample:
    """A reading of ``busy`` cores (None: unreadable) over a window ``seconds`` long so far."""

    def __init__(self, busy: float | None, seconds: float) -> None:
        self.busy, self.window = busy, seconds

    def seconds(self) -> float:
        return self.window

    def others_busy(self) -> float | None:
        return self.busy


class _Time:
    """``portfolio``'s clock: ``sleep`` records its argument and moves the clock by it."""

    def __init__(self) -> None:
        self.now, self.slept = 1000.0, []

    def perf_counter(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def _eight() -> Topology:
    return Topology.from_networkx(nx.random_regular_graph(8, 60, seed=1002))


def _progress(monkeypatch, limit: float | None = 10.0) -> tuple[Progress, _Time]:
    fake = _Time()
    monkeypatch.setattr(portfolio, "time", fake)
    monkeypatch.setattr(search, "time", fake)
    request = Request(_eight(), Question.max_r(), time_limit=limit, threads=1)
    return Progress(request, "portfolio", "strong", "t"), fake


@pytest.mark.parametrize(
    ("busy", "skipped"),
    [
        (0.0, False),
        (portfolio.BESIDE_LANE_BUSY, False),
        (portfolio.BESIDE_LANE_BUSY + 0.01, True),
        (2.0, True),
        (None, False),
    ],
)
def test_the_reading_skips_the_lane_above_the_threshold_only(monkeypatch, busy, skipped):
    """Above ``BESIDE_LANE_BUSY`` cores the lane is skipped, with a step that says why; at it,
    below it, or with no reading (no ``/proc/stat``), it is kept and nothing is noted."""
    p, _ = _progress(monkeypatch)
    assert portfolio._busy_skip(p, _Sample(busy, 1.0)) is skipped
    noted = [s for s in p.steps if s["step"] == "lane-skipped"]
    if not skipped:
        assert noted == []
        return
    (step,) = noted
    assert step["others_busy"] == round(busy, 2) and step["window"] == 1.0
    assert step["max_busy"] == portfolio.BESIDE_LANE_BUSY
    assert step["rule"] == "SYMMETRIC_BUSY_RULE"


@pytest.mark.parametrize(
    ("window", "limit", "slept"), [(0.01, 10.0, "short"), (0.2, 10.0, None), (0.0, 0.02, 0.02)]
)
def test_a_short_window_is_waited_for_before_the_reading(monkeypatch, window, limit, slept):
    """A window shorter than ``BUSY_WINDOW`` is waited out (never past the deadline: 0.02 s left,
    a wait of 0.02 s); a long one is read at once."""
    p, fake = _progress(monkeypatch, limit)
    portfolio._busy_skip(p, _Sample(0.0, window))
    if slept == "short":
        assert fake.slept == [pytest.approx(portfolio.BUSY_WINDOW - window)]
    else:
        assert fake.slept == ([] if slept is None else [slept])


def test_no_sample_no_reading(monkeypatch):
    p, fake = _progress(monkeypatch)
    assert portfolio._busy_skip(p, None) is False
    assert fake.slept == [] and p.steps == []


def _recording(monkeypatch, busy: float | None) -> tuple[list, list]:
    """Fake the reading (``busy`` cores, a window already long enough) and record every child
    spawned and every lane started (both run for real)."""
    monkeypatch.setattr(idle.CpuSample, "others_busy", lambda self: busy)
    monkeypatch.setattr(idle.CpuSample, "seconds", lambda self: 1.0)
    children, started = [], []
    real_spawn, real_start = lane.spawn, portfolio._start_lane

    def spawn():
        children.append(real_spawn())
        return children[-1]

    def start_lane(*args, **kw):
        started.append(real_start(*args, **kw))
        return started[-1]

    monkeypatch.setattr(lane, "spawn", spawn)
    monkeypatch.setattr(portfolio, "_start_lane", start_lane)
    return children, started


@st.composite
def _small_symmetric(draw) -> Topology:
    """A random regular graph or k-in digraph of 10-14 nodes, every in-degree 5 or more."""
    n = draw(st.integers(10, 14))
    if draw(st.booleans()):
        return random_k_in(n, draw(st.integers(5, n - 2)), seed=draw(st.integers(0, 10_000)))
    d = draw(st.integers(5, n - 2).filter(lambda d: n * d % 2 == 0))
    return Topology.from_networkx(nx.random_regular_graph(d, n, seed=draw(st.integers(0, 10_000))))


def _names(res) -> list[str]:
    """The step names, a model's probe by its model (as ``vs_published._inside`` shows them)."""
    return [s.get("step") or s.get("model", "?") for s in res.params["steps"]]


@settings(max_examples=12)
@given(_small_symmetric())
def test_a_busy_machine_solves_a_symmetric_graph_as_one_thread_does(t):
    """Busy (2 cores kept busy by others): no lane is started, the child spawned for it has
    ended, the steps are the one-thread run's with ``lane-skipped`` after the quick bounds, the
    answer is exact and the exhaustive engine's, its witness checks, ``threads`` says 2, and no
    lane thread is left."""
    truth = exhaustive.solve(Request(t, Question.max_r())).value
    with pytest.MonkeyPatch.context() as mp:  # per example (hypothesis: no function fixture)
        for name, value in _SMALL.items():
            mp.setattr(portfolio, name, value)
        children, started = _recording(mp, 2.0)
        assert portfolio._symmetric(Request(t, Question.max_r()))
        res = portfolio.solve(Request(t, Question.max_r(), threads=2))
        one = portfolio.solve(Request(t, Question.max_r(), threads=1))
    assert res.status == Status.EXACT and res.value == one.value == truth
    assert refutes_r(t.in_neighbors, res.witness.s1, res.witness.s2, truth + 1)
    assert res.params["threads"] == 2 and started == []
    assert len(children) <= 1 and all(c.poll() is not None for c in children)
    names = _names(res)
    if "lane-skipped" in names:  # the quick bounds left the question open
        assert children and names.count("lane-skipped") == 1
        at = names.index("lane-skipped")
        assert names[:at] == _names(one)[:at]  # the quick bounds' steps
    assert [n for n in names if n != "lane-skipped"] == _names(one)
    assert res.engine_version == one.engine_version
    assert not [th for th in threading.enumerate() if th.name.startswith("published-lane")]


@pytest.mark.parametrize("busy", [0.0, None])
def test_an_idle_or_unreadable_machine_keeps_the_lane(monkeypatch, busy):
    """Idle (0 cores kept busy by others) or no reading: the lane starts as before, adopting the
    child, and no ``lane-skipped`` step; the answer is exact and the child has ended."""
    t = Topology.from_networkx(nx.random_regular_graph(6, 12, seed=5))
    for name, value in _SMALL.items():
        monkeypatch.setattr(portfolio, name, value)
    children, started = _recording(monkeypatch, busy)
    skips = []
    real = portfolio._busy_skip
    monkeypatch.setattr(portfolio, "_busy_skip", lambda p, s: skips.append(real(p, s)) or skips[-1])
    res = portfolio.solve(Request(t, Question.max_r(), threads=2))
    assert res.status == Status.EXACT
    assert res.value == exhaustive.solve(Request(t, Question.max_r())).value
    assert "lane-skipped" not in _names(res)
    (child,) = children
    assert child.poll() is not None
    if skips:  # the quick bounds left the question open: the lane was started, in the child
        assert skips == [False] and len(started) == 1 and started[0]._proc is child
        assert "published-lane" in _names(res)


def test_other_graphs_and_one_thread_take_no_reading(monkeypatch):
    """A graph that gets the core search (its lane starts at once: ``LANE_BUSY_RULE``'s), and
    a symmetric graph at one thread (no lane, no child), never reach the rule."""
    children, _ = _recording(monkeypatch, 2.0)
    asked = []
    monkeypatch.setattr(portfolio, "_busy_skip", lambda p, s: asked.append(s) or False)
    monkeypatch.setattr(portfolio, "_drop_when_busy", lambda lane: None)
    er = erdos_renyi(30, 0.3, seed=3)
    assert not portfolio._symmetric(Request(er, Question.max_r()))
    res = portfolio.solve(Request(er, Question.max_r(), threads=2, time_limit=20))
    assert "lane-skipped" not in _names(res)
    t = Topology.from_networkx(nx.random_regular_graph(6, 12, seed=5))
    for name, value in _SMALL.items():
        monkeypatch.setattr(portfolio, name, value)
    spawned = len(children)  # the ER graph's lane, started at once
    res = portfolio.solve(Request(t, Question.max_r(), threads=1))
    assert res.status == Status.EXACT and "lane-skipped" not in _names(res)
    assert asked == [] and len(children) == spawned
