"""Components and vertex connectivity of a Topology, for ``robustgraph info``.

Own code, not igraph's or networkx's: importing igraph (which imports matplotlib) or networkx
takes 0.5-2 s, hundreds of times what these linear-time counts take on the graphs ``info``
usually meets, and ``info`` should answer in well under half a second (issue 16). For the
vertex connectivity of larger graphs, where the pure-Python max-flows would be slower than the
import, :func:`vertex_connectivity` hands the flows to igraph (C).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from robustgraph.graphs import GraphInput, as_topology
from robustgraph.topology import Topology

__all__ = [
    "OWN_FLOW_MAX_WORK",
    "connectivity_pairs",
    "local_connectivity",
    "strong_components",
    "vertex_connectivity",
    "weak_components",
]

OWN_FLOW_MAX_WORK = 1_000_000
"""Largest (pairs) x (n + m) x (min degree + 1) for which :func:`vertex_connectivity` runs its
own max-flows: about 1 us per unit on a loaded 2-core machine, so at most what importing igraph
costs there (0.8-1.8 s); above it igraph's C max-flow pays for its import."""


def _reach(start: int, nbrs: Sequence[frozenset[int]], seen: list[bool]) -> None:
    """Mark as ``seen`` every node reachable from ``start`` along ``nbrs`` through unseen nodes."""
    seen[start] = True
    queue = deque([start])
    while queue:
        for w in nbrs[queue.popleft()]:
            if not seen[w]:
                seen[w] = True
                queue.append(w)


def weak_components(topology: Topology) -> int:
    """The number of (weakly) connected components: of the graph, or of a digraph read as a
    graph. O(n + m) time.

    Examples
    --------
    >>> weak_components(Topology.from_edges([(0, 1), (2, 3)]))
    2
    """
    ins, outs = topology.in_neighbors, topology.out_neighbors
    both = ins if not topology.directed else tuple(a | b for a, b in zip(ins, outs, strict=True))
    seen, count = [False] * topology.n, 0
    for v in range(topology.n):
        if not seen[v]:
            _reach(v, both, seen)
            count += 1
    return count


def strong_components(topology: Topology) -> int:
    """The number of strongly connected components (Kosaraju: a depth-first finishing order on
    the arcs, then searches on the reversed arcs in reverse finishing order). O(n + m) time.

    Examples
    --------
    >>> strong_components(Topology.from_edges([(0, 1), (1, 0), (1, 2)], directed=True))
    2
    """
    n, outs, ins = topology.n, topology.out_neighbors, topology.in_neighbors
    seen, finished = [False] * n, []
    for root in range(n):  # iterative depth-first search: finishing order
        if seen[root]:
            continue
        seen[root] = True
        stack = [(root, iter(outs[root]))]
        while stack:
            v, it = stack[-1]
            for w in it:
                if not seen[w]:
                    seen[w] = True
                    stack.append((w, iter(outs[w])))
                    break
            else:
                stack.pop()
                finished.append(v)
    seen, count = [False] * n, 0
    for v in reversed(finished):  # each search on reversed arcs is one strong component
        if not seen[v]:
            _reach(v, ins, seen)
            count += 1
    return count


def connectivity_pairs(topology: Topology, v: int | None = None) -> list[tuple[int, int]]:
    """Ordered pairs (s, t) with no arc s -> t among whose local connectivities is kappa.

    Parameters
    ----------
    topology : Topology
        A graph or digraph with at least two nodes.
    v : int, optional
        The pivot node; default: the one giving the fewest pairs.

    Notes
    -----
    Let C be a minimum vertex cut. If v is not in C, v lies on one side of the cut and a node
    w on the other side has no arc to or from it in the separated direction: the pair (v, w)
    or (w, v). If v is in C, C is a minimum s-t separator, so by Menger's theorem v lies on an
    s-t path that meets C only at v: its predecessor x there is reachable from s in G - C and
    its successor y is not, so there is no arc x -> y and C separates y from x: the pair
    (x, y) with x an in- and y an out-neighbour of v. This is the pivot argument of
    Esfahanian & Hakimi (1984), stated for digraphs. For an undirected graph each pair is
    kept once, as kappa(s, t) = kappa(t, s).
    """
    n = topology.n
    ins = topology.in_neighbors
    outs = topology.out_neighbors

    def count(u: int) -> int:
        return 2 * n - len(outs[u]) - len(ins[u]) + len(ins[u]) * len(outs[u])

    if v is None:
        v = min(range(n), key=count)
    pairs = {(v, w) for w in range(n) if w != v and w not in outs[v]}
    pairs |= {(w, v) for w in range(n) if w != v and w not in ins[v]}
    pairs |= {(x, y) for x in ins[v] for y in outs[v] if x != y and y not in outs[x]}
    if not topology.directed:
        pairs = {(min(p), max(p)) for p in pairs}
    return sorted(pairs)


def local_connectivity(topology: Topology, s: int, t: int, cap: int) -> int:
    """min(cap, kappa(s, t)): the most s-t paths sharing no node but s and t, counted up to cap.

    Parameters
    ----------
    topology : Topology
        A graph or digraph without the arc s -> t.
    s, t : int
        Distinct node indices.
    cap : int
        Stop once this many paths are found.

    Notes
    -----
    Menger's theorem: the number equals the fewest nodes separating t from s, and a unit-capacity
    max-flow finds it on the split graph where each node v other than s and t becomes an arc
    v_in -> v_out of capacity 1 (Even & Tarjan 1975). Each augmenting path is one breadth-first
    search of the residual graph: O(cap (n + m)) time.
    """
    n, outs = topology.n, topology.out_neighbors
    # node v is 2v (in) and 2v + 1 (out); residual capacities of the split graph's arcs
    residual: dict[tuple[int, int], int] = {}
    adjacent: list[list[int]] = [[] for _ in range(2 * n)]

    def arc(a: int, b: int) -> None:
        residual[a, b] = 1
        residual.setdefault((b, a), 0)
        adjacent[a].append(b)
        adjacent[b].append(a)

    for v in range(n):
        if v != s and v != t:
            arc(2 * v, 2 * v + 1)
        for w in outs[v]:
            arc(2 * v + 1, 2 * w)
    source, sink = 2 * s + 1, 2 * t
    flow = 0
    while flow < cap:
        parent = {source: source}
        queue = deque([source])
        while queue and sink not in parent:
            a = queue.popleft()
            for b in adjacent[a]:
                if b not in parent and residual[a, b]:
                    parent[b] = a
                    queue.append(b)
        if sink not in parent:
            break
        b = sink
        while b != source:
            a = parent[b]
            residual[a, b] -= 1
            residual[b, a] += 1
            b = a
        flow += 1
    return flow


def vertex_connectivity(topology: GraphInput, *, pivot: int | None = None) -> int:
    """The vertex connectivity kappa: fewest nodes whose removal leaves the graph not
    (strongly) connected; ``n - 1`` for a complete graph (or digraph), 0 below two nodes.

    Parameters
    ----------
    topology : Topology
        A graph or digraph.
    pivot : int, optional
        The pivot node of :func:`connectivity_pairs` (default: the cheapest); any node gives
        the same answer.

    Notes
    -----
    The minimum s-t vertex connectivity over the O(n + delta_in * delta_out) pairs of
    :func:`connectivity_pairs`, after Esfahanian & Hakimi, "On computing the connectivities of
    graphs and digraphs", Networks 14(2), 1984. Each pair's flow stops at the smallest value
    found so far (it cannot lower the minimum beyond that). Own max-flows
    (:func:`local_connectivity`) while (pairs) x (n + m) x (min degree + 1) is at most
    :data:`OWN_FLOW_MAX_WORK`, igraph's beyond.

    Examples
    --------
    >>> vertex_connectivity(Topology.from_edges([(0, 1), (1, 2), (2, 3), (3, 0)]))
    2
    """
    topology = as_topology(topology)
    n = topology.n
    if n < 2:
        return 0
    pairs = connectivity_pairs(topology, pivot)
    if not pairs:
        return n - 1
    least = min(min(topology.in_degrees), min(len(o) for o in topology.out_neighbors))
    if len(pairs) * (n + topology.m) * (least + 1) > OWN_FLOW_MAX_WORK:
        graph = topology.to_igraph()
        return min(
            graph.vertex_connectivity(source=s, target=t, checks=False, neighbors="error")
            for s, t in pairs
        )
    best = n - 1
    for s, t in pairs:
        best = min(best, local_connectivity(topology, s, t, best))
        if best == 0:
            break
    return best
