"""The public robustness API on a Topology, tolerances by definition, and the CLI command."""

import json

import networkx as nx
import pytest
from click.testing import CliRunner
from conftest import naive_max_r, naive_max_s, topologies
from hypothesis import given, settings

from robustgraph import io
from robustgraph.cli import main
from robustgraph.robustness import (
    describe_witness,
    is_r_robust,
    is_rs_robust,
    max_r,
    max_s,
    tolerances,
)
from robustgraph.topology import Topology
from solvers.types import Status


def _f_total_by_definition(t: Topology) -> int:
    """Largest F with (F+1, F+1)-robustness, from the brute-force oracle (-1 if none)."""
    best = -1
    for f in range(t.n):
        if naive_max_s(t, f + 1) >= f + 1:
            best = f
    return best


@settings(max_examples=80, deadline=None)
@given(topologies(max_n=7))
def test_tolerances_match_their_definitions(t):
    r = naive_max_r(t)
    tol = tolerances(t)
    assert tol["sac"].value == r - 1
    assert tol["wmsr-local"].value == (r - 1) // 2
    assert tol["wmsr-total"].value == _f_total_by_definition(t)


def test_decisions_and_values_on_known_graphs():
    k7 = Topology.from_networkx(nx.complete_graph(7))
    assert max_r(k7).value == 4
    assert is_r_robust(k7, 4).holds is True
    assert is_r_robust(k7, 5).holds is False
    assert max_s(k7, 4).value == naive_max_s(k7, 4)
    assert is_rs_robust(k7, 3, 7).holds is (naive_max_s(k7, 3) >= 7)
    cycle = Topology.from_networkx(nx.cycle_graph(25))
    res = is_r_robust(cycle, 2, engine="cpsat", formulation="published")
    assert res.holds is False and res.status is Status.EXACT


def test_describe_witness_uses_labels():
    t = Topology.from_edges([("ann", "bob"), ("bob", "cy"), ("cy", "ann"), ("cy", "dee")])
    res = max_r(t, engine="exhaustive")
    words = describe_witness(t, res)
    assert words.startswith("S1 = {") and "in-neighbours outside its own set" in words
    assert any(name in words for name in ("ann", "bob", "cy", "dee"))
    s_res = max_s(t, 1, engine="exhaustive")
    assert describe_witness(t, s_res) is None or "fewer than s =" in describe_witness(t, s_res)
    assert (
        describe_witness(
            Topology.from_edges([], nodes=[1]), max_r(Topology.from_edges([], nodes=[1]))
        )
        is None
    )


@pytest.fixture
def graph_file(tmp_path):
    path = tmp_path / "g.edgelist"
    io.write(Topology.from_networkx(nx.relabel_nodes(nx.cycle_graph(6), lambda i: f"n{i}")), path)
    return str(path)


def test_cli_text_output(graph_file):
    out = CliRunner().invoke(main, ["robustness", graph_file, "--rs", "1"])
    assert out.exit_code == 0, out.output
    assert "r* = 1  [exact" in out.stdout
    assert "witness: S1 = {n" in out.stdout
    assert "sac F = 0" in out.stdout and "wmsr-total F = 0" in out.stdout


def test_cli_json_output(graph_file):
    out = CliRunner().invoke(main, ["robustness", graph_file, "--json", "--engine", "cpsat"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    assert doc["r"]["value"] == 1 and doc["r"]["status"] == "exact"
    assert set(doc["r"]["witness"]) == {"s1", "s2"}
    assert doc["tolerances"]["wmsr-local"]["F"] == 0


def test_cli_reports_bounded_results_with_exit_3(tmp_path):
    path = tmp_path / "hard.edgelist"
    io.write(Topology.from_networkx(nx.gnp_random_graph(40, 0.5, seed=1)), path)
    args = ["robustness", str(path), "--engine", "highs", "--formulation", "published"]
    out = CliRunner().invoke(main, [*args, "--time-limit", "0.2", "--json"])
    assert out.exit_code == 3, out.output
    doc = json.loads(out.stdout)
    assert doc["r"]["status"] in ("bounded", "timeout")
    assert doc["r"]["lower"] <= doc["r"]["upper"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--threads", "0"], "--threads"),
        (["--time-limit", "-1"], "--time-limit"),
        (["--rs", "-2"], "--rs"),
    ],
)
def test_cli_usage_errors_are_one_line_exit_2(graph_file, args, message):
    out = CliRunner().invoke(main, ["robustness", graph_file, *args])
    assert out.exit_code == 2
    assert message in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_cli_missing_file_and_big_graph_on_exhaustive(tmp_path):
    out = CliRunner().invoke(main, ["robustness", str(tmp_path / "none.edgelist")])
    assert out.exit_code == 2 and "error" in out.stderr
    path = tmp_path / "big.edgelist"
    io.write(Topology.from_networkx(nx.cycle_graph(30)), path)
    out = CliRunner().invoke(main, ["robustness", str(path), "--engine", "exhaustive"])
    assert out.exit_code == 2 and "n <= 24" in out.stderr


def test_an_upper_bound_at_ceil_n_over_2_still_carries_a_checked_witness():
    """gamma-MERG(5) is exactly 3-robust: the refutation of 4-robustness names its pair."""
    from robustgraph.generators import gamma_merg
    from solvers.witness import refutes_r

    t = gamma_merg(5)
    res = is_r_robust(t, 4)
    assert res.holds is False and res.witness is not None
    assert refutes_r(t.in_neighbors, res.witness.s1, res.witness.s2, 4)
