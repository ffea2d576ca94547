"""Issue 40, round 21 (``portfolio.NARROW_PAIR_RULE``): on an undirected regular graph of 49-64
nodes and degree >= 10 (``portfolio._narrow``), at either thread setting, the first core asks the
published constraints as decisions on one CP-SAT worker before the published slice (one thread:
in place of ``SWITCH_RULE``'s printed window) or before the lane's wait (with a lane): once at
``t <= lower`` (at most ``AFTER_WAIT_LOWER_SECONDS``), then at ``t <= lower`` with ``use_ls_only``,
hinted with the pair held (at most ``NARROW_LS_SECONDS``); never past the deadline or the slice.

The asks' sequence, caps, hints and records are checked on a fake clock and a fake ``cpsat.run``
(no timing decides a pass or a fail); the bounds and pairs the rule gives are checked with the
real CP-SAT against the exhaustive engine on small regular graphs, the thresholds monkeypatched
so that they count as narrow."""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from robustgraph.generators import erdos_renyi, random_k_in
from robustgraph.topology import Topology
from solvers import cpsat, exhaustive, portfolio, search
from solvers.interrupt import StopSignal
from solvers.milp_model import Outcome
from solvers.search import Progress
from solvers.types import Question, Request, Witness
from solvers.witness import refutes_r
from tests import test_beside_lane, test_deadline_spent

clock = test_deadline_spent.clock  # the fake clock's fixture (search's and portfolio's time)
_Lane, _Sample = test_beside_lane._Lane, test_beside_lane._Sample
LIMIT = 10.0
LOWER, LS = portfolio.AFTER_WAIT_LOWER_SECONDS, portfolio.NARROW_LS_SECONDS
needs_cpsat = pytest.mark.skipif(not cpsat.available(), reason="needs ortools")


def _regular(d: int, n: int, seed: int = 7411) -> Topology:
    return Topology.from_networkx(nx.random_regular_graph(d, n, seed=seed))


def _families() -> dict[str, tuple[Topology, bool]]:
    """Graphs and whether NARROW_PAIR_RULE is theirs."""
    return {
        "regular-60-d10": (_regular(10, 60), True),
        "regular-49-d10": (_regular(10, 49), True),
        "regular-64-d10": (_regular(10, 64), True),
        "regular-56-d12": (_regular(12, 56), True),
        "regular-50-d10": (_regular(10, 50), True),
        "regular-48-d10": (_regular(10, 48), False),
        "regular-66-d10": (_regular(10, 66), False),
        "regular-60-d8": (_regular(8, 60), False),
        "regular-60-d6": (_regular(6, 60), False),
        "k-in-60": (random_k_in(60, 10, seed=7381), False),
        "er-50": (erdos_renyi(50, 0.35, seed=3), False),
        "digraph-50": (erdos_renyi(50, 0.35, seed=3, directed=True), False),
    }


def _fake_cpsat(monkeypatch, clock, truth: int, *, spends: float = 0.3):
    """``cpsat.run`` faked for the decisions: infeasible below ``truth`` (r*), unknown at and
    above and for the local search; each call moves ``clock`` by ``spends`` (at most its time limit) and is recorded as a
    dict: ``t`` asked, ``ls``, ``hinted`` (the model's hint on the sets, as a pair), time limit,
    threads, stop."""
    calls = []

    def run(model, time_limit, threads, seed=0, *, stop=None, stop_at=None):
        t = [v.name for v in model.vars].index("t")
        (asked,) = [c.ub for c in model.constraints if c.terms == ((t, 1),)]
        assert model.objective == ()  # a decision, not the published optimisation
        b1, b2 = model.sets
        hinted = None
        if model.hint:
            hinted = tuple(frozenset(i for i, v in enumerate(b) if model.hint[v]) for b in (b1, b2))
        ls = model.tuning.get("cpsat", {}).get("use_ls_only", False)
        calls.append(
            {
                "t": asked,
                "ls": ls,
                "hinted": hinted,
                "limit": time_limit,
                "threads": threads,
                "stop": stop,
            }
        )
        clock.now += spends if time_limit is None else min(spends, time_limit)
        status = "infeasible" if asked < truth and not ls else "unknown"
        return Outcome(status, None, None, spends, status.upper())

    monkeypatch.setattr(cpsat, "run", run)
    return calls


def _slices(monkeypatch, clock, spends: float = 1.0) -> list:
    """``search.published_slice`` faked: records (config, seconds, told) and spends ``spends``."""
    calls = []

    def published_slice(p, run, seconds, least=False, as_printed=False, told=None, work=None):
        calls.append(("as-printed" if as_printed else "least-first", seconds, told))
        clock.now += min(spends, seconds)

    monkeypatch.setattr(search, "published_slice", published_slice)
    return calls


def _progress(request: Request, lower: int, upper: int) -> Progress:
    p = Progress(request, "portfolio", "strong", "t")
    p.lower, p.upper = lower, upper
    half = frozenset(range(request.n // 2))  # a stand-in held pair: the fakes never check it
    p.witness = Witness(half, frozenset(range(request.n)) - half)
    return p


def _asks(p: Progress) -> list[dict]:
    return [s for s in p.steps if s.get("rule") == "NARROW_PAIR_RULE"]


def _request(graph: Topology, threads: int = 1, limit: float | None = LIMIT) -> Request:
    return Request(graph, Question.max_r(), time_limit=limit, threads=threads)


@pytest.mark.parametrize("name", list(_families()))
def test_the_graphs_of_the_rule(name):
    """Undirected regular, 49-64 nodes, degree >= 10 only: not 8- or 6-regular graphs, not 48 or
    66 nodes (the wide rules' range), not k-in digraphs, ER graphs or digraphs."""
    graph, narrow = _families()[name]
    request = _request(graph)
    assert portfolio._narrow(request) == narrow
    if narrow:  # a graph of the rule skips the core search and gets the printed model too
        assert portfolio._printed_too(request) and not portfolio._wide(request)


@needs_cpsat
def test_one_thread_the_asks_replace_the_printed_window(monkeypatch, clock):
    """r* = 5 on [3, 6]: t <= 3 infeasible (lower 4), then t <= 4 with the local search hinted
    with the held pair, then least-first alone for the rest of the slice, told the bound and pair
    held before the asks; no printed window. Each ask a step record."""
    calls = _fake_cpsat(monkeypatch, clock, truth=5)
    slices = _slices(monkeypatch, clock)
    p = _progress(_request(_regular(10, 60)), 3, 6)
    held = (p.upper, p.witness)
    portfolio._switch(p, 8.0)
    assert [(c["t"], c["ls"]) for c in calls] == [(3, False), (4, True)]
    assert calls[0]["hinted"] is None
    assert calls[1]["hinted"] == (p.witness.s1, p.witness.s2)
    assert [(c["limit"], c["threads"]) for c in calls] == [(LOWER, 1), (LS, 1)]
    ((config, seconds, told),) = slices
    assert config == "least-first" and told == held
    assert seconds == pytest.approx(8.0 - 0.3 - 0.3)  # what the asks left of the slice
    assert [(s["probe"], s["ask"], s["outcome"]) for s in _asks(p)] == [
        (3, "lower", "infeasible"),
        (4, "ls", "unknown"),
    ]
    assert (p.lower, p.upper) == (4, 6)
    assert [s.get("config") for s in p.steps if s.get("step") == "switch"] == ["least-first"]


@needs_cpsat
@pytest.mark.parametrize("d", [8, 6])
def test_one_thread_other_regular_graphs_keep_the_printed_window(monkeypatch, clock, d):
    calls = _fake_cpsat(monkeypatch, clock, truth=5)
    slices = _slices(monkeypatch, clock)
    p = _progress(_request(_regular(d, 60)), 3, 6)
    portfolio._switch(p, 8.0)
    assert calls == [] and _asks(p) == []
    assert [config for config, *_ in slices] == ["as-printed", "least-first"]


@needs_cpsat
def test_a_settling_lower_ask_leaves_no_local_search_and_no_slice(monkeypatch, clock):
    """[3, 4], r* = 4: t <= 3 infeasible settles r* = 4."""
    calls = _fake_cpsat(monkeypatch, clock, truth=4)
    slices = _slices(monkeypatch, clock)
    p = _progress(_request(_regular(10, 60)), 3, 4)
    portfolio._switch(p, 8.0)
    assert [(c["t"], c["ls"]) for c in calls] == [(3, False)]
    assert p.settled() and p.lower == 4 and slices == []


@needs_cpsat
def test_the_asks_stay_inside_a_short_slice(monkeypatch, clock):
    """A 0.7 s slice: the lower ask gets 0.7 s (not 1 s), spends 0.5 s, the local search the 0.2 s
    left (not NARROW_LS_SECONDS); a 0.4 s slice spent by the lower ask: no local search."""
    calls = _fake_cpsat(monkeypatch, clock, truth=6, spends=0.5)
    _slices(monkeypatch, clock)
    portfolio._switch(_progress(_request(_regular(10, 60)), 3, 8), 0.7)
    assert [(c["t"], c["ls"]) for c in calls] == [(3, False), (4, True)]
    assert [c["limit"] for c in calls] == pytest.approx([0.7, 0.2])
    calls.clear()
    portfolio._switch(_progress(_request(_regular(10, 60)), 3, 8), 0.4)
    assert [(c["t"], c["ls"]) for c in calls] == [(3, False)]


@needs_cpsat
def test_never_past_the_deadline(monkeypatch, clock):
    """0.4 s left of the time limit: the lower ask gets 0.4 s; then none is left: no more asks."""
    calls = _fake_cpsat(monkeypatch, clock, truth=6, spends=5.0)
    p = _progress(_request(_regular(10, 60)), 3, 8)
    clock.now += LIMIT - 0.4
    portfolio._narrow_asks(p)
    assert [c["limit"] for c in calls] == pytest.approx([0.4]) and p.out_of_time()


@needs_cpsat
def test_no_ask_once_out_of_time_or_once_the_lane_has_won(monkeypatch, clock):
    calls = _fake_cpsat(monkeypatch, clock, truth=6)
    late = _progress(_request(_regular(10, 60)), 3, 8)
    clock.now += LIMIT
    portfolio._narrow_asks(late)
    won = _progress(_request(_regular(10, 60), limit=None), 3, 8)
    won.halt = lambda: True  # the lane proved r*: the first core's work ends
    portfolio._narrow_asks(won)
    assert calls == [] and _asks(late) == _asks(won) == []


@needs_cpsat
@pytest.mark.parametrize("name", list(_families()))
def test_with_a_lane_the_asks_come_before_the_wait(monkeypatch, clock, name):
    """With a lane: the asks, on one worker with the lane's stop signal, then ``beside-lane`` and
    the ``lane-wait`` step, on the graphs of the rule; elsewhere the wait alone."""
    graph, narrow = _families()[name]
    calls = _fake_cpsat(monkeypatch, clock, truth=5)
    order = []
    monkeypatch.setattr(
        portfolio, "_beside_lane", lambda p, lane, end, sample: order.append("beside")
    )
    p = _progress(_request(graph, threads=3), 3, 6)
    p.stop = StopSignal()
    portfolio._published_slices(p, _Lane(clock), _Sample())
    names = [s.get("ask") or s.get("step") for s in p.steps]
    if narrow:
        assert names == ["lower", "ls", "lane-wait"]
        assert all(c["threads"] == 1 and c["stop"] is p.stop for c in calls)
    else:
        assert names == ["lane-wait"] and calls == []
    assert order == (["beside"] if portfolio._printed_too(p.request) else [])


@needs_cpsat
def test_with_a_lane_the_wait_is_what_the_asks_left(monkeypatch, clock):
    """The wait is REGULAR_SHARE of the time left after the asks (0.6 s of fake time)."""
    _fake_cpsat(monkeypatch, clock, truth=5)
    monkeypatch.setattr(portfolio, "_beside_lane", lambda *a: None)
    p = _progress(_request(_regular(10, 60), threads=3), 3, 6)
    lane = _Lane(clock)
    portfolio._published_slices(p, lane, _Sample())
    assert lane.waited == pytest.approx([portfolio.REGULAR_SHARE * (LIMIT - 0.6)])


@st.composite
def _small_regular(draw) -> Topology:
    n = draw(st.integers(5, 12))
    d = draw(st.integers(2, n - 2).filter(lambda d: n * d % 2 == 0))
    seed = draw(st.integers(0, 10_000))
    return Topology.from_networkx(nx.random_regular_graph(d, n, seed=seed))


@needs_cpsat
@given(_small_regular())
def test_the_rule_on_small_narrow_graphs_proves_r_star(t):
    """With the thresholds lowered (``CORES_LARGE_N`` 4, ``CORES_LONG_N`` 12,
    ``CORES_REGULAR_DEGREE`` 1, ``NARROW_DEGREE`` 2) small regular graphs are narrow: the quick
    bounds, then ``_switch`` for real (the asks and least-first on the real CP-SAT; the local
    search's cap 0.3 s: only how long an ``unknown`` takes). r* of the exhaustive engine is the
    answer and lies within every bound any step reported; the witness checks; an ask is made
    exactly when the quick bounds left the question open; an infeasible ask's t is below r*, a
    solution's at least r*; the local search was hinted with a pair."""
    request = _request(t, limit=60.0)
    p = Progress(request, "portfolio", "strong", "t")
    with pytest.MonkeyPatch.context() as mp:  # per example (hypothesis: no function fixture)
        mp.setattr(portfolio, "CORES_LARGE_N", 4)
        mp.setattr(portfolio, "CORES_LONG_N", 12)
        mp.setattr(portfolio, "CORES_REGULAR_DEGREE", 1)
        mp.setattr(portfolio, "NARROW_DEGREE", 2)
        mp.setattr(portfolio, "NARROW_LS_SECONDS", 0.3)
        assert portfolio._narrow(request) and portfolio._printed_too(request)
        open_after_quick = not search.quick_r(p)
        if open_after_quick:
            portfolio._switch(p, 30.0)
    truth = exhaustive.solve(Request(t, Question.max_r())).value
    assert p.settled() and p.lower == p.upper == truth
    for step in p.steps:
        assert step.get("lower", 0) <= truth <= step.get("upper", truth)
    assert refutes_r(t.in_neighbors, p.witness.s1, p.witness.s2, truth + 1)
    asks = _asks(p)
    assert bool(asks) == open_after_quick
    for ask in asks:
        assert ask["probe"] < truth or ask["outcome"] != "infeasible"
        assert ask["probe"] >= truth or ask["outcome"] not in ("feasible", "optimal")


@needs_cpsat
@given(_small_regular())
def test_the_hinted_local_search_never_proves_a_wrong_bound(t):
    """``published_below`` with ``ls_only`` and a hint (a pair of any value: the degree pair) at
    ``t <= r* - 1`` and ``t <= r*``: infeasible only below r*; a solution only at r* or above and
    then a checked pair of value at most the t asked; the model carries the hint on its sets."""
    truth = exhaustive.solve(Request(t, Question.max_r())).value
    one = portfolio._cpsat_workers(1)
    hints = []

    def run(model, *args, **kw):
        hints.append(bool(model.hint))
        return one(model, *args, **kw)

    for k in range(max(0, truth - 1), truth + 1):
        p = Progress(Request(t, Question.max_r()), "portfolio", "strong", "t")
        search.quick_r(p)
        held = p.witness
        refuted = search.published_below(p, run, k, 0.3, ls_only=True, hint=held)
        step = p.steps[-1]
        assert not refuted or k < truth
        if step["outcome"] in ("feasible", "optimal"):
            assert k >= truth and truth <= p.upper <= k
            assert refutes_r(t.in_neighbors, p.witness.s1, p.witness.s2, p.upper + 1)
    assert hints and all(hints)
