"""Issue 40, rounds 28-29: the batched walk (``solvers.walk``), ``portfolio.WALK_PROBE_RULE``
(one thread) and ``portfolio.WALK_LANE_RULE`` (two threads).

The walk is checked against the exhaustive engine on random graphs and digraphs (hypothesis):
every pair it returns is two disjoint nonempty sets of value at most the ``k`` it was told, so
``k >= r*``. It is a search, not a proof of absence: it may miss a pair that exists. The rule's
order and what it tells the rest of the search are checked with a fake clock and a fake
``cpsat.run`` on a real walk (no timing decides a pass or a fail), and once with real CP-SAT."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from conftest import assert_doctests_pass_in_fresh_process, topologies
from hypothesis import given
from hypothesis import strategies as st

from robustgraph.topology import Topology
from solvers import cpsat, exhaustive, portfolio, search, walk
from solvers.milp_model import Outcome
from solvers.search import Progress
from solvers.types import Question, Request
from solvers.witness import reach, refutes_r
from tests import test_beside_lane, test_deadline_spent

clock = test_deadline_spent.clock  # the fake clock's fixture (search's and portfolio's time)
_Lane = test_beside_lane._Lane
needs_cpsat = pytest.mark.skipif(not cpsat.available(), reason="needs ortools")


def _exact(t: Topology) -> int:
    return exhaustive.solve(Request(t, Question.max_r())).value


def _value(t: Topology, pair) -> int:
    return max(reach(t.in_neighbors, pair.s1), reach(t.in_neighbors, pair.s2))


@given(topologies(max_n=9), st.integers(0, 6), st.integers(0, 2**16))
def test_every_pair_has_the_value_it_was_told_and_never_below_r_star(t, k, seed):
    truth = _exact(t)
    pair = walk.Walk(t.in_neighbors, seed=seed).run(k, moves=60, starts=2)
    if pair is None:
        return
    assert pair.s1 and pair.s2 and not pair.s1 & pair.s2
    assert _value(t, pair) <= k
    assert refutes_r(t.in_neighbors, pair.s1, pair.s2, k + 1)
    assert truth <= k


def test_the_module_examples():
    assert_doctests_pass_in_fresh_process("solvers.walk")


def test_two_cliques_joined_by_one_edge():
    """The walk is a search, not a proof of absence: it finds the pair here (and on the graphs of
    the rule's tests below), but may miss one that exists (hypothesis found a 6-node digraph with
    r* = 0 whose pair it missed in 20 rounds), so only the pairs it returns are trusted."""
    g = nx.disjoint_union(nx.complete_graph(6), nx.complete_graph(6))
    g.add_edge(0, 6)
    t = Topology.from_networkx(g)
    pair = walk.Walk(t.in_neighbors, seed=1).run(1, starts=1)
    assert pair is not None and _value(t, pair) == 1
    assert walk.Walk(t.in_neighbors, seed=1).run(0, starts=2, moves=200) is None  # connected


def test_the_same_seed_gives_the_same_pair():
    t = Topology.from_networkx(nx.random_regular_graph(6, 40, seed=3))
    pairs = [walk.Walk(t.in_neighbors, seed=9).run(3, starts=3) for _ in range(2)]
    assert pairs[0] is not None and pairs[0] == pairs[1]


def test_a_stop_that_is_due_ends_the_walk_at_once():
    t = Topology.from_networkx(nx.random_regular_graph(6, 40, seed=3))
    calls = []

    def stop() -> bool:
        calls.append(1)
        return True

    assert walk.Walk(t.in_neighbors).run(5, stop=stop) is None and len(calls) == 1


def test_the_start_distances_are_the_undirected_breadth_first_ones():
    g = nx.gnp_random_graph(30, 0.08, seed=4, directed=True)
    t = Topology.from_networkx(g)
    dist = walk.Walk(t.in_neighbors).dist
    lengths = dict(nx.all_pairs_shortest_path_length(g.to_undirected()))
    for u in range(30):
        for v in range(30):
            assert dist[u, v] == lengths[u].get(v, 31)


def test_in_degrees_of_span_or_more_are_refused():
    heard = [frozenset(range(1, walk.SPAN + 1))] + [frozenset({0})] * walk.SPAN
    with pytest.raises(ValueError, match="in-degrees below"):
        walk.Walk(heard)


def test_the_lookup_tables_match_the_excess_and_gain_definitions():
    over, excess, adds = walk._tables(3)
    for side in (0, 1, 2):
        for c in range(8):
            code = side * walk.SPAN + (0 if side == 2 else c)
            assert over[code] == (side < 2 and c > 3)
            assert excess[code] == (max(0, c - 3) if side < 2 else 0)
            for mine in (0, 1):
                got = adds[mine * 3 * walk.SPAN + code]
                if side == 2:
                    assert got == 0
                elif side == mine:
                    assert got == -(c >= 3)
                else:
                    assert got == (c > 3)
    assert np.asarray(adds).dtype.kind == "i"


# ---- the rule --------------------------------------------------------------------------------

GRAPH = Topology.from_networkx(nx.random_regular_graph(8, 60, seed=7991))
"""A random 8-regular graph on 60 nodes: r* = 3 (the exhaustive core search is out of reach
here; r* as the published model on CP-SAT and this project's portfolio both proved it, issue 40,
round 28's decide rows); a pair of value 3 that the walk finds within one round."""


def _fake_probe(monkeypatch, clock, truth: int, beyond: str):
    """``cpsat.run`` faked for the decision ``t <= k``: infeasible below ``truth``, ``beyond`` at
    ``truth`` and above (no pair: the fake has none to give); each call recorded."""
    calls = []

    def run(model, time_limit, threads, seed=0, *, stop=None, stop_at=None):
        t = [v.name for v in model.vars].index("t")
        (asked,) = [c.ub for c in model.constraints if c.terms == ((t, 1),)]
        calls.append((asked, time_limit, threads))
        clock.now += 0.1
        status = "infeasible" if asked < truth else beyond
        return Outcome(status, None, None, 0.1, status.upper())

    monkeypatch.setattr(cpsat, "run", run)
    return calls


def _progress(lower: int, upper: int) -> Progress:
    p = Progress(Request(GRAPH, Question.max_r(), time_limit=10.0), "portfolio", "strong", "t")
    p.lower, p.upper = lower, upper
    return p


@needs_cpsat
def test_a_pair_found_and_an_infeasible_probe_settle_the_question(monkeypatch, clock):
    calls = _fake_probe(monkeypatch, clock, truth=3, beyond="unknown")
    p = _progress(2, 4)
    portfolio._walk_probe(p)
    (walked,) = [s for s in p.steps if s.get("step") == "walk"]
    assert walked["k"] == 3 and walked["found"] is True
    assert [c[0] for c in calls] == [2] and calls[0][1] == portfolio.PROBE_SECONDS
    assert calls[0][2] == 1  # one CP-SAT worker
    assert p.settled() and p.lower == p.upper == 3
    assert refutes_r(GRAPH.in_neighbors, p.witness.s1, p.witness.s2, 4)


@needs_cpsat
def test_an_unsettled_probe_leaves_the_bounds_and_witness_untouched(monkeypatch, clock):
    """The probe answers unknown: the walk's pair is not told (round 27: a bound the walk lowered
    changed CP-SAT's later search both ways)."""
    calls = _fake_probe(monkeypatch, clock, truth=0, beyond="unknown")
    p = _progress(2, 4)
    before = p.witness
    portfolio._walk_probe(p)
    assert [c[0] for c in calls] == [2]
    assert (p.lower, p.upper) == (2, 4) and p.witness is before


def test_no_probe_when_the_walk_finds_nothing(monkeypatch, clock):
    monkeypatch.setattr(walk.Walk, "run", lambda self, k, **kw: None)
    monkeypatch.setattr(cpsat, "run", lambda *a, **kw: pytest.fail("no probe without a pair"))
    p = _progress(2, 4)
    portfolio._walk_probe(p)
    assert (p.lower, p.upper) == (2, 4)
    assert [s["found"] for s in p.steps if s.get("step") == "walk"] == [False]


def test_no_probe_once_out_of_time(monkeypatch, clock):
    monkeypatch.setattr(cpsat, "run", lambda *a, **kw: pytest.fail("no probe past the deadline"))

    def late(self, k, **kw):
        clock.now += 60.0
        return None

    monkeypatch.setattr(walk.Walk, "run", late)
    p = _progress(2, 4)
    portfolio._walk_probe(p)
    assert (p.lower, p.upper) == (2, 4)


def _order(
    monkeypatch, clock, graph: Topology, quick: tuple[int, int], lane=None, walks=None
) -> list[str]:
    """``portfolio._gap`` with the quick bounds ``quick`` and ``lane`` (None: one thread), the
    rule, the published slices and the dearer bounds recorded; their order. ``walks``: a list
    that gets the keyword arguments of each ``_walk_probe`` call."""
    order = []

    def walked(p, **kw):
        order.append("walk")
        if walks is not None:
            walks.append(kw)

    monkeypatch.setattr(portfolio, "_walk_probe", walked)

    def slices(p, lane=None, sample=None, highs_first=True):
        order.append("slices")
        return False

    def fake_quick(p):
        p.lower, p.upper = quick
        return False

    def more(p, heuristic=True):
        order.append("more")
        p.halt = lambda: True

    monkeypatch.setattr(portfolio, "_published_slices", slices)
    monkeypatch.setattr(search, "quick_r", fake_quick)
    monkeypatch.setattr(search, "more_r", more)
    request = Request(graph, Question.max_r(), time_limit=10.0, threads=1 if lane is None else 2)
    portfolio._gap(Progress(request, "portfolio", "strong", "t"), None, lane)
    return order


def _regular(d: int, n: int, seed: int = 1) -> Topology:
    return Topology.from_networkx(nx.random_regular_graph(d, n, seed=seed))


def _solved(g: Topology, threads: int, r: int, rule: str) -> tuple[list[dict], list[dict]]:
    """A real solve of ``g`` (CP-SAT, real clock, 120 s): exact with value ``r`` and a checked
    pair; its ``walk`` steps and the steps of asks under ``rule``."""
    res = portfolio.solve(Request(g, Question.max_r(), threads=threads, time_limit=120))
    assert res.status.value == "exact" and res.value == r
    assert refutes_r(g.in_neighbors, res.witness.s1, res.witness.s2, r + 1)
    steps = res.params["steps"]
    walked = [s for s in steps if s.get("step") == "walk"]
    return walked, [s for s in steps if s.get("rule") == rule]


@needs_cpsat
def test_a_real_one_thread_solve_settled_by_the_walk_and_the_probe():
    """Real CP-SAT, real clock: a random 8-regular graph on 80 nodes (scratch seed 7445, r* = 3,
    as ``test_beside_lane`` proves with the rule switched off): the walk finds a pair of value 3,
    the probe at t <= 2 is infeasible, and the answer is exact with a checked pair."""
    walked, asked = _solved(_regular(8, 80, 7445), 1, 3, "WALK_PROBE_RULE")
    if walked and walked[0]["found"]:  # the walk's window is wall time: it may miss on a busy box
        assert walked[0]["k"] == 3 and asked and asked[0]["probe"] == 2


@pytest.mark.parametrize(
    ("graph", "quick", "walks"),
    [
        (GRAPH, (2, 4), True),
        (_regular(10, 80, seed=7992), (3, 6), True),
        (GRAPH, (3, 4), False),  # one value open: nothing for the walk to settle
        (_regular(8, 40), (2, 4), False),
        (_regular(6, 60), (1, 4), False),  # degree below 8 (round 28's held-out run)
        (_regular(14, 60), (4, 8), False),  # above WALK_MAX_DEGREE: the walk's memory
        (_regular(4, 60), (1, 3), False),
        (Topology.from_networkx(nx.gnp_random_graph(60, 0.2, seed=1)), (2, 6), False),
    ],
    ids=[
        "regular-60-d8",
        "regular-80-d10",
        "one-open",
        "n40",
        "degree-6",
        "degree-14",
        "degree-4",
        "er-60",
    ],
)
def test_the_rule_runs_first_on_regular_graphs_without_the_core_search(
    monkeypatch, clock, graph, quick, walks
):
    """At one thread, right after the quick bounds and before the published slices, on an
    undirected regular graph of more than 48 nodes and degree 8 to 12
    (``portfolio._walk_first``) with at least two values open; never elsewhere."""
    order = _order(monkeypatch, clock, graph, quick)
    assert order == (["walk", "slices", "more"] if walks else ["slices", "more"])


@pytest.mark.parametrize(
    ("graph", "quick", "rule", "seconds"),
    [
        (_regular(10, 80, seed=7992), (3, 6), "WALK_WIDE_RULE", "WALK_WIDE_SECONDS"),
        (_regular(12, 80, seed=7993), (3, 7), "WALK_WIDE_RULE", "WALK_WIDE_SECONDS"),
        (_regular(8, 80, seed=7994), (2, 5), "WALK_PROBE_RULE", "WALK_SECONDS"),  # a head
        (_regular(10, 60, seed=7995), (3, 6), "WALK_PROBE_RULE", "WALK_SECONDS"),  # n <= 64
    ],
    ids=["regular-80-d10", "regular-80-d12", "regular-80-d8", "regular-60-d10"],
)
def test_wide_graphs_of_degree_10_and_more_get_the_longer_walk(
    monkeypatch, clock, graph, quick, rule, seconds
):
    """``WALK_WIDE_RULE`` (round 30): at one thread, above 64 nodes and from degree 10 (the wide
    graphs without the least-first head), the walk's window is ``WALK_WIDE_SECONDS`` and its
    probe names that rule; everywhere else ``WALK_SECONDS`` under ``WALK_PROBE_RULE``."""
    asked = []
    assert _order(monkeypatch, clock, graph, quick, walks=asked) == ["walk", "slices", "more"]
    (got,) = asked
    expected = getattr(portfolio, seconds)
    assert got.get("rule", "WALK_PROBE_RULE") == rule
    assert got.get("seconds", portfolio.WALK_SECONDS) == expected
    assert portfolio.WALK_WIDE_SECONDS > portfolio.WALK_SECONDS


def test_never_beside_a_lane(monkeypatch, clock):
    """With a lane (two threads) no walk runs in ``_gap`` (round 28's held-out run: its 0.2 s of
    CPU beside the lane made five rows slower); ``WALK_LANE_RULE`` walks in ``_beside_lane``."""
    assert _order(monkeypatch, clock, GRAPH, (2, 4), lane=_Lane(clock)) == ["slices", "more"]


# ---- WALK_LANE_RULE: two threads, beside the lane --------------------------------------------


def _beside(monkeypatch, clock, graph: Topology, quick, *, found=True, truth=3, head_settles=False,
            busy=0.0, lane_wins_in=None, pair_of: Topology = GRAPH):
    """``portfolio._beside_lane`` on the fake clock with bounds ``quick``: the second solve's
    slices (each spends its whole time unless ``head_settles``), the walk (a real pair of the
    value asked, found on ``pair_of``, or none) and the probe (``_fake_probe``: infeasible below
    ``truth``) recorded in order; returns the order, the slices' seconds, the probe's calls and
    ``p``."""
    order, seconds = [], []
    calls = _fake_probe(monkeypatch, clock, truth=truth, beyond="unknown")
    real_run = walk.Walk.run

    def published_slice(p, run, left, least=False, as_printed=False, **kw):
        order.append("slice")
        seconds.append(left)
        if head_settles:
            p.prove_lower(p.upper)
        clock.now += left

    def fake_walk(self, k, stop=None, **kw):
        order.append(("walk", k))
        clock.now += 0.05
        if not found:
            return None
        pair = real_run(walk.Walk(pair_of.in_neighbors, seed=1), k, starts=4)
        assert pair is not None  # a real pair of value k, as the rule's walk would return
        return pair

    monkeypatch.setattr(search, "published_slice", published_slice)
    monkeypatch.setattr(walk.Walk, "run", fake_walk)
    wins_at = None if lane_wins_in is None else clock.now + lane_wins_in
    lane = _Lane(clock, wins_at=wins_at)
    request = Request(graph, Question.max_r(), time_limit=10.0, threads=1)
    p = Progress(request, "portfolio", "strong", "t")
    p.lower, p.upper = quick
    p.halt = lane.won
    portfolio._beside_lane(p, lane, clock.now + 5.0, test_beside_lane._Sample(busy))
    asked = [("probe", c[0]) for c in calls]
    return order, seconds, asked, p


@needs_cpsat
def test_beside_the_lane_a_head_then_the_walk_and_a_probe_that_settles(monkeypatch, clock):
    order, seconds, asked, p = _beside(monkeypatch, clock, GRAPH, (2, 4))
    assert order == ["slice", ("walk", 3)] and asked == [("probe", 2)]
    assert seconds == [pytest.approx(portfolio.WALK_LANE_AFTER)]
    assert p.lower == p.upper == 3
    assert refutes_r(GRAPH.in_neighbors, p.witness.s1, p.witness.s2, 4)
    (probe,) = [s for s in p.steps if s.get("probe") == 2]
    assert probe["rule"] == "WALK_LANE_RULE"


@needs_cpsat
def test_an_unsettled_probe_gives_the_second_solve_the_rest_of_its_time(monkeypatch, clock):
    order, seconds, asked, p = _beside(monkeypatch, clock, GRAPH, (2, 4), truth=0)
    assert order == ["slice", ("walk", 3), "slice"] and asked == [("probe", 2)]
    head, rest = seconds
    assert head == pytest.approx(portfolio.WALK_LANE_AFTER)
    assert head + 0.05 + 0.1 + rest == pytest.approx(5.0)  # the walk's and probe's fake time
    assert (p.lower, p.upper) == (2, 4)  # the walk's pair not told


def test_no_pair_no_probe_and_the_second_solve_resumes(monkeypatch, clock):
    order, seconds, asked, p = _beside(monkeypatch, clock, GRAPH, (2, 4), found=False)
    assert order == ["slice", ("walk", 3), "slice"] and asked == []
    assert sum(seconds) + 0.05 == pytest.approx(5.0)


def test_a_head_that_settles_the_question_is_followed_by_nothing(monkeypatch, clock):
    order, seconds, asked, p = _beside(monkeypatch, clock, GRAPH, (2, 4), head_settles=True)
    assert order == ["slice"] and asked == []


def test_a_lane_that_wins_during_the_head_stops_the_rule(monkeypatch, clock):
    order, seconds, asked, p = _beside(monkeypatch, clock, GRAPH, (2, 4), lane_wins_in=0.1)
    assert order == ["slice"] and asked == []


@pytest.mark.parametrize(
    ("graph", "quick"),
    [
        (GRAPH, (3, 4)),  # one value open
        (_regular(6, 60), (1, 4)),  # degree below 8
        (_regular(14, 60), (4, 8)),  # above WALK_MAX_DEGREE
    ],
    ids=["one-open", "degree-6", "degree-14"],
)
def test_outside_the_rule_the_second_solve_runs_whole(monkeypatch, clock, graph, quick):
    order, seconds, asked, p = _beside(monkeypatch, clock, graph, quick)
    assert order == ["slice"] and seconds == [pytest.approx(5.0)] and asked == []


@needs_cpsat
@pytest.mark.parametrize(("truth", "settles"), [(4, True), (0, False)])
def test_on_a_busy_machine_the_walk_and_probe_run_instead_of_the_second_solve(
    monkeypatch, clock, truth, settles
):
    """``WALK_BUSY_RULE``: the second solve is not due (``BESIDE_LANE_BUSY``), so the first core
    walks (for ``WALK_BUSY_SECONDS``) and probes in its own thread, then waits for the lane as
    before; an infeasible probe settles the question, otherwise nothing is told."""
    seen = []
    real_walk = portfolio._walk

    def walk_spy(p, seconds=portfolio.WALK_SECONDS):
        seen.append(seconds)
        return real_walk(p, seconds)

    monkeypatch.setattr(portfolio, "_walk", walk_spy)
    g = _regular(10, 60, 7163)
    order, seconds, asked, p = _beside(
        monkeypatch, clock, g, (3, 7), busy=1.0, truth=truth, pair_of=g
    )
    assert order == [("walk", 4)] and asked == [("probe", 3)]
    assert seen == [portfolio.WALK_BUSY_SECONDS]
    (probe,) = [s for s in p.steps if s.get("probe") == 3]
    assert probe["rule"] == "WALK_BUSY_RULE"
    if settles:
        assert p.lower == p.upper == 4
        assert refutes_r(g.in_neighbors, p.witness.s1, p.witness.s2, 5)
    else:
        assert (p.lower, p.upper) == (3, 7) and p.witness is None


def test_on_a_busy_machine_no_walk_outside_the_rule(monkeypatch, clock):
    order, seconds, asked, p = _beside(monkeypatch, clock, _regular(6, 60), (1, 4), busy=1.0)
    assert order == [] and asked == []


@needs_cpsat
def test_a_real_two_thread_solve_with_the_walk_beside_the_lane():
    """Real CP-SAT, real lane, real clock: a random 10-regular graph on 60 nodes, seed 7163 (the
    two-worker row lost in round 28; r* = 4, which the lane, the second solve or the walk and the
    probe prove): exact with a checked pair. The walk's step, when the head left it its turn,
    asks ``lower + 1``, and a probe follows only a pair (the clock decides which side wins, so
    only what holds either way is asserted)."""
    walked, asked = _solved(_regular(10, 60, 7163), 2, 4, "WALK_LANE_RULE")
    assert len(walked) <= 1 and len(asked) <= len(walked)
    if asked:
        assert walked[0]["found"] and asked[0]["probe"] == walked[0]["k"] - 1


# ---- WALK_CPU_RULE: the walk's budget in its thread's CPU time --------------------------------


class _BusyClock(test_deadline_spent._Clock):
    """The fake clock with a thread CPU clock of its own, moved by the fake walk below."""

    def __init__(self) -> None:
        super().__init__()
        self.cpu = 0.0

    def thread_time(self) -> float:
        return self.cpu


def _walked_steps(monkeypatch, wall_step: float, cpu_step: float, seconds: float, until=None):
    """``portfolio._walk`` for ``seconds`` on a fake clock where each step of the walk takes
    ``wall_step`` of wall time and ``cpu_step`` of the thread's CPU; the steps it ran and its
    ``walk`` step record."""
    fake = _BusyClock()
    monkeypatch.setattr(search, "time", fake)
    monkeypatch.setattr(portfolio, "time", fake)
    steps = []

    def fake_run(self, k, stop=None, **kw):
        while not stop():
            steps.append(k)
            fake.now += wall_step
            fake.cpu += cpu_step
        return None

    monkeypatch.setattr(walk.Walk, "run", fake_run)
    request = Request(GRAPH, Question.max_r(), time_limit=10.0, threads=2)
    p = Progress(request, "portfolio", "strong", "t")
    p.lower, p.upper = 2, 4
    end = None if until is None else fake.now + until
    assert portfolio._walk(p, seconds, until=end) is None
    (record,) = [s for s in p.steps if s.get("step") == "walk"]
    return len(steps), record


W = 1 / 64  # a step's wall time (binary fractions: the sums below are exact)


def test_an_idle_walk_runs_its_seconds_of_cpu(monkeypatch):
    """Idle (a step's CPU equals its wall time) the budget is spent as before: 0.25 s, 16 steps."""
    steps, record = _walked_steps(monkeypatch, W, W, 0.25)
    assert steps == 16
    assert record["walk_cpu"] == record["walk_seconds"] == 0.25


def test_a_busy_walk_gets_its_cpu_in_more_wall_time(monkeypatch):
    """A step that gets half a core: 0.25 s of CPU takes 32 steps and 0.5 s of wall, where a
    wall budget (before round 34) stopped after 16 steps and 0.125 s of CPU."""
    steps, record = _walked_steps(monkeypatch, W, W / 2, 0.25)
    assert steps == 32
    assert record["walk_cpu"] == 0.25 and record["walk_seconds"] == 0.5


def test_a_starved_walk_stops_at_three_times_its_budget_in_wall(monkeypatch):
    steps, record = _walked_steps(monkeypatch, W, 0.0, 0.25)
    assert portfolio.WALK_WALL_FACTOR == 3.0
    assert steps == 48 and record["walk_cpu"] == 0.0 and record["walk_seconds"] == 0.75


def test_a_walk_stops_at_the_end_it_is_given(monkeypatch):
    """``WALK_LANE_RULE``'s walk ends at the second solve's end when that comes first."""
    steps, record = _walked_steps(monkeypatch, W, W / 2, 0.25, until=0.125)
    assert steps == 8 and record["walk_seconds"] == 0.125
