"""Issue 30, item 7: a claim no graph on n nodes can satisfy gets one answer on every path.

``certify merg9.json --rs 9 1`` was a usage error (exit 2, no certificate) while ``--r 9`` and
``--F 9 --model sac`` were REFUTED (exit 1, certificate). Now every such claim (a question with
r > ceil(n/2), or s > n) is refuted like any false claim, on the CLI (one graph and ``--batch``)
and in Python, and the certificate verifies (docs/cli.md, certify).
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import robustgraph as rg
from robustgraph import generators as gen
from robustgraph import io
from robustgraph.certificate.claims import impossible
from robustgraph.cli import main

CLAIMS = {  # on n = 9, ceil(n/2) = 5
    "--rs 9 1": rg.Claim.rs_robust(9, 1),
    "--r 9": rg.Claim.r_robust(9),
    "--F 9 --model sac": rg.Claim.tolerance(9, "sac"),
    "--F 5 --model wmsr-total": rg.Claim.tolerance(5, "wmsr-total"),
    "--rs 2 10": rg.Claim.rs_robust(2, 10),
}


@pytest.fixture(scope="module")
def merg9(tmp_path_factory):
    path = tmp_path_factory.mktemp("impossible") / "merg9.json"
    io.write(gen.gamma_merg(9), path)
    return path


@pytest.mark.parametrize("args", sorted(CLAIMS))
def test_every_cli_path_refutes_and_writes_a_certificate_that_verifies(merg9, tmp_path, args):
    cert = tmp_path / "c.json"
    done = CliRunner().invoke(main, ["certify", str(merg9), *args.split(), "-o", str(cert)])
    assert done.exit_code == 1, done.output
    assert "REFUTED (" in done.stdout and cert.exists()
    assert json.loads(cert.read_text())["verdict"] == "refuted"
    assert CliRunner().invoke(main, ["verify", str(cert), str(merg9)]).exit_code == 0


@pytest.mark.parametrize("args", sorted(CLAIMS))
def test_python_certify_gives_the_same_answer(args):
    t = gen.gamma_merg(9)
    claim = CLAIMS[args]
    assert impossible(claim, t.n) is not None
    cert = rg.certify(t, claim)
    assert cert.verdict == "refuted" and cert.exit_code == 1 and cert.verify(t).valid


def test_batch_refutes_it_per_graph(merg9, tmp_path):
    out = tmp_path / "certs"
    done = CliRunner().invoke(
        main, ["certify", "--batch", str(merg9.parent), "--r", "9", "--workers", "1",
               "-o", str(out), "--json"]
    )
    assert done.exit_code == 1, done.output
    assert (out / "merg9.cert.json").exists()


def test_a_satisfiable_claim_has_no_note():
    assert impossible(rg.Claim.r_robust(5), 9) is None
    assert impossible(rg.Claim.rs_robust(5, 9), 9) is None
