"""``robustgraph certify --batch``: one certificate per graph, the index, exit codes, Ray parity."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import networkx as nx
import pytest
from click.testing import CliRunner
from conftest import assert_doctests_pass_in_fresh_process

from robustgraph import generators as gen
from robustgraph import io
from robustgraph.certificate.batch import certify_batch, graph_files
from robustgraph.certificate.certifier import certify
from robustgraph.certificate.claims import Claim
from robustgraph.certificate.document import Certificate
from robustgraph.cli import main
from robustgraph.errors import ParameterError
from robustgraph.executors import LocalExecutor, RayExecutor
from robustgraph.topology import Topology

REF = "exhaustive"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def graphs(tmp_path) -> Path:
    """merg5, merg7, a path and a nested K4; plus files a batch must leave out."""
    root = tmp_path / "graphs"
    (root / "sub").mkdir(parents=True)
    io.write(gen.gamma_merg(5), root / "merg5.json")
    io.write(gen.gamma_merg(7), root / "merg7.graphml")
    io.write(Topology.from_networkx(nx.path_graph(4)), root / "path4.txt")
    io.write(gen.complete(4), root / "sub" / "k4.g6")
    (root / "merg5.cert.json").write_text("{}")  # a certificate, not a graph
    (root / "notes.md").write_text("not a graph")
    return root


def index_of(out: Path) -> dict:
    return json.loads((out / "index.json").read_text())


def test_a_directory_gets_one_certificate_per_graph_and_an_index(graphs, tmp_path):
    out = tmp_path / "certs"
    result = run("certify", "--batch", graphs, "--engines", REF, "--workers", "1", "-o", out)
    assert result.exit_code == 0, result.stderr
    index = index_of(out)
    rows = {Path(row["file"]).relative_to(graphs).as_posix(): row for row in index["graphs"]}
    assert sorted(rows) == ["merg5.json", "merg7.graphml", "path4.txt", "sub/k4.g6"]  # recursive
    assert index["counts"] == {"proven": 4} and index["claims"] == [
        {"kind": "max", "models": ["sac", "wmsr-local"]}
    ]
    for name, row in rows.items():
        topology = io.read(graphs / name)
        expected = certify(topology, Claim.maximum(), engines=REF).claims[0].values
        assert row["r"] == list(expected["r"]) and row["hash"] == topology.content_hash
        assert row["tolerances"] == {m: list(v) for m, v in expected.items() if m != "r"}
        assert (row["n"], row["m"], row["status"]) == (topology.n, topology.m, "proven")
        cert = Certificate.load(out / row["certificate"])
        assert cert.verify(topology).valid
    table = (out / "index.md").read_text()
    assert "| merg7.graphml |" not in table and f"| {graphs / 'merg7.graphml'} |" in table
    assert "| 4 | 3 | 1 | - | proven |" in table  # merg7: r* = 4, F = 3 / 1; no F-total asked
    assert index["options"]["seed"] == 0
    assert result.stdout.startswith("# Certificates:")
    every = run("certify", "--batch", graphs, "--all", "--engines", REF, "--workers", 1, "-o", out)
    assert every.exit_code == 0, every.stderr
    assert "| 4 | 3 | 1 | 2 | proven |" in (out / "index.md").read_text()  # F-total = 2


def test_a_recursive_glob_mirrors_folders_and_a_bad_file_is_a_row_with_exit_2(graphs, tmp_path):
    (graphs / "broken.json").write_text("{ not json")
    out = tmp_path / "certs"
    pattern = f"{graphs}/**/*"
    result = run("certify", "--batch", pattern, "--engines", REF, "--workers", "2", "-o", out)
    assert result.exit_code == 2
    index = index_of(out)
    statuses = {Path(r["file"]).name: r["status"] for r in index["graphs"]}
    assert statuses == {
        "broken.json": "error",
        "k4.g6": "proven",
        "merg5.json": "proven",
        "merg7.graphml": "proven",
        "path4.txt": "proven",
    }
    broken = next(r for r in index["graphs"] if r["status"] == "error")
    assert broken["error"].startswith("GraphFormatError: ") and broken["certificate"] is None
    assert (out / "sub" / "k4.cert.json").is_file()
    assert "broken.json failed: GraphFormatError" in result.stderr


def test_named_claims_set_the_verdicts_and_a_refutation_exits_1(graphs, tmp_path):
    out = tmp_path / "certs"
    result = run("certify", "--batch", graphs, "--F", 1, "--model", "sac", "--engines", REF,
                 "--seed", 7, "--workers", "1", "-o", out, "--json")  # fmt: skip
    assert result.exit_code == 1
    index = json.loads(result.stdout)
    verdicts = {Path(r["file"]).name: r["status"] for r in index["graphs"]}
    assert verdicts == {"merg5.json": "proven", "merg7.graphml": "proven", "path4.txt": "refuted",
                        "k4.g6": "proven"}
    assert all(r["r"] is None for r in index["graphs"])  # no --max: no r* column
    cert = Certificate.load(out / "merg5.cert.json")
    assert cert.provenance["parameters"]["seed"] == 7
    assert index == index_of(out) | {"exit_code": 1}


def test_rerunning_into_an_output_inside_the_source_ignores_the_outputs(graphs):
    out = graphs / "certs"
    for _ in range(2):
        result = run("certify", "--batch", graphs, "--engines", REF, "--workers", "1", "-o", out)
        assert result.exit_code == 0, result.stderr
    assert len(index_of(out)["graphs"]) == 4


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--batch", "{dir}", "{dir}/merg5.json"], "give FILE or --batch DIR_OR_GLOB, not both"),
        ([], "Missing argument 'FILE'"),
        (["{dir}/merg5.json", "--workers", "2"], "go with --batch"),
        (["--batch", "{dir}/*.nothing"], "no graph files in pattern"),
        (["--batch", "{dir}", "--engines", "nope"], "unknown engine 'nope'"),
        (["--batch", "{dir}", "--address", "h:1"], "--address is for the ray executor"),
    ],
)
def test_usage_errors_are_one_line_with_exit_2(graphs, tmp_path, args, message):
    filled = [a.format(dir=graphs) for a in args]
    result = run("certify", *filled, "--max", "-o", tmp_path / "certs")
    assert result.exit_code == 2
    assert message in result.stderr and "Traceback" not in result.stderr


def test_two_files_that_would_share_a_certificate_are_refused(tmp_path):
    io.write(gen.gamma_merg(5), tmp_path / "g.json")
    io.write(gen.complete(4), tmp_path / "g.g6")
    with pytest.raises(ParameterError, match="would share the certificate"):
        certify_batch(str(tmp_path), [Claim.maximum()], tmp_path / "o", executor=LocalExecutor(1))


def test_graph_files_with_an_explicit_format_take_every_file(tmp_path):
    (tmp_path / "a.edges").write_text("0 1\n")
    (tmp_path / "b.data").write_text("0 1\n")
    assert [p.name for p in graph_files(str(tmp_path), fmt="edgelist")] == ["a.edges", "b.data"]
    assert [p.name for p in graph_files(str(tmp_path))] == ["a.edges"]


def test_ray_missing_is_one_line_naming_the_extra(graphs, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)
    result = run("certify", "--batch", graphs, "--executor", "ray", "-o", tmp_path / "certs")
    assert result.exit_code == 2
    assert "pip install 'robustgraph[distributed]'" in result.stderr


def test_ray_gives_the_same_index_as_local(graphs, tmp_path, ray_instance):
    with RayExecutor(max_retries=0) as executor:
        remote = certify_batch(
            str(graphs), [Claim.maximum()], tmp_path / "ray", executor=executor,
            options={"engines": [REF]}, progress=False,
        )  # fmt: skip
    local = certify_batch(
        str(graphs), [Claim.maximum()], tmp_path / "local", executor=LocalExecutor(1),
        options={"engines": [REF]}, progress=False,
    )  # fmt: skip

    def comparable(index: dict) -> list[dict]:
        return [{k: v for k, v in row.items() if k != "seconds"} for row in index["graphs"]]

    assert comparable(remote) == comparable(local) and remote["executor"] == "ray"


@pytest.mark.parametrize("module", ["robustgraph.certificate.batch"])
def test_docstring_examples_run(module):
    assert_doctests_pass_in_fresh_process(module)
