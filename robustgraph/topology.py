"""The Topology value: an immutable communication graph with in-neighbour sets.

A directed edge ``u -> v`` means **v hears u**: robustness counts in-neighbours (LeBlanc et al.
2013). An undirected graph is the symmetric digraph. Every other part of robustgraph works on a
Topology (``robustgraph.graphs.as_topology`` converts what callers hold), so the rules (no
self-loops, no multi-edges, labels kept in order) live here once. A Topology reads like a
read-only networkx graph: ``len``, iteration and ``in`` over node labels, ``nodes``, ``edges()``.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
import warnings
from collections.abc import Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from json.encoder import encode_basestring
from typing import TYPE_CHECKING, Any

from robustgraph.errors import GraphFormatError

if TYPE_CHECKING:  # numpy loads only where a method uses it: `info` on a small file never does
    import numpy as np

__all__ = ["Topology", "Label"]

Label = Hashable

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
"""Unicode category Cc (the C0 and C1 control characters)."""


@dataclass(frozen=True, eq=False)
class Topology:
    """An immutable graph or digraph over labelled nodes, stored as in-neighbour index sets.

    Build one with :meth:`from_edges`, :meth:`from_networkx`, :meth:`from_igraph`, or
    ``robustgraph.io.read``. Node ``i`` has label ``labels[i]``; ``in_neighbors[i]`` is the set of
    indices ``j`` with an edge ``j -> i`` (for undirected graphs: the neighbours of ``i``).

    Parameters
    ----------
    labels : tuple
        Node labels in order; unique, hashable (ints or strings in practice), and unique as
        text too (``1`` and ``"1"`` together are refused: the content hash compares text).
    directed : bool
        Whether edges are arcs. An undirected Topology has symmetric in-neighbour sets.
    in_neighbors : tuple of frozenset of int
        ``in_neighbors[i]``: indices of the nodes that node ``i`` hears.

    Examples
    --------
    >>> t = Topology.from_edges([("a", "b"), ("b", "c")])
    >>> t.n, t.m, t.directed
    (3, 2, False)
    >>> sorted(t.in_neighbors[1])
    [0, 2]
    >>> len(t), "b" in t, list(t), t.nodes
    (3, True, ['a', 'b', 'c'], ('a', 'b', 'c'))

    Notes
    -----
    Equality compares labels (in order), the directed flag and the edges. The content hash
    (:attr:`content_hash`) ignores label order, so certificates bind to the graph, not to the
    order a file listed it in.
    """

    labels: tuple[Label, ...]
    directed: bool
    in_neighbors: tuple[frozenset[int], ...]
    _index: dict[Label, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if len(self.in_neighbors) != len(self.labels):
            raise GraphFormatError("in_neighbors must have one entry per label")
        index = self._check_labels()
        n = len(self.labels)
        for i, nbrs in enumerate(self.in_neighbors):
            if i in nbrs:
                raise GraphFormatError(f"self-loop at node {self.labels[i]!r}")
            if any(not 0 <= j < n for j in nbrs):
                raise GraphFormatError(
                    f"in-neighbour index out of range at node {self.labels[i]!r}"
                )
        if not self.directed:
            for i, nbrs in enumerate(self.in_neighbors):
                for j in nbrs:
                    if i not in self.in_neighbors[j]:
                        raise GraphFormatError("undirected Topology needs symmetric neighbour sets")
        object.__setattr__(self, "_index", index)

    def _check_labels(self) -> dict[Label, int]:
        """The label -> index map, after checking labels are unique, also as text (Unicode NFC),
        and free of control characters.

        O(total label length) in C: the texts are joined once for the control-character search
        and the ASCII test; only non-ASCII text is normalised label by label, and integer labels
        need neither.
        """
        index = {label: i for i, label in enumerate(self.labels)}
        if len(index) != len(self.labels):
            raise GraphFormatError("node labels must be unique")
        if set(map(type, self.labels)) == {int}:
            return index  # distinct ints print as distinct ASCII digits
        strings = list(map(str, self.labels))
        joined = " ".join(strings)
        if joined.isascii():
            texts = dict(zip(strings, self.labels, strict=True))
        else:
            normal = [unicodedata.normalize("NFC", t) for t in strings]
            texts = dict(zip(normal, self.labels, strict=True))
        if len(texts) != len(self.labels):  # the content hash and text formats compare text
            seen: dict[str, Label] = {}
            for label in self.labels:
                other = seen.setdefault(unicodedata.normalize("NFC", str(label)), label)
                if other is not label:
                    raise GraphFormatError(
                        f"node labels {other!r} and {label!r} read the same as text (Unicode "
                        "NFC); the content hash and the text formats could not tell them apart"
                    )
        if _CONTROL.search(joined):
            control = next(t for t in texts if _CONTROL.search(t))
            raise GraphFormatError(
                f"node label {texts[control]!r} holds a control character (NUL, tab, newline, "
                "...); text formats and certificates could not hold it"
            )
        return index

    # ----------------------------------------------------------------- construction
    @classmethod
    def from_edges(
        cls,
        edges: Iterable[tuple[Label, Label]],
        *,
        nodes: Iterable[Label] | None = None,
        directed: bool = False,
        drop_invalid: bool = False,
        source: str = "edge list",
    ) -> Topology:
        """Build a Topology from labelled edges.

        Parameters
        ----------
        edges : iterable of (u, v)
            For a digraph, ``(u, v)`` is the arc ``u -> v``: v hears u.
        nodes : iterable of labels, optional
            Node order (and isolated nodes). Nodes first seen in ``edges`` are appended in order.
        directed : bool
            Whether the edges are arcs.
        drop_invalid : bool
            Drop self-loops and repeated edges with a warning instead of raising.
        source : str
            Where the edges came from, for error messages.

        Raises
        ------
        GraphFormatError
            On a self-loop or a repeated edge (unless ``drop_invalid``).
        """
        labels: list[Label] = []
        index: dict[Label, int] = {}
        for label in nodes or ():
            if label in index:
                raise GraphFormatError(f"{source}: node {label!r} listed twice")
            index[label] = len(labels)
            labels.append(label)
        tails: list[int] = []
        heads: list[int] = []
        for u, v in edges:
            for label in (u, v):
                if label not in index:
                    index[label] = len(labels)
                    labels.append(label)
            tails.append(index[u])
            heads.append(index[v])
        return cls.from_index_arrays(
            labels, tails, heads, directed=directed, drop_invalid=drop_invalid, source=source
        )

    @classmethod
    def from_networkx(cls, graph: Any, *, drop_invalid: bool = False) -> Topology:
        """Build a Topology from a networkx Graph or DiGraph (multigraphs: see ``drop_invalid``)."""
        if graph.is_multigraph():
            edges = list(graph.edges(keys=False))
        else:
            edges = list(graph.edges())
        return cls.from_edges(
            edges,
            nodes=list(graph.nodes()),
            directed=graph.is_directed(),
            drop_invalid=drop_invalid,
            source="networkx graph",
        )

    @classmethod
    def from_igraph(cls, graph: Any, *, drop_invalid: bool = False) -> Topology:
        """Build a Topology from an igraph Graph; labels from the ``name`` attribute if present."""
        if "name" in graph.vs.attributes():
            names = list(graph.vs["name"])
        else:
            names = list(range(graph.vcount()))
        from robustgraph.edge_arrays import igraph_edge_arrays

        tails, heads = igraph_edge_arrays(graph)
        return cls.from_index_arrays(
            names,
            tails,
            heads,
            directed=graph.is_directed(),
            drop_invalid=drop_invalid,
            source="igraph graph",
        )

    @classmethod
    def from_in_neighbors(
        cls,
        in_neighbors: Sequence[Iterable[int]],
        *,
        directed: bool,
        labels: Sequence[Label] | None = None,
    ) -> Topology:
        """Build a Topology straight from index in-neighbour sets (labels default to 0..n-1)."""
        n = len(in_neighbors)
        return cls(
            tuple(labels) if labels is not None else tuple(range(n)),
            directed,
            tuple(frozenset(s) for s in in_neighbors),
        )

    @classmethod
    def from_index_arrays(
        cls,
        labels: Sequence[Label],
        tails: Any,
        heads: Any,
        *,
        directed: bool,
        drop_invalid: bool = False,
        source: str = "edge list",
    ) -> Topology:
        """Build a Topology from edges given as two integer arrays of node indices.

        The fast path behind :meth:`from_edges`, :meth:`from_igraph` and the file readers:
        ``(tails[k], heads[k])`` is the arc ``tails[k] -> heads[k]`` (for a graph, the edge
        between them).

        Parameters
        ----------
        labels : sequence of labels
            Node ``i`` has label ``labels[i]``.
        tails, heads : array-like of int
            Edge endpoints as indices into ``labels``.
        directed : bool
            Whether the edges are arcs.
        drop_invalid : bool
            Drop self-loops and repeated edges with one warning instead of raising.
        source : str
            Where the edges came from, for error messages.

        Raises
        ------
        GraphFormatError
            On an index out of range, or a self-loop or repeated edge (unless ``drop_invalid``),
            naming the labels.

        Examples
        --------
        >>> Topology.from_index_arrays(["a", "b", "c"], [0, 1], [1, 2], directed=True).edges()
        [('a', 'b'), ('b', 'c')]

        Notes
        -----
        O(n + m) in Python up to ``robustgraph.edge_arrays.SMALL_EDGES`` edges (no numpy
        import); above it O(n + m log m) in numpy, the Python work one frozenset per node.
        """
        import robustgraph.edge_arrays as arrays  # numpy only for a large graph

        n = len(labels)
        if len(tails) != len(heads):
            raise GraphFormatError(f"{source}: tails and heads differ in length")
        u, v = arrays.index_arrays(tails, heads)
        low, high = arrays.index_bounds(u, v)
        if low < 0 or high >= n:
            raise GraphFormatError(f"{source}: edge endpoint index out of range 0..{n - 1}")
        if bad := arrays.invalid_positions(u, v, n, directed):
            first = arrays.edge_problem(labels, int(u[bad[0]]), int(v[bad[0]]), directed)
            if not drop_invalid:
                raise GraphFormatError(f"{source}: {first} (use drop_invalid to drop it)")
            dropped = f"{source}: dropped {len(bad)} invalid edge(s), first: {first}"
            warnings.warn(dropped, stacklevel=3)
            u, v = arrays.drop_edges(u, v, bad)
        return cls._assemble(labels, u, v, directed=directed, source=source)

    @classmethod
    def _assemble(
        cls, labels: Sequence[Label], u: np.ndarray, v: np.ndarray, *, directed: bool, source: str
    ) -> Topology:
        """The Topology of index arrays already free of self-loops and repeats (in range).

        Lists (a small graph) become :attr:`in_neighbors` at once. Numpy edges are kept as the
        two arrays (for a graph, each edge once) and become
        :attr:`in_neighbors` on first use: grouping them and building 20,000 frozensets was
        most of a large read, and ``n``, ``m``, degrees and the library conversions need
        neither.
        """
        topology = object.__new__(cls)  # the checks of __post_init__ hold by construction
        object.__setattr__(topology, "labels", tuple(labels))
        object.__setattr__(topology, "directed", bool(directed))
        if isinstance(u, list):  # a small graph (robustgraph.edge_arrays.index_arrays)
            heard: list[set[int]] = [set() for _ in labels]
            for tail, head in zip(u, v, strict=True):
                heard[head].add(tail)
                if not directed:
                    heard[tail].add(head)
            object.__setattr__(topology, "in_neighbors", tuple(map(frozenset, heard)))
        else:
            object.__setattr__(topology, "_arcs", (u, v))
        try:
            object.__setattr__(topology, "_index", topology._check_labels())
        except GraphFormatError as exc:
            raise GraphFormatError(f"{source}: {exc}") from None
        return topology

    def __getattr__(self, name: str) -> Any:
        """Build :attr:`in_neighbors` from the arc arrays of :meth:`_assemble` on first use.

        O(m log m): one sort of the arcs by head, then one frozenset per node.
        """
        arcs = self.__dict__.get("_arcs") if name == "in_neighbors" else None
        if arcs is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        import numpy as np

        tails, heads = arcs
        if not self.directed:  # an edge is heard both ways
            tails, heads = np.concatenate([tails, heads]), np.concatenate([heads, tails])
        by_head = np.argsort(heads, kind="stable")
        bounds = np.searchsorted(heads[by_head], np.arange(len(self.labels) + 1)).tolist()
        grouped = tails[by_head].tolist()
        ins = tuple(frozenset(grouped[bounds[i] : bounds[i + 1]]) for i in range(len(bounds) - 1))
        object.__setattr__(self, "in_neighbors", ins)
        return ins

    # ----------------------------------------------------------------- views
    @property
    def n(self) -> int:
        """Number of nodes."""
        return len(self.labels)

    @property
    def nodes(self) -> tuple[Label, ...]:
        """The node labels in order (as networkx's ``G.nodes``; the same as :attr:`labels`)."""
        return self.labels

    def __len__(self) -> int:
        return len(self.labels)

    def __iter__(self) -> Iterator[Label]:
        return iter(self.labels)

    def __contains__(self, label: object) -> bool:
        try:
            return label in self._index
        except TypeError:  # an unhashable object is no node
            return False

    def in_order(self, labels: Iterable[Label]) -> list[Label]:
        """Node labels sorted in the graph's node order (``KeyError`` names an unknown one)."""
        return sorted(labels, key=self.index)

    @cached_property
    def m(self) -> int:
        """Number of edges (arcs for a digraph, unordered pairs for a graph)."""
        arcs = self.__dict__.get("_arcs")
        if arcs is not None:
            return len(arcs[0])
        total = sum(len(s) for s in self.in_neighbors)
        return total if self.directed else total // 2

    @cached_property
    def in_masks(self) -> tuple[int, ...]:
        """In-neighbour sets as bitmasks: bit ``j`` of ``in_masks[i]`` is set iff ``j -> i``."""
        return tuple(sum(1 << j for j in s) for s in self.in_neighbors)

    @cached_property
    def out_neighbors(self) -> tuple[frozenset[int], ...]:
        """Out-neighbour index sets: ``j`` is in ``out_neighbors[i]`` iff ``i -> j`` (j hears i)."""
        outs: list[set[int]] = [set() for _ in self.labels]
        for i, nbrs in enumerate(self.in_neighbors):
            for j in nbrs:
                outs[j].add(i)
        return tuple(frozenset(s) for s in outs)

    @cached_property
    def in_degrees(self) -> tuple[int, ...]:
        """In-degree of every node (the degree, for an undirected graph)."""
        arcs = self.__dict__.get("_arcs")
        if arcs is not None:
            import numpy as np

            heard = np.bincount(arcs[1], minlength=len(self.labels))
            if not self.directed:
                heard += np.bincount(arcs[0], minlength=len(self.labels))
            return tuple(heard.tolist())
        return tuple(len(s) for s in self.in_neighbors)

    def index(self, label: Label) -> int:
        """Index of the node with this label; ``KeyError`` names the label when absent."""
        try:
            return self._index[label]
        except KeyError:
            raise KeyError(f"no node labelled {label!r}") from None

    def edge_indices(self) -> list[tuple[int, int]]:
        """Edges as index pairs ``(u, v)``; for a graph each edge once with ``u < v``."""
        if self.directed:
            return sorted((j, i) for i, s in enumerate(self.in_neighbors) for j in s)
        return sorted((j, i) for i, s in enumerate(self.in_neighbors) for j in s if j < i)

    def edges(self) -> list[tuple[Label, Label]]:
        """Edges as label pairs, in index order (arcs ``u -> v`` for a digraph)."""
        return [(self.labels[u], self.labels[v]) for u, v in self.edge_indices()]

    def names(self, indices: Iterable[int]) -> list[Label]:
        """Labels of a set of node indices, in index order."""
        return [self.labels[i] for i in sorted(indices)]

    @cached_property
    def content_hash(self) -> str:
        """Canonical SHA-256 of the graph: ``sha256:<hex>``.

        Hashes the JSON of ``directed``, the sorted node labels and the sorted labelled edge list
        (labels as strings; an undirected edge as its sorted pair). Node order does not change
        it; adding or removing one node or edge does. Isolated nodes are part of the hash because
        they change robustness (a graph with an isolated node is 0-robust).

        Notes
        -----
        One sort of the labels' texts; the edges as integers (pairs of text ranks, which order
        as the text pairs do, the texts being unique) sorted (by numpy past
        ``edge_arrays.SMALL_EDGES`` arcs); one buffer hashed: about
        0.5 s at 10^5 nodes and 2 x 10^5 edges, where sorting lists of strings took 1.5-4 s
        (issue 32).
        """
        from robustgraph.edge_arrays import edge_codes  # numpy only for a large graph

        n = self.n
        texts = [str(x) for x in self.labels]
        order = sorted(range(n), key=texts.__getitem__)
        rank = [0] * n
        for r, i in enumerate(order):
            rank[i] = r
        codes = edge_codes(self.in_neighbors, rank, self.directed)
        quoted = [encode_basestring(texts[i]) for i in order]  # by rank; json.dumps's quoting
        edges = ",".join(f"[{quoted[c // n]},{quoted[c % n]}]" for c in codes)
        flag = "true" if self.directed else "false"
        text = f'{{"directed":{flag},"nodes":[{",".join(quoted)}],"edges":[{edges}]}}'
        blob = text.encode()
        return "sha256:" + hashlib.sha256(blob).hexdigest()

    # ----------------------------------------------------------------- conversions
    def to_networkx(self) -> Any:
        """A new networkx Graph or DiGraph with the same labels (in order) and edges."""
        import networkx as nx

        g = nx.DiGraph() if self.directed else nx.Graph()
        g.add_nodes_from(self.labels)
        g.add_edges_from(self.edges())
        return g

    def to_igraph(self) -> Any:
        """A new igraph Graph; labels are kept in the vertex attribute ``name``."""
        import igraph as ig

        g = ig.Graph(n=self.n, edges=self.edge_indices(), directed=self.directed)
        g.vs["name"] = list(self.labels)
        return g

    # ----------------------------------------------------------------- value semantics
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Topology):
            return NotImplemented
        return (self.labels, self.directed, self.in_neighbors) == (
            other.labels,
            other.directed,
            other.in_neighbors,
        )

    def __hash__(self) -> int:
        return hash((self.labels, self.directed, self.in_neighbors))

    def __repr__(self) -> str:
        kind = "digraph" if self.directed else "graph"
        return f"Topology({kind}, n={self.n}, m={self.m}, {self.content_hash[:19]})"

    def _repr_html_(self) -> str:
        """The notebook view: kind, n, m and the content hash."""
        from html import escape

        kind = "directed" if self.directed else "undirected"
        return (
            f"<b>Topology</b> ({kind}): n = {self.n}, m = {self.m}, "
            f"<code>{escape(self.content_hash)}</code>"
        )
