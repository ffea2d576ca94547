"""Shared helpers of the graph readers and writers: file access, error messages, label typing.

Every reader funnels its nodes and located edges through :func:`build`, so the Topology rules
(no self-loops, no repeated edges, at least one node) are checked once, with the line or element
of the offending edge in the message.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import re
import warnings
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from robustgraph.atomic import write_atomic
from robustgraph.errors import GraphFormatError
from robustgraph.io._labels import refuse_invisible
from robustgraph.limits import (
    EDGES,
    FILE_BYTES,
    INFLATED_BYTES,
    NODES,
    inflate,
    read_bounded,
)
from robustgraph.topology import Label, Topology

if TYPE_CHECKING:  # numpy loads in the bulk paths that use it, not for a small text read
    import numpy as np

__all__ = [
    "COMPRESSIONS",
    "DROP_HINT",
    "MAX_DEPTH",
    "MAX_LABEL",
    "NODE_CHECK_EVERY",
    "check_counts",
    "check_node_count",
    "check_nodes_so_far",
    "check_size",
    "check_values",
    "count_values",
    "plain_layout",
    "LocatedEdge",
    "build",
    "build_from_text",
    "build_indexed",
    "decode_text",
    "from_igraph_read",
    "canonical_labels",
    "format_error",
    "read_bytes",
    "resolve_ambiguous",
    "resolve_directed",
    "split_compression",
    "write_bytes",
    "write_text",
]

COMPRESSIONS = {".gz": gzip, ".bz2": bz2, ".xz": lzma}
"""Compression suffixes handled transparently: ``g.graphml.gz`` is gzip-compressed GraphML."""

MAX_LABEL = 1_000
"""Most characters in one node label."""

MAX_DEPTH = 64
"""Deepest nesting of lists (GML) or elements (XML) a reader follows."""

LocatedEdge = tuple[Label, Label, str]
"""An edge ``(u, v, where)``; ``where`` locates it in the file (``"line 7"``, ``"edge #3"``)."""

_ALL_CANONICAL = re.compile(r"(?:0|-?[1-9][0-9]*)(?:\x00(?:0|-?[1-9][0-9]*))*")
"""Canonical integers (what ``str(int(x))`` prints; not ``-0``) joined by NUL."""


def format_error(path: str | Path, what: str, where: str | None = None) -> GraphFormatError:
    """A one-line :class:`GraphFormatError`: ``<path>: <where>: <what>``."""
    parts = [str(path)] + ([where] if where else []) + [what]
    return GraphFormatError(" ".join(": ".join(parts).split()))


def split_compression(path: str | Path) -> tuple[str, object | None]:
    """The file name without a compression suffix, and the compression module (or None)."""
    name = Path(path).name
    for suffix, module in COMPRESSIONS.items():
        if name.lower().endswith(suffix):
            return name[: -len(suffix)], module
    return name, None


def read_bytes(path: str | Path) -> bytes:
    """The file's bytes, decompressed when its name ends in ``.gz``, ``.bz2`` or ``.xz``.

    Read through :func:`robustgraph.limits.read_bounded` (regular files only, checked on the
    open descriptor; at most the ``bytes`` budget). Decompression is streamed and stops at the
    same budget (a graph is held whole; :func:`robustgraph.limits.inflate`), so a small archive
    that inflates to gigabytes fails at once instead of exhausting memory.

    Raises
    ------
    GraphFormatError
        When the file is missing, unreadable, a directory, not a regular file, over the budget
        (before or after decompression), or not valid compressed data.
    """
    _, module = split_compression(path)
    raw = read_bounded(path, error=GraphFormatError)
    if module is None:
        return raw
    cap = min(FILE_BYTES.value(), INFLATED_BYTES.value())  # the text is held whole
    return inflate(raw, module, error=GraphFormatError, label=str(path), limit=cap)


def check_counts(
    path: str | Path, nodes: int, edges: int, where: str | None = None, *, upto: bool = False
) -> None:
    """Refuse a graph of more nodes or edges than the ``nodes`` and ``edges`` budgets (declared,
    counted, or with ``upto`` an upper bound from a cheap scan) before it is built; ``where``
    says what was counted."""
    for count, budget in ((nodes, NODES), (edges, EDGES)):
        if count > budget.value():
            holds = "may hold up to" if upto else "holds"
            raise format_error(
                path,
                f"{holds} {count:,} {budget.name}, more than robustgraph reads {budget.hint()}",
                where,
            )


NODE_CHECK_EVERY = 1 << 14
"""Readers that count nodes as they parse compare the count with the budget this often (lines),
so a file of a million isolated nodes stops after the budget's worth of them."""


def check_nodes_so_far(path: str | Path, count: int, number: int) -> None:
    """Refuse, while parsing, once the distinct nodes seen by line ``number`` are over the
    ``nodes`` budget (the rest of the file is not parsed)."""
    if count > NODES.value():
        raise format_error(
            path, f"holds more than {NODES.value():,} nodes {NODES.hint()}", f"by line {number}",
        )


def check_values(path: str | Path, raw: bytes, *, edges: int) -> None:
    """:func:`check_size` on the whitespace-separated values of ``raw`` (one per node, ``edges``
    per edge at least), counted in numpy only when the file is long enough to exceed the
    budgets (a value and its separator take two bytes): a small file loads no numpy."""
    if (len(raw) + 1) // 2 > NODES.value() + edges * EDGES.value():
        check_size(path, count_values(raw), "values", edges=edges)


def check_size(path: str | Path, count: int, what: str, *, nodes: int = 1, edges: int = 1) -> None:
    """Refuse, before parsing, a file with more ``what`` (lines, values, edge elements: a count
    taken in C) than a graph within the budgets can need, ``nodes`` per node and ``edges`` per
    edge: the reader's memory grows with them, so the count is checked before it does."""
    cap = nodes * NODES.value() + edges * EDGES.value()
    if count > cap:
        raise format_error(
            path,
            f"holds {count:,} {what}, more than a graph within the budgets needs ({cap:,}; "
            f"raise them with {NODES.env} and {EDGES.env})",
        )


def _long_label(path: str | Path, text: str) -> GraphFormatError:
    return format_error(
        path, f"node label {text[:20]!r}... has {len(text):,} characters (at most {MAX_LABEL:,})"
    )


def _too_long(label: Label) -> bool:
    if isinstance(label, str):
        return len(label) > MAX_LABEL
    if isinstance(label, int):  # 3,300 bits print as about 1,000 digits
        return label.bit_length() > 3_300
    return len(str(label)) > MAX_LABEL


def _longest(labels: Sequence[Label]) -> int:
    """The most characters any label prints as (``map`` in C; an int too long to print counts
    as too long)."""
    if labels and set(map(type, labels)) == {int}:  # bounded by bits: no text made
        widest = max(abs(min(labels)), abs(max(labels)))  # type: ignore[type-var]
        return MAX_LABEL + 1 if widest.bit_length() > 3_300 else len(str(widest)) + 1
    try:
        return max(map(len, map(str, labels)), default=0)
    except ValueError:  # an int past Python's digit limit for str()
        return MAX_LABEL + 1


_UNEVEN = (b"  ", b"\t", b"\r", b" \n", b"\n ", b"\n\n")


def plain_layout(body: bytes) -> bool:
    """Whether ``body`` is laid out as writers do: single spaces between values, no blank line,
    every line ending in a newline (a few ``bytes`` scans in C)."""
    return (
        body.endswith(b"\n")
        and not body.startswith((b" ", b"\n"))
        and not any(gap in body for gap in _UNEVEN)
    )


def count_values(body: bytes) -> int:
    """Whitespace-separated values in ``body`` (bytes at most 32 separate them), in numpy: one
    comparison and one count over the bytes, about 1 ms for 2.5 MB and no token objects."""
    import numpy as np

    blank = np.frombuffer(body, dtype=np.uint8) <= 32
    if not blank.size:
        return 0
    return int(np.count_nonzero(blank[:-1] > blank[1:])) + int(not blank[0])


def check_node_count(path: str | Path, n: int, where: str | None = None) -> None:
    """Refuse a declared node count over the ``nodes`` budget before anything is allocated (a
    Matrix Market size line, a graph6 header, Pajek ``*Vertices``: a short file cannot ask for
    any number)."""
    if n > NODES.value():
        raise format_error(
            path, f"declares {n:,} nodes, more than robustgraph reads {NODES.hint()}", where
        )


def decode_text(path: str | Path, raw: bytes) -> str:
    """``raw`` as UTF-8 text, a leading byte-order mark dropped.

    Raises
    ------
    GraphFormatError
        On bytes that are not UTF-8 (naming the line).
    """
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise format_error(path, "not UTF-8 text (binary file?)", f"line {line}") from None


def write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data``, compressing it when the file name asks for it, whole or not at all
    (:func:`robustgraph.atomic.write_atomic`)."""
    _, module = split_compression(path)
    if module is not None:
        data = module.compress(data)  # type: ignore[attr-defined]
    try:
        write_atomic(path, data)
    except OSError as exc:
        raise format_error(path, f"cannot write ({exc.strerror or exc})") from None


def write_text(path: str | Path, text: str) -> None:
    """Write ``text`` as UTF-8 (see :func:`write_bytes`)."""
    write_bytes(path, text.encode("utf-8"))


def canonical_labels(labels: Iterable[str], path: str | Path = "") -> dict[str, Label]:
    """Map each text label to its typed label: all ints if every label is a canonical integer.

    A canonical integer is what ``str(int(x))`` prints (``"7"``, ``"-3"``; not ``"07"`` or
    ``"+3"``). If any label is not one, every label stays a string, so a file never mixes types.

    Examples
    --------
    >>> canonical_labels(["1", "2"])
    {'1': 1, '2': 2}
    >>> canonical_labels(["1", "02"])
    {'1': '1', '02': '02'}
    """
    labels = list(dict.fromkeys(labels))
    if max(map(len, labels), default=0) > MAX_LABEL:
        raise _long_label(path, next(x for x in labels if len(x) > MAX_LABEL))
    joined = "\x00".join(labels)  # one regex over all labels; no label may hold the separator
    if labels and joined.count("\x00") == len(labels) - 1 and _ALL_CANONICAL.fullmatch(joined):
        return dict(zip(labels, map(int, labels), strict=True))
    return dict(zip(labels, labels, strict=True))


DROP_HINT = (
    "to drop such edges: robustgraph convert FILE CLEAN --drop-invalid, then use CLEAN; "
    "Python: drop_invalid=True"
)
"""How to drop self-loops and repeated edges, true whichever command read the file: only
``info`` and ``convert`` take ``--drop-invalid``, so the hint names ``convert``, which writes a
clean copy any command reads."""


def build(
    path: str | Path,
    nodes: Sequence[Label],
    edges: Iterable[LocatedEdge],
    *,
    directed: bool,
    drop_invalid: bool,
) -> Topology:
    """Check located edges against the Topology rules and build the Topology.

    Parameters
    ----------
    path : str or Path
        The file, for messages.
    nodes : sequence of labels
        Every node, in file order (edge endpoints must be among them).
    edges : iterable of (u, v, where)
        Edges with their location in the file; ``(u, v)`` is the arc ``u -> v`` for a digraph.
    directed : bool
        Whether the edges are arcs.
    drop_invalid : bool
        Drop self-loops and repeated edges with one warning instead of raising.

    Raises
    ------
    GraphFormatError
        On a graph without nodes, a label longer than :data:`MAX_LABEL`, or on the first
        self-loop or repeated edge (unless ``drop_invalid``), naming where it is.
    """
    index = {label: i for i, label in enumerate(nodes)}
    located = list(edges)
    tails = [index[u] for u, _, _ in located]
    heads = [index[v] for _, v, _ in located]
    return build_indexed(
        path,
        nodes,
        tails,
        heads,
        directed=directed,
        drop_invalid=drop_invalid,
        where=lambda k: located[k][2],
    )


def build_indexed(
    path: str | Path,
    nodes: Sequence[Label],
    tails: Sequence[int] | np.ndarray,
    heads: Sequence[int] | np.ndarray,
    *,
    directed: bool,
    drop_invalid: bool,
    where: Callable[[int], str],
) -> Topology:
    """:func:`build` for edges given as index arrays; ``where(k)`` locates edge ``k``.

    The fast path of the library-backed readers: the rules are checked in bulk
    (:func:`robustgraph.edge_arrays.invalid_positions`: a loop for a small graph, numpy for a
    large one) and ``where`` is called only for the edges that break them.
    """
    if not len(nodes):
        raise format_error(path, "holds no nodes (empty graph)")
    check_counts(path, len(nodes), len(tails))
    if _longest(nodes) > MAX_LABEL:
        raise _long_label(path, str(next(x for x in nodes if _too_long(x))))
    refuse_invisible(path, nodes)
    from robustgraph.edge_arrays import (
        drop_edges,
        edge_problem,
        index_arrays,
        index_bounds,
        invalid_positions,
    )

    u, v = index_arrays(tails, heads)
    bad = invalid_positions(u, v, len(nodes), directed)
    if bad:
        k = bad[0]
        problem = edge_problem(nodes, int(u[k]), int(v[k]), directed)
        if u[k] != v[k]:
            pair = {int(u[k]), int(v[k])}
            first = next(
                i
                for i in range(k)
                if (u[i], v[i]) == (u[k], v[k]) or (not directed and {int(u[i]), int(v[i])} == pair)
            )
            problem += f" (first on {where(first)})"
        if not drop_invalid:
            raise format_error(
                path, f"{where(k)}: {problem} ({DROP_HINT})"
            )
        warnings.warn(
            f"{path}: dropped {len(bad)} self-loop(s)/duplicate edge(s); first: {where(k)}: "
            f"{problem}",
            UserWarning,
            stacklevel=3,
        )
        u, v = drop_edges(u, v, bad)
    n = len(nodes)
    low, high = index_bounds(u, v)
    if low < 0 or high >= n:
        raise format_error(path, f"edge endpoint index out of range 0..{n - 1}")
    # checked above (invalid_positions): the Topology's own O(m) check would repeat it
    return Topology._assemble(nodes, u, v, directed=directed, source=str(path))


def build_from_text(
    path: str | Path,
    order: Iterable[str],
    edges: Iterable[tuple[str, str, str]],
    *,
    directed: bool,
    drop_invalid: bool,
) -> Topology:
    """Type the text labels with :func:`canonical_labels`, then :func:`build` the Topology.

    ``order`` lists every node's text label in file order; ``edges`` are ``(u, v, where)`` with
    text labels. For the formats whose labels are plain text (edge and adjacency lists).
    """
    typed = canonical_labels(order, path)
    located: list[LocatedEdge] = [(typed[u], typed[v], where) for u, v, where in edges]
    return build(path, list(typed.values()), located, directed=directed, drop_invalid=drop_invalid)


def resolve_directed(path: str | Path, declared: bool | None, requested: bool | None) -> bool:
    """Decide directedness from what the file declares and what the caller asked for.

    A file that declares nothing is read as the caller asks (undirected by default). A file that
    declares a kind is read as that kind; asking for the other kind is an error, because reading
    an undirected file as a digraph (or the reverse) would silently change the graph.
    """
    if declared is None:
        return bool(requested)
    if requested is not None and requested != declared:
        kind = "a directed" if declared else "an undirected"
        asked = "directed" if requested else "undirected"
        raise format_error(path, f"the file declares {kind} graph but {asked} was requested")
    return declared


def resolve_ambiguous(
    path: str | Path,
    declared: bool | None,
    requested: bool | None,
    pairs: Sequence[tuple[object, object]],
) -> tuple[bool, list[bool] | None]:
    """Directedness for a format that need not record it (edge and adjacency lists, LGL).

    When the file (a ``# directed`` comment) or the caller says, that decides
    (:func:`resolve_directed`). Otherwise the content decides only when it cannot be misread:
    no edges, or every listed pair ``u v`` also listed as ``v u`` (the symmetric digraph, which
    is the undirected graph, read with each pair once). Anything else is ambiguous: reading a
    digraph as a graph, or a graph listed once per edge as a digraph, changes its robustness.

    Returns
    -------
    (bool, list of bool or None)
        The kind, and which pairs to keep (None: all; for symmetric content, each pair's first
        listing).

    Raises
    ------
    GraphFormatError
        When nothing decides and some pair has no reverse: pass ``--directed``/``--undirected``.
    """
    if declared is not None or requested is not None:
        return resolve_directed(path, declared, requested), None
    listed = set(pairs)
    lonely = next(((u, v) for u, v in pairs if (v, u) not in listed), None)
    if lonely is not None:
        raise format_error(
            path,
            f"the file does not say whether it is directed, and {lonely[0]!r} -> {lonely[1]!r} "
            "is listed without its reverse: pass --directed or --undirected (directed=True or "
            "False in Python), or put a '# directed' / '# undirected' line first",
        )
    seen: set[tuple[object, object]] = set()
    keep = []
    for u, v in pairs:
        keep.append(u == v or (v, u) not in seen)
        seen.add((u, v))
    return False, keep


def from_igraph_read(
    path: str | Path, graph: object, labels: list[Label], *, directed: bool, drop_invalid: bool
) -> Topology:
    """The Topology of a graph igraph read from ``path``: its edge list, in its vertex order,
    on ``labels``, through :func:`build_indexed`'s checks (edges named ``edge #k``)."""
    from robustgraph.edge_arrays import igraph_edge_arrays

    tails, heads = igraph_edge_arrays(graph)
    return build_indexed(
        path,
        labels,
        tails,
        heads,
        directed=directed,
        drop_invalid=drop_invalid,
        where=lambda k: f"edge #{k + 1}",
    )

