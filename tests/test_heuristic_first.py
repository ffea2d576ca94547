"""Issue 40, round 9 (i40v): the heuristic pair before the published slices' skip decision
(``portfolio.HEURISTIC_FIRST_RULE``).

When the quick bounds leave the upper bound above the published slices' limit
(``portfolio._published_max_upper``), the heuristic witness search (``search.heuristic_r``)
runs first, so the decision sees the bound it brings; the dearer bounds after it
(``search.more_r``) then skip it. Nothing here is timed: the order of the steps is checked on
fake solves, and the answers of real solves with the rule forced on every graph are checked
against the subset DP on random graphs and digraphs."""

from __future__ import annotations

import networkx as nx
import pytest
from conftest import topologies
from hypothesis import given, settings

from robustgraph.topology import Topology
from solvers import bounds, exhaustive, portfolio, search, twins
from solvers.types import Question, Request, Status
from solvers.witness import refutes_r

BLOCK = 15
"""Each of the two cliques of :func:`_two_cliques`: least degree BLOCK - 1 = 14, above the
published limit of 8; the pair of the two cliques has value 1."""


def _two_cliques() -> Topology:
    g = nx.disjoint_union(nx.complete_graph(BLOCK), nx.complete_graph(BLOCK))
    g.add_edge(0, BLOCK)
    return Topology.from_networkx(g)


def _clique_pair(p) -> None:
    """A fake heuristic: offers the two cliques (checked by ``Progress.offer``), value 1."""
    p.offer((frozenset(range(BLOCK)), frozenset(range(BLOCK, 2 * BLOCK))))
    p.note("heuristic", value=1)


def _degree_only(p) -> bool:
    """The quick bounds cut to the degree witness: the upper bound is the least in-degree."""
    p.prove_lower(1)
    p.offer(bounds.degree_pair(p.request.graph.in_neighbors)[1])
    return p.settled()


def _run(monkeypatch, topology: Topology, heuristic) -> tuple[list[tuple], list[str]]:
    """One-thread solve with every step faked; the calls seen, in order, and the step names."""
    seen: list[tuple] = []

    def slices(p, lane=None, sample=None, highs_first=True):
        seen.append(("slices", p.upper, highs_first))

    def more(p, heuristic=True):
        seen.append(("more_r", heuristic))

    def early(p):
        seen.append(("heuristic_r", p.upper))
        heuristic(p)

    monkeypatch.setattr(portfolio, "CORES_MAX_N", 0)  # no core search
    monkeypatch.setattr(portfolio, "_published_slices", slices)
    monkeypatch.setattr(search, "quick_r", _degree_only)
    monkeypatch.setattr(search, "heuristic_r", early)
    monkeypatch.setattr(search, "more_r", more)
    monkeypatch.setattr(search, "strong_r_loop", lambda p, run, search_first=False: None)
    res = portfolio.solve(Request(topology, Question.max_r(), time_limit=100.0, threads=1))
    return seen, [s.get("step") for s in res.params["steps"]]


def test_a_heuristic_pair_below_the_limit_lets_the_slices_run_cpsat_alone(monkeypatch):
    seen, steps = _run(monkeypatch, _two_cliques(), _clique_pair)
    assert seen == [("heuristic_r", BLOCK - 1), ("slices", 1, False), ("more_r", False)]
    assert "heuristic" in steps and "published-skipped" not in steps


def test_a_heuristic_pair_above_the_limit_still_skips_them(monkeypatch):
    seen, steps = _run(monkeypatch, _two_cliques(), lambda p: None)
    assert seen == [("heuristic_r", BLOCK - 1), ("more_r", False)]
    assert "published-skipped" in steps and "heuristic" not in steps


def test_no_early_heuristic_when_the_upper_bound_is_already_low(monkeypatch):
    sparse = Topology.from_networkx(nx.cycle_graph(40))  # least degree 2
    seen, steps = _run(monkeypatch, sparse, _clique_pair)
    assert seen == [("slices", 2, True), ("more_r", True)]
    assert "published-skipped" not in steps


def test_heuristic_r_offers_a_checked_pair_and_respects_the_twins_rule():
    a, b = nx.gnp_random_graph(BLOCK, 0.8, seed=7381), nx.gnp_random_graph(BLOCK, 0.8, seed=7382)
    g = nx.disjoint_union(a, b)
    g.add_edge(0, BLOCK)  # r* = 1: the two blocks, each node with at most one outside neighbour
    t = Topology.from_networkx(g)
    p = search.Progress(Request(t, Question.max_r()), "portfolio", "strong", "test")
    search.heuristic_r(p)
    assert p.upper == 1 and refutes_r(t.in_neighbors, p.witness.s1, p.witness.s2, 2)
    assert [s["step"] for s in p.steps] == ["heuristic"]
    kab = Topology.from_networkx(nx.complete_bipartite_graph(10, 20))  # two twin classes
    q = search.Progress(Request(kab, Question.max_r()), "portfolio", "strong", "test")
    search.heuristic_r(q)
    assert q.steps == [] and q.witness is None


@settings(max_examples=40)
@given(topologies(max_n=9).filter(lambda g: g.n >= 3))
def test_the_rule_forced_on_every_graph_agrees_with_exhaustive(t):
    """With the published limit at 0 every graph whose in-degrees are not all equal takes the
    early heuristic (unless the twins rule holds) and skips the slices; with it at n, the slices
    run at once. Exact either way, and the witness is checked."""
    truth = exhaustive.solve(Request(t, Question.max_r())).value
    for most in (0, t.n):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(portfolio, "EXHAUSTIVE_N", 1)
            patch.setattr(portfolio, "CORES_MAX_N", 0)
            patch.setattr(portfolio, "PUBLISHED_MAX_UPPER", most)
            res = portfolio.solve(Request(t, Question.max_r(), threads=1))
        assert (res.status, res.value) == (Status.EXACT, truth)
        if res.witness is not None:
            assert refutes_r(t.in_neighbors, res.witness.s1, res.witness.s2, truth + 1)


def test_highs_first_false_runs_the_cpsat_slice_alone(monkeypatch):
    """``_published_slices(highs_first=False)`` on a graph whose in-degrees differ: one slice,
    on CP-SAT, of PUBLISHED_SLICE seconds (recorded, not run)."""
    from solvers import cpsat, highs

    if not (cpsat.available() and highs.available()):
        pytest.skip("needs ortools and highspy")
    runs: list[tuple] = []
    monkeypatch.setattr(
        search,
        "published_slice",
        lambda p, run, s, least=False, as_printed=False: runs.append((run, s)),
    )
    t = _two_cliques()
    for first, expected in ((True, [highs.run, cpsat.run]), (False, [cpsat.run])):
        runs.clear()
        p = search.Progress(Request(t, Question.max_r()), "portfolio", "strong", "test")
        portfolio._published_slices(p, highs_first=first)
        assert [run for run, _ in runs] == expected
        assert runs[-1][1] == portfolio.PUBLISHED_SLICE


def test_twin_classes_are_computed_once_per_request(monkeypatch):
    """The heuristic-first path asks the twins rule twice (``heuristic_r``, then ``more_r``):
    ``Progress.few_twins`` computes the classes once and both get the same answer."""
    calls = []

    def counted(nb):
        calls.append(len(nb))
        return twins.twin_classes(nb)

    monkeypatch.setattr(search, "twin_classes", counted)
    kab = Topology.from_networkx(nx.complete_bipartite_graph(10, 20))  # two twin classes
    p = search.Progress(Request(kab, Question.max_r()), "portfolio", "strong", "test")
    search.heuristic_r(p)
    search.more_r(p, heuristic=False)
    assert calls == [30]
    assert p.few_twins() and "heuristic" not in [s["step"] for s in p.steps]
    assert [s["step"] for s in p.steps][-1] == "twins"
    g = Topology.from_networkx(nx.cycle_graph(8))  # eight classes of one node: the rule fails
    q = search.Progress(Request(g, Question.max_r()), "portfolio", "strong", "test")
    search.heuristic_r(q)
    search.more_r(q, heuristic=False)
    assert calls == [30, 8] and not q.few_twins()
