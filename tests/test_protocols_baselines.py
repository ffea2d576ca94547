"""Baselines: CP-WBFT's aggregation, majority vote, plain debate, CrS and the judge-only control."""

from __future__ import annotations

import pytest
from protocol_fakes import ScriptedBackend, answer_of, run_query

from protocol_runner.protocols import CPWBFT, CrS, CrSConfig, Debate, JudgeOnly, Majority
from protocol_runner.protocols.cpwbft import cpwbft_aggregate
from protocol_runner.protocols.crs import shapley_contributions, update_credibility
from protocol_runner.protocols.engine import plurality
from protocol_runner.protocols.prompts import ParsedPrompt
from protocol_runner.tasks import Task
from robustgraph.generators import complete
from robustgraph.topology import Topology

TASK = Task("t", "What is 2 + 3?", "5")


# ----------------------------------------------------------------------------- CP-WBFT
@pytest.mark.parametrize(
    ("entries", "expected"),
    [
        # below-0.5 confidences are dropped before the means are taken
        ([(0, "5", 0.8), (1, "4", 0.3), (2, "4", 0.45)], ("5", 0.8, [0])),
        # highest mean confidence wins even against a larger group
        ([(0, "5", 0.6), (1, "5", 0.6), (2, "4", 0.9)], ("4", 0.9, [0, 1, 2])),
        # equal means: the answer given more often (the majority fallback)
        ([(0, "4", 0.7), (1, "5", 0.7), (2, "5", 0.7)], ("5", 0.7, [0, 1, 2])),
        # all below 0.5: all kept
        ([(0, "5", 0.2), (1, "4", 0.4), (2, "4", 0.4)], ("4", 0.4, [0, 1, 2])),
        # full tie: the agent's own answer (listed first)
        ([(0, "6", 0.7), (1, "5", 0.7)], ("6", 0.7, [0, 1])),
        # unparsed answers do not take part; equal answers are grouped ("5.0" == "5")
        ([(0, None, 1.0), (1, "5.0", 0.6), (2, "5", 0.8)], ("5.0", 0.7, [1, 2])),
        ([(0, None, 0.9)], (None, None, [])),
    ],
)
def test_cpwbft_aggregate(entries, expected):
    answer, confidence, kept = cpwbft_aggregate(entries, TASK)
    assert (answer, None if confidence is None else round(confidence, 6), kept) == expected


def _confidence_script(reports: dict[str, tuple[str, float]]):
    def script(who: str, view: ParsedPrompt) -> str:
        answer, c = reports[who]
        return f"Answer: {answer}\nConfidence: {c}"

    return script


def test_cpwbft_rounds_aggregate_reports_not_adopted_answers():
    path = Topology.from_edges([(0, 1), (1, 2)], nodes=range(3))  # 0 - 1 - 2
    reports = {"0": ("5", 0.9), "1": ("4", 0.6), "2": ("4", 0.55)}
    record, backend = run_query(CPWBFT(), path, "3S", _confidence_script(reports), rounds=3)
    assert backend.kinds() == ["confidence"] * 3  # rounds make no calls
    assert [t.answer for t in record.rounds[1]] == ["5", "5", "4"]  # 2 hears only 1 and itself
    # 1 adopted 0's answer at 0.9 but keeps reporting its own ("4", 0.6): 2 never hears "5"
    assert [t.answer for t in record.rounds[2]] == ["5", "5", "4"]
    assert [t.answer for t in record.rounds[3]] == ["5", "5", "4"]
    assert record.rounds[0][0].details["confidence"] == 0.9
    assert record.rounds[1][1].details["kept"] == ["1", "0", "2"]
    assert record.rounds[1][1].details["confidence"] == 0.9
    # what 1 sent differs from its answer: the record says what each receiver got
    assert record.rounds[1][1].details["sent"] == {"0": "4", "2": "4"}
    assert "sent" not in record.rounds[1][0].details
    assert "sent" not in record.rounds[0][1].details


def test_cpwbft_full_confidence_adversary_reaches_only_its_out_neighbours():
    # 3 (the adversary) - 0 - 1 - 2: only 0 hears the adversary
    path = Topology.from_edges([(3, 0), (0, 1), (1, 2)], nodes=range(4))
    reports = {"0": ("5", 0.9), "1": ("5", 0.8), "2": ("5", 0.8)}
    record, _ = run_query(
        CPWBFT(), path, "3S1A", _confidence_script(reports), rounds=4, attack="fixed-ref",
        adversary_nodes=("3",),
    )
    for turns in record.rounds[1:]:
        assert [t.correct for t in turns[:3]] == [False, True, True]
        assert turns[0].details["confidence"] == 1.0


def test_cpwbft_echo_adversary_hears_reports():
    reports = {"0": ("4", 0.9), "1": ("5", 0.6), "2": ("5", 0.6)}
    record, _ = run_query(
        CPWBFT(), complete(4), "3S1A", _confidence_script(reports), rounds=2,
        attack="echo-then-flip:k=5", adversary_nodes=("3",),
    )
    # round 1: "4" (mean 0.9) beats "5" (0.6, 0.6 and the echo's 1.0: mean 0.73) everywhere
    assert [t.answer for t in record.rounds[1][:3]] == ["4", "4", "4"]
    # the echo copies the plurality of what it heard: the reports, not the aggregates
    assert record.rounds[1][3].answer == "5"


def test_cpwbft_adversary_with_full_confidence_takes_over():
    def script(who: str, view: ParsedPrompt) -> str:
        return "Answer: 5\nConfidence: 0.9"

    record, _ = run_query(
        CPWBFT(), complete(4), "3S1A", script, rounds=1, attack="fixed-ref", adversary_nodes=("3",)
    )
    assert all(not t.correct for t in record.final)


# ----------------------------------------------------------------------------- majority
def test_plurality_groups_equal_answers_and_breaks_ties_by_first_voter():
    assert plurality([(0, "4"), (1, "5"), (2, "5.00"), (3, "4")], TASK)[0] == "4"
    assert plurality([(0, "4"), (1, "5"), (2, "5.00")], TASK) == ("5", {"4": 1.0, "5": 2.0})
    assert plurality([(0, None)], TASK) == (None, {})
    weights = {0: 0.7, 1: 0.2, 2: 0.2}
    assert plurality([(0, "4"), (1, "5"), (2, "5")], TASK, weights)[0] == "4"


def test_majority_counts_adversary_votes_and_no_communication():
    answers = {"0": "5", "1": "5", "2": "4"}

    def script(who: str, view: ParsedPrompt) -> str:
        return f"Answer: {answers[who]}"

    record, backend = run_query(
        Majority(), complete(5), "3S2A", script, rounds=3, attack="collude",
        adversary_nodes=("3", "4"),
    )
    assert backend.kinds() == ["answer"] * 3
    # the two colluders push the same wrong answer: 2 votes for "6" against 2 for "5"... and "4"
    assert record.protocol_data["votes"] == {"5": 2, "4": 1, "6": 2}
    assert record.decision.answer == "5" and record.decision.correct  # tie: first voter's answer
    assert [t.answer for t in record.final[:3]] == ["5", "5", "5"]
    assert len(record.rounds) == 1


def test_majority_silent_adversaries_cast_no_vote():
    def script(who: str, view: ParsedPrompt) -> str:
        return "Answer: 4" if who == "0" else "Answer: 5"

    record, _ = run_query(
        Majority(), complete(4), "2S2A", script, attack="silent", adversary_nodes=("2", "3")
    )
    assert record.protocol_data["votes"] == {"4": 1, "5": 1}
    assert record.final[2].answer is None and not record.final[2].correct


# ----------------------------------------------------------------------------- debate
def test_debate_refines_on_every_neighbour_without_scores():
    answers = {"0": "4", "1": "5", "2": "5"}

    def script(who: str, view: ParsedPrompt) -> str:
        if view.kind == "answer":
            return f"Answer: {answers[who]}"
        assert view.kind == "debate"
        others = sorted(answer_of(t) for t, _ in view.others)
        assert all(s is None for _, s in view.others)
        return f"Answer: {others[-1]}"

    record, backend = run_query(
        Debate(), complete(4), "3S1A", script, rounds=1, attack="collude", adversary_nodes=("3",)
    )
    assert backend.kinds("0") == ["answer", "debate"]
    debate = next(v for who, v in backend.requests if who == "0" and v.kind == "debate")
    assert sorted(answer_of(t) for t, _ in debate.others) == ["5", "5", "6"]  # adversary included
    assert [t.answer for t in record.final[:3]] == ["6", "6", "6"]
    assert record.rounds[1][0].details == {"refined": True}


# ----------------------------------------------------------------------------- CrS
def test_update_credibility_rule():
    after = update_credibility([0.25, 0.25, 0.5], [0.5, 0.5, 0.0], 1.0, 0.1)
    raw = [0.25 * 1.05, 0.25 * 1.05, 0.5]
    assert after == pytest.approx([x / sum(raw) for x in raw])
    assert sum(update_credibility([0.5, 0.5], [1.0, 0.0], -1.0, 1.0)) == pytest.approx(1.0)
    assert update_credibility([0.5, 0.5], [1.0, 1.0], -1.0, 1.0) == [0.5, 0.5]  # all clipped to 0


def test_shapley_contributions():
    values = shapley_contributions(["a", "b", "b", "c"], [0.4, 0.25, 0.25, 0.1], "b")
    assert sum(values) == pytest.approx(1.0)
    assert values[1] == pytest.approx(values[2]) and values[3] == pytest.approx(0.0)
    assert values[0] < 0  # "a" competes with the winner: joining can only hurt it
    sampled = shapley_contributions(["x"] * 13, [1.0] * 13, "x", samples=64, seed=3)
    assert sum(sampled) == pytest.approx(1.0)


def _crs_script(judge_score: float):
    def script(who: str, view: ParsedPrompt) -> str:
        if who == "judge":
            return f"{judge_score}" if view.kind == "score" else "Answer: 5"
        return "Answer: 5" if who in ("0", "1") else "Answer: 4"

    return script


def test_crs_learns_to_discount_the_adversary_across_queries():
    crs = CrS(CrSConfig(eta=0.5))
    backend = ScriptedBackend(_crs_script(1.0))
    history = []
    for k in range(3):
        record, _ = run_query(
            crs, complete(4), "3S1A", backend.script, attack="collude",
            adversary_nodes=("3",), task_index=k, backend=backend,
        )
        history.append(record.protocol_data)
    assert history[0]["credibility_before"] == {str(i): 0.25 for i in range(4)}
    assert record.decision.answer == "5" and record.decision.correct
    assert history[0]["reward"] == 1.0
    assert history[-1]["credibility_after"]["3"] < history[0]["credibility_after"]["3"] < 0.25
    assert history[1]["credibility_before"] == history[0]["credibility_after"]
    assert sum(history[-1]["contributions"].values()) == pytest.approx(1.0)
    judge_calls = [v.kind for who, v in backend.requests if who == "judge"]
    assert judge_calls == ["score"] * 3


def test_crs_resume_restores_credibility():
    first = CrS()
    record, _ = run_query(first, complete(4), "4S", _crs_script(0.0))
    second = CrS()
    second.resume([record])
    follow, _ = run_query(second, complete(4), "4S", _crs_script(0.0), task_index=1)
    assert follow.protocol_data["credibility_before"] == record.protocol_data["credibility_after"]


def test_crs_judge_contributions():
    record, backend = run_query(
        CrS(CrSConfig(contributions="judge")), complete(4), "4S", _crs_script(0.8)
    )
    contributions = record.protocol_data["contributions"]
    assert contributions["0"] == pytest.approx(0.5) and contributions["2"] == 0.0
    assert [v.kind for who, v in backend.requests if who == "judge"] == ["score"] * 3


def test_judge_only_answers_alone():
    record, backend = run_query(JudgeOnly(), complete(4), "3S1A", _crs_script(1.0))
    assert backend.kinds() == ["answer"] and backend.requests[0][0] == "judge"
    assert record.rounds == ()
    assert record.decision.answer == "5"
    assert [t.answer for t in record.final if t.honest] == ["5", "5", "5"]
