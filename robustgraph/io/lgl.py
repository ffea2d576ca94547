"""LGL (Large Graph Layout) files, as igraph ``write_lgl`` writes them.

A line ``# u`` starts node u's block; each following line names one neighbour (an optional
weight after it is ignored). Nodes are named; names hold no whitespace or ``#``. The format does
not record the kind: when some listed edge has no reverse, the caller must say
``directed=True`` (``--directed``) or ``False`` (``--undirected``); see
:func:`~robustgraph.io._common.resolve_ambiguous`.

Parsed by igraph's C reader (names kept, read as directed so that every listed pair stays
visible to the ambiguity check), except files laid out as the writers lay them out, which one
dictionary pass of ours reads faster (:func:`_plain_blocks`; a test holds it to igraph's
answer). The node order is the order of the ``# u`` blocks, then names seen only as
neighbours; our writer lists every node, so isolated nodes and the label order survive a round
trip.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from robustgraph.edge_arrays import igraph_edge_arrays
from robustgraph.io._common import (
    build_indexed,
    canonical_labels,
    check_size,
    read_bytes,
    resolve_ambiguous,
    write_text,
)
from robustgraph.io._library import igraph_read, plain_text
from robustgraph.io._text import plain_label
from robustgraph.topology import Topology

__all__ = ["read_lgl", "write_lgl"]

_BLOCK = re.compile(rb"\n[ \t]*#[ \t]*(\S+)")  # a literal first: no per-line anchor (slow)


def _plain_blocks(data: bytes) -> tuple[list[str], np.ndarray] | None:
    """Names (the blocks' in order, then the rest) and index pairs of a file laid out as the
    writers lay it out: UTF-8, ``\\n`` line ends, a ``# u`` line first, ``#`` only there, every
    other line one name, no weights or blank lines. None for anything else (igraph reads it).

    Own code because igraph's reader plus its edge export take about 3x these string splits and
    one ``map`` over a dictionary (igraph has no array export), which left us 1.7x slower than
    igraph alone.
    """
    if b"\r" in data or b"\t" in data or not data.startswith(b"#"):
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    chunks = (text if text.endswith("\n") else text + "\n")[1:].split("\n#")
    if text.count("#") != len(chunks):
        return None  # a '#' inside a line: igraph's rules
    chunks = [chunk + "\n" for chunk in chunks[:-1]] + chunks[-1:]  # the split ate their ends
    parts = [chunk.partition("\n") for chunk in chunks]
    blocks = [name.strip(" ") for name, _, _ in parts]
    bodies = [body for _, _, body in parts]
    joined = "".join(bodies)
    names = joined.split("\n")[:-1]  # every body line ends in a newline
    index = {x: i for i, x in enumerate(blocks)}
    if len(index) != len(blocks) or " " in joined or "" in names:
        return None  # a repeated block, a weight or a space, a blank line
    if any(not x or " " in x for x in blocks):
        return None  # an empty block name, or one igraph would split
    for x in dict.fromkeys(names):  # names seen only as neighbours, in first-seen order
        index.setdefault(x, len(index))
    heads = np.fromiter(map(index.__getitem__, names), dtype=np.int64, count=len(names))
    tails = np.repeat(np.arange(len(blocks)), [body.count("\n") for body in bodies])
    return list(index), np.stack([tails, heads], axis=1)


def _igraph_blocks(path: str | Path, data: bytes, directed: bool | None) -> tuple[list[str], Any]:
    """:func:`_plain_blocks` for any file, by igraph's reader (its errors as one line)."""
    import igraph as ig

    graph = igraph_read(  # as a digraph unless told: the ambiguity check needs each pair's order
        path, data, ig.Graph.Read_Lgl, names=True, weights=False, directed=directed is not False
    )
    names = list(graph.vs["name"]) if graph.vcount() else []
    heads = _BLOCK.findall(b"\n" + data)
    blocks = b"\n".join(heads).decode("utf-8", "replace").split("\n") if heads else []
    texts = list(dict.fromkeys([*blocks, *names]))  # node order: the blocks, then the rest
    pairs = np.stack(igraph_edge_arrays(graph), axis=1)
    if texts != names:  # igraph numbers names by first appearance, not by block
        position = {x: i for i, x in enumerate(texts)}
        pairs = np.asarray([position[x] for x in names], dtype=np.int64)[pairs]
    return texts, pairs


def read_lgl(
    path: str | Path, *, directed: bool | None = None, drop_invalid: bool = False
) -> Topology:
    """Read an LGL file; parameters as for :func:`robustgraph.io.read`.

    Raises
    ------
    GraphFormatError
        Naming the file: what igraph's parser refuses (with its line), an ambiguous kind
        without ``directed``, a self-loop or a repeated edge.
    """
    data = plain_text(path, read_bytes(path))  # also the blocks our own scan reads
    check_size(path, data.count(b"\n") + 1, "lines")
    plain = _plain_blocks(data)
    texts, pairs = plain if plain is not None else _igraph_blocks(path, data, directed)
    labels = list(canonical_labels(texts, path).values())
    kind, keep = resolve_ambiguous(
        path, None, directed, [] if directed is not None else list(map(tuple, pairs.tolist()))
    )
    if keep is not None:
        pairs = pairs[np.asarray(keep, dtype=bool)]
    return build_indexed(
        path,
        labels,
        pairs[:, 0],
        pairs[:, 1],
        directed=kind,
        drop_invalid=drop_invalid,
        where=lambda k: f"edge #{k + 1}",
    )


def write_lgl(topology: Topology, path: str | Path) -> None:
    """Write LGL: for every node in order, ``# u`` and its out-neighbours (graph: later ones).

    Every node gets its block, empty or not, so isolated nodes and the node order survive. The
    kind is not recorded (LGL has no place for it): read a digraph back with ``directed=True``.
    """
    name = [plain_label(path, x, "LGL") for x in topology.labels]
    out: list[str] = []
    for i, outs in enumerate(topology.out_neighbors):
        shown = sorted(outs) if topology.directed else sorted(j for j in outs if j > i)
        out.append(f"# {name[i]}")
        out.extend(name[j] for j in shown)
    write_text(path, "\n".join(out) + "\n")
