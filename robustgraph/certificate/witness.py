"""Witness pairs checked against the definitions in polynomial time (LeBlanc et al. 2013,
Defs. 5-7), and put in words."""

from __future__ import annotations

from collections.abc import Sequence

from robustgraph.certificate.records import WitnessPair
from robustgraph.topology import Label, Topology
from solvers.types import Question
from solvers.witness import pair_problem, reachable_nodes, refutes_r, refutes_rs

__all__ = [
    "canonical",
    "label_key",
    "witness_problem",
    "witness_words",
]


def label_key(label: Label) -> tuple[int, int, str, str]:
    """The canonical order of node labels: decimal texts by value (``2`` before ``10``), then
    the other texts in code-point order; a function of the label's text alone, which is what
    the content hash sees (no ``int()``: a label of 10^5 digits is compared as text).

    Examples
    --------
    >>> sorted(["b", 10, "a", 2, "02"], key=label_key)
    ['02', 2, 10, 'a', 'b']
    """
    text = str(label)
    if text.isascii() and text.isdecimal():
        digits = text.lstrip("0")
        return 0, len(digits), digits, text
    return 1, 0, text, text


def canonical(topology: Topology) -> Topology:
    """``topology`` with its nodes in :func:`label_key` order: the same graph (the same
    content hash) whatever order a file listed it in, so that what an engine finds on it, a
    witness pair above all, is a function of the graph (issue 44, item 5).

    Notes
    -----
    O(n log n + m) time; the topology itself when already in that order.
    """
    labels = topology.labels
    order = sorted(range(topology.n), key=lambda i: label_key(labels[i]))
    if all(i == k for k, i in enumerate(order)):
        return topology
    position = [0] * topology.n
    for k, i in enumerate(order):
        position[i] = k
    nb = topology.in_neighbors
    return Topology(
        tuple(labels[i] for i in order),
        topology.directed,
        tuple(frozenset(position[j] for j in nb[i]) for i in order),
    )


def _indices(
    topology: Topology, labels: Sequence[Label]
) -> tuple[frozenset[int] | None, str | None]:
    by_text = {str(label): i for i, label in enumerate(topology.labels)}
    out = set()
    for label in labels:
        try:
            out.add(topology.index(label))
        except KeyError:
            if str(label) not in by_text:
                return None, f"node {label!r} is not in the graph"
            out.add(by_text[str(label)])
    return frozenset(out), None


def _braces(labels: Sequence[Label], most: int | None = None) -> str:
    """The set in braces; with ``most``, its first ``most`` labels and how many more it has."""
    if most is None or len(labels) <= most:
        return "{" + ", ".join(str(x) for x in labels) + "}"
    shown = ", ".join(str(x) for x in labels[:most])
    return "{" + f"{shown}, ... ({len(labels) - most} more)" + "}"


def witness_problem(
    topology: Topology, question: Question, upper: int, pair: WitnessPair
) -> str | None:
    """Why ``pair`` fails to prove that the question's quantity is at most ``upper``, or None.

    For r*: neither set may be (upper+1)-reachable (LeBlanc et al. 2013, Def. 6). For s*_r: the
    pair must violate (r, upper+1)-robustness (Def. 7). Polynomial time.
    """
    s1, problem = _indices(topology, pair.s1)
    s2, problem2 = _indices(topology, pair.s2)
    problem = problem or problem2 or pair_problem(topology.n, s1, s2)
    if problem is None and (len(s1) != len(pair.s1) or len(s2) != len(pair.s2)):
        problem = "a witness set lists a node twice"
    if problem:
        return problem
    nb = topology.in_neighbors
    if question.about_s:
        if refutes_rs(nb, s1, s2, question.r, upper + 1):
            return None
        return (
            f"S1 = {_braces(pair.s1)}, S2 = {_braces(pair.s2)} does not violate "
            f"({question.r}, {upper + 1})-robustness, "
            f"so it does not show s*_{question.r} <= {upper}"
        )
    if refutes_r(nb, s1, s2, upper + 1):
        return None
    return (
        f"S1 = {_braces(pair.s1)}, S2 = {_braces(pair.s2)}: one of them is {upper + 1}-reachable, "
        f"so it does not show r* <= {upper}"
    )


def witness_words(
    topology: Topology,
    question: Question,
    pair: WitnessPair,
    bound: int,
    *,
    most: int | None = None,
) -> str:
    """A witness in words: why the graph is not ``bound``-robust (or not (r, bound)-robust).

    ``most``: list at most that many labels of each set, then how many more it has (text
    output of large graphs; None lists them all)."""
    s1, s2 = (sorted(s, key=label_key) for s in (pair.s1, pair.s2))
    head = f"S1 = {_braces(s1, most)}, S2 = {_braces(s2, most)}"
    if not question.about_s:
        return f"{head}: no node of either has {bound} in-neighbours outside its own set"
    s1, _ = _indices(topology, pair.s1)
    s2, _ = _indices(topology, pair.s2)
    r = question.r
    count = sum(len(reachable_nodes(topology.in_neighbors, s, r)) for s in (s1, s2))
    return (
        f"{head}: each set has a node with fewer than {r} in-neighbours outside it, and only "
        f"{count} node(s) of the two have {r} (fewer than s = {bound})"
    )
