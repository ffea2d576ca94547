"""Metrics on a hand-computed example (every value worked out on paper), and the bootstrap."""

from __future__ import annotations

import doctest
import importlib
import random

import numpy as np
import pytest
from record_fakes import ROLES, turns

from protocol_runner.analysis.metrics import (
    METRICS,
    CostSummary,
    bootstrap_means,
    compute_metrics,
    majority_correct,
    protocol_metrics,
    query_values,
)
from protocol_runner.run.records import Cost, Decision, QueryRecord, Turn
from robustgraph.errors import ParameterError

FREE = Cost()


def record(
    task: int,
    initial: str,
    final: str,
    *,
    protocol: str = "sac",
    decision: bool | None = None,
    cost: Cost = FREE,
    final_answers: dict[int, str | None] | None = None,
) -> QueryRecord:
    rounds = (turns(initial),) if protocol == "majority" else (turns(initial), turns(final))
    return QueryRecord(
        query_id=f"{protocol}/t{task}",
        run_id="run",
        protocol=protocol,
        task_id=f"t{task}",
        task_index=task,
        task_kind="math",
        reference="7",
        seed=5,
        F=1,
        roster={"spec": "2S2W1A", "n": 5},
        rounds=rounds,
        final=turns(final, final_answers),
        decision=None if decision is None else Decision("7" if decision else "3", decision),
        cost=cost,
    )


# The worked example: four SAC queries, agents S0 S1 W2 W3 A4, final = round 1.
#
#   query  round 0   final    honest 0->F   weak 0->F   strong 0->F   all-correct   RA  H
#   t0     TFFFF     TTTFF    1/4 -> 3/4    0   -> 1/2  1/2 -> 1      3/5           1   1
#   t1     TTTFF     TFFF-    3/4 -> 1/4    1/2 -> 0    1   -> 1/2    1/5           0   0
#   t2     TTFFF     TTTFT    2/4 -> 3/4    0   -> 1/2  1   -> 1      4/5           1   1
#   t3     FFFFF     TTFFT    0   -> 2/4    0   -> 0    0   -> 1      3/5 (tie H)   1   0
#
# ("-": the adversary sent nothing: answer None, incorrect.)
# IAA = (1/4 + 3/4 + 1/2 + 0) / 4 = 0.375      FAA = (3/4 + 1/4 + 3/4 + 1/2) / 4 = 0.5625
# BFTI = 0.1875   RA = 3/4   H-Majority = 2/4 (t3: 2 of 4 honest correct is a tie, no majority)
# weak 0.125 -> 0.25   strong 0.625 -> 0.875
EXAMPLE = [
    record(0, "TFFFF", "TTTFF", cost=Cost(9, 2, 100, 10, 0.5)),
    record(1, "TTTFF", "TFFFF", cost=Cost(9, 0, 120, 12, 0.25), final_answers={4: None}),
    record(2, "TTFFF", "TTTFT", cost=Cost(9, 9, 0, 0, 0.0)),
    record(3, "FFFFF", "TTFFT", cost=Cost(9, 1, 80, 8, 1.25)),
]
EXPECTED = {
    "iaa": 0.375,
    "faa": 0.5625,
    "bfti": 0.1875,
    "ra": 0.75,
    "h_majority": 0.5,
    "weak_iaa": 0.125,
    "weak_faa": 0.25,
    "strong_iaa": 0.625,
    "strong_faa": 0.875,
    "decision": None,
}


def test_hand_computed_per_query_values():
    v = [query_values(r) for r in EXAMPLE]
    assert [x["iaa"] for x in v] == [0.25, 0.75, 0.5, 0.0]
    assert [x["faa"] for x in v] == [0.75, 0.25, 0.75, 0.5]
    assert [x["ra"] for x in v] == [1.0, 0.0, 1.0, 1.0]
    assert [x["h_majority"] for x in v] == [1.0, 0.0, 1.0, 0.0]
    assert [x["weak_faa"] for x in v] == [0.5, 0.0, 0.5, 0.0]
    assert [x["strong_iaa"] for x in v] == [0.5, 1.0, 1.0, 0.0]
    assert [x["round/honest/1"] for x in v] == [0.75, 0.25, 0.75, 0.5]


def test_hand_computed_metrics_exact():
    m = protocol_metrics(EXAMPLE, resamples=500, seed=1)
    assert m.protocol == "sac" and m.queries == 4
    for name in METRICS:
        assert m.value(name) == EXPECTED[name], name
    assert [e.value for e in m.rounds["weak"]] == [0.125, 0.25]
    assert [e.value for e in m.rounds["strong"]] == [0.625, 0.875]
    assert [e.value for e in m.rounds["honest"]] == [0.375, 0.5625]
    assert all(m.estimates[name].n == 4 for name in METRICS if name != "decision")


def test_hand_computed_cost():
    cost = protocol_metrics(EXAMPLE, resamples=10).cost
    assert (cost.queries, cost.llm_calls, cost.cache_hits, cost.cache_misses) == (4, 36, 12, 24)
    assert (cost.prompt_tokens, cost.completion_tokens, cost.total_tokens) == (300, 30, 330)
    assert cost.query_wall_s == 2.0 and cost.max_query_wall_s == 1.25
    assert cost.cache_hit_rate == 12 / 36
    assert cost.to_json()["mean_query_wall_s"] == 0.5
    assert CostSummary.of([]).cache_hit_rate is None


def test_majority_is_strict():
    assert majority_correct(turns("TTFFF"), ("strong", "weak")) is False  # 2 of 4: a tie
    assert majority_correct(turns("TTTFF"), ("strong", "weak")) is True
    assert majority_correct(turns("TTFFF"), ROLES) is False
    assert majority_correct(turns("TTFFT"), ROLES) is True
    assert majority_correct(turns("TTTTT"), ("nobody",)) is None


def test_decision_accuracy_and_protocols_without_rounds():
    records = [
        record(0, "TTFFF", "TTFFF", protocol="majority", decision=True),
        record(1, "FTFFF", "FTFFF", protocol="majority", decision=False),
    ]
    m = protocol_metrics(records, resamples=200)
    assert m.value("decision") == 0.5
    assert m.value("bfti") == 0.0  # final = initial answers: nothing to improve
    assert m.value("iaa") == (0.5 + 0.25) / 2
    assert len(m.rounds["weak"]) == 1


def test_roster_without_weak_agents_leaves_weak_metrics_undefined():
    strong_only = [
        QueryRecord(
            "sac/t0", "run", "sac", "t0", 0, "math", "7", 0, 0, {},
            ((Turn(0, "a", "strong", "7", True),),), (Turn(0, "a", "strong", "3", False),),
        )
    ]  # fmt: skip
    m = protocol_metrics(strong_only, resamples=50)
    assert m.estimates["weak_iaa"] is None and m.estimates["weak_faa"] is None
    assert m.rounds["weak"] == (None,)
    assert m.value("bfti") == -1.0
    assert m.to_json()["metrics"]["weak_iaa"] is None


def test_record_order_does_not_change_anything():
    shuffled = list(EXAMPLE)
    random.Random(4).shuffle(shuffled)
    assert protocol_metrics(shuffled, seed=9) == protocol_metrics(EXAMPLE, seed=9)


def test_compute_metrics_groups_and_orders_protocols():
    debate = [record(i, "TTFFF", "TTTFF", protocol="debate") for i in range(3)]
    other = [record(i, "TTFFF", "TTTFF", protocol="zeta") for i in range(2)]
    by_protocol = compute_metrics(other + debate + EXAMPLE, resamples=50)
    assert list(by_protocol) == ["sac", "debate", "zeta"]
    ordered = compute_metrics(other + debate + EXAMPLE, resamples=50, order=["zeta", "debate"])
    assert list(ordered) == ["zeta", "debate", "sac"]
    assert by_protocol["debate"].value("faa") == 0.75
    assert by_protocol["zeta"].queries == 2


def test_bad_record_sets_are_errors():
    with pytest.raises(ParameterError, match="no records"):
        protocol_metrics([])
    with pytest.raises(ParameterError, match="several protocols"):
        protocol_metrics([EXAMPLE[0], record(1, "TTFFF", "TTFFF", protocol="debate")])
    with pytest.raises(ParameterError, match="more than once: sac/t0"):
        protocol_metrics([EXAMPLE[0], EXAMPLE[0]])


# ----------------------------------------------------------------------------- bootstrap
def test_intervals_contain_the_point_estimates():
    m = protocol_metrics(EXAMPLE, resamples=2000, seed=3)
    for name in METRICS:
        e = m.estimates[name]
        if e is not None:
            assert e.low <= e.value <= e.high, name
    for group in m.rounds.values():
        for e in group:
            assert e.low <= e.value <= e.high


def test_bootstrap_is_deterministic_for_a_seed():
    rng = np.random.default_rng(0)
    table = rng.random((30, 3))
    table[::4, 1] = np.nan
    first = bootstrap_means(table, resamples=700, seed=11)
    assert bootstrap_means(table, resamples=700, seed=11) == first
    assert bootstrap_means(table, resamples=700, seed=12) != first
    assert first[1].n == 30 - len(range(0, 30, 4))
    assert first[1].value == pytest.approx(np.nanmean(table[:, 1]))


def test_bootstrap_matches_a_hand_computed_distribution():
    # Two queries with values 0 and 1: a resample's mean is 0, 1/2 or 1 with probabilities
    # 1/4, 1/2, 1/4, so the 2.5% and 97.5% quantiles are 0 and 1; a 40% interval is [1/2, 1/2].
    [wide] = bootstrap_means(np.array([[0.0], [1.0]]), resamples=4000, seed=2)
    assert (wide.value, wide.low, wide.high) == (0.5, 0.0, 1.0)
    [narrow] = bootstrap_means(np.array([[0.0], [1.0]]), resamples=4000, confidence=0.4, seed=2)
    assert (narrow.low, narrow.high) == (0.5, 0.5)
    [constant] = bootstrap_means(np.array([[0.25]] * 5), resamples=300)
    assert (constant.low, constant.value, constant.high) == (0.25, 0.25, 0.25)


def test_bfti_interval_is_the_paired_difference():
    m = protocol_metrics(EXAMPLE, resamples=1500, seed=5)
    differences = np.array([[query_values(r)["bfti"]] for r in EXAMPLE])
    [direct] = bootstrap_means(differences, resamples=1500, seed=5)
    assert (m.estimates["bfti"].low, m.estimates["bfti"].high) == pytest.approx(
        (direct.low, direct.high)
    )


def test_bootstrap_edge_cases_and_errors():
    assert bootstrap_means(np.empty((0, 2))) == [None, None]
    assert bootstrap_means(np.array([[np.nan, 1.0]]), resamples=5)[0] is None
    with pytest.raises(ParameterError, match="resamples"):
        bootstrap_means(np.zeros((2, 1)), resamples=0)
    with pytest.raises(ParameterError, match="confidence"):
        bootstrap_means(np.zeros((2, 1)), confidence=1.0)
    with pytest.raises(ParameterError, match="table"):
        bootstrap_means(np.zeros(3))


@pytest.mark.parametrize(
    "module", ["protocol_runner.analysis.metrics", "protocol_runner.analysis.plots"]
)
def test_docstring_examples_run(module):
    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0
