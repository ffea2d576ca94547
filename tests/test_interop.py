"""networkx and igraph objects everywhere: the public API takes them and answers in their labels.

Every public function that takes a graph goes through ``robustgraph.graphs.as_topology``; these
tests call the API as a networkx or igraph user would and compare with the Topology answers.
"""

from __future__ import annotations

import json
from pathlib import Path

import igraph as ig
import networkx as nx
import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import robustgraph as rg
from robustgraph.cli import main
from robustgraph.edge_arrays import (
    SMALL_EDGES,
    drop_edges,
    index_arrays,
    index_bounds,
    invalid_positions,
)
from robustgraph.errors import GraphFormatError, ParameterError
from robustgraph.graphs import as_topology
from robustgraph.io import FORMATS
from robustgraph.topology import Topology
from solvers.witness import refutes_r


def _labelled_path() -> nx.Graph:
    return nx.relabel_nodes(nx.path_graph(5), {i: f"n{i}" for i in range(5)})


def test_as_topology_takes_every_kind_and_keeps_labels_and_direction():
    g = _labelled_path()
    d = nx.DiGraph([("a", "b"), ("b", "c")])
    h = ig.Graph(n=3, edges=[(0, 1), (1, 2)], directed=True)
    h.vs["name"] = ["x", "y", "z"]
    t = as_topology(g)
    assert t.labels == tuple(g.nodes) and not t.directed and t.m == 4
    assert as_topology(d).directed and as_topology(d).edges() == [("a", "b"), ("b", "c")]
    assert as_topology(h).labels == ("x", "y", "z") and as_topology(h).directed
    assert as_topology(ig.Graph.Ring(4)).labels == (0, 1, 2, 3)
    assert as_topology([(0, 1), (1, 2)]).m == 2
    assert as_topology([(0, 1), (1, 0)], directed=True).m == 2
    assert as_topology(t) is t


@pytest.mark.parametrize(
    "graph",
    [
        nx.MultiGraph([(0, 1), (0, 1)]),
        nx.Graph([(0, 0), (0, 1)]),
        ig.Graph(n=2, edges=[(0, 1), (0, 1)]),
        ig.Graph(n=2, edges=[(0, 0)]),
        [(0, 1), (1, 0)],
    ],
    ids=["nx-multigraph", "nx-self-loop", "ig-multi-edge", "ig-self-loop", "edge-list-repeat"],
)
def test_multigraphs_and_self_loops_are_refused_with_one_clear_error(graph):
    with pytest.raises(GraphFormatError, match="self-loop|duplicate edge"):
        as_topology(graph)


@pytest.mark.parametrize("bad", ["graph.edgelist", 42, [(0, 1, 2)], [3]])
def test_what_is_not_a_graph_is_a_parameter_error(bad):
    with pytest.raises(ParameterError):
        as_topology(bad)


def test_directed_must_agree_with_the_object():
    with pytest.raises(ParameterError, match="contradicts"):
        as_topology(nx.DiGraph([(0, 1)]), directed=False)


def test_api_takes_networkx_and_igraph_and_answers_in_their_labels():
    g = _labelled_path()
    res = rg.max_r(g, engine="exhaustive")
    assert res.value == 1
    s1, s2 = res.witness.s1, res.witness.s2
    assert s1 | s2 <= set(g.nodes) and not s1 & s2
    t = as_topology(g)
    idx = [frozenset(t.index(x) for x in side) for side in (s1, s2)]
    assert refutes_r(t.in_neighbors, idx[0], idx[1], 2)
    assert rg.is_r_robust(nx.complete_graph(5), 3).holds is True
    assert rg.max_s(nx.complete_graph(5), 2).value == 5
    h = ig.Graph.Full(5)
    assert rg.max_r(h).value == 3
    assert rg.tolerances(nx.DiGraph(nx.complete_graph(4)))["sac"].lower == 1
    words = rg.describe_witness(g, res)
    assert words is not None and "n" in words
    cert = rg.certify(g, rg.Claim("r", r=1))
    assert cert.graph.hash == t.content_hash


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(2, 7),
    directed=st.booleans(),
    data=st.data(),
)
def test_witness_labels_refute_on_random_labelled_graphs(n, directed, data):
    pairs = [(i, j) for i in range(n) for j in range(n) if i != j and (directed or i < j)]
    chosen = data.draw(st.lists(st.sampled_from(pairs), unique=True)) if pairs else []
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(f"v{i}" for i in range(n))
    g.add_edges_from((f"v{i}", f"v{j}") for i, j in chosen)
    res = rg.max_r(g, engine="exhaustive")
    exact = rg.max_r(as_topology(g), engine="exhaustive")
    assert res.value == exact.value
    if res.witness is not None:
        t = as_topology(g)
        sides = [frozenset(t.index(x) for x in side) for side in (res.witness.s1, res.witness.s2)]
        assert refutes_r(t.in_neighbors, sides[0], sides[1], res.upper + 1)


def test_topology_reads_like_a_graph():
    t = as_topology(_labelled_path())
    assert len(t) == 5 and list(t) == ["n0", "n1", "n2", "n3", "n4"] and t.nodes == tuple(t)
    assert "n3" in t and "n9" not in t and [1] not in t
    assert ("n0", "n1") in t.edges()
    assert nx.utils.graphs_equal(t.to_networkx(), _labelled_path())
    assert t.to_igraph().vs["name"] == list(t)
    text = repr(t)
    assert "n=5" in text and "m=4" in text and "graph" in text and "sha256:" in text
    html = t._repr_html_()
    assert "n = 5" in html and "m = 4" in html and "undirected" in html
    assert t.content_hash in html


def test_robustness_json_witness_uses_the_certificate_keys_and_labels(tmp_path):
    path = tmp_path / "g.json"
    rg.write(as_topology(_labelled_path()), path)
    out = CliRunner().invoke(main, ["robustness", str(path), "--json", "--engine", "exhaustive"])
    assert out.exit_code == 0, out.output
    witness = json.loads(out.stdout)["r"]["witness"]
    assert set(witness) == {"s1", "s2"}
    assert set(witness["s1"]) | set(witness["s2"]) <= {f"n{i}" for i in range(5)}


def test_topology_from_index_arrays_matches_from_edges():
    edges = [(0, 1), (2, 1), (3, 0)]
    fast = Topology.from_index_arrays(range(4), [0, 2, 3], [1, 1, 0], directed=True)
    assert fast == Topology.from_edges(edges, nodes=range(4), directed=True)
    with pytest.raises(GraphFormatError, match="duplicate edge 1 -- 0"):
        Topology.from_index_arrays(range(2), [0, 1], [1, 0], directed=False)
    with pytest.raises(GraphFormatError, match="out of range"):
        Topology.from_index_arrays(range(2), [0], [5], directed=False)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 8), directed=st.booleans(), arrays=st.booleans(), data=st.data())
def test_lazy_in_neighbour_sets_match_the_eager_construction(n, directed, arrays, data):
    """from_index_arrays given numpy arrays keeps them and builds in_neighbors on first use;
    given lists (a small graph, no numpy) it builds the sets at once. n, m and degrees, and the
    sets, are those of the checked constructor either way."""
    pairs = [(i, j) for i in range(n) for j in range(n) if i != j and (directed or i < j)]
    chosen = data.draw(st.lists(st.sampled_from(pairs), unique=True)) if pairs else []
    ins = [set() for _ in range(n)]
    for i, j in chosen:
        ins[j].add(i)
        if not directed:
            ins[i].add(j)
    eager = Topology.from_in_neighbors(ins, directed=directed)  # __post_init__ checks it
    tails, heads = [i for i, _ in chosen], [j for _, j in chosen]
    if arrays:
        tails, heads = np.array(tails, dtype=np.int64), np.array(heads, dtype=np.int64)
    built = Topology.from_index_arrays(range(n), tails, heads, directed=directed)
    assert ("in_neighbors" in vars(built)) is not arrays
    assert (built.m, built.in_degrees) == (eager.m, eager.in_degrees)
    assert built == eager and built.in_neighbors == eager.in_neighbors
    assert built.content_hash == eager.content_hash


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 7), directed=st.booleans(), data=st.data())
def test_the_loop_and_numpy_edge_checks_agree(n, directed, data):
    """robustgraph.edge_arrays checks small graphs by a loop and large ones in numpy: on any
    edges (self-loops and repeats included) both find the same bad positions and keep the same
    edges."""
    edge = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))
    edges = data.draw(st.lists(edge, max_size=25))
    tails, heads = [u for u, _ in edges], [v for _, v in edges]
    arrays = np.array(tails, dtype=np.int64), np.array(heads, dtype=np.int64)
    bad = invalid_positions(tails, heads, n, directed)
    assert bad == invalid_positions(*arrays, n, directed)
    kept = drop_edges(tails, heads, bad)
    kept_arrays = drop_edges(*arrays, bad)
    assert kept == (kept_arrays[0].tolist(), kept_arrays[1].tolist())
    assert index_bounds(tails, heads) == index_bounds(*arrays)
    assert isinstance(index_arrays(tails, heads)[0], list)
    assert not isinstance(index_arrays(*arrays)[0], list)
    many = list(range(SMALL_EDGES + 1))
    assert not isinstance(index_arrays(many, many)[0], list)  # past the threshold: numpy


# ----------------------------------------------------------------- the format interop matrix
def _matrix_graphs() -> dict[str, nx.Graph]:
    graph = nx.cycle_graph(5)
    graph.add_edge(0, 2)
    digraph = nx.DiGraph([(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 3), (0, 4)])
    isolated = graph.copy()
    isolated.add_node(5)
    strings = nx.relabel_nodes(graph, {i: f"node-{'abcde'[i]}" for i in graph})
    return {"graph": graph, "digraph": digraph, "isolated": isolated, "strings": strings}


def _igraph(g: nx.Graph) -> ig.Graph:
    h = ig.Graph(n=g.number_of_nodes(), directed=g.is_directed())
    index = {x: i for i, x in enumerate(g.nodes)}
    h.add_edges([(index[u], index[v]) for u, v in g.edges])
    h.vs["name"] = [str(x) for x in g.nodes]
    return h


def _write_json(g: nx.Graph, path: Path) -> None:
    path.write_text(json.dumps(nx.node_link_data(g, edges="edges")))


def _write_mtx(g: nx.Graph, path: Path) -> None:
    import scipy.io

    matrix = nx.to_scipy_sparse_array(g, nodelist=sorted(g.nodes), format="coo")
    scipy.io.mmwrite(path, matrix, symmetry="general" if g.is_directed() else "symmetric")


# (format, writer name, writer, what the writer cannot hold: a set of case names)
_NUMERIC = {"strings"}
WRITERS = [
    ("edgelist", "networkx", lambda g, p: nx.write_edgelist(g, p, data=False), {"isolated"}),
    ("edgelist", "igraph", lambda g, p: _igraph(g).write_ncol(str(p), weights=None), {"isolated"}),
    ("edgelist", "igraph-write_edgelist", lambda g, p: _igraph(g).write_edgelist(str(p)),
     {"isolated"} | _NUMERIC),
    ("csv", "networkx", lambda g, p: nx.write_edgelist(g, p, data=False, delimiter=","),
     {"isolated"}),
    ("tsv", "networkx", lambda g, p: nx.write_edgelist(g, p, data=False, delimiter="\t"),
     {"isolated"}),
    ("adjlist", "networkx", nx.write_adjlist, set()),
    ("graphml", "networkx", nx.write_graphml, set()),
    ("graphml", "igraph", lambda g, p: _igraph(g).write_graphml(str(p)), set()),
    ("gml", "networkx", nx.write_gml, set()),
    ("gml", "igraph", lambda g, p: _igraph(g).write_gml(str(p)), set()),
    ("json", "networkx", _write_json, set()),
    ("graph6", "networkx", lambda g, p: nx.write_graph6(g, p), _NUMERIC | {"digraph"}),
    ("sparse6", "networkx", lambda g, p: nx.write_sparse6(g, p), _NUMERIC | {"digraph"}),
    ("mtx", "scipy", _write_mtx, _NUMERIC),
    ("pajek", "networkx", nx.write_pajek, set()),
    ("pajek", "igraph", lambda g, p: _igraph(g).write_pajek(str(p)), set()),
    ("gexf", "networkx", nx.write_gexf, set()),
    ("lgl", "igraph", lambda g, p: _igraph(g).write_lgl(str(p), weights=None), {"digraph"}),
    ("dot", "networkx", nx.nx_agraph.write_dot, set()),
    ("dot", "igraph", lambda g, p: _igraph(g).write_dot(str(p)), set()),
]
MATRIX = [
    (fmt, who, writer, case)
    for fmt, who, writer, cannot in WRITERS
    for case in _matrix_graphs()
    if case not in cannot
]


def _text_edges(pairs, directed: bool) -> set:
    return {(str(u), str(v)) if directed else frozenset((str(u), str(v))) for u, v in pairs}


@pytest.mark.parametrize(
    "fmt,who,writer,case", MATRIX, ids=[f"{f}-{w}-{c}" for f, w, _, c in MATRIX]
)
def test_files_the_libraries_write_are_read_with_equal_n_m_kind_labels_and_edges(
    tmp_path, fmt, who, writer, case
):
    g = _matrix_graphs()[case]
    path = tmp_path / f"g{FORMATS[fmt].extensions[0]}"
    writer(g, path)
    records = FORMATS[fmt].records_kind
    t = rg.read(path, format=fmt, directed=None if records else g.is_directed())
    assert (t.n, t.m, t.directed) == (g.number_of_nodes(), g.number_of_edges(), g.is_directed())
    assert {str(x) for x in t.labels} == {str(x) for x in g.nodes}
    assert _text_edges(t.edges(), t.directed) == _text_edges(g.edges, g.is_directed())


# Our files read by the libraries: (format, reader name, reader returning (nodes, edges, directed))
def _nx_graph(g: nx.Graph) -> tuple[set, set, bool]:
    return {str(x) for x in g.nodes}, _text_edges(g.edges, g.is_directed()), g.is_directed()


def _ig_graph(h: ig.Graph) -> tuple[set, set, bool]:
    names = [str(x) for x in h.vs["name"]] if "name" in h.vs.attributes() else None
    if names is None and "id" in h.vs.attributes():
        names = [str(x) for x in h.vs["id"]]
    names = names or [str(i) for i in range(h.vcount())]
    edges = [(names[u], names[v]) for u, v in h.get_edgelist()]
    return set(names), _text_edges(edges, h.is_directed()), h.is_directed()


def _scipy_graph(path: Path, directed: bool) -> nx.Graph:
    import scipy.io

    return nx.from_scipy_sparse_array(
        scipy.io.mmread(path), create_using=nx.DiGraph if directed else nx.Graph
    )


def _gml_labels(h: ig.Graph) -> ig.Graph:
    h.vs["name"] = h.vs["label"]
    return h


READERS = [
    ("edgelist", "networkx", lambda p, d: _nx_graph(
        nx.read_edgelist(p, create_using=nx.DiGraph if d else nx.Graph))),
    ("edgelist", "igraph", lambda p, d: _ig_graph(ig.Graph.Read_Ncol(str(p), directed=d))),
    ("edgelist", "igraph-Read_Edgelist", lambda p, d: _ig_graph(
        ig.Graph.Read_Edgelist(str(p), directed=d))),
    ("csv", "networkx", lambda p, d: _nx_graph(
        nx.read_edgelist(p, delimiter=",", create_using=nx.DiGraph if d else nx.Graph))),
    ("tsv", "networkx", lambda p, d: _nx_graph(
        nx.read_edgelist(p, delimiter="\t", create_using=nx.DiGraph if d else nx.Graph))),
    ("dot", "networkx", lambda p, d: _nx_graph(
        (nx.DiGraph if d else nx.Graph)(nx.nx_agraph.read_dot(p)))),
    ("graph6", "networkx", lambda p, d: _nx_graph(nx.read_graph6(p))),
    ("sparse6", "networkx", lambda p, d: _nx_graph(nx.read_sparse6(p))),
    ("mtx", "scipy", lambda p, d: _nx_graph(_scipy_graph(p, d))),
    ("adjlist", "networkx", lambda p, d: _nx_graph(
        nx.read_adjlist(p, create_using=nx.DiGraph if d else nx.Graph))),
    ("graphml", "networkx", lambda p, d: _nx_graph(nx.read_graphml(p))),
    ("graphml", "igraph", lambda p, d: _ig_graph(ig.Graph.Read_GraphML(str(p)))),
    ("gml", "networkx", lambda p, d: _nx_graph(nx.read_gml(p))),
    ("gml", "igraph", lambda p, d: _ig_graph(_gml_labels(ig.Graph.Read_GML(str(p))))),
    ("json", "networkx", lambda p, d: _nx_graph(
        nx.node_link_graph(json.loads(p.read_text()), edges="edges"))),
    ("pajek", "networkx", lambda p, d: _nx_graph(
        (nx.DiGraph if d else nx.Graph)(nx.read_pajek(p)))),
    ("pajek", "igraph", lambda p, d: _ig_graph(ig.Graph.Read_Pajek(str(p)))),
    ("gexf", "networkx", lambda p, d: _nx_graph(nx.read_gexf(p))),
    ("lgl", "igraph", lambda p, d: _ig_graph(ig.Graph.Read_Lgl(str(p), directed=d))),
]
CANNOT_READ = {
    *((fmt, who, "isolated") for fmt, who in [
        ("edgelist", "networkx"), ("edgelist", "igraph"), ("csv", "networkx"), ("tsv", "networkx"),
    ]),
    ("edgelist", "igraph-Read_Edgelist", "isolated"),
    ("edgelist", "igraph-Read_Edgelist", "strings"),
    *((fmt, "networkx", case) for fmt in ("graph6", "sparse6") for case in ("digraph", "strings")),
    ("mtx", "scipy", "strings"),
}
"""An edge list cannot give the libraries isolated nodes (networkx skips node rows, igraph
refuses them: ours keep them in the sidecar), and igraph's ``Read_Edgelist`` reads integer
labels ``0..n-1`` only (an isolated last node is lost there too). graph6, sparse6 and Matrix
Market hold no labels (and graph6/sparse6 no digraphs: our writer refuses one)."""
BACK = [
    (fmt, who, reader, case)
    for fmt, who, reader in READERS
    for case in _matrix_graphs()
    if (fmt, who, case) not in CANNOT_READ
]


@pytest.mark.parametrize("fmt,who,reader,case", BACK, ids=[f"{f}-{w}-{c}" for f, w, _, c in BACK])
def test_files_we_write_are_read_by_the_libraries_as_the_same_graph(
    tmp_path, fmt, who, reader, case
):
    t = as_topology(_matrix_graphs()[case])
    path = tmp_path / f"g{FORMATS[fmt].extensions[0]}"
    rg.write(t, path)
    nodes, edges, directed = reader(path, t.directed)
    assert directed == t.directed
    assert nodes == {str(x) for x in t.labels}
    assert edges == _text_edges(t.edges(), t.directed)


def test_the_readme_python_example_runs_on_a_plain_networkx_graph(tmp_path, monkeypatch):
    import contextlib
    import io as text_io
    import re

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    (code,) = re.findall(r"```python\n(.+?)\n```", readme, flags=re.S)
    assert "import networkx as nx" in code and "Topology" not in code
    monkeypatch.chdir(tmp_path)
    printed = text_io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "README.md", "exec"), {})  # noqa: S102
    lines = printed.getvalue().splitlines()
    # every line it prints is checked against the README by tests/test_python_snippets.py
    assert lines[0] == "2 ['agent0', 'agent1', 'agent2', 'agent3']"
    assert {"Tolerance(model='sac', lower=1, upper=1)", "proven True"} <= set(lines)
    assert (tmp_path / "c8.cert.json").exists()
