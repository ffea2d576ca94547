"""The exhaustive engine against the definition itself, and on families with known values."""

import networkx as nx
import pytest
from conftest import naive_max_r, naive_max_s, topologies
from hypothesis import given, settings
from hypothesis import strategies as st

from robustgraph.topology import Topology
from solvers import exhaustive
from solvers.errors import SolverUnavailable
from solvers.types import Question, Request, Status
from solvers.witness import refutes_r, refutes_rs


def solve(t, q):
    return exhaustive.solve(Request(t, q))


@settings(max_examples=150, deadline=None)
@given(topologies(max_n=7))
def test_max_r_matches_definition(t):
    res = solve(t, Question.max_r())
    assert res.status is Status.EXACT
    assert res.value == naive_max_r(t)
    if t.n >= 2:
        assert refutes_r(t.in_neighbors, res.witness.s1, res.witness.s2, res.value + 1)


@settings(max_examples=100, deadline=None)
@given(topologies(max_n=6), st.integers(0, 4))
def test_max_s_matches_definition(t, r):
    res = solve(t, Question.max_s(r))
    assert res.value == naive_max_s(t, r)
    if res.witness is not None:
        assert refutes_rs(t.in_neighbors, res.witness.s1, res.witness.s2, r, res.value + 1)


@pytest.mark.parametrize("n", range(2, 12))
def test_known_families(n):
    assert (
        solve(Topology.from_networkx(nx.complete_graph(n)), Question.max_r()).value == (n + 1) // 2
    )
    assert solve(Topology.from_networkx(nx.path_graph(n)), Question.max_r()).value == 1
    if n >= 4:  # C_3 is K_3
        assert solve(Topology.from_networkx(nx.cycle_graph(n)), Question.max_r()).value == 1
    assert solve(Topology.from_networkx(nx.star_graph(n - 1)), Question.max_r()).value == 1


def test_decisions_and_disconnected():
    t = Topology.from_networkx(nx.complete_graph(6))
    assert solve(t, Question.is_r_robust(3)).holds is True
    assert solve(t, Question.is_r_robust(4)).holds is False
    two_triangles = Topology.from_edges([(0, 1), (1, 2), (0, 2), (3, 4), (4, 5), (3, 5)])
    assert solve(two_triangles, Question.max_r()).value == 0
    assert solve(two_triangles, Question.max_s(1)).value == 0


def test_refuses_large_graphs():
    with pytest.raises(SolverUnavailable, match=f"n <= {exhaustive.MAX_N}"):
        solve(Topology.from_edges([], nodes=range(exhaustive.MAX_N + 1)), Question.max_r())


@settings(max_examples=25, deadline=None)
@given(topologies(max_n=10))
def test_max_r_matches_definition_across_words(t):
    """n = 7..10: the bitsets span several 64-bit words (passes above the word, reversal)."""
    res = solve(t, Question.max_r())
    assert res.value == naive_max_r(t)


@settings(max_examples=40, deadline=None)
@given(topologies(max_n=16), st.integers(0, 5))
def test_every_question_agrees_with_the_subset_minimum(t, r):
    """Up to 16 nodes, against the plain subset-minimum transform written out in the test:
    r* = min over S1 of max(reach(S1), min over nonempty S2 within V minus S1 of reach(S2))."""
    import numpy as np

    n = t.n
    if n < 2:
        return
    nb = t.in_neighbors
    sets = np.arange(1 << n)
    member = (sets[:, None] >> np.arange(n)) & 1 == 1
    masks = np.array([sum(1 << j for j in s) for s in nb])
    outside = np.bitwise_count(masks[None, :] & ~sets[:, None])
    reach = np.where(member, outside, 0).max(axis=1)
    best = reach.copy()
    best[0] = n + 1
    for i in range(n):
        pairs = best.reshape(-1, 2, 1 << i)
        pairs[:, 1, :] = np.minimum(pairs[:, 1, :], pairs[:, 0, :])
    total = np.maximum(reach, best[(1 << n) - 1 - sets])
    assert solve(t, Question.max_r()).value == int(total[1:-1].min())
    decided = solve(t, Question.is_r_robust(r))
    assert decided.holds is (int(total[1:-1].min()) >= r)
