"""The commit gate: every outcome, the stale-document scenario, the bridge from answers."""

from __future__ import annotations

import pytest
from commit_fakes import distinct, world
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol_runner.commit import (
    CommitGate,
    Committed,
    Conflict,
    CorrelatedQuorum,
    Infrastructure,
    NonReproducible,
    NoQuorum,
    Reexecution,
    RejectReason,
    decide_from_answers,
    evidence_hash,
    partition_evidence,
    plain_quorum,
    reexecution_from_answer,
    sign_vote,
    value_hash,
)
from protocol_runner.commit.spans import robust_span
from robustgraph.errors import ParameterError

TRUE, STALE = value_hash("Paris"), value_hash("Lyon")
REEXECUTOR = Infrastructure("ck-reexec", "lin-reexec", ("archive-snapshot",))


class Rerun:
    """A re-executor double that counts its calls."""

    def __init__(self, value=TRUE, snapshot="fresh snapshot", error=None):
        self.value, self.snapshot, self.error, self.calls = value, snapshot, error, 0

    def __call__(self, proposal_id):
        self.calls += 1
        if self.error:
            raise self.error
        return Reexecution(self.value, evidence_hash([self.snapshot]))


def vote(keys, voter, value=TRUE, evidence=None, proposal="p1"):
    return sign_vote(keys[voter], voter, proposal, value,
                     evidence_hash([evidence or f"doc-{voter}"]))


@pytest.fixture()
def four():
    return world(distinct("abcd"))


# -- each outcome ----------------------------------------------------------------------------


def test_diverse_reproduced_quorum_commits(four):
    keys, reg = four
    rerun = Rerun()
    gate = CommitGate(reg, 1, rerun, reexecutor=REEXECUTOR)
    out = gate.decide("p1", [vote(keys, a) for a in "abc"] + [vote(keys, "d", STALE)])
    assert isinstance(out, Committed) and out.committed and out.action == "commit"
    assert (out.value_hash, out.evidence, out.units, rerun.calls) == (TRUE, 3, 3, 1)
    assert out.support == ("a", "b", "c") and out.tally == ((TRUE, 3), (STALE, 1))
    assert any("reproduced" in r for r in out.reasons)


def test_shared_evidence_is_a_correlated_quorum(four):
    keys, reg = four
    rerun = Rerun()
    gate = CommitGate(reg, 1, rerun, reexecutor=REEXECUTOR)
    out = gate.decide("p1", [vote(keys, a, evidence="the one doc") for a in "abc"])
    assert isinstance(out, CorrelatedQuorum) and not out.committed and out.action == "escalate"
    assert (out.evidence, out.units, out.escalate_to) == (1, 3, "diversity_round")
    assert any("1 distinct evidence" in r for r in out.reasons)
    assert rerun.calls == 0, "a correlated quorum must not even reach re-execution"


def test_shared_infrastructure_is_a_correlated_quorum():
    infra = {a: Infrastructure(f"ck-{a}", f"lin-{a}", ("shared-index",)) for a in "abc"}
    infra["d"] = Infrastructure("ck-d", "lin-d")
    keys, reg = world(infra)
    gate = CommitGate(reg, 1, Rerun(), reexecutor=REEXECUTOR)
    out = gate.decide("p1", [vote(keys, a) for a in "abc"])
    assert isinstance(out, CorrelatedQuorum) and (out.evidence, out.units) == (3, 1)
    assert any("1 independence units" in r and "{a, b, c}" in r for r in out.reasons)


def test_correlated_quorum_in_diversity_round_goes_to_a_human(four):
    keys, reg = four
    gate = CommitGate(reg, 1, Rerun(), reexecutor=REEXECUTOR)
    votes = [sign_vote(keys[a], a, "p1", TRUE, evidence_hash(["same"]), stage="diversity")
             for a in "abc"]
    out = gate.decide("p1", votes, stage="diversity")
    assert isinstance(out, CorrelatedQuorum) and out.escalate_to == "human"
    assert out.reasons[-1] == "correlated quorum: escalate to human"


@pytest.mark.parametrize(("rerun", "needle"), [
    (Rerun(value=STALE), "non-reproducible"),
    (Rerun(value=None), "produced no value"),
    (Rerun(error=TimeoutError("snapshot fetch timed out")), "raised TimeoutError"),
    (Rerun(snapshot="doc-b"), "equals the evidence of b"),
])
def test_failed_reexecution_aborts(four, rerun, needle):
    keys, reg = four
    gate = CommitGate(reg, 1, rerun, reexecutor=REEXECUTOR)
    out = gate.decide("p1", [vote(keys, a) for a in "abc"])
    assert isinstance(out, NonReproducible) and out.action == "abort" and not out.committed
    assert any(needle in r for r in out.reasons), out.reasons
    assert out.reasons[-1] == "abort"


def test_reexecutor_sharing_infrastructure_with_a_voter_aborts(four):
    keys, reg = four
    gate = CommitGate(reg, 1, Rerun(), reexecutor=Infrastructure("ck-b", "lin-r"))
    out = gate.decide("p1", [vote(keys, a) for a in "abc"])
    assert isinstance(out, NonReproducible)
    assert any("shares checkpoint 'ck-b' with agreeing voter b" in r for r in out.reasons)


def test_split_votes_are_a_conflict(four):
    keys, reg = four
    out = CommitGate(reg, 1, Rerun(), reexecutor=REEXECUTOR).decide(
        "p1", [vote(keys, "a"), vote(keys, "b"), vote(keys, "c", STALE), vote(keys, "d", STALE)])
    assert isinstance(out, Conflict) and out.action == "none"
    assert any("none reaches 2f+1 = 3" in r for r in out.reasons)


def test_two_values_with_a_quorum_each_are_a_conflict():
    keys, reg = world(distinct("abcdefghij"))
    votes = [vote(keys, a) for a in "abcde"] + [vote(keys, a, STALE) for a in "fghij"]
    out = CommitGate(reg, 2, Rerun(), reexecutor=REEXECUTOR).decide("p1", votes)
    assert isinstance(out, Conflict) and any("each reach" in r for r in out.reasons)


def test_too_few_votes_is_no_quorum(four):
    keys, reg = four
    gate = CommitGate(reg, 1, Rerun(), reexecutor=REEXECUTOR)
    out = gate.decide("p1", [vote(keys, "a"), vote(keys, "b")])
    assert isinstance(out, NoQuorum) and any("2 agreeing votes" in r for r in out.reasons)
    assert isinstance(gate.decide("p2", []), NoQuorum)


def test_rejected_votes_do_not_count_towards_quorum(four):
    keys, reg = four
    forged = sign_vote(keys["a"], "c", "p1", TRUE, evidence_hash(["x"]))
    gate = CommitGate(reg, 1, Rerun(), reexecutor=REEXECUTOR)
    out = gate.decide("p1", [vote(keys, "a"), vote(keys, "b"), forged])
    assert isinstance(out, NoQuorum)
    assert [r.reason for r in out.rejected] == [RejectReason.BAD_SIGNATURE]


def test_gate_remembers_counted_votes_as_replays(four):
    keys, reg = four
    gate = CommitGate(reg, 1, Rerun(), reexecutor=REEXECUTOR)
    votes = [vote(keys, a, evidence="same") for a in "abc"]
    assert isinstance(gate.decide("p1", votes), CorrelatedQuorum)
    again = gate.decide("p1", votes)
    assert isinstance(again, NoQuorum)
    assert {r.reason for r in again.rejected} == {RejectReason.REPLAYED}


def test_initial_round_votes_do_not_count_in_the_diversity_round(four):
    keys, reg = four
    gate = CommitGate(reg, 1, Rerun(), reexecutor=REEXECUTOR)
    first = [vote(keys, a) for a in "abc"]
    out = gate.decide("p1", first, stage="diversity")
    assert isinstance(out, NoQuorum)
    assert {r.reason for r in out.rejected} == {RejectReason.WRONG_PROPOSAL}
    fresh = [sign_vote(keys[a], a, "p1", TRUE, evidence_hash([f"doc-{a}"]), stage="diversity")
             for a in "abc"]
    assert gate.decide("p1", fresh, stage="diversity").committed


def test_parameters_are_checked(four):
    _, reg = four
    with pytest.raises(ParameterError):
        CommitGate(reg, 2, Rerun(), reexecutor=REEXECUTOR)
    with pytest.raises(ParameterError):
        CommitGate(reg, -1, Rerun(), reexecutor=REEXECUTOR)
    with pytest.raises(ParameterError):
        CommitGate(reg, 1, Rerun(), reexecutor=REEXECUTOR).decide("p1", [], stage="final")


def test_outcome_json_carries_votes_reasons_and_rejections(four):
    keys, reg = four
    gate = CommitGate(reg, 1, Rerun(), reexecutor=REEXECUTOR)
    out = gate.decide("p1", [vote(keys, a, evidence="same") for a in "abc"] + [vote(keys, "a")])
    data = out.to_json()
    assert data["outcome"] == "no_quorum" and data["action"] == "none"
    assert {r["reason"] for r in data["rejected"]} == {"equivocation"}
    assert len(data["votes"]) == 2 and data["reasons"]


# -- the 7-agent stale-document scenario of issue 7 -----------------------------------------------

SCENARIO = {
    # two agents read the same stale document through one retrieval pipeline
    "r1": Infrastructure("ck-alpha", "lin-rag", ("news-index",)),
    "r2": Infrastructure("ck-beta", "lin-rag", ("news-index",)),
    # two more agents on one checkpoint "verify" it from the same document
    "v1": Infrastructure("ck-gamma", "lin-verify-1"),
    "v2": Infrastructure("ck-gamma", "lin-verify-2"),
    # two agents on that checkpoint family that echo the retrieval agents' messages
    "e1": Infrastructure("ck-gamma", "lin-echo-1"),
    "e2": Infrastructure("ck-gamma", "lin-echo-2"),
    # the one agent with a live source
    "live": Infrastructure("ck-delta", "lin-live", ("live-feed",)),
}
STALE_DOC = "news-index/2019-capital-article"


def stale_votes(keys, proposal="q-capital"):
    echo = ["msg r1: Lyon (per 2019 article)", "msg r2: Lyon (per 2019 article)"]
    votes = [sign_vote(keys[a], a, proposal, STALE, evidence_hash([STALE_DOC]))
             for a in ("r1", "r2", "v1", "v2")]
    votes += [sign_vote(keys[a], a, proposal, STALE, evidence_hash(echo)) for a in ("e1", "e2")]
    votes.append(sign_vote(keys["live"], "live", proposal, TRUE,
                           evidence_hash(["live-feed/today"])))
    return votes


def test_stale_document_quorum_commits_under_plain_quorum_but_not_under_the_gate():
    keys, reg = world(SCENARIO)
    assert [sorted(u) for u in reg.units] == [["r1", "r2"], ["e1", "e2", "v1", "v2"], ["live"]]
    votes = stale_votes(keys)
    plain = plain_quorum(reg, 2, "q-capital", votes)
    assert isinstance(plain, Committed) and plain.value_hash == STALE  # the false commit
    rerun = Rerun(value=TRUE)
    out = CommitGate(reg, 2, rerun, reexecutor=REEXECUTOR).decide("q-capital", votes)
    assert isinstance(out, CorrelatedQuorum) and out.value_hash == STALE
    assert (out.evidence, out.units, out.escalate_to) == (2, 2, "diversity_round")
    assert rerun.calls == 0


def test_stale_document_scenario_goes_to_a_human_when_one_voter_holds_a_unit():
    # f = 2 and three units, one of them the lone live agent: were it Byzantine, the honest
    # agreeing votes would span two units, so the diversity round cannot commit (issue 45)
    keys, reg = world(SCENARIO)
    gate = CommitGate(reg, 2, Rerun(value=TRUE), reexecutor=REEXECUTOR)
    assert isinstance(gate.decide("q-capital", stale_votes(keys)), CorrelatedQuorum)
    docs = [STALE_DOC, "wire/2024-capital", "gov/registry", "atlas/2023", "encyclopedia/rev9",
            "live-feed/today", "almanac/2024"]
    shares = partition_evidence(list(SCENARIO), docs, seed=3)
    answer = {a: (STALE if STALE_DOC in share else TRUE) for a, share in shares.items()}
    votes = [sign_vote(keys[a], a, "q-capital", answer[a], evidence_hash(shares[a]),
                       stage="diversity") for a in SCENARIO]
    out = gate.decide("q-capital", votes, stage="diversity")
    assert isinstance(out, CorrelatedQuorum) and out.value_hash == TRUE
    assert out.evidence >= 3 and out.units == 3 and out.escalate_to == "human"
    assert "3 independence units, 2 after any f = 2 of them are removed" in " ".join(out.reasons)


def test_stale_document_scenario_with_a_live_reexecution_aborts_if_diverse():
    keys, reg = world(SCENARIO)
    votes = stale_votes(keys)
    # every agent on its own checkpoint, lineage and evidence: diverse (even after any two
    # voters are removed) but wrong
    diverse = {a: Infrastructure(f"ck-{a}", f"lin-{a}") for a in SCENARIO}
    keys, reg = world(diverse)
    votes = [sign_vote(keys[v.voter], v.voter, "q-capital", v.value_hash,
                       evidence_hash([f"own notes of {v.voter}"])) for v in votes]
    out = CommitGate(reg, 2, Rerun(value=TRUE), reexecutor=REEXECUTOR).decide("q-capital", votes)
    assert isinstance(out, NonReproducible) and out.value_hash == STALE


# -- properties ------------------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([TRUE, STALE]), st.integers(0, 2), st.integers(0, 2)),
                min_size=7, max_size=7),
       st.booleans())
def test_gate_commits_only_what_plain_quorum_commits_and_only_when_diverse(rows, reproduces):
    infra = {f"a{i}": Infrastructure(f"ck{c}", f"lin{i}") for i, (_, c, _) in enumerate(rows)}
    keys, reg = world(infra)
    votes = [sign_vote(keys[f"a{i}"], f"a{i}", "p", v, evidence_hash([f"doc{e}"]))
             for i, (v, _, e) in enumerate(rows)]
    plain = plain_quorum(reg, 2, "p", votes)
    rerun = Rerun(value=plain.value_hash if plain.committed and reproduces else None)
    out = CommitGate(reg, 2, rerun, reexecutor=REEXECUTOR).decide("p", votes)
    support = [v for v in votes if plain.committed and v.value_hash == plain.value_hash]
    diverse = (robust_span((v.evidence_hash for v in support), 2) >= 3
               and robust_span((reg.unit_of(v.voter) for v in support), 2) >= 3)
    if out.committed:
        assert plain.committed and plain.value_hash == out.value_hash
        assert len({v.evidence_hash for v in support}) >= 3
        assert len({reg.unit_of(v.voter) for v in support}) >= 3
    assert out.committed == (plain.committed and reproduces and diverse)


# -- bridge from protocol answers -------------------------------------------------------------


def test_decide_from_answers_builds_signed_votes_and_both_decisions():
    keys, reg = world(SCENARIO)
    gate = CommitGate(reg, 2, lambda pid: reexecution_from_answer("Lyon", ["mirror"]),
                      reexecutor=REEXECUTOR)
    answers = {a: "Lyon" for a in SCENARIO} | {"live": "Paris", "e2": None}
    seen = {a: [STALE_DOC] for a in SCENARIO} | {"live": ["live-feed/today"]}
    out = decide_from_answers(gate, "run1/q7", answers, seen, keys)
    assert len(out.votes) == 6 and {v.proposal_id for v in out.votes} == {"run1/q7"}
    assert out.committed_value("plain") == "Lyon"
    assert out.committed_value("gate") is None and isinstance(out.gate, CorrelatedQuorum)
    assert out.values[value_hash("Paris")] == "Paris"
    with pytest.raises(ParameterError):
        decide_from_answers(gate, "run1/q8", {"ghost": "x"}, {}, keys)


def test_partition_evidence_is_disjoint_seeded_and_checked():
    a = partition_evidence(["x", "y", "z"], ["d1", "d2"], seed=1)
    assert a == partition_evidence(["x", "y", "z"], ["d1", "d2"], seed=1)
    assert sorted(len(s) for s in a.values()) == [0, 1, 1]
    with pytest.raises(ParameterError):
        partition_evidence(["x", "x"], ["d1"])
    with pytest.raises(ParameterError):
        partition_evidence(["x"], ["d1", "d1"])
