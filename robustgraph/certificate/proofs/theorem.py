"""Theorem proofs: recognise, in polynomial time, a graph family with a published bound.

A theorem proof names a family and, where the family is a specific graph, the node order that
maps it onto the certified graph. The checker confirms that the certified graph *contains* the
family's graph on that order as a spanning subgraph (adding edges never lowers robustness:
every ``|N_i \\ S|`` can only grow), then applies the family's theorem. The trust base then
includes that theorem (and, for the named graphs, the generator that builds them), and
``verify`` says so.

Families:

- ``min-in-degree``: every graph with minimum in-degree d is (r, s)-robust for every s when
  ``r <= d - floor(n/2) + 1``: of any two disjoint nonempty sets the smaller has at most
  floor(n/2) nodes, each with at least ``d - floor(n/2) + 1`` in-neighbours outside it, so it
  is entirely r-reachable. Complete graphs are the case d = n - 1 (r* = ceil(n/2), LeBlanc et
  al. 2013, Lemma 4).
- ``gamma-merg``: :func:`robustgraph.generators.gamma_merg` (n) is ceil(n/2)-robust (Lee &
  Panagou 2025, Thm. 1); (r, 1) for r <= ceil(n/2).
- ``circulant``: :func:`robustgraph.generators.k_circulant` (n, k) is k-robust (docs/theory.md);
  (r, 1) for r <= k.
- ``rooted``: a digraph is 1-robust iff it has a rooted out-branching, a node from which every
  node can be reached along arcs (LeBlanc et al. 2013; an undirected graph: iff connected);
  (1, 1) only. The checker finds the root itself, O(n + m).
- ``common-neighbour``: the common-neighbour lemma of ``design``'s hub graphs
  (:mod:`robustgraph.design.starts`): an undirected graph whose greedy independent set of
  degree->=r leaves leaves every pair of other nodes u, v with
  ``|N(u) & N(v)| + 2 [u ~ v] >= 2r - 1`` is r-robust; (r, 1).

Cheap checks come first. A named family's graph is built only when the certified graph has at
least its edge count (closed form: :func:`robustgraph.generators.gamma_merg_edge_count`, n k
for a circulant): a sparse graph is not the gamma-MERG on 4,000 nodes, and building that
(6 million edges) to find out took 28-52 s. The common-neighbour check compares hub pairs as
n-bit masks, O(n^2 / 2 * n / 64) word operations in the worst case (n = 48,001 took 233 s), so
it is refused, with a reason, when that exceeds the ``proof steps`` budget
(:data:`robustgraph.limits.PROOF_STEPS`: n of about 1,080 at the default, above ``design``'s
1,000 nodes).
"""

from __future__ import annotations

from collections.abc import Sequence

from robustgraph import generators
from robustgraph.design.starts import common_neighbour_proof
from robustgraph.limits import PROOF_STEPS
from solvers import circulant

__all__ = ["FAMILIES", "REFERENCES", "min_in_degree_r", "has_root", "check", "recognise"]

REFERENCES = {
    "min-in-degree": "min in-degree d gives (d - floor(n/2) + 1, s)-robustness for every s "
    "(docs/certificate.md; complete graphs: LeBlanc et al. 2013, Lemma 4)",
    "gamma-merg": "Lee & Panagou, Minimal construction of graphs with maximum robustness, "
    "arXiv:2507.00415, 2025, Thm. 1",
    "circulant": "k-circulant graphs are k-robust (docs/theory.md)",
    "common-neighbour": "the common-neighbour lemma (robustgraph/design/starts.py, docs/design.md)",
    "rooted": "a digraph is 1-robust iff it has a rooted out-branching (LeBlanc, Zhang, "
    "Koutsoukos & Sundaram, IEEE JSAC 31(4), 2013)",
}
FAMILIES = tuple(REFERENCES)


def min_in_degree_r(in_neighbors: Sequence[frozenset[int]]) -> int:
    """``d - floor(n/2) + 1`` for minimum in-degree d (at least 0): an r every graph with this
    minimum in-degree reaches, with every s."""
    n = len(in_neighbors)
    if n < 2:
        return 0
    return max(0, min(len(nb) for nb in in_neighbors) - n // 2 + 1)


def _family_graph(family: str, n: int, k: int | None, arcs: int) -> list[frozenset[int]] | str:
    """The family's in-neighbour sets, or why not: built only when the certified graph's
    ``arcs`` (in-neighbour entries) cover the family's edges both ways."""
    if family == "gamma-merg":
        if n < 2:
            return "n < 2"
        edges = generators.gamma_merg_edge_count(n)
    elif k is None or not 1 <= k or n < 2 * k + 2:
        return f"a circulant proof needs 1 <= k and n >= 2k + 2, got n = {n}, k = {k}"
    else:
        edges = n * k
    if arcs < 2 * edges:
        return (
            f"the {family} graph on {n} nodes has {edges:,} edges, more than this graph's "
            f"{arcs // 2:,}: it cannot contain it"
        )
    if family == "gamma-merg":
        return list(generators.gamma_merg(n).in_neighbors)
    return list(generators.k_circulant(n, k).in_neighbors)  # type: ignore[arg-type]


def _family_r(family: str, n: int, k: int | None) -> int:
    return -(-n // 2) if family == "gamma-merg" else int(k)


def check(
    in_neighbors: Sequence[frozenset[int]],
    r: int,
    s: int,
    family: str,
    order: Sequence[int] | None,
    k: int | None,
) -> str | None:
    """Why the family's theorem does not show (r, s)-robustness of this graph, or None.

    Parameters
    ----------
    in_neighbors : sequence of frozenset of int
        The certified graph.
    r, s : int
        The robustness to confirm.
    family : str
        One of :data:`FAMILIES`.
    order : sequence of int, optional
        For the named graphs: ``order[p]`` is the node that plays the family's node p.
    k : int, optional
        The circulant's k.

    Returns
    -------
    str or None

    Examples
    --------
    >>> k5 = [frozenset(set(range(5)) - {i}) for i in range(5)]
    >>> check(k5, 3, 5, "min-in-degree", None, None) is None
    True

    Notes
    -----
    O(n + m) time for min-in-degree; the named graphs are rebuilt when the edge counts allow
    (O(n^2) at most); common-neighbour O(n^3 / 128) word operations at most, refused over the
    proof-steps budget.
    """
    n = len(in_neighbors)
    if family == "min-in-degree":
        bound = min_in_degree_r(in_neighbors)
        if r <= bound:
            return None
        return f"min in-degree gives only ({bound}, s)-robustness, not ({r}, {s})"
    if family not in FAMILIES:
        return f"unknown family {family!r}; expected one of {', '.join(FAMILIES)}"
    if family == "common-neighbour":
        return _common_neighbour(in_neighbors, r, s)
    if family == "rooted":
        if (r, s) != (1, 1):
            return f"a rooted out-branching gives (1, 1)-robustness only, not ({r}, {s})"
        return None if has_root(in_neighbors) else "no node reaches every node along arcs"
    if order is None or sorted(order) != list(range(n)):
        return "the node order must list every node once"
    model = _family_graph(family, n, k, sum(map(len, in_neighbors)))
    if isinstance(model, str):
        return model
    for p, nb in enumerate(model):
        node = order[p]
        missing = [q for q in nb if order[q] not in in_neighbors[node]]
        if missing:
            return f"the {family} graph's edge {missing[0]} -> {p} is missing on this order"
    bound = _family_r(family, n, k)
    if s == 1 and r <= bound:
        return None
    return f"the {family} theorem gives {bound}-robustness (s = 1), not ({r}, {s})"


def _common_neighbour(in_neighbors: Sequence[frozenset[int]], r: int, s: int) -> str | None:
    n = len(in_neighbors)
    steps = n * (n - 1) // 2 * -(-n // 64)
    if steps > PROOF_STEPS.value():
        return (
            f"the common-neighbour check on n = {n:,} nodes may take {steps:,} word operations, "
            f"over the proof-steps budget {PROOF_STEPS.hint()}"
        )
    if any(i not in in_neighbors[j] for i, nb in enumerate(in_neighbors) for j in nb):
        return "the common-neighbour lemma is for undirected graphs; this one is not symmetric"
    masks = [sum(1 << j for j in nb) for nb in in_neighbors]
    if s != 1 or not common_neighbour_proof(masks, r):
        return f"the common-neighbour lemma does not give ({r}, {s})-robustness of this graph"
    return None


def has_root(in_neighbors: Sequence[frozenset[int]]) -> bool:
    """True iff some node reaches every node along arcs (j -> i when i hears j), n >= 2.

    The last node a sweep of searches starts from is a root if any node is (a root's search
    would have reached every node left); one more search from it decides.

    Examples
    --------
    >>> has_root([frozenset(), frozenset({0}), frozenset({1})]), has_root([frozenset()] * 2)
    (True, False)

    Notes
    -----
    O(n + m) time and memory.
    """
    n = len(in_neighbors)
    if n < 2:
        return False
    out: list[list[int]] = [[] for _ in range(n)]
    for i, heard in enumerate(in_neighbors):
        for j in heard:
            out[j].append(i)
    seen = [False] * n
    last = 0
    for v in range(n):
        if not seen[v]:
            last = v
            _mark(out, v, seen)
    return sum(_mark(out, last, [False] * n)) == n


def _mark(out: list[list[int]], start: int, seen: list[bool]) -> list[bool]:
    seen[start] = True
    stack = [start]
    while stack:
        for w in out[stack.pop()]:
            if not seen[w]:
                seen[w] = True
                stack.append(w)
    return seen


def _could_contain_merg(in_neighbors: Sequence[frozenset[int]]) -> bool:
    """Cheap necessary conditions for the gamma-MERG to lie in this graph on the identity
    order, checked before the gamma-MERG is built: at least as many arcs (so the build is never
    larger than the graph already held), then node 0 hears all others but node 1 at most."""
    n = len(in_neighbors)
    arcs = sum(len(nb) for nb in in_neighbors)
    return (
        n >= 2
        and arcs >= 2 * generators.gamma_merg_edge_count(n)
        and (len(in_neighbors[0] - {1}) == n - 2)
    )


def _common_neighbour_possible(in_neighbors: Sequence[frozenset[int]], r: int) -> bool:
    """A cheap necessary condition of the common-neighbour lemma (:func:`_common_neighbour`),
    O(n log n + m): it needs every pair of the h non-leaf nodes (leaves: the lemma's greedy
    independent set of nodes of degree >= r, smallest degree first) adjacent or with a common
    neighbour, so ``h (h - 1) / 2`` is at most ``m`` plus the number of paths of two edges."""
    n = len(in_neighbors)
    degrees = [len(nb) for nb in in_neighbors]
    if n < 2 or min(degrees) < r:
        return False
    leaves: set[int] = set()
    for i in sorted(range(n), key=lambda i: degrees[i]):
        if not in_neighbors[i] & leaves:
            leaves.add(i)
    h = n - len(leaves)
    near = sum(degrees) // 2 + sum(d * (d - 1) // 2 for d in degrees)
    return h * (h - 1) // 2 <= near


def recognise(in_neighbors: Sequence[frozenset[int]], r: int, s: int) -> dict | None:
    """A theorem proof for (r, s) that :func:`check` accepts, or None: the gamma-MERG on the
    identity order (generator output), a circulant on the order :func:`solvers.circulant.find`
    shows (the identity order, or the one walked along its cycle: the same graph on other
    labels), then the common-neighbour lemma.

    Cheap invariants come first (:func:`_could_contain_merg`, :func:`circulant.find`'s
    node-0 and degree tests, :func:`_common_neighbour_possible`): a family's graph is built only
    when the graph could contain it, so never one larger than the graph itself. The circulant is
    checked with k = r: a graph containing the circulant of a larger k contains this one too.

    Notes
    -----
    O(n log n + m) time for a graph that fits no family (the circulant walk stops at its first
    node unless the graph is regular of even degree, and costs O(n k^2) at most); building and
    checking a family's graph is O(n + m) more.
    """
    if check(in_neighbors, r, s, "min-in-degree", None, None) is None:
        return {"family": "min-in-degree", "order": None, "k": None}
    if check(in_neighbors, r, s, "rooted", None, None) is None:
        return {"family": "rooted", "order": None, "k": None}
    if _could_contain_merg(in_neighbors):
        identity = list(range(len(in_neighbors)))
        if check(in_neighbors, r, s, "gamma-merg", identity, None) is None:
            return {"family": "gamma-merg", "order": identity, "k": None}
    ring = circulant.find(in_neighbors)
    if ring is not None and ring[0] >= r >= 1:
        if check(in_neighbors, r, s, "circulant", ring[1], r) is None:
            return {"family": "circulant", "order": ring[1], "k": r}
    if _common_neighbour_possible(in_neighbors, r):
        if check(in_neighbors, r, s, "common-neighbour", None, None) is None:
            return {"family": "common-neighbour", "order": None, "k": None}
    return None
