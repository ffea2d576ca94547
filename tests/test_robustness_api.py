"""The public robustness API on a Topology, tolerances by definition, and the CLI command."""

import json

import networkx as nx
import pytest
from click.testing import CliRunner
from conftest import naive_max_r, naive_max_s, slow_engine, topologies
from hypothesis import given, settings

from robustgraph import io
from robustgraph.cli import main
from robustgraph.errors import ParameterError
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
    chosen = tolerances(t, models=["wmsr-local", "sac"])
    assert list(chosen) == ["sac", "wmsr-local"]  # the order of TOLERANCE_MODELS
    assert {m: v.value for m, v in chosen.items()} == {"sac": r - 1, "wmsr-local": (r - 1) // 2}


def test_tolerances_without_f_total_ask_only_r(monkeypatch):
    """models without wmsr-total: one question (max_r), none of (F+1, F+1)-robustness."""
    from robustgraph import robustness

    asked = []
    monkeypatch.setattr(robustness.registry, "solve", _recording(robustness.registry.solve, asked))
    t = Topology.from_networkx(nx.complete_graph(6))
    tolerances(t, models=["sac", "wmsr-local"])
    assert [q.kind for q in asked] == ["max_r"]
    asked.clear()
    tolerances(t)
    assert asked[0].kind == "max_r" and {q.kind for q in asked[1:]} == {"is_rs_robust"}


def _recording(solve, asked):
    def record(request, engine="portfolio"):
        asked.append(request.question)
        return solve(request, engine)

    return record


def test_tolerances_refuse_unknown_models():
    t = Topology.from_networkx(nx.complete_graph(4))
    with pytest.raises(ParameterError, match="unknown tolerance model 'bft'"):
        tolerances(t, models=["bft"])
    with pytest.raises(ParameterError, match="no tolerance model"):
        tolerances(t, models=[])


def test_tolerances_time_limit_is_one_deadline_for_the_call(monkeypatch):
    """Every question gets what is left of one deadline, and none starts after it: a fake
    engine that spends 0.3 s per question under a 0.5 s limit gets at most two questions."""
    from robustgraph import robustness

    limits = []
    monkeypatch.setattr(robustness.registry, "solve", slow_engine(limits, 0.3, (0, 3)))
    t = Topology.from_networkx(nx.complete_graph(8))
    tol = tolerances(t, time_limit=0.5)  # the limits below show the one deadline, no clock
    assert limits[0] <= 0.5 and all(b < a for a, b in zip(limits, limits[1:], strict=False))
    assert len(limits) <= 2
    assert tol["wmsr-total"].lower <= tol["wmsr-total"].upper


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
    assert "sac F = 0" in out.stdout and "wmsr-local F = 0" in out.stdout
    assert "wmsr-total F" not in out.stdout and "--tolerance wmsr-total or --all" in out.stdout
    for extra in (["--all"], ["--tolerance", "wmsr-total"]):
        out = CliRunner().invoke(main, ["robustness", graph_file, *extra])
        assert out.exit_code == 0 and "wmsr-total F = 0" in out.stdout, out.output


def test_cli_json_output(graph_file):
    out = CliRunner().invoke(main, ["robustness", graph_file, "--json", "--engine", "cpsat"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    assert doc["r"]["value"] == 1 and doc["r"]["status"] == "exact"
    assert set(doc["r"]["witness"]) == {"s1", "s2"}
    assert doc["tolerances"]["wmsr-local"]["F"] == 0
    assert set(doc["tolerances"]) == {"sac", "wmsr-local"}


def test_cli_reports_bounded_results_with_exit_3(tmp_path):
    path = tmp_path / "hard.edgelist"
    io.write(Topology.from_networkx(nx.gnp_random_graph(40, 0.5, seed=1)), path)
    args = ["robustness", str(path), "--engine", "highs", "--formulation", "published"]
    out = CliRunner().invoke(main, [*args, "--time-limit", "0.2", "--json"])
    assert out.exit_code == 3, out.output
    doc = json.loads(out.stdout)
    assert doc["r"]["status"] in ("bounded", "timeout")
    assert doc["r"]["lower"] <= doc["r"]["upper"]


def test_cli_time_limit_is_one_deadline_for_the_command(tmp_path, monkeypatch):
    """r*, s* and the F-total question (K_6: r* = 3, F-total in 1..2) all get what is left of
    the one --time-limit."""
    from robustgraph import robustness

    graph_file = str(tmp_path / "k6.edgelist")
    io.write(Topology.from_networkx(nx.complete_graph(6)), graph_file)
    limits = []
    solve = robustness.registry.solve

    def record(request, engine="portfolio"):
        limits.append(request.time_limit)
        return solve(request, engine)

    monkeypatch.setattr(robustness.registry, "solve", record)
    out = CliRunner().invoke(
        main, ["robustness", graph_file, "--rs", "1", "--all", "--time-limit", "30"]
    )
    assert out.exit_code == 0, out.output
    assert len(limits) >= 3 and limits[0] <= 30
    assert all(b <= a for a, b in zip(limits, limits[1:], strict=False)), limits


@pytest.mark.parametrize(
    "args, message",
    [
        (["--threads", "0"], "--threads"),
        (["--time-limit", "-1"], "--time-limit"),
        (["--rs", "-2"], "--rs"),
        (["--tolerance", "bft"], "--tolerance"),
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
    assert out.exit_code == 2 and "n <= 26" in out.stderr


def test_an_upper_bound_at_ceil_n_over_2_still_carries_a_checked_witness():
    """gamma-MERG(5) is exactly 3-robust: the refutation of 4-robustness names its pair."""
    from robustgraph.generators import gamma_merg
    from solvers.witness import refutes_r

    t = gamma_merg(5)
    res = is_r_robust(t, 4)
    assert res.holds is False and res.witness is not None
    assert refutes_r(t.in_neighbors, res.witness.s1, res.witness.s2, 4)
