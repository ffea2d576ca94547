"""The shared round engine: one query of one protocol among the agents of a roster on a graph.

Every protocol runs the same skeleton (Lee et al. 2026, Sec. 3; Du et al. 2024 for debate):
round 0, every honest agent answers the task; then, for rounds 1..T, every agent reads what its
in-neighbours sent in the previous round and takes its protocol's steps. Each step is a barrier:
all the LLM calls of a wave (e.g. every agent's scoring calls in a SAC round) are issued at once
through the shared :class:`~protocol_runner.llm.LLMClient`, which bounds how many are in flight,
and the next wave starts when the last one returns. Adversaries make no calls in the rounds:
after the honest agents' answers of a round are known, each adversary's attack decides what it
sends to each out-neighbour (a rushing adversary). The replay attacks (``fixed``,
``fixed-same``) send a weak-model response: :func:`ood_replays` asks for the ``fixed`` ones
once per run, :meth:`QueryContext.prime_attacks` for the ``fixed-same`` ones once per query
(counted in the query's cost), before round 0.

The engine records a :class:`~protocol_runner.run.records.Turn` per agent per round and counts the
query's LLM requests, cache hits and tokens; a protocol returns its :class:`Outcome`, and
:meth:`QueryContext.record` turns both into the query's result line.

One module: :class:`QueryContext` is the single object every protocol step reads and writes
(replies, inboxes, the adversaries' messages, the record), and the network, outcome and reply
values exist only for it.

Every request carries the run's seed and sample index 0, so an identical request (the same
agent asked the same prompt, e.g. re-scoring an unchanged response in a later round) is answered
once and then by the response cache: at temperature 0 a model would repeat itself anyway.
"""

from __future__ import annotations

import asyncio
import time
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Awaitable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, ClassVar, TypeVar

from protocol_runner.llm import ChatMessage, Completion, CompletionRequest, LLMClient
from protocol_runner.protocols.answers import answer_key, is_correct
from protocol_runner.protocols.attacks import (
    OOD_ATTACKS,
    Message,
    adversary_message,
    adversary_queries,
    replay_message,
)
from protocol_runner.protocols.prompts import DEFAULT_QUOTE_CHARS, answer_messages, parse_answer
from protocol_runner.run.records import Cost, Decision, QueryRecord, Turn, query_id
from protocol_runner.run.roster import Roster
from protocol_runner.tasks import Task
from robustgraph.errors import ParameterError
from robustgraph.topology import Topology

__all__ = [
    "EngineConfig",
    "ood_replays",
    "Network",
    "Outcome",
    "Protocol",
    "QueryContext",
    "Reply",
    "RoundProtocol",
    "key_of",
    "plurality",
]

T = TypeVar("T")


@dataclass(frozen=True)
class EngineConfig:
    """Settings shared by every protocol of a run.

    Parameters
    ----------
    rounds : int
        T, the number of communication rounds after round 0.
    F : int
        Faults each agent is told to tolerate (SAC drops up to F responses).
    seed : int
        The run's seed (sent as the sampling seed of every request).
    max_chars : int
        Cap on a neighbour's text quoted in a prompt.
    temperature : float or None
        Sampling temperature of every request.
    max_tokens : int or None
        Completion length cap of every request.
    replay_model : str
        The weak model whose responses the replay attacks send (``fixed``, ``fixed-same``);
        empty when no adversary replays.
    """

    rounds: int
    F: int
    seed: int
    max_chars: int = DEFAULT_QUOTE_CHARS
    temperature: float | None = 0.0
    max_tokens: int | None = None
    replay_model: str = ""

    def __post_init__(self) -> None:
        if self.rounds < 0:
            raise ParameterError(f"rounds must be >= 0, got {self.rounds}")
        if self.F < 0:
            raise ParameterError(f"F must be >= 0, got {self.F}")
        if self.max_chars < 1:
            raise ParameterError(f"the quote cap must be >= 1 character, got {self.max_chars}")


@dataclass(frozen=True)
class Network:
    """The graph and the roster on it, with the neighbour orders every query reuses.

    ``in_nbrs[i]``: the nodes agent ``i`` hears, by index; ``out_nbrs[j]``: the nodes that
    hear ``j``; ``rank[(j, i)]``: the position of ``i`` in ``out_nbrs[j]``.
    """

    topology: Topology
    roster: Roster
    in_nbrs: tuple[tuple[int, ...], ...] = field(init=False)
    out_nbrs: tuple[tuple[int, ...], ...] = field(init=False)
    rank: Mapping[tuple[int, int], int] = field(init=False)

    def __post_init__(self) -> None:
        n = self.topology.n
        if len(self.roster.agents) != n:
            raise ParameterError(f"the roster has {len(self.roster.agents)} agents for {n} nodes")
        ins = tuple(tuple(sorted(s)) for s in self.topology.in_neighbors)
        outs = tuple(tuple(sorted(s)) for s in self.topology.out_neighbors)
        object.__setattr__(self, "in_nbrs", ins)
        object.__setattr__(self, "out_nbrs", outs)
        rank = {(j, i): r for j, o in enumerate(outs) for r, i in enumerate(o)}
        object.__setattr__(self, "rank", rank)

    @property
    def n(self) -> int:
        return self.topology.n


@dataclass
class Reply:
    """An honest agent's current response: its text, parsed answer and (CP-WBFT) confidence."""

    text: str
    answer: str | None
    confidence: float | None = None

    def message(self) -> Message:
        return Message(self.text, self.answer, self.confidence)


@dataclass(frozen=True)
class Outcome:
    """What a protocol concludes: final turns, an optional group decision, protocol state."""

    final: tuple[Turn, ...]
    decision: Decision | None = None
    protocol_data: Mapping[str, Any] = field(default_factory=dict)


@lru_cache(maxsize=1 << 16)
def key_of(answer: str | None, task: Task) -> str | None:
    """:func:`~protocol_runner.protocols.answers.answer_key`, memoised (votes repeat answers)."""
    return answer_key(answer, task)


def plurality(
    votes: Sequence[tuple[int, str | None]], task: Task, weights: Mapping[int, float] | None = None
) -> tuple[str | None, dict[str, float]]:
    """The answer with the most (weighted) votes and the tally by answer.

    ``votes`` are ``(agent, answer)`` pairs; equal answers are grouped by
    :func:`~protocol_runner.protocols.answers.answer_key`; unparsed answers do not vote. Ties go
    to the answer whose first voter comes first in ``votes``.

    Examples
    --------
    >>> t = Task("t", "2+3?", "5")
    >>> plurality([(0, "4"), (1, "5"), (2, "5.0")], t)
    ('5', {'4': 1.0, '5': 2.0})
    """
    tally: dict[str, float] = {}
    shown: dict[str, str] = {}
    for agent, answer in votes:
        key = key_of(answer, task)
        if key is None or answer is None:
            continue
        shown.setdefault(key, answer)
        tally[key] = tally.get(key, 0.0) + (1.0 if weights is None else weights[agent])
    if not tally:
        return None, {}
    best = max(tally.values())
    winner = next(key for key in shown if tally[key] == best)
    return shown[winner], {shown[k]: v for k, v in tally.items()}


async def ood_replays(
    client: LLMClient, network: Network, pool: Sequence[Task], config: EngineConfig
) -> dict[int, tuple[str, ...]]:
    """The ``fixed`` (and ``fixed-literal``) adversaries' messages (App. B.4): weak-model
    responses to OOD queries.

    For each adversary whose attack is one of those, the weak model ``config.replay_model`` is
    asked, once for the whole run, the out-of-distribution tasks that
    :func:`~protocol_runner.protocols.attacks.adversary_queries` draws for it from ``pool``, with
    the round-0 prompt and the run's sampling settings, under the adversary's own identity; the
    response cache keeps the replies, so a resumed run reads them back. The calls are the run's,
    not any query's, so they are in no query's cost. In a query the adversary sends one of its
    replies (:func:`~protocol_runner.protocols.attacks.replay_message`).

    Returns
    -------
    dict int -> tuple of str
        Response texts by adversary index (empty when no adversary plays ``fixed``).
    """
    agents = network.roster.agents
    fixed = [j for j in network.roster.adversaries if agents[j].attack.name in OOD_ATTACKS]
    asked = [(j, query) for j in fixed
             for query in adversary_queries(agents[j].attack.name, pool, config.seed,
                                            agents[j].node)]
    requests = [
        CompletionRequest(
            config.replay_model,
            answer_messages(query),
            temperature=config.temperature,
            max_tokens=config.max_tokens,
            seed=config.seed,
            user=agents[j].identity().to_user(),
        )
        for j, query in asked
    ]
    completions = await asyncio.gather(*(client.complete(r) for r in requests))
    replays: dict[int, tuple[str, ...]] = {j: () for j in fixed}
    for (j, _), completion in zip(asked, completions, strict=True):
        replays[j] += (completion.text,)
    return replays


class QueryContext:
    """One query in flight: the task, the agents' current replies and messages, the record so far.

    Parameters
    ----------
    network : Network
        Graph and roster.
    task : Task
        The question.
    task_index : int
        Its position in the run's task set.
    client : LLMClient
        The shared client (every call of the run goes through it).
    config : EngineConfig
        Rounds, F, seed, quote cap, sampling.
    protocol : str
        Protocol name (for the record).
    ood : Task, optional
        The ``fixed-ref`` attack's other task.
    replays : mapping int -> tuple of str, optional
        The ``fixed`` adversaries' weak-model response texts, by agent (:func:`ood_replays`).
    """

    def __init__(
        self,
        network: Network,
        task: Task,
        task_index: int,
        client: LLMClient,
        config: EngineConfig,
        *,
        protocol: str,
        ood: Task | None = None,
        replays: Mapping[int, Sequence[str]] | None = None,
    ) -> None:
        self.network = network
        self.task = task
        self.task_index = task_index
        self.client = client
        self.config = config
        self.protocol = protocol
        self.ood = ood
        self._replays = {j: replay_message(text, task) for j, text in (replays or {}).items()}
        agents = network.roster.agents
        self.honest = network.roster.honest
        self.adversaries = network.roster.adversaries
        self._users = [a.identity().to_user() for a in agents]
        self.replies: dict[int, Reply] = {}
        self.rounds: list[tuple[Turn, ...]] = []
        # (sender, receiver) -> message of the last published round; receiver -1 is "no one".
        self._sent: dict[tuple[int, int], Message | None] = {}
        self._correct: dict[str | None, bool] = {None: False}
        self._calls = self._hits = self._prompt_tokens = self._completion_tokens = 0
        self._started = time.perf_counter()

    # ------------------------------------------------------------------ LLM calls
    def request(
        self, model: str, messages: tuple[ChatMessage, ...], user: str
    ) -> CompletionRequest:
        """A request from ``user`` with the run's sampling settings (temperature, length, seed)."""
        cfg = self.config
        return CompletionRequest(
            model,
            messages,
            temperature=cfg.temperature,
            max_tokens=cfg.max_tokens,
            seed=cfg.seed,
            user=user,
        )

    async def ask(self, agent: int, messages: tuple[ChatMessage, ...]) -> Completion:
        """One LLM call by honest ``agent``, counted against this query."""
        spec = self.network.roster.agents[agent]
        return await self.ask_request(self.request(spec.model or "", messages, self._users[agent]))

    async def ask_request(self, request: CompletionRequest, *,
                          use_cache: bool = True) -> Completion:
        """Send ``request`` through the shared client and count it against this query
        (``use_cache=False``: past the response cache, :meth:`LLMClient.complete`)."""
        completion = await self.client.complete(request, use_cache=use_cache)
        self._calls += 1
        if completion.cached:
            self._hits += 1
        else:
            self._prompt_tokens += completion.usage.prompt_tokens
            self._completion_tokens += completion.usage.completion_tokens
        return completion

    @staticmethod
    async def wave(calls: Iterable[Awaitable[T]]) -> list[T]:
        """Issue every call of one wave at once and wait for all of them (a barrier)."""
        return list(await asyncio.gather(*calls))

    async def prime_attacks(self) -> None:
        """Ask the weak model the query's question for each ``fixed-same`` adversary.

        One call per such adversary (its own identity, so at temperature 0 and with the
        response cache a re-run repeats it), counted in this query's cost; the reply is what the
        adversary sends in every round. Call once, before round 0.
        """
        agents = self.network.roster.agents
        same = [j for j in self.adversaries if agents[j].attack.name == "fixed-same"]
        if not same:
            return
        prompt = answer_messages(self.task)
        model = self.config.replay_model
        completions = await self.wave(
            self.ask_request(self.request(model, prompt, self._users[j])) for j in same
        )
        for j, completion in zip(same, completions, strict=True):
            self._replays[j] = replay_message(completion.text, self.task)

    async def answer_all(self) -> dict[int, Reply]:
        """Round 0 of most protocols: every honest agent answers the task."""
        prompt = answer_messages(self.task)
        replies = await self.wave(self.ask(i, prompt) for i in self.honest)
        return {
            i: Reply(c.text, parse_answer(c.text, self.task))
            for i, c in zip(self.honest, replies, strict=True)
        }

    async def refine(
        self, prompts: Mapping[int, tuple[ChatMessage, ...]]
    ) -> tuple[dict[int, Reply], list[int]]:
        """A refinement wave: every agent in ``prompts`` asks its prompt, all at once.

        Returns the current replies with each refinement whose answer parses in place of the
        agent's reply (an unparsable one keeps the reply), and the agents whose refinement
        parsed, in ``prompts`` order.
        """
        agents = list(prompts)
        completions = await self.wave(self.ask(i, prompts[i]) for i in agents)
        replies = dict(self.replies)
        refined = []
        for i, completion in zip(agents, completions, strict=True):
            answer = parse_answer(completion.text, self.task)
            if answer is not None:
                replies[i] = Reply(completion.text, answer)
                refined.append(i)
        return replies, refined

    # ------------------------------------------------------------------ messages
    def correct(self, answer: str | None) -> bool:
        """Whether ``answer`` is right for the task (memoised per query)."""
        known = self._correct.get(answer)
        if known is None:
            known = self._correct[answer] = is_correct(answer, self.task)
        return known

    def inbox(self, agent: int) -> tuple[list[tuple[int, Message]], list[int]]:
        """What ``agent`` received in the last published round: ``(sender, message)`` pairs in
        node order, and the in-neighbours that sent nothing."""
        received, missing = [], []
        for j in self.network.in_nbrs[agent]:
            message = self._sent[(j, agent)]
            if message is None:
                missing.append(j)
            else:
                received.append((j, message))
        return received, missing

    def vote(self, agent: int) -> Message | None:
        """What ``agent`` sends an aggregator that is no neighbour (majority vote, coordinator)."""
        return self._sent[(agent, -1)]

    def publish(
        self,
        replies: Mapping[int, Reply],
        details: Mapping[int, Mapping[str, Any]] | None = None,
        *,
        record: bool = True,
        reports: Mapping[int, Reply] | None = None,
    ) -> None:
        """Close a round: store the honest replies, let adversaries choose their messages, and
        record every agent's turn (``details`` adds protocol keys to honest agents' turns;
        ``record=False`` for a round no agent took part in, e.g. the judge-only control).

        An honest agent sends its reply, or ``reports[i]`` when given (CP-WBFT: every round each
        agent reports its own answer and confidence, not the answer it aggregated to). A turn
        whose report differs from its answer gets ``sent`` (receiver node -> answer sent), the
        key an equivocating adversary's turn has, so the messages of a round can be read back
        from the record."""
        details = details or {}
        self.replies = dict(replies)
        network = self.network
        round_index = len(self.rounds)
        outgoing = self.replies if reports is None else reports
        sent = self._sent = {}
        for i in self.honest:
            message = outgoing[i].message()
            sent[(i, -1)] = message
            for r in network.out_nbrs[i]:
                sent[(i, r)] = message
        spec_of = network.roster.agents
        for j in self.adversaries:
            heard = [self._heard(k) for k in network.in_nbrs[j]]
            attack = spec_of[j].attack
            for r in (-1, *network.out_nbrs[j]):
                sent[(j, r)] = adversary_message(
                    attack,
                    self.task,
                    round_index=round_index,
                    receiver_rank=None if r < 0 else network.rank[(j, r)],
                    heard=heard,
                    ood=self.ood,
                    replay=self._replays.get(j),
                )
        if record:
            turns = []
            for i in range(network.n):
                extra = dict(details.get(i, {}))
                if i in self.replies and self._reported_other(outgoing[i], self.replies[i]):
                    said = outgoing[i].answer
                    extra["sent"] = {self.node(r): said for r in network.out_nbrs[i]}
                turns.append(self.turn(i, extra))
            self.rounds.append(tuple(turns))

    def _reported_other(self, report: Reply, reply: Reply) -> bool:
        return key_of(report.answer, self.task) != key_of(reply.answer, self.task)

    def _heard(self, k: int) -> str | None:
        """The answer honest in-neighbour ``k`` sent this round (None for an adversary)."""
        if k not in self.replies:
            return None
        message = self._sent[(k, -1)]
        return message.answer if message is not None else None

    def turn(self, agent: int, details: Mapping[str, Any] | None = None) -> Turn:
        """The current turn of ``agent``: its reply, or for an adversary what it sent."""
        spec = self.network.roster.agents[agent]
        extra = dict(details or {})
        if spec.honest:
            answer = self.replies[agent].answer
        else:
            answer, extra = self._adversary_answer(agent)
        return Turn(agent, spec.node, spec.role, answer, self.correct(answer), extra)

    def _adversary_answer(self, j: int) -> tuple[str | None, dict[str, Any]]:
        spec = self.network.roster.agents[j]
        extra: dict[str, Any] = {"attack": spec.attack.text}
        outs = self.network.out_nbrs[j]
        sent = {r: self._sent[(j, r)] for r in outs}
        if not outs:
            vote = self._sent[(j, -1)]
            return (None if vote is None else vote.answer), extra
        answers = [m.answer for m in sent.values() if m is not None]
        if not answers:
            return None, extra
        if len(set(answers)) > 1:
            nodes = self.network.roster.agents
            extra["sent"] = {nodes[r].node: (m.answer if m else None) for r, m in sent.items()}
        return Counter(answers).most_common(1)[0][0], extra

    def final_turns(self, answers: Mapping[int, str | None] | None = None) -> tuple[Turn, ...]:
        """Final turns: the last round's, or every honest agent adopting ``answers[i]``."""
        if answers is None:
            return tuple(self.turn(i) for i in range(self.network.n))
        out = []
        for i, spec in enumerate(self.network.roster.agents):
            if spec.honest:
                a = answers[i]
                out.append(Turn(i, spec.node, spec.role, a, self.correct(a)))
            else:
                out.append(self.turn(i))
        return tuple(out)

    def node(self, agent: int) -> str:
        return self.network.roster.agents[agent].node

    # ------------------------------------------------------------------ the record
    def record(self, outcome: Outcome, *, run_id: str) -> QueryRecord:
        """The query's result line."""
        cost = Cost(
            self._calls,
            self._hits,
            self._prompt_tokens,
            self._completion_tokens,
            time.perf_counter() - self._started,
        )
        return QueryRecord(
            query_id=query_id(self.protocol, self.task.id),
            run_id=run_id,
            protocol=self.protocol,
            task_id=self.task.id,
            task_index=self.task_index,
            task_kind=self.task.kind,
            reference=self.task.answer,
            seed=self.config.seed,
            F=self.config.F,
            roster=self.network.roster.summary(),
            rounds=tuple(self.rounds),
            final=outcome.final,
            decision=outcome.decision,
            protocol_data=outcome.protocol_data,
            cost=cost,
        )


class Protocol(ABC):
    """A protocol: its steps as methods over the shared engine.

    Subclasses set ``name`` and implement :meth:`run`. A protocol object lives for a whole run
    (one per protocol), so it can carry state across queries (CrS credibility);
    :meth:`completed` is called once a query's record is on disk, and :meth:`resume` with the
    records of an interrupted run before anything runs.
    """

    name: ClassVar[str]

    @abstractmethod
    async def run(self, ctx: QueryContext) -> Outcome:
        """Run one query to its outcome."""

    def completed(self, task_index: int) -> None:  # noqa: B027 - optional hook
        """Called after the record of the query on task ``task_index`` was written."""

    def resume(self, records: Sequence[QueryRecord]) -> None:  # noqa: B027 - optional hook
        """Called with this protocol's completed records before a resumed run starts."""


class RoundProtocol(Protocol):
    """A protocol of round 0 (every honest agent answers) and T rounds of :meth:`round`.

    The final turns are those of the last round (SAC and debate; Lee et al. 2026, Sec. 3).
    """

    async def run(self, ctx: QueryContext) -> Outcome:
        ctx.publish(await ctx.answer_all())
        for _ in range(ctx.config.rounds):
            await self.round(ctx)
        return Outcome(ctx.final_turns())

    @abstractmethod
    async def round(self, ctx: QueryContext) -> None:
        """One round: read the inboxes, make the round's calls, then publish."""
