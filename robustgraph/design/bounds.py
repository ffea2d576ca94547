"""Edge counts a design is measured against: the known constructions and the lower bounds.

All counts are for n nodes and target r (undirected edges, or arcs for digraphs), with
robustness on in-neighbours (LeBlanc et al. 2013).
"""

from __future__ import annotations

import math
from fractions import Fraction

from robustgraph import limits
from robustgraph.certificate.proofs.minimality import degree_r_bound, forest_bound, formula_bounds
from robustgraph.design.starts import seed_size
from robustgraph.errors import ParameterError
from robustgraph.generators import gamma_merg_edge_count, max_robustness

__all__ = [
    "check_size",
    "check_target",
    "construction_edges",
    "degree_lower_bound",
    "degree_r_lower_bound",
    "forest_charges",
    "forest_lower_bound",
    "lower_bound",
    "proven_bounds",
    "reference_edges",
]


def check_target(n: int, r: int, s: int = 1) -> None:
    """Raise ``ParameterError`` unless an (r, s)-robust graph on n nodes can exist.

    Needs n >= 2, 1 <= r <= ceil(n/2) (LeBlanc et al. 2013, Lemma 4: no graph is more than
    ceil(n/2)-robust) and 1 <= s <= n.
    """
    for name, value in (("n", n), ("r", r), ("s", s)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ParameterError(f"{name} must be an integer, got {value!r}")
    if n < 2:
        raise ParameterError(f"n must be >= 2 (robustness compares two node sets), got {n}")
    if not 1 <= r <= max_robustness(n):
        raise ParameterError(
            f"r must be between 1 and ceil(n/2) = {max_robustness(n)} for n = {n}, got {r}"
        )
    if not 1 <= s <= n:
        raise ParameterError(f"s must be between 1 and n = {n}, got {s}")


def construction_edges(n: int, r: int, s: int = 1, *, directed: bool = False) -> int:
    """Edges of the preferential-attachment construction (LeBlanc et al. 2013, Theorem 5).

    A complete graph on N = 2r - 1 nodes (r + s - 1 when s > r, at most n:
    :func:`robustgraph.design.starts.seed_size`), then each further node joins r + s - 1
    earlier nodes: ``C(N, 2) + (n - N)(r + s - 1)`` edges. Directed (each new node *hears*
    r + s - 1 earlier nodes, the seed clique complete in both directions):
    ``N(N-1) + (n - N)(r + s - 1)`` arcs.

    Examples
    --------
    >>> construction_edges(14, 4), construction_edges(14, 4, directed=True)
    (49, 70)
    >>> construction_edges(9, 2, 3)
    26
    """
    check_target(n, r, s)
    core = seed_size(n, r, s)
    seed = core * (core - 1) if directed else math.comb(core, 2)
    return seed + (n - core) * (r + s - 1)


def degree_lower_bound(n: int, r: int, *, directed: bool = False) -> int:
    """For r >= 2 every node of an r-robust graph hears at least r nodes: ``ceil(n r / 2)`` edges
    (``n r`` arcs); a node i hearing fewer makes ({i}, V - {i}) a witness, as the other side's
    members hear at most i outside. For r = 1: n - 1, since 1-robust means connected (a graph) or
    holding a rooted spanning out-tree (a digraph; LeBlanc et al. 2013)."""
    check_target(n, r)
    if r == 1:
        return n - 1
    return n * r if directed else -(-n * r // 2)


def degree_r_lower_bound(n: int, r: int) -> int:
    """The lower bound from the nodes of degree exactly r (undirected, 2 <= r < ceil(n/2)):
    ``ceil((6n - 1) / 5)`` at r = 2, ``ceil(c_r n / 2)`` with c_3 = 7/2 and
    c_r = r(r+2)/(r+1) for r >= 4 (proofs: docs/theory.md, section 4; computed by
    :func:`robustgraph.certificate.proofs.minimality.degree_r_bound`, which minimality
    certificates re-check).

    Examples
    --------
    >>> degree_r_lower_bound(20, 2), degree_r_lower_bound(20, 3), degree_r_lower_bound(20, 5)
    (24, 35, 59)
    """
    check_target(n, r)
    if r == 1 or r >= max_robustness(n) or n < 4:
        raise ParameterError(f"the degree-r bound needs 2 <= r < ceil(n/2), got n = {n}, r = {r}")
    return degree_r_bound(n, r)


def forest_charges(r: int) -> tuple[Fraction, Fraction, Fraction]:
    """The discharging of the low-degree-forest bound (docs/theory.md, section 4): ``(c, beta,
    alpha)`` with ``c = 2r(r+3)/(2r+3)``, ``beta = 3/(2r+3)``, ``alpha = 1/(2r+3)``.

    Every node starts with charge ``deg - c``; a node of degree >= r + 2 sends ``beta`` to each
    neighbour of degree r and ``alpha`` to each neighbour of degree r + 1. These are the optimal
    dual of :func:`robustgraph.design.pattern_lp.pattern_lp`; ``tests/test_design_bounds.py``
    checks every inequality of the proof with them in exact arithmetic.

    Examples
    --------
    >>> [str(x) for x in forest_charges(3)]
    ['4', '1/3', '1/9']
    """
    if r < 2:
        raise ParameterError(f"the low-degree-forest bound needs r >= 2, got {r}")
    q = 2 * r + 3
    return Fraction(2 * r * (r + 3), q), Fraction(3, q), Fraction(1, q)


def forest_lower_bound(n: int, r: int) -> int:
    """The low-degree-forest bound on the edges of an undirected r-robust graph, r >= 2:
    ``ceil((r (r+3) n - (r^2 + 10 r - 2)) / (2r + 3))`` for r >= 3 and ``ceil((10 n - 23) / 7)``
    for r = 2, about ``r(r+3)/(2r+3)`` edges a node
    (10/7 at r = 2, 2 at r = 3, 28/11 at r = 4, 40/13 at r = 5).

    Proof: docs/theory.md, section 4 ("The low-degree forest"): the nodes of degree at most
    r + 1 induce a graph whose cycles, and whose paths between two nodes of degree r, are
    closed sets, so after removing at most four nodes it is a forest with at most one node of
    degree r per tree; the discharging of :func:`forest_charges` then leaves at most
    ``(2r^2 + 20 r - 4) / (2r + 3)`` of charge unpaid (46/7 at r = 2). Issue 43, round 14: a
    removed node is charged together with what the trees lose on its own edges, at most
    ``4r/(2r+3)`` (one node ``10/7`` at r = 2), where rounds 11-13 charged the two apart,
    ``(6r+3)/(2r+3)``, with the constant ``r^2 + 14 r + 4``. It beats the degree-r bound at
    every n >= 18 (r = 2; first at n = 15), 20 (r = 3), 39 (r = 4; first at n = 35) and
    36 (r = 5).

    Examples
    --------
    >>> forest_lower_bound(100, 2), forest_lower_bound(100, 3), forest_lower_bound(100, 5)
    (140, 196, 303)
    """
    check_target(n, r)
    if r < 2:
        raise ParameterError(f"the low-degree-forest bound needs r >= 2, got {r}")
    return forest_bound(n, r)


def proven_bounds(n: int, r: int) -> dict[str, int]:
    """Every proven lower bound of docs/theory.md, section 4, that applies to an undirected
    r-robust graph on n nodes, by name: those of
    :func:`robustgraph.certificate.proofs.minimality.formula_bounds`, each of which a
    minimality certificate can state (``forest`` is :func:`forest_lower_bound`).

    Examples
    --------
    >>> proven_bounds(100, 3)
    {'connectivity': 99, 'degree': 150, 'degree-r': 175, 'forest': 196}
    """
    check_target(n, r)
    return formula_bounds(n, r)


def lower_bound(n: int, r: int, *, directed: bool = False) -> int:
    """The best proven lower bound we know on the edges (arcs) of an r-robust graph on n nodes.

    Undirected: the largest of :func:`proven_bounds`: ``n - 1`` (connected), ``ceil(n r / 2)``
    (r >= 2), :func:`degree_r_lower_bound` (2 <= r < ceil(n/2)), :func:`forest_lower_bound`
    (r >= 2), and at r = ceil(n/2) the gamma-MERG count, which Lee & Panagou prove minimal.
    Directed: ``n r`` (``n - 1`` at r = 1). Proofs: docs/theory.md, section 4.

    Examples
    --------
    >>> lower_bound(14, 4), lower_bound(30, 14), lower_bound(9, 5), lower_bound(100, 2)
    (34, 224, 30, 140)

    References
    ----------
    H. Lee & D. Panagou, "Minimal construction of graphs with maximum robustness",
    arXiv:2507.00415, 2025.
    """
    check_target(n, r)
    if directed:
        return degree_lower_bound(n, r, directed=True)
    return max(proven_bounds(n, r).values())


def reference_edges(n: int, r: int, s: int = 1, *, directed: bool = False) -> int:
    """What a design must never exceed: the construction, or at r = ceil(n/2) (undirected,
    s = 1) the gamma-MERG count when that is smaller.

    Examples
    --------
    >>> reference_edges(14, 4), reference_edges(14, 7)
    (49, 67)
    """
    count = construction_edges(n, r, s, directed=directed)
    if not directed and s == 1 and r == max_robustness(n):
        count = min(count, gamma_merg_edge_count(n))
    return count


def check_size(n: int, r: int, s: int = 1, *, directed: bool = False) -> None:
    """Raise ``ParameterError`` unless a design of this size fits the ceilings of
    :mod:`robustgraph.limits`: at most ``MAX_DESIGN_NODES`` nodes, and a start construction of
    at most ``MAX_DESIGN_EDGES`` edges (``n = 10,000,000`` ran for minutes before the search).
    Call it after :func:`check_target`.

    Examples
    --------
    >>> check_size(1000, 2)
    >>> check_size(10**7, 2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    solvers.errors.ParameterError: n = 10,000,000 is over the ceiling of 1,000 nodes ...
    """
    limits.at_most("n", n, limits.MAX_DESIGN_NODES, " nodes")
    edges = reference_edges(n, r, s, directed=directed)
    limits.at_most(f"the start's edges for n = {n}, r = {r}", edges, limits.MAX_DESIGN_EDGES)
