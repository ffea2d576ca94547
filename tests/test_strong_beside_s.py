"""Issue 40, round 16 (``portfolio.STRONG_BESIDE_S_RULE``, ``first_proof.published_s_both``'s
``then``): with two threads and a time limit the least-first published (r, s) solve keeps all the
time left, and the strong (r, s) loop runs beside it on the second core once the slice's share has
passed without a proof; the first proof stops the other. What each test asserts is which solves
ran, with what limit, what was stopped and what was proven: no timing."""

from __future__ import annotations

import pytest
from conftest import naive_max_s, topologies
from hypothesis import given
from hypothesis import strategies as st

from robustgraph.generators import erdos_renyi
from solvers import cpsat, first_proof, portfolio, search
from solvers.interrupt import StopSignal
from solvers.milp_model import Outcome
from solvers.types import Question, Request

pytestmark = pytest.mark.skipif(not cpsat.available(), reason="needs OR-Tools")

SAFETY = 60.0
"""Seconds a fake solve waits for its stop before giving up: only a broken stop reaches it."""


def _progress(n=9, prob=0.6, seed=7661, r=2, time_limit: float | None = 20.0, threads=2):
    g = erdos_renyi(n, prob, seed=seed, directed=True)
    request = Request(g, Question.max_s(r), time_limit=time_limit, threads=threads)
    return search.Progress(request, "portfolio", "strong", "")


def _is_least_first(model) -> bool:
    return any(v.name.startswith("a_") for v in model.vars)  # milp_model.least_first's flags


def _waits(stop: StopSignal) -> Outcome:
    stopped = stop.wait(SAFETY)
    return Outcome("unknown", None, None, 0.0, "STOPPED" if stopped else "NEVER STOPPED")


def test_then_runs_after_the_share_and_its_proof_stops_least_first():
    p = _progress()
    limits, called = {}, []

    def run(model, time_limit, threads, seed=0, *, stop, stop_at=None):
        config = "least-first" if _is_least_first(model) else "as-printed"
        limits[config] = time_limit
        if config == "least-first":
            return _waits(stop)
        return Outcome("unknown", None, None, 0.0, "TIME")  # the printed window ends unproven

    def then(signal: StopSignal) -> bool:
        called.append(signal.is_set())
        p.prove_lower(p.upper)  # the strong loop's proof
        return True

    first_proof.published_s_both(p, run, 0.01, 0.3, 0.0, then)
    assert called == [False]  # once, not stopped
    assert limits["least-first"] > 0.01  # all the time left, not the share
    steps = {step["config"]: step for step in p.steps if "config" in step}
    assert steps["least-first"]["native"] == "STOPPED"
    assert steps["as-printed"]["native"] == "TIME"  # the printed solve's own outcome is kept
    assert p.steps[-1]["proved_by"] == "then"


def test_a_least_first_proof_in_the_share_never_calls_then():
    p = _progress()
    called = []

    def run(model, time_limit, threads, seed=0, *, stop, stop_at=None):
        if _is_least_first(model):
            return cpsat.run(model, None, 1, seed, stop_at=stop_at)  # the real proof
        return _waits(stop)

    first_proof.published_s_both(p, run, SAFETY, 0.3, 0.0, lambda signal: called.append(1))
    assert not called
    assert p.settled() and p.lower == naive_max_s(p.request.graph, 2)
    assert p.steps[-1]["proved_by"] == "least-first"


def test_a_raised_signal_stops_the_strong_loop_before_any_probe():
    p = _progress()
    signal = StopSignal()
    signal.set()  # least-first proved the answer already
    ran = []
    assert not portfolio._strong_s_beside(p, lambda *a, **kw: ran.append(a), signal)
    assert not ran
    assert p.stop is None and p.halt is None  # restored


@pytest.mark.parametrize(
    ("r", "time_limit", "threads", "then"),
    [
        (2, 20.0, 2, True),
        (2, None, 2, False),  # no limit: slice and race as before
        (1, 20.0, 2, None),  # BOTH_S_MIN_R: least-first alone
        (2, 20.0, 1, None),  # one thread: least-first alone
    ],
)
def test_when_the_strong_loop_goes_beside(monkeypatch, r, time_limit, threads, then):
    ran = []
    monkeypatch.setattr(
        search, "published_s_slice", lambda p, run, seconds, least=False: ran.append(None)
    )
    monkeypatch.setattr(
        first_proof,
        "published_s_both",
        lambda p, run, seconds, window, delay, beside: ran.append(beside is not None),
    )
    portfolio._published_s_slice(_progress(r=r, time_limit=time_limit, threads=threads))
    assert ran == [then]


@given(topologies(max_n=7, directed=True), st.integers(2, 3))
def test_the_strong_loop_beside_keeps_s_star(t, r):
    if t.n < 2:
        return
    p = search.Progress(
        Request(t, Question.max_s(r), time_limit=20.0, threads=2), "portfolio", "strong", ""
    )
    if portfolio._strong_s_beside(p, cpsat.run, StopSignal()):
        assert p.lower == p.upper == naive_max_s(t, r)
    else:
        assert p.lower <= naive_max_s(t, r) <= p.upper
