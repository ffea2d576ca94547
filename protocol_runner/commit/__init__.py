"""Evidence-diversity commit gate and tamper-evident ledger for shared-state commits.

A value is committed only when 2f+1 signed votes agree on it, those votes rest on at least f+1
distinct pieces of evidence and come from at least f+1 independence units, and an independent
re-execution reproduces it. Every decision is appended to a hash-chained SQLite ledger.
See ``docs/commit-gate.md``.
"""

from protocol_runner.commit.answers import (
    AnswerDecision,
    decide_from_answers,
    normalise_answer,
    reexecution_from_answer,
)
from protocol_runner.commit.canonical import canonical_json, evidence_hash, value_hash
from protocol_runner.commit.diversity import partition_evidence
from protocol_runner.commit.gate import CommitGate, Reexecutor, check_fault_bound, plain_quorum
from protocol_runner.commit.ledger import Ledger, LedgerEntry, LedgerError, VerifyReport, verify
from protocol_runner.commit.outcomes import (
    Committed,
    Conflict,
    CorrelatedQuorum,
    Decision,
    NonReproducible,
    NoQuorum,
    Reexecution,
)
from protocol_runner.commit.registry import AgentRecord, Infrastructure, Registry, public_key_hex
from protocol_runner.commit.votes import (
    RejectedVote,
    RejectReason,
    Validation,
    Vote,
    keyring_from_seed,
    sign_vote,
    validate_votes,
)

__all__ = [
    "AgentRecord",
    "AnswerDecision",
    "CommitGate",
    "Committed",
    "Conflict",
    "CorrelatedQuorum",
    "Decision",
    "Infrastructure",
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
    "evidence_hash",
    "keyring_from_seed",
    "normalise_answer",
    "partition_evidence",
    "plain_quorum",
    "public_key_hex",
    "reexecution_from_answer",
    "sign_vote",
    "validate_votes",
    "value_hash",
    "verify",
]
