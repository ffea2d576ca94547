"""Issue 40, round 20 (``portfolio.AFTER_WAIT_RULE``): with a lane, a wide regular graph
(``portfolio._wide``) whose question is still open after the lane's wait asks, on the first core,
the published constraints as decisions on one CP-SAT worker: at ``t <= lower`` (at most
``AFTER_WAIT_LOWER_SECONDS`` per ask, again at the raised bound while infeasible and
``lower < upper - 1``), then at ``t <= upper - 1`` with ``use_ls_only`` (at most
``AFTER_WAIT_LS_SECONDS``); never past the deadline, stopped with the lane's signal.

The asks' sequence, caps and records are checked on a fake clock and a fake ``cpsat.run`` (no
timing decides a pass or a fail); the bounds and pairs the asks give are checked with the real
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
LOWER, LS = portfolio.AFTER_WAIT_LOWER_SECONDS, portfolio.AFTER_WAIT_LS_SECONDS
needs_cpsat = pytest.mark.skipif(not cpsat.available(), reason="needs ortools")


def _regular(d: int, n: int, seed: int = 7411) -> Topology:
    return Topology.from_networkx(nx.random_regular_graph(d, n, seed=seed))


def _fake_cpsat(monkeypatch, clock, truth: int, *, spends: float = 0.3, beyond: str = "unknown"):
    """``cpsat.run`` faked for the decisions: infeasible below ``truth`` (r*), ``beyond`` at
    ``truth`` and above; each call moves ``clock`` by ``spends`` (at most its time limit) and is
    recorded as ``(t asked, "ls" or "lower", time_limit, threads, stop)``."""
    calls = []

    def run(model, time_limit, threads, seed=0, *, stop=None, stop_at=None):
        t = [v.name for v in model.vars].index("t")
        (asked,) = [c.ub for c in model.constraints if c.terms == ((t, 1),)]
        assert model.objective == ()  # a decision, not the published optimisation
        ls = model.tuning.get("cpsat", {}).get("use_ls_only", False)
        calls.append((asked, "ls" if ls else "lower", time_limit, threads, stop))
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
    return [s for s in p.steps if s.get("rule") == "AFTER_WAIT_RULE"]


def _wide_request(d: int = 10, threads: int = 1, limit: float | None = LIMIT) -> Request:
    return Request(_regular(d, 80), Question.max_r(), time_limit=limit, threads=threads)


@needs_cpsat
def test_lower_asks_while_infeasible_then_the_local_search_at_upper_minus_one(monkeypatch, clock):
    """[3, 6], r* = 5: t <= 3 and t <= 4 infeasible, lower = 5 = upper - 1: no third lower ask;
    then t <= 5 with the local search. Every ask a step record: t asked, outcome, seconds, ask."""
    calls = _fake_cpsat(monkeypatch, clock, truth=5)
    p = _progress(_wide_request(), 3, 6)
    portfolio._after_wait(p)
    assert [(asked, ask) for asked, ask, *_ in calls] == [(3, "lower"), (4, "lower"), (5, "ls")]
    assert (p.lower, p.upper) == (5, 6)
    assert [(s["probe"], s["ask"], s["outcome"]) for s in _asks(p)] == [
        (3, "lower", "infeasible"),
        (4, "lower", "infeasible"),
        (5, "ls", "unknown"),
    ]
    assert all(s["seconds"] == pytest.approx(0.3) for s in _asks(p))  # the ask's cpsat.run


@needs_cpsat
@pytest.mark.parametrize("beyond", ["unknown", "feasible"])
def test_a_lower_answer_that_is_not_infeasible_ends_the_lower_asks(monkeypatch, clock, beyond):
    """r* = 4 on [3, 6]: t <= 3 infeasible, t <= 4 not (unknown, or a solution without a pair
    here): no more lower asks, the bound of the infeasible one kept, then the local search at
    t <= upper - 1 = 5."""
    calls = _fake_cpsat(monkeypatch, clock, truth=4, beyond=beyond)
    p = _progress(_wide_request(), 3, 6)
    portfolio._after_wait(p)
    assert [(asked, ask) for asked, ask, *_ in calls] == [(3, "lower"), (4, "lower"), (5, "ls")]
    assert p.lower == 4


@needs_cpsat
def test_a_settling_lower_ask_leaves_no_local_search(monkeypatch, clock):
    """[3, 4], r* = 4: the first ask (at upper - 1) is made; infeasible settles r* = 4, so no
    local search."""
    calls = _fake_cpsat(monkeypatch, clock, truth=4)
    p = _progress(_wide_request(8), 3, 4)
    portfolio._after_wait(p)
    assert [(asked, ask) for asked, ask, *_ in calls] == [(3, "lower")]
    assert p.settled() and p.lower == 4


@needs_cpsat
def test_an_infeasible_local_search_answer_proves_r_star_at_least_upper(monkeypatch, clock):
    """[3, 5], r* = 5, the lower asks infeasible at 3, then t <= 4 is the local search's (lower =
    4 = upper - 1); infeasible there (CP-SAT's presolve can say so) proves r* >= 5: settled."""
    calls = _fake_cpsat(monkeypatch, clock, truth=5)
    p = _progress(_wide_request(), 3, 5)
    portfolio._after_wait(p)
    assert [(asked, ask) for asked, ask, *_ in calls] == [(3, "lower"), (4, "ls")]
    assert (p.lower, p.upper) == (5, 5)


@needs_cpsat
def test_one_worker_the_caps_and_the_lanes_stop_signal(monkeypatch, clock):
    """Every ask: one CP-SAT worker whatever the request's threads, the lane's stop signal
    (``p.stop``); the lower asks capped at AFTER_WAIT_LOWER_SECONDS, the local search at
    AFTER_WAIT_LS_SECONDS."""
    calls = _fake_cpsat(monkeypatch, clock, truth=6)
    p = _progress(_wide_request(threads=3), 3, 8)
    p.stop = StopSignal()
    portfolio._after_wait(p)
    assert [(asked, ask, limit) for asked, ask, limit, *_ in calls] == [
        (3, "lower", LOWER),
        (4, "lower", LOWER),
        (5, "lower", LOWER),
        (6, "lower", LOWER),
        (7, "ls", LS),
    ]
    assert {threads for *_, threads, _ in calls} == {1}
    assert all(stop is p.stop for *_, stop in calls)


@needs_cpsat
def test_never_past_the_deadline(monkeypatch, clock):
    """0.4 s left: the lower ask gets 0.4 s, not AFTER_WAIT_LOWER_SECONDS; then none is left: no
    more asks and no local search (though t <= 3 was infeasible and 4 < upper - 1)."""
    calls = _fake_cpsat(monkeypatch, clock, truth=6, spends=5.0)
    p = _progress(_wide_request(), 3, 8)
    clock.now += LIMIT - 0.4
    portfolio._after_wait(p)
    ((asked, ask, limit, _, _),) = calls
    assert (asked, ask) == (3, "lower") and limit == pytest.approx(0.4) and p.out_of_time()


@needs_cpsat
def test_the_local_search_gets_what_is_left_when_less_than_its_cap(monkeypatch, clock):
    """1.7 s left, r* = 3 on [3, 6]: t <= 3 unknown at its 1 s cap, then the local search at
    t <= 5 gets the 0.7 s left, not AFTER_WAIT_LS_SECONDS."""
    calls = _fake_cpsat(monkeypatch, clock, truth=3, spends=5.0)
    p = _progress(_wide_request(), 3, 6)
    clock.now += LIMIT - 1.7
    portfolio._after_wait(p)
    assert [(asked, ask) for asked, ask, *_ in calls] == [(3, "lower"), (5, "ls")]
    assert [limit for _, _, limit, *_ in calls] == pytest.approx([LOWER, 0.7])


@needs_cpsat
def test_no_ask_once_out_of_time_or_once_the_lane_has_won(monkeypatch, clock):
    calls = _fake_cpsat(monkeypatch, clock, truth=6)
    late = _progress(_wide_request(), 3, 8)
    clock.now += LIMIT
    portfolio._after_wait(late)
    won = _progress(_wide_request(limit=None), 3, 8)
    won.halt = lambda: True  # the lane proved r*: the first core's work ends
    portfolio._after_wait(won)
    assert calls == [] and _asks(late) == _asks(won) == []


def _families() -> dict[str, tuple[Topology, bool]]:
    """Graphs and whether AFTER_WAIT_RULE is theirs (with a lane)."""
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


def _gap_order(monkeypatch, clock, graph: Topology, lane, waited: bool) -> list[str]:
    """``portfolio._gap`` with the quick bounds [3, 5] (the 10-regular rows of i52a), the
    published slices faked (they report whether they waited for the lane), the rule and the
    dearer bounds recorded; the order of the three."""
    order = []
    monkeypatch.setattr(portfolio, "_after_wait", lambda p: order.append("asks"))
    monkeypatch.setattr(portfolio, "_walk_probe", lambda p, **kw: None)  # the walk rules: test_walk

    def slices(p, lane=None, sample=None, highs_first=True):
        order.append("slices")
        return waited

    def quick(p):
        p.lower, p.upper = 3, 5
        return False

    def more(p, heuristic=True):
        order.append("more")
        p.halt = lambda: True  # end the gap here: the rest is not this rule's

    monkeypatch.setattr(portfolio, "_published_slices", slices)
    monkeypatch.setattr(search, "quick_r", quick)
    monkeypatch.setattr(search, "more_r", more)
    request = Request(graph, Question.max_r(), time_limit=LIMIT, threads=1)
    portfolio._gap(Progress(request, "portfolio", "strong", "t"), None, lane)
    return order


@pytest.mark.parametrize("name", list(_families()))
@pytest.mark.parametrize("with_lane", [True, False])
def test_the_rule_is_for_wide_graphs_with_a_lane_only(monkeypatch, clock, name, with_lane):
    """``portfolio._gap`` asks after the lane's wait and before the dearer bounds on an
    undirected regular graph of more than 64 nodes and degree >= 8 with a lane only: not on ER
    graphs, digraphs, k-in digraphs, regular graphs of 64 nodes or fewer or of degree below 8,
    nor without a lane (one thread)."""
    graph, wide = _families()[name]
    lane = _Lane(clock) if with_lane else None
    order = _gap_order(monkeypatch, clock, graph, lane, waited=with_lane)
    assert portfolio._wide(Request(graph, Question.max_r())) == wide
    assert order == (["slices", "asks", "more"] if wide and with_lane else ["slices", "more"])


def test_no_asks_when_the_published_slices_did_not_wait_for_the_lane(monkeypatch, clock):
    """A wide graph with a lane whose slices returned without the ``lane-wait`` step: no asks."""
    order = _gap_order(monkeypatch, clock, _regular(10, 80), _Lane(clock), waited=False)
    assert order == ["slices", "more"]


def _after_the_real_wait(monkeypatch, clock, lane, beside) -> Progress:
    """``portfolio._gap`` on a 10-regular graph of 80 nodes with the real
    ``_published_slices`` (the wait on the fake ``lane``), ``beside`` in place of
    ``_beside_lane``, the real rule on a fake CP-SAT (r* = 4), the dearer bounds ending the gap."""
    _fake_cpsat(monkeypatch, clock, truth=4)

    def quick(p):
        p.lower, p.upper = 3, 5
        return False

    def more(p, heuristic=True):
        p.halt = lambda: True

    monkeypatch.setattr(portfolio, "_beside_lane", beside)
    monkeypatch.setattr(search, "quick_r", quick)
    monkeypatch.setattr(search, "more_r", more)
    p = Progress(_wide_request(threads=1), "portfolio", "strong", "t")
    portfolio._gap(p, None, lane)
    return p


@needs_cpsat
def test_the_asks_come_right_after_the_lane_wait_step(monkeypatch, clock):
    p = _after_the_real_wait(monkeypatch, clock, _Lane(clock), lambda *a: None)
    names = [s.get("step") or s.get("ask") for s in p.steps]
    assert names == ["lane-wait", "lower", "ls"]
    assert [s["probe"] for s in _asks(p)] == [3, 4] and p.lower == 4


@needs_cpsat
def test_no_asks_when_the_wait_settled_the_question(monkeypatch, clock):
    """``beside-lane`` (faked) proves r* during the wait: the rule asks nothing."""

    def beside(p, lane, end, sample):
        p.lower = p.upper

    p = _after_the_real_wait(monkeypatch, clock, _Lane(clock), beside)
    assert _asks(p) == [] and p.settled()


@needs_cpsat
def test_no_asks_when_the_lane_won_during_the_wait(monkeypatch, clock):
    """The lane proves r* during the wait (``p.halt`` is the lane's ``won``): no ask."""
    lane = _Lane(clock, wins_at=clock.now + 1.0)

    def beside(p, lane_, end, sample):
        p.halt = lane_.won  # as ``_solve`` sets it

    p = _after_the_real_wait(monkeypatch, clock, lane, beside)
    assert _asks(p) == [] and any(s.get("step") == "lane-wait" for s in p.steps)


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
def test_the_local_search_decision_never_proves_a_wrong_bound(t):
    """With ``ls_only`` (CP-SAT's local search alone; a short cap: ``unknown`` proves nothing),
    at ``t <= r* - 1`` and ``t <= r*``: infeasible only below r*, a solution only at r* or above
    and then a checked pair of value at most the t asked; the model asked ``use_ls_only``."""
    truth = _exact(t)
    one = portfolio._cpsat_workers(1)
    asked = []

    def run(model, *args, **kw):
        asked.append(model.tuning["cpsat"]["use_ls_only"])
        return one(model, *args, **kw)

    for k in range(max(0, truth - 1), truth + 1):
        p = Progress(Request(t, Question.max_r()), "portfolio", "strong", "t")
        refuted = search.published_below(p, run, k, 0.3, ls_only=True)
        step = p.steps[-1]
        assert not refuted or k < truth
        assert refuted == (p.lower == k + 1)
        if step["outcome"] in ("feasible", "optimal"):
            assert k >= truth and p.witness is not None and truth <= p.upper <= k
            assert refutes_r(t.in_neighbors, p.witness.s1, p.witness.s2, p.upper + 1)
    assert asked and all(asked)


@needs_cpsat
@given(_small_regular())
def test_the_rule_on_small_wide_graphs_proves_true_bounds(t):
    """With the thresholds lowered (``CORES_LONG_N`` 4, ``WIDE_DEGREE`` 2) small regular graphs
    are wide: ``_gap`` with a lane (faked: never answers), the slices faked as a wait that settles
    nothing, runs the quick bounds and the rule for real (the local search's cap lowered to
    0.3 s: only how long an ``unknown`` takes); r* of the exhaustive engine lies within the final
    bounds and every bound any step reported, the witness checks, an ask is made exactly when
    the quick bounds left the question open, an infeasible ask's t is below r*, and a solution's
    t at least r*."""
    request = Request(t, Question.max_r(), time_limit=60.0, threads=1)

    def slices(p, lane=None, sample=None, highs_first=True):
        p.note("lane-wait", seconds_given=0.0)
        return True

    def more(p, heuristic=True):
        p.halt = lambda: True  # end the gap after the rule: the rest is not this rule's

    p = Progress(request, "portfolio", "strong", "t")
    with pytest.MonkeyPatch.context() as mp:  # per example (hypothesis: no function fixture)
        mp.setattr(portfolio, "CORES_LONG_N", 4)
        mp.setattr(portfolio, "WIDE_DEGREE", 2)
        mp.setattr(portfolio, "AFTER_WAIT_LS_SECONDS", 0.3)
        mp.setattr(portfolio, "_published_slices", slices)
        mp.setattr(search, "more_r", more)
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
        assert ask["probe"] >= truth or ask["outcome"] not in ("feasible", "optimal")


@needs_cpsat
@given(_small_regular())
def test_the_asks_from_a_wide_gap_reach_the_local_search_and_prove_true_bounds(t):
    """``_after_wait`` for real on [0, r* + 1] (the upper bound from the exhaustive engine, the
    local search's cap lowered to 0.3 s): the lower asks are infeasible at 0 .. r* - 1, which
    leaves lower = r* = upper - 1, so the local search asks t <= r* (if r* = 0 the first lower
    ask, always made, is that question and finds the pair); a pair found is checked and settles
    r*; every ask is recorded and no bound crosses r*."""
    truth = _exact(t)
    p = _progress(Request(t, Question.max_r(), time_limit=60.0, threads=1), 0, truth + 1)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(portfolio, "AFTER_WAIT_LS_SECONDS", 0.3)
        portfolio._after_wait(p)
    asks = [(s["probe"], s["ask"], s["outcome"]) for s in _asks(p)]
    lower = [(k, "lower", "infeasible") for k in range(truth)]
    assert asks[:-1] == lower and asks[-1][:2] == (truth, "ls" if truth else "lower")
    assert p.lower == truth and p.upper in (truth, truth + 1)
    if asks[-1][2] in ("feasible", "optimal"):
        assert p.upper == truth and p.settled()
        assert refutes_r(t.in_neighbors, p.witness.s1, p.witness.s2, truth + 1)
