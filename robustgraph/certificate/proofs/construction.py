"""Construction proofs: a proven base, then nodes each hearing r + s - 1 earlier nodes.

LeBlanc et al. 2013, Thm. 5: adding to an (r, s)-robust digraph a node with in-edges from at
least r + s - 1 of its nodes gives an (r, s)-robust digraph. So a graph is (r, s)-robust when
its nodes can be ordered as a base B, whose induced subgraph is (r, s)-robust by a nested proof,
followed by nodes v_1, v_2, ... each with at least r + s - 1 in-neighbours among B and the v_j
before it. The graph built that way is a spanning subgraph of the certified one (the edges not
used only add in-neighbours), and robustness is monotone in edges, so the bound carries over.

:func:`check` tests the ordering; the base's own proof is checked by the caller
(:mod:`.checker`) on the induced subgraph. :func:`next_peel` is one step of the search for
an ordering (the certifier's, :mod:`.prover`).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["check", "induced", "next_peel"]


def check(
    in_neighbors: Sequence[frozenset[int]],
    r: int,
    s: int,
    base: Sequence[int],
    order: Sequence[int],
) -> str | None:
    """Why ``base`` then ``order`` is not a construction of (r, s)-robustness, or None.

    The base's robustness is not checked here (see the module notes).

    Examples
    --------
    >>> k3 = {0: {1, 2}, 1: {0, 2}, 2: {0, 1}}
    >>> wheel = [frozenset(k3[i]) | {3} for i in range(3)] + [frozenset({0, 1, 2})]
    >>> check(wheel, 2, 1, [0, 1, 2], [3]) is None
    True

    Notes
    -----
    O(n + m) time.
    """
    n = len(in_neighbors)
    if not base:
        return "the base is empty"
    nodes = list(base) + list(order)
    if sorted(nodes) != list(range(n)):
        return "the base and the order must list every node exactly once"
    earlier = set(base)
    need = r + s - 1
    for step, node in enumerate(order, 1):
        have = len(in_neighbors[node] & earlier)
        if have < need:
            return (
                f"node {step} of the order has {have} in-neighbour(s) among the nodes before "
                f"it; ({r}, {s})-robustness needs {need}"
            )
        earlier.add(node)
    return None


def induced(in_neighbors: Sequence[frozenset[int]], nodes: Sequence[int]) -> list[frozenset[int]]:
    """The subgraph induced by ``nodes``, renumbered 0..len(nodes)-1 in their order."""
    position = {node: k for k, node in enumerate(nodes)}
    return [frozenset(position[j] for j in in_neighbors[i] if j in position) for i in nodes]


def next_peel(in_neighbors: Sequence[frozenset[int]], remaining: set[int], need: int) -> int | None:
    """The node to take off ``remaining`` next when searching a construction backwards.

    Of the nodes hearing at least ``need`` others of ``remaining``, the one hearing fewest (then
    the highest index) goes first, so it comes last in the order; None when no node qualifies.
    Greedy, so it may miss an ordering that exists; it recovers preferential-attachment
    orders. O(sum of in-degrees of ``remaining``) time.
    """
    best = None
    for node in remaining:
        have = len(in_neighbors[node] & remaining)
        if have >= need and (best is None or (have, -node) < best[0]):
            best = ((have, -node), node)
    return None if best is None else best[1]
