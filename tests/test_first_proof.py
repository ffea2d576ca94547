"""Issue 40, round 7 (``portfolio.BOTH_S_RULE``, ``solvers.first_proof``): with two threads the
published (r, s) slice runs least-first and as printed at once, one CP-SAT worker each; the
first proof stops the other; with one thread only the least-first configuration runs. What
each test asserts is which solves ran, which were stopped and what was proven: no timing."""

from __future__ import annotations

import pytest
from conftest import naive_max_s

from robustgraph.generators import erdos_renyi
from solvers import cpsat, first_proof, portfolio, search
from solvers.interrupt import StopSignal
from solvers.milp_model import Outcome
from solvers.types import Question, Request

SAFETY = 60.0
"""Seconds a fake solve waits for its stop before giving up: only a broken stop reaches it,
and the test then fails on the outcome, not on the time."""


def _proves(signal: StopSignal) -> Outcome:
    return Outcome("optimal", [1.0], 1.0, 0.0, "OPTIMAL")


def _waits_for_its_stop(signal: StopSignal) -> Outcome:
    stopped = signal.wait(SAFETY)
    return Outcome("unknown", None, None, 0.0, "STOPPED" if stopped else "NEVER STOPPED")


def _seen(call, signals: list[StopSignal]):
    """``call``, recording the signal it is given."""

    def wrapped(signal: StopSignal) -> Outcome:
        signals.append(signal)
        return call(signal)

    return wrapped


@pytest.mark.parametrize("winner", [0, 1])
def test_the_first_proof_stops_the_other_solve(winner):
    seen: list[StopSignal] = []
    calls = [_seen(_waits_for_its_stop, seen), _seen(_waits_for_its_stop, seen)]
    calls[winner] = _proves
    outs = first_proof.first_proof(calls)
    assert outs[winner].status == "optimal"
    assert outs[1 - winner].native == "STOPPED"
    assert len(seen) == 1 and seen[0].is_set()


def test_a_crash_is_invalid_and_stops_no_other_solve():
    seen: list[StopSignal] = []

    def crash(signal):
        raise RuntimeError("solver broke")

    outs = first_proof.first_proof([crash, _seen(_proves, seen)])
    assert outs[0].status == "invalid" and "solver broke" in outs[0].native
    assert outs[1].status == "optimal"
    assert not seen[0].is_set()  # the crash stopped nothing; the proof stops only the others


def test_an_outside_stop_stops_every_solve():
    outside = StopSignal()
    outside.set()  # another core has the answer
    outs = first_proof.first_proof([_waits_for_its_stop, _waits_for_its_stop], outside)
    assert [out.native for out in outs] == ["STOPPED", "STOPPED"]


def _progress(threads: int, r: int = 1, n: int = 9, p: float = 0.4, seed: int = 7321):
    """A Progress for s*_r of a small digraph (small enough for ``naive_max_s``)."""
    g = erdos_renyi(n, p, seed=seed, directed=True)
    request = Request(g, Question.max_s(r), time_limit=20.0, threads=threads)
    return search.Progress(request, "portfolio", "strong", "")


@pytest.mark.skipif(not cpsat.available(), reason="needs OR-Tools")
@pytest.mark.parametrize("threads", [1, 2, 3])
def test_which_configurations_run_for_how_many_threads(monkeypatch, threads):
    ran = []
    monkeypatch.setattr(
        search,
        "published_s_slice",
        lambda p, run, seconds, least=False, upper=None: ran.append(("one", least)),
    )
    monkeypatch.setattr(
        first_proof,
        "published_s_both",
        lambda p, run, seconds, window, delay, upper=None: ran.append(("both", window, delay)),
    )
    portfolio._published_s_slice(_progress(threads, r=2))
    both = ("both", portfolio.BOTH_S_WINDOW, portfolio.BOTH_S_DELAY)
    assert ran == ([("one", True)] if threads == 1 else [both])
    ran.clear()
    portfolio._published_s_slice(_progress(threads, r=1))  # BOTH_S_MIN_R: least-first alone
    assert ran == [("one", True)]


def _is_least_first(model) -> bool:
    return any(v.name.startswith("a_") for v in model.vars)  # milp_model.least_first's flags


@pytest.mark.skipif(not cpsat.available(), reason="needs OR-Tools")
@pytest.mark.parametrize("fast", ["least-first", "as-printed"])
def test_the_slice_keeps_the_winners_proof_and_stops_the_other(fast):
    p = _progress(2)
    solves = []

    def run(model, time_limit, threads, seed=0, *, stop, stop_at=None):
        config = "least-first" if _is_least_first(model) else "as-printed"
        solves.append((config, time_limit, threads))
        if config == fast:
            return cpsat.run(model, None, 1, seed)  # the real proof
        return _waits_for_its_stop(stop)

    first_proof.published_s_both(p, run, 10.0, 0.3)
    # one worker each; the printed configuration only for its window
    assert sorted(solves) == [("as-printed", 0.3, 1), ("least-first", 10.0, 1)]
    steps = {step["config"]: step for step in p.steps if "config" in step}
    assert steps[fast]["outcome"] == "optimal"
    other = "as-printed" if fast == "least-first" else "least-first"
    assert steps[other]["native"] == "STOPPED"
    assert p.steps[-1]["step"] == "published-s-both" and p.steps[-1]["proved_by"] == fast
    assert p.settled() and p.lower == naive_max_s(p.request.graph, 1)


@pytest.mark.skipif(not cpsat.available(), reason="needs OR-Tools")
@pytest.mark.parametrize(("n", "prob", "seed", "r"), [(9, 0.4, 7322, 1), (9, 0.6, 7323, 2)])
def test_both_real_configurations_prove_s_star(n, prob, seed, r):
    p = _progress(2, r, n, prob, seed)
    first_proof.published_s_both(p, cpsat.run, 30.0, 30.0)
    assert p.settled() and p.lower == naive_max_s(p.request.graph, r)
    assert {step.get("config") for step in p.steps} >= {"least-first", "as-printed"}
    assert p.steps[-1]["proved_by"] in ("least-first", "as-printed")


@pytest.mark.skipif(not cpsat.available(), reason="needs OR-Tools")
def test_a_printed_window_that_ends_unproven_leaves_least_first_running():
    p = _progress(2)
    signals = {}

    def run(model, time_limit, threads, seed=0, *, stop, stop_at=None):
        config = "least-first" if _is_least_first(model) else "as-printed"
        signals[config] = stop
        if config == "as-printed":  # its window over: CP-SAT's time limit, nothing proven
            return Outcome("unknown", None, None, time_limit, "UNKNOWN")
        return cpsat.run(model, None, 1, seed)

    first_proof.published_s_both(p, run, 10.0, 0.3)
    assert not signals["least-first"].is_set()  # never stopped: it proved s* on its own
    assert p.steps[-1]["proved_by"] == "least-first"
    assert p.settled() and p.lower == naive_max_s(p.request.graph, 1)


@pytest.mark.skipif(not cpsat.available(), reason="needs OR-Tools")
def test_a_least_first_proof_within_the_delay_leaves_the_printed_solve_unstarted():
    """``portfolio.BOTH_S_DELAY``: the printed solve waits on its stop for the delay (60 s here:
    a proof that does not stop it would make the test wait, then fail) and never starts when
    least-first proves s* first: no CPU time is spent on it."""
    p = _progress(2)
    solves = []

    def run(model, time_limit, threads, seed=0, *, stop, stop_at=None):
        solves.append("least-first" if _is_least_first(model) else "as-printed")
        return cpsat.run(model, None, 1, seed)

    first_proof.published_s_both(p, run, 10.0, 0.2, delay=60.0)
    assert solves == ["least-first"]
    steps = {step["config"]: step for step in p.steps if "config" in step}
    assert steps["as-printed"]["native"] == "NOT-STARTED"
    assert p.steps[-1]["proved_by"] == "least-first" and p.steps[-1]["delay"] == 60.0
    assert p.settled() and p.lower == naive_max_s(p.request.graph, 1)


@pytest.mark.skipif(not cpsat.available(), reason="needs OR-Tools")
def test_after_the_delay_the_printed_solve_gets_its_window_and_can_win():
    p = _progress(2)
    solves = []

    def run(model, time_limit, threads, seed=0, *, stop, stop_at=None):
        config = "least-first" if _is_least_first(model) else "as-printed"
        solves.append((config, time_limit))
        if config == "as-printed":
            return cpsat.run(model, None, 1, seed)  # the real proof
        return _waits_for_its_stop(stop)

    first_proof.published_s_both(p, run, 10.0, 0.2, delay=0.01)
    assert sorted(solves) == [("as-printed", 0.2), ("least-first", 10.0)]
    assert p.steps[-1]["proved_by"] == "as-printed"
    assert p.settled() and p.lower == naive_max_s(p.request.graph, 1)


def test_a_slice_shorter_than_the_delay_runs_least_first_alone():
    p = _progress(2)
    solves = []

    def run(model, time_limit, threads, seed=0, *, stop, stop_at=None):
        solves.append(time_limit)
        return Outcome("unknown", None, None, time_limit, "UNKNOWN")

    first_proof.published_s_both(p, run, 0.05, 0.2, delay=0.1)
    assert solves == [0.05]
