"""Issue 43, item 2: every printed lower bound holds against exact minima from an independent
enumeration (n <= 8), and the degree-r lemmas of docs/theory.md hold on every small graph."""

from __future__ import annotations

import pytest

from robustgraph.design.bounds import degree_r_lower_bound, lower_bound
from robustgraph.generators import max_robustness
from solvers.exhaustive import exact_r
from tests.exact_minima import graphs, minimum_edges


@pytest.mark.parametrize("n", range(2, 9))
def test_every_bound_is_at_most_the_exact_minimum(n: int) -> None:
    exact = minimum_edges(n)
    assert sorted(exact) == list(range(1, max_robustness(n) + 1))
    for r, fewest in exact.items():
        assert lower_bound(n, r) <= fewest, (n, r)


def test_the_degree_r_bound_is_sharper_than_the_degree_bound_and_tight_somewhere() -> None:
    assert degree_r_lower_bound(8, 3) == 14 > 12  # ceil(8 * 3 / 2)
    assert lower_bound(5, 2) == minimum_edges(5)[2] == 6  # (6n - 1)/5 is met at n = 5
    assert lower_bound(13, 6) == 45  # issue 43: was 3r(r-1)/2 = 45 unproven; now proven


def test_the_dropped_clique_term_is_gone() -> None:
    # 3r(r-1)/2 = 273 at r = 14 has no proof for n >= 2r + 1; the proven bound is lower.
    assert lower_bound(30, 14) < 3 * 14 * 13 // 2


@pytest.mark.parametrize("n", range(4, 8))
def test_the_degree_r_lemmas_hold_on_every_small_robust_graph(n: int) -> None:
    """(i) degree-r nodes independent (r >= 3); (ii) degree-d node, d <= 2r - 3, has at most
    d - r degree-r neighbours, (ii') one of degree 2r - 2 at most 2r - 3; r = 2: degree-2 nodes
    induce at most one edge."""
    for masks in graphs(n):
        top = exact_r(masks)[0]
        degree = [m.bit_count() for m in masks]
        for r in range(2, top + 1):
            low = [i for i in range(n) if degree[i] == r]
            inside = sum((masks[i] >> j & 1) for i in low for j in low) // 2
            assert inside <= (1 if r == 2 else 0), (masks, r)
            for w in range(n):
                among = sum(masks[w] >> i & 1 for i in low)
                if r + 1 <= degree[w] <= 2 * r - 3:
                    assert among <= degree[w] - r
                if r >= 3 and degree[w] == 2 * r - 2:
                    assert among <= 2 * r - 3
