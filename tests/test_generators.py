"""Every generator's stated robustness, proven exactly for n = 2..14, and its edge count."""

import itertools
import math
import random

import numpy as np
import pytest

from robustgraph import generators as gen
from robustgraph.errors import ParameterError
from robustgraph.topology import Topology
from solvers import exhaustive
from solvers.types import Question, Request

NS = range(2, 15)


def max_r(t: Topology) -> int:
    return exhaustive.solve(Request(t, Question.max_r())).value


def max_s(t: Topology, r: int) -> int:
    return exhaustive.solve(Request(t, Question.max_s(r))).value


def ceil_half(n: int) -> int:
    return (n + 1) // 2


def assert_guarantee_holds(t: Topology, c: gen.Guarantee) -> int:
    value = max_r(t)
    assert value >= c.lower
    if c.upper is not None:
        assert value <= c.upper
    if c.s is not None:
        assert max_s(t, c.lower) >= c.s
    return value


def assert_plain_labels(t: Topology, n: int) -> None:
    assert t.labels == tuple(range(n))


# ----------------------------------------------------------------------------- complete
@pytest.mark.parametrize("n", range(1, 15))
def test_complete_is_ceil_half_robust(n):
    t = gen.complete(n)
    assert_plain_labels(t, n)
    assert not t.directed
    assert t.m == n * (n - 1) // 2
    expected = ceil_half(n) if n >= 2 else 0
    assert assert_guarantee_holds(t, gen.guarantee("complete", n)) == expected
    assert gen.guarantee("complete", n).exact


# ----------------------------------------------------------------------------- gamma-MERG
@pytest.mark.parametrize("n", NS)
def test_gamma_merg_is_maximally_robust_with_paper_edge_count(n):
    t = gen.gamma_merg(n)
    gamma = ceil_half(n)
    assert_plain_labels(t, n)
    assert max_r(t) == gamma
    assert t.m == gen.gamma_merg_edge_count(n)
    if n % 2:
        assert t.m == 3 * gamma * (gamma - 1) // 2
    else:
        assert t.m == gamma * (gamma - 1) // 2 + gamma**2 - max(0, math.ceil((gamma - 2) / 2))
    assert_guarantee_holds(t, gen.guarantee("merg", n))


@pytest.mark.parametrize("n", NS)
def test_gamma_merg_has_no_redundant_edge(n):
    t = gen.gamma_merg(n)
    edges = t.edges()
    for dropped in edges:
        rest = [e for e in edges if e != dropped]
        assert max_r(Topology.from_edges(rest, nodes=range(n))) < ceil_half(n), dropped


@pytest.mark.parametrize("n", range(2, 8))
def test_gamma_merg_edge_count_is_the_minimum(n):
    """No graph with one edge fewer is ceil(n/2)-robust (adding edges never lowers robustness,
    so checking m - 1 edges covers every smaller count)."""
    gamma = ceil_half(n)
    m = gen.gamma_merg_edge_count(n)
    pairs = list(itertools.combinations(range(n), 2))
    for chosen in itertools.combinations(pairs, m - 1):
        degree = [0] * n
        for u, v in chosen:
            degree[u] += 1
            degree[v] += 1
        if min(degree) < gamma:  # a node of degree < r refutes r-robustness
            continue
        assert max_r(Topology.from_edges(chosen, nodes=range(n))) < gamma, chosen


# ------------------------------------------------------------ preferential attachment
@pytest.mark.parametrize("n", NS)
def test_preferential_attachment_is_rs_robust(n):
    for r in range(1, ceil_half(n) + 1):
        for s in range(1, r + 1):
            for seed in (0, 1):
                t = gen.preferential_attachment(n, r, s, seed=seed)
                assert_plain_labels(t, n)
                core = 2 * r - 1
                assert t.m == core * (core - 1) // 2 + (n - core) * (r + s - 1)
                value = assert_guarantee_holds(t, gen.guarantee("pa", n, r=r, s=s))
                assert max_s(t, r) >= s
                if s == 1:
                    assert value == r


def test_preferential_attachment_depends_on_seed_only():
    first = gen.preferential_attachment(14, 2, 2, seed=3)
    assert gen.preferential_attachment(14, 2, 2, seed=3) == first
    variants = {gen.preferential_attachment(14, 2, 1, seed=s).content_hash for s in range(6)}
    assert len(variants) > 1


def test_preferential_attachment_prefers_high_degree():
    """With r = s = 1 node 2 joins node 0 or 1 (degree 1 each); node 3 then joins the node of
    degree 2 with probability 2/4. Over many seeds the frequency must be close to 1/2, not 1/3."""
    hits = 0
    trials = 600
    for seed in range(trials):
        t = gen.preferential_attachment(4, 1, 1, seed=seed)
        hub = next(u for u in (0, 1) if 2 in t.in_neighbors[u])
        hits += hub in t.in_neighbors[3]
    assert abs(hits / trials - 0.5) < 5 * math.sqrt(0.25 / trials)


# ----------------------------------------------------------------------------- Erdos-Renyi
def test_erdos_renyi_extremes_and_direction():
    assert gen.erdos_renyi(7, 0.0).m == 0
    assert gen.erdos_renyi(7, 1.0) == gen.complete(7)
    full = gen.erdos_renyi(6, 1.0, directed=True)
    assert full.directed and full.m == 30
    assert_plain_labels(gen.erdos_renyi(5, 0.5, seed=1), 5)


def test_erdos_renyi_edge_density_matches_p():
    n, p = 200, 0.1
    pairs = n * (n - 1) // 2
    m = gen.erdos_renyi(n, p, seed=11).m
    assert abs(m - p * pairs) < 5 * math.sqrt(pairs * p * (1 - p))


def test_robust_probability_formula():
    n, r = 50, 3
    expected = (math.log(n) + (r - 1) * math.log(math.log(n))) / n
    assert gen.robust_er_probability(n, r) == pytest.approx(expected)
    assert gen.robust_er_probability(2, 1) == pytest.approx(math.log(2) / 2)


@pytest.mark.parametrize("n", NS)
def test_erdos_renyi_robust_is_proven_r_robust(n):
    for r in range(1, min(3, ceil_half(n)) + 1):
        for seed in (0, 1):
            t, attempts = gen.erdos_renyi_robust(n, r, seed=seed, max_attempts=2000)
            assert not t.directed
            assert_plain_labels(t, n)
            assert max_r(t) >= r
            assert_guarantee_holds(t, gen.guarantee("er-robust", n, r=r))
            # the returned draw is the first r-robust one: one attempt fewer must fail
            if attempts > 1:
                with pytest.raises(ParameterError, match="no .*-robust graph among"):
                    gen.erdos_renyi_robust(n, r, seed=seed, max_attempts=attempts - 1)
            assert gen.erdos_renyi_robust(n, r, seed=seed, max_attempts=attempts) == (t, attempts)


def test_erdos_renyi_robust_reports_exhaustion():
    with pytest.raises(ParameterError, match=r"no 5-robust graph among 5 draws of G\(9, p=0\.59"):
        gen.erdos_renyi_robust(9, 5, seed=0, max_attempts=5)


def test_erdos_renyi_robust_unknown_engine():
    with pytest.raises(ParameterError, match="unknown engine"):
        gen.erdos_renyi_robust(8, 2, engine="no-such-engine")


# ----------------------------------------------------------------------------- circulant
@pytest.mark.parametrize("n", NS)
def test_k_circulant_robustness_and_size(n):
    for k in range(1, n // 2 + 1):
        t = gen.k_circulant(n, k)
        assert_plain_labels(t, n)
        c = gen.guarantee("circulant", n, k=k)
        assert c.exact
        assert assert_guarantee_holds(t, c) == (k if n >= 2 * k + 2 else ceil_half(n))
        if 2 * k < n:
            assert t.m == n * k
            assert set(t.in_degrees) == {2 * k}
        else:
            assert t == gen.complete(n)


# ----------------------------------------------------------------------------- random k-in
@pytest.mark.parametrize("n", NS)
def test_random_k_in_degrees_and_bounds(n):
    for k in range(1, n):
        for seed in (0, 1):
            t = gen.random_k_in(n, k, seed=seed)
            assert t.directed
            assert_plain_labels(t, n)
            assert t.m == n * k
            assert set(t.in_degrees) == {k}
            value = assert_guarantee_holds(t, gen.guarantee("k-in", n, k=k))
            if k == n - 1:
                assert value == ceil_half(n)


def test_k_in_lower_bound_is_tight_somewhere():
    """The bound k - floor(n/2) + 1 is attained: two disjoint 3-cliques of in-degree 2."""
    n, k = 6, 2
    assert gen.guarantee("k-in", n, k=k).lower == 0
    halves = [(u, v) for block in ((0, 1, 2), (3, 4, 5)) for u in block for v in block if u != v]
    assert max_r(Topology.from_edges(halves, nodes=range(n), directed=True)) == 0


# ----------------------------------------------------------------------------- seeds
def test_seeds_ignore_global_random_state():
    calls = [
        lambda: gen.preferential_attachment(12, 2, 2, seed=5),
        lambda: gen.erdos_renyi(12, 0.4, seed=5, directed=True),
        lambda: gen.erdos_renyi_robust(12, 2, seed=5).topology,
        lambda: gen.random_k_in(12, 3, seed=5),
    ]
    before = [f() for f in calls]
    np.random.seed(123)
    random.seed(456)
    assert [f() for f in calls] == before


def test_generator_seed_is_used_and_advanced():
    rng = np.random.default_rng(9)
    a = gen.random_k_in(10, 3, seed=rng)
    b = gen.random_k_in(10, 3, seed=rng)
    assert a == gen.random_k_in(10, 3, seed=np.random.default_rng(9))
    assert a != b


# ----------------------------------------------------------------------------- parameter errors
@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: gen.complete(0), "n must be >= 1"),
        (lambda: gen.complete(True), "n must be an integer"),
        (lambda: gen.gamma_merg(1), "n must be >= 2"),
        (lambda: gen.preferential_attachment(5, 4), r"r must be between 1 and 3 for n = 5"),
        (lambda: gen.preferential_attachment(5, 0), "r must be between 1 and 3"),
        (lambda: gen.preferential_attachment(1, 1), "r-robustness needs at least two nodes"),
        (lambda: gen.preferential_attachment(9, 2, 3), "s must be between 1 and 2"),
        (lambda: gen.preferential_attachment(9, 2, 0), "s must be between 1 and 2"),
        (lambda: gen.erdos_renyi(5, 1.5), r"p must be a probability in \[0, 1\]"),
        (lambda: gen.erdos_renyi(5, -0.1), r"p must be a probability"),
        (lambda: gen.erdos_renyi(5, "0.3"), r"p must be a probability"),
        (lambda: gen.erdos_renyi_robust(1, 1), "n must be >= 2"),
        (lambda: gen.erdos_renyi_robust(6, 4), r"r must be between 1 and 3 for n = 6"),
        (lambda: gen.erdos_renyi_robust(6, 2, max_attempts=0), "max_attempts must be >= 1"),
        (lambda: gen.k_circulant(7, 4), r"k must be between 1 and 3 for n = 7"),
        (lambda: gen.k_circulant(7, 0), "k must be between 1 and 3"),
        (lambda: gen.random_k_in(5, 5), r"k must be between 1 and 4 for n = 5"),
        (lambda: gen.random_k_in(5, 0), "k must be between 1 and 4"),
        (lambda: gen.random_k_in(5, 2, seed=-1), "seed must be a non-negative integer"),
        (lambda: gen.erdos_renyi(5, 0.5, seed=1.5), "seed must be a non-negative integer"),
        (lambda: gen.guarantee("tree", 5), "unknown family 'tree'"),
        (lambda: gen.guarantee("circulant", 5), "family circulant needs k"),
    ],
)
def test_impossible_parameters(call, message):
    with pytest.raises(ParameterError, match=message):
        call()


@pytest.mark.parametrize(
    "build",
    [
        lambda: gen.complete(4000),
        lambda: gen.gamma_merg(100_000),
        lambda: gen.erdos_renyi(20_000, 0.001),
    ],
)
def test_graphs_too_large_for_memory_are_refused_before_any_work(build):
    with pytest.raises(ParameterError, match="more than the .* allowed"):
        build()
