"""Issue 40, round 18 (``portfolio.LS_DURING_LANE_WAIT_RULE``): at ``--threads 2`` a wide
regular graph (undirected regular, n > 64, degree >= 8) has its first core, while it waits for
the lane, run CP-SAT's local search alone on the published constraints as a decision at
``t <= upper - 1`` (``search.published_ls_probe``), stopped when the lane proves r* or the wait
ends; a pair it finds is checked and lowers the upper bound, the search is asked again below it
while more than one value is open, and the wait ends.

Which graphs and thread counts get it, and what the wait does around it, on the fake clock of
``test_deadline_spent`` with a fake lane; its answers against the exhaustive engine on small
regular graphs (the size and degree thresholds monkeypatched) under hypothesis; its stop by
the lane's signal with a real CP-SAT search that only the stop can end. No timing decides a
pass or a fail.
"""

from __future__ import annotations

import threading

import networkx as nx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from robustgraph.generators import erdos_renyi
from robustgraph.topology import Topology
from solvers import cpsat, exhaustive, portfolio, search
from solvers.interrupt import StopSignal
from solvers.search import Progress
from solvers.types import Question, Request
from solvers.witness import refutes_r
from tests import test_beside_lane, test_deadline_spent

clock = test_deadline_spent.clock  # the fake clock's fixture (search's and portfolio's time)
_Lane = test_beside_lane._Lane
_Sample = test_beside_lane._Sample
LIMIT = 10.0

needs_cpsat = pytest.mark.skipif(not cpsat.available(), reason="needs ortools")


def _regular(degree: int, n: int, seed: int = 7) -> Topology:
    return Topology.from_networkx(nx.random_regular_graph(degree, n, seed=seed))


def _kin(n: int, k: int) -> Topology:
    """A k-in digraph: node i hears i + 1, ..., i + k (mod n)."""
    g = nx.DiGraph()
    g.add_edges_from(((i + j) % n, i) for i in range(n) for j in range(1, k + 1))
    return Topology.from_networkx(g)


def _fake_probe(monkeypatch, clock, spends: float, lowers: bool) -> list[float]:
    """Replace the local search (and the published slices, e.g. the head window) with fakes on
    the fake clock; the local search spends ``spends`` seconds and, with ``lowers``, stands
    for a checked pair one below the upper bound. Returns the seconds each search was given."""
    given_seconds: list[float] = []

    def probe(p, run, seconds):
        assert run is cpsat.run
        given_seconds.append(seconds)
        clock.now += min(spends, seconds)
        if lowers:
            p.upper -= 1  # a fake for p.offer of a pair of value upper - 1

    monkeypatch.setattr(search, "published_ls_probe", probe)
    monkeypatch.setattr(search, "published_slice", lambda p, run, seconds, **kw: None)
    return given_seconds


@needs_cpsat
@pytest.mark.parametrize(
    ("graph", "threads", "fires"),
    [
        (lambda: _regular(8, 80), 1, True),  # --threads 2: the lane has the other thread
        (lambda: _regular(10, 80), 1, True),
        (lambda: _regular(8, 80), 2, False),  # --threads 3
        (lambda: _regular(8, 60), 1, False),  # n <= CORES_LONG_N
        (lambda: _regular(6, 80), 1, False),  # degree < WIDE_DEGREE
        (lambda: _kin(80, 10), 1, False),  # directed
        (lambda: erdos_renyi(50, 0.35, seed=3), 1, False),
        (lambda: erdos_renyi(50, 0.35, seed=3, directed=True), 1, False),
    ],
)
def test_the_rule_fires_only_on_wide_regular_graphs_at_two_threads(
    monkeypatch, clock, graph, threads, fires
):
    """The first core's request (``threads`` is the user's count less the lane's) on a busy
    machine (no beside-lane solve but the head): the local search gets the rest of the wait
    exactly on wide regular graphs at ``--threads 2``; everywhere else the wait is as before."""
    request = Request(graph(), Question.max_r(), time_limit=LIMIT, threads=threads)
    assert portfolio._ls_due(request) is fires
    given_seconds = _fake_probe(monkeypatch, clock, spends=1.0, lowers=False)
    lane = _Lane(clock)
    p = Progress(request, "portfolio", "strong", "t")
    p.upper, p.lower = 5, 2
    start = clock.now
    portfolio._published_slices(p, lane, _Sample(2.0))
    named = [s for s in p.steps if s.get("step") == "ls-during-lane-wait"]
    assert p.steps[-1]["step"] == "lane-wait"
    wait = p.steps[-1]["seconds_given"]
    if fires:
        assert given_seconds == [pytest.approx(wait)]
        (step,) = named
        assert step["rule"] == "LS_DURING_LANE_WAIT_RULE" and step["found"] is False
        assert lane.waited == [pytest.approx(wait - 1.0)]  # what the search left of the wait
    else:
        assert given_seconds == [] and named == []
        assert lane.waited == [pytest.approx(wait)]
    assert clock.now - start == pytest.approx(wait)  # the wait's end is kept either way


@needs_cpsat
def test_one_thread_has_no_lane_and_no_local_search(monkeypatch, clock):
    """``--threads 1``: no lane, so no wait; the published slices run on this core instead."""
    request = Request(_regular(8, 80), Question.max_r(), time_limit=LIMIT, threads=1)
    given_seconds = _fake_probe(monkeypatch, clock, spends=1.0, lowers=False)
    p = Progress(request, "portfolio", "strong", "t")
    p.upper, p.lower = 5, 2
    portfolio._published_slices(p, None, None)
    assert given_seconds == []
    assert not [s for s in p.steps if s.get("step") in ("ls-during-lane-wait", "lane-wait")]


@needs_cpsat
def test_a_pair_it_finds_ends_the_wait(monkeypatch, clock):
    request = Request(_regular(8, 80), Question.max_r(), time_limit=LIMIT, threads=1)
    given_seconds = _fake_probe(monkeypatch, clock, spends=1.5, lowers=True)
    lane = _Lane(clock)
    p = Progress(request, "portfolio", "strong", "t")
    p.upper, p.lower = 4, 2
    portfolio._published_slices(p, lane, _Sample(2.0))
    assert len(given_seconds) == 1 and p.upper == 3
    assert lane.waited == []  # the first core goes on to prove the lower bound
    (step,) = [s for s in p.steps if s.get("step") == "ls-during-lane-wait"]
    assert step["found"] is True and step["upper"] == 3


@needs_cpsat
def test_after_a_pair_it_searches_again_while_more_than_one_value_is_open(monkeypatch, clock):
    """[3, 6]: a pair of value 5 leaves [3, 5], so it searches below 5; a pair of value 4
    leaves one value open, and the wait ends."""
    request = Request(_regular(10, 80), Question.max_r(), time_limit=LIMIT, threads=1)
    given_seconds = _fake_probe(monkeypatch, clock, spends=0.5, lowers=True)
    lane = _Lane(clock)
    p = Progress(request, "portfolio", "strong", "t")
    p.upper, p.lower = 6, 3
    start = clock.now
    portfolio._published_slices(p, lane, _Sample(2.0))
    assert p.upper == 4 and len(given_seconds) == 2 and lane.waited == []
    assert given_seconds[0] - given_seconds[1] == pytest.approx(0.5)  # the same wait's end
    found = [s["found"] for s in p.steps if s.get("step") == "ls-during-lane-wait"]
    assert found == [True, True] and clock.now - start == pytest.approx(1.0)


@needs_cpsat
@pytest.mark.parametrize("busy", [0.0, 2.0])
def test_no_local_search_once_the_lane_has_won_or_the_wait_is_spent(monkeypatch, clock, busy):
    """A lane that proved r* before the wait: no search. On a machine with a core to spare the
    beside-lane solve (here a fake spending the whole wait) leaves no time to search in."""
    request = Request(_regular(8, 80), Question.max_r(), time_limit=LIMIT, threads=1)
    given_seconds = _fake_probe(monkeypatch, clock, spends=1.0, lowers=False)
    lane = _Lane(clock, wins_at=clock.now)
    p = Progress(request, "portfolio", "strong", "t")
    p.upper, p.lower = 5, 2
    portfolio._published_slices(p, lane, _Sample(busy))
    assert given_seconds == []

    def whole_wait(p, run, seconds, **kw):
        clock.now += seconds

    monkeypatch.setattr(search, "published_slice", whole_wait)
    lane = _Lane(clock)
    p = Progress(request, "portfolio", "strong", "t")
    p.upper, p.lower = 5, 2
    portfolio._published_slices(p, lane, _Sample(0.0))  # beside-lane is due: it fills the wait
    assert given_seconds == []
    assert p.steps[-1]["step"] == "lane-wait"


@st.composite
def _small_regular(draw) -> Topology:
    n = draw(st.integers(6, 12))
    degree = draw(st.sampled_from([d for d in range(3, n) if n * d % 2 == 0]))
    return _regular(degree, n, seed=draw(st.integers(0, 10_000)))


@needs_cpsat
@given(_small_regular(), st.booleans())
def test_bounds_after_the_wait_hold_r_star_of_the_exhaustive_engine(t, quick):
    """Thresholds lowered so that a small regular graph is "wide" (and gets no head window):
    from the trivial bounds, or from the quick bounds when ``quick``, the wait with the real
    local search (a lane that never answers, a busy machine): the bounds hold r* of the
    exhaustive engine, a witness held is a true one of value ``upper``, a search that reports a
    pair lowered the upper bound to its probe or below, and a search follows one only below
    the pair it found."""
    saved = portfolio.CORES_LONG_N, portfolio.WIDE_DEGREE, portfolio.WIDE_HEAD_BELOW
    portfolio.CORES_LONG_N, portfolio.WIDE_DEGREE, portfolio.WIDE_HEAD_BELOW = 4, 3, 3
    try:
        request = Request(t, Question.max_r(), time_limit=0.5, threads=1)
        assert portfolio._ls_due(request)
        r_star = exhaustive.solve(Request(t, Question.max_r())).value
        p = Progress(request, "portfolio", "strong", "t")
        if quick and search.quick_r(p):
            return
        before = p.upper
        portfolio._published_slices(p, _NeverAnswers(), _Sample(2.0))
    finally:
        portfolio.CORES_LONG_N, portfolio.WIDE_DEGREE, portfolio.WIDE_HEAD_BELOW = saved
    assert p.lower <= r_star <= p.upper
    w = p.witness
    assert w is None or refutes_r(t.in_neighbors, w.s1, w.s2, p.upper + 1)
    named = [s for s in p.steps if s.get("step") == "ls-during-lane-wait"]
    solves = [s for s in p.steps if s.get("model") == "published-r"]
    assert len(named) == len(solves) >= 1 and solves[0]["probe"] == before - 1
    for k, (step, ls) in enumerate(zip(named, solves, strict=True)):
        if k:  # asked again just below the pair found before, while [lower, upper] is wide
            assert ls["probe"] == named[k - 1]["upper"] - 1 and named[k - 1]["found"]
        if ls["outcome"] in ("optimal", "feasible"):
            assert step["found"] and w is not None and step["upper"] <= ls["probe"]
        elif ls["outcome"] == "infeasible":
            assert p.lower == ls["probe"] + 1 == r_star
        else:
            assert not step["found"]


class _NeverAnswers:
    """A lane (real clock) that never answers; its waits return at once."""

    def won(self) -> bool:
        return False

    def dropped(self) -> bool:
        return False

    def wait(self, timeout=None) -> bool:
        return False


@needs_cpsat
def test_the_local_search_stops_when_the_lane_answers():
    """No time limit and a question the local search cannot settle (t <= 1 on an 8-regular
    graph of 80 nodes, whose r* is at least 2): only the lane's proof can end the search (its
    thread is stopped once ``lane.won()``); it ends with nothing proven, and the caller's stop
    signal is back in place."""
    request = Request(_regular(8, 80), Question.max_r(), threads=1)
    p = Progress(request, "portfolio", "strong", "t")
    p.upper, p.lower = 2, 1
    own = p.stop = StopSignal()
    proved = threading.Event()

    class Lane(_NeverAnswers):
        def won(self) -> bool:
            return proved.is_set()

    timer = threading.Timer(0.3, proved.set)
    timer.start()
    try:
        found = portfolio._ls_during_wait(p, Lane(), float("inf"))
    finally:
        timer.cancel()
    assert found is False and (p.lower, p.upper) == (1, 2) and p.stop is own
    (solve,) = [s for s in p.steps if s.get("model") == "published-r"]
    assert solve["probe"] == 1 and solve["outcome"] == "unknown"
