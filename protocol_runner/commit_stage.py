"""The commit gate as the last stage of a protocol run (``robustgraph run --commit-gate``).

After a query's protocol has concluded, every honest agent's final answer becomes a signed
PREPARE vote on the proposal ``"<run id>/<protocol>/<task id>"``. Its evidence hash covers what
the answer was derived from (:func:`conditioned_on`): the agent's own source (the document its
retrieval corpus serves for the task, or its own weights when it retrieves nothing) and the
neighbour messages it received in the last round, never its own earlier answers; an agent that
adopted a group decision (majority vote, the CrS coordinator, the judge-only control) conditioned
on that decision. The evidence-diversity gate of :mod:`protocol_runner.commit` decides with
f = the run's F, an independent, non-voting simulated re-executor (:class:`SimulatedReexecutor`)
checks the value, every gate decision is appended to a hash-chained ledger, and a plain 2f+1
quorum decides on the same votes for comparison. Both decisions go into the query's record
(``protocol_data["commit_gate"]``, layout in :mod:`protocol_runner.records`).

Registration: every agent of the roster (adversaries too: they are members of the deployment,
though they cast no vote) with a key from :func:`~protocol_runner.commit.keyring_from_seed` and
its checkpoint, prompt lineage and corpus. The roster's empty attribute means "shared with no
one" and becomes a value unique to the agent (:func:`infrastructure`).

Resume: a decision already in the ledger for a proposal (a run killed after the ledger append
and before the record was written) is reused, never taken or appended again; finished queries
never reach the stage. See ``docs/commit-gate.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol_runner.commit import (
    AgentRecord,
    CommitGate,
    Infrastructure,
    Ledger,
    Reexecution,
    Registry,
    Vote,
    decide_from_answers,
    keyring_from_seed,
    normalise_answer,
    plain_quorum,
    public_key_hex,
    reexecution_from_answer,
    value_hash,
)
from protocol_runner.llm.types import AgentIdentity
from protocol_runner.prompts import answer_messages, parse_answer
from protocol_runner.protocols import Outcome, QueryContext
from protocol_runner.protocols.engine import key_of
from protocol_runner.records import query_id
from protocol_runner.roster import AgentSpec, Roster
from protocol_runner.simulation import Simulator
from protocol_runner.tasks import Task
from robustgraph.errors import ParameterError

__all__ = [
    "DATA_KEY",
    "LEDGER_FILE",
    "UNSHARED",
    "CommitStage",
    "SimulatedReexecutor",
    "check_commit_gate",
    "conditioned_on",
    "infrastructure",
    "registry_for",
]

LEDGER_FILE = "ledger.sqlite"
"""The ledger's default name in the results directory."""

DATA_KEY = "commit_gate"
"""The key of the stage's data in a record's ``protocol_data``."""

UNSHARED = "#own:"
"""Prefix of the value standing for an empty ("shared with no one") roster attribute.

A roster checkpoint or corpus cannot contain ``#`` (it travels in the agent's request tag,
:class:`~protocol_runner.llm.types.AgentIdentity`), and declared values with this prefix are
refused, so the value never equals a declared one."""


def check_commit_gate(n: int, F: int) -> None:  # noqa: N803 - the paper's F
    """Raise ``ParameterError`` unless ``n`` registered agents can run the gate with f = ``F``.

    Examples
    --------
    >>> check_commit_gate(7, 2)
    >>> check_commit_gate(7, 3)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    solvers.errors.ParameterError: --commit-gate: f = F = 3 needs n >= 3f+1 = 10 agents, ...
    """
    if n < 3 * F + 1:
        raise ParameterError(f"--commit-gate: f = F = {F} needs n >= 3f+1 = {3 * F + 1} agents, "
                             f"the graph has {n}")


def infrastructure(agent: AgentSpec) -> Infrastructure:
    """The gate's view of a roster agent: checkpoint, lineage, corpus; empty ones made unique.

    Raises
    ------
    ParameterError
        If a declared attribute starts with :data:`UNSHARED`.

    Examples
    --------
    >>> a = AgentSpec(0, "a", "strong", "sim-strong", checkpoint="ck-1")
    >>> infrastructure(a)
    Infrastructure(checkpoint='ck-1', lineage='#own:a', corpora=())
    """
    for name in ("checkpoint", "lineage", "corpus"):
        if getattr(agent, name).startswith(UNSHARED):
            raise ParameterError(f"agent on node {agent.node}: {name} may not start with "
                                 f"{UNSHARED!r} (reserved for 'shared with no one')")
    own = UNSHARED + agent.agent_id
    return Infrastructure(agent.checkpoint or own, agent.lineage or own,
                          (agent.corpus,) if agent.corpus else ())


def registry_for(roster: Roster, *,
                 seed: int) -> tuple[Registry, dict[str, Ed25519PrivateKey]]:
    """Register every agent of ``roster`` with a seeded key; return the registry and the keys.

    Raises
    ------
    ParameterError
        If two agents have the same id, or a declared attribute uses the reserved prefix.
    """
    ids = [agent.agent_id for agent in roster.agents]
    keys = keyring_from_seed(ids, seed)
    records = tuple(AgentRecord(agent.agent_id, public_key_hex(keys[agent.agent_id].public_key()),
                                infrastructure(agent)) for agent in roster.agents)
    return Registry(records), keys


def _own_source(agent: AgentSpec, infra: Infrastructure, task: Task) -> str:
    if agent.corpus:
        return f"document {agent.corpus}/{task.id}"
    return f"weights {infra.checkpoint}"


def conditioned_on(ctx: QueryContext, outcome: Outcome,
                   registry: Registry) -> dict[str, list[str]]:
    """What each honest agent's final answer was derived from, as evidence items.

    Parameters
    ----------
    ctx : QueryContext
        The concluded query.
    outcome : Outcome
        Its protocol's outcome.
    registry : Registry
        The gate's registry (for the agents' infrastructure).

    Returns
    -------
    dict of agent id to list of str
        For an agent that adopted a group decision (``outcome.decision`` is set): that decision.
        Otherwise its own source (``document <corpus>/<task id>``, else ``weights
        <checkpoint>``) plus, after at least one round, one item ``message from <node>:
        <answer>`` per in-neighbour message it received in the last round.

    Notes
    -----
    The last round's messages are those published in round T-1 and read in round T, taken from
    the recorded turns (an equivocating adversary's ``sent`` map gives what this receiver got;
    the receiver's ``missing`` list names who sent nothing). :meth:`QueryContext.inbox` is not
    used: after the final round it holds the messages of round T, which no agent read. Messages
    are identified by sender and answer, so two wordings of one answer from one sender are one
    item, and the same answer from two senders is two.
    """
    agents = ctx.network.roster.agents
    honest = [agents[i] for i in ctx.honest]
    if outcome.decision is not None:
        item = f"group decision of {ctx.protocol}: {outcome.decision.answer}"
        return {agent.agent_id: [item] for agent in honest}
    infra = {record.agent_id: record.infra for record in registry}
    items = {agent.agent_id: [_own_source(agent, infra[agent.agent_id], ctx.task)]
             for agent in honest}
    if len(ctx.rounds) < 2:
        return items
    before, last = ctx.rounds[-2], ctx.rounds[-1]
    for agent in honest:
        missing = set(last[agent.index].details.get("missing", ()))
        for j in ctx.network.in_nbrs[agent.index]:
            sender = before[j]
            if sender.node in missing:
                continue
            sent = sender.details.get("sent")
            answer = sent[agent.node] if isinstance(sent, Mapping) and agent.node in sent \
                else sender.answer
            items[agent.agent_id].append(f"message from {sender.node}: {answer}")
    return items


def _fresh(base: str, taken: set[str]) -> str:
    name, k = base, 1
    while name in taken:
        k += 1
        name = f"{base}-{k}"
    return name


class SimulatedReexecutor:
    """An independent, non-voting re-executor: a simulated agent that shares nothing with voters.

    It answers the task afresh from its own snapshot with its own
    :class:`~protocol_runner.simulation.Simulator` (default world, profile ``model``), outside
    the run's LLM client and response cache, under an agent id, checkpoint, prompt lineage and
    snapshot corpus that no registered agent uses, so its error draws are independent of every
    voter's.

    Parameters
    ----------
    tasks : sequence of Task
        The run's tasks.
    registry : Registry
        The voters, whose ids and attributes it must avoid.
    seed : int
        The simulated world's seed (the run's seed).
    model : str
        Simulated profile, ``sim-<profile>``.

    Raises
    ------
    ParameterError
        For a model that names no simulated profile.

    Examples
    --------
    >>> from protocol_runner.roster import Roster
    >>> task = Task("t1", "What is 2 + 3?", "5")
    >>> reg, _ = registry_for(Roster((AgentSpec(0, "a", "strong", "sim-strong"),), "1S"), seed=0)
    >>> rerun = SimulatedReexecutor([task], reg, seed=0)
    >>> rerun.infra.checkpoint, rerun(task).value_hash == rerun(task).value_hash
    ('reexecutor', True)
    """

    def __init__(self, tasks: Sequence[Task], registry: Registry, *, seed: int,
                 model: str = "sim-strong") -> None:
        self._simulator = Simulator(tasks)
        profile = self._simulator.config.profiles.get(model.removeprefix("sim-"))
        if profile is None or not model.startswith("sim-"):
            raise ParameterError(f"re-executor model {model!r}; expected one of "
                                 f"{', '.join(self._simulator.models)}")
        self._profile = profile
        self.seed = seed
        taken = {record.agent_id for record in registry}
        taken.update(value for record in registry for _, value in record.infra.attributes())
        name = _fresh("reexecutor", taken)
        self.snapshot = _fresh(f"{name}-snapshot", taken)
        self.identity = AgentIdentity(name, checkpoint=name, corpus=self.snapshot)
        self.infra = Infrastructure(name, _fresh(f"{name}-lineage", taken), (self.snapshot,))

    def __call__(self, task: Task) -> Reexecution:
        """Answer ``task`` from the own snapshot; the answer's hash and the snapshot's."""
        text = self._simulator.reply(self._profile, self.identity, answer_messages(task),
                                     seed=self.seed)
        return reexecution_from_answer(key_of(parse_answer(text, task), task),
                                       [f"document {self.snapshot}/{task.id}"])


def _summary(body: Mapping[str, Any], values: Mapping[str, str],
             ctx: QueryContext) -> dict[str, Any]:
    """A decision as the record keeps it: outcome, action, the value at stake, reasons."""
    value = values.get(body.get("value_hash", ""))
    out: dict[str, Any] = {
        "outcome": body["outcome"],
        "action": body["action"],
        "value": value,
        "value_correct": None if value is None else ctx.correct(value),
    }
    for key in ("evidence", "units", "escalate_to"):
        if key in body:
            out[key] = body[key]
    out["reasons"] = list(body["reasons"])
    return out


def _recorded(ledger: Ledger) -> dict[str, dict[str, Any]]:
    """Gate decisions already in the ledger, by proposal id (first round only)."""
    found = {}
    for entry in ledger.entries():
        body = entry.body
        if (body.get("kind"), body.get("rule"), body.get("stage")) == ("decision", "gate",
                                                                         "initial"):
            found[body["proposal_id"]] = body
    return found


class CommitStage:
    """The runner hook (:data:`protocol_runner.runner.QueryHook`) that decides every query.

    Parameters
    ----------
    roster : Roster
        The run's agents.
    tasks : sequence of Task
        The run's tasks (for the re-executor).
    F : int
        The run's F; the gate's f.
    run_id : str
        Prefix of every proposal id.
    seed : int
        Seeds the signing keys and the re-executor's world.
    ledger : str or Path
        The ledger file; created when missing, appended to when it exists.

    Raises
    ------
    ParameterError
        If n < 3F+1, or the roster cannot be registered.
    LedgerError
        If ``ledger`` is not a robustgraph ledger or cannot be opened.

    Notes
    -----
    Per query: n signatures, 2n signature checks (gate and plain quorum), at most one simulated
    re-execution and one ledger append (one fsync'd SQLite transaction).
    """

    def __init__(self, roster: Roster, tasks: Sequence[Task], *, F: int,  # noqa: N803
                 run_id: str, seed: int, ledger: str | Path) -> None:
        check_commit_gate(len(roster.agents), F)
        self.registry, self._keys = registry_for(roster, seed=seed)
        self.reexecutor = SimulatedReexecutor(tasks, self.registry, seed=seed)
        self.run_id = run_id
        self.ledger = Ledger(ledger)
        try:
            self.gate = CommitGate(self.registry, F, self._reexecute,
                                   reexecutor=self.reexecutor.infra, ledger=self.ledger)
            self._recorded = _recorded(self.ledger)
        except BaseException:
            self.ledger.close()
            raise
        self._pending: dict[str, Task] = {}

    def _reexecute(self, proposal_id: str) -> Reexecution:
        return self.reexecutor(self._pending[proposal_id])

    def close(self) -> None:
        self.ledger.close()

    def __enter__(self) -> CommitStage:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __call__(self, ctx: QueryContext, outcome: Outcome) -> dict[str, Any]:
        """Decide the query's proposal; return ``{"commit_gate": ...}`` for its record."""
        task = ctx.task
        proposal = f"{self.run_id}/{query_id(ctx.protocol, task.id)}"
        agents = ctx.network.roster.agents
        answers = {agents[t.agent].agent_id: key_of(t.answer, task)
                   for t in outcome.final if t.honest}
        values = {value_hash(normalise_answer(a)): normalise_answer(a)
                  for a in answers.values() if a is not None}
        body = self._recorded.get(proposal)
        if body is None:
            self._pending[proposal] = task
            try:
                out = decide_from_answers(self.gate, proposal, answers,
                                          conditioned_on(ctx, outcome, self.registry), self._keys)
            finally:
                del self._pending[proposal]
            gate, plain = out.gate.to_json(), out.plain.to_json()
        else:  # decided (and appended) before this run was interrupted: reuse, never re-decide
            gate = body
            cast = [*body["votes"], *(r["vote"] for r in body["rejected"])]
            plain = plain_quorum(self.registry, self.gate.f, proposal,
                                 [Vote.from_json(v) for v in cast]).to_json()
        return {DATA_KEY: {
            "proposal_id": proposal,
            "f": self.gate.f,
            "votes": sum(a is not None for a in answers.values()),
            "gate": _summary(gate, values, ctx),
            "plain": _summary(plain, values, ctx),
        }}

    def head(self) -> tuple[int, str]:
        """The ledger's last entry: its sequence number and hash (``(0, "")`` when empty)."""
        seq, digest = 0, ""
        for entry in self.ledger.entries():
            seq, digest = entry.seq, entry.entry_hash
        return seq, digest
