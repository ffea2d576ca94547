"""Trimming CaDiCaL's LRAT log to the lemmas the refutation uses (``proofs/trim.py``)."""

from __future__ import annotations

import pytest
from conftest import topologies
from hypothesis import HealthCheck, given, settings

from robustgraph import generators as gen
from robustgraph.certificate.proofs import sat
from robustgraph.certificate.proofs.checker import View
from robustgraph.certificate.proofs.cnf import encode
from robustgraph.certificate.proofs.lrat import LratError, check_refutation
from robustgraph.certificate.proofs.trim import trim
from solvers.exhaustive import exact_r

pytest.importorskip("pysat")

SMALL = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def lines(text: bytes) -> list[str]:
    return text.decode().splitlines()


def refuted_at_r_star(t):
    """The CNF of "not r*-robust" and CaDiCaL's untrimmed log of its refutation (None when
    r* = 0 or n < 2: nothing to refute)."""
    if t.n < 2:
        return None
    nb = View.of(t).canonical()
    r = exact_r([sum(1 << j for j in x) for x in nb])[0]
    if r < 1:
        return None
    cnf = encode(nb, r, 1)
    status, text = sat.refute(cnf)
    assert status is False
    return cnf, text


@SMALL
@given(topologies(max_n=9))
def test_a_trimmed_log_still_refutes_the_cnf_in_no_more_steps(t):
    logged = refuted_at_r_star(t)
    if logged is None:
        return
    cnf, text = logged
    full = check_refutation(cnf.clauses, lines(text))
    assert check_refutation(cnf.clauses, lines(trim(text))) <= full


def test_trimming_drops_unused_lemmas_and_keeps_a_forgery_a_forgery():
    nb = View.of(gen.erdos_renyi(20, 0.5, seed=5)).canonical()
    r = exact_r([sum(1 << j for j in x) for x in nb])[0]
    cnf = encode(nb, r, 1)
    _, text = sat.refute(cnf)
    trimmed = lines(trim(text))
    assert len(trimmed) < check_refutation(cnf.clauses, lines(text))
    last = trimmed[-1].split()
    forged = trimmed[:-1] + [" ".join(last[:-2] + ["0"])]  # the empty clause's last hint gone
    with pytest.raises(LratError):
        check_refutation(cnf.clauses, forged)


def test_a_log_without_an_empty_clause_is_left_as_it_is():
    assert trim(b"5 1 0 1 2 0\n") == b"5 1 0 1 2 0\n"


@SMALL
@given(topologies(max_n=9))
def test_the_trim_keeps_exactly_the_lemmas_the_empty_clause_reaches(t):
    """Closed (every lemma a kept line hints at is kept) and minimal (every kept lemma is
    reached from the empty clause through kept lines)."""
    logged = refuted_at_r_star(t)
    if logged is None:
        return
    _, text = logged
    added = {int(line.split()[0]) for line in lines(text) if line.split()[1] != "d"}
    kept = {}
    for line in lines(trim(text)):
        head, _, tail = line.partition(" 0 ")
        kept[int(head.split()[0])] = [int(h) for h in tail.split()[:-1]]
    assert all(h in kept for hints in kept.values() for h in hints if h in added)  # closed
    reached, stack = set(), [max(kept)]  # the empty clause is the last kept line
    while stack:
        cid = stack.pop()
        if cid in kept and cid not in reached:
            reached.add(cid)
            stack += kept[cid]
    assert reached == set(kept)  # minimal
