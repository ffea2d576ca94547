"""Twin classes, the count model built on them and the extension seeds, against the exact DP."""

import itertools

import networkx as nx
import pytest
from conftest import topologies
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from robustgraph.generators import gamma_merg
from robustgraph.topology import Topology
from solvers import bounds, exhaustive, registry
from solvers.milp_model import strong_r
from solvers.twins import twin_classes
from solvers.types import Question, Request, Status
from solvers.witness import refutes_r


@st.composite
def blowups(draw, max_base: int = 4, max_class: int = 4):
    """A random (di)graph on up to ``max_base`` nodes with each node blown up into a class of
    1..``max_class`` twins, independent or complete: graphs rich in twins by construction."""
    directed = draw(st.booleans())
    k = draw(st.integers(1, max_base))
    sizes = [draw(st.integers(1, max_class)) for _ in range(k)]
    complete = [draw(st.booleans()) for _ in range(k)]
    pairs = [(a, b) for a in range(k) for b in range(k) if a != b and (directed or a < b)]
    arcs = [e for e in pairs if draw(st.booleans())]
    start = list(itertools.accumulate([0, *sizes]))
    members = [range(start[c], start[c + 1]) for c in range(k)]
    edges = [(u, v) for a, b in arcs for u in members[a] for v in members[b]]
    for c in range(k):
        if complete[c]:
            edges += [(u, v) for u in members[c] for v in members[c] if u != v]
    if not directed:
        edges = sorted({(min(u, v), max(u, v)) for u, v in edges})
    return Topology.from_edges(edges, nodes=range(start[-1]), directed=directed)


def _swap_is_automorphism(t: Topology, i: int, j: int) -> bool:
    perm = list(range(t.n))
    perm[i], perm[j] = j, i
    arcs = {(u, v) for v, s in enumerate(t.in_neighbors) for u in s}
    return {(perm[u], perm[v]) for u, v in arcs} == arcs


@settings(max_examples=60, deadline=None)
@given(st.one_of(blowups(), topologies(max_n=8)))
def test_twin_classes_partition_nodes_into_automorphic_swaps(t):
    classes = twin_classes(t.in_neighbors)
    assert sorted(i for c in classes for i in c.members) == list(range(t.n))
    owner = {i: k for k, c in enumerate(classes) for i in c.members}
    for k, c in enumerate(classes):
        for i, j in itertools.combinations(c.members, 2):
            assert _swap_is_automorphism(t, i, j)
            assert (i in t.in_neighbors[j]) == c.complete
        for i in c.members:
            heard = {owner[j] for j in t.in_neighbors[i]} - {k}
            assert heard == set(c.hears)
            assert t.in_neighbors[i] - set(c.members) == {
                j for h in c.hears for j in classes[h].members
            }


def test_twin_classes_of_known_graphs():
    assert len(twin_classes(Topology.from_networkx(nx.complete_graph(9)).in_neighbors)) == 1
    bip = Topology.from_networkx(nx.complete_bipartite_graph(3, 5)).in_neighbors
    assert [c.size for c in twin_classes(bip)] == [3, 5]
    assert len(twin_classes(gamma_merg(41).in_neighbors)) == 2  # the clique and the rest
    assert len(twin_classes(Topology.from_networkx(nx.cycle_graph(8)).in_neighbors)) == 8


@pytest.mark.parametrize("engine", ["cpsat", "highs"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(t=blowups(max_base=4, max_class=4), probe_shift=st.integers(-1, 1))
def test_count_model_agrees_with_exhaustive(engine, t, probe_shift):
    """r* and the decision at r* + shift, on twin-rich graphs up to 16 nodes."""
    truth = exhaustive.solve(Request(t, Question.max_r())).value
    for q in (Question.max_r(), Question.is_r_robust(max(0, truth + probe_shift))):
        res = registry.solve(Request(t, q, threads=1), engine)
        assert res.status is Status.EXACT
        if q.target is None:
            assert res.value == truth
        else:
            assert res.holds == (truth >= q.target)
        if res.witness is not None:
            assert refutes_r(t.in_neighbors, res.witness.s1, res.witness.s2, res.upper + 1)


def test_count_model_is_smaller_than_the_node_model():
    nb = gamma_merg(60).in_neighbors
    assert len(strong_r(nb, 30).sets[0]) == len(twin_classes(nb)) < 60


@settings(max_examples=80, deadline=None)
@given(st.one_of(blowups(max_base=5, max_class=3), topologies(max_n=10)), st.integers(1, 5))
def test_extension_with_clique_seeds_never_overclaims(t, r):
    if bounds.extension_proves(t.in_neighbors, r):
        assert exhaustive.solve(Request(t, Question.max_r())).value >= r


def test_extension_closure_of_a_clique_covers_a_preferential_attachment_graph():
    from robustgraph.generators import preferential_attachment

    nb = preferential_attachment(80, 4, seed=2).in_neighbors
    assert len(bounds.extension_closure(nb, 4, frozenset(range(7)))) == 80
    assert len(bounds.extension_closure(nb, 5, frozenset(range(7)))) < 80


@pytest.mark.parametrize("n", [19, 20, 23])
def test_portfolio_on_twin_rich_graphs_beyond_the_dp_threshold(n):
    """Beyond the portfolio's DP, the count model must still match the exhaustive engine."""
    for t in (gamma_merg(n), Topology.from_networkx(nx.complete_multipartite_graph(3, 5, n - 8))):
        truth = exhaustive.solve(Request(t, Question.max_r())).value
        res = registry.solve(Request(t, Question.max_r()), "portfolio")
        assert (res.status, res.value) == (Status.EXACT, truth)
