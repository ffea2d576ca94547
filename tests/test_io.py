"""Graph I/O: round trips through every format, files written by networkx and igraph, and
one-line errors for malformed files."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import igraph as ig
import networkx as nx
import pytest
import scipy.io
from conftest import topologies
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from robustgraph.errors import GraphFormatError
from robustgraph.io import FORMATS, read, resolve_format, write
from robustgraph.topology import Topology

FIXTURES = Path(__file__).parent / "fixtures" / "graphs"

# An undirected and a directed graph on nodes 0..6, each with an isolated node and a node that
# appears in the edges out of label order (so edge lists need their node lines).
UNDIRECTED = Topology.from_edges(
    [(0, 3), (3, 1), (1, 2), (2, 0), (0, 1), (4, 5)], nodes=range(7), directed=False
)
DIRECTED = Topology.from_edges(
    [(0, 3), (3, 1), (1, 0), (2, 0), (1, 2), (5, 4), (4, 5)], nodes=range(7), directed=True
)
NAMED = Topology.from_edges(
    [("hub", "a1"), ("a1", "b-2"), ("b-2", "hub"), ("hub", "Zoë")],
    nodes=["a1", "hub", "b-2", "Zoë", "lone"],
    directed=False,
)


def _cases() -> list[tuple[str, Topology]]:
    """Every format with every graph it can hold (NAMED needs labels, digraphs need arcs)."""
    single = Topology.from_edges([], nodes=[0])
    graphs = [UNDIRECTED, DIRECTED, NAMED, single]
    return [
        (name, g)
        for name, fmt in FORMATS.items()
        for g in graphs
        if (fmt.directed or not g.directed) and (fmt.labels or g is not NAMED)
    ]


KIND_NOT_WRITTEN = {"lgl"}
"""Formats with no place to record the kind: read back with ``directed`` given."""


def _read_back(path: Path, fmt: str, graph: Topology) -> Topology:
    return read(path, directed=graph.directed if fmt in KIND_NOT_WRITTEN else None)


def _path(tmp_path: Path, fmt: str, suffix: str = "") -> Path:
    return tmp_path / f"g{FORMATS[fmt].extensions[0]}{suffix}"


@pytest.mark.parametrize(
    "fmt,graph", _cases(), ids=lambda x: x if isinstance(x, str) else f"n{x.n}m{x.m}d{x.directed:d}"
)
def test_round_trip_through_our_writer_and_reader(tmp_path, fmt, graph):
    path = _path(tmp_path, fmt)
    write(graph, path)
    back = _read_back(path, fmt, graph)
    assert back == graph  # labels in order, kind, edges
    assert back.content_hash == graph.content_hash


@pytest.mark.parametrize("fmt", list(FORMATS))
@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(graph=topologies(max_n=7))
def test_round_trip_random_graphs(tmp_path, fmt, graph):
    if graph.directed and not FORMATS[fmt].directed:
        return
    path = _path(tmp_path, fmt)
    write(graph, path)
    assert _read_back(path, fmt, graph) == graph


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz"])
def test_compressed_files_round_trip(tmp_path, suffix):
    path = tmp_path / f"g.graphml{suffix}"
    write(DIRECTED, path)
    assert path.read_bytes()[:5] != b"<?xml"
    assert read(path) == DIRECTED


@pytest.mark.parametrize("fmt", ["graph6", "sparse6", "mtx"])
def test_label_free_formats_warn_and_write_indices(tmp_path, fmt):
    path = _path(tmp_path, fmt)
    with pytest.warns(UserWarning, match="stores no node labels"):
        write(NAMED, path)
    back = read(path)
    assert back.labels == tuple(range(NAMED.n))
    assert back.edge_indices() == NAMED.edge_indices()


@pytest.mark.parametrize("fmt", ["graph6", "sparse6"])
def test_writing_a_digraph_to_an_undirected_only_format_is_an_error(tmp_path, fmt):
    with pytest.raises(GraphFormatError, match="undirected graphs only"):
        write(DIRECTED, _path(tmp_path, fmt))


# ----------------------------------------------------------------- files written by others
def _same(ours: Topology, theirs: Topology) -> None:
    assert (ours.n, ours.m, ours.directed) == (theirs.n, theirs.m, theirs.directed)
    assert set(ours.labels) == set(theirs.labels)
    assert ours.content_hash == theirs.content_hash


LABELS = {
    "free": ["n0", "alpha", "β", "x y", "7", "-3"],  # formats that quote labels
    "plain": ["v0", "v1", "v2", "v3", "v4", "v5"],  # whitespace-separated text
    "index": list(range(6)),  # formats without labels: nodes are 0..n-1
}


def _nx_graph(directed: bool, labels: str) -> nx.Graph:
    """A graph without isolated nodes (edge lists written by networkx drop them)."""
    g = nx.DiGraph() if directed else nx.Graph()
    names = LABELS[labels]
    edges = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 1), (5, 2), (0, 5)]
    g.add_weighted_edges_from((names[u], names[v], 2.5) for u, v in edges)
    return g


def _node_link(key):
    def dump(g, path):
        Path(path).write_text(json.dumps(nx.node_link_data(g, edges=key)))

    return dump


def _mmwrite(g, path):
    scipy.io.mmwrite(path, nx.to_scipy_sparse_array(g, nodelist=sorted(g)))


NX_WRITERS = {  # name: (extension, writer, labels, digraphs too)
    "edgelist": ("edges", nx.write_edgelist, "plain", True),
    "edgelist-nodata": ("edges", lambda g, p: nx.write_edgelist(g, p, data=False), "plain", True),
    "edgelist-weighted": ("txt", nx.write_weighted_edgelist, "plain", True),
    "edgelist-int": ("edges", lambda g, p: nx.write_edgelist(g, p, data=False), "index", True),
    "adjlist": ("adjlist", nx.write_adjlist, "plain", True),
    "graphml": ("graphml", nx.write_graphml, "free", True),
    "gml": ("gml", nx.write_gml, "free", True),
    "json-edges": ("json", _node_link("edges"), "free", True),
    "json-links": ("json", _node_link("links"), "free", True),
    "graph6": ("g6", nx.write_graph6, "index", False),
    "sparse6": ("s6", nx.write_sparse6, "index", False),
    "mtx-scipy": ("mtx", _mmwrite, "index", True),
}
NX_CASES = [
    (name, directed)
    for name, (_, _, _, digraphs) in NX_WRITERS.items()
    for directed in ([False, True] if digraphs else [False])
]


@pytest.mark.parametrize(
    "name,directed", NX_CASES, ids=[f"{n}-{'di' if d else 'un'}" for n, d in NX_CASES]
)
def test_files_written_by_networkx_read_back_to_the_same_topology(tmp_path, name, directed):
    ext, write_fn, labels, _ = NX_WRITERS[name]
    g = _nx_graph(directed, labels)
    path = tmp_path / f"nx.{ext}"
    write_fn(g, str(path))
    # edge and adjacency lists do not record the kind, so say it; other formats record it
    records_kind = FORMATS[resolve_format(path).name].records_kind
    ours = read(path, directed=None if records_kind else directed)
    _same(ours, Topology.from_networkx(g))


def _ig_graph(directed: bool) -> ig.Graph:
    edges = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 1), (5, 2), (0, 5)]
    return ig.Graph(n=6, edges=edges, directed=directed)


@pytest.mark.parametrize("directed", [False, True], ids=["graph", "digraph"])
@pytest.mark.parametrize(
    "writer,ext,names",
    [
        ("write_edgelist", "edges", None),
        ("write_ncol", "ncol", ["a", "b", "c", "d", "e", "f"]),
        ("write_graphml", "graphml", ["a", "b", "c", "d", "e", "f"]),
        ("write_graphml", "graphml", [10, 11, 12, 13, 14, 15]),
        ("write_gml", "gml", ["a", "b", "c", "d", "e", "f"]),
        ("write_gml", "gml", [10, 11, 12, 13, 14, 15]),
    ],
    ids=["edgelist", "ncol", "graphml-str", "graphml-int", "gml-str", "gml-int"],
)
def test_files_written_by_igraph_read_back_to_the_same_topology(
    tmp_path, writer, ext, names, directed
):
    g = _ig_graph(directed)
    if names is not None:
        g.vs["name"] = names
    path = tmp_path / f"ig.{ext}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # ncol: "no weight attribute"
        getattr(g, writer)(str(path))
    ours = read(
        path, directed=None if FORMATS[resolve_format(path).name].records_kind else directed
    )
    _same(ours, Topology.from_igraph(g))


def test_igraph_and_networkx_read_our_files(tmp_path):
    for fmt, reader in [("graphml", nx.read_graphml), ("gml", nx.read_gml)]:
        path = _path(tmp_path, fmt)
        write(DIRECTED, path)
        theirs = reader(path)
        assert theirs.is_directed() and theirs.number_of_edges() == DIRECTED.m
    path = _path(tmp_path, "graphml")
    write(NAMED, path)
    assert ig.Graph.Read_GraphML(str(path)).ecount() == NAMED.m
    path = tmp_path / "g.edges"
    write(DIRECTED, path)
    theirs = nx.read_edgelist(path, create_using=nx.DiGraph, nodetype=int)
    assert theirs.number_of_edges() == DIRECTED.m


@settings(max_examples=60, deadline=None)
@given(graph=topologies(max_n=70, directed=False))
def test_graph6_codec_matches_networkx_byte_for_byte(graph):
    from robustgraph.io.graph6 import _graph6_bytes

    ours = _graph6_bytes(graph)
    assert ours == nx.to_graph6_bytes(graph.to_networkx(), header=False)


@pytest.mark.parametrize("n", [0, 1, 62, 63, 258047, 258048, 10**9])
def test_graph6_node_count_codes_match_networkx(n):
    import numpy as np
    from networkx.readwrite.graph6 import n_to_data

    from robustgraph.io.graph6 import _n_code, _size

    assert _n_code(n) == bytes(x + 63 for x in n_to_data(n))
    assert _size("f", np.frombuffer(_n_code(n), dtype=np.uint8).astype(np.int64) - 63, "")[0] == n


# ----------------------------------------------------------------- reading rules
def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_labels_become_ints_only_when_all_are_canonical_integers(tmp_path):
    assert read(_write(tmp_path, "a.edges", "1 2\n-3 1\n"), directed=False).labels == (1, 2, -3)
    b = read(_write(tmp_path, "b.edges", "1 02\n3 1\n"), directed=False)
    assert b.labels == ("1", "02", "3")
    assert read(_write(tmp_path, "c.edges", "1 x\n"), directed=False).labels == ("1", "x")
    doc = {
        "directed": False,
        "nodes": [{"id": "1"}, {"id": 2}],
        "edges": [{"source": "1", "target": 2}],
    }
    assert read(_write(tmp_path, "d.json", json.dumps(doc))).labels == ("1", 2)  # JSON keeps types


def test_directed_comment_is_honoured_and_conflicts_are_errors(tmp_path):
    path = _write(tmp_path, "g.edges", "# directed\na b\nb a\n")
    assert read(path).directed and read(path).m == 2
    with pytest.raises(GraphFormatError, match="declares a directed graph but undirected"):
        read(path, directed=False)
    plain = _write(tmp_path, "h.edges", "a b\n")
    assert not read(plain, directed=False).directed and read(plain, directed=True).directed
    with pytest.raises(GraphFormatError, match="does not say whether it is directed"):
        read(plain)  # 'a b' without 'b a': a graph or a digraph? Never guessed.
    assert not read(_write(tmp_path, "s.edges", "a b\nb a\n")).directed  # symmetric: a graph
    graphml = '<graphml><graph edgedefault="undirected"><node id="a"/></graph></graphml>'
    with pytest.raises(GraphFormatError, match="declares an undirected graph but directed"):
        read(_write(tmp_path, "u.graphml", graphml), directed=True)


def test_header_lines_and_extra_columns(tmp_path):
    t = read(_write(tmp_path, "g.edges", "# undirected\nfrom to weight\na b 1.5\nb c 2\n"))
    assert t.edges() == [("a", "b"), ("b", "c")]
    csv = _write(tmp_path, "g.csv", 'Source,Target,Weight\n"x, y",b,1\nb,c,2\nd,,\n')
    t = read(csv, directed=False)
    assert t.labels == ("x, y", "b", "c", "d") and t.m == 2
    t = read(_write(tmp_path, "g.tsv", "# directed\nsrc\tdst\n1\t2\n"))
    assert t.directed and t.edges() == [(1, 2)]


def test_undirected_adjlist_may_list_an_edge_from_both_ends(tmp_path):
    t = read(_write(tmp_path, "g.adjlist", "a b c\nb a\nc a\nd\n"))
    assert t.m == 2 and t.labels == ("a", "b", "c", "d")
    d = read(_write(tmp_path, "d.adjlist", "a b\nb a\n"), directed=True)
    assert d.m == 2


def test_matrix_market_layouts(tmp_path):
    dense = "%%MatrixMarket matrix array real symmetric\n3 3\n0\n1\n0\n0\n2.5\n0\n"
    t = read(_write(tmp_path, "a.mtx", dense))
    assert not t.directed and t.edges() == [(0, 1), (1, 2)]
    general = "%%MatrixMarket matrix coordinate integer general\n% c\n3 3 2\n1 2 1\n2 1 1\n"
    assert read(_write(tmp_path, "b.mtx", general)).directed
    assert read(tmp_path / "b.mtx", directed=False).edges() == [(0, 1)]
    zero = general.replace("3 3 2", "3 3 3") + "3 1 0\n"  # a listed entry is an edge: 0 refused
    with pytest.raises(GraphFormatError, match=r"entry \(3, 1\) is an explicit 0"):
        read(_write(tmp_path, "c.mtx", zero))
    with pytest.raises(GraphFormatError, match=r"entry \(2, 1\) has no mirror"):
        read(FIXTURES / "not_symmetric.mtx", directed=False)


def test_drop_invalid_drops_with_one_warning(tmp_path):
    with pytest.warns(UserWarning, match=r"dropped 2 .*first: line 4: self-loop at node 2"):
        path = _write(tmp_path, "g.edges", "0 1\n1 2\n\n2 2\n1 0\n")
        t = read(path, directed=False, drop_invalid=True)
    assert t.m == 2 and t.edges() == [(0, 1), (1, 2)]
    s6 = tmp_path / "m.s6"
    nx.write_sparse6(nx.MultiGraph([(0, 1), (0, 1), (1, 2), (2, 2)]), s6)
    with pytest.raises(GraphFormatError, match="duplicate edge 0 -- 1"):
        read(s6)
    with pytest.warns(UserWarning):
        assert read(s6, drop_invalid=True).m == 2


def test_format_names_and_extensions():
    assert resolve_format("G.GraphML").name == "graphml"
    assert resolve_format("g.edges.bz2").name == "edgelist"
    assert resolve_format("anything", "JSON").name == "json"
    assert resolve_format("x", ".mtx").name == "mtx"
    assert resolve_format("g.net").name == "pajek"
    with pytest.raises(GraphFormatError, match="unknown format 'xyz'"):
        resolve_format("g.net", "xyz")
    with pytest.raises(GraphFormatError, match="no extension"):
        resolve_format("graph")


def test_writers_refuse_labels_the_format_cannot_hold(tmp_path):
    spaced = Topology.from_edges([("a b", "c")])
    with pytest.raises(GraphFormatError, match="cannot be written"):
        write(spaced, tmp_path / "g.edges")
    write(spaced, tmp_path / "g.csv")
    assert read(tmp_path / "g.csv") == spaced
    hashed = Topology.from_edges([("#1", "c")])
    write(hashed, tmp_path / "h.csv")
    assert read(tmp_path / "h.csv") == hashed
    with pytest.raises(GraphFormatError, match="without nodes"):
        write(Topology.from_edges([]), tmp_path / "e.json")
    with pytest.raises(GraphFormatError, match="cannot write"):
        write(UNDIRECTED, tmp_path / "missing-dir" / "g.json")


_CORRUPT = """
import sys
from pathlib import Path
sys.path.insert(0, "benchmarks")
import fuzz_native
fmt, folder = sys.argv[1], Path(sys.argv[2])
seeds = fuzz_native._seed_files(fmt, folder)
found = [fuzz_native.run_case(fmt, case, 7, seeds, folder) for case in range(150)]
print([x for x in found if x])
"""


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_corrupted_files_raise_only_graph_format_errors(tmp_path, fmt):
    """150 fixed cases of edits (set, insert, delete, truncate) of a valid file: each read
    fails cleanly or gives a graph. In a child process, so a native parser's crash fails this
    test instead of the suite; random fuzzing, 10,000 cases a format, is
    benchmarks/fuzz_native.py (its figures in docs/certificate.md)."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _CORRUPT, fmt, str(tmp_path)],
        cwd=Path(__file__).resolve().parent.parent,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.strip() == "[]", (done.returncode, done.stderr)


# ----------------------------------------------------------------- malformed files
MALFORMED = [
    ("empty.edgelist", None, "holds no nodes"),
    ("comments_only.txt", None, "holds no nodes"),
    ("bad_token.gml", None, "line 4: bad token '@'"),
    ("bad_token.mtx", None, "line 4: bad token 'x' in the matrix body (only numbers)"),
    ("unknown.xyz", None, "unknown format: extension '.xyz'"),
    ("self_loop.edgelist", None, "line 4: self-loop at node 2"),
    ("duplicate.edgelist", None, "does not say whether it is directed, and 'b' -> 'c'"),
    ("duplicate.adjlist", None, "line 2: duplicate edge 'a' -- 'b'"),
    ("bad_char.g6", None, "line 1, character 2: invalid graph6 character '0'"),
    ("bad_length.g6", None, "n = 5 needs 2 data characters after the size, found 3"),
    ("two_graphs.g6", None, "holds 2 graphs"),
    ("padding.g6", None, "line 1: nonzero padding bits"),
    ("digraph6.g6", None, "digraph6 data is not supported"),
    ("truncated.graphml", None, "line 7, column 0: malformed XML (no element found)"),
    ("undeclared_node.graphml", None, "line 5: edge #1 refers to undeclared node 'z'"),
    ("mixed.graphml", None, "line 6: mixed directed and undirected edges"),
    ("bad_encoding.graphml", None, "line 1: malformed XML (unknown encoding: UTF-9)"),
    ("truncated.gml", None, "file ends inside a list"),
    ("unknown_node.gml", None, "line 3: edge #1: endpoint 7 is not a node id"),
    ("no_nodes.json", None, "no 'nodes' list"),
    ("invalid.json", None, "line 3, column 1: invalid JSON"),
    ("bad_link.json", None, "links[0]: target 5 is not a node id"),
    ("bad_header.mtx", None, "line 1: bad Matrix Market header"),
    ("not_square.mtx", None, "line 2: an adjacency matrix must be square, found 3 x 4"),
    ("out_of_range.mtx", None, "line 4: invalid Matrix Market data (Row index out of bounds)"),
    ("truncated.mtx", None, "declares 4 entries of 2 value(s), but the body holds 4 values"),
    ("wrong_columns.csv", None, "line 3: expected 2 columns like the header on line 1, found 3"),
    ("bad_edge_data.edgelist", None, "line 2: bad token '{weight: }'"),
    ("binary.edgelist", None, "line 2: not UTF-8 text"),
    ("diamond.csv", "xyz", "unknown format 'xyz'"),
    ("does_not_exist.edgelist", None, "no such file"),
]


@pytest.mark.parametrize("name,fmt,message", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_files_give_one_line_naming_file_and_place(name, fmt, message):
    path = FIXTURES / name
    with pytest.raises(GraphFormatError) as info:
        read(path, format=fmt)
    text = str(info.value)
    assert "\n" not in text
    assert text.startswith(str(path) + ": ")
    assert message in text


# ----------------------------------------------------------------- hostile files: bounded readers
def _hostile(tmp_path: Path) -> dict[str, Path]:
    """Files built the way an attacker would: each must fail fast with one line."""
    import gzip
    import os

    files = {
        "deep.gml": "graph [ " + "x [ " * 3000 + " ]" * 3000 + " node [ id 0 ] ]",
        "long-number.gml": "graph [ node [ id 0 label " + "9" * 100_000 + " ] ]",
        "long-label.edgelist": "# undirected\n" + "9" * 100_000 + " 1\n",
        "huge.s6": ":" + chr(126) * 2 + chr(126) * 6 + "\n",
        "huge.mtx": "%%MatrixMarket matrix coordinate pattern general\n99999999 99999999 0\n",
        "deep.json": "[" * 100_000 + "]" * 100_000,
        "deep.graphml": "<graphml>" + "<a>" * 5000 + "</a>" * 5000 + "</graphml>",
        "deep.dot": "graph { " + "{ " * 3000 + "} " * 3000 + "}",
        "second-graph.dot": "graph { a -- b }\ndigraph { a -> b; b -> c }",
        "long-label.dot": 'graph { "' + "x" * 5_000 + '" }',  # Graphviz stops at 16,384
        "syntax.dot": "graph {\n a -- b;\n c -- ;\n}",
    }
    paths = {}
    for name, text in files.items():
        paths[name] = tmp_path / name
        paths[name].write_text(text)
    bomb = tmp_path / "bomb.edgelist.gz"
    with gzip.open(bomb, "wb", compresslevel=9) as out:
        block = b"0 1\n" + b" " * (1 << 20)
        for _ in range(80):  # inflates past the 64 MiB cap
            out.write(block)
    paths["bomb.edgelist.gz"] = bomb
    fifo = tmp_path / "fifo.edgelist"
    os.mkfifo(fifo)
    paths["fifo.edgelist"] = fifo
    return paths


_HOSTILE_WORDS = {
    "deep.gml": "nested more than",
    "long-number.gml": "digits",
    "long-label.edgelist": "characters",
    "huge.s6": "nodes, more than",
    "huge.mtx": "nodes, more than",
    "deep.json": "nested too deeply",
    "deep.graphml": "nested more than",
    "deep.dot": "braces nested more than 64 deep",
    "second-graph.dot": "text after the graph that ends on line 1",
    "long-label.dot": "characters",
    "syntax.dot": "Graphviz: syntax error in line 3",
    "bomb.edgelist.gz": "decompresses to more than",
    "fifo.edgelist": "not a regular file",
}


@pytest.mark.timeout(120)  # a hang guard (a FIFO blocked forever), not a timing target
@pytest.mark.parametrize("name", sorted(_HOSTILE_WORDS))
def test_hostile_files_fail_fast_with_one_line(tmp_path, name):
    path = _hostile(tmp_path)[name]
    with pytest.raises(GraphFormatError) as caught:
        read(path)
    message = str(caught.value)
    assert _HOSTILE_WORDS[name] in message and "\n" not in message and str(path) in message


def test_hostile_files_exit_2_through_every_command_that_reads_a_graph(tmp_path):
    from click.testing import CliRunner

    from robustgraph.cli import main

    paths = _hostile(tmp_path)
    out_file = str(tmp_path / "out.json")
    commands = (
        ["info"],
        ["robustness"],
        ["certify", "--r", "1", "-o", out_file],
        ["augment", "--r", "1", "-o", out_file],
    )
    for name in ("deep.gml", "fifo.edgelist", "bomb.edgelist.gz", "deep.dot", "syntax.dot"):
        for command in commands:
            out = CliRunner().invoke(main, [*command, str(paths[name])])
            assert out.exit_code == 2, (command, name, out.output)
            assert out.stderr.count("\n") == 1 and _HOSTILE_WORDS[name] in out.stderr


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(graph=topologies(max_n=7))
def test_gml_fast_path_through_igraph_agrees_with_our_parser(tmp_path, graph):
    """The igraph path is taken for plain files and gives exactly what our own parser gives."""
    from robustgraph.io import gml

    for writer in ("ours", "networkx", "igraph"):
        path = tmp_path / f"{writer}.gml"
        if writer == "ours":
            write(graph, path)
        elif writer == "networkx":
            nx.write_gml(graph.to_networkx(), path, stringizer=str)
        else:
            h = graph.to_igraph()
            h.vs["name"] = [str(x) for x in graph.labels]
            h.write_gml(str(path))
        fast = gml._read_with_igraph(path, path.read_bytes(), None, False)
        assert fast is not None, writer
        plain = path.read_text()
        slow_path = tmp_path / f"{writer}-slow.gml"
        slow_path.write_text(plain + "\n# &#33;\n")  # a reference sends it to our parser
        assert gml._read_with_igraph(slow_path, slow_path.read_bytes(), None, False) is None
        slow = read(slow_path)
        assert (fast.labels, fast.directed, fast.edges()) == (slow.labels, slow.directed,
                                                              slow.edges())


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(graph=topologies(max_n=7), weights=st.booleans())
def test_pajek_numpy_edge_path_agrees_with_igraph(tmp_path, graph, weights):
    """Plain edge sections are parsed by numpy; the same file laid out otherwise by igraph."""
    from robustgraph.io import pajek

    path = tmp_path / "plain.net"
    write(graph, path)
    text = path.read_text()
    if weights:  # networkx's layout: a weight column
        head, _, body = text.partition("*Arcs\n" if graph.directed else "*Edges\n")
        text = head + ("*Arcs\n" if graph.directed else "*Edges\n") + "".join(
            f"{line} 1.0\n" for line in body.splitlines()
        )
        path.write_text(text)
    if graph.m:
        end = text.rindex("*")
        assert pajek._plain_edges(text[text.index("\n", end) + 1 :].encode(), graph.n) is not None
    other = tmp_path / "spaced.net"
    other.write_text(text.replace("\n", "\r\n"))  # not plain: igraph reads the edges
    assert read(path) == read(other) == graph


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(graph=topologies(max_n=7), writer=st.sampled_from(["ours", "igraph"]))
def test_lgl_plain_path_agrees_with_igraph(tmp_path, graph, writer):
    """Plain LGL files are read by one dictionary pass; igraph's reader gives the same."""
    from robustgraph.io import lgl

    path = tmp_path / "g.lgl"
    if writer == "ours":
        write(graph, path)
    else:
        h = graph.to_igraph()
        h.vs["name"] = [str(x) for x in graph.labels]
        h.write_lgl(str(path), names="name", weights=None)
    data = path.read_bytes()
    plain = lgl._plain_blocks(data)
    assert plain is not None
    for directed in (None, True, False):
        names, pairs = lgl._igraph_blocks(path, data, directed)
        assert plain[0] == names
        if directed is not False:  # igraph's undirected read may turn a pair round
            assert plain[1].tolist() == pairs.tolist()
    assert lgl._plain_blocks(data.replace(b"\n", b"\r\n")) is None


def test_gml_that_igraph_would_misread_goes_to_our_parser(tmp_path):
    cases = {
        "trailing.gml": ("graph [ node [ id 0 ] ] ]", "unexpected ']'"),
        "two.gml": ("graph [ node [ id 0 ] ] graph [ node [ id 1 ] ]", "one 'graph"),
        "dangling.gml": ("graph [ node [ id 0 ] ] directed", "has no value"),
    }
    for name, (text, words) in cases.items():
        with pytest.raises(GraphFormatError, match=words):  # igraph reads these without a word
            read(_write(tmp_path, name, text))
    entity = _write(tmp_path, "entity.gml", 'graph [ node [ id 0 label "caf&#233;" ] ]')
    assert read(entity).labels == ("café",)  # igraph would keep '&#233;' as it is


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(graph=topologies(max_n=7))
def test_graphml_fast_path_through_igraph_agrees_with_our_parser(tmp_path, graph):
    """igraph reads plain GraphML (ours, networkx's, igraph's) exactly as our expat reader."""
    from robustgraph.io import graphml

    for writer in ("ours", "networkx", "igraph"):
        path = tmp_path / f"{writer}.graphml"
        if writer == "ours":
            write(graph, path)
        elif writer == "networkx":
            nx.write_graphml(graph.to_networkx(), path)
        else:
            h = graph.to_igraph()
            h.vs["name"] = [str(x) for x in graph.labels]
            h.write_graphml(str(path))
        data = path.read_bytes()
        fast = graphml._read_with_igraph(path, data, None, False)
        assert fast is not None, writer
        slow_path = tmp_path / f"{writer}-slow.graphml"
        slow_path.write_bytes(data.replace(b"<graph ", b"<!-- <port --><graph ", 1))
        assert graphml._read_with_igraph(slow_path, slow_path.read_bytes(), None, False) is None
        slow = read(slow_path)
        assert (fast.labels, fast.directed, fast.edges()) == (slow.labels, slow.directed,
                                                              slow.edges())


def test_graphml_repeated_node_ids_are_refused_not_merged(tmp_path):
    doc = (
        '<graphml><graph edgedefault="undirected"><node id="a"/><node id="b"/><node id="a"/>'
        '<edge source="a" target="b"/></graph></graphml>'
    )
    with pytest.raises(GraphFormatError, match="node id 'a' declared twice"):
        read(_write(tmp_path, "dup.graphml", doc))  # igraph would merge the two a's


# ----------------------------------------------------------------- edge-list sidecars
def test_our_edge_list_is_plain_lines_and_its_sidecar_keeps_kind_nodes_and_order(tmp_path):
    import igraph as ig

    t = Topology.from_edges([("c", "a"), ("a", "b")], nodes=["x", "a", "b", "c"], directed=True)
    path = tmp_path / "g.edgelist"
    write(t, path)
    assert path.read_text() == "a b\nc a\n"  # what igraph's Read_Ncol takes
    assert ig.Graph.Read_Ncol(str(path)).get_edgelist() == [(0, 1), (2, 0)]
    assert read(path) == t
    with pytest.raises(GraphFormatError, match="the file declares a directed graph"):
        read(path, directed=False)
    with pytest.raises(GraphFormatError, match="is the sidecar of the edge list 'g.edgelist'"):
        read(tmp_path / "g.edgelist.meta.json")  # and certify --batch DIR skips it
    path.with_name("g.edgelist.meta.json").unlink()
    with pytest.raises(GraphFormatError, match="pass --directed or --undirected"):
        read(path)  # no sidecar: the kind is demanded, never guessed


def test_an_edited_edge_list_no_longer_matches_its_sidecar(tmp_path):
    path = tmp_path / "g.edges"
    write(Topology.from_edges([(0, 1), (1, 2)], directed=False), path)
    path.write_text("0 1\n1 2\n2 0\n")
    with pytest.raises(GraphFormatError, match="changed after its sidecar g.edges.meta.json"):
        read(path)
    path.with_name("g.edges.meta.json").write_text('{"nodes": 3}')
    with pytest.raises(GraphFormatError, match="not a robustgraph edge list sidecar"):
        read(path)


def test_edge_lists_written_by_the_previous_version_still_read(tmp_path):
    path = tmp_path / "old.edgelist"
    path.write_text("# directed\n0\n1\n2\n3\n0 1\n2 1\n")  # kind comment and node lines
    t = read(path)
    assert t.directed and t.labels == (0, 1, 2, 3) and t.edges() == [(0, 1), (2, 1)]
    old_csv = tmp_path / "old.csv"
    old_csv.write_text("# undirected\nsource,target\n0\n1\n2\n0,1\n")
    t = read(old_csv)
    assert not t.directed and t.labels == (0, 1, 2) and t.m == 1


def test_our_csv_has_no_header_row_networkx_would_read_as_an_edge(tmp_path):
    t = Topology.from_edges([("source", "target"), ("a", "b")], nodes=[], directed=True)
    path = tmp_path / "g.csv"
    write(t, path)
    assert "source,target" not in path.read_text().splitlines()[1]  # node rows come first
    back = nx.read_edgelist(path, delimiter=",", create_using=nx.DiGraph)
    assert set(back.edges) == {("source", "target"), ("a", "b")}
    assert read(path) == t
