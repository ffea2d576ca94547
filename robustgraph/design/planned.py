"""Planned connector designs: sparse starting graphs whose connector pairs are placed for new
hub-pair paths before the leaves (issue 43, round 15); each is a start only once proven.

- :func:`cherry_design` (r = 2): connector pairs planned over an edge-disjoint packing of
  paths a - c - b in the complete graph on the hubs (:func:`cherry_packing`), so that every
  hub pair gets a connector path and no node is spent on a pair covered already.
- :func:`planned_connector_design` (r >= 3): connector pairs placed greedily where they give
  hub pairs their first path, then leaves over what each pair still lacks.

Units, node order and the coverage rule are those of
:func:`robustgraph.design.starts.connector_design`: a hub pair counts as covered with 2r - 1
common neighbours, or 2r - 2 and a connector path. That rule is a heuristic, not a lemma, so
the exact oracle (or the cores search) must prove a graph before ``design`` uses it.
"""

from __future__ import annotations

import itertools
import random

from robustgraph.design.starts import _hub_setup, _join, _pair, _spread_leaves

__all__ = ["planned_connector_design", "cherry_packing", "cherry_design"]


def planned_connector_design(n: int, r: int, k: int, g: int) -> list[int]:
    """k hubs, g connector pairs placed for new paths, then leaves on what pairs lack (issue 43,
    r >= 3); r-robust only if checked.

    The units and the coverage rule are ``starts.connector_design``'s (x joined to r hubs A,
    y to r - 1 others C, x ~ y; a hub pair is covered with 2r - 1 common neighbours, or 2r - 2
    and a path a - x - y - c). The order differs: each connector takes, hub by hub, for A the
    hubs with the fewest common neighbours with those taken, for C the hubs giving the most
    pairs of A x C their first path (ties: the least used hub, then the lowest index); then
    the leaves are spread by ``starts.hub_design``'s greedy over each pair's remaining need
    (2r - 2 with a path, 2r - 1 without, less its common neighbours), and pairs still short
    are joined. Measured (docs/design.md): 1-2 edges below the starts of round 14 at n = 50,
    r = 3-5 and n = 100, r = 3. A heuristic, not a lemma: the graph must be proven r-robust
    by the exact oracle before use.

    Parameters and node order are ``starts.connector_design``'s. Returns in-neighbour
    bitmasks of an undirected graph with ``r (n - k)`` edges plus the hub pairs joined.

    Examples
    --------
    >>> from robustgraph.design.starts import edge_count
    >>> edge_count(planned_connector_design(50, 3, 8, 6), False)
    128

    Notes
    -----
    O((n - k) r k^2) time.
    """
    need, masks, direct, used = _hub_setup(n, r, k)
    path = dict.fromkeys(direct, 0)
    def take(size: int, side: list[int], across: list[int], taken: list[int]) -> None:
        for _ in range(size):
            side.append(max(
                (h for h in range(k) if h not in taken and h not in side),
                key=lambda h: (sum(path[_pair(h, a)] == 0 for a in across),
                               -sum(direct[_pair(h, a)] for a in side), -used[h], -h),
            ))
            used[side[-1]] += 1

    for x in range(k, k + 2 * g, 2):
        hubs_x: list[int] = []
        hubs_y: list[int] = []
        take(r, hubs_x, [], [])
        take(r - 1, hubs_y, hubs_x, hubs_x)
        for group, node in ((hubs_x, x), (hubs_y, x + 1)):
            for h in group:
                _join(masks, h, node)
            for a, b in itertools.combinations(group, 2):
                direct[_pair(a, b)] += 1
        for a in hubs_x:
            for c in hubs_y:
                path[_pair(a, c)] += 1
        _join(masks, x, x + 1)
    short = {p: need - (path[p] > 0) - d for p, d in direct.items()}
    _spread_leaves(masks, r, short, used, first=k + 2 * g)
    for p, lack in short.items():
        if lack > 0:
            _join(masks, *p)
    return masks


def cherry_packing(k: int, *, tries: int = 200, seed: int = 0) -> list[tuple[int, int, int]]:
    """Edge-disjoint paths ``(a, c, b)`` (edges a - c and c - b) in the complete graph on
    ``0..k-1`` whose end pairs {a, b} are all distinct: the plan of :func:`cherry_design`.

    A randomised greedy (a centre with the most unused edges first, ties at random), the best
    of ``tries`` runs from ``random.Random(seed)``; it stops early at floor(C(k, 2) / 2)
    paths, the most there can be. Deterministic for given arguments.

    Examples
    --------
    >>> len(cherry_packing(3))  # K_3: one path, the third edge is left
    1
    >>> len(cherry_packing(9))  # K_9's 36 edges as 18 paths
    18

    Notes
    -----
    O(tries k^4) time at most; it reached the maximum in at most 200 runs for every k <= 15
    but 13 (38 of 39).
    """
    rng = random.Random(seed)
    goal = k * (k - 1) // 4
    best: list[tuple[int, int, int]] = []
    for _ in range(tries):
        free = [set(range(k)) - {v} for v in range(k)]
        ends: set[tuple[int, int]] = set()
        found: list[tuple[int, int, int]] = []
        while True:
            options = [
                (len(free[c]), rng.random(), (a, c, b))
                for c in range(k)
                for a, b in itertools.combinations(sorted(free[c]), 2)
                if (a, b) not in ends
            ]
            if not options:
                break
            a, c, b = max(options)[2]
            found.append((a, c, b))
            ends.add((a, b))
            free[c] -= {a, b}
            free[a].discard(c)
            free[b].discard(c)
        if len(found) > len(best):
            best = found
        if len(best) == goal:
            break
    return best


def cherry_design(n: int, k: int) -> list[int]:
    """A 2-robust candidate: k hubs, connector pairs planned by :func:`cherry_packing`, leaves
    (issue 43, r = 2); r-robust only if checked.

    Each planned path (a, c, b) becomes a connector pair x ~ y with x joined to hubs a, b and y
    to hub c (``starts.connector_design``'s unit at r = 2: four edges, like two leaves), which
    gives the pair {a, b} a common neighbour and the pairs {a, c}, {b, c} a path
    a - x - y - c. As there, a hub pair counts as covered with 3 common neighbours, or 2 and
    such a path. With C = C(k, 2) pairs and p planned paths, ``g = 3C - (n - k)`` pairs
    (when 0 <= g <= p and 2g <= n - k) cover every pair with ``n - k`` non-hub nodes, each
    of degree 2 but the x's (3): then the graph has exactly ``2(n - k)`` edges, no hub edge,
    and every hub pair exactly covered. Remaining nodes are leaves on the pairs that lack
    most; a pair still short is joined. Where ``starts.connector_design``'s greedy spends
    connectors on pairs covered already, this spends none, so it fits more hubs on the same
    nodes: n = 100 with k = 9 (182 edges), where that greedy's best is 184 (k = 8). The
    coverage rule is a heuristic, not a lemma: the graph must be proven 2-robust by the
    exact oracle before use (docs/design.md, "Structured starts").

    Parameters
    ----------
    n : int
        Number of nodes.
    k : int
        Number of hubs ``0..k-1``, 3 <= k <= n - 1; connectors follow (x then y), then leaves.

    Returns
    -------
    list of int
        In-neighbour bitmasks of an undirected graph with ``2(n - k)`` edges plus the hub
        pairs joined.

    Examples
    --------
    >>> from robustgraph.design.starts import edge_count
    >>> edge_count(cherry_design(11, 3), False)  # the proven minimum at n = 11, r = 2
    16
    >>> edge_count(cherry_design(100, 9), False)
    182

    Notes
    -----
    O(k^4 + n k^2) time after the packing.
    """
    masks = [0] * n
    short = dict.fromkeys(itertools.combinations(range(k), 2), 3)
    plan = cherry_packing(k)
    g = max(0, min(len(plan), 3 * len(short) - (n - k), (n - k) // 2))
    node = k
    for a, c, b in plan[:g]:
        x, y = node, node + 1
        for u, v in ((a, x), (b, x), (x, y), (c, y)):
            _join(masks, u, v)
        for p in ((a, b), _pair(a, c), _pair(b, c)):
            short[p] -= 1
        node += 2
    for leaf in range(node, n):
        u, v = max(short, key=lambda p: (short[p], -p[0], -p[1]))
        _join(masks, u, leaf)
        _join(masks, v, leaf)
        short[(u, v)] -= 1
    for (u, v), lack in short.items():
        if lack > 0:
            _join(masks, u, v)
    return masks
