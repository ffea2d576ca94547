"""The robustness CNF's encodings (``proofs/cnf.py``): ``robustgraph-cnf-1`` (clause 3 in the
canonical order), ``robustgraph-cnf-2`` (in-degree order; the core tree's proofs), and
``robustgraph-cnf-3`` (cnf-2's order, totalizers for the guarded counters: what ``certify``
writes for CaDiCaL's proofs since issue 40 round 11): each unsatisfiable exactly when the
exhaustive engine says the graph is robust, their proofs checked against their own CNF only,
their sizes in closed form equal to what is built."""

from __future__ import annotations

import gzip
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
from robustgraph.certificate.proofs.lrat import LratError, check_refutation
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
            mock.patch.object(prover, "ENCODING", encoding), \
            mock.patch.object(prover, "_from_core_tree", lambda *args: None):  # CaDiCaL's
        proof, files = prover.prove(view, r, 1, "lrat", 60)
    assert proof["encoding"] == encoding
    assert check_proof(view, r, 1, proof, files.__getitem__).steps == proof["steps"]
    for other in set(ENCODINGS) - {encoding}:  # clause 3's order or the counters differ
        with pytest.raises(ProofError, match="does not check|is for a CNF of"):
            check_proof(view, r, 1, {**proof, "encoding": other}, files.__getitem__)
    with pytest.raises(ProofError, match="unknown CNF encoding"):
        check_proof(view, r, 1, {**proof, "encoding": "robustgraph-cnf-0"}, files.__getitem__)


def _admits(clauses: list[tuple[int, ...]], fixed: dict[int, bool], free: list[int]) -> bool:
    """Whether some values of the ``free`` variables satisfy ``clauses`` under ``fixed``."""
    for values in itertools.product((False, True), repeat=len(free)):
        value = {**fixed, **dict(zip(free, values, strict=True))}
        if all(any(value[abs(lit)] == (lit > 0) for lit in clause) for clause in clauses):
            return True
    return False


@pytest.mark.parametrize("d", range(1, 7))
def test_the_totalizer_admits_exactly_the_guard_or_at_most_k(d):
    for k in range(d + 1):
        b = cnf_module.ClauseBuilder(d + 1)  # literals 1..d, the guard d + 1
        b.at_most_tree(list(range(1, d + 1)), k, guard=(d + 1,))
        assert all(len(clause) >= 2 for clause in b.clauses)  # never a unit
        registers = list(range(d + 2, b.top + 1))
        for bits in itertools.product((False, True), repeat=d + 1):
            fixed = dict(zip(range(1, d + 2), bits, strict=True))
            assert _admits(b.clauses, fixed, registers) == (bits[d] or sum(bits[:d]) <= k)


@SMALL
@given(topologies(max_n=14), st.integers(1, 6), st.integers(1, 3), st.sampled_from(ENCODINGS))
def test_the_sizes_in_closed_form_are_those_built(t, r, s, encoding):
    if t.n < 2:
        return
    nb = View.of(t).canonical()
    cnf = encode(nb, r, s, encoding)
    assert cnf_module.size([len(x) for x in nb], r, s, encoding) == (
        cnf.variables, len(cnf.clauses))
    assert all(len(clause) >= 2 for clause in cnf.clauses)


def test_the_tree_refutes_cnf_2_and_certify_names_it():
    k5 = View.of(gen.k_circulant(9, 4))  # 8-regular on 9 nodes: r* = 5, a small core tree
    with mock.patch.object(prover, "CORE_TREE_MIN_R", 1):
        proof, files = prover.prove(k5, 4, 1, "lrat", 60)
    assert proof["encoding"] == prover.coretree.ENCODING == "robustgraph-cnf-2"
    assert check_proof(k5, 4, 1, proof, files.__getitem__).steps == proof["steps"]
    assert cnf_module.ENCODING == "robustgraph-cnf-3"


@SMALL
@given(topologies(max_n=9), st.integers(1, 4), st.data())
def test_cnf_3_proofs_check_exactly_for_robust_graphs_and_a_cut_one_is_rejected(t, r, data):
    if t.n < 2:
        return
    view = View.of(t)
    with mock.patch.object(prover, "_from_core_tree", lambda *args: None):  # CaDiCaL's proof
        made = prover.prove(view, r, 1, "lrat", 30)
    assert (made is not None) == (r <= exact_r(_masks(view.canonical()))[0])
    if made is None:
        return
    proof, files = made
    assert proof["encoding"] == "robustgraph-cnf-3"
    clauses = encode(view.canonical(), r, 1).clauses
    lines = gzip.decompress(files[proof["file"]]).decode().splitlines()
    assert check_refutation(clauses, lines) == proof["steps"]
    k = data.draw(st.integers(0, len(lines) - 1))
    tokens = lines[k].split()  # the step's last hint dropped: no conflict is reached
    with pytest.raises(LratError):
        check_refutation(clauses, [*lines[:k], " ".join(tokens[:-2] + ["0"]), *lines[k + 1:]])
    if k < len(lines) - 1:  # a trimmed proof uses every step before the empty clause
        with pytest.raises(LratError):
            check_refutation(clauses, lines[:k] + lines[k + 1:])
