"""Issue 40, round 19 (``portfolio.LOWER_PROBE_RULE``): with a lane, a wide regular graph
(``portfolio._wide``) asks the published constraints as a decision at ``t <= lower`` before the
lane's wait, one CP-SAT worker, at most ``LOWER_PROBE_SECONDS`` per ask; while infeasible
(r* >= lower + 1) it asks again at the raised bound as long as ``lower < upper - 1``.

The asks' sequence, caps and records are checked on a fake clock and a fake ``cpsat.run`` (no
timing decides a pass or a fail); the bounds the decision proves are checked with the real
CP-SAT against the exhaustive engine on small regular graphs, the size and degree thresholds
monkeypatched so that they count as wide."""

from __future__ import annotations

import networkx as nx
import pytest
from conftest import in_regular_30
from hypothesis import given
from hypothesis import strategies as st

from robustgraph.generators import erdos_renyi, random_k_in
from robustgraph.topology import Topology
from solvers import cpsat, exhaustive, portfolio, search
from solvers.interrupt import StopSignal
from solvers.milp_model import Outcome
from solvers.search import Progress
from solvers.types import Question, Request
from solvers.witness import refutes_r
from tests import test_beside_lane, test_deadline_spent

clock = test_deadline_spent.clock  # the fake clock's fixture (search's and portfolio's time)
_Lane = test_beside_lane._Lane
LIMIT = 10.0
needs_cpsat = pytest.mark.skipif(not cpsat.available(), reason="needs ortools")


def _regular(d: int, n: int, seed: int = 7411) -> Topology:
    return Topology.from_networkx(nx.random_regular_graph(d, n, seed=seed))


def _fake_cpsat(monkeypatch, clock, truth: int, *, spends: float = 0.3, beyond: str = "unknown"):
    """``cpsat.run`` faked for the decision: infeasible below ``truth`` (r*), ``beyond`` at
    ``truth`` and above; each call moves ``clock`` by ``spends`` (at most its time limit) and is
    recorded as ``(t asked, time_limit, threads, stop)``."""
    calls = []

    def run(model, time_limit, threads, seed=0, *, stop=None, stop_at=None):
        t = [v.name for v in model.vars].index("t")
        (asked,) = [c.ub for c in model.constraints if c.terms == ((t, 1),)]
        assert model.objective == ()  # a decision, not the published optimisation
        calls.append((asked, time_limit, threads, stop))
        clock.now += spends if time_limit is None else min(spends, time_limit)
        status = "infeasible" if asked < truth else beyond
        return Outcome(status, None, None, spends, status.upper())

    monkeypatch.setattr(cpsat, "run", run)
    return calls


def _progress(request: Request, lower: int, upper: int) -> Progress:
    p = Progress(request, "portfolio", "strong", "t")
    p.lower, p.upper = lower, upper
    return p


def _asks(p: Progress) -> list[dict]:
    return [s for s in p.steps if s.get("rule") == "LOWER_PROBE_RULE"]


@needs_cpsat
def test_it_raises_the_lower_bound_while_infeasible_and_stops_below_upper_minus_one(
    monkeypatch, clock
):
    """[3, 6], r* = 5: t <= 3 and t <= 4 infeasible, then lower = 5 = upper - 1: no third ask."""
    request = Request(_regular(10, 80), Question.max_r(), time_limit=LIMIT, threads=1)
    calls = _fake_cpsat(monkeypatch, clock, truth=5)
    p = _progress(request, 3, 6)
    portfolio._lower_probe(p)
    assert [asked for asked, *_ in calls] == [3, 4]
    assert (p.lower, p.upper) == (5, 6)
    assert [(s["probe"], s["outcome"]) for s in _asks(p)] == [(3, "infeasible"), (4, "infeasible")]
    assert all(s["seconds"] == pytest.approx(0.3) for s in _asks(p))  # the ask's cpsat.run


@needs_cpsat
@pytest.mark.parametrize("beyond", ["unknown", "feasible"])
def test_an_answer_that_is_not_infeasible_ends_the_asks(monkeypatch, clock, beyond):
    """r* = 4 on [3, 6]: t <= 3 infeasible, t <= 4 not (unknown, or a solution): no more asks,
    and the bound of the infeasible one kept."""
    request = Request(_regular(10, 80), Question.max_r(), time_limit=LIMIT, threads=1)
    calls = _fake_cpsat(monkeypatch, clock, truth=4, beyond=beyond)
    p = _progress(request, 3, 6)
    portfolio._lower_probe(p)
    assert [asked for asked, *_ in calls] == [3, 4] and p.lower == 4


@needs_cpsat
def test_the_first_ask_at_upper_minus_one_can_settle_the_question(monkeypatch, clock):
    """[3, 4]: the first ask is made (the guard is on asking again); infeasible settles r* = 4."""
    request = Request(_regular(8, 80), Question.max_r(), time_limit=LIMIT, threads=1)
    calls = _fake_cpsat(monkeypatch, clock, truth=4)
    p = _progress(request, 3, 4)
    portfolio._lower_probe(p)
    assert [asked for asked, *_ in calls] == [3] and p.settled() and p.lower == 4


@needs_cpsat
def test_one_worker_the_cap_and_the_lanes_stop_signal(monkeypatch, clock):
    """Every ask: one CP-SAT worker whatever the request's threads, a time limit of
    LOWER_PROBE_SECONDS, and the lane's stop signal (``p.stop``)."""
    request = Request(_regular(10, 80), Question.max_r(), time_limit=LIMIT, threads=3)
    calls = _fake_cpsat(monkeypatch, clock, truth=6)
    p = _progress(request, 3, 8)
    p.stop = StopSignal()
    portfolio._lower_probe(p)
    assert [asked for asked, *_ in calls] == [3, 4, 5, 6]
    assert {(limit, threads) for _, limit, threads, _ in calls} == {
        (portfolio.LOWER_PROBE_SECONDS, 1)
    }
    assert all(stop is p.stop for *_, stop in calls)


@needs_cpsat
def test_never_past_the_deadline(monkeypatch, clock):
    """0.4 s left: the ask gets 0.4 s, not LOWER_PROBE_SECONDS; then none is left, no more asks
    (though t <= 3 was infeasible and 4 < upper - 1)."""
    request = Request(_regular(10, 80), Question.max_r(), time_limit=LIMIT, threads=1)
    calls = _fake_cpsat(monkeypatch, clock, truth=6, spends=5.0)
    p = _progress(request, 3, 8)
    clock.now += LIMIT - 0.4
    portfolio._lower_probe(p)
    ((asked, limit, _, _),) = calls
    assert asked == 3 and limit == pytest.approx(0.4) and p.out_of_time()


@needs_cpsat
def test_no_ask_once_out_of_time_or_once_the_lane_has_won(monkeypatch, clock):
    request = Request(_regular(10, 80), Question.max_r(), time_limit=LIMIT, threads=1)
    calls = _fake_cpsat(monkeypatch, clock, truth=6)
    late = _progress(request, 3, 8)
    clock.now += LIMIT
    portfolio._lower_probe(late)
    won = _progress(Request(_regular(10, 80), Question.max_r(), threads=1), 3, 8)
    won.halt = lambda: True  # the lane proved r*: the first core's work ends
    portfolio._lower_probe(won)
    assert calls == [] and _asks(late) == _asks(won) == []


def _families() -> dict[str, tuple[Topology, bool]]:
    """Graphs and whether LOWER_PROBE_RULE is theirs (with a lane)."""
    return {
        "regular-80-d8": (_regular(8, 80), True),
        "regular-80-d10": (_regular(10, 80), True),
        "regular-60-d8": (_regular(8, 60), False),
        "regular-60-d10": (_regular(10, 60), False),
        "regular-80-d6": (_regular(6, 80), False),
        "in-regular-30": (in_regular_30(False, 8), False),
        "er-50": (erdos_renyi(50, 0.35, seed=3), False),
        "digraph-50": (erdos_renyi(50, 0.35, seed=3, directed=True), False),
        "k-in-80": (random_k_in(80, 10, seed=7381), False),
    }


@pytest.mark.parametrize("name", list(_families()))
@pytest.mark.parametrize("with_lane", [True, False])
def test_the_rule_is_for_wide_graphs_with_a_lane_only(monkeypatch, clock, name, with_lane):
    """``portfolio._gap`` asks (before the published slices and the lane's wait) on an
    undirected regular graph of more than 64 nodes and degree >= 8 with a lane only: not on ER
    graphs, digraphs, k-in digraphs, regular graphs of 64 nodes or fewer or of degree below 8,
    nor without a lane (one thread)."""
    graph, wide = _families()[name]
    request = Request(graph, Question.max_r(), time_limit=LIMIT, threads=1)
    order = []
    monkeypatch.setattr(portfolio, "_lower_probe", lambda p: order.append("probe"))

    def slices(p, lane=None, sample=None, highs_first=True):
        order.append("slices")
        p.halt = lambda: True  # end the gap here: the rest is not this rule's

    def quick(p):  # the quick bounds leave [3, 5] (the 10-regular rows of i52a)
        p.lower, p.upper = 3, 5
        return False

    monkeypatch.setattr(portfolio, "_published_slices", slices)
    monkeypatch.setattr(search, "quick_r", quick)
    lane = _Lane(clock) if with_lane else None
    portfolio._gap(Progress(request, "portfolio", "strong", "t"), None, lane)
    assert portfolio._wide(request) == wide
    assert order == (["probe", "slices"] if wide and with_lane else ["slices"])


@st.composite
def _small_regular(draw) -> Topology:
    n = draw(st.integers(5, 12))
    d = draw(st.integers(2, n - 2).filter(lambda d: n * d % 2 == 0))
    seed = draw(st.integers(0, 10_000))
    return Topology.from_networkx(nx.random_regular_graph(d, n, seed=seed))


def _exact(t: Topology) -> int:
    return exhaustive.solve(Request(t, Question.max_r())).value


@needs_cpsat
@given(_small_regular())
def test_the_decision_is_infeasible_exactly_below_r_star(t):
    """The threshold's meaning, with the real CP-SAT: ``t <= k`` is infeasible iff k < r*
    (exhaustive engine), so an infeasible ask proves exactly ``r* >= k + 1``; a solution is a
    checked pair of value at most k."""
    truth = _exact(t)
    one = portfolio._cpsat_workers(1)
    for k in range(truth + 2):
        p = Progress(Request(t, Question.max_r()), "portfolio", "strong", "t")
        refuted = search.published_below(p, one, k, 30.0)
        assert refuted == (k < truth)
        if refuted:
            assert p.lower == k + 1 <= truth
        else:
            assert p.witness is not None and truth <= p.upper <= k
            assert refutes_r(t.in_neighbors, p.witness.s1, p.witness.s2, p.upper + 1)


@needs_cpsat
@given(_small_regular())
def test_the_rule_on_small_wide_graphs_proves_true_bounds(t):
    """With the thresholds lowered (``CORES_LONG_N`` 4, ``WIDE_DEGREE`` 2) small regular graphs
    are wide: ``_gap`` with a lane (faked: never answers) runs the quick bounds and the rule for
    real; r* of the exhaustive engine lies within the bounds after it and every bound any step
    reported, the witness checks, and an ask is made exactly when the quick bounds left the
    question open."""
    request = Request(t, Question.max_r(), time_limit=60.0, threads=1)

    def slices(p, lane=None, sample=None, highs_first=True):
        p.halt = lambda: True  # end the gap after the rule: the rest is not this rule's

    p = Progress(request, "portfolio", "strong", "t")
    with pytest.MonkeyPatch.context() as mp:  # per example (hypothesis: no function fixture)
        mp.setattr(portfolio, "CORES_LONG_N", 4)
        mp.setattr(portfolio, "WIDE_DEGREE", 2)
        mp.setattr(portfolio, "_published_slices", slices)
        assert portfolio._wide(request)
        portfolio._gap(p, None, _Lane(test_deadline_spent._Clock()))
    truth = _exact(t)
    assert p.lower <= truth <= p.upper
    for step in p.steps:
        assert step.get("lower", 0) <= truth <= step.get("upper", truth)
    if p.witness is not None:
        assert refutes_r(t.in_neighbors, p.witness.s1, p.witness.s2, p.upper + 1)
    asks = _asks(p)
    quick_open = any(s.get("step") == "spectral" and s["lower"] < s["upper"] for s in p.steps)
    assert bool(asks) == quick_open
    for ask in asks:
        assert ask["probe"] < truth or ask["outcome"] != "infeasible"
