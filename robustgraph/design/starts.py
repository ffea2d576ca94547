"""Structured r-robust starting graphs for the design search, each with a proof of robustness.

Graphs are lists of in-neighbour bitmasks on nodes ``0..n-1``. Four constructions:

- :func:`construction`: the preferential-attachment construction of LeBlanc et al. (2013,
  Theorem 5) with every new node joined to the same r + s - 1 seed nodes. It is the reference
  count and a valid start for every (n, r, s), directed or not.
- :func:`hub_design`: k hubs and n - k leaves; leaves are independent, each joined to r hubs
  chosen to spread common neighbours evenly over hub pairs, and hub pairs that still lack common
  neighbours are joined. Robustness follows from the common-neighbour lemma below, checked by
  :func:`common_neighbour_proof`.
- :func:`connector_design`: a hub design where some pairs of leaves are replaced by connector
  pairs (issue 43). It has no proof of its own: a start only after the exact oracle proves it.
- :func:`hub_graph_design`: k hubs joined by a few hub edges (:func:`hub_graph_edges`) and
  leaves spread to meet a necessary two-hub condition (issue 43); also a start only once proven.

The planned connector designs (issue 43, round 15) are in :mod:`robustgraph.design.planned`.

**Common-neighbour lemma.** Let L be an independent set of nodes of degree at least r in an
undirected graph G, and H = V - L. If every pair of distinct hubs u, v in H has
``|N(u) & N(v)| + 2 [u ~ v] >= 2r - 1``, then G is r-robust. Proof: a set of leaves only is
r-reachable (a leaf hears its r or more neighbours, all outside), so each of two disjoint
non-r-reachable sets S1, S2 holds a hub, u in S1 and v in S2. Each common neighbour of u and v
lies outside S1 or outside S2, and if u ~ v then v is outside S1 and u outside S2; u hears at
most r - 1 nodes outside S1 and v at most r - 1 outside S2, so
``|N(u) & N(v)| + 2 [u ~ v] <= 2r - 2``. Special cases: the complete split graph
``K_r + independent set`` (n >= 2r - 1) and, for n >= 3r - 1, the complete bipartite
``K_{r, n-r}``, with ``r n - r(r+1)/2`` and ``r n - r^2`` edges against the construction's
``r n - 2r + 1``.
"""

from __future__ import annotations

import itertools

__all__ = [
    "construction",
    "seed_size",
    "hub_design",
    "common_neighbour_proof",
    "edge_count",
    "hub_counts",
    "connector_design",
    "hub_graph_design",
    "hub_graph_edges",
]


def edge_count(masks: list[int], directed: bool) -> int:
    """Edges (arcs for a digraph) of a bitmask graph."""
    total = sum(m.bit_count() for m in masks)
    return total if directed else total // 2


def _pair(u: int, v: int) -> tuple[int, int]:
    return (u, v) if u < v else (v, u)


def _join(masks: list[int], u: int, v: int) -> None:
    masks[u] |= 1 << v
    masks[v] |= 1 << u


def seed_size(n: int, r: int, s: int = 1) -> int:
    """Nodes of the construction's complete seed: ``2r - 1``, or ``r + s - 1`` when s > r (the
    first added node must find r + s - 1 partners), at most n.

    A complete graph on N >= 2r - 1 nodes is (r, s)-robust for every s: two disjoint sets of
    a and b nodes are both not r-reachable only when N - a < r and N - b < r, so
    a + b >= 2(N - r + 1) > N, which no two disjoint sets reach.

    Examples
    --------
    >>> seed_size(14, 4), seed_size(9, 2, 3), seed_size(4, 2, 4)
    (7, 4, 4)
    """
    return min(n, max(2 * r - 1, r + s - 1))


def construction(n: int, r: int, s: int = 1, *, directed: bool = False) -> list[int]:
    """The preferential-attachment construction with fixed partners (LeBlanc et al. 2013, Thm. 5).

    A complete (di)graph on the :func:`seed_size` nodes ``0..N-1`` (N = 2r - 1 for s <= r);
    every further node hears nodes ``0..r+s-2`` (undirected: is joined to them). Each step adds
    a node with r + s - 1 in-neighbours to an (r, s)-robust graph, which keeps it
    (r, s)-robust.

    Examples
    --------
    >>> edge_count(construction(14, 4), False), edge_count(construction(14, 4, directed=True), True)
    (49, 70)
    >>> edge_count(construction(9, 2, 3), False)  # K_4, then 5 nodes joined to nodes 0..3
    26
    """
    core = seed_size(n, r, s)
    masks = [0] * n
    for u, v in itertools.permutations(range(core), 2):
        masks[v] |= 1 << u
    partners = (1 << (r + s - 1)) - 1
    for v in range(core, n):
        masks[v] |= partners
        if not directed:
            for u in range(r + s - 1):
                masks[u] |= 1 << v
    return masks


def hub_counts(masks: list[int], hubs: int) -> list[tuple[int, int, int]]:
    """``(u, v, |N(u) & N(v)| + 2[u ~ v])`` for every pair of hubs ``0..hubs-1``."""
    return [
        (u, v, (masks[u] & masks[v]).bit_count() + 2 * (masks[u] >> v & 1))
        for u, v in itertools.combinations(range(hubs), 2)
    ]


def common_neighbour_proof(masks: list[int], r: int) -> bool:
    """True if the common-neighbour lemma (module docstring) proves the undirected graph r-robust.

    Takes as leaves a greedy independent set of nodes of degree >= r, smallest degree first, and
    checks every pair of the remaining nodes. False proves nothing.

    Examples
    --------
    >>> common_neighbour_proof(hub_design(30, 5, 5), 5)
    True

    Notes
    -----
    O(n^2) big-integer operations.
    """
    n = len(masks)
    if any(m.bit_count() < r for m in masks):
        return False
    leaves = 0
    for i in sorted(range(n), key=lambda i: masks[i].bit_count()):
        if not masks[i] & leaves:
            leaves |= 1 << i
    hubs = [i for i in range(n) if not leaves >> i & 1]
    need = 2 * r - 1
    return all(
        (masks[u] & masks[v]).bit_count() + 2 * (masks[u] >> v & 1) >= need
        for u, v in itertools.combinations(hubs, 2)
    )


def _hub_setup(
    n: int, r: int, k: int
) -> tuple[int, list[int], dict[tuple[int, int], int], list[int]]:
    """Shared start of the hub constructions: the lemma's need ``2r - 1``, the empty graph on n
    nodes, a zero count for every pair of hubs ``0..k-1`` and a zero use count for every hub."""
    return 2 * r - 1, [0] * n, dict.fromkeys(itertools.combinations(range(k), 2), 0), [0] * k


def hub_design(n: int, r: int, k: int) -> list[int]:
    """k hubs ``0..k-1`` and n - k independent leaves joined to r hubs each; needy hub pairs joined.

    Each leaf takes r hubs greedily: the hub covering the most still-needy pairs with the hubs
    already taken (ties: the least used hub, then the lowest index). A hub pair is needy while
    its common neighbours plus twice its adjacency fall short of 2r - 1. Afterwards every needy
    pair is joined, and any pair that is still short is left for the exact check to judge.

    Parameters
    ----------
    n, r : int
        Nodes and target robustness.
    k : int
        Number of hubs, r <= k <= n - 1.

    Returns
    -------
    list of int
        In-neighbour bitmasks of an undirected graph; r-robust whenever
        :func:`common_neighbour_proof` says so.

    Examples
    --------
    >>> edge_count(hub_design(30, 2, 4), False)
    52

    Notes
    -----
    O((n - k) r k^2) time.
    """
    need, masks, short, used = _hub_setup(n, r, k)
    _spread_leaves(masks, r, dict.fromkeys(short, need), used)
    for u, v in sorted(short):
        if (masks[u] & masks[v]).bit_count() < need:
            _join(masks, u, v)
    return masks


def _spread_leaves(
    masks: list[int], r: int, short: dict[tuple[int, int], int], used: list[int],
    first: int | None = None,
) -> None:
    """Join every node from ``first`` (default ``len(used)``) on to r of the hubs
    ``0..len(used)-1``, greedily.

    ``short`` holds, for every hub pair, the common neighbours it still lacks. Each leaf takes
    the hub that covers the most still-short pairs with the hubs already taken (ties: the pairs
    that lack most, then the least used hub, then the lowest index); ``short`` and ``used`` are
    updated in place.
    """
    k = len(used)
    for leaf in range(k if first is None else first, len(masks)):
        chosen: list[int] = []
        for _ in range(r):
            best = max(
                (h for h in range(k) if h not in chosen),
                key=lambda h: (
                    sum(short[(min(h, c), max(h, c))] > 0 for c in chosen),
                    sum(short[(min(h, c), max(h, c))] for c in chosen),
                    -used[h],
                    -h,
                ),
            )
            chosen.append(best)
        for a, b in itertools.combinations(sorted(chosen), 2):
            short[(a, b)] -= 1
        for h in chosen:
            used[h] += 1
            _join(masks, h, leaf)


def hub_graph_edges(k: int, e: int, kind: str) -> list[tuple[int, int]]:
    """The e hub edges of :func:`hub_graph_design`: a ``"star"`` at hub 0 (hubs 1..e) or a
    ``"path"`` through hubs 0..e, on hubs ``0..k-1`` (e <= k - 1)."""
    if kind == "star":
        return [(0, i) for i in range(1, e + 1)]
    return [(i, i + 1) for i in range(e)]


def hub_graph_design(n: int, r: int, k: int, hub_edges: list[tuple[int, int]]) -> list[int]:
    """k hubs joined by ``hub_edges``, n - k leaves joined to r hubs each (issue 43); exact check.

    Generalises the proven minima at n = 8, 9 (r = 2) and 11 (r = 3), where a few hub edges
    replace common leaves (docs/design.md, "Structured starts"). When every leaf is joined to
    hubs only, two single hubs u, v need

        ``|N(u) & N(v) & L| + d_H(u) + d_H(v) >= 2r - 1``        (*)

    with d_H the degree among the hubs: otherwise split the common leaves C into C1, C2 with
    ``|C2| <= r - 1 - d_H(u)`` and ``|C1| <= r - 1 - d_H(v)``; then S1 = {u} + N_L(u) - C2 and
    S2 = {v} + N_L(v) - S1 are disjoint and not r-reachable (u hears its d_H(u) hubs and C2
    outside S1, each leaf of S1 its other r - 1 hubs). A hub edge adds one to (*) for every pair
    at either end, 2(k - 1) in all, where the common-neighbour lemma credits it to one pair.
    The leaves are spread by :func:`hub_design`'s greedy over the pairs' deficits in (*), and
    pairs still short are joined, first in order, until (*) holds everywhere. (*) is necessary,
    not sufficient (sets of several hubs can still split): the graph must be proven r-robust
    by the exact oracle (:func:`robustgraph.design.oracle.find_pair`) before use.

    Parameters
    ----------
    n, r : int
        Nodes and target robustness, r >= 2.
    k : int
        Number of hubs ``0..k-1``, r <= k <= n - 1.
    hub_edges : list of (int, int)
        Edges among the hubs to start from (:func:`hub_graph_edges`).

    Returns
    -------
    list of int
        In-neighbour bitmasks of an undirected graph with
        ``r (n - k) + |hub edges|`` edges (the given ones and those the repair adds).

    Examples
    --------
    >>> edge_count(hub_graph_design(8, 2, 3, hub_graph_edges(3, 1, "star")), False)
    11
    >>> edge_count(hub_graph_design(11, 3, 4, hub_graph_edges(4, 1, "star")), False)
    23

    Notes
    -----
    O((n - k) r k^2 + k^4) time.
    """
    need, masks, pairs, used = _hub_setup(n, r, k)
    for u, v in hub_edges:
        _join(masks, u, v)

    hub_mask = (1 << k) - 1

    def deficit(u: int, v: int) -> int:
        common = (masks[u] & masks[v] & ~hub_mask).bit_count()
        return need - common - (masks[u] & hub_mask).bit_count() - (masks[v] & hub_mask).bit_count()

    _spread_leaves(masks, r, {(u, v): deficit(u, v) for u, v in pairs}, used)
    repairable = [(u, v) for u, v in pairs if not masks[u] >> v & 1]
    while short := [p for p in repairable if not masks[p[0]] >> p[1] & 1 and deficit(*p) > 0]:
        _join(masks, *short[0])
    return masks


def connector_design(n: int, r: int, k: int, g: int) -> list[int]:
    """k hubs, g connector pairs and n - k - 2g leaves (issue 43); r-robust only if checked.

    A connector pair is two adjacent nodes x, y: x is joined to r hubs A, y to r - 1 other hubs
    C, so the pair has 2r edges like two leaves (x has degree r + 1, y degree r). It gives the
    hub pairs inside A and inside C a common neighbour each, and every pair of A x C a path
    a - x - y - c. The proven minimum for n = 11, r = 2 is such a graph (16 edges; the hub
    designs the common-neighbour lemma proves need 17): there hubs a, c with only 2r - 2
    common neighbours are held together by such a path. This generalises it greedily (and
    gives the proven minima at n = 10, 11 for r = 2, docs/design.md): hub pair (u, v) counts
    as covered when it has 2r - 1 common neighbours, or
    2r - 2 and a connector path; each unit takes the hubs that add most coverage (ties: the
    least used, then the lowest index), connectors first, and pairs still short are joined.
    Unlike :func:`hub_design` this is a heuristic, not a lemma: the graph must be proven
    r-robust by the exact oracle (:func:`robustgraph.design.oracle.find_pair`) before use, and
    for some (n, r, k, g) it is not r-robust.

    Parameters
    ----------
    n, r : int
        Nodes and target robustness, r >= 2.
    k : int
        Number of hubs ``0..k-1``, 2r - 1 <= k <= n - 1.
    g : int
        Connector pairs, 2g <= n - k; nodes ``k..k+2g-1`` (x then y), then the leaves.

    Returns
    -------
    list of int
        In-neighbour bitmasks of an undirected graph.

    Examples
    --------
    >>> edge_count(connector_design(20, 2, 4, 3), False)  # hub designs: 33 at best
    32

    Notes
    -----
    O((n - k) r k^2) time.
    """
    need, masks, direct, used = _hub_setup(n, r, k)
    path = dict.fromkeys(direct, 0)
    def value(d: int, c: int) -> int:
        return min(d, need - 1) + min(d + min(c, 1), need)

    def gain(h: int, inside: list[int], across: list[int]) -> int:
        total = 0
        for a in inside:
            d, c = direct[_pair(h, a)], path[_pair(h, a)]
            total += value(d + 1, c) - value(d, c)
        for a in across:
            d, c = direct[_pair(h, a)], path[_pair(h, a)]
            total += value(d, c + 1) - value(d, c)
        return total

    def pick(size: int, across: list[int], taken: list[int]) -> list[int]:
        chosen: list[int] = []
        for _ in range(size):
            free = (h for h in range(k) if h not in chosen and h not in taken)
            chosen.append(max(free, key=lambda h: (gain(h, chosen, across), -used[h], -h)))
            used[chosen[-1]] += 1
        for a, b in itertools.combinations(chosen, 2):
            direct[_pair(a, b)] += 1
        return chosen

    node = k
    for _ in range(g):
        x, y = node, node + 1
        hubs_x = pick(r, [], [])
        hubs_y = pick(r - 1, hubs_x, hubs_x)
        for a in hubs_x:
            _join(masks, a, x)
            for c in hubs_y:
                path[_pair(a, c)] += 1
        for c in hubs_y:
            _join(masks, c, y)
        _join(masks, x, y)
        node += 2
    for leaf in range(node, n):
        for h in pick(r, [], []):
            _join(masks, h, leaf)
    for (u, v), d in direct.items():
        if d < need and not (d == need - 1 and path[(u, v)]):
            _join(masks, u, v)
    return masks
