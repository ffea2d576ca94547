"""DOT (Graphviz), as Graphviz, networkx ``write_dot`` and igraph ``write_dot`` write it.

``graph { a -- b }`` is an undirected graph and ``digraph { a -> b }`` a digraph: the file
records its kind. Node labels are the node IDs (typed as
:func:`~robustgraph.io._common.canonical_labels`), unless every node carries a distinct,
non-empty ``name`` attribute (igraph writes IDs ``0, 1, ...`` and keeps the labels in ``name``).
Subgraphs and edge statements such as ``a -> {b c}`` are expanded as Graphviz does; a repeated
edge is an error, except in a ``strict`` graph, which by the DOT language merges them.

Parsed by Graphviz's own C parser (cgraph, through pygraphviz: about 20x faster than networkx's
``read_dot`` on pygraphviz, and pydot's pyparsing grammar took 72 s for 20,000 edges). Around it
we read the bytes bounded (:func:`~robustgraph.io._common.read_bytes`), then scan them with
strings and comments blanked: braces nested at most :data:`~robustgraph.io._common.MAX_DEPTH`
deep (the parser's own stack gives out near 10,000), and one graph with nothing after it (cgraph
reads the first graph of a file and ignores the rest without a word). Two inputs that cost
Graphviz far more than their size are refused first: a number run into letters (``1a``: cgraph
splits it in two with a warning, and 330,000 of them took 34 s), and edge statements whose
subgraph operands expand past the ``edges`` budget (``{a0 .. a4499} -> {b0 .. b4499}`` is 52 KB
and 20 million edges): :func:`_edge_bound` bounds the expansion from the tokens. Its errors, which
it prints on standard error, become one line. Written by our own writer (:func:`write_dot` says
why).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from robustgraph.io._common import (
    MAX_DEPTH,
    build_indexed,
    canonical_labels,
    check_counts,
    format_error,
    read_bytes,
    resolve_directed,
    write_text,
)
from robustgraph.io._library import c_stderr, in_memory_file, plain_text
from robustgraph.limits import NODES
from robustgraph.topology import Topology
from solvers.extras import require

__all__ = ["read_dot", "write_dot"]

_BLANKED = re.compile(
    rb'"(?:[^"\\]++|\\"|\\(?!"))*+"|//[^\n]*|/\*.*?\*/|^[ \t]*#[^\n]*', re.DOTALL | re.MULTILINE
)
_GRAPHVIZ_ERROR = re.compile(r"Error: (?:<stdin>: )?(.*?)\s*$", re.MULTILINE)
_RUN_IN = re.compile(rb"(?<![\w.\x80-\xff])(?:[0-9]+\.?[0-9]*|\.[0-9]+)[A-Za-z_\x80-\xff]")
_EXPANDS = re.compile(rb"(?:->|--)\s*(?:\{|subgraph\b)|\}\s*(?:->|--)")
_TOKENS = re.compile(rb'->|--|[{}]|""|[\w.\x80-\xff]+')
_NAMES = re.compile(
    rb'"(?:[^"\\]++|\\"|\\(?!"))*+"|//[^\n]*|/\*.*?\*/|^[ \t]*#[^\n]*|[\[\]=]|->|--'
    rb"|[\w.\x80-\xff]+",
    re.DOTALL | re.MULTILINE,
)
_KEYWORDS = frozenset({b"graph", b"digraph", b"subgraph", b"node", b"edge", b"strict"})


def _node_bound(data: bytes) -> int:
    """About the distinct node names of the DOT text ``data``, without Graphviz: the distinct
    IDs (quoted or not) outside attribute lists ``[...]`` and ``key = value`` assignments,
    keywords left out (subgraph names counted: a bound from above, but for HTML IDs).

    One pass of a regex in C and a loop over its tokens: about 1 s for 10^6 names, where
    Graphviz takes 10 s and 300 MB to parse them (issue 41, row 8).
    """
    names: set[bytes] = set()
    depth, added, skip = 0, None, False  # added: the name the previous token added
    for found in _NAMES.finditer(data):
        token, just = found.group(), added
        added = None
        if token in (b"[", b"]"):
            depth += 1 if token == b"[" else -1
        elif token == b"=":
            if just is not None:  # it named an attribute (rankdir=LR), not a node
                names.discard(just)
            skip = True  # the value
        elif token[:1] in (b"/", b"#") or token in (b"->", b"--"):
            continue
        elif skip or depth > 0:
            skip = False
        elif token.lower() not in _KEYWORDS:
            name = token.strip(b'"')
            if name not in names:
                names.add(name)
                added = name
    return len(names)


def _edge_bound(bare: bytes) -> int:
    """An upper bound on the edges the DOT text ``bare`` (strings and comments blanked) makes.

    Each edge operator joins its left operand (a node, or the subgraph closing just before it)
    to its right one (a node, or the subgraph opening after it, ``subgraph name`` allowed):
    at most ``|left| * |right|`` edges, where a subgraph has at most as many nodes as it holds
    ID tokens. Without a subgraph operand this is the number of operators, counted in C; else
    one pass over the tokens. O(file size).
    """
    if _EXPANDS.search(bare) is None:
        return bare.count(b"->") + bare.count(b"--")
    tokens = _TOKENS.findall(bare)
    size_at: dict[int, int] = {}  # index of a '{' or '}' -> ID tokens inside its group
    stack: list[list[int]] = []  # [index of '{', IDs so far]
    for i, token in enumerate(tokens):
        if token == b"{":
            stack.append([i, 0])
        elif token == b"}" and stack:
            start, count = stack.pop()
            size_at[start] = size_at[i] = count
            if stack:
                stack[-1][1] += count
        elif token not in (b"->", b"--", b"}") and stack:
            stack[-1][1] += 1
    bound = 0
    for i, token in enumerate(tokens):
        if token not in (b"->", b"--"):
            continue
        left = size_at.get(i - 1, 1) if i and tokens[i - 1] == b"}" else 1
        j = i + 1
        if j < len(tokens) and tokens[j] == b"subgraph":
            j += 1
            if j + 1 < len(tokens) and tokens[j] not in (b"{", b"}") and tokens[j + 1] == b"{":
                j += 1
        right = size_at.get(j, 1) if j < len(tokens) and tokens[j] == b"{" else 1
        bound += max(left, 1) * max(right, 1)
    return bound


def _check_shape(path: str | Path, data: bytes) -> None:
    """Refuse a number run into letters, edge statements expanding past the ``edges`` budget,
    braces nested past :data:`MAX_DEPTH` and anything after the first graph.

    O(file size): one regex pass blanking strings and comments, then numpy over the braces.
    Unbalanced braces are left to the parser, which names the line.
    """
    bare = _BLANKED.sub(b'""', data)
    run_in = _RUN_IN.search(bare)
    if run_in is not None:
        line = bare.count(b"\n", 0, run_in.start()) + 1
        end = bare.find(b"\n", run_in.start())
        word = bare[run_in.start() : end if end >= 0 else None].split()[0][:20].decode("latin-1")
        raise format_error(
            path,
            f"{word!r} runs a number into letters, which Graphviz splits in two (quote the ID)",
            f"line {line}",
        )
    check_counts(path, 0, _edge_bound(bare), "its edge statements, expanded", upto=True)
    if len(bare) // 2 > NODES.value():  # could name more nodes than the budget: count them
        check_counts(path, _node_bound(data), 0, "its node IDs, before Graphviz", upto=True)
    raw = np.frombuffer(bare, dtype=np.uint8)
    where = np.flatnonzero((raw == 123) | (raw == 125))  # '{' and '}'
    if not where.size:
        return
    depth = np.cumsum(np.where(raw[where] == 123, 1, -1))
    if depth.max() > MAX_DEPTH:
        line = bare[: int(where[int(np.argmax(depth > MAX_DEPTH))])].count(b"\n") + 1
        raise format_error(path, f"braces nested more than {MAX_DEPTH} deep", f"line {line}")
    closed = np.flatnonzero(depth == 0)
    if closed.size and bare[int(where[closed[0]]) + 1 :].strip():
        line = bare[: int(where[closed[0]])].count(b"\n") + 1
        raise format_error(
            path,
            f"text after the graph that ends on line {line} (one graph per file; Graphviz "
            "would ignore the rest)",
        )


def _parse(path: str | Path, data: bytes) -> Any:
    """The pygraphviz ``AGraph`` of ``data``; Graphviz's complaint as one line otherwise."""
    import pygraphviz

    graph = pygraphviz.AGraph()
    with in_memory_file(plain_text(path, data)) as handle, c_stderr() as printed:
        try:
            graph.read(handle)
            failed = graph.handle is None
        except pygraphviz.DotError:
            failed = True
        said = printed()
    if failed:
        found = _GRAPHVIZ_ERROR.search(said)
        if found is None:
            raise format_error(path, "holds no DOT graph (expected 'graph { ... }' or 'digraph')")
        raise format_error(path, f"not a DOT graph we read (Graphviz: {found.group(1)})")
    return graph


def _text(path: str | Path, raw: bytes, what: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise format_error(path, f"{what} {raw[:40]!r} is not UTF-8 text") from None


def _walk(path: str | Path, graph: Any) -> tuple[list[str], list[int], list[int]]:
    """Node labels (IDs, or every node's ``name``) and edges as index lists, via cgraph calls.

    cgraph iterates the nodes in the order the file introduces them; each edge is visited once,
    as an out-edge of its tail.
    """
    from pygraphviz import graphviz as gv

    root = graph.handle
    handles, ids, names = [], [], []
    node = gv.agfstnode(root)
    while node is not None:
        handles.append(node)
        ids.append(gv.agnameof(node) or b"")  # the ID "" comes back as None
        names.append(gv.agget(node, b"name"))
        node = gv.agnxtnode(root, node)
    index = {x: i for i, x in enumerate(ids)}
    tails: list[int] = []
    heads: list[int] = []
    for i, node in enumerate(handles):
        edge = gv.agfstout(root, node)
        while edge is not None:
            tails.append(i)
            heads.append(index[gv.agnameof(gv.aghead(edge)) or b""])
            edge = gv.agnxtout(root, edge)
    use_names = bool(names) and all(names) and len(set(names)) == len(names)
    texts = [_text(path, x, "node name") for x in (names if use_names else ids)]
    return texts, tails, heads


def read_dot(
    path: str | Path, *, directed: bool | None = None, drop_invalid: bool = False
) -> Topology:
    """Read a DOT file; parameters as for :func:`robustgraph.io.read`.

    ``directed`` must match the file (``digraph`` or ``graph``) when given.

    Raises
    ------
    GraphFormatError
        Naming the file: what Graphviz's parser refuses (with its line), braces nested too deep,
        text after the graph, a graph without nodes, a self-loop or a repeated edge.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "g.dot"
    >>> _ = p.write_text('digraph { a -> {b c}; "d e" }')
    >>> t = read_dot(p)
    >>> t.directed, t.labels, t.edges()
    (True, ('a', 'b', 'c', 'd e'), [('a', 'b'), ('a', 'c')])

    Notes
    -----
    O(file size) in Graphviz's parser, then O(m) calls into it and O(m log m) in numpy.
    """
    gv = require("pygraphviz.graphviz", "reading DOT files")  # the 'dot' extra
    data = read_bytes(path)
    _check_shape(path, data)
    graph = _parse(path, data)
    try:
        kind = resolve_directed(path, bool(gv.agisdirected(graph.handle)), directed)
        check_counts(path, gv.agnnodes(graph.handle), 0)  # counted in C, before the walk
        texts, tails, heads = _walk(path, graph)
    finally:
        graph.close()
    if len(set(texts)) != len(texts):
        raise format_error(path, "two nodes share a name")
    typed = canonical_labels(texts, path)
    return build_indexed(
        path,
        [typed[x] for x in texts],
        tails,
        heads,
        directed=kind,
        drop_invalid=drop_invalid,
        where=lambda k: f"edge #{k + 1}",
    )


def _quote(path: str | Path, label: object) -> str:
    text = str(label)
    if text.endswith("\\") or '\\"' in text:
        raise format_error(
            path,
            f"node label {label!r} cannot be written to DOT (a backslash at the end or before a "
            "quote: the DOT language has no way to write it); use graphml, gml or json",
        )
    return '"' + text.replace('"', '\\"') + '"'


def write_dot(topology: Topology, path: str | Path) -> None:
    """Write DOT: ``graph`` or ``digraph``, every node ID (the label, quoted), then the edges.

    Our own writer, because Graphviz's (``agwrite``) lists a node only where it first needs to,
    which loses the node order, and writes labels ending in a backslash as it cannot read them.

    Raises
    ------
    GraphFormatError
        For a label ending in a backslash or holding a backslash before a quote.
    """
    name = [_quote(path, x) for x in topology.labels]
    arrow = "->" if topology.directed else "--"
    out = ["digraph {" if topology.directed else "graph {"]
    out.extend(f"  {x};" for x in name)
    out.extend(f"  {name[u]} {arrow} {name[v]};" for u, v in topology.edge_indices())
    out.append("}")
    write_text(path, "\n".join(out) + "\n")
