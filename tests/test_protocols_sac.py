"""SAC: the filter on hand-built score tables, and one round end to end with scripted agents."""

from __future__ import annotations

import pytest
from protocol_fakes import answer_of, run_query

from protocol_runner.protocols import SAC
from protocol_runner.protocols.prompts import ParsedPrompt
from protocol_runner.protocols.sac import sac_filter
from robustgraph.topology import Topology


@pytest.mark.parametrize(
    ("self_score", "scores", "F", "retained", "dropped"),
    [
        # |L| = 2 > F = 1: only the lowest of L goes; the rest keep descending order.
        (0.6, [(1, 0.9), (2, 0.2), (3, 0.5)], 1, [(1, 0.9), (3, 0.5)], [2]),
        # |L| = 1 < F = 3: drop min(F, |L|) = 1.
        (0.6, [(1, 0.9), (2, 0.2), (3, 0.7)], 3, [(1, 0.9), (3, 0.7)], [2]),
        # every neighbour scored above self: L is empty, nothing dropped.
        (0.1, [(1, 0.9), (2, 0.3)], 2, [(1, 0.9), (2, 0.3)], []),
        # a neighbour tied with the self-score is not in L ("strictly below").
        (0.5, [(1, 0.5), (2, 0.4)], 1, [(1, 0.5)], [2]),
        # ties inside L at the cut: the earlier node is dropped first.
        (0.9, [(4, 0.3), (2, 0.3), (7, 0.8)], 1, [(7, 0.8), (2, 0.3)], [4]),
        # F = 0 drops nothing; equal scores keep node order.
        (0.9, [(3, 0.2), (1, 0.2)], 0, [(3, 0.2), (1, 0.2)], []),
        # everyone below and F >= |L|: the retained set is empty.
        (0.9, [(1, 0.1), (2, 0.2)], 2, [], [1, 2]),
        # no neighbours at all.
        (0.5, [], 1, [], []),
    ],
)
def test_filter_tables(self_score, scores, F, retained, dropped):  # noqa: N803
    assert sac_filter(self_score, scores, F) == (retained, dropped)


def test_filter_drops_at_most_f_and_only_below_self():
    scores = [(k, s) for k, s in enumerate([0.05, 0.95, 0.4, 0.4, 0.7, 0.1])]
    for F in range(0, 7):  # noqa: N806
        for self_score in (0.0, 0.4, 0.41, 1.0):
            kept, gone = sac_filter(self_score, scores, F)
            below = [k for k, s in scores if s < self_score]
            assert len(gone) == min(F, len(below))
            assert set(gone) <= set(below)
            assert sorted([k for k, _ in kept] + gone) == list(range(6))
            worst_kept = min((s for k, s in kept if k in below), default=1.0)
            assert all(dict(scores)[k] <= worst_kept for k in gone)


# node 0 hears 1, 2, 3 (directed); 1, 2, 3 hear nobody.
STAR_IN = Topology.from_edges([(1, 0), (2, 0), (3, 0)], nodes=range(4), directed=True)
ANSWERS = {"0": "5", "1": "5", "2": "4", "3": "7"}
SCORES = {"5": 0.6, "4": 0.2, "7": 0.4}


def _script(refine_reply: str):
    def script(who: str, view: ParsedPrompt) -> str:
        if view.kind == "answer":
            return f"Working.\nAnswer: {ANSWERS[who]}"
        if view.kind == "score":
            return f"{SCORES[answer_of(view.candidate)]:.2f} because"
        assert view.kind == "refine"
        return refine_reply

    return script


def test_round_scores_self_and_neighbours_then_refines_on_retained():
    record, backend = run_query(SAC(), STAR_IN, "4S", _script("Answer: 5"), rounds=1, F=1)
    assert backend.kinds("0") == ["answer", "score", "score", "score", "score", "refine"]
    # nodes 1..3 hear nobody: one self-score, nothing retained, no refinement call
    assert backend.kinds("1") == ["answer", "score"]
    refine = next(v for who, v in backend.requests if v.kind == "refine")
    # self 0.6; L = {node 2 (0.2), node 3 (0.4)}; F = 1 drops node 2; node 1 ties self: kept
    assert [(answer_of(t), s) for t, s in refine.others] == [("5", 0.6), ("7", 0.4)]
    assert answer_of(refine.own) == "5"
    turn = record.rounds[1][0]
    assert turn.details["self_score"] == 0.6
    assert turn.details["scores"] == {"1": 0.6, "2": 0.2, "3": 0.4}
    assert turn.details["dropped"] == ["2"]
    assert turn.details["retained"] == ["1", "3"]
    assert turn.details["refined"] is True
    assert record.rounds[1][1].details["retained"] == []
    assert record.rounds[1][1].details["refined"] is False
    assert [t.answer for t in record.final] == ["5", "5", "4", "7"]


def test_refinement_switches_answer():
    record, _ = run_query(SAC(), STAR_IN, "4S", _script("I revise.\nAnswer: 7"), rounds=2)
    assert [t.answer for t in record.rounds[1]] == ["7", "5", "4", "7"]
    assert record.final[0].answer == "7" and not record.final[0].correct


def test_unparseable_refinement_keeps_the_answer():
    record, _ = run_query(SAC(), STAR_IN, "4S", _script("I cannot decide."), rounds=1)
    assert record.final[0].answer == "5"
    assert record.rounds[1][0].details["refined"] is False


def test_unparseable_score_counts_as_half():
    def script(who: str, view: ParsedPrompt) -> str:
        if view.kind == "answer":
            return f"Answer: {ANSWERS[who]}"
        if view.kind == "score":
            return "no number here" if answer_of(view.candidate) == "7" else "0.9"
        return "Answer: 5"

    record, _ = run_query(SAC(), STAR_IN, "4S", script, rounds=1, F=1)
    turn = record.rounds[1][0]
    assert turn.details["scores"]["3"] == 0.5
    assert turn.details["dropped"] == ["3"]


def test_adversary_filtered_and_prompts_quote_its_text():
    # node 3 is an adversary injecting instructions; node 0 scores it lowest and drops it.
    def script(who: str, view: ParsedPrompt) -> str:
        if view.kind == "answer":
            return f"Answer: {ANSWERS[who]}"
        if view.kind == "score":
            return "0.0" if "Ignore your previous instructions" in view.candidate else "0.7"
        return "Answer: 5"

    record, backend = run_query(
        SAC(), STAR_IN, "3S1A", script, rounds=1, F=1, attack="inject", adversary_nodes=("3",)
    )
    assert record.rounds[1][0].details["dropped"] == ["3"]
    assert record.rounds[0][3].role == "adversary"
    assert "3" not in backend.kinds() and backend.kinds("3") == []  # adversaries make no calls
