"""JSON node-link graphs, as networkx ``node_link_data`` writes them.

``{"directed": bool, "multigraph": bool, "graph": {...}, "nodes": [{"id": ...}, ...],
"edges": [{"source": ..., "target": ...}, ...]}``. networkx before 3.4 wrote the edges under
``"links"``; both keys are read, the current ``"edges"`` is written. JSON keeps label types, so
integer ids stay integers and string ids stay strings.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from robustgraph.io._common import (
    LocatedEdge,
    build,
    check_counts,
    check_size,
    decode_text,
    format_error,
    read_bytes,
    resolve_directed,
    write_text,
)
from robustgraph.topology import Label, Topology

__all__ = ["read_json", "write_json"]


def _label(path: str | Path, value: object, where: str) -> Label:
    """A node id as a label: a string, an integer or a finite number."""
    ok = isinstance(value, str | int) and not isinstance(value, bool)
    if not ok and not (isinstance(value, float) and math.isfinite(value)):
        raise format_error(path, f"node id {value!r} is not a string or a number", where)
    return value  # type: ignore[return-value]


def read_json(
    path: str | Path, *, directed: bool | None = None, drop_invalid: bool = False
) -> Topology:
    """Read a JSON node-link graph (``edges`` key, or the legacy ``links`` key).

    Parameters as for :func:`robustgraph.io.read`; ``directed`` must match the file's
    ``directed`` member when it has one.

    Raises
    ------
    GraphFormatError
        Naming the file and the line or element (``nodes[3]``, ``edges[7]``): invalid JSON, no
        ``nodes`` list, no ``edges``/``links`` list (or both), a node without an ``id``, a
        duplicate id, an edge to an unknown id, a self-loop or a repeated edge.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "g.json"
    >>> _ = p.write_text('{"directed": true, "nodes": [{"id": "a"}, {"id": "b"}],'
    ...                  ' "links": [{"source": "a", "target": "b"}]}')
    >>> read_json(p).edges()
    [('a', 'b')]
    """
    raw = read_bytes(path)
    check_size(path, raw.count(b"{"), "JSON objects")
    check_counts(path, raw.count(b'"id"'), 0, 'its "id" members', upto=True)
    text = decode_text(path, raw)
    if not text.strip():
        raise format_error(path, "the file is empty (a node-link JSON graph was expected)")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        hint = ""
        if text.lstrip().startswith("<"):  # issue 44: a GraphML file named .json
            hint = "; it looks like XML (GraphML?): pass --format graphml, or rename it .graphml"
        raise format_error(path, f"invalid JSON ({exc.msg}){hint}", where) from None
    except RecursionError:
        raise format_error(path, "invalid JSON (nested too deeply)") from None
    except ValueError as exc:  # an integer of more than 4300 digits
        raise format_error(path, f"invalid JSON ({str(exc).split(';')[0]})") from None
    if not isinstance(doc, dict):
        raise format_error(path, f"expected a JSON object, found {type(doc).__name__}")
    nodes = doc.get("nodes")
    if not isinstance(nodes, list):
        if doc.get("format") == "robustgraph-certificate":  # e.g. verify's arguments swapped
            raise format_error(path, "is a robustgraph certificate, not a graph (robustgraph "
                                     "verify takes CERT first, then the graph FILE)")
        raise format_error(path, "no 'nodes' list (not a node-link graph)")
    keys = [k for k in ("edges", "links") if k in doc]
    if len(keys) != 1 or not isinstance(doc[keys[0]], list):
        what = (
            "both 'edges' and 'links'" if len(keys) > 1 else "no 'edges' (or legacy 'links') list"
        )
        raise format_error(path, what)
    flag = doc.get("directed")
    if flag is not None and not isinstance(flag, bool):
        raise format_error(path, f"'directed' must be true or false, not {flag!r}")
    kind = resolve_directed(path, flag, directed)
    labels: dict[Label, None] = {}
    for k, node in enumerate(nodes):
        where = f"nodes[{k}]"
        if not isinstance(node, dict) or "id" not in node:
            raise format_error(path, "node without an 'id'", where)
        label = _label(path, node["id"], where)
        if label in labels:
            raise format_error(path, f"duplicate node id {label!r}", where)
        labels[label] = None
    edges: list[LocatedEdge] = []
    for k, edge in enumerate(doc[keys[0]]):
        where = f"{keys[0]}[{k}]"
        if not isinstance(edge, dict) or "source" not in edge or "target" not in edge:
            raise format_error(path, "edge without 'source' and 'target'", where)
        for end in ("source", "target"):
            value = edge[end]
            if (
                isinstance(value, bool)
                or not isinstance(value, str | int | float)
                or value not in labels
            ):
                raise format_error(path, f"{end} {value!r} is not a node id", where)
        edges.append((edge["source"], edge["target"], where))
    return build(path, list(labels), edges, directed=kind, drop_invalid=drop_invalid)


def write_json(topology: Topology, path: str | Path) -> None:
    """Write the current networkx node-link form (edges under ``"edges"``)."""
    for label in topology.labels:
        _label(path, label, "cannot write node")
    doc = {
        "directed": topology.directed,
        "multigraph": False,
        "graph": {},
        "nodes": [{"id": x} for x in topology.labels],
        "edges": [{"source": u, "target": v} for u, v in topology.edges()],
    }
    write_text(path, json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
