"""The commit gate's re-executor as a real model on the run's OpenAI-compatible endpoint.

Test 4 of the evidence-diversity gate (``docs/commit-gate.md``) asks an independent, non-voting
re-execution to reproduce the quorum's value from its own snapshot. On the ``openai`` backend
``robustgraph run --commit-gate --reexecutor-model NAME`` has model NAME do it:
:class:`ModelReexecutor` asks the task afresh (the bare answer prompt: no neighbour messages,
no group decision, no votes) through the run's own client, past its response cache, under an
identity no registered agent has (:func:`independent_identity`). A model that a registered
agent declares as its checkpoint, or runs on, is refused (:func:`check_reexecutor_model`): its
agreement would be the voters' own weights agreeing with themselves.

A reply that yields no answer (garbage, an empty message, a refused or failed call) is a
re-execution that produced no value, which the gate turns into an abort. An endpoint that
cannot be reached at all stops the run instead (no decision is taken, so a resumed run decides
the proposal when the endpoint is back).
"""

from __future__ import annotations

from dataclasses import dataclass

from protocol_runner.commit import (
    Infrastructure,
    Reexecution,
    Registry,
    evidence_hash,
    reexecution_from_answer,
)
from protocol_runner.llm.types import AgentIdentity, CompletionRequest
from protocol_runner.protocols import QueryContext
from protocol_runner.protocols.engine import key_of
from protocol_runner.protocols.prompts import answer_messages, parse_answer
from protocol_runner.run.roster import Roster
from protocol_runner.tasks import Task
from robustgraph.errors import BackendError, ParameterError

__all__ = [
    "ModelReexecutor",
    "ReexecutorIdentity",
    "check_reexecutor_model",
    "independent_identity",
]

_OPTION = "--reexecutor-model"
_SHOWN = 80
"""Characters of an unusable reply quoted in the re-execution's detail."""


@dataclass(frozen=True)
class ReexecutorIdentity:
    """Who re-executes: the request identity, the gate's view of it, its snapshot corpus."""

    identity: AgentIdentity
    infra: Infrastructure
    snapshot: str


def _fresh(base: str, taken: set[str]) -> str:
    name, k = base, 1
    while name in taken:
        k += 1
        name = f"{base}-{k}"
    return name


def independent_identity(registry: Registry, *, checkpoint: str = "") -> ReexecutorIdentity:
    """An agent id, prompt lineage and snapshot corpus that no registered agent uses.

    Parameters
    ----------
    registry : Registry
        The voters, whose ids and attributes the names must avoid.
    checkpoint : str, optional
        The re-executor's checkpoint (a model name); by default the fresh agent id, which no
        voter has either.

    Returns
    -------
    ReexecutorIdentity
        Agent id ``reexecutor`` (``reexecutor-2``, ... when taken), lineage
        ``<id>-lineage`` and snapshot ``<id>-snapshot``, likewise made unique.

    Examples
    --------
    >>> from protocol_runner.commit import AgentRecord
    >>> reg = Registry((AgentRecord("reexecutor", "00" * 32, Infrastructure("ck", "lin")),))
    >>> who = independent_identity(reg, checkpoint="auditor-7b")
    >>> who.identity.to_user(), who.infra.lineage
    ('agent=reexecutor-2;ckpt=auditor-7b;corpus=reexecutor-2-snapshot', 'reexecutor-2-lineage')
    """
    taken = {record.agent_id for record in registry}
    taken.update(value for record in registry for _, value in record.infra.attributes())
    name = _fresh("reexecutor", taken)
    snapshot = _fresh(f"{name}-snapshot", taken)
    checkpoint = checkpoint or name
    return ReexecutorIdentity(AgentIdentity(name, checkpoint=checkpoint, corpus=snapshot),
                              Infrastructure(checkpoint, _fresh(f"{name}-lineage", taken),
                                             (snapshot,)),
                              snapshot)


def check_reexecutor_model(model: str, roster: Roster) -> None:
    """Refuse a re-executor model that is not independent of the roster's agents.

    Raises
    ------
    ParameterError
        If ``model`` is empty or cannot travel in a request's identity tag, is the declared
        checkpoint of an agent, or is the model an agent runs on (on a real endpoint the model
        *is* the weights, whatever checkpoint the roster declares).

    Examples
    --------
    >>> from protocol_runner.run.roster import AgentSpec
    >>> roster = Roster((AgentSpec(0, "a", "strong", "m-1", checkpoint="ck-a"),), "1S")
    >>> check_reexecutor_model("auditor", roster)
    >>> check_reexecutor_model("ck-a", roster)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    solvers.errors.ParameterError: --reexecutor-model 'ck-a' is the checkpoint of agent a ...
    """
    if not model:
        raise ParameterError(f"{_OPTION} needs a model name")
    try:
        AgentIdentity("reexecutor", checkpoint=model)
    except ParameterError:
        raise ParameterError(f"{_OPTION} {model!r}: a model name used as a checkpoint may not "
                             f"contain ';', '=', '#' or edge spaces") from None
    for agent in roster.agents:
        if model == agent.checkpoint:
            raise ParameterError(f"{_OPTION} {model!r} is the checkpoint of agent "
                                 f"{agent.agent_id} (node {agent.node}): the re-executor must "
                                 f"share no checkpoint with a voter")
        if model == agent.model:
            raise ParameterError(f"{_OPTION} {model!r} is the model agent {agent.agent_id} "
                                 f"(node {agent.node}) runs on: the re-executor must share no "
                                 f"weights with a voter")


class ModelReexecutor:
    """An independent, non-voting re-executor: model ``model`` on the run's endpoint.

    It answers the task afresh from the bare answer prompt, under an agent id, prompt lineage
    and snapshot corpus that no registered agent uses (:func:`independent_identity`) and with
    ``model`` as its checkpoint, through the query's context: the run's client (its
    concurrency, retries and counters; the call is counted in the query's cost) with the
    response cache bypassed, so neither a cached voter reply nor an earlier re-execution is
    ever replayed as this one.

    Parameters
    ----------
    model : str
        The re-executor's model at the run's endpoint.
    roster : Roster
        The run's agents (:func:`check_reexecutor_model`).
    registry : Registry
        The gate's registry (for :func:`independent_identity`).

    Raises
    ------
    ParameterError
        For a model that :func:`check_reexecutor_model` refuses.

    Notes
    -----
    The re-execution's snapshot is ``weights <model>`` and ``document <snapshot>/<task id>``
    (the snapshot corpus travels in the request's ``user`` tag, as the diversity round's
    shares do on the ``openai`` backend: no document text is put in the prompt). One LLM call
    per re-execution, plus one ``GET /models`` after a failed call to tell an unreachable
    endpoint from a failed reply.

    References
    ----------
    The gate's test 4: ``docs/commit-gate.md``; PBFT's prepare quorum it extends: Castro &
    Liskov, "Practical Byzantine Fault Tolerance", OSDI 1999.
    """

    def __init__(self, model: str, roster: Roster, registry: Registry) -> None:
        check_reexecutor_model(model, roster)
        self.model = model
        who = independent_identity(registry, checkpoint=model)
        self.identity = who.identity
        self.infra = who.infra
        self.snapshot = who.snapshot

    def request(self, ctx: QueryContext) -> CompletionRequest:
        """The re-execution's request: the task's answer prompt, the run's sampling settings."""
        return ctx.request(self.model, answer_messages(ctx.task), self.identity.to_user())

    def snapshot_items(self, task: Task) -> list[str]:
        """What the re-execution derives its answer from (hashed as its snapshot)."""
        return [f"weights {self.model}", f"document {self.snapshot}/{task.id}"]

    async def __call__(self, ctx: QueryContext) -> Reexecution:
        """Re-execute ``ctx.task``: the answer's value hash, or None with the reason.

        Raises
        ------
        BackendError
            The call failed and the endpoint does not answer ``GET /models`` either: the run
            cannot go on (a failed call at a reachable endpoint is a re-execution without a
            value instead).
        """
        task = ctx.task
        items = self.snapshot_items(task)
        try:
            completion = await ctx.ask_request(self.request(ctx), use_cache=False)
        except BackendError as failed:
            try:
                await ctx.client.check(())
            except BackendError as down:
                raise BackendError(f"commit gate re-execution by {self.model!r} failed and the "
                                   f"endpoint is unusable: {down}") from failed
            return Reexecution(None, evidence_hash(items),
                               f"re-executor {self.model} failed: {failed}")
        answer = key_of(parse_answer(completion.text, task), task)
        if answer is None:
            shown = " ".join(completion.text.split())[:_SHOWN]
            return Reexecution(None, evidence_hash(items),
                               f"re-executor {self.model} gave no parseable answer: {shown!r}")
        return reexecution_from_answer(answer, items)
