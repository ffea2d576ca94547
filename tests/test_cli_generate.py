"""``robustgraph generate``: every family end to end, the summary, and one-line errors."""

import json

import pytest
from click.testing import CliRunner

from robustgraph import generators as gen
from robustgraph import io
from robustgraph.cli import main
from robustgraph.cli.generate import FAMILIES
from solvers import exhaustive
from solvers.types import Question, Request


def run(*args: str):
    return CliRunner().invoke(main, ["generate", *args])


def run_json(*args: str) -> dict:
    result = run(*args, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def max_r(t) -> int:
    return exhaustive.solve(Request(t, Question.max_r())).value


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["complete", "--n", "6"], lambda: gen.complete(6)),
        (["merg", "--n", "9"], lambda: gen.gamma_merg(9)),
        (["pa", "--n", "11", "--r", "3", "--s", "2", "--seed", "4"],
         lambda: gen.preferential_attachment(11, 3, 2, seed=4)),
        (["pa", "--n", "8", "--r", "2"], lambda: gen.preferential_attachment(8, 2, 1, seed=0)),
        (["er", "--n", "10", "--p", "0.3", "--seed", "2"],
         lambda: gen.erdos_renyi(10, 0.3, seed=2)),
        (["er", "--n", "7", "--p", "0.5", "--directed"],
         lambda: gen.erdos_renyi(7, 0.5, directed=True)),
        (["circulant", "--n", "10", "--k", "3"], lambda: gen.k_circulant(10, 3)),
        (["k-in", "--n", "9", "--k", "4", "--seed", "1"], lambda: gen.random_k_in(9, 4, seed=1)),
    ],
)
def test_each_family_writes_the_library_graph(tmp_path, args, expected):
    out = tmp_path / "g.json"
    data = run_json(*args, "-o", str(out))
    graph = expected()
    assert io.read(out) == graph
    assert data["hash"] == graph.content_hash
    assert (data["n"], data["m"], data["directed"]) == (graph.n, graph.m, graph.directed)
    assert data["family"] == args[0]
    assert data["file"] == str(out) and data["format"] == "json"
    value = max_r(graph)
    assert value >= data["guarantee"]["r_lower"]
    if data["guarantee"]["r_upper"] is not None:
        assert value <= data["guarantee"]["r_upper"]


def test_robust_er_reports_attempts_and_is_r_robust(tmp_path):
    out = tmp_path / "er.graphml"
    data = run_json("er", "--n", "12", "--r", "3", "--seed", "5", "-o", str(out))
    graph, attempts = gen.erdos_renyi_robust(12, 3, seed=5)
    assert data["attempts"] == attempts
    assert data["p"] == pytest.approx(gen.robust_er_probability(12, 3))
    assert data["parameters"] == {
        "engine": gen.DEFAULT_ENGINE, "max_attempts": 1000, "r": 3, "seed": 5
    }
    assert io.read(out) == graph
    assert max_r(io.read(out)) >= 3


def test_human_summary_names_guarantee_citation_file_and_hash(tmp_path):
    out = tmp_path / "m.txt"
    result = run("merg", "--n", "7", "-o", str(out))
    assert result.exit_code == 0, result.stderr
    text = result.stdout
    graph = gen.gamma_merg(7)
    for needle in ("merg", "nodes", "18", "exactly 4-robust", "Lee & Panagou", str(out),
                   "(edgelist)", graph.content_hash):
        assert needle in text, needle
    assert io.read(out) == graph


def test_robust_er_summary_shows_attempts(tmp_path):
    result = run("er", "--n", "10", "--r", "2", "-o", str(tmp_path / "e.json"))
    assert result.exit_code == 0, result.stderr
    assert "attempts" in result.stdout and "draw(s) of G(n, p=" in result.stdout


def test_explicit_format_overrides_extension(tmp_path):
    out = tmp_path / "graph.data"
    data = run_json("circulant", "--n", "8", "--k", "2", "-o", str(out), "--format", "graphml")
    assert data["format"] == "graphml"
    assert io.read(out, format="graphml") == gen.k_circulant(8, 2)


def test_same_seed_same_file_other_seed_other_graph(tmp_path):
    a = run_json("k-in", "--n", "10", "--k", "3", "--seed", "7", "-o", str(tmp_path / "a.json"))
    b = run_json("k-in", "--n", "10", "--k", "3", "--seed", "7", "-o", str(tmp_path / "b.json"))
    c = run_json("k-in", "--n", "10", "--k", "3", "--seed", "8", "-o", str(tmp_path / "c.json"))
    assert a["hash"] == b["hash"] != c["hash"]


def test_help_explains_families_and_examples():
    result = run("--help")
    assert result.exit_code == 0
    for family in FAMILIES:
        assert family in result.stdout
    assert "Examples:" in result.stdout and "in-neighbours" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["merg", "-o", "x.json"], "Missing option '--n'"),
        (["tree", "--n", "4", "-o", "x.json"], "'tree' is not one of"),
        (["merg", "--n", "four", "-o", "x.json"], "'four' is not a valid integer"),
        (["pa", "--n", "8", "-o", "x.json"], "family pa needs --r"),
        (["circulant", "--n", "8", "-o", "x.json"], "family circulant needs --k"),
        (["er", "--n", "8", "-o", "x.json"], "needs exactly one of --p"),
        (["er", "--n", "8", "--p", "0.2", "--r", "2", "-o", "x.json"], "needs exactly one of --p"),
        (["er", "--n", "8", "--p", "0.2", "--max-attempts", "3", "-o", "x.json"],
         "er with --p does not take --max-attempts"),
        (["er", "--n", "8", "--r", "2", "--directed", "-o", "x.json"],
         "er with --r does not take --directed"),
        (["merg", "--n", "8", "--k", "2", "-o", "x.json"], "merg does not take --k"),
        (["merg", "--n", "1", "-o", "x.json"], "n must be >= 2"),
        (["pa", "--n", "6", "--r", "4", "-o", "x.json"], "r must be between 1 and 3 for n = 6"),
        (["k-in", "--n", "6", "--k", "6", "-o", "x.json"], "k must be between 1 and 5"),
        (["er", "--n", "6", "--p", "2", "-o", "x.json"], "p must be a probability"),
        (["er", "--n", "9", "--r", "5", "--max-attempts", "3", "-o", "x.json"],
         "no 5-robust graph among 3 draws"),
        (["merg", "--n", "5", "-o", "x.unknown"], "unknown format: extension '.unknown'"),
        (["merg", "--n", "5", "-o", "x.json", "--format", "nope"], "unknown format 'nope'"),
        (["k-in", "--n", "5", "--k", "2", "-o", "x.g6"], "graph6"),
        (["er", "--n", "6", "--r", "2", "--engine", "nope", "-o", "x.json"], "unknown engine"),
    ],
)
def test_errors_are_one_line_exit_2(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    result = run(*args)
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("robustgraph: error: ")
    assert message in lines[0]
    assert not (tmp_path / "x.json").exists()


def test_help_examples_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    examples = [
        line.split()[2:]
        for line in run("--help").stdout.splitlines()
        if line.strip().startswith("robustgraph generate")
    ]
    assert len(examples) >= 4
    for args in examples:
        result = run(*args)
        assert result.exit_code == 0, (args, result.stderr)
        assert (tmp_path / args[args.index("-o") + 1]).exists()
