"""Checking a ledger file: the chain, the head, every signature, every decision re-derived.

:func:`verify` walks the entries in order and stops at the first one that fails. Besides the
hash chain (deletion, edits, reordering, insertion, truncation) it checks that every entry is
signed by the key its kind requires (registry and decision entries: the gate of the registry
they name; human resolutions: its reviewer), that every registry is endorsed by every key it
names, and it *re-derives* every decision: the recorded signed votes must be valid, and the rule
the decision names, applied to them and to the recorded re-execution
(:func:`~protocol_runner.commit.gate.decide_rule`), must give exactly the recorded outcome,
reasons, tally and support. So an outcome cannot be rewritten without the gate's key, and even
with it cannot contradict the voters' signatures.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from protocol_runner.commit.canonical import canonical_json, evidence_hash, sha256_hex, value_hash
from protocol_runner.commit.enrolment import Enrolment
from protocol_runner.commit.gate import decide_rule
from protocol_runner.commit.ledger import (
    GENESIS,
    LedgerError,
    connect_ro,
    record_bytes,
    signed_part,
)
from protocol_runner.commit.outcomes import Reexecution
from protocol_runner.commit.signing import ENTRY, signature_valid, statement
from protocol_runner.commit.votes import RejectedVote, Validation, Vote, validate_votes
from robustgraph.errors import ParameterError

__all__ = ["VerifyReport", "verify"]

_STAGES = ("initial", "diversity")
_RULES = ("gate", "plain")
_OUTER = {"kind", "registry_hash", "context"}
"""Decision body keys that are not the decision's own JSON."""


@dataclass(frozen=True)
class VerifyReport:
    """What :func:`verify` found.

    ``first_bad`` is the sequence number of the first entry that fails (for a truncated ledger,
    the first missing one), None when the ledger is valid. ``outcomes`` counts decisions by
    outcome and human resolutions as ``resolved_commit`` / ``resolved_abort``.
    """

    path: str
    valid: bool
    entries: int
    head_hash: str
    first_bad: int | None = None
    reason: str | None = None
    outcomes: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "valid": self.valid, "entries": self.entries,
                "head_hash": self.head_hash, "first_bad": self.first_bad, "reason": self.reason,
                "outcomes": dict(self.outcomes)}


class _Bad(Exception):
    def __init__(self, seq: int, reason: str) -> None:
        super().__init__(reason)
        self.seq = seq
        self.reason = reason


@dataclass
class _State:
    """What the walk has learnt from the entries before the current one."""

    registries: dict[str, Enrolment] = field(default_factory=dict)
    in_force: Enrolment | None = None
    counted: dict[str, int] = field(default_factory=dict)
    escalations: dict[int, tuple[str, dict[str, Any]]] = field(default_factory=dict)
    resolved: dict[int, int] = field(default_factory=dict)
    outcomes: Counter = field(default_factory=Counter)


def _as_json(value: Any) -> Any:
    return json.loads(canonical_json(value))


def _check_signature(seq: int, data: Mapping[str, Any], signer: str, key: str) -> None:
    if data["signer"] != signer:
        raise _Bad(seq, f"entry is signed by {data['signer']!r}, but a {data['body'].get('kind')} "
                        f"entry must be signed by the {signer}")
    payload = statement(ENTRY, signed_part(data["seq"], data["prev"], data["time"], data["body"],
                                           data["signer"]))
    if not signature_valid(key, data["signature"], payload):
        raise _Bad(seq, f"the {signer}'s signature does not verify: the entry was edited after "
                        f"signing, or signed with a key that is not registered")


def _registry_named(seq: int, body: Mapping[str, Any], state: _State) -> Enrolment:
    named = body.get("registry_hash")
    enrolment = state.registries.get(named) if isinstance(named, str) else None
    if enrolment is None:
        raise _Bad(seq, f"{body.get('kind')} names a registry that no earlier entry records")
    return enrolment


def _check_registry(seq: int, data: Mapping[str, Any], state: _State) -> None:
    body = data["body"]
    try:
        enrolment = Enrolment.from_body(body)
    except ParameterError as exc:
        raise _Bad(seq, str(exc)) from None
    if enrolment.digest != body.get("registry_hash"):
        raise _Bad(seq, "registry hash does not match the recorded agents, f, re-executor and "
                        "signer keys")
    if _as_json(enrolment.to_body()) != body:
        raise _Bad(seq, "registry entry holds fields outside its signed statement")
    bad = enrolment.bad_endorsements()
    if bad:
        raise _Bad(seq, f"the registry endorsement of {bad[0]!r} does not verify under its "
                        f"registered key (the registry was edited)")
    # the first registry signs itself; any later one needs the gate key in force before it
    signer = enrolment if state.in_force is None else state.in_force
    _check_signature(seq, data, "gate", signer.gate)
    state.registries[enrolment.digest] = enrolment
    state.in_force = enrolment


def _check_context(seq: int, context: object, votes: list[Vote]) -> None:
    if not isinstance(context, Mapping):
        raise _Bad(seq, "decision context is not an object")
    values, evidence = context.get("values", {}), context.get("evidence", {})
    if not isinstance(values, Mapping) or not isinstance(evidence, Mapping):
        raise _Bad(seq, "decision context is malformed")
    for digest, text in values.items():
        if not isinstance(text, str) or value_hash(text) != digest:
            raise _Bad(seq, f"context value {str(text)[:40]!r} does not hash to {digest[:12]}")
    cast = {v.voter: v.evidence_hash for v in votes}
    for voter, items in evidence.items():
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items) \
                or cast.get(voter) != evidence_hash(items):
            raise _Bad(seq, f"context evidence of {voter!r} is not what its signed vote commits to")


def _check_decision(seq: int, data: Mapping[str, Any], state: _State) -> None:
    body = data["body"]
    enrolment = _registry_named(seq, body, state)
    _check_signature(seq, data, "gate", enrolment.gate)
    rule, stage = body.get("rule"), body.get("stage")
    if rule not in _RULES or stage not in _STAGES:
        raise _Bad(seq, f"decision has rule {rule!r} and stage {stage!r}")
    if body.get("f") != enrolment.f:
        raise _Bad(seq, f"decision uses f = {body.get('f')} but its registry has f = "
                        f"{enrolment.f}")
    try:
        votes = [Vote.from_json(v) for v in body["votes"]]
        rejected = [RejectedVote.from_json(r) for r in body["rejected"]]
        proposal = body["proposal_id"]
        recorded = body.get("reexecution")
        rerun = (Reexecution(None, "", "no re-execution recorded") if recorded is None
                 else Reexecution.from_json(recorded))
    except (KeyError, TypeError, ParameterError) as exc:
        raise _Bad(seq, f"malformed decision ({exc})") from None
    if not isinstance(proposal, str):
        raise _Bad(seq, f"malformed decision (proposal id {proposal!r})")
    for vote in votes:
        if rule == "gate" and vote.digest in state.counted:
            raise _Bad(seq, f"vote from {vote.voter!r} was already counted in entry "
                            f"{state.counted[vote.digest]} (replay)")
    checked = validate_votes(votes, enrolment.registry, proposal, stage=stage)
    if checked.rejected:
        bad = checked.rejected[0]
        raise _Bad(seq, f"recorded vote from {bad.vote.voter!r} is invalid: {bad.detail}")
    derived = decide_rule(rule, enrolment.registry, enrolment.f, proposal,
                          Validation(tuple(votes), tuple(rejected)), stage,
                          reexecutor=enrolment.reexecutor, reexecute=lambda: rerun,
                          conflict=enrolment.conflict).to_json()
    if derived["outcome"] != body.get("outcome"):
        raise _Bad(seq, f"decision says {body.get('outcome')}, which does not follow from the "
                        f"signed votes: the {rule} rule gives {derived['outcome']}")
    for key, value in derived.items():
        if _as_json(value) != body.get(key):
            raise _Bad(seq, f"recorded {key} does not follow from the signed votes under the "
                            f"{rule} rule")
    extra = sorted(set(body) - _OUTER - set(derived))
    if extra:
        raise _Bad(seq, f"decision carries fields its rule does not produce: {', '.join(extra)}")
    if "context" in body:
        _check_context(seq, body["context"], [*votes, *(r.vote for r in rejected)])
    if rule == "gate":
        for vote in votes:
            state.counted[vote.digest] = seq
        if derived.get("escalate_to") == "human":
            state.escalations[seq] = (data["digest"], body)
    state.outcomes[derived["outcome"]] += 1


def _check_resolution(seq: int, data: Mapping[str, Any], state: _State) -> None:
    body = data["body"]
    enrolment = _registry_named(seq, body, state)
    _check_signature(seq, data, "reviewer", enrolment.reviewer)
    target = body.get("decision")
    if not isinstance(target, int) or target not in state.escalations:
        raise _Bad(seq, f"resolution names entry {target!r}, which is not a gate decision "
                        f"escalated to a human")
    if target in state.resolved:
        raise _Bad(seq, f"entry {target} was already resolved by entry {state.resolved[target]}")
    digest, decided = state.escalations[target]
    if body.get("decision_hash") != digest:
        raise _Bad(seq, f"resolution names entry {target} by another hash")
    if body.get("registry_hash") != decided.get("registry_hash"):
        # only the reviewer of the registry the decision was made under may resolve it: a
        # later registry (another reviewer key) must not reach back to an earlier escalation
        raise _Bad(seq, f"resolution is signed under another registry than entry {target}'s: "
                        f"only the reviewer of the registry it was decided under may resolve it")
    for key in ("proposal_id", "stage", "value_hash"):
        if body.get(key) != decided.get(key):
            raise _Bad(seq, f"resolution's {key} differs from entry {target}'s")
    action, reason = body.get("action"), body.get("reason")
    if action not in ("commit", "abort") or not isinstance(reason, str) or not reason.strip():
        raise _Bad(seq, "a resolution needs action commit or abort and a reason")
    state.resolved[target] = seq
    state.outcomes[f"resolved_{action}"] += 1


_CHECKS = {"registry": _check_registry, "decision": _check_decision,
           "resolution": _check_resolution}


def _record(seq: int, blob: bytes | None) -> tuple[dict[str, Any], bytes]:
    """The parsed record and its canonical bytes, or ``_Bad`` for a malformed one."""
    try:
        text = (blob or b"").decode("utf-8")
    except UnicodeDecodeError:
        raise _Bad(seq, "entry is not valid UTF-8 (edited)") from None
    try:
        data = json.loads(text)
        canonical = record_bytes(data["seq"], data["prev"], data["time"], data["body"],
                                 data["signer"], data["signature"])
    except (ValueError, KeyError, TypeError, ParameterError) as exc:
        raise _Bad(seq, f"entry is not a well-formed record ({exc})") from None
    if canonical.decode("utf-8") != text:
        raise _Bad(seq, "entry is not in canonical form (edited)")
    if not isinstance(data["body"], dict):
        raise _Bad(seq, "entry body is not an object")
    return data, canonical


def _walk(conn: sqlite3.Connection) -> tuple[int, str, Counter]:
    """Check every entry in order; raise ``_Bad`` at the first failure."""
    expected_prev, count = GENESIS, 0
    state = _State()
    try:
        rows = conn.execute("SELECT seq, prev_hash, entry_hash, CAST(record AS BLOB) "
                            "FROM entries ORDER BY seq")
    except sqlite3.DatabaseError as exc:
        raise _Bad(1, f"entries table unreadable ({exc})") from exc
    for seq, prev, digest, blob in rows:
        count += 1
        if seq != count:
            raise _Bad(count, f"entry {count} is missing (the next stored entry is {seq})")
        data, canonical = _record(seq, blob)
        if data["seq"] != seq:
            raise _Bad(seq, f"entry stored at {seq} records position {data['seq']} (reordered)")
        if data["prev"] != expected_prev or prev != expected_prev:
            raise _Bad(seq, "link to the previous entry is broken (an entry before it was "
                            "edited, removed, inserted or moved)")
        if sha256_hex(canonical) != digest:
            raise _Bad(seq, "entry hash does not match its content (edited)")
        kind = data["body"].get("kind")
        if seq == 1 and kind != "registry":
            raise _Bad(seq, "the first entry is not a registry entry")
        check = _CHECKS.get(kind) if isinstance(kind, str) else None
        if check is None:
            raise _Bad(seq, f"entry of unknown kind {kind!r}")
        check(seq, {**data, "digest": digest}, state)
        expected_prev = digest
    return count, expected_prev, state.outcomes


def _head_problem(meta: Mapping[str, str], count: int, head: str) -> str | None:
    seq, digest = meta.get("head_seq"), meta.get("head_hash")
    if seq != str(count):
        return (f"head records {seq} entries but the chain has {count}: entries were removed "
                f"from the end, the head was edited, or a run killed while writing lost its "
                f"-wal file (restore it)")
    if digest != head:
        return (f"head records hash {str(digest)[:12]} for entry {count}, but that entry's hash "
                f"is {head[:12]}: the head was edited")
    return None


def verify(path: str | Path, *, expect_head: str | None = None) -> VerifyReport:
    """Check a ledger file entry by entry and report the first bad entry.

    Parameters
    ----------
    path : str or Path
    expect_head : str, optional
        A head hash published earlier (``ledger show``); the chain must contain it, which
        detects a rewrite of the whole chain by someone holding every key, or a truncation.

    Returns
    -------
    VerifyReport

    Raises
    ------
    LedgerError
        If the file is missing, not SQLite, or not a robustgraph ledger (nothing to verify).

    Notes
    -----
    Checks, per entry in order: consecutive sequence numbers (deletion), UTF-8, canonical record
    bytes and hash (edits), the stored position (reordering), the link to the previous hash
    (edits, insertions, removals before it); the signer and signature the entry's kind needs;
    registries: hash, endorsements by every key they name, signed by the gate in force before
    them; decisions: a recorded registry, valid signed votes, none counted twice by the gate,
    and the outcome re-derived by its rule; resolutions: an open escalation to a human, signed
    by the reviewer. Finally the head row must match the last entry (truncation).
    O(E + V) hashing and signature checks for E entries and V votes.
    """
    path = Path(path)
    conn = connect_ro(path)
    try:
        meta = dict(conn.execute("SELECT key, value FROM meta"))
        try:
            count, head, outcomes = _walk(conn)
        except _Bad as bad:
            return VerifyReport(str(path), False, bad.seq - 1, "", bad.seq, bad.reason)
        problem = _head_problem(meta, count, head)
        if problem is not None:
            return VerifyReport(str(path), False, count, head, count + 1, problem)
        hashes = {row[0] for row in conn.execute("SELECT entry_hash FROM entries")}
        if expect_head is not None and expect_head not in hashes:
            return VerifyReport(str(path), False, count, head, None,
                                f"published head {expect_head[:12]} is not in the chain: "
                                f"history was rewritten or cut")
        return VerifyReport(str(path), True, count, head, outcomes=dict(outcomes))
    except sqlite3.DatabaseError as exc:
        raise LedgerError(f"{path}: cannot read ({exc})") from exc
    finally:
        conn.close()
