"""The sidecar of a whitespace-separated edge list: its kind and node list, in a file beside it.

igraph's ``Read_Ncol`` and ``Read_Edgelist`` accept nothing in an edge list but ``u v`` lines
(a ``#`` comment becomes two vertex names or a parse error; a one-label node line is a parse
error), and networkx's ``read_edgelist`` skips node lines. So the edge lists we write hold only
``u v`` lines, which both libraries read, and what they cannot hold (directed or not, every node
in order, isolated ones too) goes into ``<file>.meta.json`` beside it, which both ignore:

.. code-block:: json

    {"robustgraph": "edge list sidecar", "version": 1, "directed": true,
     "nodes": ["a", "b", "c"], "sha256": "<hex digest of the edge list's bytes>"}

The digest ties the sidecar to the bytes it was written with: an edge list edited afterwards no
longer matches, and reading it is then one clear error (delete the sidecar, or pass the kind),
never a graph of the old kind or nodes.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from robustgraph import strict_json
from robustgraph.io._common import check_node_count, format_error, read_bytes

__all__ = ["SUFFIX", "Sidecar", "read_sidecar", "sidecar_path", "write_sidecar"]

SUFFIX = ".meta.json"
"""Appended to the edge list's file name (``g.edgelist`` -> ``g.edgelist.meta.json``)."""

_TAG = "edge list sidecar"


@dataclass(frozen=True)
class Sidecar:
    """What a sidecar records: the kind and every node's label as text, in order."""

    directed: bool
    nodes: tuple[str, ...]


def sidecar_path(path: str | Path) -> Path:
    """The sidecar's path for the edge list at ``path``."""
    return Path(str(path) + SUFFIX)


def write_sidecar(path: str | Path, data: bytes, directed: bool, nodes: list[str]) -> None:
    """Write the sidecar of the edge list ``path`` whose (uncompressed) bytes are ``data``."""
    doc = {
        "robustgraph": _TAG,
        "version": 1,
        "directed": directed,
        "nodes": nodes,
        "sha256": hashlib.sha256(data).hexdigest(),
    }
    target = sidecar_path(path)
    try:
        target.write_text(json.dumps(doc, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as exc:
        raise format_error(target, f"cannot write ({exc.strerror or exc})") from None


def read_sidecar(path: str | Path, data: bytes) -> Sidecar | None:
    """The sidecar of the edge list ``path`` (bytes ``data``), or None when there is none.

    Raises
    ------
    GraphFormatError
        Naming the sidecar: not a regular file, over the size bound, not strict JSON (NaN, a key
        given twice), not a sidecar (wrong fields or types, more nodes than the ``nodes``
        budget, a node listed twice), or written for other bytes than the edge list now holds.
    """
    target = sidecar_path(path)
    if not target.exists():
        return None
    raw = read_bytes(target)
    try:
        doc = strict_json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise format_error(target, f"not strict JSON ({str(exc).split(';')[0]})") from None
    nodes = doc.get("nodes") if isinstance(doc, dict) else None
    if (
        not isinstance(doc, dict)
        or doc.get("robustgraph") != _TAG
        or doc.get("version") != 1
        or not isinstance(doc.get("directed"), bool)
        or not isinstance(nodes, list)
        or not all(isinstance(x, str) for x in nodes)
        or not isinstance(doc.get("sha256"), str)
    ):
        raise format_error(
            target, "not a robustgraph edge list sidecar (robustgraph, version, directed, nodes, "
            "sha256)"
        )
    check_node_count(target, len(nodes))
    if len(set(nodes)) != len(nodes):
        twice = next(x for x, count in Counter(nodes).items() if count > 1)
        raise format_error(target, f"lists the node {twice!r} twice")
    if hashlib.sha256(data).hexdigest() != doc["sha256"]:
        raise format_error(
            path,
            f"was changed after its sidecar {target.name} was written (the digests differ): "
            "delete the sidecar and pass --directed or --undirected",
        )
    return Sidecar(doc["directed"], tuple(nodes))
