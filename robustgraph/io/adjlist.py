"""Adjacency lists, as networkx ``write_adjlist`` writes them.

Each line is a node followed by its neighbours (its out-neighbours in a digraph: the line
``u v w`` holds the arcs ``u -> v`` and ``u -> w``). ``#`` starts a comment; a ``# directed`` or
``# undirected`` comment before the data records the graph kind. In an undirected file an edge
may be listed from both ends (``a b`` and ``b a`` are one edge); listing it twice from the same
end is a repeated edge. Without a ``# directed`` / ``# undirected`` line or the caller's
``directed``, a file in which some listed arc has no reverse is ambiguous and refused
(:func:`~robustgraph.io._common.resolve_ambiguous`).
"""

from __future__ import annotations

from pathlib import Path

from robustgraph.io._common import (
    NODE_CHECK_EVERY,
    build_from_text,
    check_counts,
    check_nodes_so_far,
    check_values,
    decode_text,
    read_bytes,
    resolve_ambiguous,
    write_text,
)
from robustgraph.io._text import data_lines, directive, plain_label
from robustgraph.topology import Topology

__all__ = ["read_adjlist", "write_adjlist"]


def read_adjlist(
    path: str | Path, *, directed: bool | None = None, drop_invalid: bool = False
) -> Topology:
    """Read an adjacency list; parameters as for :func:`robustgraph.io.read`.

    ``directed=None`` follows the file's ``# directed`` comment (undirected without it).

    Raises
    ------
    GraphFormatError
        Naming the file and line: no nodes, a self-loop or a repeated edge.

    Returns
    -------
    Topology
        Labels in the order of the lines, then neighbours without a line of their own.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "g.adjlist"
    >>> _ = p.write_text("# undirected\\na b c\\nb a\\nc\\nd\\n")
    >>> t = read_adjlist(p)
    >>> t.labels, t.m
    (('a', 'b', 'c', 'd'), 2)
    """
    raw = read_bytes(path)
    check_values(path, raw, edges=2)
    declared, lines = data_lines(decode_text(path, raw))
    # the nodes that start a line, before every line is split
    check_counts(path, len({line.split(None, 1)[0] for _, line in lines}), 0, "its lines' nodes")
    rows = [line.split() for _, line in lines]
    known = declared is not None or directed is not None  # then the pairs are not needed
    pairs = [] if known else [(r[0], v) for r in rows for v in r[1:]]
    kind, _ = resolve_ambiguous(path, declared, directed, pairs)
    heads: dict[str, None] = {}  # nodes with a line, in line order, then the other neighbours
    others: dict[str, None] = {}
    listed: set[tuple[str, str]] = set()
    edges: list[tuple[str, str, str]] = []
    for (number, _), (u, *nbrs) in zip(lines, rows, strict=True):
        heads.setdefault(u)
        for v in nbrs:
            others.setdefault(v)
            mirror = not kind and (v, u) in listed and (u, v) not in listed
            listed.add((u, v))
            if not mirror:
                edges.append((u, v, f"line {number}"))
        if not number % NODE_CHECK_EVERY:
            check_nodes_so_far(path, len(heads) + len(others), number)  # neighbours too
    order = [*heads, *(x for x in others if x not in heads)]
    return build_from_text(path, order, edges, directed=kind, drop_invalid=drop_invalid)


def write_adjlist(topology: Topology, path: str | Path) -> None:
    """Write an adjacency list: one line per node (in label order), each edge listed once.

    A digraph's line lists the node's out-neighbours; an undirected graph lists each edge on
    the line of its earlier endpoint, as networkx does.
    """
    name = [plain_label(path, x, "an adjacency list") for x in topology.labels]
    out = [directive(topology.directed)]
    for i, nbrs in enumerate(sorted(outs) for outs in topology.out_neighbors):
        shown = nbrs if topology.directed else [j for j in nbrs if j > i]
        out.append(" ".join([name[i]] + [name[j] for j in shown]))
    write_text(path, "\n".join(out) + "\n")
