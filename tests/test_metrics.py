"""Metrics on a hand-computed example (every value worked out on paper), and the bootstrap.

The paper's definitions (Lee et al. 2026, Sec. 5.1): IAA/FAA over all agents in V (the
adversary included), RA and H-Majority by plurality with a tie counted wrong; the honest-only
(``*_H``) and strict-majority (``*_strict``) variants as extra columns; seeds pooled by a
two-level bootstrap.
"""

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
    plurality_correct,
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
    seed: int = 5,
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
        seed=seed,
        F=1,
        roster={"spec": "2S2W1A", "n": 5},
        rounds=rounds,
        final=turns(final, final_answers),
        decision=None if decision is None else Decision("7" if decision else "3", decision),
        cost=cost,
    )


# The worked example: four SAC queries, agents S0 S1 W2 W3 A4, final = round 1; a wrong
# answer is "3" (so plurality and strict majority agree here; see the plurality tests below).
#
#   query  round 0  final   all V 0->F   honest 0->F  weak 0->F  strong 0->F  RA  H   RAs Hs
#   t0     TFFFF    TTTFF   1/5 -> 3/5   1/4 -> 3/4   0  -> 1/2  1/2 -> 1     1   1   1   1
#   t1     TTTFF    TFFF-   3/5 -> 1/5   3/4 -> 1/4   1/2 -> 0   1   -> 1/2   0   0   0   0
#   t2     TTFFF    TTTFT   2/5 -> 4/5   2/4 -> 3/4   0  -> 1/2  1   -> 1     1   1   1   1
#   t3     FFFFF    TTFFT   0   -> 3/5   0   -> 2/4   0  -> 0    0   -> 1     1   0   1   0
#
# ("-": the adversary sent nothing: answer None, incorrect, no vote.  t3 H: 2 right vs 2 "3",
# a tie: wrong by plurality, and no strict majority either.)
# IAA = (1/5 + 3/5 + 2/5 + 0) / 4 = 0.3     FAA = (3/5 + 1/5 + 4/5 + 3/5) / 4 = 0.55
# BFTI = 0.25   RA = 3/4   H-Majority = 2/4
# IAA_H = (1/4 + 3/4 + 1/2 + 0) / 4 = 0.375  FAA_H = 0.5625  BFTI_H = 0.1875
# weak 0.125 -> 0.25   strong 0.625 -> 0.875
EXAMPLE = [
    record(0, "TFFFF", "TTTFF", cost=Cost(9, 2, 100, 10, 0.5)),
    record(1, "TTTFF", "TFFFF", cost=Cost(9, 0, 120, 12, 0.25), final_answers={4: None}),
    record(2, "TTFFF", "TTTFT", cost=Cost(9, 9, 0, 0, 0.0)),
    record(3, "FFFFF", "TTFFT", cost=Cost(9, 1, 80, 8, 1.25)),
]
EXPECTED = {
    "IAA": 0.3,
    "FAA": 0.55,
    "BFTI": 0.25,
    "RA": 0.75,
    "H_Majority": 0.5,
    "W_IAA": 0.125,
    "W_FAA": 0.25,
    "S_IAA": 0.625,
    "S_FAA": 0.875,
    "IAA_H": 0.375,
    "FAA_H": 0.5625,
    "BFTI_H": 0.1875,
    "RA_first": 0.75,
    "H_Majority_first": 0.75,  # t3 H: 2 right vs 2 "3", S0 (right) votes first
    "RA_strict": 0.75,
    "H_Majority_strict": 0.5,
    "decision": None,
}


def test_metric_names_are_the_papers_plus_named_variants():
    assert METRICS[:9] == (
        "IAA", "FAA", "BFTI", "RA", "W_IAA", "W_FAA", "S_IAA", "S_FAA", "H_Majority"
    )  # fmt: skip
    assert set(METRICS) == set(EXPECTED)


def test_hand_computed_per_query_values():
    v = [query_values(r) for r in EXAMPLE]
    assert [x["IAA"] for x in v] == [0.2, 0.6, 0.4, 0.0]  # the adversary is one of the five
    assert [x["FAA"] for x in v] == [0.6, 0.2, 0.8, 0.6]
    assert [x["IAA_H"] for x in v] == [0.25, 0.75, 0.5, 0.0]  # honest only: four agents
    assert [x["FAA_H"] for x in v] == [0.75, 0.25, 0.75, 0.5]
    assert [x["RA"] for x in v] == [1.0, 0.0, 1.0, 1.0]
    assert [x["H_Majority"] for x in v] == [1.0, 0.0, 1.0, 0.0]
    assert [x["W_FAA"] for x in v] == [0.5, 0.0, 0.5, 0.0]
    assert [x["S_IAA"] for x in v] == [0.5, 1.0, 1.0, 0.0]
    assert [x["round/honest/1"] for x in v] == [0.75, 0.25, 0.75, 0.5]
    assert [x["round/all/1"] for x in v] == [0.6, 0.2, 0.8, 0.6]


def test_hand_computed_metrics_exact():
    m = protocol_metrics(EXAMPLE, resamples=500, seed=1)
    assert m.protocol == "sac" and m.queries == 4
    for name in METRICS:
        assert m.value(name) == pytest.approx(EXPECTED[name]), name
    assert [e.value for e in m.rounds["weak"]] == [0.125, 0.25]
    assert [e.value for e in m.rounds["strong"]] == [0.625, 0.875]
    assert [e.value for e in m.rounds["honest"]] == [0.375, 0.5625]
    assert [e.value for e in m.rounds["all"]] == pytest.approx([0.3, 0.55])
    assert all(m.estimates[name].n == 4 for name in METRICS if name != "decision")


def test_adversary_counts_in_iaa_but_not_in_the_honest_columns():
    # One query: S0 right, W2 right, the adversary wrong (it sent "3"): all V 2/3, honest 1.
    one = QueryRecord(
        "sac/t0", "run", "sac", "t0", 0, "math", "7", 1, 1, {},
        ((Turn(0, "a", "strong", "7", True), Turn(1, "b", "weak", "7", True),
          Turn(2, "c", "adversary", "3", False)),),
        (Turn(0, "a", "strong", "7", True), Turn(1, "b", "weak", "3", False),
         Turn(2, "c", "adversary", "3", False)),
    )  # fmt: skip
    v = query_values(one)
    assert v["IAA"] == pytest.approx(2 / 3) and v["IAA_H"] == 1.0
    assert v["FAA"] == pytest.approx(1 / 3) and v["FAA_H"] == 0.5
    assert v["BFTI"] == pytest.approx(-1 / 3) and v["BFTI_H"] == -0.5
    assert v["RA"] == 0.0  # 1 right vs 2 "3" (the adversary votes)
    assert v["H_Majority"] == 0.0  # 1 vs 1 among the honest: a tie counts as wrong
    assert v["W_IAA"] == 1.0 and v["S_FAA"] == 1.0


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


def test_plurality_versus_strict_majority_and_ties():
    answers = {2: "3", 3: "4", 4: "5"}  # three different wrong answers
    spread = turns("TTFFF", answers)
    assert plurality_correct(spread, ROLES, "math") is True  # 2 right vs 1, 1, 1
    assert majority_correct(spread, ROLES) is False  # but 2 of 5 is no majority
    tie = turns("TFTFF", {1: "3", 3: "3", 4: "4"})  # right 2, "3" 2, "4" 1
    assert plurality_correct(tie, ROLES, "math") is False  # a tie for the top is wrong
    assert plurality_correct(turns("TFFFF", {1: "3.0", 2: "3", 3: "6", 4: None}), ROLES,
                             "math") is False  # "3.0" and "3" are one answer: 1 vs 2
    silent = turns("TFFFF", {1: None, 2: None, 3: None, 4: None})
    assert plurality_correct(silent, ROLES, "math") is True  # unparsed answers cast no vote
    assert plurality_correct(turns("FFFFF", dict.fromkeys(range(5))), ROLES, "math") is False
    assert plurality_correct(turns("TTTTT"), ("nobody",), "math") is None
    text = turns("TFFFF", {1: "Paris ", 2: "paris", 3: "x"})  # text: case and space folded
    assert plurality_correct(text, ROLES, "text") is False


def test_plurality_changes_ra_where_strict_majority_would_not():
    r = record(0, "TTFFF", "TTFFF", final_answers={2: "3", 3: "4", 4: "5"})
    m = protocol_metrics([r], resamples=20)
    assert m.value("RA") == 1.0 and m.value("RA_strict") == 0.0
    assert m.value("H_Majority") == 1.0 and m.value("H_Majority_strict") == 0.0  # 2 vs 1, 1


def test_decision_accuracy_and_protocols_without_rounds():
    records = [
        record(0, "TTFFF", "TTFFF", protocol="majority", decision=True),
        record(1, "FTFFF", "FTFFF", protocol="majority", decision=False),
    ]
    m = protocol_metrics(records, resamples=200)
    assert m.value("decision") == 0.5
    assert m.value("BFTI") == 0.0  # final = initial answers: nothing to improve
    assert m.value("IAA") == pytest.approx((0.4 + 0.2) / 2)
    assert m.value("IAA_H") == (0.5 + 0.25) / 2
    assert len(m.rounds["weak"]) == 1


def test_roster_without_weak_agents_leaves_weak_metrics_undefined():
    strong_only = [
        QueryRecord(
            "sac/t0", "run", "sac", "t0", 0, "math", "7", 0, 0, {},
            ((Turn(0, "a", "strong", "7", True),),), (Turn(0, "a", "strong", "3", False),),
        )
    ]  # fmt: skip
    m = protocol_metrics(strong_only, resamples=50)
    assert m.estimates["W_IAA"] is None and m.estimates["W_FAA"] is None
    assert m.rounds["weak"] == (None,)
    assert m.value("BFTI") == -1.0
    assert m.to_json()["metrics"]["W_IAA"] is None


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
    assert by_protocol["debate"].value("FAA_H") == 0.75
    assert by_protocol["zeta"].queries == 2


def test_bad_record_sets_are_errors():
    with pytest.raises(ParameterError, match="no records"):
        protocol_metrics([])
    with pytest.raises(ParameterError, match="several protocols"):
        protocol_metrics([EXAMPLE[0], record(1, "TTFFF", "TTFFF", protocol="debate")])
    with pytest.raises(ParameterError, match="more than once: sac/t0"):
        protocol_metrics([EXAMPLE[0], EXAMPLE[0]])
    protocol_metrics([EXAMPLE[0], record(0, "TFFFF", "TTTFF", seed=6)])  # other seed: fine


# ----------------------------------------------------------------------------- seeds
def test_seeds_are_pooled_as_a_mean_of_seed_means():
    # seed 5: the worked example (IAA 0.3); seed 6: two queries with IAA 1 and 3/5.
    other = [record(0, "TTTTT", "TTTTT", seed=6), record(1, "TTTFF", "TTTTF", seed=6)]
    m = protocol_metrics(EXAMPLE + other, resamples=400, seed=2)
    assert m.seeds == (5, 6) and m.queries_per_seed == (4, 2) and m.queries == 6
    assert m.per_seed["IAA"] == pytest.approx((0.3, 0.8))
    assert m.value("IAA") == pytest.approx((0.3 + 0.8) / 2)  # each seed weighs the same
    assert m.estimates["IAA"].n == 6
    data = m.to_json()
    assert data["seeds"] == [5, 6] and data["queries_per_seed"] == [4, 2]
    assert data["per_seed"]["IAA"] == {"5": 0.3, "6": 0.8}


def test_two_level_bootstrap_resamples_seeds():
    # Each seed is constant over its queries, so a bootstrap over queries alone would give a
    # zero-width interval; resampling two seeds (0 and 1) gives a mean of 0, 1/2 or 1 with
    # probabilities 1/4, 1/2, 1/4: the 95% interval is [0, 1], the 40% one [1/2, 1/2].
    tables = [np.zeros((6, 1)), np.ones((3, 1))]
    [wide] = bootstrap_means(tables, resamples=4000, seed=1)
    assert (wide.value, wide.low, wide.high, wide.n) == (0.5, 0.0, 1.0, 9)
    [narrow] = bootstrap_means(tables, resamples=4000, confidence=0.4, seed=1)
    assert (narrow.low, narrow.high) == (0.5, 0.5)
    [single] = bootstrap_means([np.zeros((6, 1))], resamples=200)
    assert (single.low, single.high) == (0.0, 0.0)


def test_two_level_bootstrap_matches_a_direct_simulation():
    rng = np.random.default_rng(7)
    tables = [rng.random((n, 1)) for n in (5, 8, 6)]
    [est] = bootstrap_means(tables, resamples=6000, seed=3)
    direct = []
    for _ in range(6000):
        picked = [tables[k] for k in rng.integers(0, 3, size=3)]
        direct.append(np.mean([t[rng.integers(0, len(t), size=len(t))].mean() for t in picked]))
    low, high = np.quantile(direct, [0.025, 0.975])
    assert est.value == pytest.approx(np.mean([t.mean() for t in tables]))
    assert (est.low, est.high) == pytest.approx((low, high), abs=0.02)


def test_per_seed_tables_must_agree_in_width():
    with pytest.raises(ParameterError, match="columns"):
        bootstrap_means([np.zeros((2, 1)), np.zeros((2, 2))])


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
    differences = np.array([[query_values(r)["BFTI"]] for r in EXAMPLE])
    [direct] = bootstrap_means(differences, resamples=1500, seed=5)
    assert (m.estimates["BFTI"].low, m.estimates["BFTI"].high) == pytest.approx(
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
    "module", ["protocol_runner.analysis.metrics",
               "protocol_runner.analysis.plots",
               "protocol_runner.protocols.prompts", "protocol_runner.sim.agents"]
)
def test_docstring_examples_run(module):
    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0
