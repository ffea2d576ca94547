"""Pajek ``.net`` files, as Pajek, networkx ``write_pajek`` and igraph ``write_pajek`` write them.

``*Vertices n`` then one line per vertex (``1 "label" x y ...``, label optional), then edge
sections: ``*Arcs`` (a digraph) or ``*Edges`` (a graph), or their ``*Arcslist``/``*Edgeslist``
forms. The file records its kind by the section names; a file with both arcs and edges (a mixed
graph) is refused. Labels are the vertex labels when given (typed as
:func:`~robustgraph.io._common.canonical_labels`), else ``0..n-1`` as igraph numbers them.

Parsed by igraph's C reader, after we read the ``*Vertices`` count ourselves so that a short
file cannot make it allocate any number of vertices, and after checking the section kinds
(igraph reads a mixed file as undirected without a word).
"""

from __future__ import annotations

import re
from pathlib import Path

from robustgraph.io._common import (
    canonical_labels,
    check_node_count,
    format_error,
    from_igraph_read,
    read_bytes,
    resolve_directed,
    write_text,
)
from robustgraph.io._library import igraph_read
from robustgraph.topology import Topology

__all__ = ["read_pajek", "write_pajek"]

_SECTION = re.compile(rb"\*([A-Za-z]+)")  # a literal first: the scan skips to each '*' in C
_VERTICES = re.compile(rb"\A(?:[ \t]*(?:%[^\n]*)?\r?\n)*[ \t]*\*vertices[ \t]+(\d+)", re.IGNORECASE)


def _declared_kind(path: str | Path, data: bytes) -> bool | None:
    kinds = {
        m.group(1).lower()
        for m in _SECTION.finditer(data)
        if not data[data.rfind(b"\n", 0, m.start()) + 1 : m.start()].strip(b" \t")
    } - {b"vertices", b"network"}  # section names: a '*' first on its line
    arcs = bool(kinds & {b"arcs", b"arcslist"})
    edges = bool(kinds & {b"edges", b"edgeslist"})
    if arcs and edges:
        raise format_error(path, "holds both *Arcs and *Edges (a mixed graph is not supported)")
    unknown = kinds - {b"arcs", b"arcslist", b"edges", b"edgeslist"}
    if unknown:
        raise format_error(
            path, f"unsupported Pajek section *{sorted(unknown)[0].decode(errors='replace')}"
        )
    return True if arcs else False if edges else None


def read_pajek(
    path: str | Path, *, directed: bool | None = None, drop_invalid: bool = False
) -> Topology:
    """Read a Pajek network; parameters as for :func:`robustgraph.io.read`.

    Raises
    ------
    GraphFormatError
        Naming the file: no ``*Vertices`` line, more vertices than
        :data:`~robustgraph.io._common.MAX_NODES`, a mixed or unknown section, what igraph's
        parser refuses (with its line), a self-loop or a repeated edge.

    Notes
    -----
    O(file size) in igraph's parser, then O(m log m) in numpy.
    """
    import igraph as ig

    data = read_bytes(path)
    head = _VERTICES.match(data)
    if head is None:
        raise format_error(path, "no '*Vertices n' line first (not a Pajek file?)")
    check_node_count(path, int(head.group(1)))
    kind = resolve_directed(path, _declared_kind(path, data), directed)
    graph = igraph_read(path, data, ig.Graph.Read_Pajek)
    if "name" in graph.vs.attributes():
        texts = [str(x) for x in graph.vs["name"]]
        if len(set(texts)) != len(texts):
            raise format_error(path, "two vertices share a label")
        typed = canonical_labels(texts, path)
        labels = [typed[x] for x in texts]
    else:
        labels = list(range(graph.vcount()))
    return from_igraph_read(path, graph, labels, directed=kind, drop_invalid=drop_invalid)


def _quote(path: str | Path, label: object) -> str:
    text = str(label)
    if not text or '"' in text or not text.isprintable():
        raise format_error(
            path, f"node label {label!r} cannot be written to Pajek (empty, '\"' or control)"
        )
    return f'"{text}"'


def write_pajek(topology: Topology, path: str | Path) -> None:
    """Write ``*Vertices``, each label quoted, then ``*Arcs`` or ``*Edges`` (1-based ids)."""
    out = [f"*Vertices {topology.n}"]
    out.extend(f"{i} {_quote(path, x)}" for i, x in enumerate(topology.labels, start=1))
    out.append("*Arcs" if topology.directed else "*Edges")
    out.extend(f"{u + 1} {v + 1}" for u, v in topology.edge_indices())
    write_text(path, "\n".join(out) + "\n")
