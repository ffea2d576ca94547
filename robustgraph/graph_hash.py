"""The canonical content hash of a graph, which certificates bind to (DESIGN.md, "a Topology").

__all__: ``content_hash``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Hashable, Sequence
from json.encoder import encode_basestring

from robustgraph.edge_arrays import edge_codes

__all__ = ["content_hash"]


def content_hash(
    labels: Sequence[Hashable], in_neighbors: Sequence[Sequence[int]], directed: bool
) -> str:
    """Canonical SHA-256 of a graph: ``sha256:<hex>``.

    Hashes the JSON of ``directed``, the sorted node labels and the sorted labelled edge list
    (labels as strings; an undirected edge as its sorted pair). Node order does not change
    it; adding or removing one node or edge does. Isolated nodes are part of the hash because
    they change robustness (a graph with an isolated node is 0-robust).

    Parameters
    ----------
    labels : sequence of hashable
        The node labels, index ``i`` naming node ``i``.
    in_neighbors : sequence of sequences of int
        ``in_neighbors[h]``: the tails of the arcs into ``h`` (an undirected edge in both).
    directed : bool
        Whether the graph is a digraph.

    Returns
    -------
    str
        ``"sha256:"`` and 64 hex digits.

    Examples
    --------
    >>> a = content_hash(["a", "b"], [[1], [0]], False)
    >>> a == content_hash(["b", "a"], [[1], [0]], False) and a.startswith("sha256:")
    True

    Notes
    -----
    One sort of the labels' texts; the edges as integers (pairs of text ranks, which order
    as the text pairs do, the texts being unique) sorted (by numpy past
    ``edge_arrays.SMALL_EDGES`` arcs); one buffer hashed: about 0.5 s at 10^5 nodes and
    2 x 10^5 edges, where sorting lists of strings took 1.5-4 s (issue 32).
    """
    n = len(labels)
    texts = [str(x) for x in labels]
    order = sorted(range(n), key=texts.__getitem__)
    rank = [0] * n
    for r, i in enumerate(order):
        rank[i] = r
    codes = edge_codes(in_neighbors, rank, directed)
    quoted = [encode_basestring(texts[i]) for i in order]  # by rank; json.dumps's quoting
    edges = ",".join(f"[{quoted[c // n]},{quoted[c % n]}]" for c in codes)
    flag = "true" if directed else "false"
    text = f'{{"directed":{flag},"nodes":[{",".join(quoted)}],"edges":[{edges}]}}'
    blob = text.encode()
    return "sha256:" + hashlib.sha256(blob).hexdigest()
