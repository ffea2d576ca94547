"""LGL (Large Graph Layout) files, as igraph ``write_lgl`` writes them.

A line ``# u`` starts node u's block; each following line names one neighbour (an optional
weight after it is ignored). Nodes are named; names hold no whitespace or ``#``. The format does
not record the kind: when some listed edge has no reverse, the caller must say
``directed=True`` (``--directed``) or ``False`` (``--undirected``); see
:func:`~robustgraph.io._common.resolve_ambiguous`.

Parsed by igraph's C reader (names kept, read as directed so that every listed pair stays
visible to the ambiguity check); the node order is the order of the ``# u`` blocks, as our
writer lists every node, so isolated nodes and the label order survive a round trip.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from robustgraph.io._common import (
    build_indexed,
    canonical_labels,
    read_bytes,
    resolve_ambiguous,
    write_text,
)
from robustgraph.io._library import igraph_read
from robustgraph.io._text import plain_label
from robustgraph.topology import Topology, igraph_edge_arrays

__all__ = ["read_lgl", "write_lgl"]

_BLOCK = re.compile(rb"\n[ \t]*#[ \t]*(\S+)")  # a literal first: no per-line anchor (slow)


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
    import igraph as ig

    data = read_bytes(path)
    graph = igraph_read(  # as a digraph unless told: the ambiguity check needs each pair's order
        path, data, ig.Graph.Read_Lgl, names=True, weights=False, directed=directed is not False
    )
    names = list(graph.vs["name"]) if graph.vcount() else []
    heads = _BLOCK.findall(b"\n" + data)
    blocks = b"\n".join(heads).decode("utf-8", "replace").split("\n") if heads else []
    texts = list(dict.fromkeys([*blocks, *names]))  # node order: the blocks, then the rest
    typed = canonical_labels(texts, path)
    labels = list(typed.values())
    pairs = np.stack(igraph_edge_arrays(graph), axis=1)
    if texts != names:  # igraph numbers names by first appearance, not by block
        position = {x: i for i, x in enumerate(texts)}
        pairs = np.asarray([position[x] for x in names], dtype=np.int64)[pairs]
    kind, keep = resolve_ambiguous(
        path, None, directed, [] if directed is not None else list(map(tuple, pairs.tolist()))
    )
    if keep is not None:
        pairs = pairs[np.asarray(keep, dtype=bool)]
    tails, heads = pairs[:, 0], pairs[:, 1]
    return build_indexed(
        path,
        labels,
        tails,
        heads,
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
