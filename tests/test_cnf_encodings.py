"""The two orders of the robustness CNF's clause 3 (``proofs/cnf.py``): ``robustgraph-cnf-2``
(in-degree order, what ``certify`` writes since issue 40 round 8) and ``robustgraph-cnf-1``
(canonical order, still checked): each unsatisfiable exactly when the exhaustive engine says
the graph is robust, their proofs checked against their own CNF only."""

from __future__ import annotations

import itertools
from unittest import mock

import pytest
from conftest import topologies
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from robustgraph import generators as gen
from robustgraph.certificate.proofs import cnf as cnf_module
from robustgraph.certificate.proofs import prover
from robustgraph.certificate.proofs.checker import ProofError, View, check_proof
from robustgraph.certificate.proofs.cnf import ENCODINGS, encode, symmetry_order
from robustgraph.certificate.proofs.lrat import check_refutation
from robustgraph.errors import ParameterError
from solvers.exhaustive import exact_r, exact_s

pytest.importorskip("pysat")
from robustgraph.certificate.proofs import sat  # noqa: E402  (needs python-sat)

SMALL = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _masks(nb: list[frozenset[int]]) -> list[int]:
    return [sum(1 << j for j in x) for x in nb]


@SMALL
@given(topologies(max_n=9), st.sampled_from(ENCODINGS), st.integers(1, 3))
def test_each_encoding_is_unsatisfiable_exactly_when_the_graph_is_robust(t, encoding, s):
    if t.n < 2:
        return
    s = min(s, t.n)  # exact_s counts up to n
    nb = View.of(t).canonical()
    best = exact_r(_masks(nb))[0]
    for r in range(1, best + 2):
        robust = r <= best if s == 1 else exact_s(_masks(nb), r)[0] >= s
        cnf = encode(nb, r, s, encoding)
        status, text = sat.refute(cnf)
        assert status is (not robust)
        if robust:  # the refutation checks against this CNF
            assert check_refutation(cnf.clauses, text.decode().splitlines()) >= 1


def test_the_order_is_by_in_degree_in_cnf_2_and_canonical_in_cnf_1():
    nb = View.of(gen.erdos_renyi(12, 0.4, seed=2, directed=True)).canonical()
    degrees = [len(x) for x in nb]
    new = symmetry_order(nb, "robustgraph-cnf-2")
    assert sorted(new) == list(range(12))
    assert all((-degrees[u], u) < (-degrees[v], v) for u, v in itertools.pairwise(new))
    assert symmetry_order(nb, "robustgraph-cnf-1") == list(range(12))
    assert encode(nb, 2, 1) == encode(nb, 2, 1, cnf_module.ENCODING)
    with pytest.raises(ParameterError, match="unknown CNF encoding"):
        encode(nb, 2, 1, "robustgraph-cnf-0")


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_a_proof_checks_under_its_own_encoding_only(encoding):
    view = View.of(gen.erdos_renyi(16, 0.5, seed=11))
    nb = view.canonical()
    assert symmetry_order(nb, ENCODINGS[0]) != symmetry_order(nb, ENCODINGS[1])
    r = exact_r(_masks(nb))[0]
    with mock.patch.object(cnf_module, "ENCODING", encoding), \
            mock.patch.object(prover, "ENCODING", encoding):
        proof, files = prover.prove(view, r, 1, "lrat", 60)
    assert proof["encoding"] == encoding
    assert check_proof(view, r, 1, proof, files.__getitem__).steps == proof["steps"]
    other = ENCODINGS[1 - ENCODINGS.index(encoding)]
    with pytest.raises(ProofError, match="does not check"):  # clause 3 in the other order
        check_proof(view, r, 1, {**proof, "encoding": other}, files.__getitem__)
    with pytest.raises(ProofError, match="unknown CNF encoding"):
        check_proof(view, r, 1, {**proof, "encoding": "robustgraph-cnf-0"}, files.__getitem__)
