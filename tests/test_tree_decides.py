"""TREE_DECIDES_RULE (issue 40, round 35): at one thread with the portfolio alone, a proof of
an r-robustness claim made and checked before any engine answers decides the claim. Checked
against the definition (``conftest.naive_max_r``) and the exhaustive engine on random graphs and
digraphs, with ``verify`` re-checking every certificate and refusing edited ones."""

from __future__ import annotations

from dataclasses import replace

import networkx as nx
import pytest
from click.testing import CliRunner
from conftest import naive_max_r, topologies
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from robustgraph import io
from robustgraph.certificate import proof_records
from robustgraph.certificate.certifier import certify
from robustgraph.certificate.claims import Claim
from robustgraph.certificate.document import Certificate
from robustgraph.certificate.outcome import trivial_upper
from robustgraph.certificate.proofs import prover
from robustgraph.certificate.verifier import verify
from robustgraph.cli import main
from robustgraph.graphs import as_topology
from solvers.cores import OutOfTime

SLOW = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _first_applies(t, r: int) -> bool:
    return 1 <= r <= trivial_upper(t, Claim.r_robust(r).question())


@SLOW
@given(topologies(max_n=8), st.integers(1, 5), st.sampled_from(["auto", "coretree"]))
def test_a_proof_made_first_decides_exactly_the_true_claims_and_verifies(t, r, mode):
    cert = certify(t, Claim.r_robust(r), threads=1, proof=mode)
    truth = naive_max_r(t) >= r
    engine = certify(t, Claim.r_robust(r), engines="exhaustive", proof="none")
    assert cert.verdict == engine.verdict == ("proven" if truth else "refuted")
    report = verify(cert, t)
    assert report.valid, report.reasons
    check = cert.claims[0].checks[0]
    run = check.runs[0]
    decided_first = run.solved_by.startswith("proof (")
    if decided_first:  # only a true claim, with its checked proof as the check's
        assert truth and check.lower == r and check.proof is not None
        assert run.solved_by == f"proof ({check.proof['kind']})"
        assert report.fully_checked
    if truth and _first_applies(t, r):
        assert decided_first  # a true claim on n <= 8 always has a proof of either mode


@SLOW
@given(topologies(max_n=7), st.integers(1, 4))
def test_a_raised_claim_on_a_certificate_decided_first_is_refused(t, r):
    cert = certify(t, Claim.r_robust(r), threads=1, proof="auto")
    check = cert.claims[0].checks[0]
    if not check.runs[0].solved_by.startswith("proof ("):
        return
    upper = check.upper
    doc = cert.to_dict()
    doc["claims"][0]["claim"]["r"] = r + 1
    doc["claims"][0]["statement"] = f"{r + 1}-robust"
    doc["claims"][0]["checks"][0]["question"]["r"] = r + 1
    for where in (doc["claims"][0]["checks"][0], doc["claims"][0]["checks"][0]["runs"][0]):
        where["lower"] = min(r + 1, upper)
    forged = replace(Certificate.from_dict(doc), files=cert.files)
    assert not verify(forged, t).valid or naive_max_r(t) >= r + 1


def _er(n: int, p: float, seed: int, directed: bool = False):
    return as_topology(nx.gnp_random_graph(n, p, seed=seed, directed=directed))


@pytest.mark.parametrize("directed", [False, True])
def test_the_core_tree_decides_a_true_claim_past_the_exhaustive_range(directed):
    t = _er(26, 0.5, 8213, directed)
    r = certify(t, Claim.maximum(), threads=1, proof="none").claims[0].checks[0].lower
    cert = certify(t, Claim.r_robust(r), threads=1)
    check = cert.claims[0].checks[0]
    assert cert.verdict == "proven"
    assert check.runs[0].solved_by == f"proof ({check.proof['kind']})"
    assert check.lower == r and check.upper == trivial_upper(t, check.question)
    assert verify(cert, t).fully_checked
    refuted = certify(t, Claim.r_robust(r + 1), threads=1)
    assert refuted.verdict == "refuted"
    assert not refuted.claims[0].checks[0].runs[0].solved_by.startswith("proof (")


@pytest.mark.parametrize(
    "options",
    [{"threads": 2}, {"engines": ["portfolio", "exhaustive"]}, {"proof": "lrat"},
     {"proof_first": False}],
)
def test_the_rule_applies_at_one_thread_with_the_portfolio_alone(options):
    t = _er(14, 0.6, 8214)
    r = certify(t, Claim.maximum(), threads=1, proof="none").claims[0].checks[0].lower
    cert = certify(t, Claim.r_robust(r), **{"threads": 1, **options})
    assert cert.verdict == "proven"
    assert all(not run.solved_by.startswith("proof (") for run in cert.claims[0].checks[0].runs)


def test_a_tree_out_of_time_first_leaves_the_engines_and_then_lrat_only(monkeypatch):
    pytest.importorskip("pysat")
    t = _er(26, 0.5, 8213)
    r = certify(t, Claim.maximum(), threads=1, proof="none").claims[0].checks[0].lower
    as_is = certify(t, Claim.r_robust(r), threads=1).claims[0].checks[0]
    assert as_is.runs[0].solved_by == "proof (coretree)"  # no cheaper kind: the tree decides
    calls = []

    def out_of_time(in_neighbors, r, stop=None):
        calls.append(r)
        raise OutOfTime

    monkeypatch.setattr(prover.tree_make, "make", out_of_time)
    seen = []
    real = prover.prove

    def spy(*args, **kwargs):
        seen.append(kwargs.get("kinds"))
        return real(*args, **kwargs)

    monkeypatch.setattr(proof_records, "prove", spy)
    cert = certify(t, Claim.r_robust(r), threads=1)
    check = cert.claims[0].checks[0]
    assert cert.verdict == "proven" and check.runs[0].solved_by != "proof (coretree)"
    assert seen[0] == prover.FIRST_KINDS
    assert calls == [r]  # the tree was tried once, first, and not again after the engines
    assert check.lower == r  # the portfolio proves r* = r exactly
    assert seen[1:] == [("lrat",)] and check.proof["kind"] == "lrat"
    assert verify(cert, t).fully_checked


def test_the_cli_says_the_proof_made_first_decided_the_claim(tmp_path):
    t = _er(26, 0.5, 8213)
    graph, cert = tmp_path / "g.json", tmp_path / "g.cert.json"
    io.write(t, graph)
    ran = CliRunner().invoke(main, ["certify", str(graph), "--r", "7", "--threads", "1",
                                    "-o", str(cert)])
    assert ran.exit_code == 0, ran.output
    assert "7-robust: PROVEN (portfolio: decided by its proof, made first," in ran.output
    checked = CliRunner().invoke(main, ["verify", str(cert), str(graph)])
    assert checked.exit_code == 0 and "every bound checked" in checked.output
