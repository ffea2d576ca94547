"""Incremental cube workers (``cubes.Split(incremental=True)``): one CaDiCaL per worker solves
its cubes as assumptions; the workers' logs, each cube's ``not cube`` step and the tree's steps
make one LRAT refutation of the same CNF, which the unchanged checker accepts or rejects."""

from __future__ import annotations

import pytest
from conftest import topologies
from hypothesis import given
from hypothesis import strategies as st

from robustgraph import generators as gen
from robustgraph.certificate.proofs import cubes
from robustgraph.certificate.proofs.checker import View
from robustgraph.certificate.proofs.cnf import Cnf, encode
from robustgraph.certificate.proofs.lrat import LratError, check_refutation
from robustgraph.errors import ParameterError
from robustgraph.executors import LocalExecutor
from solvers.witness import refutes_r
from tests.test_cubes import SMALL, lines, r_star

pytest.importorskip("pysat")


@SMALL
@given(topologies(max_n=9), st.integers(0, 2))
def test_incremental_answers_agree_with_the_exhaustive_engine_and_their_proofs_check(t, k):
    if t.n < 2:
        return
    nb = View.of(t).canonical()
    k = min(k, t.n)
    best = r_star(nb)
    for r in range(1, best + 2):
        got = cubes.refute(nb, r, 1, cubes.Split(k, incremental=True))
        assert [leaf.cube for leaf in got.leaves] == got.tree.cubes(t.n)
        if r <= best:
            assert got.status is False
            assert check_refutation(encode(nb, r, 1).clauses, lines(got.text)) >= 1
        else:
            assert got.status is True
            assert refutes_r(nb, *got.pair, r)


@pytest.fixture(scope="module")
def shared() -> tuple[list[frozenset[int]], cubes.Conquered, tuple]:
    """A graph at its r* split into 9 cubes on two incremental workers (two processes)."""
    nb = View.of(gen.erdos_renyi(16, 0.5, seed=2)).canonical()
    best = r_star(nb)
    with LocalExecutor(2) as pool:
        got = cubes.refute(nb, best, 1, cubes.Split(2, pool, False, incremental=True))
    return nb, got, encode(nb, best, 1).clauses


def test_two_incremental_workers_give_one_refutation_the_checker_accepts(shared):
    nb, got, clauses = shared
    assert got.status is False and len(got.workers) == 2
    assert check_refutation(clauses, lines(got.text)) >= 1


def test_the_workers_parts_follow_one_another_without_renumbering(shared):
    nb, got, clauses = shared
    heads = [int(row.split()[0]) for row in lines(got.text) if row.split()[1] != "d"]
    assert heads == list(range(len(clauses) + 1, len(clauses) + 1 + len(heads)))


def _not_cube_rows(got: cubes.Conquered, n: int) -> dict[int, int]:
    """Cube index -> the row of its ``not cube`` step (the last clause of exactly its
    negation: the worker's own step follows any lemma of CaDiCaL's equal to it)."""
    rows = lines(got.text)
    out = {}
    for i, cube in enumerate(got.tree.cubes(n)):
        want = sorted(-lit for lit in cube)
        for j, row in enumerate(rows):
            tokens = row.split()
            if tokens[1] != "d" and sorted(map(int, tokens[1 : tokens.index("0", 1)])) == want:
                out[i] = j
    return out


def test_a_missing_cube_or_a_cube_step_in_another_s_place_is_rejected(shared):
    nb, got, clauses = shared
    steps = _not_cube_rows(got, len(nb))
    assert len(steps) == len(got.leaves) >= 2
    rows = lines(got.text)
    missing = [row for j, row in enumerate(rows) if j != steps[0]]
    with pytest.raises(LratError):
        check_refutation(clauses, missing)
    a, b = steps[0], steps[1]  # cube 0's step claims cube 1's clause with its own hints
    swapped = list(rows)
    ta, tb = rows[a].split(), rows[b].split()
    swapped[a] = " ".join([ta[0], *tb[1 : tb.index("0", 1)], *ta[ta.index("0", 1) :]])
    with pytest.raises(LratError):
        check_refutation(clauses, swapped)


def test_an_incremental_split_past_its_time_limit_is_undecided():
    nb = View.of(gen.erdos_renyi(12, 0.5, seed=1)).canonical()
    got = cubes.refute(nb, r_star(nb), 1, cubes.Split(1, incremental=True), time_limit=0.0)
    assert got.status is None and got.text is None


def test_incremental_cubes_refuse_a_non_local_executor():
    class Remote:
        workers = 2

    nb = View.of(gen.erdos_renyi(8, 0.5, seed=1)).canonical()
    with pytest.raises(ParameterError, match="a local pool or on Ray only"):
        cubes.refute(nb, 1, 1, cubes.Split(1, Remote(), incremental=True))  # type: ignore[arg-type]


def test_the_not_cube_step_sets_learned_units_first_and_names_lemmas_by_their_ids():
    # clauses 1-4 imply the unit 1, which propagation alone does not find; clause 5 is -1 or 4
    cnf = Cnf(4, ((1, 2, 3), (1, 2, -3), (1, -2, 3), (1, -2, -3), (-1, 4)))
    assert cubes._rup(cnf, (-4,), []) is None  # -1, then no unit: no conflict
    assert cubes._rup(cnf, (-4,), [(99, (1,))]) == [99, 5]  # the learned unit, then clause 5


def test_incremental_workers_on_ray_give_a_refutation_the_checker_accepts(shared, ray_instance):
    from robustgraph.executors import RayExecutor

    nb, _, clauses = shared
    r = r_star(nb)
    with RayExecutor() as pool:
        got = cubes.refute(nb, r, 1, cubes.Split(2, pool, False, incremental=True))
    assert got.status is False and len(got.workers) == 2  # one worker per CPU of the instance
    assert check_refutation(clauses, lines(got.text)) >= 1
