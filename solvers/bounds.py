"""Cheap, proven bounds on r* and s*_r: each upper bound comes with a witness pair.

Upper bounds on r* (each an explicit pair, checked with ``solvers.witness``):

- *degree*: ``({i}, V \\ {i})`` has value ``max(d_i, 1 if i has an out-neighbour else 0)``;
- *halves*: a split into two halves has value at most ``ceil(n/2)`` (LeBlanc et al. 2013);
- *vertex cut*: if removing C separates A from B (no edge either way), ``(A, B)`` has value at
  most ``|C|``; cuts come from a few local minimum vertex cuts of the underlying graph.

Lower bounds on r*:

- *rooted*: r* >= 1 iff the condensation of G has exactly one source component (a graph is
  1-robust iff it has a rooted out-branching; two source components are two sets that hear no
  one outside, the witness of r* = 0);
- *spectral* (undirected only): ``r* >= ceil(lambda_2 / 2)``. Proof: for a nonempty S,
  Fiedler's bound gives ``|boundary(S)| >= lambda_2 |S| (n - |S|) / n`` and
  ``|boundary(S)| <= |S| reach(S)``, so ``reach(S) >= lambda_2 (n - |S|) / n``; of two disjoint
  sets one has ``|S| <= n/2``, hence reach at least ``lambda_2 / 2``. (Same argument as
  Shahrivar, Pirani & Sundaram, "Spectral and structural properties of random interdependent
  networks", Automatica 2017.)
- *extension*: adding a node with at least r in-neighbours to an r-robust graph (and any further
  edges) keeps it r-robust (LeBlanc et al. 2013, Thm. 7 construction). If greedily deleting such
  nodes passes through a small core that is r-robust (checked exactly by subset DP), G is
  r-robust.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Sequence

import numpy as np

from solvers import exhaustive
from solvers.arrays import adjacency
from solvers.errors import ParameterError
from solvers.linear import out_neighbors
from solvers.types import Question, Witness
from solvers.witness import reach, reachable_nodes

__all__ = [
    "trivial_upper",
    "pair_value_r",
    "pair_value_s",
    "source_components",
    "degree_pair",
    "halves_pair",
    "cut_pair",
    "spectral_lower",
    "extension_cores",
    "extension_closure",
    "extension_proves",
    "EXTENSION_CORE_MAX",
    "DENSE_MAX_N",
]

DENSE_MAX_N = 500
"""Largest graph the dense bounds take (:func:`halves_pair`, :func:`spectral_lower`): an n x n
matrix and an O(n^3) eigensolver, about 0.1 s and 2 MB at 500 nodes, but 8 s and 32 MB at
2,000 and out of memory past 10^4 (issue 32). Above it the search uses the linear splits of
``solvers.linear`` and no spectral bound."""

EXTENSION_CORE_MAX = 18
"""Largest core the extension bound checks exactly (subset DP, about 0.1 s at 18 nodes)."""


def trivial_upper(question: Question, n: int) -> int:
    """The bound that needs no witness: ``ceil(n/2)`` for r*, ``n`` for s*_r (0 when n < 2)."""
    if n < 2:
        return 0
    return n if question.about_s else (n + 1) // 2


def pair_value_r(in_neighbors: Sequence[frozenset[int]], pair: Witness) -> int:
    """``max(reach(S1), reach(S2))``: the pair refutes (value+1)-robustness."""
    return max(reach(in_neighbors, pair.s1), reach(in_neighbors, pair.s2))


def pair_value_s(in_neighbors: Sequence[frozenset[int]], pair: Witness, r: int) -> int | None:
    """``|X_S1^r| + |X_S2^r|`` when neither side is entirely r-reachable, else None."""
    x1 = reachable_nodes(in_neighbors, pair.s1, r)
    x2 = reachable_nodes(in_neighbors, pair.s2, r)
    if len(x1) == len(pair.s1) or len(x2) == len(pair.s2):
        return None
    return len(x1) + len(x2)


def source_components(in_neighbors: Sequence[frozenset[int]]) -> list[frozenset[int]]:
    """Strongly connected components that hear no node outside themselves.

    A source component is the set of nodes every one of whose ancestors (nodes it hears, and
    theirs) can also hear it back: node v is in one iff every ancestor of v has v as an
    ancestor. Two such components never hear each other, so each refutes 1-robustness against
    the other (LeBlanc et al. 2013: r* = 0 iff the graph has two).

    Notes
    -----
    O(n + m) time and memory: strong components by an iterative Tarjan search over
    in-neighbours. Own code rather than scipy's strong components because importing
    ``scipy.sparse.csgraph`` costs 0.3 s to 2 s on the project's machine.

    Examples
    --------
    >>> source_components([frozenset({1}), frozenset({0}), frozenset({0})])  # 2 hears 0
    [frozenset({0, 1})]
    """
    comp = _strong_components(in_neighbors)
    members: dict[int, list[int]] = {}
    for v, c in enumerate(comp):
        members.setdefault(c, []).append(v)
    found = [
        frozenset(vs)
        for c, vs in members.items()
        if all(comp[j] == c for v in vs for j in in_neighbors[v])
    ]
    return sorted(found, key=min)


def _strong_components(in_neighbors: Sequence[frozenset[int]]) -> list[int]:
    """A strong component id per node (Tarjan 1972, iterative), O(n + m)."""
    n = len(in_neighbors)
    index = [-1] * n
    low = [0] * n
    comp = [-1] * n
    stack: list[int] = []
    counter = 0
    components = 0
    for root in range(n):
        if index[root] >= 0:
            continue
        work = [(root, iter(in_neighbors[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        while work:
            v, children = work[-1]
            for u in children:
                if index[u] < 0:
                    index[u] = low[u] = counter
                    counter += 1
                    stack.append(u)
                    work.append((u, iter(in_neighbors[u])))
                    break
                if comp[u] < 0:
                    low[v] = min(low[v], index[u])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[v])
                if low[v] == index[v]:
                    while True:
                        u = stack.pop()
                        comp[u] = components
                        if u == v:
                            break
                    components += 1
    return comp


def degree_pair(in_neighbors: Sequence[frozenset[int]]) -> tuple[int, Witness]:
    """The best pair ``({i}, V \\ {i})``. Needs n >= 2."""
    n = len(in_neighbors)
    heard = [0] * n
    for s in in_neighbors:
        for j in s:
            heard[j] = 1
    i = min(range(n), key=lambda v: (max(len(in_neighbors[v]), heard[v]), v))
    pair = Witness(frozenset({i}), frozenset(range(n)) - {i})
    return pair_value_r(in_neighbors, pair), pair


def halves_pair(in_neighbors: Sequence[frozenset[int]]) -> tuple[int, Witness]:
    """A split into halves by spectral order: value at most ``ceil(n/2)``. Needs n >= 2.

    Raises
    ------
    ParameterError
        Above :data:`DENSE_MAX_N` nodes (a dense eigensolver): use ``solvers.linear.split_pair``.
    """
    n = len(in_neighbors)
    _dense_only("halves_pair", n)
    a = adjacency(in_neighbors)
    sym = ((a + a.T) > 0).astype(float)
    _, vecs = np.linalg.eigh(np.diag(sym.sum(axis=1)) - sym)
    order = np.argsort(vecs[:, 1], kind="stable")
    pair = Witness(frozenset(order[: n // 2].tolist()), frozenset(order[n // 2 :].tolist()))
    return pair_value_r(in_neighbors, pair), pair


def cut_pair(
    in_neighbors: Sequence[frozenset[int]], *, tries: int = 2
) -> tuple[int, Witness] | None:
    """A pair from local minimum vertex cuts of the underlying undirected graph, or None.

    For the ``tries`` lowest-degree nodes u and the farthest node v not adjacent to u, take a
    minimum u-v vertex cut C; the component A of u in G - C and the rest B of G - C hear at
    most ``|C|`` nodes from outside. Returns the best such pair.

    Notes
    -----
    ``2 tries`` max-flow computations (networkx), O(n m^(1/2)) each at most.
    """
    import networkx as nx

    n = len(in_neighbors)
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from((i, j) for i, s in enumerate(in_neighbors) for j in s)
    if not nx.is_connected(g):
        comp = min(nx.connected_components(g), key=lambda c: (len(c), min(c)))
        pair = Witness(frozenset(comp), frozenset(range(n)) - comp)
        return pair_value_r(in_neighbors, pair), pair
    best = None
    for u in sorted(range(n), key=lambda v: (g.degree(v), v))[:tries]:
        dist = nx.single_source_shortest_path_length(g, u)
        far = [
            v for v in sorted(dist, key=lambda v: (-dist[v], v)) if v != u and not g.has_edge(u, v)
        ]
        if not far:
            continue
        cut = nx.minimum_node_cut(g, u, far[0])
        rest = g.subgraph(set(range(n)) - cut)
        side = nx.node_connected_component(rest, u)
        pair = Witness(frozenset(side), frozenset(rest.nodes) - side)
        value = pair_value_r(in_neighbors, pair)
        if best is None or value < best[0]:
            best = (value, pair)
    return best


def _dense_only(name: str, n: int) -> None:
    if n > DENSE_MAX_N:
        raise ParameterError(
            f"{name} builds an n x n matrix: {n} nodes is above DENSE_MAX_N = {DENSE_MAX_N}"
        )


def spectral_lower(in_neighbors: Sequence[frozenset[int]], directed: bool) -> int:
    """``ceil(lambda_2 / 2)`` for an undirected graph (see the module notes for the proof).

    Raises
    ------
    ParameterError
        For a digraph (the bound needs a symmetric Laplacian).

    Notes
    -----
    O(n^3) time (dense symmetric eigensolver, LAPACK's backward-stable ``eigvalsh``: a
    relative slack of 1e-9 n guards its rounding). Above :data:`DENSE_MAX_N` nodes the bound
    skips itself and returns 0 (nothing proven): the dense matrix is out of reach there, and a
    sparse Lanczos estimate (``scipy.sparse.linalg.eigsh``) comes with no proven error bound,
    so an estimate of lambda_2 slightly too high could claim a lower bound that does not hold.
    On sparse graphs the bound is weak anyway: lambda_2 <= n d_min / (n - 1) (Fiedler 1973),
    so it proves at most ceil(d_min / 2) for large n (1 on a 2-regular graph).
    """
    if directed:
        raise ParameterError(
            "the spectral lower bound ceil(lambda_2/2) holds for undirected graphs only"
        )
    n = len(in_neighbors)
    if n > DENSE_MAX_N:
        return 0
    if n < 2:
        return 0
    a = adjacency(in_neighbors).astype(float)
    lam = np.linalg.eigvalsh(np.diag(a.sum(axis=1)) - a)
    lambda2 = float(lam[1])
    return max(0, math.ceil(lambda2 / 2 - 1e-9 * max(1.0, n)))


def extension_cores(in_neighbors: Sequence[frozenset[int]], r: int) -> list[frozenset[int]]:
    """Cores whose r-robustness implies G's, by the extension theorem, smallest first.

    Greedily deletes a node that hears at least r of the remaining nodes, choosing the one heard
    by the fewest remaining nodes (the lowest index among ties), until none qualifies. Reading
    the deletions backwards, each node joins with r in-neighbours among earlier nodes, so G is
    r-robust whenever the set left at *any* stage is. Returns the stages with
    ``2r - 1 <= size <= EXTENSION_CORE_MAX`` (smaller sets cannot be r-robust: an r-robust
    graph has at least 2r - 1 nodes).

    Notes
    -----
    O((n + m) log n) time, O(n + m) memory: a heap of the eligible nodes keyed by how many
    remaining nodes hear them, stale entries skipped when popped.
    """
    n = len(in_neighbors)
    out = out_neighbors(in_neighbors)
    alive = [True] * n
    heard_by = [len(o) for o in out]  # how many remaining nodes hear each node
    hears = [len(s) for s in in_neighbors]  # how many remaining nodes each node hears
    heap = [(heard_by[v], v) for v in range(n) if hears[v] >= r]
    heapq.heapify(heap)
    cores = []
    for size in range(n, max(2 * r - 1, 2) - 1, -1):
        if size <= EXTENSION_CORE_MAX:
            cores.append(frozenset(v for v in range(n) if alive[v]))
        while heap and (
            not alive[heap[0][1]] or hears[heap[0][1]] < r or heap[0][0] != heard_by[heap[0][1]]
        ):
            heapq.heappop(heap)
        if not heap:
            break
        v = heapq.heappop(heap)[1]
        alive[v] = False
        for w in out[v]:
            hears[w] -= 1
        for j in in_neighbors[v]:
            heard_by[j] -= 1
            if alive[j] and hears[j] >= r:
                heapq.heappush(heap, (heard_by[j], j))
    return cores[::-1]


def extension_closure(
    in_neighbors: Sequence[frozenset[int]], r: int, seed: frozenset[int]
) -> frozenset[int]:
    """The nodes the extension theorem reaches from ``seed``: the smallest superset of ``seed``
    that no node outside it hears r members of. If ``seed`` induces an r-robust graph
    and the closure is all of V, G is r-robust (each added node hears r earlier nodes).

    Notes
    -----
    The closure does not depend on the order nodes are added in (adding only raises counts).
    O(n + m) time: a queue of the nodes that hear r members.
    """
    inside = set(seed)
    out = out_neighbors(in_neighbors)
    count = [0] * len(in_neighbors)
    queue = []
    for v in seed:
        for w in out[v]:
            count[w] += 1
            if count[w] == r and w not in inside:
                queue.append(w)
    while queue:
        v = queue.pop()
        if v in inside:
            continue
        inside.add(v)
        for w in out[v]:
            count[w] += 1
            if count[w] >= r and w not in inside:
                queue.append(w)
    return frozenset(inside)


_CLIQUE_SEEDS = 200
"""Most maximal cliques tried as extension seeds (cliques are enumerated lazily)."""


def _clique_seeds(in_neighbors: Sequence[frozenset[int]], r: int):
    """Maximal cliques with at least 2r - 1 nodes of the graph of arcs present both ways.

    A complete digraph on k >= 2r - 1 nodes is ceil(k/2) >= r robust (LeBlanc et al. 2013).
    """
    import networkx as nx

    g = nx.Graph()
    g.add_nodes_from(range(len(in_neighbors)))
    g.add_edges_from((i, j) for i, s in enumerate(in_neighbors) for j in s if i in in_neighbors[j])
    for k, clique in enumerate(nx.find_cliques(g)):
        if k >= _CLIQUE_SEEDS:
            return
        if len(clique) >= 2 * r - 1:
            yield frozenset(clique)


def extension_proves(
    in_neighbors: Sequence[frozenset[int]], r: int, *, stop: Callable[[], bool] | None = None
) -> bool:
    """True if the extension argument proves G r-robust.

    Two kinds of r-robust seed are tried: the cores of :func:`extension_cores` (checked by
    subset DP, smallest first), which G extends by construction, and maximal cliques of at least
    2r - 1 nodes, whose :func:`extension_closure` must then be all of V. False proves nothing.
    ``stop``, once True, ends the search between seeds (False: nothing proven).

    Notes
    -----
    O(n^2 + sum_k k 2^k) time over the cores' sizes k <= EXTENSION_CORE_MAX, plus O(n^2) per
    clique seed (at most :data:`_CLIQUE_SEEDS` cliques).
    """
    if r <= 0:
        return True
    n = len(in_neighbors)
    if n < 2:  # by convention r* = 0 below two nodes
        return False
    for core in extension_cores(in_neighbors, r):
        if stop is not None and stop():
            return False
        index = {v: k for k, v in enumerate(sorted(core))}
        masks = [sum(1 << index[j] for j in in_neighbors[v] if j in index) for v in sorted(core)]
        if exhaustive.exact_r(masks)[0] >= r:
            return True
    covered: list[frozenset[int]] = []
    for clique in _clique_seeds(in_neighbors, r):
        if stop is not None and stop():
            return False
        if any(clique <= c for c in covered):
            continue  # its closure lies inside that closure, which fell short of V
        closure = extension_closure(in_neighbors, r, clique)
        if len(closure) == n:
            return True
        covered.append(closure)
    return False
