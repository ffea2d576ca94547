"""The core search for s*_r (solvers.cores_s) and the pair search with exception nodes, against
the exhaustive engine."""

import networkx as nx
import pytest
from conftest import topologies
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from robustgraph.topology import Topology
from solvers import cores, cores_s, exhaustive
from solvers.types import Question, Request, Status
from solvers.witness import reachable_nodes, refutes_rs


def _masks(t: Topology) -> list[int]:
    return [sum(1 << j for j in s) for s in t.in_neighbors]


def _check(t: Topology, r: int) -> None:
    """From s*_r >= 1, the climb with no cap ends at the exhaustive s*_r, with a pair of that
    value unless it climbed to n."""
    truth = exhaustive.solve(Request(t, Question.max_s(r))).value
    if truth < 1:  # not r-robust: outside the search's domain
        with pytest.raises(ValueError):
            cores_s.search_s(_masks(t), r, 0, t.n, max_sets=10**9)
        return
    lower, pair = cores_s.search_s(_masks(t), r, 1, t.n, max_sets=10**9)
    assert lower == truth
    if pair is None:
        assert truth == t.n
    else:
        assert refutes_rs(t.in_neighbors, pair.s1, pair.s2, r, truth + 1)


@st.composite
def rs_cases(draw, max_n: int):
    t = draw(topologies(max_n=max_n))
    assume(t.n >= 2)
    return t, draw(st.integers(1, (t.n + 1) // 2 + 1))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=rs_cases(max_n=9))
def test_the_climb_agrees_with_exhaustive(case):
    _check(*case)


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("p", [0.35, 0.6, 0.85])
@pytest.mark.parametrize("seed", range(2))
def test_the_capped_climb_on_larger_random_graphs(directed, p, seed):
    """n = 12, every r up to r*, levels of at most 200 exception sets (t <= 3): the bound is
    never above s*_r, and a pair, when found, settles it."""
    t = Topology.from_networkx(nx.gnp_random_graph(12, p, seed=seed, directed=directed))
    r_star = exhaustive.solve(Request(t, Question.max_r())).value
    settled = 0
    for r in range(1, r_star + 1):
        truth = exhaustive.solve(Request(t, Question.max_s(r))).value
        lower, pair = cores_s.search_s(_masks(t), r, 1, t.n, max_sets=200)
        assert 1 <= lower <= truth
        if pair is not None:
            assert lower == truth and refutes_rs(t.in_neighbors, pair.s1, pair.s2, r, truth + 1)
            settled += 1
        else:
            assert lower == min(3, truth)  # levels 2 and 3 searched, or the bound was reached
    assert settled or truth > 2


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(t=topologies(max_n=9), data=st.data())
def test_pairs_with_exceptions_hold_them_and_leak_only_through_them(t, data):
    """Every pair found holds its exception nodes and more on each side, and only exception
    nodes hear more than k outside their set; when none is found, no such pair exists (all pairs
    of disjoint sets tried)."""
    n = t.n
    assume(n >= 2)
    k = data.draw(st.integers(0, n))
    nodes = data.draw(st.lists(st.integers(0, n - 1), unique=True, max_size=3))
    cut = data.draw(st.integers(0, len(nodes)))
    in_a, in_b = nodes[:cut], nodes[cut:]
    found = cores_s.pair_with_exceptions(_masks(t), k, in_a, in_b)
    nb = t.in_neighbors

    def fits(side: frozenset[int], exceptions: set[int]) -> bool:
        return bool(side - exceptions) and not (reachable_nodes(nb, side, k + 1) - exceptions)

    if found is not None:
        assert set(in_a) <= found.s1 and set(in_b) <= found.s2 and not found.s1 & found.s2
        assert fits(found.s1, set(in_a)) and fits(found.s2, set(in_b))
        return
    free = [v for v in range(n) if v not in nodes]
    for labels in _assignments(len(free)):
        s1 = frozenset(in_a) | {v for v, lab in zip(free, labels, strict=True) if lab == 1}
        s2 = frozenset(in_b) | {v for v, lab in zip(free, labels, strict=True) if lab == 2}
        assert not (fits(s1, set(in_a)) and fits(s2, set(in_b))), (s1, s2)


def _assignments(m: int):
    """Every labelling of m nodes by 0 (neither set), 1 and 2."""
    if m == 0:
        yield ()
        return
    for rest in _assignments(m - 1):
        for label in (0, 1, 2):
            yield (*rest, label)


def test_exception_set_counts():
    assert [cores_s.exception_sets(10, s) for s in range(4)] == [1, 10, 90, 480]


# -- the portfolio's CORES_S_RULE -------------------------------------------------------------


def _portfolio(t: Topology, q: Question, patch, **request) -> "object":
    from solvers import portfolio

    patch.setattr(portfolio, "EXHAUSTIVE_S_N", 1)
    return portfolio.solve(Request(t, q, **request))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(t=topologies(max_n=9), data=st.data())
def test_the_portfolio_with_the_climb_agrees_with_exhaustive(t, data):
    """Above the subset DP (moved to 1 node) with the heuristic pair and the published slice off,
    the climb settles s*_r or hands on a lower bound: every answer, max_s or is_rs_robust, is the
    subset DP's, and the climb's step never claims more."""
    from solvers import heuristics, portfolio

    assume(t.n >= 3)
    r_star = exhaustive.solve(Request(t, Question.max_r())).value
    assume(r_star >= 1)
    r = data.draw(st.integers(1, r_star))
    truth = exhaustive.solve(Request(t, Question.max_s(r))).value
    q = data.draw(st.sampled_from([Question.max_s(r), Question.is_rs_robust(r, truth),
                                   Question.is_rs_robust(r, truth + 1)]))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(heuristics, "search_s", lambda *a, **k: None)
        patch.setattr(portfolio, "_published_s_slice", lambda p, most=None, upper=None: None)
        res = _portfolio(t, q, patch)
    assert res.status is Status.EXACT
    if q.target is None:
        assert res.value == truth
    else:
        assert res.holds == (truth >= q.target)
    steps = [s for s in res.params["steps"] if s.get("step") == "cores-s"]
    assert all(s["lower"] <= truth for s in steps)


def test_the_climb_proves_level_2_and_settles_with_the_heuristic_pair(monkeypatch):
    """A digraph G(24, 0.4) (r* = 5, s*_5 = 2), the published (r, s) slices off: the pool's pair
    has value 2, and the climb proves s*_5 >= 2, so the answer is exact."""
    from solvers import portfolio

    t = Topology.from_networkx(nx.gnp_random_graph(24, 0.4, seed=6, directed=True))
    assert portfolio.solve(Request(t, Question.max_r())).value == 5
    monkeypatch.setattr(portfolio, "_published_s_slice", lambda p, most=None, upper=None: None)
    res = portfolio.solve(Request(t, Question.max_s(5), known_lower=1))
    climb = [s for s in res.params["steps"] if s.get("step") == "cores-s"]
    assert res.status is Status.EXACT and res.value == 2
    assert len(climb) == 1 and climb[0]["lower"] == 2


def _without_heuristic_pair(monkeypatch):
    """Heuristic pairs and published slices off: the bounds the climb starts from are far apart."""
    from solvers import heuristics, portfolio

    monkeypatch.setattr(heuristics, "search_s", lambda *a, **k: None)
    monkeypatch.setattr(portfolio, "_published_s_slice", lambda p, most=None, upper=None: None)
    return Topology.from_networkx(nx.gnp_random_graph(26, 0.5, seed=0, directed=True))


def test_the_climb_finds_a_pair_of_value_1(monkeypatch):
    """A digraph G(26, 0.5) seed 0 (r* = 7, s*_7 = 1), heuristics and slices off, the gap cap
    lifted: level 2 finds the pair of value 1, checked, and settles s*_7."""
    from solvers import portfolio

    t = _without_heuristic_pair(monkeypatch)
    monkeypatch.setattr(portfolio, "CORES_S_MAX_GAP", 10**6)
    res = portfolio.solve(Request(t, Question.max_s(7), known_lower=1))
    climb = [s for s in res.params["steps"] if s.get("step") == "cores-s"]
    assert res.status is Status.EXACT and res.value == 1
    assert climb == [res.params["steps"][-1]] and climb[0]["upper"] == 1
    assert refutes_rs(t.in_neighbors, res.witness.s1, res.witness.s2, 7, 2)


def test_no_climb_where_the_bounds_are_more_than_the_gap_cap_apart(monkeypatch):
    """CORES_S_MAX_GAP (v4): the same graph with its default cap: the bounds before the climb
    are further apart than the cap, so it does not run and the strong loop settles s*_7."""
    from solvers import portfolio

    t = _without_heuristic_pair(monkeypatch)
    res = portfolio.solve(Request(t, Question.max_s(7), known_lower=1))
    assert res.status is Status.EXACT and res.value == 1
    assert not any(s.get("step") == "cores-s" for s in res.params["steps"])


def test_the_head_of_the_slice_runs_before_the_climb(monkeypatch):
    """CORES_S_HEAD: the published (r, s) slice gets at most that many seconds before the
    climb, and the whole slice after it, told the upper bound held before the head (v4)."""
    from solvers import heuristics, portfolio

    calls = []

    def head_then_slice(p, most=None, upper=None):
        calls.append((most, upper))
        if most is not None:
            p.upper -= 1  # as if the head's solve had found a better pair

    monkeypatch.setattr(portfolio, "_published_s_slice", head_then_slice)
    monkeypatch.setattr(portfolio, "_cores_s", lambda p: calls.append("climb"))
    monkeypatch.setattr(portfolio, "exact_backend", lambda: None)
    t = Topology.from_networkx(nx.gnp_random_graph(26, 0.5, seed=7, directed=True))
    held = heuristics.search_s(t.in_neighbors, 7)[0]
    portfolio.solve(Request(t, Question.max_s(7), known_lower=1))
    assert calls == [(portfolio.CORES_S_HEAD, None), "climb", (None, held)]


def test_the_portfolio_gives_the_climb_its_budget(monkeypatch):
    """The budget is the least of CORES_S_SECONDS and CORES_S_SHARE of the time left, and the
    level cap is CORES_S_MAX_SETS."""
    from solvers import portfolio

    seen = {}

    def spy(masks, r, lower, upper, *, max_sets, budget, stop):
        seen.update(max_sets=max_sets, budget=budget)
        return lower, None

    monkeypatch.setattr(portfolio, "CORES_S_MAX_GAP", 10**6)
    monkeypatch.setattr(cores_s, "search_s", spy)
    monkeypatch.setattr(portfolio, "_published_s_slice", lambda p, most=None, upper=None: None)
    monkeypatch.setattr(portfolio, "exact_backend", lambda: None)
    t = Topology.from_networkx(nx.gnp_random_graph(26, 0.5, seed=7, directed=True))
    res = portfolio.solve(Request(t, Question.max_s(7), known_lower=1, time_limit=4.0))
    step = next(s for s in res.params["steps"] if s.get("step") == "cores-s")
    assert 0 < seen["budget"] <= 2.0  # at most half of the 4 s, not CORES_S_SECONDS
    assert step["budget"] == round(seen["budget"], 3)
    assert seen["max_sets"] == portfolio.CORES_S_MAX_SETS
    portfolio.solve(Request(t, Question.max_s(7), known_lower=1))
    assert seen["budget"] == portfolio.CORES_S_SECONDS


class _Clock:
    """A fake ``time.perf_counter`` for ``solvers.cores_s``: each exception set's search
    (``pair_with_exceptions``, replaced) advances it by ``cost(e1, e2)`` seconds, polling the
    search's stop once halfway, as the real search polls it; nothing is found."""

    def __init__(self, cost):
        self.now, self.cost, self.sets = 0.0, cost, []

    def __call__(self) -> float:
        return self.now

    def search(self, masks, k, e1, e2, *, stop):
        self.sets.append((tuple(e1), tuple(e2)))
        step = self.cost(e1, e2)
        self.now += step / 2
        if stop():
            raise cores.OutOfTime
        self.now += step / 2
        return None


def _climb_with(monkeypatch, cost, n=35, budget=5.0):
    clock = _Clock(cost)
    monkeypatch.setattr(cores_s.time, "perf_counter", clock)
    monkeypatch.setattr(cores_s, "pair_with_exceptions", clock.search)
    lower, pair = cores_s.search_s([0] * n, 3, 1, 5, max_sets=2000, budget=budget)
    return lower, pair, clock


def test_a_level_behind_pace_is_abandoned_and_proves_nothing(monkeypatch):
    """Sets of 0.6 s at n = 35 under 5 s: the first set's search is stopped once it passes twice
    its share (2 / 35 x 5 = 0.29 s), and the level proves nothing."""
    lower, pair, clock = _climb_with(monkeypatch, lambda e1, e2: 0.6)
    assert (lower, pair) == (1, None) and len(clock.sets) == 1


def test_a_level_within_pace_runs_and_the_next_is_costed(monkeypatch):
    """Sets of 0.05 s: level 2 (35 sets, 1.75 s) completes and proves s* >= 2; level 3 (1,190
    sets) would take 59.5 s more at that rate, over the 5 s budget, so it is not started."""
    lower, pair, clock = _climb_with(monkeypatch, lambda e1, e2: 0.05)
    assert (lower, pair) == (2, None) and len(clock.sets) == 35


def test_the_budget_ends_a_level_that_keeps_pace(monkeypatch):
    """Sets of 0.25 s (within twice the 0.14 s share each) and a budget of 5 s: the level is cut
    by the budget after 20 sets and proves nothing."""
    lower, pair, clock = _climb_with(monkeypatch, lambda e1, e2: 0.25)
    assert (lower, pair) == (1, None) and len(clock.sets) == 20
    assert clock.now == pytest.approx(5.0, abs=0.13)


