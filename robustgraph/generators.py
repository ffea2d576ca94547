"""Graph families with known robustness: the constructions behind ``robustgraph generate``.

Every generator returns a :class:`~robustgraph.topology.Topology` on the integer labels
``0..n-1``. Random generators take ``seed`` (an int or a ``numpy.random.Generator``), normalised
in :func:`make_rng` only; nothing here touches a global random state. Impossible parameters raise
:class:`~robustgraph.errors.ParameterError`. Robustness is on in-neighbours (LeBlanc et al. 2013);
the theorems and their proofs are in ``docs/theory.md`` and :func:`guarantee` states them per call.

One module: each family is a short function beside its theorem (:func:`guarantee`), and all of
them share the parameter checks and the size budgets; split by family, the theorems and checks
would be scattered over a dozen files of 40 lines.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from robustgraph import limits
from robustgraph.errors import ParameterError
from robustgraph.topology import Topology
from solvers import registry
from solvers.types import Question, Request

__all__ = [
    "Guarantee",
    "DEFAULT_ENGINE",
    "RobustSample",
    "SeedLike",
    "guarantee",
    "complete",
    "erdos_renyi",
    "erdos_renyi_robust",
    "gamma_merg",
    "gamma_merg_edge_count",
    "k_circulant",
    "make_rng",
    "max_robustness",
    "preferential_attachment",
    "random_k_in",
    "robust_er_probability",
]

SeedLike = int | np.random.Generator

DEFAULT_ENGINE = "portfolio" if "portfolio" in registry.ENGINES else "exhaustive"
"""Engine that proves :func:`erdos_renyi_robust` samples: the portfolio once it is registered."""

LEBLANC_2013 = (
    "LeBlanc, Zhang, Koutsoukos & Sundaram, Resilient asymptotic consensus in robust networks, "
    "IEEE JSAC 31(4), 2013"
)
LEE_PANAGOU = (
    "Lee & Panagou, Minimal construction of graphs with maximum robustness, arXiv:2507.00415, 2025"
)
ZHANG_FATA_SUNDARAM = (
    "Zhang, Fata & Sundaram, A notion of robustness in complex networks, IEEE TCNS 2(3), 2015"
)


# --------------------------------------------------------------------------- helpers
def make_rng(seed: SeedLike) -> np.random.Generator:
    """The one place a seed becomes a random generator.

    Parameters
    ----------
    seed : int or numpy.random.Generator
        A non-negative integer (the same integer always gives the same graph), or a generator
        that is used as is (and advanced).

    Raises
    ------
    ParameterError
        For anything else (negative integers, floats, None).

    Examples
    --------
    >>> int(make_rng(7).integers(100)) == int(make_rng(7).integers(100))
    True
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ParameterError(f"seed must be a non-negative integer, got {seed!r}")
    return np.random.default_rng(int(seed))


def max_robustness(n: int) -> int:
    """The largest r any n-node graph can have: ceil(n/2), and 0 below two nodes.

    Notes
    -----
    Split the nodes into halves S1, S2 of sizes ceil(n/2) and floor(n/2): a node of S1 has at
    most floor(n/2) in-neighbours outside S1 and a node of S2 at most ceil(n/2), so neither half
    is (ceil(n/2)+1)-reachable (LeBlanc et al. 2013).
    """
    return 0 if n < 2 else (n + 1) // 2


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise ParameterError(message)


def _check_int(name: str, value: object, low: int, high: int | None = None, why: str = "") -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ParameterError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if value < low or (high is not None and value > high):
        span = f">= {low}" if high is None else f"between {low} and {high}"
        raise ParameterError(f"{name} must be {span}{why}, got {value}")
    return value


def _check_n(n: object, low: int, why: str = "", ceiling: int = limits.MAX_NODES) -> int:
    """``n`` as an int of at least ``low`` nodes and at most ``ceiling`` (docs/cli.md, Limits)."""
    return limits.at_most("n", _check_int("n", n, low, why=why), ceiling, " nodes")


MAX_EDGES = 5_000_000
"""Most edges a generator builds: a Topology holds each edge in two Python sets (about 1 GiB)."""

MAX_PAIRS = 50_000_000
"""Most node pairs G(n, p) draws a number for (400 MB of floats)."""


def _check_size(family: str, count: int, limit: int, unit: str) -> None:
    """Refuse a graph too large to build in memory, before any work, with one clear line."""
    message = f"{family} would need {count:,} {unit}, more than the {limit:,} allowed"
    _require(count <= limit, message)


def _check_r(n: int, r: object) -> int:
    _require(n >= 2, f"r-robustness needs at least two nodes, got n = {n}")
    why = f" for n = {n} (no graph is more than ceil(n/2)-robust)"
    return _check_int("r", r, 1, max_robustness(n), why)


def _undirected(n: int, edges: list[tuple[int, int]]) -> Topology:
    return Topology.from_edges(edges, nodes=range(n), directed=False, source="generator")


# --------------------------------------------------------------------------- deterministic
def complete(n: int) -> Topology:
    """The complete graph K_n: ceil(n/2)-robust, the most any n-node graph can be.

    Parameters
    ----------
    n : int
        Number of nodes, at least 1.

    Returns
    -------
    Topology
        Undirected, n(n-1)/2 edges.

    Raises
    ------
    ParameterError
        If n < 1.

    Examples
    --------
    >>> complete(5).m
    10

    Notes
    -----
    Robustness r* = ceil(n/2) for n >= 2 (LeBlanc et al. 2013, Lemma 4); also
    (ceil(n/2), s)-robust for every s. O(n^2) time.

    References
    ----------
    LeBlanc, Zhang, Koutsoukos & Sundaram, "Resilient asymptotic consensus in robust networks",
    IEEE JSAC 31(4):766-781, 2013.
    """
    n = _check_n(n, 1)
    _check_size(f"complete({n})", n * (n - 1) // 2, MAX_EDGES, "edges")
    return _undirected(n, [(i, j) for i in range(n) for j in range(i + 1, n)])


def gamma_merg_edge_count(n: int) -> int:
    """Edge count of the gamma-MERG on n nodes: the fewest edges of any ceil(n/2)-robust graph.

    gamma = ceil(n/2). Odd n: 3 gamma (gamma-1) / 2. Even n: gamma (gamma-1)/2 + gamma^2 -
    ceil((gamma-2)/2) (Lee & Panagou, arXiv:2507.00415).

    Examples
    --------
    >>> [gamma_merg_edge_count(n) for n in range(2, 9)]
    [1, 3, 5, 9, 11, 18, 21]
    """
    n = _check_int("n", n, 2)
    gamma = (n + 1) // 2
    if n % 2:
        return 3 * gamma * (gamma - 1) // 2
    return gamma * (gamma - 1) // 2 + gamma * gamma - max(0, math.ceil((gamma - 2) / 2))


def gamma_merg(n: int) -> Topology:
    """The gamma-Minimal Edge Robust Graph (gamma-MERG) of Lee & Panagou, gamma = ceil(n/2).

    The sparsest graph on n nodes with the maximum robustness ceil(n/2).

    - Odd n = 2 gamma - 1: a (gamma+1)-clique on nodes 0..gamma, and each of the other
      gamma - 2 nodes joined to the same gamma clique nodes 0..gamma-1. (Equivalently: a
      gamma-clique 0..gamma-1 and gamma - 1 further nodes, each joined to the whole clique.)
    - Even n = 2 gamma: hubs 0..gamma-1 joined to every other node, then the ceil((gamma-2)/2)
      disjoint hub pairs (0,1), (2,3), ... lose their edge.

    Parameters
    ----------
    n : int
        Number of nodes, at least 2.

    Returns
    -------
    Topology
        Undirected, ceil(n/2)-robust, with :func:`gamma_merg_edge_count` (n) edges.

    Raises
    ------
    ParameterError
        If n < 2.

    Examples
    --------
    >>> g = gamma_merg(7)
    >>> g.n, g.m
    (7, 18)

    Notes
    -----
    Lee & Panagou prove the edge counts are the minimum for ceil(n/2)-robustness (odd n:
    3 gamma (gamma-1)/2, which holds for every r-robust graph with r = gamma) and that these graphs
    attain them. Our tests re-prove ceil(n/2)-robustness exactly for n = 2..14 and the minimality
    by enumeration for n <= 7. O(n^2) time.

    References
    ----------
    H. Lee & D. Panagou, "Minimal construction of graphs with maximum robustness",
    arXiv:2507.00415, 2025; and "Construction of the sparsest maximally r-robust graphs",
    arXiv:2409.19465, 2024.
    """
    n = _check_n(n, 2, why=" (a gamma-MERG needs two nodes)")
    _check_size(f"gamma_merg({n})", gamma_merg_edge_count(n), MAX_EDGES, "edges")
    gamma = (n + 1) // 2
    if n % 2:
        clique = range(gamma + 1)
        edges = [(i, j) for i in clique for j in clique if i < j]
        edges += [(c, v) for v in range(gamma + 1, n) for c in range(gamma)]
    else:
        removed = {(2 * p, 2 * p + 1) for p in range(max(0, math.ceil((gamma - 2) / 2)))}
        edges = [(h, v) for h in range(gamma) for v in range(h + 1, n) if (h, v) not in removed]
    return _undirected(n, edges)


def k_circulant(n: int, k: int) -> Topology:
    """The circulant graph C_n(1..k): node i joined to the k nearest nodes on each side.

    Parameters
    ----------
    n : int
        Number of nodes, at least 2.
    k : int
        Neighbours on each side, 1 <= k <= floor(n/2) (larger k would repeat neighbours; at
        k >= (n-1)/2 the graph is already complete).

    Returns
    -------
    Topology
        Undirected; 2k-regular with n k edges when 2k < n, else the complete graph.

    Raises
    ------
    ParameterError
        If n < 2 or k is outside 1..floor(n/2); or n or the edge count is over its ceiling
        (:mod:`robustgraph.limits`, :data:`MAX_EDGES`).

    Examples
    --------
    >>> k_circulant(10, 2).m
    20

    Notes
    -----
    Exactly k-robust when n >= 2k + 2, and ceil(n/2)-robust (complete) when n <= 2k + 1. Proof
    in ``docs/theory.md`` (upper bound: two arcs of at least k+1 nodes each; lower bound: a
    closest pair x in S1, y in S2). O(n k) time.
    """
    n = _check_n(n, 2)
    k = _check_int("k", k, 1, n // 2, f" for n = {n} (each side holds at most floor(n/2) nodes)")
    _check_size(f"k_circulant({n}, {k})", n * k, MAX_EDGES, "edges")
    edges = {(min(i, (i + d) % n), max(i, (i + d) % n)) for i in range(n) for d in range(1, k + 1)}
    return _undirected(n, sorted(edges))


# --------------------------------------------------------------------------- random
def preferential_attachment(n: int, r: int, s: int = 1, *, seed: SeedLike = 0) -> Topology:
    """An (r, s)-robust preferential-attachment graph (LeBlanc et al. 2013, Theorem 5).

    Start from the complete graph on nodes 0..2r-2; each further node v = 2r-1, ..., n-1 joins
    r + s - 1 distinct earlier nodes, drawn without replacement with probability proportional to
    their current degree (uniformly while every degree is 0).

    Parameters
    ----------
    n : int
        Number of nodes, at least 2r - 1.
    r : int
        Target r, 1 <= r <= ceil(n/2).
    s : int
        Target s, 1 <= s <= r (the first added node must find r + s - 1 <= 2r - 1 partners).
    seed : int or numpy.random.Generator
        Chooses the partners; the same seed gives the same graph.

    Returns
    -------
    Topology
        Undirected, (r, s)-robust, with (2r-1)(r-1) + (n - 2r + 1)(r + s - 1) edges.

    Raises
    ------
    ParameterError
        If r or s is out of range for n; or n or the edge count is over its ceiling
        (:mod:`robustgraph.limits`, :data:`MAX_EDGES`).

    Examples
    --------
    >>> preferential_attachment(10, 3, 2, seed=1).m
    30

    Notes
    -----
    Theorem 5 of LeBlanc et al.: adding a node with at least r + s - 1 in-neighbours to an
    (r, s)-robust graph keeps it (r, s)-robust; K_{2r-1} is (r, s)-robust for every s, and the
    extra out-edges of the new node only add in-neighbours elsewhere. For s = 1 the last node
    has exactly r neighbours, so r* = r. O(n^2) time.

    References
    ----------
    LeBlanc, Zhang, Koutsoukos & Sundaram, IEEE JSAC 31(4), 2013, Theorem 5.
    """
    n = _check_n(n, 1, ceiling=limits.MAX_PA_NODES)
    r = _check_r(n, r)
    s = _check_int("s", s, 1, r, f" for r = {r} (the seed clique has 2r-1 = {2 * r - 1} nodes)")
    core = 2 * r - 1
    count = core * (core - 1) // 2 + max(0, n - core) * (r + s - 1)
    _check_size(f"preferential_attachment({n}, {r}, {s})", count, MAX_EDGES, "edges")
    rng = make_rng(seed)
    edges = [(i, j) for i in range(core) for j in range(i + 1, core)]
    degree = np.full(n, core - 1, dtype=float)
    for v in range(core, n):
        weights = degree[:v]
        total = weights.sum()
        p = weights / total if total > 0 else None
        partners = rng.choice(v, size=r + s - 1, replace=False, p=p)
        for u in sorted(int(x) for x in partners):
            edges.append((u, v))
            degree[u] += 1
        degree[v] = r + s - 1
    return _undirected(n, edges)


def _er_sample(n: int, p: float, rng: np.random.Generator, directed: bool) -> Topology:
    if directed:
        pairs = [(u, v) for u in range(n) for v in range(n) if u != v]
    else:
        pairs = [(u, v) for u in range(n) for v in range(u + 1, n)]
    keep = rng.random(len(pairs)) < p
    edges = [e for e, k in zip(pairs, keep, strict=True) if k]
    return Topology.from_edges(edges, nodes=range(n), directed=directed, source="generator")


def erdos_renyi(n: int, p: float, *, seed: SeedLike = 0, directed: bool = False) -> Topology:
    """The random graph G(n, p): every pair (ordered pair, if directed) joined with probability p.

    Parameters
    ----------
    n : int
        Number of nodes, at least 1.
    p : float
        Edge probability in [0, 1].
    seed : int or numpy.random.Generator
        The same seed gives the same graph.
    directed : bool
        Draw arcs u -> v independently for every ordered pair.

    Returns
    -------
    Topology
        Expected p n(n-1)/2 edges (p n(n-1) arcs when directed). No robustness is guaranteed;
        see :func:`erdos_renyi_robust`.

    Raises
    ------
    ParameterError
        If n < 1 or p is not in [0, 1].

    Examples
    --------
    >>> erdos_renyi(6, 1.0).m
    15

    Notes
    -----
    Pairs are drawn in a fixed order from one uniform vector, so results do not depend on the
    Python or networkx version. O(n^2) time.

    References
    ----------
    P. Erdos & A. Renyi, "On random graphs I", Publicationes Mathematicae 6, 1959;
    E. N. Gilbert, "Random graphs", Annals of Mathematical Statistics 30(4), 1959.
    """
    n = _check_n(n, 1)
    if isinstance(p, bool) or not isinstance(p, int | float) or not 0.0 <= float(p) <= 1.0:
        raise ParameterError(f"p must be a probability in [0, 1], got {p!r}")
    pairs = n * (n - 1) if directed else n * (n - 1) // 2
    _check_size(f"G({n}, p)", pairs, MAX_PAIRS, "node pairs")
    return _er_sample(n, float(p), make_rng(seed), directed)


def robust_er_probability(n: int, r: int) -> float:
    """p = (ln n + (r - 1) ln ln n) / n, clipped to [0, 1] (Zhang, Fata & Sundaram 2015).

    At p = (ln n + (r-1) ln ln n + c)/n the graph G(n, p) is r-robust with probability tending to
    1 when c -> +inf and to 0 when c -> -inf; this is the c = 0 point of that threshold.

    Examples
    --------
    >>> round(robust_er_probability(100, 2), 4)
    0.0613
    """
    n = _check_int("n", n, 2)
    r = _check_r(n, r)
    p = (math.log(n) + (r - 1) * math.log(math.log(n))) / n
    return min(1.0, max(0.0, p))


class RobustSample(NamedTuple):
    """A proven r-robust sample and the number of draws it took (the last one included)."""

    topology: Topology
    attempts: int


def erdos_renyi_robust(
    n: int,
    r: int,
    *,
    seed: SeedLike = 0,
    max_attempts: int = 1000,
    engine: str = DEFAULT_ENGINE,
) -> RobustSample:
    """Sample G(n, p) at the r-robustness threshold until a draw is proven r-robust.

    p = (ln n + (r-1) ln ln n)/n (Zhang, Fata & Sundaram 2015). Each draw with minimum degree
    below r is rejected at once (a node of degree < r refutes r-robustness); every other draw is
    decided exactly by ``engine`` with ``Question.is_r_robust(r)``. Only a draw the engine proves
    r-robust is returned; an undecided answer counts as a failure.

    Parameters
    ----------
    n : int
        Number of nodes, at least 2.
    r : int
        Required robustness, 1 <= r <= ceil(n/2).
    seed : int or numpy.random.Generator
        The same seed gives the same sequence of draws, hence the same graph and attempt count.
    max_attempts : int
        Draws allowed before giving up.
    engine : str
        Name in ``solvers.registry.ENGINES`` that decides r-robustness.

    Returns
    -------
    RobustSample
        ``(topology, attempts)``: an undirected r-robust graph and the draws used.

    Raises
    ------
    ParameterError
        Bad n, r or max_attempts, or no draw proven r-robust within ``max_attempts``.
    SolverUnavailable
        The engine is not installed or refuses the graph size (exhaustive: n <= 24).

    Examples
    --------
    >>> sample = erdos_renyi_robust(10, 2, seed=3)
    >>> sample.topology.n, sample.attempts >= 1
    (10, True)

    Notes
    -----
    r-robustness needs minimum degree r, whose probability at this p tends to exp(-1/(r-1)!)
    (Erdos & Renyi 1961): an upper bound on the success rate of one draw for large n. For small
    n and r near ceil(n/2) success is rare. Each draw that passes the degree filter costs one
    exact check (O(n 2^n) with the exhaustive engine).

    References
    ----------
    H. Zhang, E. Fata & S. Sundaram, "A notion of robustness in complex networks",
    IEEE Trans. Control of Network Systems 2(3):310-320, 2015.
    """
    n = _check_n(n, 2, why=" (r-robustness needs two nodes)")
    r = _check_r(n, r)
    max_attempts = _check_int("max_attempts", max_attempts, 1)
    limits.at_most("max_attempts", max_attempts, limits.MAX_ATTEMPTS, " draws")
    p = robust_er_probability(n, r)
    rng = make_rng(seed)
    for attempt in range(1, max_attempts + 1):
        graph = _er_sample(n, p, rng, directed=False)
        if min(graph.in_degrees) < r:
            continue
        result = registry.solve(Request(graph, Question.is_r_robust(r)), engine)
        if result.holds is True:
            return RobustSample(graph, attempt)
    raise ParameterError(
        f"no {r}-robust graph among {max_attempts} draws of G({n}, p={p:.4f}) with seed {seed!r}; "
        "raise max_attempts, change the seed or lower r"
    )


def random_k_in(n: int, k: int, *, seed: SeedLike = 0) -> Topology:
    """A random k-in digraph: every node hears k distinct other nodes chosen uniformly.

    Parameters
    ----------
    n : int
        Number of nodes, at least 2.
    k : int
        In-degree of every node, 1 <= k <= n - 1.
    seed : int or numpy.random.Generator
        The same seed gives the same digraph.

    Returns
    -------
    Topology
        Directed, every in-degree exactly k, n k arcs (arc u -> v: v hears u).

    Raises
    ------
    ParameterError
        If n < 2 or k is outside 1..n-1; or n or the edge count is over its ceiling
        (:mod:`robustgraph.limits`, :data:`MAX_EDGES`).

    Examples
    --------
    >>> g = random_k_in(8, 3, seed=2)
    >>> g.directed, g.m, set(g.in_degrees)
    (True, 24, {3})

    Notes
    -----
    Proven for every draw: max(0, k - floor(n/2) + 1) <= r* <= k. The upper bound is the
    in-degree (S1 = {v}, S2 = the rest); the lower bound holds for any digraph of minimum
    in-degree k, since the smaller of two disjoint sets has at most floor(n/2) nodes, so any of
    its nodes hears at least k - floor(n/2) + 1 nodes outside it. k = n - 1 is the complete
    digraph (r* = ceil(n/2)). O(n k) time. Proofs in ``docs/theory.md``.
    """
    n = _check_n(n, 2)
    k = _check_int("k", k, 1, n - 1, f" for n = {n} (a node can hear at most n-1 others)")
    _check_size(f"random_k_in({n}, {k})", n * k, MAX_EDGES, "arcs")
    rng = make_rng(seed)
    arcs = []
    for v in range(n):
        for j in sorted(int(x) for x in rng.choice(n - 1, size=k, replace=False)):
            arcs.append((j if j < v else j + 1, v))
    return Topology.from_edges(arcs, nodes=range(n), directed=True, source="generator")


# --------------------------------------------------------------------------- guarantees
@dataclass(frozen=True)
class Guarantee:
    """What a family's theorem proves about r* (and s*_r) of every graph it generates.

    ``lower <= r* <= upper``; ``upper`` is None when nothing beyond ceil(n/2) is claimed.
    ``s``, when set, means the graph is (lower, s)-robust. ``exact`` is True when the bounds meet.
    """

    lower: int
    upper: int | None
    s: int | None
    statement: str
    citation: str

    @property
    def exact(self) -> bool:
        return self.upper == self.lower


def guarantee(
    family: str,
    n: int,
    *,
    r: int | None = None,
    s: int = 1,
    k: int | None = None,
) -> Guarantee:
    """The proven robustness of ``family`` (complete, merg, pa, er, er-robust, circulant, k-in).

    Parameters are those the generator took; the guarantee depends on them only, never on the draw.

    Raises
    ------
    ParameterError
        Unknown family.

    Examples
    --------
    >>> guarantee("circulant", 10, k=2).statement
    'exactly 2-robust (n >= 2k+2)'
    """
    top = max_robustness(n)
    if family in ("pa", "er-robust"):
        _require(r is not None, f"family {family} needs r")
    if family in ("circulant", "k-in"):
        _require(k is not None, f"family {family} needs k")
    lemma4 = f"{LEBLANC_2013}, Lemma 4"
    if family == "complete":
        return Guarantee(top, top, None, f"exactly {top}-robust (ceil(n/2))", lemma4)
    if family == "merg":
        edges = gamma_merg_edge_count(n)
        text = f"exactly {top}-robust (ceil(n/2)) with the minimum {edges} edges"
        return Guarantee(top, top, None, text, LEE_PANAGOU)
    if family == "pa":
        theorem5 = f"{LEBLANC_2013}, Theorem 5"
        if s == 1:
            return Guarantee(r, r, 1, f"({r},1)-robust, exactly {r}-robust", theorem5)
        return Guarantee(r, min(r + s - 1, top), s, f"({r},{s})-robust", theorem5)
    if family == "er-robust":
        text = f"{r}-robust (the draw was proven by an exact check)"
        return Guarantee(r, None, None, text, ZHANG_FATA_SUNDARAM)
    if family == "er":
        text = "no guarantee (a random graph: certify it before use)"
        return Guarantee(0, None, None, text, "Erdos & Renyi 1959; Gilbert 1959")
    if family == "circulant":
        if n >= 2 * k + 2:
            return Guarantee(k, k, None, f"exactly {k}-robust (n >= 2k+2)", "docs/theory.md")
        return Guarantee(top, top, None, f"exactly {top}-robust (complete graph)", lemma4)
    if family == "k-in":
        low = max(0, k - n // 2 + 1)
        text = f"between {low}- and {k}-robust (every in-degree is {k})"
        return Guarantee(low, k, None, text, "in-degree bounds, docs/theory.md")
    raise ParameterError(
        f"unknown family {family!r}; choose from complete, merg, pa, er, er-robust, circulant, k-in"
    )
