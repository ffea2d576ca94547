"""Pajek ``.net`` files, as Pajek, networkx ``write_pajek`` and igraph ``write_pajek`` write them.

``*Vertices n`` then one line per vertex (``1 "label" x y ...``, label optional), then edge
sections: ``*Arcs`` (a digraph) or ``*Edges`` (a graph), or their ``*Arcslist``/``*Edgeslist``
forms. The file records its kind by the section names; a file with both arcs and edges (a mixed
graph) is refused. Labels are the vertex labels when given (typed as
:func:`~robustgraph.io._common.canonical_labels`), else ``0..n-1`` as igraph numbers them.

Parsed by igraph's C reader, after we read the ``*Vertices`` count ourselves so that a short
file cannot make it allocate any number of vertices, and after checking the section kinds
(igraph reads a mixed file as undirected without a word). The edges of a file as writers lay it
out (one ``*Edges`` or ``*Arcs`` section last, ``u v`` or ``u v weight`` on every line) are
parsed by numpy instead (``np.fromstring``, in C; integers only are 7x faster than with a weight
column, which is read as floats): turning igraph's edges into arrays costs a
third of igraph's parse (igraph has no array export), which kept us 2x slower than igraph alone.
The vertices are igraph's either way.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np

from robustgraph.io._common import (
    build_indexed,
    canonical_labels,
    check_node_count,
    check_size,
    format_error,
    from_igraph_read,
    plain_layout,
    read_bytes,
    resolve_directed,
    write_text,
)
from robustgraph.io._library import igraph_read, plain_text
from robustgraph.topology import Topology

__all__ = ["read_pajek", "write_pajek"]

_SECTION = re.compile(rb"\*([A-Za-z]+)")  # a literal first: the scan skips to each '*' in C
_VERTICES = re.compile(rb"\A(?:[ \t]*(?:%[^\n]*)?\r?\n)*[ \t]*\*vertices[ \t]+(\d+)", re.IGNORECASE)


def _sections(data: bytes) -> list[tuple[bytes, int, int]]:
    """Every section line (a ``*`` first on its line): its lower-case name, start and end."""
    found = []
    for m in _SECTION.finditer(data):
        start = data.rfind(b"\n", 0, m.start()) + 1
        if not data[start : m.start()].strip(b" \t"):
            end = data.find(b"\n", m.end())
            found.append((m.group(1).lower(), start, len(data) if end < 0 else end))
    return found


def _declared_kind(path: str | Path, sections: list[tuple[bytes, int, int]]) -> bool | None:
    kinds = {name for name, _, _ in sections} - {b"vertices", b"network"}
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


def _plain_edges(body: bytes, n: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The pairs of a last ``*Edges``/``*Arcs`` section holding ``u v`` or ``u v w`` on every
    line, laid out plainly (:func:`~robustgraph.io._common.plain_layout`), with ``u``, ``v``
    integers in ``1..n``: parsed by numpy in C. None for anything else (igraph reads it).
    """
    if not plain_layout(body):
        return None
    raw = np.frombuffer(body, dtype=np.uint8)
    newlines = np.flatnonzero(raw == 10)
    spaces = np.diff(np.searchsorted(np.flatnonzero(raw == 32), newlines), prepend=0)
    width = int(spaces[0]) + 1
    if width not in (2, 3) or np.any(spaces != width - 1):
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # older numpy: a bad token ends the parse early
            values = np.fromstring(body, dtype=np.int64 if width == 2 else np.float64, sep=" ")
    except ValueError:  # numpy 2.4: a token it cannot read
        return None
    if values.size != newlines.size * width:
        return None
    ends = values.reshape(-1, width)[:, :2]
    if not np.all((ends == np.rint(ends)) & (ends >= 1) & (ends <= n)):
        return None
    pairs = ends.astype(np.int64) - 1
    return pairs[:, 0], pairs[:, 1]


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

    data = plain_text(path, read_bytes(path))  # also the edges our own scan reads
    check_size(path, data.count(b"\n") + 1, "lines")
    head = _VERTICES.match(data)
    if head is None:
        raise format_error(path, "no '*Vertices n' line first (not a Pajek file?)")
    n = int(head.group(1))
    check_node_count(path, n)
    sections = _sections(data)
    kind = resolve_directed(path, _declared_kind(path, sections), directed)
    plain = None
    if [name for name, _, _ in sections] in ([b"vertices", b"edges"], [b"vertices", b"arcs"]):
        _, start, end = sections[-1]
        plain = _plain_edges(data[end + 1 :], n)
    # igraph reads the vertices (labels as Pajek has them); the edges too unless plain
    graph = igraph_read(path, data if plain is None else data[:start], ig.Graph.Read_Pajek)
    if "name" in graph.vs.attributes():
        texts = [str(x) for x in graph.vs["name"]]
        if len(set(texts)) != len(texts):
            raise format_error(path, "two vertices share a label")
        typed = canonical_labels(texts, path)
        labels = [typed[x] for x in texts]
    else:
        labels = list(range(graph.vcount()))
    if plain is None:
        return from_igraph_read(path, graph, labels, directed=kind, drop_invalid=drop_invalid)
    first = data.count(b"\n", 0, end) + 2  # the line of the section's first edge
    return build_indexed(
        path,
        labels,
        *plain,
        directed=kind,
        drop_invalid=drop_invalid,
        where=lambda k: f"line {first + k}",
    )


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
