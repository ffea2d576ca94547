"""graph6 and sparse6 (McKay's compact formats for undirected graphs, used by nauty).

A file holds one graph on one line (an optional ``>>graph6<<`` / ``>>sparse6<<`` header is
allowed). Nodes are ``0..n-1``: the formats store no labels, so writing a graph whose labels are
not ``0..n-1`` in order warns that the labels are replaced. Both formats are undirected only:
writing a digraph is an error, and so is reading digraph6 (``&...``). graph6 is coded here with
numpy (its size is quadratic in n); sparse6 with networkx, after checking the characters (networkx
accepts some outside the format's range).

References
----------
B. McKay, "graph6 and sparse6 graph formats", https://users.cecs.anu.edu.au/~bdm/data/formats.txt
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

from robustgraph.io._common import (
    LocatedEdge,
    build,
    check_counts,
    check_node_count,
    format_error,
    read_bytes,
    resolve_directed,
    write_bytes,
)
from robustgraph.topology import Topology

_ONES = np.array([bin(x).count("1") for x in range(64)], dtype=np.int64)
"""Set bits of each 6-bit graph6 value (the edges it holds)."""

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
    start = 1 if fmt == "sparse6" else 0
    values = np.frombuffer(line, dtype=np.uint8)[start:]
    bad = np.flatnonzero((values < 63) | (values > 126))
    if bad.size:
        byte = int(values[bad[0]])
        shown = chr(byte) if 32 <= byte < 127 else f"\\x{byte:02x}"
        raise format_error(
            path,
            f"invalid {fmt} character {shown!r} (allowed: '?' to '~')",
            f"{where}, character {start + int(bad[0]) + 1}",
        )
    return line, where


def _size(path: str | Path, values: np.ndarray, where: str) -> tuple[int, int]:
    """Decode graph6's N(n): the node count and how many 6-bit values it took."""
    width = 1 if values[:1].tolist() != [63] else 4 if values[1:2].tolist() != [63] else 8
    head = values[:width].tolist()
    if len(head) < width:
        raise format_error(path, "graph6 data ends inside the node count", where)
    digits = head if width == 1 else head[1:] if width == 4 else head[2:]
    n = 0
    for digit in digits:
        n = (n << 6) | digit
    return n, width


def _n_code(n: int) -> bytes:
    """graph6's N(n): 1, 4 or 8 characters."""
    if n <= 62:
        digits = [n]
    elif n <= 258047:
        digits = [63] + [(n >> shift) & 63 for shift in (12, 6, 0)]
    else:
        digits = [63, 63] + [(n >> shift) & 63 for shift in (30, 24, 18, 12, 6, 0)]
    return bytes(d + 63 for d in digits)


def _graph6_edges(path: str | Path, line: bytes, where: str) -> tuple[int, list[tuple[int, int]]]:
    """n and the edges (i < j) of a graph6 string: bit k of the upper triangle, column by
    column, is the pair with ``k = j (j - 1) / 2 + i``."""
    values = np.frombuffer(line, dtype=np.uint8).astype(np.int64) - 63
    n, offset = _size(path, values, where)
    check_node_count(path, n, where)
    total = n * (n - 1) // 2
    need = -(-total // 6)
    body = values[offset:]
    if body.size != need:
        raise format_error(
            path, f"n = {n} needs {need} data characters after the size, found {body.size}", where
        )
    check_counts(path, n, int(_ONES[body].sum()), where)
    nonzero = np.flatnonzero(body)
    bits = (body[nonzero, None] >> np.arange(5, -1, -1)) & 1
    rows, cols = np.nonzero(bits)
    k = nonzero[rows] * 6 + cols
    if k.size and k[-1] >= total:
        raise format_error(path, "nonzero padding bits after the last pair", where)
    j = np.floor((1 + np.sqrt(1 + 8 * k.astype(np.float64))) / 2).astype(np.int64)
    j -= j * (j - 1) // 2 > k  # guard the float square root at both ends
    j += (j + 1) * j // 2 <= k
    i = k - j * (j - 1) // 2
    return n, list(zip(i.tolist(), j.tolist(), strict=True))


def _graph6_bytes(topology: Topology) -> bytes:
    n = topology.n
    data = np.zeros(-(-(n * (n - 1) // 2) // 6), dtype=np.uint8)
    pairs = np.array(topology.edge_indices(), dtype=np.int64).reshape(-1, 2)
    k = pairs[:, 1] * (pairs[:, 1] - 1) // 2 + pairs[:, 0]
    np.bitwise_or.at(data, k // 6, (1 << (5 - k % 6)).astype(np.uint8))
    return _n_code(n) + (data + 63).tobytes() + b"\n"


def _decode(path: str | Path, fmt: str, directed: bool | None, drop_invalid: bool) -> Topology:
    import networkx as nx

    line, where = _payload(path, fmt, directed)
    if fmt == "graph6":
        n, pairs = _graph6_edges(path, line, where)
    else:
        values = np.frombuffer(line, dtype=np.uint8).astype(np.int64)[1:] - 63
        n, width = _size(path, values, where)
        check_node_count(path, n, where)
        per_edge = max(1, (n - 1).bit_length()) + 1  # an edge takes a bit and a node index
        check_counts(path, n, 6 * (values.size - width) // per_edge, where, upto=True)
        try:
            graph = nx.from_sparse6_bytes(line)
        except (nx.NetworkXError, ValueError, IndexError) as exc:
            raise format_error(path, f"invalid sparse6 data ({exc})", where) from None
        n, pairs = graph.number_of_nodes(), list(graph.edges())
    edges: list[LocatedEdge] = [(u, v, f"{where}, edge {u}--{v}") for u, v in pairs]
    return build(path, list(range(n)), edges, directed=False, drop_invalid=drop_invalid)


def _encode(topology: Topology, path: str | Path, fmt: str) -> None:
    import networkx as nx

    if topology.directed:
        raise format_error(
            path,
            f"{fmt} stores undirected graphs only; cannot write a digraph "
            "(use edgelist, graphml, gml, json or mtx)",
        )
    warn_if_labels_lost(topology, path, fmt)
    if fmt == "graph6":
        write_bytes(path, _graph6_bytes(topology))
        return
    graph = nx.Graph()
    graph.add_nodes_from(range(topology.n))
    graph.add_edges_from(topology.edge_indices())
    write_bytes(path, nx.to_sparse6_bytes(graph, header=False))


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
