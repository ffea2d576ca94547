"""Issue 44, item 3: the README's CI gate (a shell ``if`` of ``certify && verify --require
... --require-proven``), run verbatim by bash on a robust and a non-robust graph, and
``verify``'s output on a refuted certificate, which exit 0 must not let anyone misread."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest
from click.testing import CliRunner

from robustgraph import io
from robustgraph.cli import main

ROOT = Path(__file__).resolve().parents[1]


def gate_block() -> str:
    """The README's ``bash`` block that starts with ``if robustgraph certify``."""
    blocks = re.findall(r"```bash\n(.*?)\n```", (ROOT / "README.md").read_text(), flags=re.S)
    (block,) = [b for b in blocks if b.startswith("if robustgraph certify")]
    return block


@pytest.fixture
def shell(tmp_path):
    """Run a bash script in ``tmp_path`` with ``robustgraph`` on PATH (this interpreter)."""
    if shutil.which("bash") is None:
        pytest.skip("no bash")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    program = bin_dir / "robustgraph"
    program.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m robustgraph.cli "$@"\n')
    program.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))

    def run(script: str) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=240)
    return run


def test_the_readme_gate_passes_a_robust_graph_and_stops_a_non_robust_one(tmp_path, shell):
    block = gate_block()
    assert "--require-proven" in block and "--require 'tolerance sac F=1'" in block
    graph = tmp_path / "deployed.graphml"
    nx.write_graphml(nx.circulant_graph(8, [1, 2]), graph)  # 2-robust: F = 1 under sac
    done = shell(block)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "tolerates F = 1 under sac, proven and checked" in done.stdout
    nx.write_graphml(nx.cycle_graph(8), graph)  # 1-robust only
    done = shell(block)
    assert done.returncode == 1
    assert "NOT certified for F = 1: do not deploy" in done.stderr
    assert "proven and checked" not in done.stdout


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_verify_on_a_refuted_certificate_cannot_be_read_as_robust(tmp_path):
    graph, cert = tmp_path / "ring.json", tmp_path / "ring.cert.json"
    io.write(nx.cycle_graph(8), graph)
    assert run("certify", graph, "--r", 2, "-o", cert).exit_code == 1
    done = run("verify", cert, graph)
    assert done.exit_code == 0  # the certificate is true ...
    assert "FAILS its claim" in done.stdout.splitlines()[0]  # ... of a failing graph
    assert f"verdict  REFUTED: {graph} is NOT 2-robust" in done.stdout
    assert "a deployment gate adds --require CLAIM or --require-proven" in done.stdout
    gated = run("verify", cert, graph, "--require", "r 2")
    assert gated.exit_code == 1
    assert "the certificate proves that the graph is NOT 2-robust: r* <= 1" in gated.stdout
    assert run("verify", cert, graph, "--require-proven").exit_code == 1
