"""The CrS review's controls (issue 45): a ground-truth reward, a random judge, a biased judge,
on a fixture whose right answer is known; and the paper's initial credibility 0.5 against 1/n."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from protocol_fakes import ScriptedBackend, run_query

from protocol_runner.protocols import PROTOCOLS, CrS, CrSConfig
from protocol_runner.protocols.crs import CrSBiased, CrSRandom, CrSTruth, update_credibility
from protocol_runner.protocols.engine import plurality
from protocol_runner.protocols.prompts import ParsedPrompt
from protocol_runner.tasks import Task
from robustgraph.generators import complete

TASK = Task("t", "What is 2 + 3?", "5")  # the right answer is 5


def _script(who: str, view: ParsedPrompt) -> str:
    """Agents 0 and 1 answer 4 (wrong), 2 and 3 answer 5 (right); the judge model approves
    anything it is shown, so a control that asks it would be visible."""
    if who == "judge":
        return "1.0" if view.kind == "score" else "Answer: 5"
    return "Answer: 4" if who in ("0", "1") else "Answer: 5"


def _queries(protocol: CrS, count: int = 3):
    backend = ScriptedBackend(_script)
    records = [run_query(protocol, complete(4), "4S", backend.script, task=TASK, task_index=k,
                         backend=backend)[0] for k in range(count)]
    return records, backend


def test_the_controls_are_protocols_a_run_can_name():
    assert {name: PROTOCOLS[name].reward for name in ("crs", "crs-truth", "crs-random",
                                                      "crs-biased")} \
        == {"crs": "judge", "crs-truth": "truth", "crs-random": "random", "crs-biased": "biased"}


def test_the_judge_rewards_the_wrong_pick_and_crs_stays_wrong():
    records, backend = _queries(CrS())
    assert [r.decision.answer for r in records] == ["4", "4", "4"]  # a tie goes to node 0
    assert all(r.protocol_data["reward"] == 1.0 for r in records)
    assert [who for who, v in backend.requests if v.kind == "score"] == ["judge"] * 3


def test_the_ground_truth_reward_corrects_the_pick_without_a_judge():
    records, backend = _queries(CrSTruth())
    assert records[0].decision.answer == "4" and records[0].protocol_data["reward"] == -1.0
    after = records[0].protocol_data["credibility_after"]
    assert after["2"] == after["3"] > 0.25 > after["0"] == after["1"]
    assert [r.decision.correct for r in records[1:]] == [True, True]
    assert records[1].protocol_data["reward"] == 1.0
    assert not [who for who, _ in backend.requests if who == "judge"]  # no judge model asked


def test_the_biased_judge_approves_the_wrong_pick_and_entrenches_it():
    records, backend = _queries(CrSBiased())
    assert [r.decision.correct for r in records] == [False, False, False]
    assert all(r.protocol_data["judge_score"] == 1.0 for r in records)
    last = records[-1].protocol_data["credibility_after"]
    assert last["0"] > 0.25 > last["2"]  # the agents that picked the wrong answer gained
    assert not [who for who, _ in backend.requests if who == "judge"]


def test_the_random_judge_is_seeded_per_query_and_asks_no_model():
    first, backend = _queries(CrSRandom())
    again, _ = _queries(CrSRandom())
    scores = [r.protocol_data["judge_score"] for r in first]
    assert scores == [r.protocol_data["judge_score"] for r in again]
    assert len(set(scores)) == 3 and all(0.0 <= s <= 1.0 for s in scores)
    assert [r.protocol_data["reward"] for r in first] == pytest.approx([2 * s - 1 for s in scores])
    assert not [who for who, _ in backend.requests if who == "judge"]


def test_truth_rates_each_supporter_with_judge_contributions():
    records, backend = _queries(CrSTruth(CrSConfig(contributions="judge")), count=1)
    # the pick (4) is wrong: its two supporters are rated 0 each, so they share the blame
    assert records[0].protocol_data["contributions"] == {"0": 0.5, "1": 0.5, "2": 0.0, "3": 0.0}
    assert not [who for who, _ in backend.requests if who == "judge"]


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 9), st.data(), st.floats(-1, 1), st.floats(0.01, 1))
def test_the_papers_initial_credibility_half_is_one_over_n(n, data, reward, eta):
    contributions = data.draw(st.lists(st.floats(-1, 1), min_size=n, max_size=n))
    paper = update_credibility([0.5] * n, contributions, reward, eta)
    ours = update_credibility([1.0 / n] * n, contributions, reward, eta)
    assert paper == pytest.approx(ours, abs=1e-12)
    answers = data.draw(st.lists(st.sampled_from(["4", "5", "6"]), min_size=n, max_size=n))
    votes = list(enumerate(answers))
    # the coordinator's pick (the tally is returned too, in the weights' own scale)
    assert plurality(votes, TASK, dict.fromkeys(range(n), 0.5))[0] \
        == plurality(votes, TASK, dict.fromkeys(range(n), 1.0 / n))[0]
