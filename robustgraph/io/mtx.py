"""Matrix Market adjacency matrices (``.mtx``), as scipy ``mmwrite`` writes them.

Entry ``(i, j)`` nonzero means the arc ``i -> j`` (row = tail, as networkx's
``from_scipy_sparse_array``); nodes are ``0..n-1`` (the file's 1-based indices minus one). A
``symmetric`` matrix is an undirected graph (each edge stored once, either triangle); a
``general`` matrix is a digraph, or an undirected graph when read with ``directed=False`` and
the matrix is symmetric. Coordinate and array layouts; pattern, integer, real and complex
fields. Explicit zeros are not edges.

Read with ``scipy.io.mmread`` (fast_matrix_market, about 40x faster than a Python parser), with
our checks around it: the header and the size line are read first so that a declared node
count is bounded before scipy allocates anything, and the number of values in the body must be
the number the size line declares (scipy ignores extra columns in a pattern file). The body may
hold only numbers (digits, signs, ``.``, ``e``, ``nan``, ``inf``), whitespace and ``%`` comment
lines, and is handed to scipy ending in a newline: a stray byte at the very end (``6 5[``
without a newline) made fast_matrix_market read past its buffer and segfault, as a NUL byte did
(issue 30).
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

from robustgraph.io._common import (
    build_indexed,
    check_counts,
    check_node_count,
    count_values,
    format_error,
    read_bytes,
    resolve_directed,
    write_text,
)
from robustgraph.io._library import plain_text
from robustgraph.io.graph6 import warn_if_labels_lost
from robustgraph.topology import Topology
from solvers.extras import require

__all__ = ["read_mtx", "write_mtx"]

_FIELDS = {"pattern": 0, "integer": 1, "real": 1, "double": 1, "complex": 2}
_NUMERIC = b"0123456789+-.eE \t\r\nnaNAifIFtyTY"  # nan, inf and infinity are refused later
_NOT_NUMERIC = re.compile(rb"[^0-9+\-.eE \t\r\nnaNAifIFtyTY]")
_COMMENT = re.compile(rb"^[ \t]*%[^\n]*", re.MULTILINE)
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


def _prelude(path: str | Path, data: bytes) -> tuple[str, int, str, list[int], int]:
    """Header, field width, symmetry, the size numbers, and the offset where the body starts."""
    end = data.find(b"\n")
    first = data[: end if end >= 0 else len(data)].decode("utf-8", "replace")
    if not first.strip():
        raise format_error(path, "empty file (no Matrix Market header)")
    layout, width, symmetry = _header(path, first)
    pos, number = (end + 1 if end >= 0 else len(data)), 2
    while pos < len(data):
        stop = data.find(b"\n", pos)
        stop = len(data) if stop < 0 else stop
        line = data[pos:stop].decode("utf-8", "replace").strip()
        if line and not line.startswith("%"):
            words = line.split()
            expected = 3 if layout == "coordinate" else 2
            if len(words) != expected:
                what = "'rows cols entries'" if layout == "coordinate" else "'rows cols'"
                raise format_error(
                    path, f"expected the size line {what}, found {line[:40]!r}", f"line {number}"
                )
            size = _numbers(path, words, int, f"line {number}")
            if size[0] != size[1] or size[0] < 0:
                raise format_error(
                    path,
                    f"an adjacency matrix must be square, found {size[0]} x {size[1]}",
                    f"line {number}",
                )
            check_node_count(path, size[0], f"line {number}")
            return layout, width, symmetry, size, stop + 1
        pos, number = stop + 1, number + 1
    raise format_error(path, "no size line after the header (truncated?)")


def _check_body(path: str | Path, data: bytes, body: int) -> bytes:
    """``data`` ending in a newline, when its body (from offset ``body``) holds only numbers,
    whitespace and ``%`` comment lines; else the line and byte that are not (one C scan of the
    bytes in the common case)."""
    rest = data[body:]
    if rest.translate(None, _NUMERIC) and _COMMENT.sub(b"", rest).translate(None, _NUMERIC):
        kept = _COMMENT.sub(lambda m: b" " * len(m.group()), rest)  # line numbers kept
        found = _NOT_NUMERIC.search(kept)
        line = data.count(b"\n", 0, body + found.start()) + 1  # type: ignore[union-attr]
        byte = found.group().decode("latin-1")  # type: ignore[union-attr]
        raise format_error(
            path, f"bad token {byte!r} in the matrix body (only numbers)", f"line {line}"
        )
    return data if data.endswith(b"\n") else data + b"\n"


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
        Naming the file (and the line where scipy or the size check says): a bad header or
        size line, a non-square matrix, more nodes than :data:`~robustgraph.io._common.MAX_NODES`,
        a bad token, an index out of range, a value count unlike the declared one, a self-loop,
        a repeated entry, or a non-symmetric general matrix read as undirected.

    Notes
    -----
    O(file size) in scipy's C++ parser, then O(m log m) in numpy.
    """
    import numpy as np

    require("scipy", "reading Matrix Market files")  # the 'mtx' extra
    import scipy.io
    import scipy.sparse

    data = read_bytes(path)
    layout, width, symmetry, size, body = _prelude(path, data)
    data = _check_body(path, plain_text(path, data), body)
    n, symmetric = size[0], symmetry == "symmetric"
    count = size[2] if layout == "coordinate" else n * (n + 1) // 2 if symmetric else n * n
    check_counts(path, n, count, "the size line", upto=True)
    per_entry = width + (2 if layout == "coordinate" else 0)
    values = count_values(data[body:])
    if values != count * per_entry:
        raise format_error(
            path,
            f"the size line declares {count} entries of {per_entry} value(s), but the body "
            f"holds {values} values (truncated, or a column too many?)",
        )
    try:
        matrix = scipy.io.mmread(io.BytesIO(data))
    except (ValueError, OverflowError, IndexError) as exc:
        where, _, what = str(exc).partition(": ") if str(exc).startswith("Line ") else ("", "", exc)
        raise format_error(
            path, f"invalid Matrix Market data ({str(what).rstrip('.')})", where.lower() or None
        ) from None
    coo = scipy.sparse.coo_array(matrix)
    if coo.data.dtype.kind in "fc" and not np.isfinite(coo.data).all():
        k = int(np.flatnonzero(~np.isfinite(coo.data))[0])
        raise format_error(
            path, f"entry ({coo.row[k] + 1}, {coo.col[k] + 1}) has the value {coo.data[k]}, "
            "which is not a number: it cannot say whether the edge is there"
        )
    keep = coo.data != 0  # array layout: every entry is listed, and 0 is no edge
    if layout == "coordinate" and not keep.all():
        k = int(np.flatnonzero(~keep)[0])
        raise format_error(
            path, f"entry ({coo.row[k] + 1}, {coo.col[k] + 1}) is an explicit 0: in coordinate "
            "layout a listed entry is an edge, so a 0 cannot say which it is (drop the line for "
            "no edge, or give it a nonzero value)"
        )
    if symmetric:  # scipy mirrors each stored entry: keep one triangle back
        kind = resolve_directed(path, False, directed)
        keep &= coo.row >= coo.col
    rows, cols = coo.row[keep].astype(np.int64), coo.col[keep].astype(np.int64)
    if not symmetric:
        kind = resolve_directed(path, None, True if directed is None else directed)
        if not kind:
            rows, cols = _symmetric_pairs(path, rows, cols)
    return build_indexed(
        path,
        list(range(n)),
        rows,
        cols,
        directed=kind,
        drop_invalid=drop_invalid,
        where=lambda k: f"entry ({rows[k] + 1}, {cols[k] + 1})",
    )


def _symmetric_pairs(path: str | Path, rows: Any, cols: Any) -> tuple[Any, Any]:
    """Undirected edges of a general matrix that must be symmetric: one per mirrored pair."""
    import numpy as np

    n = int(max(rows.max(initial=0), cols.max(initial=0))) + 1
    arcs = rows * n + cols
    mirrors = cols * n + rows
    missing = np.flatnonzero(~np.isin(mirrors, arcs))
    if missing.size:
        i, j = int(rows[missing[0]]) + 1, int(cols[missing[0]]) + 1
        raise format_error(
            path,
            f"entry ({i}, {j}) has no mirror ({j}, {i}); the matrix is not symmetric, read it "
            "as a directed graph",
        )
    upper = rows <= cols
    return rows[upper], cols[upper]


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
