"""``certify --proof`` and ``verify`` on proofs end to end: wording, --require, exit codes."""

from __future__ import annotations

import json

from cli_checks import assert_error
from click.testing import CliRunner

from robustgraph import generators as gen
from robustgraph import io
from robustgraph.cli import main


def run(*args: str):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_proof_checked_per_bound_and_require(tmp_path):
    graph, cert = tmp_path / "m9.json", tmp_path / "m9.cert.json"
    io.write(gen.gamma_merg(9), graph)
    assert run("certify", graph, "--F", 3, "--model", "sac", "-o", cert).exit_code == 0
    done = run("verify", cert, graph)
    assert done.exit_code == 0 and "true certificate" in done.stdout
    assert "lower bound r* >= 5: theorem checked: gamma-merg" in done.stdout
    assert run("verify", cert, graph, "--require", "tolerance sac F=4").exit_code == 0
    short = run("verify", cert, graph, "--require", "tolerance sac F=5")
    assert short.exit_code == 1 and "REJECTED" in short.stdout
    assert_error(run("verify", cert, graph, "--require", "sac five"))


def test_no_proof_is_the_engines_word_and_rejected_unless_allowed(tmp_path):
    graph, cert = tmp_path / "m9.json", tmp_path / "m9.cert.json"
    io.write(gen.gamma_merg(9), graph)
    run("certify", graph, "--r", 2, "--proof", "none", "-o", cert)
    done = run("verify", cert, graph)
    assert done.exit_code == 1 and "engine's word only, no proof" in done.stdout
    assert "true certificate" not in done.stdout
    allowed = run("verify", cert, graph, "--allow-unproven", "--json")
    report = json.loads(allowed.stdout)
    assert allowed.exit_code == 0 and report["valid"] and not report["fully_checked"]


def test_lrat_proof_file_beside_the_certificate(tmp_path):
    graph, cert = tmp_path / "er.json", tmp_path / "er.cert.json"
    io.write(gen.erdos_renyi_robust(22, 2, seed=4).topology, graph)
    assert run("certify", graph, "--r", 2, "--proof", "lrat", "-o", cert).exit_code == 0
    files = list(tmp_path.glob("lrat-*.lrat.gz"))
    assert len(files) == 1
    done = run("verify", cert, graph)
    assert done.exit_code == 0 and "LRAT proof checked" in done.stdout
    files[0].write_bytes(b"not gzip")
    assert run("verify", cert, graph).exit_code == 1


def test_impossible_rs_claim_is_refuted(tmp_path):
    """Once a usage error; now refuted like every claim no graph on n nodes satisfies (issue 30;
    every path: tests/test_impossible_claims.py)."""
    graph, cert = tmp_path / "m9.json", tmp_path / "c.json"
    io.write(gen.gamma_merg(9), graph)
    done = run("certify", graph, "--rs", 100, 1, "-o", cert)
    assert done.exit_code == 1 and "no graph on n = 9 nodes is more than" in done.stdout
