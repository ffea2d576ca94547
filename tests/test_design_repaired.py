"""Tests for robustgraph.design.repaired (issue 43, round 17): the repaired hub skeletons are
r-robust by the subset DP, edge-minimal, deterministic, and sparser than round 15's starts at
the frontier cells docs/design.md names."""

from __future__ import annotations

import itertools
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustgraph.design import repaired, starts
from robustgraph.design.api import REPAIR_HUBS, _repaired_candidates
from robustgraph.design.search import DesignGraph, Moves
from solvers import cores
from solvers.exhaustive import exact_r


def _r_star(masks: list[int]) -> int:
    return exact_r(list(masks))[0]


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_skeleton_is_leaves_on_r_hubs(data) -> None:
    """r (n - k) edges; every leaf hears exactly r hubs and nothing else; no hub edge."""
    r = data.draw(st.integers(2, 4), label="r")
    k = data.draw(st.integers(r, 8), label="k")
    n = data.draw(st.integers(k + 1, 30), label="n")
    masks = repaired.skeleton(n, r, k, random.Random(data.draw(st.integers(0, 9), label="seed")))
    hubs = (1 << k) - 1
    assert starts.edge_count(masks, False) == r * (n - k)
    assert all(m & ~hubs == 0 and m.bit_count() == r for m in masks[k:])
    assert all(not masks[u] >> v & 1 for u, v in itertools.combinations(range(k), 2))


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_repaired_designs_are_r_robust_and_edge_minimal(data) -> None:
    """Against the subset DP (solvers.exhaustive): the graph is r-robust, and removing any one
    of its edges makes it not r-robust (the trim kept only needed edges)."""
    r = data.draw(st.integers(2, 3), label="r")
    k = data.draw(st.integers(r, 6), label="k")
    n = data.draw(st.integers(max(k + 1, 2 * r + 1), 11), label="n")
    seed = data.draw(st.integers(0, 3), label="seed")
    masks = repaired.repaired_design(n, r, k, seed=seed)
    assert masks is not None
    assert _r_star(masks) >= r
    for u, v in itertools.combinations(range(n), 2):
        if masks[u] >> v & 1:
            fewer = list(masks)
            fewer[u] &= ~(1 << v)
            fewer[v] &= ~(1 << u)
            assert _r_star(fewer) < r
    assert repaired.repaired_design(n, r, k, seed=seed) == masks  # deterministic


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_trim_decides_each_edge_as_the_subset_dp(data) -> None:
    """The trim's shortcuts (low-degree ends, earlier witnesses) change no decision: from an
    r-robust graph it gives the graph of the plain loop that asks the subset DP for each edge
    in sorted order (solvers.exhaustive)."""
    r = data.draw(st.integers(2, 3), label="r")
    n = data.draw(st.integers(2 * r + 1, 10), label="n")
    rng = random.Random(data.draw(st.integers(0, 99), label="seed"))
    masks = [((1 << n) - 1) ^ (1 << i) for i in range(n)]
    for u, v in itertools.combinations(range(n), 2):
        if rng.random() < 0.4:
            masks[u] &= ~(1 << v)
            masks[v] &= ~(1 << u)
    if _r_star(masks) < r:
        return
    expected = list(masks)
    for u, v in itertools.combinations(range(n), 2):
        if expected[u] >> v & 1:
            expected[u] &= ~(1 << v)
            expected[v] &= ~(1 << u)
            if _r_star(expected) < r:
                expected[u] |= 1 << v
                expected[v] |= 1 << u
    graph = DesignGraph(list(masks), Moves(r=r, directed=False))
    repaired._trim(graph, r, lambda: False)
    assert graph.masks == expected


def test_a_passed_deadline_gives_no_graph() -> None:
    assert repaired.repaired_design(30, 3, 8, deadline=-math.inf) is None


@pytest.mark.parametrize("n,r,k,seed,edges,before", [
    (50, 3, 11, 8, 125, 128), (50, 4, 12, 1, 163, 164), (100, 3, 14, 1, 266, 267),
    (100, 3, 16, 1, 265, 267)])
def test_repaired_designs_at_the_frontier(
    n: int, r: int, k: int, seed: int, edges: int, before: int
) -> None:
    """The frontier starts of round 17 (docs/design.md), each below round 15's planned design
    (``before``): its edge count, and exactly r-robust by the exact cores search (no time
    limit)."""
    masks = repaired.repaired_design(n, r, k, seed=seed)
    assert starts.edge_count(masks, False) == edges < before
    assert cores.pair_within(masks, r - 1) is None
    assert cores.pair_within(masks, r) is not None


def test_repaired_candidates_are_named_and_only_for_r_at_least_3() -> None:
    assert _repaired_candidates(30, 2, 5) == []
    found = _repaired_candidates(30, 3, 5)
    assert [name for name, _, _ in found] == [
        f"repaired(k={5 + extra},seed={s})" for s in range(12) for extra in REPAIR_HUBS]
    assert all(proven and cores.pair_within(masks, 2) is None for _, masks, proven in found)
