"""Evidence-diversity commit gate and tamper-evident ledger for shared-state commits.

A value is committed only when 2f+1 signed votes agree on it, those votes rest on at least f+1
distinct pieces of evidence and come from at least f+1 independence units, and an independent
re-execution reproduces it. Every decision is appended, signed by the gate, to a hash-chained
SQLite ledger whose first entry registers every key; the keys are fresh Ed25519 keys in a
keyring file only its owner can read.
See ``docs/commit-gate.md``.
"""

from protocol_runner.commit.answers import (
    AnswerDecision,
    decide_from_answers,
    normalise_answer,
    reexecution_from_answer,
)
from protocol_runner.commit.audit import VerifyReport, verify
from protocol_runner.commit.canonical import canonical_json, evidence_hash, value_hash
from protocol_runner.commit.diversity import partition_evidence
from protocol_runner.commit.enrolment import Enrolment
from protocol_runner.commit.escalations import pending, resolve
from protocol_runner.commit.gate import (
    CommitGate,
    Reexecutor,
    check_fault_bound,
    decide_rule,
    plain_quorum,
)
from protocol_runner.commit.keyring import KEYRING_FILE, Keyring, KeyringError
from protocol_runner.commit.ledger import Ledger, LedgerEntry, LedgerError
from protocol_runner.commit.outcomes import (
    Committed,
    Conflict,
    CorrelatedQuorum,
    Decision,
    NonReproducible,
    NoQuorum,
    Reexecution,
)
from protocol_runner.commit.registry import AgentRecord, Infrastructure, Registry
from protocol_runner.commit.signing import public_key_hex
from protocol_runner.commit.votes import (
    RejectedVote,
    RejectReason,
    Validation,
    Vote,
    sign_vote,
    validate_votes,
)

__all__ = [
    "KEYRING_FILE",
    "AgentRecord",
    "AnswerDecision",
    "CommitGate",
    "Committed",
    "Conflict",
    "CorrelatedQuorum",
    "Decision",
    "Enrolment",
    "Infrastructure",
    "Keyring",
    "KeyringError",
    "Ledger",
    "LedgerEntry",
    "LedgerError",
    "NoQuorum",
    "NonReproducible",
    "Reexecution",
    "Reexecutor",
    "Registry",
    "RejectReason",
    "RejectedVote",
    "Validation",
    "VerifyReport",
    "Vote",
    "canonical_json",
    "check_fault_bound",
    "decide_from_answers",
    "decide_rule",
    "evidence_hash",
    "normalise_answer",
    "partition_evidence",
    "pending",
    "plain_quorum",
    "public_key_hex",
    "reexecution_from_answer",
    "resolve",
    "sign_vote",
    "validate_votes",
    "value_hash",
    "verify",
]
