"""The records a certificate is made of: engine runs, checks (one question, every engine's
bounds), claim records and the graph binding, each with its JSON form."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from robustgraph.certificate.claims import Claim
from robustgraph.topology import Label, Topology
from solvers.types import Question, Result, Witness

__all__ = [
    "WitnessPair",
    "Run",
    "Check",
    "ClaimRecord",
    "GraphInfo",
    "aggregate",
]


@dataclass(frozen=True)
class WitnessPair:
    """Two disjoint nonempty sets of node labels (in the graph's node order)."""

    s1: tuple[Label, ...]
    s2: tuple[Label, ...]

    @classmethod
    def of(cls, topology: Topology, witness: Witness) -> WitnessPair:
        return cls(tuple(topology.names(witness.s1)), tuple(topology.names(witness.s2)))

    def to_dict(self) -> dict[str, Any]:
        return {"s1": list(self.s1), "s2": list(self.s2)}

    @classmethod
    def from_dict(cls, doc: dict[str, Any] | None) -> WitnessPair | None:
        return None if doc is None else cls(tuple(doc["s1"]), tuple(doc["s2"]))


@dataclass(frozen=True)
class Run:
    """One engine's answer to one question: proven bounds, status, time and witness."""

    engine: str
    solved_by: str
    formulation: str | None
    status: str
    lower: int
    upper: int
    seconds: float
    engine_version: str
    witness: WitnessPair | None
    params: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, topology: Topology, engine: str, result: Result) -> Run:
        params = json.loads(json.dumps(result.params, sort_keys=True, default=str))
        witness = None if result.witness is None else WitnessPair.of(topology, result.witness)
        return cls(
            engine=engine,
            solved_by=result.engine,
            formulation=result.formulation,
            status=result.status.value,
            lower=result.lower,
            upper=result.upper,
            seconds=round(result.wall_time, 4),
            engine_version=result.engine_version,
            witness=witness,
            params=params,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "engine": self.engine,
            "solved_by": self.solved_by,
            "formulation": self.formulation,
            "status": self.status,
            "lower": self.lower,
            "upper": self.upper,
            "seconds": self.seconds,
            "engine_version": self.engine_version,
            "witness": None if self.witness is None else self.witness.to_dict(),
            "params": self.params,
        }

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> Run:
        return cls(
            engine=doc["engine"],
            solved_by=doc["solved_by"],
            formulation=doc["formulation"],
            status=doc["status"],
            lower=doc["lower"],
            upper=doc["upper"],
            seconds=doc["seconds"],
            engine_version=doc["engine_version"],
            witness=WitnessPair.from_dict(doc["witness"]),
            params=doc["params"],
        )


def _question_dict(q: Question) -> dict[str, Any]:
    return {"kind": q.kind, "r": q.r, "s": q.s}


@dataclass(frozen=True)
class Check:
    """One question and the bounds every engine proved on its quantity (r* or s*_r).

    ``lower`` is the smallest lower bound over the runs (what *every* engine proved), ``upper``
    the smallest upper bound (each is backed by a witness, so any one of them suffices) and
    ``witness`` the pair behind ``upper``. ``proof``, when set, is the proof object of
    ``lower`` (schema ``$defs/proof``; checked by :mod:`robustgraph.certificate.proofs`).
    """

    question: Question
    lower: int
    upper: int
    witness: WitnessPair | None
    runs: tuple[Run, ...]
    proof: dict[str, Any] | None = None

    @classmethod
    def of(cls, question: Question, runs: Sequence[Run]) -> Check:
        lower, upper, witness = aggregate(runs)
        return cls(question, lower, upper, witness, tuple(runs))

    @property
    def robustness(self) -> tuple[int, int]:
        """The (r, s) that ``lower`` asserts: (lower, 1) on r*, (r, lower) on s*_r
        ((r, 1)-robustness is r-robustness, LeBlanc et al. 2013)."""
        q = self.question
        return (q.r, self.lower) if q.about_s else (self.lower, 1)

    @property
    def bound_on(self) -> str:
        """The bounded quantity: ``r*`` or ``s*_r`` for the question's r."""
        return f"s*_{self.question.r}" if self.question.about_s else "r*"

    @property
    def holds(self) -> bool | None:
        """The settled answer of a decision question (None for max_r, or when undecided)."""
        target = self.question.target
        if target is None:
            return None
        if self.lower >= target:
            return True
        if self.upper < target:
            return False
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": _question_dict(self.question),
            "bound_on": self.bound_on,
            "lower": self.lower,
            "upper": self.upper,
            "witness": None if self.witness is None else self.witness.to_dict(),
            "runs": [run.to_dict() for run in self.runs],
            "proof": self.proof,
        }

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> Check:
        q = doc["question"]
        return cls(
            Question(q["kind"], r=q["r"], s=q["s"]),
            doc["lower"],
            doc["upper"],
            WitnessPair.from_dict(doc["witness"]),
            tuple(Run.from_dict(run) for run in doc["runs"]),
            doc.get("proof"),
        )


@dataclass(frozen=True)
class ClaimRecord:
    """A claim, its verdict, the checks behind it, and (for ``max``) the derived values."""

    claim: Claim
    verdict: str
    checks: tuple[Check, ...]
    values: dict[str, tuple[int, int]] | None
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        values = None
        if self.values is not None:
            values = {k: {"lower": lo, "upper": hi} for k, (lo, hi) in self.values.items()}
        return {
            "claim": self.claim.to_dict(),
            "statement": self.claim.describe(),
            "verdict": self.verdict,
            "values": values,
            "seconds": self.seconds,
            "checks": [check.to_dict() for check in self.checks],
        }

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> ClaimRecord:
        values = doc["values"]
        if values is not None:
            values = {k: (v["lower"], v["upper"]) for k, v in values.items()}
        return cls(
            Claim.from_dict(doc["claim"]),
            doc["verdict"],
            tuple(Check.from_dict(c) for c in doc["checks"]),
            values,
            doc["seconds"],
        )


@dataclass(frozen=True)
class GraphInfo:
    """What a certificate binds to: the graph's content hash, size and kind."""

    hash: str
    n: int
    m: int
    directed: bool

    @classmethod
    def of(cls, topology: Topology) -> GraphInfo:
        return cls(topology.content_hash, topology.n, topology.m, topology.directed)

    def to_dict(self) -> dict[str, Any]:
        return {"hash": self.hash, "n": self.n, "m": self.m, "directed": self.directed}


def aggregate(runs: Sequence[Run]) -> tuple[int, int, WitnessPair | None]:
    """Bounds every run proved: the smallest lower bound, the smallest (witnessed) upper bound."""
    best = min(runs, key=lambda run: run.upper)
    return min(run.lower for run in runs), best.upper, best.witness
