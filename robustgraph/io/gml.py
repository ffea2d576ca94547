"""GML (Graph Modelling Language), as networkx and igraph write it.

A file is a list of ``key value`` pairs; values are integers, reals, ``"strings"`` or nested
``[ ... ]`` lists. The graph is the list under ``graph``: ``directed 0|1``, then ``node [ id N
... ]`` and ``edge [ source N target M ]``. A node's label is its ``label`` if every node has one
(networkx), else its ``name`` if every node has one (igraph), else its id. Strings may hold
HTML character references (``&amp;``, ``&#233;``).

Read by igraph's C parser when a cheap scan (in numpy, over the bytes with strings and comments
blanked) finds the file plain: brackets balanced and at most :data:`MAX_DEPTH` deep, one graph
list and nothing else but key-value pairs at the top, no number longer than :data:`MAX_LABEL`
digits, no ``&#`` reference (igraph leaves those undecoded). Everything igraph would get wrong
or refuses (a second graph or trailing text it ignores silently, float ids, numeric labels,
undecoded entities, any error) goes to our own parser, which names the line of every problem:
so igraph gives the speed and ours the exactness.
"""

from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from robustgraph.errors import GraphFormatError
from robustgraph.io._common import (
    MAX_DEPTH,
    MAX_LABEL,
    LocatedEdge,
    build,
    canonical_labels,
    check_counts,
    check_size,
    decode_text,
    format_error,
    from_igraph_read,
    read_bytes,
    resolve_directed,
    write_text,
)
from robustgraph.io._library import igraph_read
from robustgraph.topology import Topology

__all__ = ["read_gml", "write_gml"]

_TOKEN = re.compile(
    r"""(?P<space>[ \t\r\n]+)
      | (?P<comment>\#[^\n]*)
      | (?P<real>[+-]?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?[0-9]+[eE][+-]?[0-9]+)
      | (?P<int>[+-]?[0-9]+)
      | (?P<key>[A-Za-z_][A-Za-z0-9_]*)
      | (?P<string>"[^"]*")
      | (?P<open>\[)
      | (?P<close>\])""",
    re.VERBOSE,
)


@dataclass(frozen=True)
class _Item:
    key: str
    value: object  # int | float | str | list[_Item]
    line: int


class _Parser:
    """Recursive-descent parser of GML's key-value lists, tracking line numbers."""

    def __init__(self, path: str | Path, text: str) -> None:
        self.path = path
        self.tokens: list[tuple[str, str, int]] = []
        line, pos = 1, 0
        while pos < len(text):
            match = _TOKEN.match(text, pos)
            if match is None:
                bad = (text[pos:].split(None, 1) or [text[pos]])[0][:30]  # "\x1e" splits away
                raise format_error(path, f"bad token {bad!r}", f"line {line}")
            kind, value = match.lastgroup or "", match.group()
            if kind not in ("space", "comment"):
                self.tokens.append((kind, value, line))
            line += value.count("\n")
            pos = match.end()
        self.pos = 0

    def items(self, closing: bool, depth: int = 0) -> list[_Item]:
        out: list[_Item] = []
        while self.pos < len(self.tokens):
            kind, value, line = self.tokens[self.pos]
            self.pos += 1
            if kind == "close":
                if not closing:
                    raise format_error(self.path, "unexpected ']'", f"line {line}")
                return out
            if kind != "key":
                raise format_error(
                    self.path, f"expected a key, found {value[:30]!r}", f"line {line}"
                )
            out.append(_Item(value, self.value(value, line, depth), line))
        if closing:
            raise format_error(self.path, "file ends inside a list (missing ']'; truncated?)")
        return out

    def value(self, key: str, line: int, depth: int) -> object:
        if self.pos >= len(self.tokens):
            raise format_error(self.path, f"key {key!r} has no value (truncated?)", f"line {line}")
        kind, text, at = self.tokens[self.pos]
        self.pos += 1
        if kind == "open":
            if depth >= MAX_DEPTH:
                raise format_error(
                    self.path, f"lists nested more than {MAX_DEPTH} deep", f"line {at}"
                )
            return self.items(closing=True, depth=depth + 1)
        if kind in ("int", "real") and len(text) > MAX_LABEL:
            raise format_error(
                self.path, f"a number of {len(text):,} digits (at most {MAX_LABEL:,})", f"line {at}"
            )
        if kind == "int":
            return int(text)
        if kind == "real":
            return float(text)
        if kind == "string":
            return html.unescape(text[1:-1])
        raise format_error(
            self.path, f"key {key!r} has no value (found {text[:30]!r})", f"line {at}"
        )


def _lists(items: list[_Item], key: str) -> list[_Item]:
    return [item for item in items if item.key == key]


def _scalar(path: str | Path, items: list[_Item], key: str) -> _Item | None:
    found = _lists(items, key)
    if not found:
        return None
    if len(found) > 1 or isinstance(found[0].value, list):
        raise format_error(
            path, f"{key!r} must appear once with a plain value", f"line {found[0].line}"
        )
    return found[0]


def _graph(path: str | Path, text: str) -> _Item:
    graphs = _lists(_Parser(path, text).items(closing=False), "graph")
    if len(graphs) != 1 or not isinstance(graphs[0].value, list):
        raise format_error(path, f"expected one 'graph [ ... ]' list, found {len(graphs)}")
    return graphs[0]


def read_gml(
    path: str | Path, *, directed: bool | None = None, drop_invalid: bool = False
) -> Topology:
    """Read a GML file; parameters as for :func:`robustgraph.io.read`.

    ``directed`` must match the file's ``directed`` key when given (absent means undirected).

    Raises
    ------
    GraphFormatError
        Naming the file and line: a bad token, unbalanced brackets, no ``graph`` list, a node
        without an integer id, an edge to an unknown id, a self-loop or a repeated edge.
    """
    data = read_bytes(path)
    check_size(path, data.count(b"edge"), "'edge' keys", nodes=0)
    check_counts(path, data.count(b"node"), 0, "its 'node' keys", upto=True)
    fast = _read_with_igraph(path, data, directed, drop_invalid)
    if fast is not None:
        return fast
    graph = _graph(path, decode_text(path, data))
    items: list[_Item] = graph.value  # type: ignore[assignment]
    flag = _scalar(path, items, "directed")
    if flag is not None and flag.value not in (0, 1):
        raise format_error(
            path, f"directed must be 0 or 1, not {flag.value!r}", f"line {flag.line}"
        )
    kind = resolve_directed(path, None if flag is None else bool(flag.value), directed)
    ids: dict[int, int] = {}
    attrs: list[dict[str, str]] = []
    for node in _lists(items, "node"):
        fields = node.value if isinstance(node.value, list) else []
        ident = _scalar(path, fields, "id")
        if ident is None or not isinstance(ident.value, int):
            raise format_error(path, "node without an integer id", f"line {node.line}")
        if ident.value in ids:
            raise format_error(path, f"node id {ident.value} declared twice", f"line {node.line}")
        ids[ident.value] = len(attrs)
        attrs.append(
            {k: str(i.value) for k in ("label", "name") if (i := _scalar(path, fields, k))}
        )
    source = next((k for k in ("label", "name") if attrs and all(k in a for a in attrs)), None)
    texts = [a[source] for a in attrs] if source else [str(x) for x in ids]
    if len(set(texts)) != len(texts):
        raise format_error(path, f"two nodes share the {source or 'id'} {_first_repeat(texts)!r}")
    typed = canonical_labels(texts, path)
    labels = [typed[x] for x in texts]
    edges: list[LocatedEdge] = []
    for k, edge in enumerate(_lists(items, "edge"), start=1):
        fields = edge.value if isinstance(edge.value, list) else []
        ends = [_scalar(path, fields, key) for key in ("source", "target")]
        for end in ends:
            if end is None or end.value not in ids:
                shown = "missing" if end is None else repr(end.value)
                raise format_error(
                    path, f"edge #{k}: endpoint {shown} is not a node id", f"line {edge.line}"
                )
        u, v = (labels[ids[end.value]] for end in ends)  # type: ignore[union-attr,index]
        edges.append((u, v, f"line {edge.line} (edge #{k})"))
    return build(path, labels, edges, directed=kind, drop_invalid=drop_invalid)


_BLANKED = re.compile(rb'"[^"]*"|#[^\n]*')
_KEY = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*\Z")
_DIRECTED = re.compile(rb"directed(?<![A-Za-z0-9_]directed)[ \t\r\n]+([^ \t\r\n\[\]]+)")


def _longest_digit_run(raw: np.ndarray) -> int:
    """The longest run of ASCII digits in a byte array (numpy: a regex backtracks at each)."""
    digit = np.concatenate(([False], (raw >= 48) & (raw <= 57), [False]))
    edges = np.flatnonzero(digit[1:] != digit[:-1])  # starts and ends of runs, alternating
    return int((edges[1::2] - edges[0::2]).max(initial=0))


def _plain_shape(data: bytes) -> bool | None | str:
    """The ``directed`` flag (True/False/None when absent) if the file is plain, else ``"no"``.

    O(file size): one regex pass blanking strings and comments, then numpy over the brackets.
    """
    if b"&#" in data:
        return "no"
    bare = _BLANKED.sub(b'""', data)
    raw = np.frombuffer(bare, dtype=np.uint8)
    where = np.flatnonzero((raw == 91) | (raw == 93))  # '[' and ']'
    step = np.where(raw[where] == 91, 1, -1)
    depth = np.cumsum(step)  # the depth after each bracket
    if not where.size or depth.min() < 0 or depth[-1] != 0 or depth.max() > MAX_DEPTH:
        return "no"
    top = np.flatnonzero((step == 1) & (depth == 1))
    if top.size != 1 or _longest_digit_run(raw) > MAX_LABEL:
        return "no"
    k = int(top[0])
    start, end = int(where[k]), int(where[k + int(np.argmax(depth[k:] == 0))])
    outside = (bare[:start] + b" [] " + bare[end + 1 :]).split()
    pairs = list(zip(outside[::2], outside[1::2], strict=False))
    if len(outside) % 2 or [key for key, v in pairs if v == b"[]"] != [b"graph"]:
        return "no"
    if any(not _KEY.match(key) for key, _ in pairs):
        return "no"
    flags = []
    for m in _DIRECTED.finditer(bare, start, end):
        at = int(np.searchsorted(where, m.start()))
        if at and depth[at - 1] == 1:
            flags.append(m.group(1))
    if len(flags) > 1 or any(flag not in (b"0", b"1") for flag in flags):
        return "no"
    return flags[0] == b"1" if flags else None


def _read_with_igraph(
    path: str | Path, data: bytes, directed: bool | None, drop_invalid: bool
) -> Topology | None:
    """The graph read by igraph, or None when our own parser must read it (see the module)."""
    import igraph as ig

    declared = _plain_shape(data)
    if declared == "no":
        return None
    try:
        graph = igraph_read(path, data, ig.Graph.Read_GML)
    except GraphFormatError:
        return None  # our parser names the line
    attrs = graph.vs.attributes()
    ids = graph.vs["id"] if "id" in attrs else None
    if not graph.vcount() or ids is None or not all(math.isfinite(x) and x == int(x) for x in ids):
        return None
    texts = None
    for key in ("label", "name"):
        values = graph.vs[key] if key in attrs else None
        if values and all(isinstance(x, str) and x for x in values):
            texts = values
            break
        if values and any(not isinstance(x, str) or x for x in values):
            return None  # numeric or partial labels: ours types them as the file gives them
    texts = texts or [str(int(x)) for x in ids]
    if len(set(texts)) != len(texts) or any("&" in x for x in texts):
        return None
    kind = resolve_directed(path, declared, directed)
    typed = canonical_labels(texts, path)
    labels = [typed[x] for x in texts]
    return from_igraph_read(path, graph, labels, directed=kind, drop_invalid=drop_invalid)


def _first_repeat(values: list[str]) -> str:
    seen: set[str] = set()
    for x in values:
        if x in seen:
            return x
        seen.add(x)
    return ""


def _quote(text: str) -> str:
    """A GML string: ``&``, ``"`` and anything outside printable ASCII as character references."""
    body = "".join(c if " " <= c <= "~" and c not in '&"' else f"&#{ord(c)};" for c in text)
    return f'"{body}"'


def write_gml(topology: Topology, path: str | Path) -> None:
    """Write GML with integer ids ``0..n-1`` and each node's label as a ``label`` string."""
    out = ["graph [", f"  directed {int(topology.directed)}"]
    for i, label in enumerate(topology.labels):
        out += ["  node [", f"    id {i}", f"    label {_quote(str(label))}", "  ]"]
    for u, v in topology.edge_indices():
        out += ["  edge [", f"    source {u}", f"    target {v}", "  ]"]
    out.append("]")
    write_text(path, "\n".join(out) + "\n")
