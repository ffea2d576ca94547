"""The core search (solvers.cores) and the portfolio's hand-over from it, against exhaustive."""

import networkx as nx
import pytest
from conftest import topologies
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from robustgraph.topology import Topology
from solvers import cores, exhaustive, portfolio, registry
from solvers.errors import SolverUnavailable
from solvers.types import Question, Request, Status
from solvers.witness import refutes_r


def _masks(t: Topology) -> list[int]:
    return [sum(1 << j for j in s) for s in t.in_neighbors]


def _agrees(t: Topology, q: Question, engine: str = "cores") -> None:
    truth = exhaustive.solve(Request(t, Question.max_r())).value
    res = registry.solve(Request(t, q), engine)
    assert res.status is Status.EXACT, res.params
    if q.target is None:
        assert res.value == truth
    else:
        assert res.holds == (truth >= q.target)
        assert res.lower <= truth <= res.upper
    if t.n >= 2:
        assert res.witness is not None
        assert refutes_r(t.in_neighbors, res.witness.s1, res.witness.s2, res.upper + 1)


@st.composite
def r_cases(draw, max_n: int):
    t = draw(topologies(max_n=max_n))
    r = draw(st.integers(0, (t.n + 1) // 2 + 1))
    return t, draw(st.sampled_from([Question.max_r(), Question.is_r_robust(r)]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=r_cases(max_n=11))
def test_cores_agrees_with_exhaustive(case):
    _agrees(*case)


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("p", [0.25, 0.5, 0.75])
@pytest.mark.parametrize("seed", range(3))
def test_cores_on_larger_random_graphs(directed, p, seed):
    t = Topology.from_networkx(nx.gnp_random_graph(16, p, seed=seed, directed=directed))
    _agrees(t, Question.max_r())


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(14, 21),
    p=st.sampled_from([0.3, 0.5, 0.7, 0.9]),
    directed=st.booleans(),
    seed=st.integers(0, 10**6),
)
def test_cores_on_random_graphs_of_14_to_21_nodes(n, p, directed, seed):
    """Dense graphs too, where the Hall and maximality deductions cut the most."""
    t = Topology.from_networkx(nx.gnp_random_graph(n, p, seed=seed, directed=directed))
    _agrees(t, Question.max_r())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(t=topologies(max_n=11), k=st.integers(0, 6))
def test_pair_within_is_a_checked_pair_or_a_proof(t, k):
    """A pair has reach <= k on both sides; None exactly when the graph is (k+1)-robust."""
    truth = exhaustive.solve(Request(t, Question.max_r())).value
    found = cores.pair_within(_masks(t), k)
    if found is None:
        assert truth >= k + 1 or t.n < 2
    else:
        assert refutes_r(t.in_neighbors, found.s1, found.s2, k + 1)


@pytest.mark.parametrize("seed", range(4))
def test_a_stopped_search_keeps_only_proven_bounds(seed):
    t = Topology.from_networkx(nx.gnp_random_graph(18, 0.5, seed=seed, directed=seed % 2 == 1))
    truth = exhaustive.solve(Request(t, Question.max_r())).value
    res = cores.solve(Request(t, Question.max_r()), cpu=0.0)
    assert res.status in (Status.BOUNDED, Status.TIMEOUT, Status.EXACT)
    assert res.lower <= truth <= res.upper
    assert refutes_r(t.in_neighbors, res.witness.s1, res.witness.s2, res.upper + 1)
    if res.status is not Status.EXACT:
        assert res.lower < res.upper


def test_cores_refuses_s_questions():
    with pytest.raises(SolverUnavailable):
        registry.solve(Request(Topology.from_edges([(0, 1)]), Question.max_s(1)), "cores")


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_portfolio_hands_a_stopped_core_search_on(directed, seed, monkeypatch):
    """No time for the core search: its bounds go on to the subset DP (n <= 16 here) and, above
    a lowered DP threshold, to the bounds and models; every answer stays exact."""
    monkeypatch.setattr(portfolio, "CORES_SECONDS", 0.0)
    monkeypatch.setattr(portfolio, "CORES_SHORT_SECONDS", 0.0)
    t = Topology.from_networkx(nx.gnp_random_graph(17, 0.45, seed=seed, directed=directed))
    for q in (Question.max_r(), Question.is_r_robust(3)):
        _agrees(t, q, "portfolio")
    monkeypatch.setattr(portfolio, "EXHAUSTIVE_N", 16)
    res = registry.solve(Request(t, Question.max_r()), "portfolio")
    assert [s.get("step") for s in res.params["steps"]][0] == "cores"
    _agrees(t, Question.max_r(), "portfolio")


def test_portfolio_answers_small_graphs_without_numpy():
    """The core search settles a sparse 30-node graph in a process that never imports numpy
    (here: a fresh interpreter, the graph given as plain in-neighbour sets)."""
    import subprocess
    import sys

    code = (
        "import sys, random\n"
        "from types import SimpleNamespace\n"
        "from solvers import registry\n"
        "from solvers.types import Question, Request\n"
        "rng = random.Random(5)\n"
        "nb = [set() for _ in range(30)]\n"
        "for u in range(30):\n"
        "    for v in range(u + 1, 30):\n"
        "        if rng.random() < 0.3:\n"
        "            nb[u].add(v); nb[v].add(u)\n"
        "g = SimpleNamespace(directed=False, in_neighbors=[frozenset(s) for s in nb])\n"
        "res = registry.solve(Request(g, Question.max_r()))\n"
        "print(res.status, res.params['steps'][0]['step'], 'numpy' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["exact", "cores", "False"]


def test_roots_outside_their_tails_are_never_searched():
    """r* = 3 of a 100-node preferential-attachment graph: the proof at k = 2 searches only
    roots (a, b) whose a and b lie in core_2 of the nodes from there on (3 search nodes; all
    4,950 roots were searched before), and the search still agrees with the witness bound."""
    from robustgraph import generators

    masks = _masks(generators.preferential_attachment(100, 3, seed=1))
    relabelled = cores._relabel(masks, cores._order(masks))
    need = cores.needs_at(relabelled, 2)
    search = cores._Search(relabelled, need, need, None)
    assert search.pair() is None
    assert search.nodes < 100
    assert cores.search_r(masks)[:2] == (3, 3)
