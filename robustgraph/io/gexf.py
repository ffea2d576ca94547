"""GEXF (Gephi's XML graph format), read and written with networkx.

``<graph defaultedgetype="directed|undirected">`` records the kind; node ids are the labels
(typed as :func:`~robustgraph.io._common.canonical_labels`: ints when every id is a canonical
integer, as networkx writes integer nodes). Mixed edge types, multi-edges and dynamic graphs
are refused.

networkx's reader (ElementTree on expat) does the parsing; around it we read the bytes bounded
(:func:`~robustgraph.io._common.read_bytes`), refuse document type declarations (entity
expansion is the XML bomb; GEXF never needs one) and turn its errors into one line.
"""

from __future__ import annotations

import io
from pathlib import Path

from robustgraph.io._common import (
    build_indexed,
    canonical_labels,
    check_size,
    format_error,
    read_bytes,
    resolve_directed,
    write_bytes,
)
from robustgraph.topology import Topology

__all__ = ["read_gexf", "write_gexf"]


def read_gexf(
    path: str | Path, *, directed: bool | None = None, drop_invalid: bool = False
) -> Topology:
    """Read a GEXF file; parameters as for :func:`robustgraph.io.read`.

    Raises
    ------
    GraphFormatError
        Naming the file: malformed XML (with its line), a DOCTYPE, what networkx refuses, a
        multigraph, a self-loop or a repeated edge.

    Notes
    -----
    O(file size) in networkx's reader, then O(m log m).
    """
    import xml.etree.ElementTree as ET

    import networkx as nx

    data = read_bytes(path)
    check_size(path, data.count(b"<edge"), "<edge> elements", nodes=0)
    if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
        raise format_error(path, "holds a DOCTYPE/ENTITY declaration (not read: XML bomb risk)")
    try:
        graph = nx.read_gexf(io.BytesIO(data))
    except ET.ParseError as exc:
        line, column = exc.position
        raise format_error(
            path, f"malformed XML ({exc.msg})", f"line {line}, column {column}"
        ) from None
    except (nx.NetworkXError, LookupError, ValueError, TypeError, AttributeError) as exc:
        raise format_error(path, f"not a GEXF graph we read ({exc})") from None
    if graph.is_multigraph():
        raise format_error(path, "holds repeated edges (a multigraph)")
    kind = resolve_directed(path, graph.is_directed(), directed)
    texts = [str(x) for x in graph.nodes]
    typed = canonical_labels(texts, path)
    labels = [typed[x] for x in texts]
    index = {node: i for i, node in enumerate(graph.nodes)}
    edges = list(graph.edges)
    return build_indexed(
        path,
        labels,
        [index[u] for u, _ in edges],
        [index[v] for _, v in edges],
        directed=kind,
        drop_invalid=drop_invalid,
        where=lambda k: f"edge #{k + 1}",
    )


def write_gexf(topology: Topology, path: str | Path) -> None:
    """Write GEXF 1.2 with networkx (node ids and labels are the labels as text)."""
    import networkx as nx

    buffer = io.BytesIO()
    nx.write_gexf(topology.to_networkx(), buffer)
    write_bytes(path, buffer.getvalue())
