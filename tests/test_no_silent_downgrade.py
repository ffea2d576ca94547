"""Issue 44, item 1: no ``certify`` run prints PROVEN (or exits 0) without a checkable proof.

The shared test environment has every extra, so a default install without python-sat is
simulated by making :func:`robustgraph.certificate.proofs.sat.available` say False.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import networkx as nx
import pytest
from click.testing import CliRunner

from robustgraph import generators as gen
from robustgraph import io
from robustgraph.certificate.batch import certify_file, exit_code
from robustgraph.certificate.claims import Claim
from robustgraph.certificate.outcome import UNCHECKED_EXIT
from robustgraph.certificate.proofs import coretree, sat, tree_make
from robustgraph.cli import main

ROOT = Path(__file__).resolve().parents[1]


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def _says_proven(stdout: str) -> bool:
    """A claim line reading PROVEN, or the verdict line reading proven."""
    return ": PROVEN" in stdout or "verdict  proven" in stdout


@pytest.fixture
def no_python_sat(monkeypatch):
    """The default install before issue 44: no python-sat, so no LRAT proof from CaDiCaL. The
    proofs from the core search's tree (the LRAT one of :mod:`.coretree` and the core-tree
    certificate of :mod:`.tree_make`) need no solver; they are turned off here so that the
    claims reach the path that would need python-sat."""
    monkeypatch.setattr(sat, "available", lambda: False)
    monkeypatch.setattr(coretree, "small_tree", lambda *args: False)
    monkeypatch.setattr(tree_make, "make", lambda *args: None)


def test_python_sat_is_in_the_default_install():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert any(dep.startswith("python-sat") for dep in project["dependencies"])


def test_proof_none_never_prints_proven_nor_exits_0(tmp_path):
    graph, cert = tmp_path / "m9.json", tmp_path / "m9.cert.json"
    io.write(gen.gamma_merg(9), graph)
    done = run("certify", graph, "--r", 2, "--proof", "none", "-o", cert)
    assert done.exit_code == UNCHECKED_EXIT == 5
    assert not _says_proven(done.stdout)
    assert "UNCHECKED, NOT PROVEN (exit 5)" in done.stdout
    assert "--proof none asked for no proof" in done.stdout
    # the certificate is written, and verify agrees that it is not a checkable one
    assert run("verify", cert, graph, "--require", "r 2", "--require-proven").exit_code == 1
    as_json = run("certify", graph, "--r", 2, "--proof", "none", "-o", cert, "--json")
    assert as_json.exit_code == 5 and "UNCHECKED, NOT PROVEN (exit 5)" in as_json.stderr


def _er40(tmp_path, p, seed):
    path = tmp_path / f"er40-{p}-{seed}.graphml"
    nx.write_graphml(nx.erdos_renyi_graph(40, p, seed=seed), path)
    return path


def test_without_python_sat_proven_means_checkable(tmp_path, no_python_sat):
    """Every claim on n = 40 graphs (beyond exhaustive recomputation): a run either proves
    with a checkable proof (exit 0, and verify --require-proven passes) or says what is
    missing and how to get it (exit 5); at least one needs LRAT, as the issue's did."""
    seen = set()
    for p, seed, r in [(0.5, 1, 8), (0.5, 1, 6), (0.3, 3, 2), (0.5, 2, 8)]:
        graph = _er40(tmp_path, p, seed)
        cert = tmp_path / f"{graph.stem}-{r}.cert.json"
        done = run("certify", graph, "--r", r, "-o", cert)
        seen.add(done.exit_code)
        if done.exit_code == 0:
            assert _says_proven(done.stdout) and "NO PROOF" not in done.stdout
            gate = run("verify", cert, graph, "--require", f"r {r}", "--require-proven")
            assert gate.exit_code == 0, gate.stdout
        elif done.exit_code == UNCHECKED_EXIT:
            assert not _says_proven(done.stdout), done.stdout
            assert "pip install 'robustgraph[proofs]'" in done.stdout
            assert run("verify", cert, graph, "--require", f"r {r}").exit_code == 1
        else:
            assert done.exit_code == 1 and "REFUTED" in done.stdout
    assert UNCHECKED_EXIT in seen


def test_batch_counts_unchecked_graphs_apart(tmp_path):
    graph = tmp_path / "m9.json"
    io.write(gen.gamma_merg(9), graph)
    target = tmp_path / "m9.cert.json"
    row = certify_file(str(graph), (Claim.r_robust(2),), {"proof": "none"}, {}, str(target))
    assert row["status"] == "unchecked"
    assert exit_code(["proven", row["status"]]) == UNCHECKED_EXIT
