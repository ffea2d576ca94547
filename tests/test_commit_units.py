"""The unit rule of issue 45: a Byzantine voter cannot supply the missing independence unit.

The gate counts units and evidence hashes after the worst removal of f agreeing votes
(``protocol_runner.commit.spans.robust_span``); whichever f voters are Byzantine, a commit then
rests on honest votes that span f+1 units and f+1 evidence hashes on their own.
"""

from __future__ import annotations

from itertools import combinations

from commit_fakes import world
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol_runner.commit import (
    CommitGate,
    Committed,
    CorrelatedQuorum,
    Infrastructure,
    Reexecution,
    evidence_hash,
    sign_vote,
    value_hash,
)
from protocol_runner.commit.spans import robust_span

RIGHT, WRONG = value_hash("right"), value_hash("wrong")
REEXECUTOR = Infrastructure("ck-reexec", "lin-reexec")


def reproduce(value):
    return lambda proposal_id: Reexecution(value, evidence_hash(["own snapshot"]))


def brute_span(groups, f):
    items = list(groups)
    return min((len({g for k, g in enumerate(items) if k not in set(removed)})
                for r in range(min(f, len(items)) + 1)
                for removed in combinations(range(len(items)), r)), default=0)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 4), max_size=8), st.integers(0, 4))
def test_robust_span_is_the_worst_removal(groups, f):
    assert robust_span(groups, f) == brute_span(groups, f)


def test_one_byzantine_voter_cannot_supply_the_missing_unit():
    # f = 1: four honest copies of one model agree on a wrong value; the adversary declares a
    # checkpoint of its own and votes with them. Counted over all agreeing voters that is two
    # units (the old rule committed); without the adversary it is one.
    infra = {f"s{i}": Infrastructure("sim-strong", f"lin-s{i}") for i in range(4)}
    infra["adv"] = Infrastructure("ck-adv", "lin-adv")
    keys, reg = world(infra)
    votes = [sign_vote(keys[a], a, "p", WRONG, evidence_hash([f"notes of {a}"])) for a in infra]
    out = CommitGate(reg, 1, reproduce(WRONG), reexecutor=REEXECUTOR).decide("p", votes)
    assert isinstance(out, CorrelatedQuorum) and out.units == 2
    assert "2 independence units, 1 after any f = 1 of them are removed" in " ".join(out.reasons)


@st.composite
def deployments(draw):
    """Honest agents with drawn unit declarations, up to f Byzantine voters declaring what they
    like (a unit of their own, or an honest agent's checkpoint), and every vote."""
    f = draw(st.integers(1, 2))
    n = draw(st.integers(3 * f + 1, 3 * f + 4))
    byzantine = draw(st.integers(0, f))
    honest_units = draw(st.lists(st.integers(0, 3), min_size=n - byzantine,
                                 max_size=n - byzantine))
    honest = {f"h{i}": Infrastructure(f"ck{u}", f"lin-h{i}") for i, u in enumerate(honest_units)}
    bad = {}
    for k in range(byzantine):
        copy = draw(st.none() | st.integers(0, 3))
        bad[f"b{k}"] = Infrastructure(f"ck-b{k}" if copy is None else f"ck{copy}", f"lin-b{k}")
    values = {a: draw(st.sampled_from([RIGHT, WRONG])) for a in honest}
    sources = {a: draw(st.integers(0, 3)) for a in honest}
    return f, honest, bad, values, sources


@settings(max_examples=150, deadline=None)
@given(deployments())
def test_a_commit_rests_on_honest_votes_spanning_f_plus_1_units(deployment):
    f, honest, bad, values, sources = deployment
    keys, reg = world({**honest, **bad})
    votes = [sign_vote(keys[a], a, "p", values[a], evidence_hash([f"doc{sources[a]}"]))
             for a in honest]
    # every Byzantine voter backs the wrong value with fabricated, distinct evidence
    votes += [sign_vote(keys[b], b, "p", WRONG, evidence_hash([f"fabricated by {b}"]))
              for b in bad]
    out = CommitGate(reg, f, reproduce(WRONG), reexecutor=REEXECUTOR).decide("p", votes)
    if isinstance(out, Committed):
        agreeing = [a for a in honest if values[a] == out.value_hash]
        # the honest agreeing voters alone span f+1 units, counted in the registry (where a
        # Byzantine declaration can only merge units) and as the honest agents declared them
        assert len({reg.unit_of(a) for a in agreeing}) >= f + 1
        assert len({honest[a].checkpoint for a in agreeing}) >= f + 1
        assert len({sources[a] for a in agreeing}) >= f + 1
    honest_wrong = {reg.unit_of(a) for a in honest if values[a] == WRONG}
    if len(honest_wrong) <= f:  # the Byzantine voters are what the wrong value lacks
        assert not out.committed


def test_the_strict_conflict_rule_escalates_on_independent_dissent(tmp_path):
    from commit_fakes import distinct, keyring

    from protocol_runner.commit import Ledger, verify

    keys, reg = world(distinct("abcd"))
    votes = [sign_vote(keys[a], a, "p", RIGHT, evidence_hash([f"doc {a}"])) for a in "abc"]
    votes.append(sign_vote(keys["d"], "d", "p", WRONG, evidence_hash(["doc d"])))
    default = CommitGate(reg, 1, reproduce(RIGHT), reexecutor=REEXECUTOR).decide("p", votes)
    assert isinstance(default, Committed)
    with Ledger(tmp_path / "strict.sqlite") as ledger:
        gate = CommitGate(reg, 1, reproduce(RIGHT), reexecutor=REEXECUTOR, ledger=ledger,
                          keyring=keyring(keys), conflict="strict")
        out = gate.decide("p", votes)
    assert isinstance(out, CorrelatedQuorum) and out.escalate_to == "diversity_round"
    assert "strict conflict rule: d dissent" in " ".join(out.reasons)
    report = verify(tmp_path / "strict.sqlite")  # re-derived under the enrolled strict rule
    assert report.valid and report.outcomes == {"correlated_quorum": 1}


def _paper_world():
    """4S2W1A with declared checkpoints: seven units of one agent each, f = 1."""
    return world({a: Infrastructure(f"ck-{a}", f"lin-{a}")
                  for a in ("s0", "s1", "s2", "s3", "w0", "w1", "adv")})


def test_the_diverse_conflict_rule_refuses_a_quorum_out_spanned_by_its_dissent():
    # two weak agents err alike and the adversary joins them: 3 votes, the quorum 2f+1; the
    # four strong agents dissent from four units
    keys, reg = _paper_world()
    answer = {"w0": WRONG, "w1": WRONG, "adv": WRONG, "s0": RIGHT, "s1": RIGHT,
              "s2": value_hash("other"), "s3": value_hash("another")}
    votes = [sign_vote(keys[a], a, "p", v, evidence_hash([f"weights of {a}"]))
             for a, v in answer.items()]
    loose = CommitGate(reg, 1, reproduce(WRONG), reexecutor=REEXECUTOR, conflict="quorum")
    assert isinstance(loose.decide("p", votes), Committed)  # the false commit it prevents
    out = CommitGate(reg, 1, reproduce(WRONG), reexecutor=REEXECUTOR).decide("p", votes)
    assert isinstance(out, CorrelatedQuorum)
    assert "diverse conflict rule: the dissent (s0, s1, s2, s3) spans 4 units" in \
        " ".join(out.reasons)


def test_byzantine_dissent_alone_vetoes_under_strict_but_not_under_diverse():
    keys, reg = _paper_world()
    answer = {a: RIGHT for a in ("s0", "s1", "s2", "s3", "w0", "w1")} | {"adv": WRONG}
    votes = [sign_vote(keys[a], a, "p", v, evidence_hash([f"weights of {a}"]))
             for a, v in answer.items()]
    diverse = CommitGate(reg, 1, reproduce(RIGHT), reexecutor=REEXECUTOR)
    assert isinstance(diverse.decide("p", votes), Committed)
    strict = CommitGate(reg, 1, reproduce(RIGHT), reexecutor=REEXECUTOR, conflict="strict")
    assert isinstance(strict.decide("p", votes), CorrelatedQuorum)


@settings(max_examples=100, deadline=None)
@given(deployments())
def test_byzantine_dissent_alone_never_blocks_a_commit_under_the_diverse_rule(deployment):
    f, honest, bad, _, sources = deployment
    keys, reg = world({**honest, **bad})
    votes = [sign_vote(keys[a], a, "p", RIGHT, evidence_hash([f"doc{sources[a]}"]))
             for a in honest]
    dissent = [sign_vote(keys[b], b, "p", WRONG, evidence_hash([f"fabricated by {b}"]))
               for b in bad]
    alone = CommitGate(reg, f, reproduce(RIGHT), reexecutor=REEXECUTOR).decide("p", votes)
    both = CommitGate(reg, f, reproduce(RIGHT), reexecutor=REEXECUTOR).decide("p",
                                                                            votes + dissent)
    assert both.committed == alone.committed
