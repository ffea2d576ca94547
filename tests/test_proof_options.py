"""CaDiCaL's options for the LRAT proof (issue 40, round 4): the proofs made with them refute
the same CNF, exist exactly for robust graphs and digraphs (the exhaustive engine or the
definition decides), and a forged one is rejected."""

from __future__ import annotations

import gzip
import hashlib
from unittest import mock

import pytest
from conftest import topologies
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_proofs import robust

from robustgraph import generators as gen
from robustgraph.certificate.proofs import prover, sat
from robustgraph.certificate.proofs.checker import ProofError, View, check_proof
from robustgraph.certificate.proofs.cnf import encode
from robustgraph.certificate.proofs.lrat import check_refutation

pytestmark = pytest.mark.skipif(not sat.available(), reason="python-sat is not installed")

SLOW = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

def _recording(seen: list[dict[str, int] | None]):
    """``sat.refute`` that records the options the prover passes."""
    real = sat.refute

    def refute(cnf, time_limit=None, *, options=None):
        seen.append(options)
        return real(cnf, time_limit, options=options)

    return refute

@SLOW
@given(topologies(max_n=8), st.integers(1, 4), st.integers(1, 3))
def test_lrat_proofs_with_the_options_exist_exactly_for_robust_graphs_and_check(t, r, s):
    s = min(s, t.n)
    if t.n < 2:
        return
    seen: list[dict[str, int] | None] = []
    with mock.patch.object(prover, "UNSTABLE_MIN_R", 1), \
            mock.patch.object(prover.sat, "refute", _recording(seen)):
        made = prover.prove(View.of(t), r, s, "lrat", 10.0)
    assert (made is not None) == robust(t, r, s)
    if made is not None:
        proof, files = made
        assert proof["kind"] == "lrat"
        assert check_proof(View.of(t), r, s, proof, files.__getitem__).steps >= 1
    assert all(options == prover.UNSTABLE for options in seen)

def test_the_options_follow_r():
    assert prover.cadical_options(prover.UNSTABLE_MIN_R - 1) == {}
    assert prover.cadical_options(prover.UNSTABLE_MIN_R) == prover.UNSTABLE
    seen: list[dict[str, int] | None] = []
    t = gen.erdos_renyi(12, 0.9, seed=3)
    with mock.patch.object(prover, "UNSTABLE_MIN_R", 3), \
            mock.patch.object(prover.sat, "refute", _recording(seen)):
        assert prover.prove(View.of(t), 3, 1, "lrat", 10.0) is not None
        assert prover.prove(View.of(t), 2, 1, "lrat", 10.0) is not None
    assert seen == [prover.UNSTABLE, {}]

def test_a_forged_proof_made_with_the_options_is_rejected():
    t = gen.erdos_renyi(12, 0.9, seed=3)
    view = View.of(t)
    with mock.patch.object(prover, "UNSTABLE_MIN_R", 1):
        proof, files = prover.prove(view, 3, 1, "lrat", 10.0)
    lines = gzip.decompress(files[proof["file"]]).decode().splitlines()
    cnf = encode(view.canonical(), 3, 1)
    assert check_refutation(cnf.clauses, lines) == proof["steps"]
    # a literal of the first lemma flipped, the file and its record made consistent again
    tokens = lines[0].split()
    tokens[1] = str(-int(tokens[1]))
    forged = gzip.compress("\n".join([" ".join(tokens), *lines[1:]]).encode() + b"\n")

    digest = hashlib.sha256(forged).hexdigest()
    record = dict(proof, sha256=digest, bytes=len(forged))
    with pytest.raises(ProofError):
        check_proof(view, 3, 1, record, {proof["file"]: forged}.__getitem__)
    # the proof of r = 3 offered for r = 4 (another CNF) is rejected
    with pytest.raises(ProofError):
        check_proof(view, 4, 1, proof, files.__getitem__)
