"""Cheap bounds, heuristics and the neutral model layer, each against the exact reference."""

import networkx as nx
import pytest
from conftest import naive_max_r, topologies
from hypothesis import given, settings
from hypothesis import strategies as st

from robustgraph.topology import Topology
from solvers import bounds, exhaustive, heuristics, pool_s
from solvers.errors import ParameterError
from solvers.milp_model import Model, strong_r
from solvers.types import Question, Request
from solvers.witness import refutes_r, refutes_rs


def _r(t: Topology) -> int:
    return exhaustive.solve(Request(t, Question.max_r())).value


@settings(max_examples=150, deadline=None)
@given(topologies(max_n=9, directed=False))
def test_spectral_lower_bound_holds_on_undirected_graphs(t):
    """r* >= ceil(lambda_2 / 2) (the proof is in solvers.bounds)."""
    assert bounds.spectral_lower(t.in_neighbors, False) <= _r(t)


def test_spectral_lower_bound_is_tight_on_complete_graphs_and_refuses_digraphs():
    for n in range(2, 12):
        t = Topology.from_networkx(nx.complete_graph(n))
        assert bounds.spectral_lower(t.in_neighbors, False) == (n + 1) // 2
    with pytest.raises(ParameterError, match="undirected"):
        bounds.spectral_lower([frozenset({1}), frozenset()], True)


@settings(max_examples=150, deadline=None)
@given(topologies(max_n=8))
def test_upper_bound_witnesses_verify_and_bound_r(t):
    if t.n < 2:
        return
    truth = _r(t)
    nb = t.in_neighbors
    for found in (bounds.degree_pair(nb), bounds.halves_pair(nb), bounds.cut_pair(nb)):
        if found is None:
            continue
        value, w = found
        assert refutes_r(nb, w.s1, w.s2, value + 1)
        assert value >= truth
    assert bounds.halves_pair(nb)[0] <= (t.n + 1) // 2


@settings(max_examples=150, deadline=None)
@given(topologies(max_n=8))
def test_rooted_check_is_exact_for_zero(t):
    """Two or more source components iff r* = 0 (for n >= 2)."""
    if t.n < 2:
        return
    sources = bounds.source_components(t.in_neighbors)
    assert (len(sources) >= 2) == (naive_max_r(t) == 0)


@settings(max_examples=100, deadline=None)
@given(topologies(max_n=9), st.integers(1, 5))
def test_extension_bound_never_overclaims(t, r):
    if bounds.extension_proves(t.in_neighbors, r):
        assert _r(t) >= r


def test_extension_bound_proves_circulants_and_preferential_attachment():
    from robustgraph.generators import k_circulant, preferential_attachment

    assert bounds.extension_proves(k_circulant(60, 3).in_neighbors, 3)
    assert bounds.extension_proves(preferential_attachment(60, 3, seed=1).in_neighbors, 3)


@settings(max_examples=100, deadline=None)
@given(topologies(max_n=9), st.integers(0, 3))
def test_heuristic_pairs_verify_and_never_beat_the_truth(t, seed):
    found = heuristics.search_r(t.in_neighbors, seed=seed)
    if t.n < 2:
        assert found is None
        return
    value, w = found
    assert refutes_r(t.in_neighbors, w.s1, w.s2, value + 1)
    assert value >= _r(t)


@settings(max_examples=100, deadline=None)
@given(topologies(max_n=9), st.integers(1, 4))
def test_heuristic_s_pairs_verify(t, r):
    found = heuristics.search_s(t.in_neighbors, r)
    if found is None:
        return
    value, w = found
    assert refutes_rs(t.in_neighbors, w.s1, w.s2, r, value + 1)
    assert value >= exhaustive.solve(Request(t, Question.max_s(r))).value


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(1, 2**8 - 1)), max_size=12))
def test_pool_pair_is_the_least_disjoint_pair_of_the_pool(pool):
    """``pool_pair`` against every pair of the pool (a pool below ``POOL_MOST`` sets)."""
    sums = [x1 + x2 for x1, m1 in pool for x2, m2 in pool if m1 & m2 == 0]
    found = pool_s.pool_pair(pool)
    if not sums:
        assert found is None
        return
    value, w = found
    assert value == min(sums)
    masks = {sum(1 << i for i in side) for side in (w.s1, w.s2)}
    assert not (w.s1 & w.s2) and all(any(m == mask for _, m in pool) for mask in masks)


def test_pool_finds_the_pair_around_low_degree_nodes_that_no_split_gives():
    """``er-40-p0.2-7172`` at r = 1 (issue 40, round 32): the best pairs of the split sweeps have
    value 12; the pool's in-neighbourhoods give 3, s*_1 (proven by the published model)."""
    from robustgraph.generators import erdos_renyi

    nb = erdos_renyi(40, 0.2, seed=7172).in_neighbors
    value, w = heuristics.search_s(nb, 1)
    assert value == 3 and refutes_rs(nb, w.s1, w.s2, 1, 4)
    assert bounds.pair_value_s(nb, w, 1) == 3


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("directed", [False, True])
def test_long_heuristic_pairs_verify_and_never_beat_the_truth(seed, directed):
    t = Topology.from_networkx(nx.gnp_random_graph(12, 0.5, seed=seed, directed=directed))
    value, w = heuristics.long_search_r(t.in_neighbors, 0.3, seed=seed)
    assert refutes_r(t.in_neighbors, w.s1, w.s2, value + 1)
    assert value >= _r(t)


def test_long_heuristic_beats_the_default_where_short_runs_stall():
    """G(40, 1/2) seed 4 (r* = 9, proven by the strong model): the default search stops at 10."""
    from robustgraph.generators import erdos_renyi

    nb = erdos_renyi(40, 0.5, seed=4).in_neighbors
    assert heuristics.search_r(nb)[0] == 10
    value, w = heuristics.long_search_r(nb, 1.0)
    assert value == 9 and refutes_r(nb, w.s1, w.s2, 10)


def test_long_heuristic_declines_a_budget_too_small_or_a_graph_too_small():
    nb = Topology.from_networkx(nx.gnp_random_graph(30, 0.5, seed=1)).in_neighbors
    assert heuristics.long_search_r(nb, 0.01) is None
    assert heuristics.long_search_r([frozenset()], 10.0) is None


def test_heuristic_is_seeded():
    t = Topology.from_networkx(nx.gnp_random_graph(40, 0.4, seed=3))
    assert heuristics.search_r(t.in_neighbors, seed=5) == heuristics.search_r(
        t.in_neighbors, seed=5
    )


def test_peel_finds_the_least_reachable_subset():
    """rho(U) from greedy peeling equals the brute-force minimum over nonempty subsets."""
    import itertools

    import numpy as np

    from solvers.arrays import adjacency
    from solvers.witness import reach

    t = Topology.from_networkx(nx.gnp_random_graph(9, 0.5, seed=2, directed=True))
    a = adjacency(t.in_neighbors)
    u = np.array([i % 3 != 0 for i in range(9)])
    members = [i for i in range(9) if u[i]]
    best = min(
        reach(t.in_neighbors, c)
        for k in range(1, len(members) + 1)
        for c in itertools.combinations(members, k)
    )
    assert heuristics.peel(a, u).min_reach()[0] == best


@settings(max_examples=120, deadline=None)
@given(topologies(max_n=12), st.integers(0, 2**32 - 1))
def test_tabu_move_scores_match_a_direct_recount(t, seed):
    """Every move's (largest outside count, how many attain it) equals recounting from scratch."""
    import numpy as np

    from solvers.arrays import adjacency

    a = adjacency(t.in_neighbors)
    n = a.shape[0]
    if n < 2:
        return
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 3, n)
    labels[rng.choice(n, 2, replace=False)] = [1, 2]  # both sets nonempty, as in the search
    deg = a.sum(axis=1)

    def outside(lab):
        inside = np.where(lab == 1, a @ (lab == 1), a @ (lab == 2))
        return np.where(lab > 0, deg - inside, -1)

    cost = outside(labels)
    top, count, movers = heuristics.move_scores(a, a.astype(np.float32), deg, labels, cost)
    sizes = [0, np.count_nonzero(labels == 1), np.count_nonzero(labels == 2)]
    for b in range(3):
        for v in range(n):
            k = b * n + v
            empties = labels[v] > 0 and sizes[labels[v]] == 1
            assert movers[k] == (labels[v] != b and not empties)
            if not movers[k]:
                continue
            moved = labels.copy()
            moved[v] = b
            new = outside(moved)
            assert (top[k], count[k]) == (new.max(), np.count_nonzero(new == new.max())), (v, b)


def test_maximal_pair_keeps_the_refutation():
    t = Topology.from_networkx(nx.barbell_graph(5, 2))
    value, w = heuristics.search_r(t.in_neighbors)
    grown = heuristics.maximal_pair(t.in_neighbors, w, value + 1)
    assert grown.s1 >= w.s1 and grown.s2 >= w.s2
    assert refutes_r(t.in_neighbors, grown.s1, grown.s2, value + 1)


def test_linearised_enforcement_is_exact_on_binaries():
    """``[x = 1] => y + z >= 2`` and ``[x = 0] => y <= 0`` against every 0/1 point."""
    import itertools

    m = Model("t")
    x, y, z = m.var("x"), m.var("y"), m.var("z")
    m.add([(y, 1), (z, 1)], lb=2, enforce=[(x, 1)])
    m.add([(y, 1)], ub=0, enforce=[(x, 0)])
    rows = m.linearised()
    for point in itertools.product((0, 1), repeat=3):
        ok_enforced = (point[0] == 0 or point[1] + point[2] >= 2) and (
            point[0] == 1 or point[1] <= 0
        )
        ok_linear = all(c.lb <= sum(coef * point[v] for v, coef in c.terms) <= c.ub for c in rows)
        assert ok_enforced == ok_linear


def test_strong_model_removes_nodes_too_large_for_any_pair():
    t = Topology.from_networkx(nx.complete_graph(6))
    m = strong_r(t.in_neighbors, 3)  # a member keeps 3 in-neighbours inside: two sets of >= 4
    fixed = {c.terms[0][0] for c in m.constraints if len(c.terms) == 1 and c.ub == 0}
    assert fixed >= set(m.flags[0]) | set(m.flags[1])
