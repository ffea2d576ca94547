"""Issue 40, round 15 (i46a): the default-level retry (``search.DEFAULT_LEVEL_RETRY_RULE``, in
the one-thread loop and in the race) and CP-SAT's local search before the long witness search
(``portfolio.LS_WITNESS_RULE``). Which solve runs, at which level, with which budget, on fake
engines and a fake clock (no timing decides a pass); and, with each rule forced by an engine
that stalls on its first strong probes, answers that agree with the exhaustive engine on random
small graphs and digraphs (hypothesis, the repo's profiles)."""

from __future__ import annotations

import time

import networkx as nx
import pytest
from conftest import topologies
from hypothesis import HealthCheck, given, settings

from robustgraph.topology import Topology
from solvers import cpsat, exhaustive, milp_model, portfolio, race, search
from solvers.milp_model import Outcome
from solvers.search import Progress
from solvers.types import Question, Request, Status, Witness
from solvers.witness import refutes_r

pytestmark = pytest.mark.skipif(not cpsat.available(), reason="needs ortools")

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


def _graph() -> Topology:
    return Topology.from_networkx(nx.complete_graph(9))  # r* = 5


def _start(t: Topology, threads: int = 1) -> tuple[Progress, int]:
    """A Progress at [r* - 2, r*] with the exhaustive witness held."""
    request = Request(t, Question.max_r(), time_limit=LIMIT, threads=threads)
    truth = exhaustive.solve(request)
    p = Progress(request, "portfolio", "strong", "test")
    p.offer(truth.witness)
    p.prove_lower(truth.value - 2)
    return p, truth.value


def _stalls_at_top(clock: _Clock, truth: int, decision: str, calls: list):
    """Strong probes below ``truth`` are proved at once, the probe at ``truth`` spends its limit
    and answers unknown; the default-level decision answers ``decision`` (spending half its
    limit). ``calls``: (model name, probe or None, limit, tuning)."""

    def run(model, time_limit, threads, seed, *, stop=None):
        cpsat_tuning = dict(model.tuning.get("cpsat", {}))
        if model.name == "published-r-decision":
            t = [v.name for v in model.vars].index("t")
            row = next(c for c in model.constraints if c.terms == ((t, 1),))
            calls.append((model.name, int(row.ub) + 1, time_limit, cpsat_tuning))
            clock.now += time_limit / 2
            return Outcome(decision, None, None, time_limit / 2, "fake decision")
        probe = int(model.name.removeprefix("strong-r"))
        calls.append((model.name, probe, time_limit, cpsat_tuning))
        if probe < truth:
            return Outcome("infeasible", None, None, 0.0, "fake: proved")
        clock.now += time_limit
        return Outcome("unknown", None, None, time_limit, "fake: stalled")

    return run


def test_the_rule_retries_only_a_level_2_strong_r_probe_on_a_sparse_graph():
    p, _ = _start(_graph())  # K9: mean in-degree 8
    nb = p.request.graph.in_neighbors
    assert search.retries_at_default(p, milp_model.strong_r(nb, 4))
    assert not search.retries_at_default(p, milp_model.published_r(nb))
    assert not search.retries_at_default(p, milp_model.strong_s(nb, 2, 3))
    untuned = milp_model.strong_r(nb, 4)
    untuned.tuning = {}
    assert not search.retries_at_default(p, untuned)
    at, over = (int(search.RETRY_MAX_DEGREE) + k for k in (1, 2))  # K_at: mean in-degree at max
    for n, retried in ((at, True), (over, False)):
        dense, _ = _start(Topology.from_networkx(nx.complete_graph(n)))
        model = milp_model.strong_r(dense.request.graph.in_neighbors, 4)
        assert search.retries_at_default(dense, model) is retried


def test_the_default_level_model_is_the_printed_decision_hinted_with_the_held_pair():
    p, truth = _start(_graph())
    model = search.default_level_model(p, truth)
    t = [v.name for v in model.vars].index("t")
    assert model.objective == () and model.tuning == {}  # CP-SAT's default linearization
    assert any(c.terms == ((t, 1),) and c.ub == truth - 1 for c in model.constraints)
    b1, b2 = model.sets
    hinted = (
        {i for i in range(9) if model.hint.get(b1[i])},
        {i for i in range(9) if model.hint.get(b2[i])},
    )
    assert hinted == (set(p.witness.s1), set(p.witness.s2))


@pytest.mark.parametrize("decision", ["infeasible", "unknown"])
def test_a_stalled_top_probe_is_retried_at_the_default_level_before_the_climb(
    monkeypatch, clock, decision
):
    """The strong probe at the upper bound stalls (its first second, the long search, then its
    TOP_SHARE); the next solve is the printed decision at the same probe with RETRY_SHARE of
    the time left, at CP-SAT's default level. Infeasible settles r* there; unknown leaves the
    witness search and the climb their turn, as before."""
    improved = []

    def no_witness(p, seconds, witness=None):
        improved.append(seconds)
        clock.now += seconds

    monkeypatch.setattr(search, "_improve_r", no_witness)
    p, truth = _start(_graph())
    calls: list = []
    search.strong_r_loop(p, _stalls_at_top(clock, truth, decision, calls), retry=True)
    names = [c[0] for c in calls]
    at = names.index("published-r-decision")
    assert names[:at] == [f"strong-r{truth}", f"strong-r{truth}"]  # first second, then stalled
    _, probe, limit, tuning = calls[at]
    assert probe == truth and tuning == {}
    assert all(c[3] == {"linearization_level": 2} for c in calls if c[0] != names[at])
    stalled_end = 1000.0 + sum(c[2] for c in calls[:at]) + improved[0]
    assert limit == pytest.approx(search.RETRY_SHARE * (p.start + LIMIT - stalled_end))
    assert names.count("published-r-decision") == 1
    res = p.result()
    if decision == "infeasible":
        assert res.status is Status.EXACT and res.value == truth
        assert len(improved) == 1  # the first probe's short search only: no climb
    else:
        assert len(improved) == 2 and names[at + 1] == f"strong-r{truth - 1}"  # then the climb
        assert res.status is Status.BOUNDED and (res.lower, res.upper) == (truth - 1, truth)


def test_without_the_rule_no_decision_is_asked(monkeypatch, clock):
    monkeypatch.setattr(search, "_improve_r", lambda p, s, witness=None: None)
    p, truth = _start(_graph())
    calls: list = []
    search.strong_r_loop(p, _stalls_at_top(clock, truth, "infeasible", calls))
    assert all(c[0].startswith("strong-r") for c in calls)
    assert p.result().status is Status.BOUNDED


def test_in_a_race_the_cpsat_racer_retries_its_stalled_top_probe():
    """A racer named ``cpsat`` whose strong top probe answers unknown asks the printed decision
    at the same probe next (RETRY_SHARE of the time left, default level); its infeasible
    outcome settles the race; the other racer (not CP-SAT) never asks it."""
    t = _graph()
    p, truth = _start(t, threads=2)
    calls = []

    def stalls_then_decides(model, time_limit, threads, seed, *, stop=None):
        calls.append((model.name, time_limit, dict(model.tuning.get("cpsat", {}))))
        if model.name == "published-r-decision":
            return Outcome("infeasible", None, None, 0.0, "fake decision")
        return Outcome("unknown", None, None, 0.0, "fake: stalled")

    def waits(model, time_limit, threads, seed, *, stop=None):
        calls.append((model.name, time_limit, "other"))
        stop.wait(time_limit)
        return Outcome("unknown", None, None, 0.0, "fake: stopped")

    winner = race.race(p, [race.Racer(cpsat.NAME, stalls_then_decides), race.Racer("other", waits)])
    assert winner == cpsat.NAME and p.result().status is Status.EXACT and p.lower == truth
    mine = [c for c in calls if c[2] != "other"]
    assert [c[0] for c in mine] == [f"strong-r{truth}", "published-r-decision"]
    assert mine[1][2] == {} and 0 < mine[1][1] <= search.RETRY_SHARE * LIMIT
    assert all(c[0] != "published-r-decision" for c in calls if c[2] == "other")


def _pair_values(model, pair: Witness) -> list[int]:
    """A solution vector of the published model that decodes to ``pair``."""
    values = [0] * len(model.vars)
    for side, b in zip((pair.s1, pair.s2), model.sets, strict=True):
        for i in side:
            values[b[i]] = 1
    return values


@pytest.mark.parametrize(
    ("seconds", "spent", "budget"), [(2.0, 0.0, 0.5), (0.2, 0.0, 0.1), (2.0, 59.9, 0.1)]
)
def test_the_local_search_budget_and_its_stop_at_the_lower_bound(
    monkeypatch, clock, seconds, spent, budget
):
    """At most LS_WITNESS_SECONDS, half the seconds given and the time left; one worker, the
    local search alone on the printed model, stopped at the proven lower bound; its pair (the
    true witness here) is kept after the check."""
    p, truth = _start(_graph())
    truth_pair = p.witness
    p.upper, p.witness = 8, None  # forget the witness: the local search must bring it back
    clock.now += spent
    asked = {}

    def fake_run(model, time_limit, threads, seed=0, *, stop=None, stop_at=None):
        asked.update(model=model, limit=time_limit, threads=threads, stop_at=stop_at)
        return Outcome("optimal", _pair_values(model, truth_pair), stop_at, 0.0, "STOP_AT")

    monkeypatch.setattr(cpsat, "run", fake_run)
    portfolio._ls_witness(p, seconds)
    assert asked["limit"] == pytest.approx(budget) and asked["threads"] == 1
    assert asked["stop_at"] == p.lower == truth - 2
    model = asked["model"]
    assert model.tuning == {"cpsat": {"use_ls_only": True}}
    assert len(model.constraints) == len(milp_model.published_r(_graph().in_neighbors).constraints)
    assert p.upper == truth and p.steps[-1]["step"] == "ls-witness"
    assert p.steps[-1]["value"] == truth


def test_a_wrong_local_search_pair_is_refused(monkeypatch, clock):
    p, truth = _start(_graph())
    bogus = Witness(frozenset({0}), frozenset({0}))  # overlapping sets: no pair

    def fake_run(model, time_limit, threads, seed=0, *, stop=None, stop_at=None):
        return Outcome("feasible", _pair_values(model, bogus), None, 0.0, "fake")

    monkeypatch.setattr(cpsat, "run", fake_run)
    portfolio._ls_witness(p, 1.0)
    assert p.steps[-1] == {**p.steps[-1], "step": "ls-witness", "value": None}
    assert p.upper == truth


@pytest.mark.parametrize("settles", [False, True])
def test_the_long_search_gets_what_the_local_search_left(monkeypatch, clock, settles):
    p, truth = _start(_graph())
    longs = []
    monkeypatch.setattr(
        search, "long_search", lambda p, seconds, attempt=0, stop=None: longs.append(seconds)
    )

    def witness(p, seconds):
        clock.now += 0.3
        if settles:
            p.prove_lower(truth)

    search._improve_r(p, 1.0, witness)
    assert longs == ([] if settles else [pytest.approx(0.7)])


def _stall_first(p: Progress, calls: list, real):
    """``real`` (CP-SAT), except that the first two strong r probes answer unknown at once: the
    first probe's short witness search (with the local search) and the retry both run.
    ``calls``: (model name, p's lower and upper bounds before the solve)."""

    def run(model, time_limit, threads, seed, *, stop=None, **options):
        calls.append((model.name, p.lower, p.upper))
        strong = sum(name.startswith("strong-r") for name, _, _ in calls)
        if model.name.startswith("strong-r") and strong <= 2:
            return Outcome("unknown", None, None, 0.0, "fake: stalled")
        return real(model, time_limit, threads, seed, stop=stop, **options)

    return run


def _check(t: Topology, p: Progress, exact: bool = True) -> None:
    """``p``'s result claims nothing past r* (exhaustive) and, with ``exact``, settles it."""
    truth = exhaustive.solve(Request(t, Question.max_r()))
    res = p.result()
    assert res.lower <= truth.value <= res.upper
    if exact or res.status is Status.EXACT:
        assert res.status is Status.EXACT and res.value == truth.value, res.params["steps"]
    if res.witness is not None:
        assert refutes_r(t.in_neighbors, res.witness.s1, res.witness.s2, res.upper + 1)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(t=topologies(max_n=8).filter(lambda g: g.n >= 2))
def test_both_rules_forced_agree_with_exhaustive(t):
    """One thread, CP-SAT, both rules forced: exact and equal to r* from the definition."""
    p = Progress(Request(t, Question.max_r(), time_limit=LIMIT), "portfolio", "strong", "test")
    calls: list = []
    search.strong_r_loop(
        p, _stall_first(p, calls, cpsat.run), retry=True, witness=portfolio._ls_witness
    )
    models = [s.get("model") for s in p.steps]
    assert models[:2] == [calls[0][0], "published-r-ls"]  # the first probe stalled: the LS next
    strong = [c for c in calls if c[0].startswith("strong-r")]
    gap = len(strong) >= 2 and strong[1][2] - strong[1][1] > 1  # at the second (fake) stall
    if len(strong) >= 2:  # the stall at the upper bound is retried when a gap is left
        after = models[models.index(strong[1][0], 2) + 1 :]
        assert (after[:1] == ["published-r-decision"]) == gap
    _check(t, p, exact=gap or len(strong) < 2)  # a stall with no gap left ends the loop


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(t=topologies(max_n=8).filter(lambda g: g.n >= 2))
def test_the_race_retry_forced_agrees_with_exhaustive(t):
    """Two racers (CP-SAT, whose first strong probes stall, and HiGHS): exact, equal to r*."""
    from solvers import highs

    if not highs.available():
        pytest.skip("needs highspy")
    p = Progress(Request(t, Question.max_r(), LIMIT, 2), "portfolio", "strong", "test")
    calls: list = []
    race.race(
        p,
        [race.Racer(cpsat.NAME, _stall_first(p, calls, cpsat.run)), race.Racer("highs", highs.run)],
    )
    _check(t, p)
