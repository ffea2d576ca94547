"""Signed PREPARE votes and their validation.

A vote is ``PREPARE(proposal id, value hash, evidence hash)`` signed by its voter with Ed25519
(RFC 8032) over canonical bytes that also name the voter and the voting stage (like the view
number of a PBFT prepare message), so a signature can be neither moved to another proposal or
round nor claimed by another agent. Validation keeps the votes that may be counted and
rejects, with a reason and a log line, every vote that is unsigned, from an unknown key, badly
signed, for another proposal, duplicated, equivocating or replayed from an earlier decision.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol_runner.commit.canonical import check_digest, sha256_hex
from protocol_runner.commit.registry import Registry
from protocol_runner.commit.signing import PREPARE, signature_valid, statement
from robustgraph.errors import ParameterError

__all__ = [
    "Vote",
    "RejectReason",
    "RejectedVote",
    "Validation",
    "sign_vote",
    "validate_votes",
]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Vote:
    """A PREPARE vote as received: possibly unsigned or forged until validated.

    Parameters
    ----------
    proposal_id : str
        The proposal voted on.
    value_hash, evidence_hash : str
        64 hex digits each (:func:`~protocol_runner.commit.canonical.value_hash`,
        :func:`~protocol_runner.commit.canonical.evidence_hash`).
    voter : str
        The registered agent id claiming the vote.
    signature : str or None
        Ed25519 signature over :meth:`payload`, hex; None for an unsigned vote.
    stage : {"initial", "diversity"}
        The voting round: the first one, or the diversity-forcing re-vote.
    """

    proposal_id: str
    value_hash: str
    evidence_hash: str
    voter: str
    signature: str | None = None
    stage: str = "initial"

    def __post_init__(self) -> None:
        check_digest("value hash", self.value_hash)
        check_digest("evidence hash", self.evidence_hash)

    def payload(self) -> bytes:
        """The exact bytes that are signed: a domain tag, then the canonical PREPARE statement."""
        return statement(PREPARE, {
            "type": "PREPARE",
            "proposal": self.proposal_id,
            "stage": self.stage,
            "value": self.value_hash,
            "evidence": self.evidence_hash,
            "voter": self.voter,
        })

    @property
    def digest(self) -> str:
        """SHA-256 of :meth:`payload`: the statement's identity, used to detect replays."""
        return sha256_hex(self.payload())

    def to_json(self) -> dict[str, Any]:
        return {"proposal_id": self.proposal_id, "value_hash": self.value_hash,
                "evidence_hash": self.evidence_hash, "voter": self.voter,
                "signature": self.signature, "stage": self.stage}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Vote:
        """Read a vote back from :meth:`to_json`.

        Raises
        ------
        ParameterError
            If a field is missing or malformed.
        """
        try:
            return cls(data["proposal_id"], data["value_hash"], data["evidence_hash"],
                       data["voter"], data.get("signature"), data.get("stage", "initial"))
        except (KeyError, TypeError, AttributeError) as exc:
            raise ParameterError(f"malformed vote ({exc!r})") from None


def sign_vote(key: Ed25519PrivateKey, voter: str, proposal_id: str, value_hash: str,
              evidence_hash: str, *, stage: str = "initial") -> Vote:
    """Build and sign a PREPARE vote.

    Examples
    --------
    >>> from protocol_runner.commit.canonical import evidence_hash, value_hash
    >>> key = Ed25519PrivateKey.generate()
    >>> v = sign_vote(key, "a1", "p1", value_hash("42"), evidence_hash(["doc"]))
    >>> len(v.signature)
    128
    """
    unsigned = Vote(proposal_id, value_hash, evidence_hash, voter, stage=stage)
    return Vote(proposal_id, value_hash, evidence_hash, voter,
                key.sign(unsigned.payload()).hex(), stage)


class RejectReason(StrEnum):
    """Why a vote was not counted."""

    WRONG_PROPOSAL = "wrong-proposal"
    UNSIGNED = "unsigned"
    UNKNOWN_KEY = "unknown-key"
    BAD_SIGNATURE = "bad-signature"
    REPLAYED = "replayed"
    DUPLICATE = "duplicate"
    EQUIVOCATION = "equivocation"


@dataclass(frozen=True)
class RejectedVote:
    """A vote that was not counted, with the reason and a one-line detail."""

    vote: Vote
    reason: RejectReason
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"vote": self.vote.to_json(), "reason": self.reason.value, "detail": self.detail}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RejectedVote:
        """Read a rejected vote back from :meth:`to_json`.

        Raises
        ------
        ParameterError
            If a field is missing or malformed.
        """
        try:
            return cls(Vote.from_json(data["vote"]), RejectReason(data["reason"]),
                       str(data["detail"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise ParameterError(f"malformed rejected vote ({exc!r})") from None


@dataclass(frozen=True)
class Validation:
    """The outcome of :func:`validate_votes`: votes to count, in input order, and rejected votes."""

    accepted: tuple[Vote, ...]
    rejected: tuple[RejectedVote, ...]


def _check_one(vote: Vote, registry: Registry, proposal_id: str, stage: str,
               seen: frozenset[str] | set[str]) -> tuple[RejectReason, str] | None:
    if (vote.proposal_id, vote.stage) != (proposal_id, stage):
        return (RejectReason.WRONG_PROPOSAL, f"vote is for {vote.proposal_id!r} ({vote.stage}), "
                                             f"not {proposal_id!r} ({stage})")
    if not vote.signature:
        return RejectReason.UNSIGNED, f"vote from {vote.voter!r} carries no signature"
    record = registry.get(vote.voter)
    if record is None:
        return RejectReason.UNKNOWN_KEY, f"no registered key for voter {vote.voter!r}"
    if not signature_valid(record.public_key, vote.signature, vote.payload()):
        return (RejectReason.BAD_SIGNATURE,
                f"signature does not verify under {vote.voter!r}'s registered key")
    if vote.digest in seen:
        return RejectReason.REPLAYED, f"vote from {vote.voter!r} was already counted earlier"
    return None


def validate_votes(votes: Iterable[Vote], registry: Registry, proposal_id: str, *,
                   stage: str = "initial",
                   seen: frozenset[str] | set[str] = frozenset()) -> Validation:
    """Split ``votes`` into the ones that may be counted and the rejected ones.

    Parameters
    ----------
    votes : iterable of Vote
        The votes received for one decision.
    registry : Registry
        Registered voters and their public keys.
    proposal_id : str
        The proposal being decided; votes for anything else are rejected.
    stage : {"initial", "diversity"}
        The voting round being decided; votes signed for the other round are rejected.
    seen : set of str, optional
        Digests (:attr:`Vote.digest`) of votes counted in earlier decisions; a vote with one of
        these digests is a replay.

    Returns
    -------
    Validation

    Notes
    -----
    Checks per vote, first failure wins: proposal and stage, signature present, voter
    registered, signature valid, not a replay. Then per voter among the survivors: identical
    copies are ``duplicate`` (the first is kept); different statements from one voter are
    ``equivocation`` and all of them are rejected, since an agent that signed two values cannot
    be counted for either. Unsigned or forged votes never count towards equivocation, so nobody
    can frame an honest voter.
    Each rejection is logged at WARNING level on ``protocol_runner.commit.votes``.
    O(V) signature checks for V votes.
    """
    ordered: Sequence[Vote] = list(votes)
    rejected: list[RejectedVote] = []
    valid: list[Vote] = []
    for vote in ordered:
        problem = _check_one(vote, registry, proposal_id, stage, seen)
        if problem is None:
            valid.append(vote)
        else:
            rejected.append(RejectedVote(vote, *problem))
    by_voter: dict[str, list[Vote]] = {}
    for vote in valid:
        by_voter.setdefault(vote.voter, []).append(vote)
    accepted: list[Vote] = []
    kept: set[str] = set()
    for vote in valid:
        statements = {v.digest for v in by_voter[vote.voter]}
        if len(statements) > 1:
            rejected.append(RejectedVote(vote, RejectReason.EQUIVOCATION,
                                         f"{vote.voter!r} signed {len(statements)} different "
                                         f"statements for {proposal_id!r}"))
        elif vote.voter in kept:
            rejected.append(RejectedVote(vote, RejectReason.DUPLICATE,
                                         f"another copy of {vote.voter!r}'s vote"))
        else:
            kept.add(vote.voter)
            accepted.append(vote)
    for item in rejected:
        log.warning("rejected vote for %s: %s (%s)", proposal_id, item.reason.value, item.detail)
    return Validation(tuple(accepted), tuple(rejected))
