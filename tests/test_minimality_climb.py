"""Issue 43: ``prove_minimum(..., climb=True)`` refutes one level at a time from the best
closed-form bound up, keeping the pair clauses, and certifies each level before the next: it
proves the enumerator's minimum, and a run stopped at a level keeps the highest level it
certified, with a certificate the checker accepts on its own."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustgraph.certificate.proofs import minimality as mp
from robustgraph.design import minimum
from robustgraph.design.minimum import prove_minimum
from robustgraph.errors import ParameterError
from robustgraph.generators import max_robustness
from solvers.exhaustive import exact_r
from tests.exact_minima import minimum_edges


@settings(max_examples=8)
@given(st.integers(5, 8).flatmap(lambda n: st.tuples(
    st.just(n), st.integers(2, max_robustness(n)), st.integers(0, 3))))
def test_climbing_proves_the_enumerators_minimum(case) -> None:
    n, r, extra = case
    fewest = minimum_edges(n)[r]
    result = prove_minimum(n, r, fewest + extra, time_limit=120, climb=True)
    assert result.minimum and result.edges == result.lower_bound == fewest
    assert mp.check_minimum(result.document, result.files.__getitem__).lower_bound == fewest
    if result.better is not None:
        assert sum(m.bit_count() for m in result.better) // 2 == fewest
        assert exact_r(result.better)[0] >= r


@pytest.fixture(scope="module")
def stopped_climb():
    """n = 9, r = 3 (closed-form bound 16) climbed to 18 edges, the search stopped at level 18
    as a time limit would stop it; the progress lines it printed."""
    lines: list[str] = []
    search = minimum._search

    def stop_at_18(n, r, s, level, *rest):
        if level == 18:
            return "the time limit stopped the SAT search", None
        return search(n, r, s, level, *rest)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(minimum, "_search", stop_at_18)
        result = prove_minimum(9, 3, 18, time_limit=300, climb=True, progress=lines.append)
    return result, lines


def test_a_stopped_climb_keeps_the_highest_level_it_certified(stopped_climb) -> None:
    result, lines = stopped_climb
    assert max(mp.formula_bounds(9, 3).values()) == 16
    assert not result.minimum and result.lower_bound == 17 and result.edges == 18
    assert result.document["proof"]["kind"] in {"lrat", "lrat-parts"}
    assert "time limit" in result.note
    checked = mp.check_minimum(result.document, result.files.__getitem__)
    assert checked.lower_bound == 17
    assert any(line.startswith("level 17 certified") and "s of CPU" in line for line in lines)


def test_the_stopped_climbs_certificate_does_not_prove_one_more(stopped_climb) -> None:
    result, _ = stopped_climb
    doc = result.document | {"lower_bound": 18, "statement": mp.statement(9, 3, 18)}
    with pytest.raises(mp.MinimalityError):
        mp.check_minimum(doc, result.files.__getitem__)


def test_climbing_and_refuting_directly_prove_the_same_bound() -> None:
    direct = prove_minimum(9, 3, 18, time_limit=300)
    climbed = prove_minimum(9, 3, 18, time_limit=300, climb=True)
    assert direct.minimum and climbed.minimum
    assert direct.lower_bound == climbed.lower_bound == 18


def test_a_stopped_run_hands_back_its_pair_clauses_and_a_later_run_finishes_from_them(
        stopped_climb) -> None:
    result, _ = stopped_climb
    assert len(result.clauses) == result.pairs > 0
    assert all(mp.pair_clause_problem(9, 3, clause) is None for clause in result.clauses)
    resumed = prove_minimum(9, 3, 18, time_limit=300, climb=True, known=result.clauses)
    assert resumed.minimum and resumed.lower_bound == 18
    assert resumed.clauses[:len(result.clauses)] == result.clauses
    assert mp.check_minimum(resumed.document, resumed.files.__getitem__).lower_bound == 18


def test_a_known_pair_clause_the_definition_does_not_give_is_refused() -> None:
    forged = mp.PairClause((0, 1), (2, 3), (2, 3))  # node 1 keeps 2 outside pairs at r = 2
    with pytest.raises(ParameterError, match="known pair clause 1: node 1 keeps"):
        prove_minimum(4, 2, 5, known=[forged])


def test_progress_lines_say_how_fast_the_loop_runs() -> None:
    lines: list[str] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(minimum, "PROGRESS_EVERY", 500)
        result = prove_minimum(9, 3, 18, time_limit=300, climb=True, progress=lines.append)
    counts = [re.fullmatch(r"level (\d+): ([\d,]+) pair clauses, ([\d,]+) candidates/s; "
                           r"[\d.]+ s of CPU", line) for line in lines
              if not line.startswith(("level 17 certified", "level 18 certified"))]
    assert result.minimum and counts and all(counts)
    assert [int(m[2].replace(",", "")) for m in counts] == [
        500 * k for k in range(1, len(counts) + 1)]
    assert all(int(m[3].replace(",", "")) > 0 for m in counts)
