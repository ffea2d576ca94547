"""A proof ``certify`` has just made is kept when it is larger than the input budgets: its own
check raises them to the proof's sizes, the user hears which ``verify`` options it needs, and
``verify`` at the budgets in force still refuses it in one line (the budgets guard ``verify``
against hostile files, not ``certify`` against its own output)."""

from __future__ import annotations

import pytest

from robustgraph import generators as gen
from robustgraph.certificate.certifier import certify
from robustgraph.certificate.claims import Claim
from robustgraph.certificate.proofs.prover import own_budgets, verify_budgets
from robustgraph.limits import FILE_BYTES, INFLATED_BYTES, OverBudget, budgets_set

pytest.importorskip("pysat")

GRAPH = gen.erdos_renyi(30, 0.5, seed=3)
"""r* = 8; its LRAT proof of 8-robustness is about half a megabyte of gzip."""


def test_certify_keeps_a_proof_over_the_budgets_and_says_what_verify_needs():
    heard: list[str] = []
    with budgets_set({FILE_BYTES: 30_000}):
        cert = certify(GRAPH, Claim.r_robust(8), proof="lrat", time_limit=60, progress=heard.append)
        proof = cert.claims[0].checks[0].proof
        assert proof["kind"] == "lrat" and proof["bytes"] > 30_000
        with pytest.raises(OverBudget, match="bytes budget"):
            cert.verify(GRAPH)  # verify keeps the budget the user set
    assert f"robustgraph verify needs --max-bytes {proof['bytes']} to check it" in heard[-1]
    assert cert.verify(GRAPH).valid  # at the default budgets it fits


def test_own_budgets_name_only_what_is_exceeded():
    heard: list[str] = []
    cert = certify(GRAPH, Claim.r_robust(8), proof="lrat", time_limit=60, progress=heard.append)
    proof, files = cert.claims[0].checks[0].proof, cert.files
    assert own_budgets(proof, files) == {} and verify_budgets(proof, files) is None
    assert not any("budgets" in line for line in heard)
    with budgets_set({FILE_BYTES: 1_000, INFLATED_BYTES: 1_000}):
        needs = own_budgets(proof, files)
        assert needs[FILE_BYTES] == proof["bytes"]
        assert needs[INFLATED_BYTES] > proof["bytes"]  # the text inflates past the gzip
        assert "--max-inflated" in verify_budgets(proof, files)
