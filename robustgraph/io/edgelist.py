"""Edge lists: whitespace-separated (networkx ``write_edgelist``, igraph ``ncol``/``edgelist``)
and CSV/TSV.

One edge per line, ``u v`` (the arc ``u -> v`` in a digraph: v hears u). A line holding one
label is a node, which is how isolated nodes survive a round trip. ``#`` starts a comment; a
``# directed`` or ``# undirected`` comment before the data records the graph kind. The first line
may be a header naming the columns (``source target``, ``from to``, ``src dst``, ``node1 node2``).
Columns after the first two (weights, or the ``{...}`` dict networkx writes) are allowed and
ignored, but every edge line must have the same number of columns. Without a ``# directed`` /
``# undirected`` line, a sidecar (:mod:`robustgraph.io.sidecar`) or the caller's ``directed``, a
list in which some ``u v`` has no ``v u`` is ambiguous and refused
(:func:`~robustgraph.io._common.resolve_ambiguous`).

What we write, the libraries read: a whitespace-separated edge list holds only ``u v`` lines
(igraph's ``Read_Ncol``/``Read_Edgelist`` accept nothing else), with the kind and the node list
in its sidecar; a CSV/TSV file starts with the ``# directed`` comment (networkx's
``read_edgelist`` skips comments and one-field node rows) and has no header row (networkx would
read it as an edge).
"""

from __future__ import annotations

import ast
import csv
import io
from pathlib import Path

from robustgraph.io._common import (
    NODE_CHECK_EVERY,
    build_from_text,
    check_nodes_so_far,
    check_size,
    decode_text,
    format_error,
    read_bytes,
    resolve_ambiguous,
    write_bytes,
)
from robustgraph.io._text import (
    blank_comments,
    data_lines,
    directive,
    needs_node_lines,
    plain_label,
)
from robustgraph.io.sidecar import read_sidecar, write_sidecar
from robustgraph.topology import Topology

__all__ = [
    "HEADERS",
    "read_csv",
    "read_edgelist",
    "read_tsv",
    "write_csv",
    "write_edgelist",
    "write_tsv",
]

HEADERS = frozenset(
    {("source", "target"), ("from", "to"), ("src", "dst"), ("src", "dest"), ("node1", "node2")}
)
"""Column-name pairs that mark the first line as a header (compared case-insensitively)."""


def _is_header(fields: list[str]) -> bool:
    return len(fields) >= 2 and (fields[0].lower(), fields[1].lower()) in HEADERS


class _Rows:
    """Collects node and edge rows of an edge list, checking the column count."""

    def __init__(self, path: str | Path) -> None:
        self.path = path
        self.order: dict[str, None] = {}
        self.edges: list[tuple[str, str, str]] = []
        self.width: int | None = None
        self.width_from = ""

    def header(self, fields: list[str], number: int) -> None:
        self.width, self.width_from = len(fields), f"the header on line {number}"

    def node(self, label: str) -> None:
        self.order.setdefault(label)

    def edge(self, fields: list[str], number: int) -> None:
        if self.width is None:
            self.width, self.width_from = len(fields), f"line {number}"
        elif len(fields) != self.width:
            raise format_error(
                self.path,
                f"expected {self.width} columns like {self.width_from}, found {len(fields)}",
                f"line {number}",
            )
        u, v = fields[0], fields[1]
        self.order.setdefault(u)
        self.order.setdefault(v)
        self.edges.append((u, v, f"line {number}"))

    def topology(
        self, declared: bool | None, directed: bool | None, drop_invalid: bool
    ) -> Topology:
        kind, keep = resolve_ambiguous(
            self.path, declared, directed, [(u, v) for u, v, _ in self.edges]
        )
        edges = self.edges
        if keep is not None:
            edges = [e for e, k in zip(self.edges, keep, strict=True) if k]
        return build_from_text(
            self.path, self.order, edges, directed=kind, drop_invalid=drop_invalid
        )


def _strip_edge_data(path: str | Path, line: str, number: int) -> str:
    """Drop the ``{...}`` attribute dict networkx writes after an edge; it must parse."""
    if "{" not in line:
        return line
    head, data = line.split("{", 1)
    try:
        parsed = ast.literal_eval("{" + data)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        parsed = None
    if not isinstance(parsed, dict) or not head.split():
        raise format_error(
            path, f"bad token {('{' + data)[:40]!r} (expected an edge)", f"line {number}"
        )
    return head


def read_edgelist(
    path: str | Path, *, directed: bool | None = None, drop_invalid: bool = False
) -> Topology:
    """Read a whitespace-separated edge list; parameters as for :func:`robustgraph.io.read`.

    ``directed=None`` follows the sidecar ``<path>.meta.json`` when there is one (then also its
    node order), else the file's ``# directed`` comment, else the content when it cannot be
    misread.

    Returns
    -------
    Topology
        Labels in the sidecar's order, else in order of first appearance; ints if every label
        is a canonical integer.

    Raises
    ------
    GraphFormatError
        Naming the file and line: no nodes, a column count unlike the other edge lines,
        unparsable edge data, a self-loop or a repeated edge; a sidecar that does not match the
        file or disagrees with its comment.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "g.edges"
    >>> _ = p.write_text("# directed\\n0 1\\n1 2\\n3\\n")
    >>> t = read_edgelist(p)
    >>> t.directed, t.labels, t.m
    (True, (0, 1, 2, 3), 2)
    """
    raw = read_bytes(path)
    check_size(path, raw.count(b"\n") + 1, "lines")
    declared, lines = data_lines(decode_text(path, raw))
    side = read_sidecar(path, raw)
    rows = _Rows(path)
    if side is not None:
        if declared is not None and declared != side.directed:
            raise format_error(path, "its '# directed' comment and its sidecar disagree")
        declared = side.directed
        for label in side.nodes:
            rows.node(label)
    for k, (number, line) in enumerate(lines):
        fields = _strip_edge_data(path, line, number).split()
        if k == 0 and side is None and _is_header(fields):
            rows.header(fields, number)
        elif len(fields) == 1:
            rows.node(fields[0])
        else:
            rows.edge(fields, number)
        if not k % NODE_CHECK_EVERY:
            check_nodes_so_far(path, len(rows.order), number)
    check_nodes_so_far(path, len(rows.order), number if lines else 0)
    if side is not None and len(rows.order) != len(side.nodes):
        extra = list(rows.order)[len(side.nodes)]
        raise format_error(path, f"names node {extra!r}, which its sidecar does not list")
    return rows.topology(declared, directed, drop_invalid)


def _first_edge_is_header(topology: Topology) -> bool:
    edges = topology.edges()
    return bool(edges) and _is_header([str(edges[0][0]), str(edges[0][1])])


def write_edgelist(topology: Topology, path: str | Path) -> None:
    """Write a whitespace-separated edge list of ``u v`` lines, and its sidecar.

    The lines are what igraph's ``Read_Ncol`` (and, for labels ``0..n-1``, ``Read_Edgelist``)
    and networkx's ``read_edgelist`` read; the kind and the node list (isolated nodes, order)
    go to the sidecar ``<path>.meta.json`` (:mod:`robustgraph.io.sidecar`). Labels must not hold
    whitespace, ``#`` or ``{`` (:class:`GraphFormatError` otherwise).
    """
    name = [plain_label(path, x, "a whitespace-separated edge list") for x in topology.labels]
    text = "".join(f"{name[u]} {name[v]}\n" for u, v in topology.edge_indices())
    data = text.encode("utf-8")
    write_bytes(path, data)
    write_sidecar(path, data, topology.directed, name)


def _read_delimited(
    path: str | Path, delimiter: str, directed: bool | None, drop_invalid: bool
) -> Topology:
    raw = read_bytes(path)
    check_size(path, raw.count(b"\n") + 1, "lines")
    declared, text = blank_comments(decode_text(path, raw))
    reader = csv.reader(
        io.StringIO(text, newline=""), delimiter=delimiter, skipinitialspace=True, strict=True
    )
    rows = _Rows(path)
    first = True
    try:
        for raw in reader:
            number = reader.line_num
            fields = [f.strip() for f in raw]
            if not any(fields):
                continue
            if first and _is_header(fields):
                rows.header(fields, number)
            elif not any(fields[1:]):
                rows.node(fields[0])
            elif not fields[0] or not fields[1]:
                raise format_error(path, "empty node label in an edge row", f"line {number}")
            else:
                rows.edge(fields, number)
            first = False
    except csv.Error as exc:
        raise format_error(path, f"malformed CSV ({exc})", f"line {reader.line_num}") from None
    if rows.width is not None and rows.width < 2:
        raise format_error(path, "the header names fewer than two columns (source, target)")
    return rows.topology(declared, directed, drop_invalid)


def _write_delimited(topology: Topology, path: str | Path, delimiter: str) -> None:
    name = [str(x) for x in topology.labels]
    for label, text in zip(topology.labels, name, strict=True):
        if not text or not text.isprintable():
            raise format_error(path, f"node label {label!r} is empty or holds control characters")
    buffer = io.StringIO()
    quoting = csv.QUOTE_ALL if any(x.startswith("#") for x in name) else csv.QUOTE_MINIMAL
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\n", quoting=quoting)
    buffer.write(directive(topology.directed) + "\n")
    if needs_node_lines(topology, _first_edge_is_header(topology)):
        writer.writerows([x] for x in name)  # one field: networkx skips it ("x," is an edge)
    writer.writerows([name[u], name[v]] for u, v in topology.edge_indices())
    write_bytes(path, buffer.getvalue().encode("utf-8"))


def read_csv(
    path: str | Path, *, directed: bool | None = None, drop_invalid: bool = False
) -> Topology:
    """Read a comma-separated edge list (see :func:`read_edgelist`; a node row is ``label``).

    Raises
    ------
    GraphFormatError
        As :func:`read_edgelist`, and on malformed CSV quoting or an edge row with an empty label.
    """
    return _read_delimited(path, ",", directed, drop_invalid)


def write_csv(topology: Topology, path: str | Path) -> None:
    """Write a CSV edge list: ``# directed``/``# undirected``, then node rows where needed (isolated
    nodes, order) and ``u,v`` rows; no header row, which networkx's reader would take for an
    edge."""
    _write_delimited(topology, path, ",")


def read_tsv(
    path: str | Path, *, directed: bool | None = None, drop_invalid: bool = False
) -> Topology:
    """Read a tab-separated edge list (as :func:`read_csv`, with tabs)."""
    return _read_delimited(path, "\t", directed, drop_invalid)


def write_tsv(topology: Topology, path: str | Path) -> None:
    """Write a tab-separated edge list (as :func:`write_csv`, with tabs)."""
    _write_delimited(topology, path, "\t")
