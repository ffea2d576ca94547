"""The published model's lane on the second core (solvers/lane.py): exact against the
exhaustive reference, its proof halts the first core, and its child and thread end with it."""

import threading
import time
from dataclasses import replace
from unittest.mock import patch

import networkx as nx
import pytest
from conftest import in_regular_30, naive_max_r, topologies
from hypothesis import given, settings

from robustgraph.topology import Topology
from solvers import cores, exhaustive, lane, portfolio, search
from solvers.interrupt import StopSignal
from solvers.search import Progress
from solvers.types import Question, Request, Status
from solvers.witness import refutes_r

pytestmark = pytest.mark.skipif(not lane.available(), reason="needs ortools")


def _lane_threads() -> list[threading.Thread]:
    return [th for th in threading.enumerate() if th.name == "published-lane"]


def _exact_and_checked(t: Topology, res, expected: int) -> None:
    assert res.status == Status.EXACT
    assert res.value == expected
    if res.witness is not None:
        assert refutes_r(t.in_neighbors, res.witness.s1, res.witness.s2, res.upper + 1)


@settings(max_examples=40)
@given(topologies(max_n=9).filter(lambda g: g.n >= 2))
def test_child_outcome_matches_exhaustive(t):
    """What the child computes (run here, in this process), absorbed as the portfolio does."""
    request = Request(t, Question.max_r())
    payload = {"in_neighbors": [sorted(s) for s in t.in_neighbors], "time_limit": None, "seed": 0}
    fake = lane.PublishedLane(request, StopSignal())
    fake.outcome = lane._outcome(lane.solve_payload(payload))
    p = Progress(request, "portfolio", "strong", "test")
    fake.absorb(p)
    _exact_and_checked(t, p.result(), exhaustive.solve(request).value)
    assert p.steps[-1]["step"] == "published-lane" and p.steps[-1]["outcome"] == "optimal"


@settings(max_examples=12)
@given(t=topologies(max_n=8).filter(lambda g: g.n >= 2))
def test_portfolio_with_lane_matches_exhaustive(t):
    """With the subset DP's range moved to 1 node, every r question starts the lane (a child
    process): the answer is exact and right whichever side proves it, and nothing outlives it."""
    before = set(_lane_threads())
    for q in (Question.max_r(), Question.is_r_robust(2)):
        with patch.object(portfolio, "EXHAUSTIVE_N", 1):
            res = portfolio.solve(Request(t, q, threads=2))
        expected = naive_max_r(t)
        assert res.status == Status.EXACT
        assert res.lower <= expected <= res.upper
        if q.target is None:
            _exact_and_checked(t, res, expected)
        else:
            assert res.holds == (expected >= 2)
        assert res.params["threads"] == 2
        assert any(s.get("step") == "published-lane" for s in res.params["steps"]) or (
            res.params["steps"][0].get("step") == "cores"  # the core search answered first
        )
    assert set(_lane_threads()) <= before


def _idle(p, found, lane, quick_done=False, sample=None):
    """A first core that proves nothing: it waits until the lane halts it (or time is up)."""
    while not p.out_of_time():
        time.sleep(0.01)
    return None


@settings(max_examples=5)
@given(t=topologies(max_n=8).filter(lambda g: g.n >= 2))
def test_the_child_alone_settles_exactly(t):
    """The real child process, with a first core that never answers: the lane's proof, checked
    here, settles the question, halts the first core, and the child and its thread are gone."""
    with (
        patch.object(portfolio, "EXHAUSTIVE_N", 1),
        patch.object(portfolio, "_cores", lambda request, halt=None: None),
        patch.object(portfolio, "_gap", _idle),
        # on a busy machine LANE_BUSY_RULE would drop the lane after 0.5 s, and this first core
        # runs nothing in its place (round 9: timed out at load 8); tests/test_lane_busy.py
        patch.object(portfolio, "_drop_when_busy", lambda lane: None),
    ):
        res = portfolio.solve(Request(t, Question.max_r(), time_limit=60, threads=2))
    _exact_and_checked(t, res, naive_max_r(t))
    assert res.params["steps"][-1]["outcome"] == "optimal"
    assert not _lane_threads()


def _regular60() -> Topology:
    """Issue 32's graph: random 8-regular on 60 nodes, networkx seed 8105 (r* = 4)."""
    return Topology.from_networkx(nx.random_regular_graph(8, 60, seed=8105))


def test_lane_proof_halts_the_first_core(monkeypatch):
    """A lane that has already won: the first core stops at its first check (no model solve),
    and the result is exact from the lane's checked pair and dual bound."""
    t = Topology.from_networkx(nx.complete_bipartite_graph(5, 25))
    request = Request(t, Question.max_r(), threads=2)
    payload = {"in_neighbors": [sorted(s) for s in t.in_neighbors], "time_limit": None, "seed": 0}

    class Won(lane.PublishedLane):
        def start(self):
            self.outcome = lane._outcome(lane.solve_payload(payload))
            self._won.set()

    monkeypatch.setattr(portfolio, "_cores", lambda request, halt=None: None)
    monkeypatch.setattr(portfolio, "_start_lane", lambda r: _started(Won(r, StopSignal())))
    res = portfolio.solve(request)
    steps = res.params["steps"]
    _exact_and_checked(t, res, cores.solve(replace(request, threads=1)).value)
    assert not any("model" in s for s in steps)  # no model was solved on the first core
    assert steps[-1]["step"] == "published-lane" and steps[-1]["outcome"] == "optimal"


def _started(fake: lane.PublishedLane) -> lane.PublishedLane:
    fake.start()
    return fake


def test_a_lane_that_failed_proves_nothing(monkeypatch):
    """A lane whose child died (no outcome) leaves the first core's proof alone."""

    class Died(lane.PublishedLane):
        def start(self):
            self.outcome = None

    t = Topology.from_networkx(nx.cycle_graph(30))
    monkeypatch.setattr(portfolio, "_start_lane", lambda r: _started(Died(r, StopSignal())))
    res = portfolio.solve(Request(t, Question.max_r(), threads=2))
    _exact_and_checked(t, res, 1)


def test_an_optimal_answer_wins_at_once_but_garbage_proves_nothing():
    """The waiting thread flags a win from the child's status alone (decoding imports numpy,
    which a busy first core slowed to 0.3 s); a child that says "optimal" and nothing else
    still proves nothing: stop() decodes no outcome and absorb keeps no bound."""
    import subprocess
    import sys

    class Liar(lane.PublishedLane):
        def start(self):
            code = "import sys; sys.stdin.read(); print('{\"status\": \"optimal\"}')"
            pipe = subprocess.PIPE
            self._proc = subprocess.Popen([sys.executable, "-c", code], stdin=pipe, stdout=pipe)
            self._thread = threading.Thread(target=self._wait_child, args=(b"{}",))
            self._thread.start()

    t = Topology.from_networkx(nx.cycle_graph(30))
    liar = _started(Liar(Request(t, Question.max_r(), threads=2), StopSignal()))
    assert liar.wait(60) and liar.won()
    assert liar.stop() is None
    p = Progress(liar.request, "portfolio", "strong", "test")
    liar.absorb(p)
    assert (p.lower, p.upper, p.witness) == (0, 15, None)


def test_large_regular_graphs_of_high_degree_skip_the_core_search_but_keep_the_lane(monkeypatch):
    """A random 8-regular graph on 60 nodes gets no core search (it settled none of them) but
    the lane, started after the quick bounds and told them (the proven upper bound, its pair as
    the hint), and beside it no published slice of the lane's configuration (issue 40: one
    model per core; round 6: only the model as printed, ``portfolio.BESIDE_LANE_RULE``); a
    4-regular one and a 45-node 8-regular one keep the core search."""
    eight = Topology.from_networkx(nx.random_regular_graph(8, 60, seed=1002))
    four = Topology.from_networkx(nx.random_regular_graph(4, 60, seed=1002))
    small = Topology.from_networkx(nx.random_regular_graph(8, 45, seed=1002))
    assert portfolio._symmetric(Request(eight, Question.max_r()))
    assert not portfolio._symmetric(Request(four, Question.max_r()))
    assert not portfolio._symmetric(Request(small, Question.max_r()))
    started = []
    real = portfolio._start_lane

    def recorded(request, upper=None, hint=None, **kw):
        started.append((upper, hint))
        return real(request, upper, hint, **kw)

    monkeypatch.setattr(portfolio, "_start_lane", recorded)
    slices = []
    real_slice = search.published_slice

    def published_slice(p, run, seconds, least=False, as_printed=False):
        slices.append(as_printed)
        return real_slice(p, run, seconds, least=least, as_printed=as_printed)

    monkeypatch.setattr(search, "published_slice", published_slice)
    res = portfolio.solve(Request(eight, Question.max_r(), threads=2))
    _exact_and_checked(eight, res, 3)
    ((upper, hint),) = started
    assert upper is not None and upper >= 3
    assert refutes_r(eight.in_neighbors, hint.s1, hint.s2, upper + 1)
    steps = res.params["steps"]
    assert not any(s.get("step") == "cores" for s in steps)
    assert all(slices)  # beside the lane, only the model as printed


def test_stop_ends_the_child_and_its_thread():
    """Stopped at once, mid-import or mid-solve: the child is gone, the thread has ended, and
    there is no outcome to absorb."""
    t = _regular60()
    fake = lane.PublishedLane(Request(t, Question.max_r(), threads=2), StopSignal())
    fake.start()
    proc = fake._proc
    assert fake.stop() is None
    assert proc.poll() is not None
    assert fake._thread is not None and not fake._thread.is_alive()
    assert not fake.won()
    p = Progress(fake.request, "portfolio", "strong", "test")
    fake.absorb(p)
    assert (p.lower, p.upper, p.witness) == (0, 30, None)  # nothing proven


def test_lane_due_only_with_two_threads_for_r_above_the_subset_dp():
    t = _regular60()
    assert portfolio._lane_due(Request(t, Question.max_r(), threads=2))
    assert portfolio._lane_due(Request(t, Question.is_r_robust(3), threads=2))
    assert not portfolio._lane_due(Request(t, Question.max_r(), threads=1))
    assert not portfolio._lane_due(Request(t, Question.max_s(2), threads=2))
    small = Topology.from_networkx(nx.cycle_graph(portfolio.EXHAUSTIVE_N))
    assert not portfolio._lane_due(Request(small, Question.max_r(), threads=2))


def test_threads_default_is_two_or_the_cores(monkeypatch):
    """``--threads`` not given: 2 (the lane's second core), or 1 on a one-core machine; given,
    kept (capped at the cores)."""
    import click
    from click.testing import CliRunner

    from robustgraph import limits
    from robustgraph.cli.common import threads_option

    @click.command()
    @threads_option
    def show(threads):
        click.echo(threads)

    for cores_here, expected in ((1, "1"), (2, "2"), (8, "2")):
        monkeypatch.setattr(limits, "cores", lambda n=cores_here: n)
        assert CliRunner().invoke(show, []).output.strip() == expected
    assert CliRunner().invoke(show, ["--threads", "1"]).output.strip() == "1"
    assert CliRunner().invoke(show, ["--threads", "3"]).output.strip() == "3"


def test_a_lane_whose_parent_is_killed_ends(tmp_path):
    """A parent killed with SIGKILL cannot stop its lane: the child notices it is orphaned and
    exits, instead of solving a hard graph (ER(60, 0.5), open for every engine at 60 s) with no
    time limit for as long as CP-SAT takes."""
    import json
    import os
    import signal
    import subprocess
    import sys
    from pathlib import Path

    from robustgraph.generators import erdos_renyi

    hard = erdos_renyi(60, 0.5, seed=0)
    payload = {"in_neighbors": [sorted(s) for s in hard.in_neighbors], "time_limit": None,
               "seed": 0}
    (tmp_path / "payload.json").write_text(json.dumps(payload))
    root = str(Path(lane.__file__).resolve().parent.parent)
    parent_code = (
        "import subprocess, sys, time\n"
        "import os\n"
        f"child = subprocess.Popen([sys.executable, '-m', 'solvers.lane', str(os.getpid())], "
        f"stdin=open({str(tmp_path / 'payload.json')!r}), stdout=subprocess.DEVNULL)\n"
        "print(child.pid, flush=True)\n"
        "time.sleep(600)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get(
        "PYTHONPATH")]))}
    parent = subprocess.Popen([sys.executable, "-c", parent_code], stdout=subprocess.PIPE,
                              env=env, text=True)
    child = int(parent.stdout.readline())
    try:
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
        for _ in range(600):  # up to 60 s; the child checks every 0.25 s
            try:
                os.kill(child, 0)
            except ProcessLookupError:
                break
            if Path(f"/proc/{child}/stat").exists() and Path(
                    f"/proc/{child}/stat").read_text().split()[2] == "Z":
                break  # ended; a zombie until its new parent reaps it
            time.sleep(0.1)
        else:
            pytest.fail("the orphaned lane child was still running after 60 s")
    finally:
        try:
            os.kill(child, signal.SIGKILL)
        except ProcessLookupError:
            pass


class _Waiting:
    """A lane that never answers: records how long the first core waited for it."""

    def __init__(self) -> None:
        self.waited: list = []

    def wait(self, timeout=None) -> bool:
        self.waited.append(timeout)
        return False

    def won(self) -> bool:
        return False

    def dropped(self) -> bool:
        return False


@pytest.mark.parametrize("directed", [False, True])
def test_one_published_model_at_a_time(monkeypatch, directed):
    """Issue 40, one model per core: with the lane running the published model, the first
    core runs no published slice of its own (it waits for the lane instead); without it, a
    graph whose in-degrees all equal (regular, or a k-in digraph) gets the CP-SAT slice alone,
    for REGULAR_ALONE_SHARE of the time left (the lane's wait: REGULAR_SHARE), and any other
    graph both slices."""
    from robustgraph.generators import erdos_renyi
    from solvers import cpsat, highs, search

    calls = []
    def published_slice(p, run, seconds, least=False, as_printed=False):
        calls.append((run, seconds))

    monkeypatch.setattr(search, "published_slice", published_slice)
    same = in_regular_30(directed, 4)
    other = erdos_renyi(30, 0.3, seed=3, directed=directed)
    assert portfolio._in_regular(same) and not portfolio._in_regular(other)
    for t in (same, other):
        waiting = _Waiting()
        p = Progress(Request(t, Question.max_r(), time_limit=60), "portfolio", "strong", "t")
        portfolio._published_slices(p, waiting)
        assert calls == [] and len(waiting.waited) == 1
        share = portfolio.REGULAR_SHARE if t is same else 0.0  # as long as its slice
        assert waiting.waited[0] == pytest.approx(max(share * 60, portfolio.PUBLISHED_SLICE), 0.05)
    p = Progress(Request(same, Question.max_r(), time_limit=60), "portfolio", "strong", "t")
    portfolio._published_slices(p, None)
    ((run, seconds),) = calls
    alone = portfolio.REGULAR_ALONE_SHARE * 60  # no lane: the slice takes most of the time
    assert run is cpsat.run and seconds == pytest.approx(alone, rel=0.05)
    calls.clear()
    p = Progress(Request(other, Question.max_r(), time_limit=60), "portfolio", "strong", "t")
    portfolio._published_slices(p, None)
    assert [run for run, _ in calls] == [highs.run, cpsat.run]


def test_a_k_in_digraph_of_high_degree_skips_the_core_search():
    """``generate k-in --n 60 --k 10``: the core search proved nothing there in 6 s of CPU,
    the published model on CP-SAT proves r* in 2-4 s (issue 40): no core search, and the
    lane, if any, after the quick bounds."""
    from robustgraph.generators import random_k_in

    t = random_k_in(60, 10, seed=0)
    assert t.directed and portfolio._in_regular(t)
    assert portfolio._symmetric(Request(t, Question.max_r()))
    assert portfolio._cores_budget(Request(t, Question.max_r())) is None
