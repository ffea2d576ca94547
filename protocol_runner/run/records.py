"""The per-query result record: one JSON line per (protocol, task) of a run, written when it ends.

``results.jsonl`` in a results directory holds one :class:`QueryRecord` per line, appended as
each query completes (so a killed run resumes from it, and metrics can be computed from it
alone). The layout is stable: fields are only ever added, and :data:`SCHEMA_VERSION` changes
if a field's meaning does.

One line, with every key::

    {
      "schema": 1,
      "query_id": "sac/arith-0007",       # unique in a run: protocol "/" task id
      "run_id": "3f2a...",                # hash of the run's configuration (config.json)
      "protocol": "sac",                  # sac | cpwbft | crs | judge | majority | debate
      "task_id": "arith-0007", "task_index": 7, "task_kind": "math",
      "reference": "42",                  # the task's reference answer
      "seed": 1,
      "F": 1,                             # faults the protocol was told to tolerate
      "roster": {"spec": "4S2W1A", "n": 7, "strong": 4, "weak": 2, "adversarial": 1,
                 "attack": "fixed"},      # summary; config.json has the full roster
      "rounds": [                         # round 0 (initial answers), then rounds 1..T
        {"round": 0, "agents": [TURN, ...]},   # one TURN per agent, in roster order
        ...
      ],
      "final": [TURN, ...],               # each agent's final answer (same TURN layout)
      "decision": {"answer": "42", "correct": true} | null,   # a group decision, if any
      "protocol_data": {...},             # protocol-specific state (below), {} if none
      "cost": {"llm_calls": 37, "cache_hits": 0, "prompt_tokens": 5120,
               "completion_tokens": 410, "wall_s": 0.48}
    }

A TURN is ``{"agent": 3, "node": "3", "role": "strong", "answer": "42", "correct": true}``
plus optional keys:

- ``role`` is ``strong``, ``weak`` (honest agents) or ``adversary``.
- ``answer`` is the canonical answer (``protocol_runner.protocols.answers.extract_answer``) or null
when
  none could be parsed (or an agent sent nothing); ``correct`` is false then.
- SAC (``protocol="sac"``), rounds >= 1, honest agents: ``self_score`` (float), ``scores``
  (node -> score of that neighbour's response), ``dropped`` (nodes filtered out: the
  ``min(F, |L|)`` lowest-scored of those below ``self_score``), ``retained`` (nodes kept, in the
  order shown to the agent: descending score), ``refined`` (true when a refinement call was
  made and its answer parsed; false when the agent kept its answer).
- debate, rounds >= 1: ``refined`` as above.
- CP-WBFT: ``confidence`` (float in [0, 1]) for every agent and round; rounds >= 1 also
  ``kept`` (nodes whose confidence passed the 0.5 filter) and, when the answer it reported to
  its neighbours (its round-0 answer) differs from the answer it aggregated to, ``sent``
  (receiver node -> answer sent), as for an equivocating adversary.
- any protocol with communication, rounds >= 1: ``missing`` (in-neighbours that sent nothing
  this round, e.g. ``silent`` adversaries; omitted when empty).
- adversaries: ``attack`` (its name) and, when it told different neighbours different things
  (``equivocate``), ``sent`` (receiver node -> answer sent); ``answer`` is then the answer it
  sent to most receivers.

``protocol_data`` per protocol: CrS: ``credibility_before`` / ``credibility_after`` (node ->
credibility), ``reward`` (judge reward in [-1, 1]), ``contributions`` (node -> contribution),
``judge_score``; judge-only control: ``judge`` (the judge's TURN-like answer record); majority:
``votes`` (answer -> count over all agents).

Hooks given to the runner (``protocol_runner.run.runner.QueryHook``, e.g. a commit gate) add their
own keys to ``protocol_data``.
With ``--commit-gate`` (``protocol_runner.commit.stage``) every record has ``commit_gate``:
``{"proposal_id", "f", "votes" (votes cast), "gate": DECISION, "plain": DECISION}``, a DECISION
being ``{"outcome", "action" (commit | escalate | abort | none), "value" (the answer committed
or at stake, null when votes split or fell short), "value_correct", "reasons"}`` plus, where
the outcome has them, ``evidence``, ``units`` and ``escalate_to``. After a correlated quorum
``"diversity"``: the diversity-forcing round's DECISION (the gate's final one) plus its
``"votes"`` and ``"shares"`` (agent -> evidence items). The gate's decisions with their signed
votes are in the run's ledger under ``proposal_id``.

``cost`` counts this query's requests to the LLM layer: ``llm_calls`` (requests issued),
``cache_hits`` (of those, served from the response cache), tokens as reported by the backend
for the requests that were not cache hits, and the query's wall time in seconds. A request that
joined an identical call already in flight (``ClientStats.shared``) counts as a call with its
tokens, so summed ``llm_calls - cache_hits`` can exceed the backend calls of the run.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from robustgraph.errors import ParameterError

__all__ = [
    "ROLES",
    "SCHEMA_VERSION",
    "Cost",
    "Decision",
    "QueryRecord",
    "Turn",
    "append_record",
    "query_id",
    "read_records",
    "drop_partial_line",
]

SCHEMA_VERSION = 1
ROLES = ("strong", "weak", "adversary")


def query_id(protocol: str, task_id: str) -> str:
    """The id of one query in a run: ``"<protocol>/<task id>"``.

    Examples
    --------
    >>> query_id("sac", "arith-0007")
    'sac/arith-0007'
    """
    return f"{protocol}/{task_id}"


@dataclass(frozen=True)
class Turn:
    """One agent's answer in one round (or its final answer), with protocol-specific details.

    ``details`` holds the optional keys documented in the module docstring; they are written at
    the same level as the fixed keys.
    """

    agent: int
    node: str
    role: str
    answer: str | None
    correct: bool
    details: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "agent": self.agent,
            "node": self.node,
            "role": self.role,
            "answer": self.answer,
            "correct": self.correct,
        }
        out.update(self.details)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Turn:
        fixed = ("agent", "node", "role", "answer", "correct")
        details = {k: v for k, v in data.items() if k not in fixed}
        return cls(
            data["agent"], data["node"], data["role"], data["answer"], data["correct"], details
        )

    @property
    def honest(self) -> bool:
        """Whether the agent is honest (strong or weak)."""
        return self.role != "adversary"


@dataclass(frozen=True)
class Decision:
    """A group-level answer (majority vote, CrS coordinator, judge-only control)."""

    answer: str | None
    correct: bool

    def to_json(self) -> dict[str, Any]:
        return {"answer": self.answer, "correct": self.correct}


@dataclass(frozen=True)
class Cost:
    """What one query cost: LLM requests, cache hits, tokens, wall time."""

    llm_calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    wall_s: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "llm_calls": self.llm_calls,
            "cache_hits": self.cache_hits,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "wall_s": round(self.wall_s, 6),
        }


@dataclass(frozen=True)
class QueryRecord:
    """One query's outcome: every round's answers, the final answers, the decision, the cost.

    See the module docstring for the JSON layout written by :meth:`to_json`.
    """

    query_id: str
    run_id: str
    protocol: str
    task_id: str
    task_index: int
    task_kind: str
    reference: str
    seed: int
    F: int
    roster: Mapping[str, Any]
    rounds: tuple[tuple[Turn, ...], ...]
    final: tuple[Turn, ...]
    decision: Decision | None = None
    protocol_data: Mapping[str, Any] = field(default_factory=dict)
    cost: Cost = Cost()

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA_VERSION,
            "query_id": self.query_id,
            "run_id": self.run_id,
            "protocol": self.protocol,
            "task_id": self.task_id,
            "task_index": self.task_index,
            "task_kind": self.task_kind,
            "reference": self.reference,
            "seed": self.seed,
            "F": self.F,
            "roster": dict(self.roster),
            "rounds": [
                {"round": r, "agents": [turn.to_json() for turn in turns]}
                for r, turns in enumerate(self.rounds)
            ],
            "final": [turn.to_json() for turn in self.final],
            "decision": None if self.decision is None else self.decision.to_json(),
            "protocol_data": dict(self.protocol_data),
            "cost": self.cost.to_json(),
        }

    def line(self) -> str:
        """The record as one JSON line (with the trailing newline)."""
        return json.dumps(self.to_json(), ensure_ascii=False, separators=(",", ":")) + "\n"

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> QueryRecord:
        """Read a record written by :meth:`to_json`.

        Raises
        ------
        ParameterError
            For another schema version or a missing field.
        """
        if data.get("schema") != SCHEMA_VERSION:
            raise ParameterError(
                f"result record schema {data.get('schema')!r}; this version reads {SCHEMA_VERSION}"
            )
        try:
            decision = data["decision"]
            return cls(
                query_id=data["query_id"],
                run_id=data["run_id"],
                protocol=data["protocol"],
                task_id=data["task_id"],
                task_index=data["task_index"],
                task_kind=data["task_kind"],
                reference=data["reference"],
                seed=data["seed"],
                F=data["F"],
                roster=data["roster"],
                rounds=tuple(
                    tuple(Turn.from_json(t) for t in r["agents"]) for r in data["rounds"]
                ),
                final=tuple(Turn.from_json(t) for t in data["final"]),
                decision=None if decision is None else Decision(**decision),
                protocol_data=data["protocol_data"],
                cost=Cost(**data["cost"]),
            )
        except (KeyError, TypeError) as exc:
            raise ParameterError(f"malformed result record: {exc}") from exc

    @property
    def honest_final(self) -> tuple[Turn, ...]:
        """The honest agents' final turns."""
        return tuple(t for t in self.final if t.honest)


def append_record(handle: TextIO, record: QueryRecord) -> None:
    """Append ``record`` as one line to an open results file and flush it to the OS.

    Once flushed, the line survives the process being killed (it is in the kernel's page
    cache; no fsync, which would cost milliseconds per query). A kill during the write leaves
    at most a truncated last line, which :func:`read_records` skips and
    :func:`drop_partial_line` removes before a resumed run appends.
    """
    handle.write(record.line())
    handle.flush()


def drop_partial_line(path: str | Path) -> bool:
    """Cut a truncated last line (left by a killed run) off a results file before appending.

    Returns whether anything was cut.
    """
    path = Path(path)
    if not path.exists():
        return False
    data = path.read_bytes()
    keep = data.rfind(b"\n") + 1
    if keep == len(data):
        return False
    with path.open("r+b") as handle:
        handle.truncate(keep)
    return True


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    with path.open(encoding="utf-8") as handle:
        yield from enumerate(handle, start=1)


def read_records(path: str | Path, *, run_id: str | None = None) -> list[QueryRecord]:
    """Every complete record in a results file, in file order.

    A last line without its newline (a run killed while writing) is ignored; a malformed line
    elsewhere is an error. With ``run_id``, records of another run are an error too.

    Raises
    ------
    ParameterError
        For a malformed line, or a record of another run.
    """
    path = Path(path)
    if not path.exists():
        return []
    records: list[QueryRecord] = []
    try:
        lines: Sequence[tuple[int, str]] = list(_lines(path))
    except UnicodeDecodeError as exc:
        raise ParameterError(f"{path}: not UTF-8 text ({exc.reason})") from None
    for number, text in lines:
        if not text.endswith("\n"):
            break  # truncated by a kill: the query will run again
        if not text.strip():
            continue
        try:
            record = QueryRecord.from_json(json.loads(text))
        except (ValueError, RecursionError, ParameterError) as exc:
            reason = str(exc).split(";")[0]
            raise ParameterError(f"{path}:{number}: not a result record: {reason}") from None
        if run_id is not None and record.run_id != run_id:
            raise ParameterError(
                f"{path}:{number}: record of run {record.run_id}, not of this run ({run_id})"
            )
        records.append(record)
    return records
