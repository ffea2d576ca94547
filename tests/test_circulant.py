"""The circulant lower bound (``solvers.circulant``) against the exhaustive engine, and its use
by the portfolio and by ``certify``'s theorem proofs."""

import random

from conftest import topologies
from hypothesis import given, settings
from hypothesis import strategies as st

from robustgraph import generators as gen
from robustgraph.certificate.proofs import theorem
from robustgraph.topology import Topology
from solvers import circulant, exhaustive, portfolio
from solvers.types import Question, Request


def _exact_r(t: Topology) -> int:
    return exhaustive.solve(Request(t, Question.max_r())).value


def _ring(n: int, k: int) -> list[set[int]]:
    return [{(i + d) % n for d in range(-k, k + 1) if d} for i in range(n)]


@st.composite
def circulants(draw, max_n: int = 14):
    """C_n(1..k) on shuffled labels, n >= 2k + 2, k >= 2; sometimes with extra edges (then on
    the identity labels, where only the identity order can show the circulant)."""
    n = draw(st.integers(6, max_n))
    k = draw(st.integers(2, (n - 2) // 2))
    edges = {(min(i, j), max(i, j)) for i, nb in enumerate(_ring(n, k)) for j in nb}
    if draw(st.booleans()):
        extra = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=6))
        edges |= {(min(u, v), max(u, v)) for u, v in extra if u != v}
        return n, k, Topology.from_edges(sorted(edges), nodes=range(n), directed=False), False
    name = draw(st.permutations(range(n)))
    moved = sorted({(min(name[u], name[v]), max(name[u], name[v])) for u, v in edges})
    return n, k, Topology.from_edges(moved, nodes=range(n), directed=False), True


@settings(max_examples=120, deadline=None)
@given(circulants())
def test_a_circulant_is_found_on_any_labels_and_its_k_is_a_lower_bound(case):
    n, k, t, relabelled = case
    found = circulant.find(t.in_neighbors)
    if relabelled and n == 2 * k + 2:  # K_n minus a perfect matching: no walk (see find)
        assert found is None or _exact_r(t) >= found[0]
        return
    assert found is not None
    found_k, order = found
    assert sorted(order) == list(range(n))
    assert circulant.ring_k(t.in_neighbors, order) == found_k
    assert found_k == k if relabelled else found_k >= k
    assert _exact_r(t) >= found_k


@settings(max_examples=200, deadline=None)
@given(topologies(max_n=10))
def test_whatever_the_graph_a_found_circulant_holds_and_bounds_r(t):
    """Soundness on random graphs and digraphs: a returned order shows the ring on every node,
    and r* (exhaustive) is at least its k."""
    found = circulant.find(t.in_neighbors)
    if found is None:
        return
    k, order = found
    n = t.n
    assert n >= 2 * k + 2 and k >= 2
    for p in range(n):
        for d in range(1, k + 1):
            assert order[(p + d) % n] in t.in_neighbors[order[p]]
            assert order[(p - d) % n] in t.in_neighbors[order[p]]
    assert _exact_r(t) >= k


def test_random_regular_graphs_and_cycles_unions_are_not_taken_for_circulants():
    import networkx as nx

    for seed in range(5):
        g = nx.random_regular_graph(6, 40, seed=seed)
        assert circulant.find(Topology.from_networkx(g).in_neighbors) is None
    two_rings = nx.disjoint_union(nx.circulant_graph(10, [1, 2]), nx.circulant_graph(10, [1, 2]))
    shuffled = random.Random(0).sample(range(20), 20)
    two_rings = nx.relabel_nodes(two_rings, dict(enumerate(shuffled)))
    assert circulant.find(Topology.from_networkx(two_rings).in_neighbors) is None


def test_the_portfolio_proves_r_of_a_relabelled_circulant_by_the_ring():
    n, k = 90, 12
    name = random.Random(5).sample(range(n), n)
    edges = [(name[i], name[j]) for i, nb in enumerate(_ring(n, k)) for j in nb if i < j]
    t = Topology.from_edges(edges, nodes=range(n), directed=False)
    res = portfolio.solve(Request(t, Question.max_r()))
    assert (res.lower, res.upper, res.value) == (k, k, k)
    steps = [s.get("step") for s in res.params["steps"]]
    assert "circulant" in steps


def test_certify_theorem_proofs_recognise_relabelled_circulants_and_their_check_accepts():
    ring = gen.k_circulant(30, 4)
    name = random.Random(2).sample(range(30), 30)
    moved = [frozenset()] * 30
    for i, nb in enumerate(ring.in_neighbors):
        moved[name[i]] = frozenset(name[j] for j in nb)
    proof = theorem.recognise(moved, 4, 1)
    assert proof is not None and proof["family"] == "circulant"
    assert theorem.check(moved, 4, 1, "circulant", proof["order"], proof["k"]) is None
    assert theorem.recognise(moved, 5, 1) is None  # r* = 4: no theorem may claim more
