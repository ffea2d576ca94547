"""Graph file I/O: read and write a Topology in the common graph formats.

:func:`read` and :func:`write` choose the format from the file extension (``.gz``, ``.bz2`` and
``.xz`` compression is handled on top) or from an explicit format name; :data:`FORMATS` lists
them. Every problem with a file raises :class:`~robustgraph.errors.GraphFormatError` with one
line naming the file, the line or element where possible, and what was wrong.

Examples
--------
>>> import tempfile, pathlib
>>> from robustgraph import Topology
>>> t = Topology.from_edges([(0, 1), (1, 2)], nodes=range(4), directed=True)
>>> path = pathlib.Path(tempfile.mkdtemp()) / "g.graphml"
>>> write(t, path)
>>> read(path) == t
True
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from robustgraph.graphs import GraphInput, as_topology
from robustgraph.io._common import format_error, split_compression
from robustgraph.io.sidecar import SUFFIX as SIDECAR
from robustgraph.topology import Topology

__all__ = ["FORMATS", "Format", "read", "write", "resolve_format"]

Reader = Callable[..., Topology]
Writer = Callable[[Topology, "str | Path"], None]


@dataclass(frozen=True)
class Format:
    """A graph file format: its name, extensions, what it can hold, and its reader and writer.

    ``directed`` tells whether the format can hold digraphs (every format holds undirected
    graphs); ``records_kind`` whether a file says by itself which kind it holds (otherwise the
    caller's ``directed`` decides, and our writers record it where the libraries ignore it: a
    ``# directed`` comment, or for whitespace edge lists the sidecar of
    :mod:`robustgraph.io.sidecar`); ``labels`` whether it stores node labels (else nodes are
    ``0..n-1``).
    """

    name: str
    extensions: tuple[str, ...]
    description: str
    directed: bool
    records_kind: bool
    labels: bool
    module: str
    """The module of ``robustgraph.io`` with its reader ``read_<name>`` and writer
    ``write_<name>``, imported on first use: a format's libraries (igraph, scipy, pygraphviz,
    numpy) load only when a file of that format is read or written."""

    @property
    def reader(self) -> Reader:
        """``read_<name>(path, *, directed, drop_invalid)`` of :attr:`module`."""
        return getattr(importlib.import_module(f"{__name__}.{self.module}"), f"read_{self.name}")

    @property
    def writer(self) -> Writer:
        """``write_<name>(topology, path)`` of :attr:`module`."""
        return getattr(importlib.import_module(f"{__name__}.{self.module}"), f"write_{self.name}")


_TEXT = {"directed": True, "records_kind": False, "labels": True}
_SELF_DESCRIBING = {"directed": True, "records_kind": True, "labels": True}
_NAUTY = {"directed": False, "records_kind": True, "labels": False}

FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format(
            "edgelist",
            (".edgelist", ".edges", ".el", ".txt", ".ncol"),
            "whitespace-separated edge list, one 'u v' per line",
            **_TEXT,
            module="edgelist",
        ),
        Format(
            "csv",
            (".csv",),
            "comma-separated edge list with a source,target header",
            **_TEXT,
            module="edgelist",
        ),
        Format(
            "tsv",
            (".tsv",),
            "tab-separated edge list with a source/target header",
            **_TEXT,
            module="edgelist",
        ),
        Format(
            "adjlist",
            (".adjlist", ".adj"),
            "adjacency list, one 'node neighbours...' per line",
            **_TEXT,
            module="adjlist",
        ),
        Format(
            "graphml",
            (".graphml", ".xml"),
            "GraphML (XML)",
            **_SELF_DESCRIBING,
            module="graphml",
        ),
        Format(
            "gml",
            (".gml",),
            "Graph Modelling Language",
            **_SELF_DESCRIBING,
            module="gml",
        ),
        Format(
            "json",
            (".json",),
            "JSON node-link (networkx node_link_data)",
            **_SELF_DESCRIBING,
            module="nodelink",
        ),
        Format(
            "pajek",
            (".net", ".pajek"),
            "Pajek network (*Vertices, *Arcs or *Edges)",
            **_SELF_DESCRIBING,
            module="pajek",
        ),
        Format(
            "gexf",
            (".gexf",),
            "GEXF (Gephi's XML format)",
            **_SELF_DESCRIBING,
            module="gexf",
        ),
        Format(
            "dot",
            (".dot", ".gv"),
            "DOT (Graphviz): graph { a -- b } or digraph { a -> b }",
            **_SELF_DESCRIBING,
            module="dot",
        ),
        Format(
            "lgl",
            (".lgl",),
            "LGL (Large Graph Layout): '# node' then its neighbours",
            **_TEXT,
            module="lgl",
        ),
        Format(
            "graph6",
            (".g6", ".graph6"),
            "graph6 (nauty), undirected only",
            **_NAUTY,
            module="graph6",
        ),
        Format(
            "sparse6",
            (".s6", ".sparse6"),
            "sparse6 (nauty), undirected only",
            **_NAUTY,
            module="graph6",
        ),
        Format(
            "mtx",
            (".mtx", ".mm"),
            "Matrix Market adjacency matrix; symmetric = undirected",
            directed=True,
            records_kind=True,
            labels=False,
            module="mtx",
        ),
    )
}
"""Every supported format by name. All of them are read and written."""

_BY_EXTENSION = {ext: f for f in FORMATS.values() for ext in f.extensions}


def resolve_format(path: str | Path, format: str | None = None) -> Format:
    """The format named by ``format`` (a name or an extension), else by the file's extension.

    Raises
    ------
    GraphFormatError
        For an unknown format name, an unknown or missing extension, or an edge list's sidecar
        (``*.meta.json``, :mod:`robustgraph.io.sidecar`) without a format name.

    Examples
    --------
    >>> resolve_format("g.graphml.gz").name, resolve_format("x", "g6").name
    ('graphml', 'graph6')
    """
    known = ", ".join(FORMATS)
    if format is not None:
        key = format.lower().lstrip(".")
        found = FORMATS.get(key) or _BY_EXTENSION.get("." + key)
        if found is None:
            raise format_error(path, f"unknown format {format!r} (known: {known})")
        return found
    name, _ = split_compression(path)
    if name.lower().endswith(SIDECAR):
        raise format_error(
            path, f"is the sidecar of the edge list {name[: -len(SIDECAR)]!r}, not a graph file"
        )
    suffix = Path(name).suffix.lower()
    if suffix not in _BY_EXTENSION:
        shown = f"extension {suffix!r}" if suffix else "no extension"
        raise format_error(
            path, f"unknown format: {shown} (known: {known}); name one with --format"
        )
    return _BY_EXTENSION[suffix]


def read(
    path: str | Path,
    *,
    format: str | None = None,
    directed: bool | None = None,
    drop_invalid: bool = False,
) -> Topology:
    """Read a graph file into a :class:`~robustgraph.topology.Topology`.

    Parameters
    ----------
    path : str or Path
        The file; ``.gz``, ``.bz2`` and ``.xz`` files are decompressed.
    format : str, optional
        A name from :data:`FORMATS` (or one of its extensions); default: from the extension.
    directed : bool, optional
        For edge and adjacency lists and LGL: read as a digraph. None follows the edge list's
        sidecar (``FILE.meta.json``, :mod:`robustgraph.io.sidecar`) or the file's
        ``# directed`` / ``# undirected`` comment; without either, the file must list every
        edge both ways (then a graph), else it is an error: the kind is never guessed. For
        formats that record the kind (and a sidecar) it must agree with the file.
    drop_invalid : bool
        Drop self-loops and repeated edges with a ``UserWarning`` instead of raising.

    Returns
    -------
    Topology
        Labels as the file gives them, in file order; in text formats ints only when every
        label is a canonical integer.

    Raises
    ------
    GraphFormatError
        One line naming the file, the line or element where possible, and what was wrong;
        also for a file that is not a regular file or breaks a bound (size, node count,
        label length, nesting: ``robustgraph.io._common``).
    """
    return resolve_format(path, format).reader(path, directed=directed, drop_invalid=drop_invalid)


def write(topology: GraphInput, path: str | Path, *, format: str | None = None) -> None:
    """Write a graph (a Topology, networkx or igraph graph, or edge list: see
    :func:`robustgraph.graphs.as_topology`); the format comes from ``format`` or the extension.

    Raises
    ------
    GraphFormatError
        For an unknown format, a graph without nodes, a digraph in an undirected-only format,
        labels the format cannot hold, or a file that cannot be written.
    """
    fmt = resolve_format(path, format)
    topology = as_topology(topology)
    if topology.n == 0:
        raise format_error(path, "cannot write a graph without nodes")
    fmt.writer(topology, path)
