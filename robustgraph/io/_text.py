"""Helpers of the line-oriented text formats (edge lists, adjacency lists).

They share ``#`` comments, the ``# directed`` / ``# undirected`` header comment that our writers
put first and our readers honour, and the rules for which labels a whitespace-separated file can
hold.
"""

from __future__ import annotations

from pathlib import Path

from robustgraph.io._common import format_error
from robustgraph.topology import Label, Topology

__all__ = [
    "blank_comments",
    "data_lines",
    "directive",
    "needs_node_lines",
    "plain_label",
]

_DIRECTIVES = {"directed": True, "undirected": False}


def directive(directed: bool) -> str:
    """The header comment that records the graph kind: ``# directed`` or ``# undirected``."""
    return "# directed" if directed else "# undirected"


def data_lines(text: str) -> tuple[bool | None, list[tuple[int, str]]]:
    """Split text into numbered data lines, dropping blank lines and ``#`` comments.

    Returns the kind declared by a ``# directed`` / ``# undirected`` comment before the first
    data line (None when there is none) and the ``(line number, text)`` of every data line.
    A ``#`` anywhere starts a comment, as in networkx's text formats.
    """
    declared: bool | None = None
    lines: list[tuple[int, str]] = []
    for number, raw in enumerate(text.split("\n"), start=1):
        stripped = raw.strip()
        if stripped.startswith("#"):
            if not lines:
                declared = _DIRECTIVES.get(stripped[1:].strip().lower(), declared)
            continue
        stripped = stripped.split("#", 1)[0].strip()
        if stripped:
            lines.append((number, stripped))
    return declared, lines


def blank_comments(text: str) -> tuple[bool | None, str]:
    """For CSV: the declared kind, and the text with whole-line ``#`` comments blanked out.

    Line numbers stay as in the file; a ``#`` inside a row is data (a quoted label may hold it).
    """
    declared: bool | None = None
    out: list[str] = []
    data_seen = False
    for raw in text.split("\n"):
        stripped = raw.strip()
        if stripped.startswith("#"):
            if not data_seen:
                declared = _DIRECTIVES.get(stripped[1:].strip().lower(), declared)
            out.append("")
            continue
        data_seen = data_seen or bool(stripped)
        out.append(raw)
    return declared, "\n".join(out)


def plain_label(path: str | Path, label: Label, fmt: str) -> str:
    """``str(label)`` if a whitespace-separated text file can hold it, else a clear error."""
    text = str(label)
    if not text or any(c.isspace() or c in "#{" or not c.isprintable() for c in text):
        raise format_error(
            path,
            f"node label {label!r} cannot be written to {fmt} (empty, or holds whitespace, "
            "'#' or '{'); use csv, graphml, gml or json",
        )
    return text


def needs_node_lines(topology: Topology, looks_like_header: bool) -> bool:
    """Whether an edge list must list the nodes first to keep isolated nodes and label order.

    Edges alone lose isolated nodes and give the labels in order of first appearance; both must
    survive a round trip. A first edge that would be taken for a header line also needs them.
    """
    order: dict[int, None] = {}
    for u, v in topology.edge_indices():
        order.setdefault(u)
        order.setdefault(v)
    return list(order) != list(range(topology.n)) or looks_like_header
