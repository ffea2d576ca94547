"""The public conquer step of cube and conquer (``cubes.conquer``), on any CNF: the proof of
``not cube`` it writes, the model it gives, and its one user outside the module
(``design/minimum_cubes.py``), which must not reach into the module's private helpers."""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from robustgraph.certificate.proofs import cubes
from robustgraph.certificate.proofs.cnf import Cnf
from robustgraph.certificate.proofs.lrat import LratError, check_refutation

pytest.importorskip("pysat")

SMALL = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

VARIABLES = 5


def cnfs() -> st.SearchStrategy[Cnf]:
    """Random CNFs over 5 variables, clauses of 2-3 literals (no unit: :func:`cubes.conquer`),
    dense enough that about half are unsatisfiable."""
    literal = st.integers(1, VARIABLES).flatmap(lambda v: st.sampled_from((v, -v)))
    clause = st.lists(literal, min_size=2, max_size=3, unique_by=abs).map(tuple)
    return st.lists(clause, min_size=1, max_size=30).map(lambda cs: Cnf(VARIABLES, tuple(cs)))


def satisfiable(clauses, fixed: dict[int, bool]) -> bool:
    for values in itertools.product((False, True), repeat=VARIABLES):
        value = dict(enumerate(values, 1)) | fixed
        if all(any(value[abs(lit)] == (lit > 0) for lit in c) for c in clauses):
            return True
    return False


def refutation(cnf: Cnf, v: int) -> tuple[list[str], list[cubes.Conquest]]:
    """Both cubes of a split on ``v``, conquered, and one step from their clauses to the empty
    clause: an LRAT refutation of ``cnf`` when both are refuted."""
    total = len(cnf.clauses)
    got = [cubes.conquer(cnf, (v,), total), cubes.conquer(cnf, (-v,), total + cubes.STRIDE)]
    ends = [total + got[0].lemmas, total + cubes.STRIDE + got[1].lemmas]
    last = f"{total + 2 * cubes.STRIDE + 1} 0 {ends[0]} {ends[1]} 0"
    return [*got[0].text.decode().splitlines(), *got[1].text.decode().splitlines(), last], got


def alone(cnf: Cnf, lit: int) -> list[str]:
    """The proof of ``not (lit)`` that conquer writes, then the empty clause from it and the
    unit clause ``lit`` appended to the CNF (id C + 1): an LRAT refutation of that CNF."""
    total = len(cnf.clauses) + 1
    part = cubes.conquer(cnf, (lit,), total)
    end = total + part.lemmas
    return [*part.text.decode().splitlines(), f"{end + 1} 0 {end} {total} 0"]


@SMALL
@given(cnfs(), st.integers(1, VARIABLES))
def test_conquer_agrees_with_enumeration_and_its_proofs_check(cnf, v):
    lines, got = refutation(cnf, v)
    for lit, part in zip((v, -v), got, strict=True):
        if satisfiable(cnf.clauses, {v: lit > 0}):
            assert part.status is True
            value = {abs(x): x > 0 for x in part.model} | {abs(x): x > 0 for x in part.true}
            assert value[v] is (lit > 0)
            full = {x: value.get(x, False) for x in range(1, VARIABLES + 1)}
            assert satisfiable(cnf.clauses, full)  # the trail and the model satisfy the CNF
        else:
            assert part.status is False
            assert check_refutation((*cnf.clauses, (lit,)), alone(cnf, lit)) >= 1
    if all(part.status is False for part in got):
        assert check_refutation(cnf.clauses, lines) >= 1


def test_a_proof_of_one_cube_in_the_place_of_the_other_is_rejected():
    # (1 2) (1 -2) (-1 2) (-1 -2): each cube on variable 1 is refuted
    cnf = Cnf(2, ((1, 2), (1, -2), (-1, 2), (-1, -2)))
    lines, got = refutation(cnf, 1)
    assert [part.status for part in got] == [False, False]
    assert check_refutation(cnf.clauses, lines) >= 1
    twice = cubes.conquer(cnf, (1,), 4 + cubes.STRIDE).text.decode().splitlines()
    swapped = [*got[0].text.decode().splitlines(), *twice, lines[-1]]
    with pytest.raises(LratError):
        check_refutation(cnf.clauses, swapped)
    with pytest.raises(LratError):  # a cube missing
        check_refutation(cnf.clauses, [*got[0].text.decode().splitlines(), lines[-1]])


def test_a_cube_past_its_time_limit_is_open_unless_propagation_refutes_it():
    cnf = Cnf(3, ((1, 2, 3), (1, -2, 3), (-1, 2), (-1, -2)))
    assert cubes.conquer(cnf, (3,), 4, time_limit=0.0).status is None
    assert cubes.conquer(cnf, (1,), 4, time_limit=0.0).status is False  # propagation


def test_a_contradictory_cube_is_refused():
    with pytest.raises(cubes.ParameterError):
        cubes.conquer(Cnf(1, ((1,),)), (1, -1), 1)


def test_minimum_cubes_uses_only_the_public_conquer_step():
    source = Path(__file__).parents[1] / "robustgraph" / "design" / "minimum_cubes.py"
    imported = [
        alias.name
        for node in ast.walk(ast.parse(source.read_text()))
        if isinstance(node, ast.ImportFrom) and node.module and node.module.endswith("cubes")
        for alias in node.names
    ]
    assert "conquer" in imported
    assert not [name for name in imported if name.startswith("_")]
