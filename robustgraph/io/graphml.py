"""GraphML (the XML graph format of networkx, igraph, yEd and Gephi).

One ``<graph>`` with ``edgedefault="directed"`` or ``"undirected"``; ``<node id=...>`` and
``<edge source=... target=...>``. A node's label is its id, unless every node carries a distinct
``name`` data value (igraph writes ids ``n0, n1, ...`` and keeps the labels in ``name``).
Nested graphs, hyperedges and mixed directed/undirected edges are not supported.

Read by igraph's C reader (libxml2) when a scan of the bytes finds the file plain: one
``<graph>`` with an ``edgedefault``, no per-edge ``directed``, no hyperedges or ports, no
DOCTYPE, and as many nodes as ``<node`` elements (igraph merges repeated ids silently). All
else, and every error, goes to our own expat reader below, which names the line.
"""

from __future__ import annotations

import re
from pathlib import Path
from xml.parsers import expat

from robustgraph.errors import GraphFormatError
from robustgraph.io._common import (
    MAX_DEPTH,
    LocatedEdge,
    build,
    canonical_labels,
    check_counts,
    check_size,
    format_error,
    from_igraph_read,
    read_bytes,
    resolve_directed,
    write_text,
)
from robustgraph.io._library import igraph_read
from robustgraph.topology import Topology

__all__ = ["read_graphml", "write_graphml"]

_NS = "http://graphml.graphdrawing.org/xmlns"
_UNSUPPORTED = {"hyperedge", "port", "endpoint", "locator"}


class _Handler:
    """Expat callbacks that collect nodes, edges and ``name`` data with their line numbers."""

    def __init__(self, path: str | Path, parser: expat.XMLParserType) -> None:
        self.path, self.parser = path, parser
        self.stack: list[str] = []
        self.name_keys: set[str] = set()
        self.edgedefault = False
        self.declared: bool | None = None
        self.graphs = 0
        self.nodes: dict[str, int] = {}
        self.names: dict[str, str] = {}
        self.edges: list[tuple[str, str, int]] = []
        self.node: str | None = None
        self.text: list[str] | None = None

    def error(self, what: str) -> Exception:
        return format_error(self.path, what, f"line {self.parser.CurrentLineNumber}")

    def start(self, tag: str, attrs: dict[str, str]) -> None:
        local = tag.rsplit(" ", 1)[-1]
        parent = self.stack[-1] if self.stack else None
        self.stack.append(local)
        if len(self.stack) > MAX_DEPTH:
            raise self.error(f"elements nested more than {MAX_DEPTH} deep")
        if parent is None and local != "graphml":
            raise self.error(f"root element is <{local}>, not <graphml>")
        if local in _UNSUPPORTED:
            raise self.error(f"<{local}> is not supported (plain graphs only)")
        if (
            local == "key"
            and attrs.get("attr.name") == "name"
            and attrs.get("for", "all") in ("node", "all")
        ):
            self.name_keys.add(attrs.get("id", ""))
        elif local == "graph":
            self._graph(attrs, parent)
        elif local == "node" and parent == "graph":
            self._node(attrs)
        elif local == "edge" and parent == "graph":
            self._edge(attrs)
        elif local == "data" and parent == "node" and attrs.get("key") in self.name_keys:
            self.text = []

    def _graph(self, attrs: dict[str, str], parent: str | None) -> None:
        self.graphs += 1
        if self.graphs > 1 or parent != "graphml":
            raise self.error("more than one <graph> (nested or multiple graphs are not supported)")
        default = attrs.get("edgedefault")
        if default not in (None, "directed", "undirected"):
            raise self.error(f"edgedefault={default!r}, expected 'directed' or 'undirected'")
        self.declared = None if default is None else default == "directed"
        self.edgedefault = default == "directed"

    def _node(self, attrs: dict[str, str]) -> None:
        if "id" not in attrs:
            raise self.error("<node> without an id")
        node = attrs["id"]
        if node in self.nodes:
            raise self.error(f"node id {node!r} declared twice (first on line {self.nodes[node]})")
        self.nodes[node] = self.parser.CurrentLineNumber
        self.node = node

    def _edge(self, attrs: dict[str, str]) -> None:
        if "source" not in attrs or "target" not in attrs:
            raise self.error("<edge> without source or target")
        if "directed" in attrs:
            if attrs["directed"] not in ("true", "false"):
                raise self.error(f"edge directed={attrs['directed']!r}, expected 'true' or 'false'")
            if (attrs["directed"] == "true") != self.edgedefault:
                raise self.error("mixed directed and undirected edges are not supported")
        self.edges.append((attrs["source"], attrs["target"], self.parser.CurrentLineNumber))

    def end(self, _tag: str) -> None:
        local = self.stack.pop()
        if local == "data" and self.text is not None and self.node is not None:
            self.names[self.node] = "".join(self.text).strip()
            self.text = None
        elif local == "node":
            self.node = None

    def chars(self, data: str) -> None:
        if self.text is not None:
            self.text.append(data)


def read_graphml(
    path: str | Path, *, directed: bool | None = None, drop_invalid: bool = False
) -> Topology:
    """Read a GraphML file; parameters as for :func:`robustgraph.io.read`.

    ``directed`` must match the file's ``edgedefault`` when given.

    Raises
    ------
    GraphFormatError
        Naming the file and line: malformed or truncated XML, no ``<graph>``, an edge to an
        undeclared node, a duplicate node id, unsupported elements, a self-loop or a repeated edge.
    """
    data = read_bytes(path)
    check_size(path, data.count(b"<edge"), "<edge> elements", nodes=0)
    check_counts(path, data.count(b"<node"), 0, "its <node> elements", upto=True)
    fast = _read_with_igraph(path, data, directed, drop_invalid)
    if fast is not None:
        return fast
    parser = expat.ParserCreate(namespace_separator=" ")
    handler = _Handler(path, parser)
    parser.StartElementHandler = handler.start
    parser.EndElementHandler = handler.end
    parser.CharacterDataHandler = handler.chars
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        what = f"malformed XML ({expat.ErrorString(exc.code)})"
        raise format_error(path, what, f"line {exc.lineno}, column {exc.offset}") from None
    except LookupError as exc:  # an XML declaration naming an unknown encoding
        raise format_error(path, f"malformed XML ({exc})", "line 1") from None
    if not handler.graphs:
        raise format_error(path, "no <graph> element")
    kind = resolve_directed(path, handler.declared, directed)
    ids = list(handler.nodes)
    names = [handler.names.get(x) for x in ids]
    use_names = bool(ids) and None not in names and len(set(names)) == len(names)
    typed = canonical_labels(names if use_names else ids, path)  # type: ignore[arg-type]
    label = {x: typed[n] for x, n in zip(ids, names if use_names else ids, strict=True)}
    edges: list[LocatedEdge] = []
    for k, (u, v, line) in enumerate(handler.edges, start=1):
        for end in (u, v):
            if end not in label:
                raise format_error(
                    path, f"edge #{k} refers to undeclared node {end!r}", f"line {line}"
                )
        edges.append((label[u], label[v], f"line {line} (edge #{k})"))
    return build(path, list(label.values()), edges, directed=kind, drop_invalid=drop_invalid)


_DEFAULT = re.compile(rb"""edgedefault\s*=\s*["'](directed|undirected)["']""")
_AWKWARD = (
    b"<!DOCTYPE", b"<hyperedge", b"<port", b"<endpoint", b"<locator", b":graph ", b":graph>"
)


def _read_with_igraph(
    path: str | Path, data: bytes, directed: bool | None, drop_invalid: bool
) -> Topology | None:
    """The graph read by igraph, or None when our own reader must read it (see the module)."""
    import igraph as ig

    start = data.find(b"<graph")
    while start >= 0 and data[start + 6 : start + 7] == b"m":  # <graphml, not <graph
        start = data.find(b"<graph", start + 1)
    kinds = _DEFAULT.findall(data[start : data.find(b">", start)]) if start >= 0 else []
    graphs = data.count(b"<graph") - data.count(b"<graphml")  # '<graphics' too: then ours reads
    if graphs != 1 or len(kinds) != 1 or data.count(b"directed") != 1:
        return None  # several graphs, no edgedefault, or a per-edge 'directed'
    if any(marker in data for marker in _AWKWARD):
        return None
    try:
        graph = igraph_read(path, data, ig.Graph.Read_GraphML)
    except GraphFormatError:
        return None
    attrs = graph.vs.attributes()
    if not graph.vcount() or "id" not in attrs or data.count(b"<node") != graph.vcount():
        # repeated ids merged by igraph (or another '<node...' element): ours reads it
        return None
    ids = [str(x) for x in graph.vs["id"]]
    names = graph.vs["name"] if "name" in attrs else None
    if names is not None and not all(isinstance(x, str) for x in names):
        return None
    use_names = names is not None and all(names) and len(set(names)) == len(names)
    texts = [x.strip() for x in names] if use_names else ids  # type: ignore[union-attr]
    if len(set(texts)) != len(texts):
        return None
    kind = resolve_directed(path, kinds[0] == b"directed", directed)
    typed = canonical_labels(texts, path)
    labels = [typed[x] for x in texts]
    return from_igraph_read(path, graph, labels, directed=kind, drop_invalid=drop_invalid)


def write_graphml(topology: Topology, path: str | Path) -> None:
    """Write GraphML with node ids equal to the labels (as text), as networkx does."""
    from xml.sax.saxutils import quoteattr  # imports urllib.request: only when writing

    name = [str(x) for x in topology.labels]
    for label, text in zip(topology.labels, name, strict=True):
        if any(not c.isprintable() for c in text):
            raise format_error(
                path, f"node label {label!r} holds control characters XML cannot store"
            )
    kind = "directed" if topology.directed else "undirected"
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<graphml xmlns="{_NS}">',
        f'  <graph id="G" edgedefault="{kind}">',
    ]
    out.extend(f"    <node id={quoteattr(x)}/>" for x in name)
    out.extend(
        f"    <edge source={quoteattr(name[u])} target={quoteattr(name[v])}/>"
        for u, v in topology.edge_indices()
    )
    out += ["  </graph>", "</graphml>"]
    write_text(path, "\n".join(out) + "\n")
