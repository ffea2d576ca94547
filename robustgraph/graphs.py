"""The one place where a caller's graph becomes a Topology, and engine answers return to labels.

Every public function of robustgraph that takes a graph calls :func:`as_topology` first, so a
:class:`~robustgraph.topology.Topology`, a networkx ``Graph``/``DiGraph``, an igraph ``Graph`` or
a plain edge list are all accepted, with directedness taken from the object. Engines work on node
indices; :func:`in_labels` turns a result's witness back into the caller's node labels.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from pathlib import PurePath
from typing import Any

from robustgraph.errors import ParameterError
from robustgraph.topology import Label, Topology
from solvers.types import Result, Witness

__all__ = ["GraphInput", "as_topology", "in_labels", "witness_labels"]

GraphInput = Any
"""What :func:`as_topology` accepts: a Topology, a networkx Graph or DiGraph, an igraph Graph,
or an iterable of ``(u, v)`` label pairs."""


def _library(graph: object) -> str:
    return type(graph).__module__.split(".", 1)[0]


def as_topology(graph: GraphInput, *, directed: bool | None = None) -> Topology:
    """The graph as a :class:`~robustgraph.topology.Topology`, whatever the caller holds.

    Parameters
    ----------
    graph : Topology, networkx.Graph, networkx.DiGraph, igraph.Graph or iterable of (u, v)
        The graph. networkx and igraph objects keep their node labels (igraph: the ``name``
        vertex attribute, else ``0..n-1``) and their directedness. An edge list ``(u, v)``
        means the arc ``u -> v`` (v hears u) when ``directed``.
    directed : bool, optional
        Only for an edge list (default: undirected). For the other kinds the object says
        which it is; passing a different value is an error rather than a silent conversion.

    Returns
    -------
    Topology
        The same object when given a Topology.

    Raises
    ------
    GraphFormatError
        On a self-loop or a repeated (multi-)edge, naming it.
    ParameterError
        For anything that is not a graph (a file name among them: use ``robustgraph.read``),
        or a ``directed`` that contradicts the object.

    Examples
    --------
    >>> import networkx as nx
    >>> as_topology(nx.path_graph(["a", "b", "c"]))
    Topology(graph, n=3, m=2, sha256:a379b2d71b0e)
    >>> as_topology([(0, 1), (1, 2)], directed=True).directed
    True

    Notes
    -----
    O(n + m) for networkx, igraph and edge-list input; O(1) for a Topology.
    """
    if isinstance(graph, Topology):
        converted = graph
    elif _library(graph) == "networkx" and hasattr(graph, "is_directed"):
        converted = Topology.from_networkx(graph)
    elif _library(graph) == "igraph" and hasattr(graph, "vcount"):
        converted = Topology.from_igraph(graph)
    elif isinstance(graph, str | bytes | PurePath) or not isinstance(graph, Iterable):
        raise ParameterError(
            f"expected a graph (Topology, networkx Graph/DiGraph, igraph Graph or a list of "
            f"(u, v) edges), got {type(graph).__name__}"
            + ("; read a file with robustgraph.read(path)" if isinstance(graph, str | PurePath)
               else "")
        )
    else:
        return Topology.from_edges(_pairs(graph), directed=bool(directed))
    if directed is not None and directed != converted.directed:
        kind = "a digraph" if converted.directed else "an undirected graph"
        raise ParameterError(f"the graph is {kind}; directed={directed} contradicts it")
    return converted


def _pairs(edges: Iterable[Any]) -> Iterable[tuple[Label, Label]]:
    for k, edge in enumerate(edges):
        try:
            u, v = edge
        except (TypeError, ValueError):
            raise ParameterError(
                f"edge list entry #{k} is {edge!r}, not a (u, v) pair"
            ) from None
        yield u, v


def in_labels(topology: Topology, result: Result) -> Result:
    """``result`` with its witness as two frozensets of node labels instead of node indices.

    Engines answer in indices ``0..n-1``; the public API answers in the caller's labels.

    Examples
    --------
    >>> from solvers.types import Question, Status
    >>> t = Topology.from_edges([("a", "b")])
    >>> r = Result(Question.max_r(), Status.EXACT, 1, 1, Witness(frozenset({0}), frozenset({1})),
    ...            "exhaustive", None, 0.0)
    >>> sorted(in_labels(t, r).witness.s1)
    ['a']
    """
    w = result.witness
    if w is None:
        return result
    names = topology.labels
    labelled = Witness(frozenset(names[i] for i in w.s1), frozenset(names[i] for i in w.s2))
    return replace(result, witness=labelled)


def witness_labels(topology: Topology, witness: Witness) -> dict[str, list[Label]]:
    """A labelled witness (from :func:`in_labels`) as ``{"s1": [...], "s2": [...]}``: label
    lists in the graph's node order, under the keys certificates use too.

    Raises
    ------
    KeyError
        When a label is not a node of ``topology``.
    """
    return {"s1": topology.in_order(witness.s1), "s2": topology.in_order(witness.s2)}
