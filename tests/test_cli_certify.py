"""``robustgraph certify`` and ``robustgraph verify`` end to end: every exit code, tampering."""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
import pytest
from click.testing import CliRunner

from robustgraph import generators as gen
from robustgraph import io
from robustgraph.certificate.claims import MODELS
from robustgraph.certificate.document import Certificate, certificate_path
from robustgraph.certificate.outcome import trivial_upper
from robustgraph.certificate.witness import witness_problem
from robustgraph.cli import main
from robustgraph.topology import Topology
from solvers import registry
from solvers.types import Result, Status

REF = "exhaustive"


def run(*args: str):
    return CliRunner().invoke(main, [str(a) for a in args])


def one_line_error(result) -> str:
    lines = result.stderr.strip().splitlines()
    assert lines[-1].startswith("robustgraph: error: "), result.stderr
    assert "Traceback" not in result.stderr
    return lines[-1]


@pytest.fixture
def merg(tmp_path) -> Path:
    out = tmp_path / "merg7.json"
    io.write(gen.gamma_merg(7), out)
    return out


@pytest.fixture
def path5(tmp_path) -> Path:
    out = tmp_path / "path5.txt"
    io.write(Topology.from_networkx(nx.path_graph(5)), out)
    return out


def certified(graph: Path, *claim: str, engines: str = REF) -> Path:
    cert = graph.with_suffix(".cert.json")
    result = run("certify", graph, *claim, "--engines", engines, "-o", cert)
    assert result.exit_code in (0, 1), result.output + result.stderr
    return cert


# ----------------------------------------------------------------------------- certify
def test_proven_claim_exits_0_and_verifies(merg):
    cert = merg.with_suffix(".cert.json")
    result = run("certify", merg, "--F", 3, "--model", "sac", "--engines", REF, "-o", cert)
    assert result.exit_code == 0, result.stderr
    assert "tolerates F = 3 under sac: 4-robust: PROVEN" in result.stdout
    assert "is_r_robust(4)" in result.stderr  # progress goes to stderr
    check = run("verify", cert, merg)
    assert check.exit_code == 0 and check.stdout.startswith("valid")


def test_refuted_claim_exits_1_with_a_witness_that_verifies(path5):
    cert = path5.with_suffix(".cert.json")
    result = run("certify", path5, "--F", 1, "--model", "sac", "--engines", REF, "-o", cert)
    assert result.exit_code == 1
    assert "REFUTED: S1 = {" in result.stdout
    assert "no node of either has 2 in-neighbours outside its own set" in result.stdout
    loaded = Certificate.load(cert)
    check = loaded.claims[0].checks[0]
    t = io.read(path5)
    assert check.upper < 2 and witness_problem(t, check.question, 1, check.witness) is None
    assert run("verify", cert, path5).exit_code == 0  # a true certificate of a refutation
    strict = run("verify", cert, path5, "--require-proven")
    assert strict.exit_code == 1 and "verdict is refuted, not proven" in strict.stdout


def test_max_claims_what_follows_from_r_and_the_f_total_tolerance_only_when_asked(merg):
    cert = merg.with_suffix(".cert.json")
    result = run("certify", merg, "--max", "--engines", REF, "-o", cert)
    assert result.exit_code == 0, result.stderr
    assert "r* = 4; tolerated F: sac 3, wmsr-local 1: PROVEN" in result.stdout
    (record,) = Certificate.load(cert).claims
    assert [c.question.kind for c in record.checks] == ["max_r"]  # no F-total search
    assert record.claim.to_dict() == {"kind": "max", "models": ["sac", "wmsr-local"]}
    assert "wmsr-total" not in record.values
    assert run("verify", cert, merg).exit_code == 0
    for extra in (["--tolerance", "wmsr-total"], ["--all"]):
        result = run("certify", merg, "--max", *extra, "--engines", REF, "-o", cert)
        assert result.exit_code == 0, result.stderr
        assert "r* = 4; tolerated F: sac 3, wmsr-local 1, wmsr-total 2: PROVEN" in result.stdout
        (record,) = Certificate.load(cert).claims
        assert record.claim.models == MODELS and record.values["wmsr-total"] == (2, 2)
        assert record.checks[1].question.kind == "is_rs_robust"
        assert run("verify", cert, merg).exit_code == 0


def test_tolerance_options_go_with_max(merg, tmp_path):
    result = run("certify", merg, "--r", 2, "--all", "-o", tmp_path / "c.json")
    assert result.exit_code == 2 and "use them with --max" in result.stderr


def test_json_output_is_the_certificate(merg):
    cert = merg.with_suffix(".cert.json")
    result = run("certify", merg, "--rs", 2, 2, "--engines", REF, "-o", cert, "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == json.loads(cert.read_text())
    report = run("verify", cert, merg, "--json")
    assert json.loads(report.stdout)["valid"] is True


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "name a claim"),
        (["--F", "2"], "--F and --model go together"),
        (["--r", "-1"], "r must be >= 0"),
        (["--r", "2", "--engines", "nope"], "unknown engine 'nope'"),
        (["--r", "2", "--time-limit", "0"], "time limit must be > 0"),
    ],
)
def test_usage_errors_exit_2_with_one_line(merg, tmp_path, args, message):
    result = run("certify", merg, *args, "-o", tmp_path / "c.json")
    assert result.exit_code == 2
    assert message in one_line_error(result)
    assert not (tmp_path / "c.json").exists()


def test_unreadable_graph_exits_2(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{ not a graph")
    for graph in (bad, tmp_path / "missing.json"):
        result = run("certify", graph, "--r", 1, "-o", tmp_path / "c.json")
        assert result.exit_code == 2
        one_line_error(result)


def _liar(request) -> Result:
    high = trivial_upper(request.graph, request.question)
    return Result(request.question, Status.EXACT, high, high, None, "liar", None, 0.0)


def test_engine_disagreement_exits_4_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setitem(registry.ENGINES, "liar", registry.Engine("liar", _liar, lambda: True))
    prism = tmp_path / "prism.json"
    io.write(Topology.from_networkx(nx.circular_ladder_graph(3)), prism)
    cert = tmp_path / "c.json"
    result = run("certify", prism, "--r", 2, "--engines", f"{REF},liar", "-o", cert)
    assert result.exit_code == 4
    assert "engines disagree" in one_line_error(result)
    assert not cert.exists()


# ----------------------------------------------------------------------------- verify
def _edit_json(path: Path, edit) -> None:
    doc = json.loads(path.read_text())
    edit(doc)
    path.write_text(json.dumps(doc))


@pytest.mark.parametrize("change", ["add", "remove"])
def test_graph_file_edited_is_invalid(merg, change):
    cert = certified(merg, "--F", 3, "--model", "sac")
    g = io.read(merg).to_networkx()
    if change == "add":
        g.add_edge(*next(iter(nx.non_edges(g))))
    else:
        g.remove_edge(*next(iter(g.edges())))
    io.write(Topology.from_networkx(g), merg)
    result = run("verify", cert, merg)
    assert result.exit_code == 1
    assert "INVALID" in result.stdout and "certificate is for another graph" in result.stdout


def test_certificate_for_a_different_graph_is_invalid(merg, tmp_path):
    cert = certified(merg, "--max")
    other = tmp_path / "k7.json"
    io.write(gen.complete(7), other)
    assert run("verify", cert, other).exit_code == 1


def test_claim_edited_upward_is_invalid(merg):
    cert = certified(merg, "--F", 3, "--model", "sac")

    def upward(doc):
        doc["claims"][0]["claim"]["F"] = 4
        doc["claims"][0]["statement"] = "tolerates F = 4 under sac: 5-robust"

    _edit_json(cert, upward)
    result = run("verify", cert, merg, "--json")
    report = json.loads(result.stdout)
    assert result.exit_code == 1 and report["valid"] is False
    assert any("is_r_robust(r=5" in reason for reason in report["reasons"])


def test_witness_edited_is_invalid(path5):
    cert = certified(path5, "--r", 2)

    def swap(doc):
        for holder in (doc["claims"][0]["checks"][0], doc["claims"][0]["checks"][0]["runs"][0]):
            holder["witness"] = {"s1": [1], "s2": [3]}  # node 1 hears 0 and 2

    _edit_json(cert, swap)
    result = run("verify", cert, path5)
    assert result.exit_code == 1 and "witness invalid" in result.stdout


def test_schema_invalid_certificate_is_invalid(merg):
    cert = certified(merg, "--r", 4)
    _edit_json(cert, lambda doc: doc["graph"].update(n="seven"))
    result = run("verify", cert, merg)
    assert result.exit_code == 1 and "does not match the schema at /graph/n" in result.stdout


def test_unreadable_certificate_exits_2(merg, tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": ')
    for cert in (broken, tmp_path / "missing.json"):
        result = run("verify", cert, merg)
        assert result.exit_code == 2
        one_line_error(result)


# ----------------------------------------------------------------------------- real engines
def test_readme_command_with_the_default_engine(merg):
    cert = merg.with_suffix(".cert.json")
    result = run("certify", merg, "--F", 3, "--model", "sac", "-o", cert)
    assert result.exit_code == 0, result.stderr
    assert Certificate.load(cert).provenance["parameters"]["engines"] == ["portfolio"]
    assert run("verify", cert, merg, "--resolve-with", "cpsat").exit_code == 0


def test_undecided_within_the_time_limit_exits_3(tmp_path):
    graph = tmp_path / "merg40.json"
    io.write(gen.gamma_merg(40), graph)  # 20-robust by theorem: never refutable
    cert = tmp_path / "merg40.cert.json"
    args = ("--r", 20, "--engines", "highs", "--time-limit", 0.01, "-o", cert)
    result = run("certify", graph, *args)
    assert result.exit_code == 3, result.stdout + result.stderr
    assert "20-robust: UNDECIDED within the 0.01 s limit" in result.stdout
    assert run("verify", cert, graph).exit_code == 0
    assert run("verify", cert, graph, "--require-proven").exit_code == 1


def test_dual_engine_certificate_from_the_command_line(merg):
    cert = merg.with_suffix(".cert.json")
    result = run("certify", merg, "--max", "--engines", "cpsat,highs", "-o", cert, "--json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["provenance"]["parameters"]["engines"] == ["cpsat", "highs"]
    assert all(len(check["runs"]) == 2 for check in doc["claims"][0]["checks"])


def test_generate_certify_writes_graph_and_certificate(tmp_path):
    graph = tmp_path / "merg7.json"
    result = run("generate", "merg", "--n", 7, "-o", graph, "--certify", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    cert = tmp_path / "merg7.cert.json"
    assert data["certificate"]["file"] == str(cert) and data["certificate"]["verdict"] == "proven"
    assert Certificate.load(cert).claims[0].values["r"] == (4, 4)
    assert run("verify", cert, graph, "--require-proven").exit_code == 0


@pytest.mark.parametrize(
    ("graph", "cert"),
    [
        ("merg7.json", "merg7.cert.json"),
        ("d/g.graphml.gz", "d/g.cert.json"),
        ("g6", "g6.cert.json"),
    ],
)
def test_certificate_sits_next_to_the_graph(graph, cert):
    assert certificate_path(graph) == Path(cert)
