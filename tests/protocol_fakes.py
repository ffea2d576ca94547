"""Test helpers for the protocol tests: a scripted LLM backend and a one-query driver."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any

from protocol_runner.llm import AgentIdentity, Completion, CompletionRequest, LLMClient, Usage
from protocol_runner.protocols import EngineConfig, Network, Protocol, QueryContext
from protocol_runner.protocols.prompts import ParsedPrompt, parse_prompt
from protocol_runner.run.records import QueryRecord
from protocol_runner.run.roster import build_roster
from protocol_runner.tasks import Task
from robustgraph.topology import Topology

Script = Callable[[str, ParsedPrompt], str]


class ScriptedBackend:
    """Replies chosen by ``script(agent_id, parsed prompt)``; every request is kept."""

    namespace = "scripted"

    def __init__(self, script: Script) -> None:
        self.script = script
        self.requests: list[tuple[str, ParsedPrompt]] = []
        self.models: list[tuple[str, str]] = []  # (model, agent), one per request

    def provenance(self) -> dict[str, Any]:
        return {"backend": "scripted"}

    def describe(self, request: CompletionRequest) -> str:
        return "scripted"

    async def complete(self, request: CompletionRequest) -> Completion:
        view = parse_prompt(request.messages)
        assert view is not None, (
            "protocols must build their prompts with protocol_runner.protocols.prompts"
        )
        who = AgentIdentity.from_user(request.user).agent_id
        self.requests.append((who, view))
        self.models.append((request.model, who))
        return Completion(self.script(who, view), Usage(10, 2))

    async def check(self, models: Iterable[str]) -> None:
        return None

    async def aclose(self) -> None:
        return None

    def kinds(self, agent: str | None = None) -> list[str]:
        return [v.kind for who, v in self.requests if agent is None or who == agent]


def run_query(
    protocol: Protocol,
    topology: Topology,
    roster_spec: str,
    script: Script,
    *,
    task: Task | None = None,
    rounds: int = 1,
    F: int = 1,  # noqa: N803
    attack: str = "collude",
    adversary_nodes: tuple[str, ...] = (),
    task_index: int = 0,
    backend: ScriptedBackend | None = None,
    replays: dict[int, str] | None = None,
) -> tuple[QueryRecord, ScriptedBackend]:
    """Run one query of ``protocol`` with scripted agents; return its record and the backend.

    Replay attacks ask the model ``weak-model``: ``fixed`` replays ``replays`` (the run-level
    responses of :func:`~protocol_runner.protocols.engine.ood_replays`), ``fixed-same`` asks
    per query (:meth:`QueryContext.prime_attacks`)."""
    task = task or Task("t", "What is 2 + 3?", "5")
    placement = "labels" if adversary_nodes else "random"
    roster = build_roster(
        topology, roster_spec, attack=attack, placement=placement,
        adversary_nodes=adversary_nodes, seed=0,
    )
    backend = backend or ScriptedBackend(script)

    async def go() -> QueryRecord:
        client = LLMClient(backend)
        ctx = QueryContext(
            Network(topology, roster), task, task_index, client,
            EngineConfig(rounds=rounds, F=F, seed=0, replay_model="weak-model"),
            protocol=protocol.name, replays=replays,
        )
        await ctx.prime_attacks()
        outcome = await protocol.run(ctx)
        record = ctx.record(outcome, run_id="test")
        protocol.completed(task_index)
        return record

    return asyncio.run(go()), backend


def answer_of(text: str) -> str:
    """The answer in a quoted response (its last ``Answer:`` line)."""
    return text.rsplit("Answer:", 1)[-1].strip()
