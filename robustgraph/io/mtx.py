"""Matrix Market adjacency matrices (``.mtx``), as scipy ``mmwrite`` writes them.

Entry ``(i, j)`` nonzero means the arc ``i -> j`` (row = tail, as networkx's
``from_scipy_sparse_array``); nodes are ``0..n-1`` (the file's 1-based indices minus one). A
``symmetric`` matrix is an undirected graph (each edge stored once, either triangle); a
``general`` matrix is a digraph, or an undirected graph when read with ``directed=False`` and
the matrix is symmetric. Coordinate and array layouts; pattern, integer, real and complex
fields. Explicit zeros are not edges. Parsed by hand so that every error names its line.
"""

from __future__ import annotations

from pathlib import Path

from robustgraph.io._common import (
    LocatedEdge,
    build,
    check_node_count,
    format_error,
    read_text,
    resolve_directed,
    write_text,
)
from robustgraph.io.graph6 import warn_if_labels_lost
from robustgraph.topology import Topology

__all__ = ["read_mtx", "write_mtx"]

_FIELDS = {"pattern": 0, "integer": 1, "real": 1, "double": 1, "complex": 2}
_HEADER_HELP = (
    "expected '%%MatrixMarket matrix coordinate|array pattern|integer|real|complex "
    "general|symmetric'"
)


def _header(path: str | Path, line: str) -> tuple[str, int, str]:
    words = line.lower().split()
    if len(words) != 5 or words[0] != "%%matrixmarket" or words[1] != "matrix":
        raise format_error(path, f"bad Matrix Market header ({_HEADER_HELP})", "line 1")
    layout, field, symmetry = words[2:]
    if layout not in ("coordinate", "array") or field not in _FIELDS:
        raise format_error(path, f"bad Matrix Market header ({_HEADER_HELP})", "line 1")
    if symmetry not in ("general", "symmetric") or (layout == "array" and field == "pattern"):
        raise format_error(
            path,
            f"unsupported matrix kind '{layout} {field} {symmetry}' for an adjacency matrix",
            "line 1",
        )
    return layout, _FIELDS[field], symmetry


def _numbers(path: str | Path, words: list[str], kind: type, where: str) -> list:
    out = []
    for word in words:
        try:
            out.append(kind(word))
        except ValueError:
            what = "an integer" if kind is int else "a number"
            raise format_error(path, f"bad token {word!r} (expected {what})", where) from None
    return out


def _entries(
    path: str | Path, lines: list[tuple[int, str]], layout: str, width: int, symmetric: bool
):
    """``(row, col, where)`` of every nonzero entry, 0-based, and n; checks counts and ranges."""
    number, size_line = lines[0]
    size_words = size_line.split()
    expected = 3 if layout == "coordinate" else 2
    if len(size_words) != expected:
        what = "'rows cols entries'" if layout == "coordinate" else "'rows cols'"
        raise format_error(
            path, f"expected the size line {what}, found {size_line!r}", f"line {number}"
        )
    size = _numbers(path, size_words, int, f"line {number}")
    rows, cols = size[0], size[1]
    if rows != cols or rows < 0:
        raise format_error(
            path, f"an adjacency matrix must be square, found {rows} x {cols}", f"line {number}"
        )
    n = rows
    check_node_count(path, n, f"line {number}")
    body = lines[1:]
    count = size[2] if layout == "coordinate" else n * (n + 1) // 2 if symmetric else n * n
    if len(body) != count:
        raise format_error(
            path, f"the size line declares {count} entries, found {len(body)}", f"line {number}"
        )
    positions = None
    if layout != "coordinate":  # built after the count check: n^2 pairs for any size line
        positions = [(i, j) for j in range(n) for i in range(n) if not symmetric or i >= j]
    out: list[tuple[int, int, str]] = []
    for k, (at, text) in enumerate(body):
        where = f"line {at}"
        words = text.split()
        need = width + (2 if positions is None else 0)
        if len(words) != need:
            raise format_error(
                path, f"expected {need} numbers per entry, found {len(words)}", where
            )
        if positions is None:
            i, j = _numbers(path, words[:2], int, where)
            if not (1 <= i <= n and 1 <= j <= n):
                raise format_error(path, f"entry ({i}, {j}) is outside the {n} x {n} matrix", where)
            i, j = i - 1, j - 1
            values = words[2:]
        else:
            i, j = positions[k]
            values = words
        if not values or any(v != 0 for v in _numbers(path, values, float, where)):
            out.append((i, j, where))
    return n, out


def read_mtx(
    path: str | Path, *, directed: bool | None = None, drop_invalid: bool = False
) -> Topology:
    """Read a Matrix Market adjacency matrix; parameters as for :func:`robustgraph.io.read`.

    With ``directed=None`` symmetric files are undirected and general files directed;
    ``directed=False`` reads a general file whose matrix is symmetric as an undirected graph.
    ``drop_invalid`` drops diagonal entries (self-loops) and repeated entries.

    Raises
    ------
    GraphFormatError
        Naming the file and line: a bad header or size line, a non-square matrix, a bad token,
        an index out of range, an entry count unlike the declared one, a self-loop, a repeated
        entry, or a non-symmetric general matrix read as undirected.
    """
    raw = read_text(path).split("\n")
    if not raw[0].strip():
        raise format_error(path, "empty file (no Matrix Market header)")
    layout, width, symmetry = _header(path, raw[0])
    lines = [
        (k, x.strip())
        for k, x in enumerate(raw[1:], start=2)
        if x.strip() and not x.lstrip().startswith("%")
    ]
    if not lines:
        raise format_error(path, "no size line after the header (truncated?)")
    symmetric = symmetry == "symmetric"
    n, entries = _entries(path, lines, layout, width, symmetric)
    if symmetric:
        kind = resolve_directed(path, False, directed)
        edges: list[LocatedEdge] = list(entries)
    else:
        kind = resolve_directed(path, None, True if directed is None else directed)
        edges = list(entries) if kind else _symmetric_pairs(path, entries)
    return build(path, list(range(n)), edges, directed=kind, drop_invalid=drop_invalid)


def _symmetric_pairs(path: str | Path, entries: list[tuple[int, int, str]]) -> list[LocatedEdge]:
    """Undirected edges of a general matrix that must be symmetric: one per mirrored pair."""
    arcs = {(i, j) for i, j, _ in entries}
    for i, j, where in entries:
        if (j, i) not in arcs:
            raise format_error(
                path,
                f"entry ({i + 1}, {j + 1}) has no mirror ({j + 1}, {i + 1}); the matrix is not "
                "symmetric, read it as a directed graph",
                where,
            )
    return [(i, j, where) for i, j, where in entries if i <= j]


def write_mtx(topology: Topology, path: str | Path) -> None:
    """Write a coordinate pattern matrix: ``symmetric`` (lower triangle) or ``general``.

    Labels other than ``0..n-1`` in order are not stored (a warning says so).
    """
    warn_if_labels_lost(topology, path, "Matrix Market")
    symmetry = "general" if topology.directed else "symmetric"
    pairs = [(u, v) if topology.directed else (v, u) for u, v in topology.edge_indices()]
    out = [
        f"%%MatrixMarket matrix coordinate pattern {symmetry}",
        "% adjacency matrix written by robustgraph: entry (i, j) is the arc i -> j",
        f"{topology.n} {topology.n} {len(pairs)}",
    ]
    out.extend(f"{i + 1} {j + 1}" for i, j in pairs)
    write_text(path, "\n".join(out) + "\n")
