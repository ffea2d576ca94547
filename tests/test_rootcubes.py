"""LRAT proofs split at the core search's roots (``proofs/rootcubes.py``): agreement with the
exhaustive engine, acceptance by the unchanged LRAT checker, forged proofs rejected, the split
into roots (a, b) and CaDiCaL's own empty clause both checked."""

from __future__ import annotations

import pytest
from conftest import topologies
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from robustgraph import generators as gen
from robustgraph.certificate.proofs.checker import View
from robustgraph.certificate.proofs.cnf import encode
from robustgraph.certificate.proofs.lrat import LratError, check_refutation
from solvers.exhaustive import exact_r

pytest.importorskip("pysat")
from robustgraph.certificate.proofs import rootcubes  # noqa: E402  (needs python-sat)

SMALL = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def r_star(nb: list[frozenset[int]]) -> int:
    return exact_r([sum(1 << j for j in x) for x in nb])[0]


def lines(text: bytes) -> list[str]:
    return text.decode().splitlines()


@SMALL
@given(topologies(max_n=10), st.sampled_from([1, rootcubes.BUDGET]))
def test_the_roots_prove_exactly_the_r_the_exhaustive_engine_finds(t, budget):
    """Budget 1 splits nearly every cube that unit propagation does not settle into its roots."""
    if t.n < 2:
        return
    nb = View.of(t).canonical()
    best = r_star(nb)
    for r in range(1, best + 2):
        made = rootcubes.refute(nb, r, budget=budget)
        if r > best:
            assert made is None  # not r-robust: no refutation, and none is claimed
            continue
        assert made is not None
        steps = check_refutation(encode(nb, r, 1).clauses, lines(made.text))
        assert steps == made.text.count(b"\n")  # trimmed: the empty clause is the last line


@pytest.fixture(scope="module", params=[1, rootcubes.BUDGET])
def proved(request) -> tuple[list[frozenset[int]], int, list[str]]:
    nb = View.of(gen.erdos_renyi(20, 0.5, seed=3)).canonical()
    r = r_star(nb)
    made = rootcubes.refute(nb, r, budget=request.param)
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
    clauses = encode(nb, r, 1).clauses
    assert check_refutation(clauses, proof) == len(proof)
    for forged in _every_line(proof, change):
        with pytest.raises(LratError):
            check_refutation(clauses, forged)


def test_a_dropped_step_is_rejected(proved):
    nb, r, proof = proved
    clauses = encode(nb, r, 1).clauses
    for i in range(len(proof) - 1):  # the last line is the empty clause itself
        with pytest.raises(LratError):
            check_refutation(clauses, proof[:i] + proof[i + 1 :])


def test_the_proof_refutes_only_its_own_cnf(proved):
    nb, r, proof = proved
    with pytest.raises(LratError):  # the same lines against r + 1's CNF: other clause ids
        check_refutation(encode(nb, r + 1, 1).clauses, proof)


@pytest.mark.parametrize("directed", [False, True])
def test_a_graph_that_is_not_r_robust_gets_no_proof(directed):
    nb = View.of(gen.erdos_renyi(14, 0.4, seed=5, directed=directed)).canonical()
    r = r_star(nb)
    assert rootcubes.refute(nb, r) is not None
    assert rootcubes.refute(nb, r + 1) is None
    assert rootcubes.refute(nb, r + 1, budget=1) is None
