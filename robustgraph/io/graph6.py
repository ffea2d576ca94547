"""graph6 and sparse6 (McKay's compact formats for undirected graphs, used by nauty).

A file holds one graph on one line (an optional ``>>graph6<<`` / ``>>sparse6<<`` header is
allowed). Nodes are ``0..n-1``: the formats store no labels, so writing a graph whose labels are
not ``0..n-1`` in order warns that the labels are replaced. Both formats are undirected only:
writing a digraph is an error, and so is reading digraph6 (``&...``). Decoding is networkx's;
characters are checked first, since networkx accepts some outside the format's range.
"""

from __future__ import annotations

import warnings
from pathlib import Path

from robustgraph.io._common import (
    LocatedEdge,
    build,
    format_error,
    read_bytes,
    resolve_directed,
    write_bytes,
)
from robustgraph.topology import Topology

__all__ = ["read_graph6", "write_graph6", "read_sparse6", "write_sparse6", "warn_if_labels_lost"]


def warn_if_labels_lost(topology: Topology, path: str | Path, fmt: str) -> None:
    """Warn when a format that stores only ``0..n-1`` receives other labels."""
    if topology.labels != tuple(range(topology.n)):
        warnings.warn(
            f"{path}: {fmt} stores no node labels; nodes are written as 0..{topology.n - 1} "
            "in label order (the content hash changes)",
            UserWarning,
            stacklevel=3,
        )


def _payload(path: str | Path, fmt: str, directed: bool | None) -> tuple[bytes, str]:
    """The single graph line of a graph6/sparse6 file, with its line number, checked."""
    resolve_directed(path, False, directed)
    lines = [
        (k, line.strip())
        for k, line in enumerate(read_bytes(path).split(b"\n"), start=1)
        if line.strip()
    ]
    if not lines:
        raise format_error(path, "empty file (no graph)")
    if len(lines) > 1:
        raise format_error(path, f"holds {len(lines)} graphs; robustgraph reads one graph per file")
    number, line = lines[0]
    header = f">>{fmt}<<".encode()
    if line.startswith(header):
        line = line[len(header) :]
    where = f"line {number}"
    if line.startswith(b"&") or line.startswith(b">>digraph6<<"):
        raise format_error(path, "digraph6 data is not supported (graph6 is undirected)", where)
    leading = line[:1] in (b":", b";")
    if fmt == "graph6" and leading:
        raise format_error(path, "this is sparse6 data, not graph6 (use the .s6 format)", where)
    if fmt == "sparse6" and not line.startswith(b":"):
        raise format_error(
            path, "sparse6 data must start with ':' (incremental ';' is not supported)", where
        )
    for k, byte in enumerate(
        line[1:] if fmt == "sparse6" else line, start=2 if fmt == "sparse6" else 1
    ):
        if not 63 <= byte <= 126:
            shown = chr(byte) if 32 <= byte < 127 else f"\\x{byte:02x}"
            raise format_error(
                path,
                f"invalid {fmt} character {shown!r} (allowed: '?' to '~')",
                f"{where}, character {k}",
            )
    return line, where


def _decode(path: str | Path, fmt: str, directed: bool | None, drop_invalid: bool) -> Topology:
    import networkx as nx

    line, where = _payload(path, fmt, directed)
    decode = nx.from_graph6_bytes if fmt == "graph6" else nx.from_sparse6_bytes
    try:
        graph = decode(line)
    except (nx.NetworkXError, ValueError, IndexError) as exc:
        raise format_error(path, f"invalid {fmt} data ({exc})", where) from None
    edges: list[LocatedEdge] = [(u, v, f"{where}, edge {u}--{v}") for u, v in graph.edges()]
    return build(
        path, list(range(graph.number_of_nodes())), edges, directed=False, drop_invalid=drop_invalid
    )


def _encode(topology: Topology, path: str | Path, fmt: str) -> None:
    import networkx as nx

    if topology.directed:
        raise format_error(
            path,
            f"{fmt} stores undirected graphs only; cannot write a digraph "
            "(use edgelist, graphml, gml, json or mtx)",
        )
    warn_if_labels_lost(topology, path, fmt)
    graph = nx.Graph()
    graph.add_nodes_from(range(topology.n))
    graph.add_edges_from(topology.edge_indices())
    encode = nx.to_graph6_bytes if fmt == "graph6" else nx.to_sparse6_bytes
    write_bytes(path, encode(graph, header=False))


def read_graph6(
    path: str | Path, *, directed: bool | None = None, drop_invalid: bool = False
) -> Topology:
    """Read one graph in graph6 format (nodes ``0..n-1``).

    Raises
    ------
    GraphFormatError
        Naming the file, line and character: an invalid character, a length that does not
        match n, several graphs, sparse6 or digraph6 data, or ``directed=True``.
    """
    return _decode(path, "graph6", directed, drop_invalid)


def write_graph6(topology: Topology, path: str | Path) -> None:
    """Write graph6 (no header); digraphs are an error, labels other than ``0..n-1`` warn."""
    _encode(topology, path, "graph6")


def read_sparse6(
    path: str | Path, *, directed: bool | None = None, drop_invalid: bool = False
) -> Topology:
    """Read one graph in sparse6 format (nodes ``0..n-1``; loops/multi-edges as the Topology rules).

    Raises
    ------
    GraphFormatError
        As :func:`read_graph6`, and on a self-loop or repeated edge (unless ``drop_invalid``).
    """
    return _decode(path, "sparse6", directed, drop_invalid)


def write_sparse6(topology: Topology, path: str | Path) -> None:
    """Write sparse6 (no header); digraphs are an error, labels other than ``0..n-1`` warn."""
    _encode(topology, path, "sparse6")
