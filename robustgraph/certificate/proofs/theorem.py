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

__all__ = ["FAMILIES", "REFERENCES", "min_in_degree_r", "check", "recognise"]

REFERENCES = {
    "min-in-degree": "min in-degree d gives (d - floor(n/2) + 1, s)-robustness for every s "
    "(docs/certificate.md; complete graphs: LeBlanc et al. 2013, Lemma 4)",
    "gamma-merg": "Lee & Panagou, Minimal construction of graphs with maximum robustness, "
    "arXiv:2507.00415, 2025, Thm. 1",
    "circulant": "k-circulant graphs are k-robust (docs/theory.md)",
    "common-neighbour": "the common-neighbour lemma (robustgraph/design/starts.py, docs/design.md)",
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


def recognise(in_neighbors: Sequence[frozenset[int]], r: int, s: int) -> dict | None:
    """A theorem proof for (r, s) that :func:`check` accepts, trying the families on the
    identity order (generator output), or None."""
    if check(in_neighbors, r, s, "min-in-degree", None, None) is None:
        return {"family": "min-in-degree", "order": None, "k": None}
    n = len(in_neighbors)
    identity = list(range(n))
    candidates = [("gamma-merg", None)]
    degree = min((len(nb) for nb in in_neighbors), default=0)
    candidates += [("circulant", k) for k in range(max(1, r), degree // 2 + 1)]
    for family, k in candidates:
        if check(in_neighbors, r, s, family, identity, k) is None:
            return {"family": family, "order": identity, "k": k}
    if check(in_neighbors, r, s, "common-neighbour", None, None) is None:
        return {"family": "common-neighbour", "order": None, "k": None}
    return None
