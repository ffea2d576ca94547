"""Registry, independence units, canonical hashes and vote validation (every rejection kind)."""

from __future__ import annotations

import logging
import math

import networkx as nx
import pytest
from commit_fakes import distinct, world
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol_runner.commit import (
    AgentRecord,
    Infrastructure,
    Registry,
    RejectReason,
    Vote,
    canonical_json,
    evidence_hash,
    public_key_hex,
    sign_vote,
    validate_votes,
    value_hash,
)
from robustgraph.errors import ParameterError

V42, V43 = value_hash("42"), value_hash("43")


# -- registry and units -------------------------------------------------------------------


def test_units_follow_chains_of_shared_attributes():
    _, reg = world({
        "a": Infrastructure("ck1", "l1", ("wiki",)),
        "b": Infrastructure("ck2", "l2", ("wiki",)),   # shares corpus with a
        "c": Infrastructure("ck2", "l3"),              # shares checkpoint with b only
        "d": Infrastructure("ck4", "l3"),              # shares lineage with c only
        "e": Infrastructure("ck5", "l5", ("news",)),
        "f": Infrastructure("ck6", "l6"),
    })
    assert [sorted(u) for u in reg.units] == [["a", "b", "c", "d"], ["e"], ["f"]]
    assert reg.unit_of("d") == reg.unit_of("a") != reg.unit_of("e")


def test_attribute_kinds_never_match_across_kinds():
    _, reg = world({"a": Infrastructure("x", "l1"), "b": Infrastructure("c2", "x", ("x",))})
    assert len(reg.units) == 2


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.sets(st.integers(0, 3))),
                min_size=1, max_size=7))
def test_units_are_connected_components_of_sharing(rows):
    infra = {f"a{i}": Infrastructure(f"ck{c}", f"l{lin}", tuple(f"corp{x}" for x in corp))
             for i, (c, lin, corp) in enumerate(rows)}
    _, reg = world(infra)
    g = nx.Graph()
    g.add_nodes_from(infra)
    for a in infra:
        for b in infra:
            if a < b and infra[a].attributes() & infra[b].attributes():
                g.add_edge(a, b)
    assert {frozenset(c) for c in nx.connected_components(g)} == set(reg.units)


def fresh_public_key() -> str:
    return public_key_hex(Ed25519PrivateKey.generate().public_key())


@pytest.mark.parametrize("build", [
    lambda k: (AgentRecord("a", k, Infrastructure("c", "l")),
               AgentRecord("a", fresh_public_key(), Infrastructure("c", "l"))),
    lambda k: (AgentRecord("a", k, Infrastructure("c", "l")),
               AgentRecord("b", k, Infrastructure("d", "m"))),
    lambda k: (),
])
def test_registry_rejects_duplicates_and_empty(build):
    key = fresh_public_key()
    with pytest.raises(ParameterError):
        Registry(build(key))


@pytest.mark.parametrize("make", [
    lambda: AgentRecord("a", "zz", Infrastructure("c", "l")),
    lambda: AgentRecord("a", "00" * 31, Infrastructure("c", "l")),
    lambda: Infrastructure("", "l"),
    lambda: Infrastructure("c", " "),
    lambda: Infrastructure("c", "l", ("",)),
])
def test_bad_records_raise_parameter_error(make):
    with pytest.raises(ParameterError):
        make()


def test_registry_round_trips_through_json():
    _, reg = world({"a": Infrastructure("c", "l", ("w", "v", "w"))})
    again = Registry.from_json(reg.to_json())
    assert again.to_json() == reg.to_json() and again.agents == reg.agents
    assert reg.agents[0].infra.corpora == ("v", "w")


# -- canonical hashing and keys -------------------------------------------------------------


def test_hash_helpers_are_canonical_and_domain_separated():
    assert evidence_hash(["b", "a", "a"]) == evidence_hash(["a", "b"])
    assert evidence_hash(["a"]) != evidence_hash(["a", "b"])
    assert value_hash("x") != evidence_hash(["x"])
    assert canonical_json({"b": [1, "é"], "a": None}) == '{"a":null,"b":[1,"é"]}'.encode()
    with pytest.raises(ParameterError):
        canonical_json({"x": math.nan})


def test_vote_rejects_malformed_hashes():
    with pytest.raises(ParameterError):
        Vote("p", "abc", V42, "a")
    with pytest.raises(ParameterError):
        Vote("p", V42, V42.upper(), "a")


# -- validation: each rejection kind ----------------------------------------------------------


@pytest.fixture()
def four():
    return world(distinct("abcd"))


def signed(keys, voter, value=V42, proposal="p1", evidence=None, signer=None):
    return sign_vote(keys[signer or voter], voter, proposal, value,
                     evidence or evidence_hash([f"doc-{voter}"]))


def only_rejection(result):
    assert len(result.rejected) == 1
    return result.rejected[0].reason


def test_valid_votes_are_all_accepted(four):
    keys, reg = four
    votes = [signed(keys, a) for a in "abcd"]
    result = validate_votes(votes, reg, "p1")
    assert result.accepted == tuple(votes) and result.rejected == ()


def test_unsigned_vote_is_rejected(four):
    keys, reg = four
    bare = Vote("p1", V42, evidence_hash(["d"]), "a")
    assert only_rejection(validate_votes([bare], reg, "p1")) is RejectReason.UNSIGNED
    empty = Vote("p1", V42, evidence_hash(["d"]), "a", "")
    assert only_rejection(validate_votes([empty], reg, "p1")) is RejectReason.UNSIGNED


def test_unknown_key_is_rejected(four):
    _, reg = four
    mallory = {"mallory": Ed25519PrivateKey.generate()}
    vote = signed(mallory, "mallory")
    assert only_rejection(validate_votes([vote], reg, "p1")) is RejectReason.UNKNOWN_KEY


@pytest.mark.parametrize("forge", [
    lambda keys: signed(keys, "a", signer="b"),                       # b signs as a
    lambda keys: Vote("p1", V43, evidence_hash(["doc-a"]), "a",        # value changed after signing
                      signed(keys, "a").signature),
    lambda keys: Vote("p1", V42, evidence_hash(["doc-a"]), "a", "zz"),  # not hex
    lambda keys: Vote("p1", V42, evidence_hash(["doc-a"]), "a", "00" * 64),
])
def test_forged_signatures_are_rejected(four, forge):
    keys, reg = four
    assert only_rejection(validate_votes([forge(keys)], reg, "p1")) is RejectReason.BAD_SIGNATURE


def test_vote_for_another_proposal_is_rejected(four):
    keys, reg = four
    vote = signed(keys, "a", proposal="p2")
    assert only_rejection(validate_votes([vote], reg, "p1")) is RejectReason.WRONG_PROPOSAL


def test_duplicate_copy_is_rejected_and_first_kept(four):
    keys, reg = four
    vote = signed(keys, "a")
    result = validate_votes([vote, signed(keys, "b"), vote], reg, "p1")
    assert [v.voter for v in result.accepted] == ["a", "b"]
    assert only_rejection(result) is RejectReason.DUPLICATE


def test_equivocating_voter_loses_every_vote(four):
    keys, reg = four
    result = validate_votes([signed(keys, "a"), signed(keys, "a", V43), signed(keys, "b")],
                            reg, "p1")
    assert [v.voter for v in result.accepted] == ["b"]
    assert [r.reason for r in result.rejected] == [RejectReason.EQUIVOCATION] * 2


def test_forged_votes_cannot_frame_an_honest_voter(four):
    keys, reg = four
    honest = signed(keys, "a")
    framed = [Vote("p1", V43, honest.evidence_hash, "a"), signed(keys, "a", V43, signer="c")]
    result = validate_votes([honest, *framed], reg, "p1")
    assert result.accepted == (honest,)
    assert {r.reason for r in result.rejected} == {RejectReason.UNSIGNED,
                                                    RejectReason.BAD_SIGNATURE}


def test_replayed_vote_is_rejected(four):
    keys, reg = four
    vote = signed(keys, "a")
    result = validate_votes([vote, signed(keys, "b")], reg, "p1", seen={vote.digest})
    assert only_rejection(result) is RejectReason.REPLAYED


def test_rejections_are_logged_with_reason(four, caplog):
    keys, reg = four
    with caplog.at_level(logging.WARNING, logger="protocol_runner.commit.votes"):
        validate_votes([Vote("p1", V42, evidence_hash(["d"]), "a")], reg, "p1")
    assert any("unsigned" in r.getMessage() for r in caplog.records)


def test_vote_json_round_trip_keeps_signature_valid(four):
    keys, reg = four
    vote = Vote.from_json(signed(keys, "c").to_json())
    assert validate_votes([vote], reg, "p1").accepted == (vote,)
