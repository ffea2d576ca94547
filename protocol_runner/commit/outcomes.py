"""Typed outcomes of a commit decision: one class per way a proposal can end.

Nothing is silently dropped: every decision is one of :class:`Committed`,
:class:`CorrelatedQuorum` (escalate), :class:`NonReproducible` (abort), :class:`Conflict` or
:class:`NoQuorum` (no commit), and carries its reasons, the counted votes and the rejected ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from protocol_runner.commit.votes import RejectedVote, Vote
from robustgraph.errors import ParameterError

__all__ = [
    "Reexecution",
    "Decision",
    "Committed",
    "CorrelatedQuorum",
    "NonReproducible",
    "Conflict",
    "NoQuorum",
    "Rule",
    "Stage",
]

Rule = Literal["gate", "plain"]
Stage = Literal["initial", "diversity"]


@dataclass(frozen=True)
class Reexecution:
    """What the independent, non-voting re-execution produced from its own snapshot.

    ``value_hash`` is None when the re-execution failed to produce a value; ``detail`` says why.
    """

    value_hash: str | None
    snapshot_hash: str
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"value_hash": self.value_hash, "snapshot_hash": self.snapshot_hash,
                "detail": self.detail}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Reexecution:
        """Read a re-execution back from :meth:`to_json`.

        Raises
        ------
        ParameterError
            If a field is missing or malformed.
        """
        try:
            value, snapshot, detail = data["value_hash"], data["snapshot_hash"], data["detail"]
        except (KeyError, TypeError) as exc:
            raise ParameterError(f"malformed re-execution ({exc!r})") from None
        if not (value is None or isinstance(value, str)) or not isinstance(snapshot, str) \
                or not isinstance(detail, str):
            raise ParameterError(f"malformed re-execution {dict(data)!r}")
        return cls(value, snapshot, detail)


@dataclass(frozen=True, kw_only=True)
class Decision:
    """Fields every outcome carries.

    Attributes
    ----------
    proposal_id : str
    rule : {"gate", "plain"}
        Which decision rule produced it (the evidence-diversity gate or a plain 2f+1 quorum).
    stage : {"initial", "diversity"}
        The voting round: the first one, or the diversity-forcing round after an escalation.
    f : int
        Faults tolerated; the quorum is 2f+1.
    reasons : tuple of str
        Why the decision came out this way, one sentence each.
    accepted, rejected : tuples
        Votes counted and votes refused (with their reasons).
    tally : tuple of (value hash, votes)
        Counted votes per value, largest first.
    """

    kind: ClassVar[str]
    action: ClassVar[str]

    proposal_id: str
    rule: Rule
    stage: Stage
    f: int
    reasons: tuple[str, ...]
    accepted: tuple[Vote, ...]
    rejected: tuple[RejectedVote, ...]
    tally: tuple[tuple[str, int], ...]

    @property
    def committed(self) -> bool:
        return self.action == "commit"

    def _extra(self) -> dict[str, Any]:
        return {}

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of the whole decision (what the ledger stores)."""
        return {
            "outcome": self.kind, "action": self.action, "proposal_id": self.proposal_id,
            "rule": self.rule, "stage": self.stage, "f": self.f, "reasons": list(self.reasons),
            "tally": [[value, count] for value, count in self.tally],
            "votes": [v.to_json() for v in self.accepted],
            "rejected": [r.to_json() for r in self.rejected],
            **self._extra(),
        }


@dataclass(frozen=True, kw_only=True)
class Committed(Decision):
    """The value is committed: every test of the rule passed.

    ``support`` are the agreeing votes; ``evidence`` and ``units`` count their distinct evidence
    hashes and independence units; ``reexecution`` is None under the plain rule.
    """

    kind: ClassVar[str] = "committed"
    action: ClassVar[str] = "commit"

    value_hash: str
    support: tuple[str, ...]
    evidence: int
    units: int
    reexecution: Reexecution | None

    def _extra(self) -> dict[str, Any]:
        return {"value_hash": self.value_hash, "support": list(self.support),
                "evidence": self.evidence, "units": self.units,
                "reexecution": None if self.reexecution is None else self.reexecution.to_json()}


@dataclass(frozen=True, kw_only=True)
class CorrelatedQuorum(Decision):
    """A 2f+1 quorum whose votes share too few evidence hashes or independence units.

    Never committed. ``escalate_to`` is ``"diversity_round"`` after the initial round (re-ask the
    agents with disjoint evidence) and ``"human"`` after the diversity round.
    """

    kind: ClassVar[str] = "correlated_quorum"
    action: ClassVar[str] = "escalate"

    value_hash: str
    support: tuple[str, ...]
    evidence: int
    units: int
    escalate_to: Literal["diversity_round", "human"]

    def _extra(self) -> dict[str, Any]:
        return {"value_hash": self.value_hash, "support": list(self.support),
                "evidence": self.evidence, "units": self.units, "escalate_to": self.escalate_to}


@dataclass(frozen=True, kw_only=True)
class NonReproducible(Decision):
    """A diverse quorum that the independent re-execution did not reproduce: abort."""

    kind: ClassVar[str] = "non_reproducible"
    action: ClassVar[str] = "abort"

    value_hash: str
    support: tuple[str, ...]
    reexecution: Reexecution

    def _extra(self) -> dict[str, Any]:
        return {"value_hash": self.value_hash, "support": list(self.support),
                "reexecution": self.reexecution.to_json()}


@dataclass(frozen=True, kw_only=True)
class Conflict(Decision):
    """Counted votes disagree and no single value can be committed: no commit.

    Either the votes split so that no value reaches 2f+1, or (with more than 4f+1 voters) two
    values reach it at once.
    """

    kind: ClassVar[str] = "conflict"
    action: ClassVar[str] = "none"


@dataclass(frozen=True, kw_only=True)
class NoQuorum(Decision):
    """Too few counted votes for any value (all that were counted agree): no commit."""

    kind: ClassVar[str] = "no_quorum"
    action: ClassVar[str] = "none"
