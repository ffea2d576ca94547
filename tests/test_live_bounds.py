"""Live proven bounds (``Request.listener``, ``solvers.search.Progress.tell``): what a listener
hears while a solve runs, in one thread and in a race, and that it never changes a solve."""

import threading

import networkx as nx
import pytest

from robustgraph.cli.robustness import _Ticker
from robustgraph.topology import Topology
from solvers import bounds, cpsat, race, registry
from solvers.search import Progress, step_text
from solvers.types import Question, Request, Result

needs_cpsat = pytest.mark.skipif(not cpsat.available(), reason="needs ortools")


class _Heard:
    """A listener that records every call with the calling thread's name."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int, str, str]] = []

    def __call__(self, lower: int, upper: int, text: str) -> None:
        self.calls.append((lower, upper, text, threading.current_thread().name))


def _assert_monotone_to(calls: list[tuple[int, int, str, str]], lower: int, upper: int) -> None:
    lowers = [c[0] for c in calls]
    uppers = [c[1] for c in calls]
    assert lowers == sorted(lowers), calls
    assert uppers == sorted(uppers, reverse=True), calls
    assert all(lo <= up for lo, up in zip(lowers, uppers, strict=True)), calls
    assert (calls[-1][0], calls[-1][1]) == (lower, upper), calls


def _er(n: int, seed: int) -> Topology:
    return Topology.from_networkx(nx.gnp_random_graph(n, 0.5, seed=seed))


@needs_cpsat
def test_cpsat_listener_hears_monotone_bounds_ending_at_the_result():
    heard = _Heard()
    res = registry.solve(Request(_er(30, 0), Question.max_r(), threads=1, listener=heard), "cpsat")
    _assert_monotone_to(heard.calls, res.lower, res.upper)
    texts = [c[2] for c in heard.calls]
    assert texts[-1] == "done"
    assert any(t.startswith("probing ") for t in texts), texts  # a probe's start is told
    assert any(t.startswith("probe ") and "probing" not in t for t in texts), texts  # its outcome
    assert len({(c[0], c[1]) for c in heard.calls}) >= 3  # bounds moved while it ran


@pytest.mark.skipif(len(race.racers()) < 2, reason="needs ortools and highspy")
def test_race_listener_is_told_from_racer_threads_monotone_to_the_result():
    t = _er(20, 3)
    heard = _Heard()
    p = Progress(Request(t, Question.max_r(), None, 2, listener=heard), "portfolio", "strong", "")
    p.offer(bounds.halves_pair(t.in_neighbors)[1])  # only a weak upper bound: the race has work
    assert not p.settled()
    race.race(p, race.racers())
    res = p.result()
    _assert_monotone_to(heard.calls, res.lower, res.upper)
    assert res.lower == res.upper
    racer_calls = [c for c in heard.calls if c[3].startswith("race-")]
    assert racer_calls, heard.calls
    assert all(c[2].endswith(("(cpsat)", "(highs)")) for c in racer_calls), racer_calls
    assert any(c[2].startswith("probing ") for c in racer_calls), racer_calls  # a start is told


def _comparable(res: Result) -> tuple:
    timeless = [{k: v for k, v in s.items() if k != "seconds"} for s in res.params["steps"]]
    return res.status, res.lower, res.upper, res.witness, timeless


@needs_cpsat
def test_a_raising_listener_is_dropped_and_changes_nothing():
    t = _er(24, 1)
    calls = []

    def broken(lower: int, upper: int, text: str) -> None:
        calls.append(text)
        raise RuntimeError("display crashed")

    plain = registry.solve(Request(t, Question.max_r()), "cpsat")
    told = registry.solve(Request(t, Question.max_r(), listener=broken), "cpsat")
    assert _comparable(told) == _comparable(plain)
    assert len(calls) == 1  # dropped after its first exception


def test_request_equality_hash_and_repr_ignore_the_listener():
    t = _er(6, 0)
    bare = Request(t, Question.max_r(), 5.0, 1, "strong", 3)
    heard = Request(t, Question.max_r(), 5.0, 1, "strong", 3, listener=_Heard())
    assert bare == heard and hash(bare) == hash(heard)
    assert repr(bare) == repr(heard) and "listener" not in repr(heard)
    assert bare != Request(t, Question.max_r(), 5.0, 1, "strong", 4)


def test_step_text_names_the_probe_outcome_and_racer():
    assert step_text({"model": "strong-r7", "probe": 7, "outcome": "unknown"}) == "probe 7 unknown"
    racer = {"engine": "cpsat", "model": "published-r", "probe": None, "outcome": "feasible"}
    assert step_text(racer) == "published-r feasible (cpsat)"
    assert step_text({"step": "spectral", "lower": 4, "upper": 8}) == "after spectral"


def test_ticker_listener_formats_the_status_line_and_is_off_when_silent():
    assert _Ticker(enabled=False).listener("r*", "portfolio") is None  # off a terminal
    ticker = _Ticker(enabled=True)
    ticker.enabled = True  # as on a terminal (pytest's stderr is none)
    show = ticker.listener("r*", "portfolio")
    show(12, 15, "probing 15")
    assert ticker.text == "r* in 12..15, probing 15 with portfolio"
    show(13, 13, "[done]")
    assert ticker.text == "r* = 13, \\[done] with portfolio"  # rich markup escaped


@needs_cpsat
def test_certify_passes_the_listener_to_every_engine_run():
    from robustgraph.certificate.certifier import certify
    from robustgraph.certificate.claims import Claim

    heard = _Heard()
    cert = certify(_er(24, 1), Claim.r_robust(3), engines="cpsat", listener=heard)
    assert cert.verdict in ("proven", "refuted")
    assert heard.calls and heard.calls[-1][2] == "done"


def test_certify_cli_prints_a_line_per_new_bound(capsys):
    from robustgraph.cli.certify import _LiveBounds

    live = _LiveBounds()
    for call in [
        (1, 12, "after degree"),
        (1, 12, "probing 12"),
        (4, 12, "after spectral"),
        (12, 12, "done"),
    ]:
        live(*call)
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        "robustgraph: certify:   bounds 1..12 (after degree)",
        "robustgraph: certify:   bounds 4..12 (after spectral)",
    ]


@needs_cpsat
def test_tolerance_questions_get_the_listener_on_question_returns():
    from robustgraph.robustness import tolerances

    heard = _Heard()
    asked = []

    def on_question(q: Question):
        asked.append(q)
        return heard

    tolerances(_er(24, 2), engine="cpsat", on_question=on_question)
    assert asked and heard.calls  # every question was announced, and its solve was heard
    assert sum(c[2] == "done" for c in heard.calls) == len(asked)
