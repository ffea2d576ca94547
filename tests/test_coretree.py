"""LRAT proofs written from the core search's tree (``proofs/coretree.py``): agreement with the
exhaustive engine, acceptance by the unchanged checker, forged proofs rejected, the prover's
choice between the tree and CaDiCaL."""

from __future__ import annotations

import gzip
from unittest import mock

import pytest
from conftest import topologies
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from robustgraph import generators as gen
from robustgraph.certificate.proofs import coretree, prover
from robustgraph.certificate.proofs.checker import View, check_proof
from robustgraph.certificate.proofs.cnf import encode
from robustgraph.certificate.proofs.lrat import LratError, check_refutation
from solvers.exhaustive import exact_r

SMALL = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def r_star(nb: list[frozenset[int]]) -> int:
    return exact_r([sum(1 << j for j in x) for x in nb])[0]


def lines(text: bytes) -> list[str]:
    return text.decode().splitlines()


@SMALL
@given(topologies(max_n=10))
def test_the_tree_proves_exactly_the_r_the_exhaustive_engine_finds(t):
    if t.n < 2:
        return
    nb = View.of(t).canonical()
    best = r_star(nb)
    for r in range(1, best + 2):
        made = coretree.refute(nb, r)
        if r > best:
            assert made is None  # not r-robust: no refutation, and none is claimed
            continue
        assert made is not None
        steps = check_refutation(encode(nb, r, 1, coretree.ENCODING).clauses, lines(made.text))
        assert steps == made.text.count(b"\n")  # trimmed: the empty clause is the last line


@pytest.fixture(scope="module")
def proved() -> tuple[list[frozenset[int]], int, list[str]]:
    nb = View.of(gen.erdos_renyi(16, 0.5, seed=3, directed=True)).canonical()
    r = r_star(nb)
    made = coretree.refute(nb, r)
    assert made is not None and r >= 2
    return nb, r, lines(made.text)


def _every_line(proof: list[str], change) -> list[list[str]]:
    return [proof[:i] + [change(proof[i])] + proof[i + 1 :] for i in range(len(proof))]


def _drop_last_hint(line: str) -> str:
    tokens = line.split()
    return " ".join(tokens[:-2] + ["0"])


def _flip_first_literal(line: str) -> str:
    tokens = line.split()
    if tokens[1] == "0":  # the empty clause: take its first hint's sign instead
        return " ".join(tokens[:2] + [f"-{tokens[2]}"] + tokens[3:])
    return " ".join([tokens[0], str(-int(tokens[1])), *tokens[2:]])


@pytest.mark.parametrize("change", [_drop_last_hint, _flip_first_literal])
def test_a_forged_line_anywhere_in_the_proof_is_rejected(proved, change):
    nb, r, proof = proved
    clauses = encode(nb, r, 1, coretree.ENCODING).clauses
    assert check_refutation(clauses, proof) == len(proof)
    for forged in _every_line(proof, change):
        with pytest.raises(LratError):
            check_refutation(clauses, forged)


def test_the_proof_refutes_only_its_own_cnf(proved):
    nb, r, proof = proved
    with pytest.raises(LratError):  # the same lines against r + 1's CNF: other clause ids
        check_refutation(encode(nb, r + 1, 1, coretree.ENCODING).clauses, proof)


@pytest.mark.parametrize("directed", [False, True])
def test_prove_writes_the_tree_when_it_is_small_and_the_checker_accepts_it(directed, monkeypatch):
    monkeypatch.setattr(prover, "CORE_TREE_MIN_R", 1)  # r* is 4-5 here: allow the tree
    t = gen.erdos_renyi(14, 0.5, seed=2, directed=directed)
    view = View.of(t)
    nb = view.canonical()
    r = r_star(nb)
    proof, files = prover.prove(view, r, 1, "lrat")
    text = gzip.decompress(files[proof["file"]])
    assert text == coretree.refute(nb, r).text  # the tree's proof, not CaDiCaL's
    assert check_proof(view, r, 1, proof, files.__getitem__).steps == proof["steps"]


def test_prove_falls_back_to_cadical_past_the_tree_size(monkeypatch):
    pytest.importorskip("pysat")
    t = gen.erdos_renyi(14, 0.5, seed=2)
    view = View.of(t)
    nb = view.canonical()
    r = r_star(nb)
    monkeypatch.setattr(coretree, "small_tree", lambda *args: False)
    proof, files = prover.prove(view, r, 1, "lrat")
    assert gzip.decompress(files[proof["file"]]) != coretree.refute(nb, r).text
    assert check_proof(view, r, 1, proof, files.__getitem__).steps == proof["steps"]


def test_prove_falls_back_when_the_tree_runs_out_of_lemmas(monkeypatch):
    pytest.importorskip("pysat")
    view = View.of(gen.erdos_renyi(14, 0.5, seed=2))
    r = r_star(view.canonical())
    monkeypatch.setattr(prover, "CORE_TREE_LEMMAS", 1)
    made = prover.prove(view, r, 1, "lrat")
    assert made is not None and made[0]["kind"] == "lrat"


def test_a_graph_that_is_not_r_robust_gets_no_proof_by_either_path():
    view = View.of(gen.erdos_renyi(14, 0.5, seed=2))
    r = r_star(view.canonical())
    assert coretree.refute(view.canonical(), r + 1) is None
    assert prover.prove(view, r + 1, 1, "lrat") is None


def test_below_the_least_r_cadical_writes_the_proof_of_a_small_tree():
    pytest.importorskip("pysat")
    view = View.of(gen.erdos_renyi(14, 0.5, seed=2))
    nb = view.canonical()
    r = r_star(nb)
    assert r < prover.CORE_TREE_MIN_R and coretree.small_tree(nb, r, prover.CORE_TREE_NODES)
    proof, files = prover.prove(view, r, 1, "lrat")
    assert gzip.decompress(files[proof["file"]]) != coretree.refute(nb, r).text
    assert check_proof(view, r, 1, proof, files.__getitem__).steps == proof["steps"]


def test_a_dense_graph_with_a_small_tree_gets_the_tree():
    view = View.of(gen.erdos_renyi(30, 0.5, seed=1))  # r* = 8, a dry run of under 128 nodes
    nb = view.canonical()
    r = 8
    assert coretree.refute(nb, r + 1) is None  # not 9-robust: 8 is r*
    proof, files = prover.prove(view, r, 1, "lrat")
    assert gzip.decompress(files[proof["file"]]) == coretree.refute(nb, r).text


def test_without_python_sat_the_tree_proves_at_any_r(monkeypatch):
    monkeypatch.setattr(prover.sat, "available", lambda: False)
    view = View.of(gen.erdos_renyi(14, 0.5, seed=2, directed=True))
    nb = view.canonical()
    r = r_star(nb)
    assert r < prover.CORE_TREE_MIN_R
    proof, files = prover._lrat(view, r, 1, None)
    assert gzip.decompress(files[proof["file"]]) == coretree.refute(nb, r).text
    assert check_proof(view, r, 1, proof, files.__getitem__).steps == proof["steps"]


@SMALL
@given(topologies(max_n=9), st.sampled_from([1, None]), st.booleans())
def test_every_lrat_path_proves_exactly_the_r_the_exhaustive_engine_finds(t, least_r, solver):
    """The tree (``least_r`` 1 lets it in at every r), trimmed CaDiCaL, and the tree alone when
    python-sat is missing: a checked proof for every r <= r*, none above."""
    if t.n < 2 or (solver and not prover.sat.available()):
        return
    view = View.of(t)
    best = r_star(view.canonical())
    settings_ = {"CORE_TREE_MIN_R": least_r or prover.CORE_TREE_MIN_R}
    with mock.patch.multiple(prover, **settings_), mock.patch.object(
        prover.sat, "available", lambda: solver
    ):
        for r in range(1, min(best + 1, -(-t.n // 2)) + 1):
            made = prover._lrat(view, r, 1, None)
            if r > best:
                assert made is None
                continue
            if made is None:  # no solver and a tree over the bound: no proof, never a false one
                assert not solver
                continue
            proof, files = made
            assert check_proof(view, r, 1, proof, files.__getitem__).steps == proof["steps"]


def test_at_r_8_a_tree_of_a_few_hundred_nodes_is_written_and_a_forgery_of_it_is_rejected(
    monkeypatch,
):
    """Round 6's wider bound (``prover.core_tree_nodes``): ER(24, 0.55) seed 5, r* = 8, has a
    dry run of 286 nodes, over the 64 of every r below 8 and within the 448 from r = 8 on; the
    prover writes the tree there, and the checker refuses the proof with a step dropped or a
    hint changed. Round 5's bound (64 at every r) gives CaDiCaL's proof instead."""
    pytest.importorskip("pysat")
    view = View.of(gen.erdos_renyi(24, 0.55, seed=5))
    nb = view.canonical()
    r = 8
    assert coretree.refute(nb, r + 1) is None  # not 9-robust: 8 is r*
    assert not coretree.small_tree(nb, r, prover.CORE_TREE_NODES)
    assert coretree.small_tree(nb, r, prover.core_tree_nodes(r))
    proof, files = prover.prove(view, r, 1, "lrat")
    text = gzip.decompress(files[proof["file"]])
    assert text == coretree.refute(nb, r).text  # the tree's proof, not CaDiCaL's
    assert check_proof(view, r, 1, proof, files.__getitem__).steps == proof["steps"]
    clauses = encode(nb, r, 1, coretree.ENCODING).clauses
    proof_lines = lines(text)
    dropped = proof_lines[:10] + proof_lines[11:]  # a later hint names the missing step
    with pytest.raises(LratError):
        check_refutation(clauses, dropped)
    with pytest.raises(LratError):
        check_refutation(clauses, [proof_lines[0].replace(" 0 ", " 0 1 ", 1), *proof_lines[1:]])
    monkeypatch.setattr(prover, "core_tree_nodes", lambda r: prover.CORE_TREE_NODES)
    proof, files = prover.prove(view, r, 1, "lrat")
    assert gzip.decompress(files[proof["file"]]) != text


def test_the_wider_tree_bound_starts_at_r_8():
    assert prover.core_tree_nodes(prover.CORE_TREE_WIDE_R - 1) == prover.CORE_TREE_NODES
    assert prover.core_tree_nodes(prover.CORE_TREE_WIDE_R) == prover.CORE_TREE_WIDE > 128
