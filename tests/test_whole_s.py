"""Issue 40, round 16 (``portfolio.WHOLE_S_RULE``): under a time limit the published (r, s) slice
of an s*_R question of R >= ``WHOLE_S_MIN_R`` gets all the time left, at R = 1 the half
(``PUBLISHED_S_SHARE``), without a limit ``PUBLISHED_S_SLICE`` seconds, whatever the threads.
Fake engines record the seconds each is given; the time left is fixed, so nothing is timed."""

from __future__ import annotations

import pytest

from robustgraph.generators import erdos_renyi
from solvers import cpsat, first_proof, portfolio, search
from solvers.types import Question, Request

LEFT = 12.0
"""The time left that every Progress here reports."""


def _given(monkeypatch, r: int, threads: int, time_limit: float | None) -> float:
    """The seconds ``portfolio._published_s_slice`` hands its configuration(s) for s*_r of a
    small digraph, the time left fixed at :data:`LEFT` under a limit."""
    given = []
    monkeypatch.setattr(
        search, "published_s_slice", lambda p, run, seconds, least=False: given.append(seconds)
    )
    monkeypatch.setattr(
        first_proof,
        "published_s_both",
        lambda p, run, seconds, window, delay: given.append(seconds),
    )
    g = erdos_renyi(9, 0.4, seed=7661, directed=True)
    request = Request(g, Question.max_s(r), time_limit=time_limit, threads=threads)
    p = search.Progress(request, "portfolio", "strong", "")
    if time_limit is not None:
        p.remaining = lambda: LEFT
    portfolio._published_s_slice(p)
    assert len(given) == 1
    return given[0]


@pytest.mark.skipif(not cpsat.available(), reason="needs OR-Tools")
@pytest.mark.parametrize("threads", [1, 2])
def test_r_of_at_least_two_gets_all_the_time_left(monkeypatch, threads):
    for r in (portfolio.WHOLE_S_MIN_R, portfolio.WHOLE_S_MIN_R + 3):
        assert _given(monkeypatch, r, threads, 20.0) == LEFT


@pytest.mark.skipif(not cpsat.available(), reason="needs OR-Tools")
@pytest.mark.parametrize("threads", [1, 2])
def test_r_of_one_keeps_the_share(monkeypatch, threads):
    assert portfolio.WHOLE_S_MIN_R > 1
    assert _given(monkeypatch, 1, threads, 20.0) == portfolio.PUBLISHED_S_SHARE * LEFT


@pytest.mark.skipif(not cpsat.available(), reason="needs OR-Tools")
@pytest.mark.parametrize("r", [1, 2])
def test_without_a_limit_the_slice_is_unchanged(monkeypatch, r):
    assert _given(monkeypatch, r, 2, None) == portfolio.PUBLISHED_S_SLICE


@pytest.mark.skipif(not cpsat.available(), reason="needs OR-Tools")
def test_no_strong_race_follows_a_slice_that_spent_its_seconds(monkeypatch):
    """Through ``portfolio.solve``: a slice that spends all the seconds it is given ends the (r, s)
    question bounded, with no strong (r, s) solve after it (with ``PUBLISHED_S_SHARE`` of the time
    the race had the rest). The fake slice spends its seconds by moving the Progress's start
    back, not by waiting."""
    from solvers import race

    def used_it_all(p, run, seconds, window=0.0, delay=0.0, least=False):
        p.start -= seconds + 1e-3  # its seconds have passed
        p.note("fake-slice")

    monkeypatch.setattr(search, "published_s_slice", used_it_all)
    monkeypatch.setattr(first_proof, "published_s_both", used_it_all)
    raced = []
    monkeypatch.setattr(race, "race", lambda p, racers: raced.append(racers))
    monkeypatch.setattr(search, "strong_s_loop", lambda p, run: raced.append(run))
    g = erdos_renyi(30, 0.5, seed=7662)
    request = Request(g, Question.max_s(3), time_limit=30.0, threads=2, known_lower=1)
    res = portfolio.solve(request)
    steps = [step.get("step") for step in res.params["steps"]]
    assert "fake-slice" in steps  # the graph reaches the slice (the heuristic leaves a gap)
    assert raced == []
    assert res.lower < res.upper  # bounded: the time went to the slice
