"""The racing portfolio (solvers/race.py): exact against the exhaustive reference, honest when a
racer fails or time runs out, and no racer thread outlives a race."""

import _thread
import threading
import time

import networkx as nx
import pytest
from conftest import topologies
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from robustgraph.topology import Topology
from solvers import bounds, cpsat, exhaustive, heuristics, highs, portfolio, race, registry, search
from solvers.interrupt import StopSignal
from solvers.milp_model import Outcome, strong_r
from solvers.search import Progress
from solvers.types import Question, Request, Result, Status, Witness
from solvers.witness import refutes_r, refutes_rs

RACERS = race.racers()
STRONG_ONLY = race.racers(published=0.0)
pytestmark = pytest.mark.skipif(len(RACERS) < 2, reason="needs ortools and highspy")


def _progress(t: Topology, q: Question, time_limit: float | None = None) -> Progress:
    """Bounds as the race finds them, minus the cheap searches: the halves witness only."""
    p = Progress(Request(t, q, time_limit, 2), "portfolio", "strong", "test")
    if not q.about_s:
        p.offer(bounds.halves_pair(t.in_neighbors)[1])
    return p


def _check_witness(t: Topology, q: Question, p: Progress) -> None:
    w = p.witness
    if w is None:
        assert p.upper == bounds.trivial_upper(q, t.n)
    elif q.about_s:
        assert refutes_rs(t.in_neighbors, w.s1, w.s2, q.r, p.upper + 1)
    else:
        assert refutes_r(t.in_neighbors, w.s1, w.s2, p.upper + 1)


def _race_threads() -> list[threading.Thread]:
    return [th for th in threading.enumerate() if th.name.startswith("race-")]


@st.composite
def race_cases(draw):
    t = draw(topologies(max_n=12).filter(lambda g: g.n >= 2))
    kind = draw(st.sampled_from(["max_r", "is_r_robust", "max_s", "is_rs_robust"]))
    r = draw(st.integers(1, (t.n + 1) // 2))
    q = {
        "max_r": Question.max_r(),
        "is_r_robust": Question.is_r_robust(r),
        "max_s": Question.max_s(r),
        "is_rs_robust": Question.is_rs_robust(r, draw(st.integers(0, t.n + 1))),
    }[kind]
    return t, q


@pytest.mark.parametrize("entrants", [RACERS, STRONG_ONLY], ids=["published-slice", "strong"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=race_cases())
def test_race_agrees_with_exhaustive(entrants, case):
    t, q = case
    truth = exhaustive.solve(Request(t, q))
    p = _progress(t, q)
    settled_before = p.settled()
    winner = race.race(p, entrants)
    res = p.result()
    assert res.status is Status.EXACT, res.params["steps"]
    if q.target is None:
        assert res.value == truth.value
    else:
        assert res.holds == truth.holds and res.lower <= truth.value <= res.upper
    _check_witness(t, q, p)
    assert winner in ({None} if settled_before else {r.name for r in entrants})
    assert p.steps[-1]["step"] == "race" and p.steps[-1]["winner"] == winner
    assert not _race_threads()


@pytest.mark.parametrize(("seed", "directed"), [(0, False), (1, True)])
def test_portfolio_with_two_threads_races_the_gap(monkeypatch, seed, directed):
    """Past the subset DP (cut-off forced to 0), threads=2 races; threads=1 is unchanged."""
    monkeypatch.setattr(portfolio, "EXHAUSTIVE_N", 0)
    monkeypatch.setattr(portfolio, "EXHAUSTIVE_S_N", 0)
    t = Topology.from_networkx(nx.gnp_random_graph(14, 0.6, seed=seed, directed=directed))
    for q in (Question.max_r(), Question.is_r_robust(3), Question.max_s(2)):
        truth = exhaustive.solve(Request(t, q))
        two = registry.solve(Request(t, q, threads=2), "portfolio")
        one = registry.solve(Request(t, q, threads=1), "portfolio")
        for res in (one, two):
            assert res.status is Status.EXACT
            assert res.lower <= truth.value <= res.upper and res.holds == truth.holds
        assert not any(s.get("step") == "race" or "engine" in s for s in one.params["steps"])
        raced = any(s.get("step") == "race" for s in two.params["steps"])
        assert raced == ("engine" in str(two.params["steps"]))
        if raced:
            assert two.params["exact_engine"] == "cpsat+highs"
            assert "highspy" in two.engine_version and "ortools" in two.engine_version


def _crash(model, time_limit, threads, seed, *, stop=None):
    raise RuntimeError("solver fell over")


def _bogus(model, time_limit, threads, seed, *, stop=None):
    """Claims a solution that decodes to two empty sets: never a witness."""
    return Outcome("optimal", [0.0] * len(model.vars), 0.0, 0.0, "BOGUS")


def _graph(seed: int = 3) -> Topology:
    return Topology.from_networkx(nx.gnp_random_graph(12, 0.6, seed=seed))


@pytest.mark.parametrize("bad", [_crash, _bogus])
@pytest.mark.parametrize("good", STRONG_ONLY, ids=lambda r: r.name)
def test_a_failing_racer_neither_blocks_nor_claims(bad, good):
    t, q = _graph(), Question.max_r()
    p = _progress(t, q)
    winner = race.race(p, [race.Racer("bad", bad), good])
    assert winner == good.name
    assert (p.lower, p.upper) == (exhaustive.solve(Request(t, q)).value,) * 2
    _check_witness(t, q, p)
    bad_steps = [s for s in p.steps if s.get("engine") == "bad"]
    assert bad_steps and all(s["outcome"] in ("invalid", "optimal") for s in bad_steps)
    assert len(bad_steps) == 1  # it dropped out after its first failure


@pytest.mark.parametrize("bad", [_crash, _bogus])
def test_only_failing_racers_prove_nothing(bad):
    t, q = _graph(), Question.max_r()
    p = _progress(t, q)
    before = (p.lower, p.upper, p.witness)
    assert race.race(p, [race.Racer("a", bad), race.Racer("b", bad)]) is None
    assert (p.lower, p.upper, p.witness) == before
    assert p.result().status is not Status.EXACT


def _blocking(model, time_limit, threads, seed, *, stop=None):
    """Searches until stopped or out of time, and finds nothing."""
    start = time.perf_counter()
    stop.wait(time_limit)
    return Outcome("unknown", None, None, time.perf_counter() - start, "BLOCKED")


def _recorded(run, given: list):
    """``run``, noting the time limit each solve was given (the race's deadline, as kept)."""

    def recorded(model, time_limit, threads, seed, *, stop=None):
        given.append(time_limit)
        return run(model, time_limit, threads, seed, stop=stop)

    return recorded


class _FakeTime:
    """The clock of ``solvers.race`` and ``solvers.search`` (``perf_counter``), moved only by the
    fake engines: a stalled solve ends when every racer is stalled and its end is the earliest,
    and the clock jumps there. The race then runs the same on any machine at any load: its
    phases and climbs depend on the order of these ends, never on how fast threads run."""

    thread_time = staticmethod(time.thread_time)

    def __init__(self, racers: int = 2) -> None:
        self.now = 0.0
        self.racers = racers
        self.ends: dict[int, float] = {}
        self.lock = threading.Lock()

    def perf_counter(self) -> float:
        return self.now

    def stall(self, seconds: float, stop: StopSignal) -> bool:
        """Spend ``seconds`` of fake time; True when ``stop`` came first."""
        me = threading.get_ident()
        with self.lock:
            self.ends[me] = self.now + seconds
        try:
            while not stop.wait(0.002):
                with self.lock:
                    end = self.ends[me]
                    if end <= self.now:
                        return False
                    if len(self.ends) == self.racers and end == min(self.ends.values()):
                        self.now = end
                        return False
            return True
        finally:
            with self.lock:
                del self.ends[me]

    def blocking(self, model, time_limit, threads, seed, *, stop=None):
        """:func:`_blocking` on this clock."""
        start = self.now
        self.stall(time_limit, stop)
        return Outcome("unknown", None, None, self.now - start, "BLOCKED")


@pytest.fixture
def fake_time(monkeypatch) -> _FakeTime:
    clock = _FakeTime()
    monkeypatch.setattr(race, "time", clock)
    monkeypatch.setattr(search, "time", clock)
    return clock


def test_a_time_out_merges_what_each_racer_proved_and_is_bounded():
    """One racer proves a lower bound (a published dual bound), the other finds a witness;
    neither settles the question: the result holds both and is bounded."""
    t, q = _graph(), Question.max_r()
    truth = exhaustive.solve(Request(t, q)).value
    assert truth >= 3
    calls = {"finder": 0}
    given = []

    def lowerer(model, time_limit, threads, seed, *, stop=None):
        given.append(time_limit)
        if model.name == "published-r":
            return Outcome("unknown", None, 1.0, 0.0, "BOUND ONLY")
        return _blocking(model, time_limit, threads, seed, stop=stop)

    def finder(model, time_limit, threads, seed, *, stop=None):
        calls["finder"] += 1
        if calls["finder"] == 1:  # the witness, found at any speed (an easy feasibility solve)
            return cpsat.run(model, None, 1, seed)
        given.append(time_limit)
        return _blocking(model, time_limit, threads, seed, stop=stop)

    p = Progress(Request(t, q, 0.8, 2), "portfolio", "strong", "test")
    winner = race.race(p, [race.Racer("lowerer", lowerer, 0.5), race.Racer("finder", finder)])
    assert given and all(g is not None and g <= 0.8 for g in given)  # each kept the deadline
    res = p.result()
    assert winner is None and res.status is Status.BOUNDED
    assert res.lower == 1  # the lowerer's bound: nothing else proved a lower bound here
    assert truth <= res.upper < bounds.trivial_upper(q, t.n)  # the finder's checked witness
    _check_witness(t, q, p)
    engines = {s.get("engine") for s in p.steps}
    assert {"lowerer", "finder"} <= engines
    assert not _race_threads()


def test_nothing_proven_in_time_is_a_timeout_and_every_racer_stops():
    t, q = _graph(), Question.max_r()
    p = Progress(Request(t, q, 0.3, 2), "portfolio", "strong", "test")
    given = []
    blocking = _recorded(_blocking, given)
    assert race.race(p, [race.Racer("a", blocking), race.Racer("b", blocking)]) is None
    assert given and all(g is not None and g <= 0.3 for g in given)  # each kept the deadline
    assert p.result().status is Status.TIMEOUT
    assert not _race_threads()


def test_ctrl_c_stops_every_racer_before_it_propagates():
    t, q = _graph(), Question.max_r()
    p = Progress(Request(t, q, None, 2), "portfolio", "strong", "test")
    stopped = []

    def watched(model, time_limit, threads, seed, *, stop=None):
        out = _blocking(model, time_limit, threads, seed, stop=stop)
        stopped.append(stop.is_set())
        return out

    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        race.race(p, [race.Racer("a", watched), race.Racer("b", watched)])
    timer.join()
    assert stopped == [True, True]
    assert not _race_threads()


def _hard_model():
    """The strong r* = 10 decision of G(40, 1/2): several seconds for either engine."""
    t = Topology.from_networkx(nx.gnp_random_graph(40, 0.5, seed=0))
    return strong_r(t.in_neighbors, 10)


@pytest.mark.parametrize("engine", [cpsat, highs], ids=lambda m: m.NAME)
def test_a_stop_signal_ends_a_native_solve_at_once(engine):
    """The adapters honour StopSignal from another thread (resent until the solve returns,
    as the race's referee does)."""
    model = _hard_model()
    signal = StopSignal()
    box = {}

    def solve():
        box["out"] = engine.run(model, 60.0, 1, 0, stop=signal)

    worker = threading.Thread(target=solve)
    worker.start()
    time.sleep(0.5)
    signal.set()
    while worker.is_alive():
        signal.poke()
        worker.join(0.05)
    # stopped before it settled the model (a proof would be optimal or infeasible), and well
    # before its 60 s limit: 30 s is a hang guard that no load brings a stopped solve near
    assert box["out"].status in ("unknown", "feasible")
    assert box["out"].seconds < 30.0


@pytest.mark.parametrize("module", ["solvers.race", "solvers.interrupt", "solvers.search"])
def test_docstring_examples(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0


def _stalls_above(provable: int, calls: list, name: str, clock: _FakeTime):
    """A fake engine: proves every r (or s) probe up to ``provable`` at once, stalls on the rest
    (until stopped or its time limit, on ``clock``); ``calls`` records (racer, probe, limit)."""

    def run(model, time_limit, threads, seed, *, stop=None):
        probe = int(model.name.removeprefix("strong-r").removeprefix("strong-s"))
        calls.append((name, probe, time_limit))
        if probe <= provable:
            return Outcome("infeasible", None, None, 0.0, "fake: proved")
        return clock.blocking(model, time_limit, threads, seed, stop=stop)

    return run


def _stalled_graph(seed: int) -> tuple[Topology, Result]:
    t = Topology.from_networkx(nx.gnp_random_graph(20, 0.5, seed=seed, directed=True))
    return t, exhaustive.solve(Request(t, Question.max_r()))


@pytest.mark.parametrize(
    ("seed", "blind", "long"),
    [
        (0, 0, "bogus"),
        (4, 1, "bogus"),
        (7, 2, "bogus"),
        (9, 2, "truth"),
        (4, 0, "truth"),
        (7, 1, "none"),
    ],
)
def test_a_stalled_race_climbs_from_below_and_claims_only_what_is_proven(
    monkeypatch, fake_time, seed, blind, long
):
    """Both racers stall on every probe above r* - blind (blind = 0: above r*) and prove the
    rest: after TOP_SHARE of the time at the upper bound, the first climbs from below, the second
    runs the long witness search (here a fake: a bogus pair, the true witness, or nothing) and
    then climbs too. The race must end bounded at exactly the provable lower bound, with checked
    witnesses only, and no bound past r* (exhaustive truth, digraphs G(20, 1/2))."""
    t, truth = _stalled_graph(seed)
    provable = truth.value if blind == 0 else truth.value - blind - 1
    fakes = {
        "bogus": (0, Witness(frozenset({0}), frozenset({0}))),  # overlapping sets: no witness
        "truth": (truth.value, truth.witness),
        "none": None,
    }
    asked = []
    monkeypatch.setattr(
        heuristics,
        "long_search_r",
        lambda nb, seconds, *, seed, stop=None: asked.append(seconds) or fakes[long],
    )
    limit = 1.2
    p = _progress(t, Question.max_r(), limit)
    p.prove_lower(1)
    top, before = p.upper, p.lower
    assert top > truth.value and p.upper - p.lower > 1  # the halves witness leaves a gap here
    calls = []
    entrants = [
        race.Racer(name, _stalls_above(provable, calls, name, fake_time)) for name in ("a", "b")
    ]
    winner = race.race(p, entrants)
    assert all(budget is not None and budget <= limit for _, _, budget in calls)
    res = p.result()
    assert not _race_threads()
    _check_witness(t, Question.max_r(), p)
    # the top phase: both racers at the upper bound, within TOP_SHARE of the time left
    firsts = {name: next(c for c in calls if c[0] == name) for name in ("a", "b")}
    assert all(
        probe == top and budget <= search.TOP_SHARE * limit for _, probe, budget in firsts.values()
    )
    # the long witness search: once, by the second racer, its pair checked
    long_steps = [s for s in p.steps if s.get("step") == "long-heuristic"]
    assert len(asked) == 1 and 0 < asked[0] <= search.IMPROVE_SHARE * limit
    assert [s["engine"] for s in long_steps] == ([] if long == "none" else ["b"])
    if long == "bogus":
        assert long_steps[0]["value"] is None and p.witness != fakes["bogus"][1]
    if long == "truth":
        assert long_steps[0]["value"] == truth.value and res.upper == truth.value
    # the climb: from below, proving exactly what the fake proves
    climbs = [s for s in p.steps if s.get("climb")]
    assert all(s["probe"] <= top for s in climbs)  # top again only once nothing is left below
    assert res.lower == max(provable, before) <= truth.value <= res.upper <= top
    if res.lower == res.upper:  # only the true witness with nothing hidden settles it
        assert long == "truth" and blind == 0 and res.status is Status.EXACT
        assert winner in ("a", "b")
    else:  # both racers climbed until the time limit
        assert res.status is Status.BOUNDED and winner is None
        assert {s["engine"] for s in climbs} == {"a", "b"}


def test_a_stalled_s_race_climbs_without_the_long_search(fake_time):
    """For s*_r both racers climb at once (the long witness search is for r only) and end at
    exactly the provable lower bound (digraph G(20, 1/2) seed 4: s*_3 = 5, exhaustive)."""
    t, _ = _stalled_graph(4)
    q = Question.max_s(3)
    truth = exhaustive.solve(Request(t, q)).value
    p = _progress(t, q, 1.0)
    calls = []
    entrants = [
        race.Racer(name, _stalls_above(truth - 1, calls, name, fake_time)) for name in ("a", "b")
    ]
    assert race.race(p, entrants) is None
    res = p.result()
    assert res.status is Status.BOUNDED and (res.lower, res.upper) == (truth - 1, t.n)
    climbs = [s for s in p.steps if s.get("climb")]
    assert {s["engine"] for s in climbs} == {"a", "b"}
    assert not any(s.get("step") == "long-heuristic" for s in p.steps)
    assert not _race_threads()


def test_a_climb_probe_below_a_proven_bound_is_stopped(monkeypatch, fake_time):
    """After the top phase one racer climbs at the midpoint and the other below it (the long
    search finds nothing); when the midpoint is proven, the probe below it is stopped."""
    monkeypatch.setattr(heuristics, "long_search_r", lambda nb, seconds, *, seed, stop=None: None)
    t, truth = _stalled_graph(4)
    p = _progress(t, Question.max_r(), 2.0)
    p.prove_lower(1)
    middle = search.climb_probe(p.lower, p.upper, p.upper)
    under = search.climb_probe(p.lower, p.upper, middle)
    assert 1 < under < middle <= truth.value

    def slow_at_middle(model, time_limit, threads, seed, *, stop=None):
        if model.name == f"strong-r{middle}" and not fake_time.stall(0.15, stop):
            return Outcome("infeasible", None, None, 0.15, "fake: proved")
        return fake_time.blocking(model, time_limit, threads, seed, stop=stop)

    entrants = [race.Racer("a", slow_at_middle), race.Racer("b", slow_at_middle)]
    assert race.race(p, entrants) is None
    assert p.lower == middle and p.result().status is Status.BOUNDED
    proof = next(s for s in p.steps if s.get("outcome") == "infeasible")
    below = next(s for s in p.steps if s.get("probe") == under)
    assert proof["climb"] and proof["probe"] == middle
    assert below["climb"] and below["stopped"] and below["engine"] != proof["engine"]
    assert below["seconds"] < 0.25  # stopped by the proof, not by its budget (0.3 fake s)
    assert not _race_threads()


def test_a_race_settled_at_the_top_never_climbs():
    """The first phase's proof ends the race: no climb, no long search, the other racer stopped."""
    t, truth = _stalled_graph(0)
    calls = []

    def slow_prover(model, time_limit, threads, seed, *, stop=None):
        calls.append(time_limit)
        if stop.wait(0.3):
            return Outcome("unknown", None, None, 0.3, "fake: stopped")
        return Outcome("infeasible", None, None, 0.3, "fake: proved")

    limit = 3.0
    p = Progress(Request(t, Question.max_r(), limit, 2), "portfolio", "strong", "test")
    p.offer(truth.witness)
    p.prove_lower(1)
    winner = race.race(p, [race.Racer("slow", slow_prover), race.Racer("stuck", _blocking)])
    # ended by the proof, not the clock: the stuck racer was stopped (its own end is at 2.1 s)
    assert winner == "slow" and p.result().status is Status.EXACT
    assert (p.lower, p.upper) == (truth.value, truth.value)
    assert len(calls) == 1 and calls[0] <= search.TOP_SHARE * limit  # the top phase's budget
    assert not any(s.get("climb") or s.get("step") == "long-heuristic" for s in p.steps)
    stuck = [s for s in p.steps if s.get("engine") == "stuck"]
    assert len(stuck) == 1 and stuck[0]["stopped"]
    assert not _race_threads()


@pytest.mark.parametrize("seed", [0, 1])
def test_real_racers_settling_in_time_never_climb(seed):
    """CP-SAT and HiGHS under a time limit settle G(16, 0.6) in the first phase: exact, no climb."""
    t = Topology.from_networkx(nx.gnp_random_graph(16, 0.6, seed=seed, directed=bool(seed)))
    q = Question.max_r()
    p = _progress(t, q, 30.0)
    p.prove_lower(1)
    race.race(p, RACERS)
    assert p.result().status is Status.EXACT
    assert p.lower == exhaustive.solve(Request(t, q)).value
    assert not any(s.get("climb") or s.get("step") == "long-heuristic" for s in p.steps)
    assert not _race_threads()
