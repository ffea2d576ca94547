"""``robustgraph info`` and ``convert``: numbers, exit codes, one-line errors; the summary maths."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import naive_max_r, topologies
from hypothesis import given, settings

from robustgraph.cli import connectivity, main
from robustgraph.cli import graph as cli_graph
from robustgraph.cli.connectivity import vertex_connectivity
from robustgraph.cli.graph import degree_bound, summarize
from robustgraph.io import read
from robustgraph.topology import Topology

FIXTURES = Path(__file__).parent / "fixtures" / "graphs"


def run(*args: str):
    return CliRunner().invoke(main, [str(a) for a in args])


def _one_line_error(result) -> str:
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("robustgraph: error: "), result.stderr
    return lines[0]


# ----------------------------------------------------------------- info
def test_info_json_on_an_undirected_fixture():
    result = run("info", FIXTURES / "diamond.csv", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["format"] == "csv"
    assert (data["n"], data["m"], data["directed"]) == (5, 5, False)
    assert data["degree"] == {"min": 0, "max": 3, "mean": 2.0}
    assert (data["connected"], data["components"]) == (False, 2)
    assert data["vertex_connectivity"] == 0 and data["vertex_connectivity_note"] is None
    assert data["r_upper_bound"] == 0  # node e is isolated
    assert data["content_hash"] == read(FIXTURES / "diamond.csv").content_hash


def test_info_json_on_a_directed_fixture():
    data = json.loads(run("info", FIXTURES / "triangle_directed.gml", "--json").stdout)
    assert (data["n"], data["m"], data["directed"]) == (3, 4, True)
    assert data["in_degree"] == {"min": 1, "max": 2, "mean": 1.3333}
    assert data["out_degree"]["max"] == 2
    assert data["strongly_connected"] and data["strong_components"] == 1
    assert data["vertex_connectivity"] == 1  # removing x cuts z -> x -> y
    assert data["r_upper_bound"] == 1


def test_info_human_output_is_a_table_with_the_full_hash():
    result = run("info", FIXTURES / "cycle_directed.edgelist")
    assert result.exit_code == 0 and result.stderr == ""
    out = result.stdout
    for word in ("nodes", "in-degree", "out-degree", "strongly: yes", "vertex connectivity"):
        assert word in out
    assert read(FIXTURES / "cycle_directed.edgelist").content_hash in out
    lines = out.splitlines()
    assert lines and all(line == line.rstrip() for line in lines)  # piped: no padding
    assert any(line.split() == ["nodes", "3"] for line in lines)


def test_info_honours_directed_flags_and_drop_invalid():
    plain = json.loads(run("info", FIXTURES / "duplicate.edgelist", "--directed", "--json").stdout)
    assert plain["directed"] and plain["m"] == 3  # b->a is not a repeat of a->b in a digraph
    duplicate = FIXTURES / "duplicate.edgelist"
    result = run("info", duplicate, "--undirected", "--drop-invalid", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["m"] == 2
    warning = result.stderr.splitlines()
    assert len(warning) == 1 and warning[0].startswith("robustgraph: warning: ")
    assert "line 3: duplicate edge" in warning[0]


def test_info_skips_vertex_connectivity_on_large_or_costly_graphs(monkeypatch):
    n = cli_graph.CONNECTIVITY_MAX_N + 1
    big = summarize(Topology.from_edges([(i, (i + 1) % n) for i in range(n)]))
    assert big["vertex_connectivity"] is None
    assert "more than 300 nodes" in big["vertex_connectivity_note"]
    monkeypatch.setattr(cli_graph, "CONNECTIVITY_MAX_WORK", 10)
    small = summarize(Topology.from_edges([(0, 1), (1, 2), (2, 3)]))
    assert small["vertex_connectivity"] is None and "skipped" in small["vertex_connectivity_note"]


# ----------------------------------------------------------------- the maths behind info
def brute_vertex_connectivity(t: Topology) -> int:
    """Fewest nodes whose removal leaves a (strongly) disconnected graph; n - 1 if none does."""
    import networkx as nx

    g = t.to_networkx()
    connected = nx.is_strongly_connected if t.directed else nx.is_connected
    for k in range(t.n - 1):
        for cut in itertools.combinations(g.nodes, k):
            rest = g.subgraph(set(g.nodes) - set(cut))
            if not connected(rest):
                return k
    return t.n - 1


@settings(max_examples=150, deadline=None)
@given(topologies(max_n=7))
def test_vertex_connectivity_matches_brute_force_for_every_pivot(t):
    expected = brute_vertex_connectivity(t)
    assert vertex_connectivity(t) == expected
    for pivot in range(t.n if t.n >= 2 else 0):
        assert vertex_connectivity(t, pivot=pivot) == expected


@settings(max_examples=150, deadline=None)
@given(topologies(max_n=12))
def test_summary_matches_networkx(t):
    """Every number info prints, against networkx on random graphs and digraphs."""
    import networkx as nx

    g = t.to_networkx()
    data = summarize(t)

    def stats(degrees) -> dict:
        values = [d for _, d in degrees]
        return {"min": min(values), "max": max(values), "mean": round(sum(values) / len(values), 4)}

    assert (data["n"], data["m"]) == (g.number_of_nodes(), g.number_of_edges())
    if t.directed:
        assert data["in_degree"] == stats(g.in_degree()) and data["out_degree"] == stats(
            g.out_degree()
        )
        assert data["strong_components"] == nx.number_strongly_connected_components(g)
        assert data["weak_components"] == nx.number_weakly_connected_components(g)
        assert data["strongly_connected"] == (data["strong_components"] == 1)
    else:
        assert data["degree"] == stats(g.degree())
        assert data["components"] == nx.number_connected_components(g)
        assert data["connected"] == nx.is_connected(g)
    if not t.directed:  # on digraphs networkx differs from the definition (it answers 1 on
        # 0 -> 1 and 2 on K3 less an arc); there the brute force below is the reference
        expected = nx.node_connectivity(g) if t.n >= 2 else 0
        assert data["vertex_connectivity"] == expected


@settings(max_examples=40, deadline=None)
@given(topologies(max_n=12))
def test_own_and_igraph_max_flows_agree(t):
    """Both routes of vertex_connectivity (own flows below the work bound, igraph above)."""
    own = vertex_connectivity(t)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(connectivity, "OWN_FLOW_MAX_WORK", -1)
        assert vertex_connectivity(t) == own


def test_local_connectivity_counts_disjoint_paths_up_to_the_cap():
    # two node-disjoint paths 0 -> 3 (via 1 and via 2), and the arc 0 -> 3 absent
    t = Topology.from_edges([(0, 1), (1, 3), (0, 2), (2, 3)], nodes=range(4), directed=True)
    assert connectivity.local_connectivity(t, 0, 3, 5) == 2
    assert connectivity.local_connectivity(t, 0, 3, 1) == 1
    assert connectivity.local_connectivity(t, 3, 0, 5) == 0


@pytest.mark.parametrize("module", ["robustgraph.cli.graph", "robustgraph.cli.connectivity"])
def test_docstring_examples_run(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0


@settings(max_examples=150, deadline=None)
@given(topologies(max_n=7))
def test_degree_bound_is_an_upper_bound_on_r(t):
    bound, _ = degree_bound(t)
    assert naive_max_r(t) <= bound <= max(1, (t.n + 1) // 2)


def test_degree_bound_is_tight_where_the_min_degree_formula_is_not():
    # the directed out-star: its centre hears no one, yet the digraph is 1-robust
    star = Topology.from_edges([(0, i) for i in range(1, 5)], directed=True)
    assert naive_max_r(star) == 1 == degree_bound(star)[0]
    complete = Topology.from_edges(itertools.combinations(range(7), 2))
    assert naive_max_r(complete) == 4 == degree_bound(complete)[0]


# ----------------------------------------------------------------- convert
def test_convert_through_several_formats_keeps_the_hash(tmp_path):
    source = FIXTURES / "diamond.csv"
    chain = [tmp_path / name for name in ("a.graphml", "b.gml.gz", "c.json", "d.adjlist")]
    previous = source
    for target in chain:
        result = run("convert", previous, target, "--json")
        assert result.exit_code == 0, result.stderr
        data = json.loads(result.stdout)
        assert data["same_graph"] and data["content_hash"] == read(source).content_hash
        previous = target
    assert read(chain[-1]) == read(source)


def test_convert_to_a_label_free_format_warns_and_reports_both_hashes(tmp_path):
    result = run("convert", FIXTURES / "diamond.csv", tmp_path / "d.g6", "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert not data["same_graph"] and data["output_hash"] != data["content_hash"]
    assert result.stderr.count("\n") == 1 and "stores no node labels" in result.stderr


def test_convert_with_explicit_formats_and_directed_flag(tmp_path):
    source = tmp_path / "edges.dat"
    source.write_text("1 2\n2 3\n3 1\n")
    target = tmp_path / "out.dat"
    result = run("convert", source, target, "--from", "edgelist", "--to", "mtx", "--directed")
    assert result.exit_code == 0, result.stderr
    assert "wrote" in result.stdout
    back = read(target, format="mtx")
    assert back.directed and back.m == 3


# ----------------------------------------------------------------- one-line errors, exit 2
MALFORMED_CLI = [
    (["info", "empty.edgelist"], "holds no nodes"),
    (["info", "bad_token.gml"], "bad token '@'"),
    (["info", "unknown.xyz"], "unknown format: extension '.xyz'"),
    (["info", "self_loop.edgelist"], "line 4: self-loop at node 2"),
    (["info", "duplicate.edgelist"], "does not say whether it is directed"),
    (["info", "duplicate.edgelist", "--undirected"], "line 3: duplicate edge"),
    (["info", "bad_char.g6"], "invalid graph6 character '0'"),
    (["info", "truncated.graphml"], "malformed XML (no element found)"),
    (["info", "no_nodes.json"], "no 'nodes' list"),
    (["info", "bad_header.mtx"], "bad Matrix Market header"),
    (["info", "wrong_columns.csv"], "expected 2 columns"),
    (["info", "does_not_exist.json"], "no such file"),
    (["info", "binary.edgelist"], "not UTF-8 text"),
    (["info", "not_symmetric.mtx", "--undirected"], "has no mirror"),
    (["info", "mixed.graphml"], "mixed directed and undirected edges"),
    (["info", "diamond.csv", "--format", "xyz"], "unknown format 'xyz'"),
    (["info", "cycle_directed.edgelist", "--undirected"], "declares a directed graph"),
    (["convert", "truncated.gml", "OUT.graphml"], "file ends inside a list"),
    (["convert", "cycle_directed.edgelist", "OUT.g6"], "undirected graphs only"),
    (["convert", "diamond.csv", "OUT.png"], "unknown format: extension '.png'"),
    (["convert", "diamond.csv", "OUT.json", "--to", "svg"], "unknown format 'svg'"),
]


@pytest.mark.parametrize("args,message", MALFORMED_CLI, ids=[" ".join(a) for a, _ in MALFORMED_CLI])
def test_malformed_input_is_one_line_on_stderr_and_exit_2(tmp_path, args, message):
    args = [
        str(tmp_path / a) if a.startswith("OUT") else str(FIXTURES / a) if "." in a else a
        for a in args
    ]
    line = _one_line_error(run(*args))
    assert message in line


def test_a_real_process_exits_2_with_one_line_and_no_traceback():
    code = "import sys; from robustgraph.cli import main; sys.exit(main())"
    for name in ("truncated.graphml", "does_not_exist.json"):
        proc = subprocess.run(
            [sys.executable, "-c", code, "info", str(FIXTURES / name)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 2
        assert proc.stdout == "" and len(proc.stderr.splitlines()) == 1
        assert "Traceback" not in proc.stderr
