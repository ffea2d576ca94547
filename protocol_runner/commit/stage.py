"""The commit gate as the last stage of a protocol run (``robustgraph run --commit-gate``).

After a query's protocol has concluded, every honest agent's final answer becomes a signed
PREPARE vote on the proposal ``"<run id>/<protocol>/<task id>"``. Its evidence hash covers what
the answer was derived from (:func:`conditioned_on`): the agent's own source (the document its
retrieval corpus serves for the task, or its own weights when it retrieves nothing) and the
neighbour messages it received in the last round, never its own earlier answers; an agent that
adopted a group decision (majority vote, the CrS coordinator, the judge-only control) conditioned
on that decision. With documents on file (``run --corpus``, :mod:`protocol_runner.run.corpora`) a
document is identified by the hash of its text, so corpora serving one text are one source.
The evidence-diversity gate of :mod:`protocol_runner.commit` decides with
f = the Byzantine voters it tolerates (:func:`gate_f`: the roster's adversaries unless
``run --gate-f`` says otherwise; not SAC's F, which bounds faulty neighbours per agent and
counts the weak agents too), an independent, non-voting re-executor checks the value (a
simulated one, :class:`SimulatedReexecutor`, by default; on the ``openai`` backend a real model,
:class:`~protocol_runner.commit.reexec.ModelReexecutor`, with ``--reexecutor-model``), every
gate decision is appended to a hash-chained ledger, and a plain 2f+1 quorum decides on the same
votes for comparison. Both decisions go into the query's record
(``protocol_data["commit_gate"]``, layout in :mod:`protocol_runner.run.records`).

A correlated quorum in that first decision starts the diversity-forcing round
(:meth:`CommitStage.diversity_round`): every honest agent is re-asked the task through the run's
own LLM client, alone (no neighbour messages), with a fresh sample and a share of the honest
agents' retrieval documents that no other agent holds (:func:`plan_diversity_round`, dealt by
:func:`~protocol_runner.commit.partition_evidence`); the new answers become signed votes of
stage ``"diversity"`` and the gate decides again. That second decision is final: a commit, or
for a second correlated quorum an escalation to a human (issue 7's rule).

Registration: every agent of the roster (adversaries too: they are members of the deployment,
though they cast no vote) with a fresh Ed25519 key from the run's keyring
(:class:`~protocol_runner.commit.Keyring`: ``OUTPUT/keyring.json`` or ``run --keyring``; no
seed enters a key) and its infrastructure as the roster declares it (:func:`infrastructure`):
the checkpoint, or when none is declared the agent's model name, so copies of one model are one
independence unit; its corpus; its prompt lineage when declared.

Resume: a decision already in the ledger for a proposal and stage (a run killed after the
ledger append and before the record was written) is reused, never taken or appended again;
finished queries never reach the stage. Every finished query's decisions must be in the ledger
(:func:`check_ledger_holds`): a ledger that lost entries (a deleted ``-wal`` file, a restored
old copy) or is missing beside gated results stops the run with one line. See
``docs/commit-gate.md``.

One module: the stage is one pipeline per query (votes, gate, diversity round, re-execution,
ledger), and its parts read the same query context; the gate itself, the votes and the ledger
are already their own modules in this package.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from protocol_runner.commit import (
    KEYRING_FILE,
    AgentRecord,
    CommitGate,
    Infrastructure,
    Keyring,
    KeyringError,
    Ledger,
    LedgerError,
    Reexecution,
    Registry,
    Vote,
    decide_from_answers,
    normalise_answer,
    partition_evidence,
    plain_quorum,
    public_key_hex,
    reexecution_from_answer,
    value_hash,
)
from protocol_runner.commit.ledger import LedgerEntry, read_entries
from protocol_runner.commit.outcomes import Stage
from protocol_runner.commit.reexec import ModelReexecutor, independent_identity
from protocol_runner.llm.types import AgentIdentity
from protocol_runner.protocols import Outcome, QueryContext
from protocol_runner.protocols.engine import key_of
from protocol_runner.protocols.prompts import answer_messages, parse_answer
from protocol_runner.run.corpora import Corpora, Document
from protocol_runner.run.records import QueryRecord, query_id
from protocol_runner.run.roster import AgentSpec, Roster
from protocol_runner.sim.agents import Simulator
from protocol_runner.tasks import Task
from robustgraph.errors import ParameterError

__all__ = [
    "DATA_KEY",
    "DIVERSITY_SAMPLE",
    "KEYRING_FILE",
    "LEDGER_FILE",
    "UNSHARED",
    "CommitStage",
    "Reask",
    "SimulatedReexecutor",
    "check_commit_gate",
    "check_ledger_holds",
    "conditioned_on",
    "gate_f",
    "infrastructure",
    "plan_diversity_round",
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

DIVERSITY_SAMPLE = 1
"""Sample index of the diversity round's requests: a fresh draw, never round 0's reply again
(round 0 asks the same prompt with sample 0, and the response cache would return it)."""


def gate_f(roster: Roster, declared: int | None = None) -> int:
    """The gate's f: ``declared`` (``run --gate-f``), else the roster's adversaries.

    The gate's f bounds the voters that may sign anything (Byzantine voters); the weak agents
    the SAC paper counts in F (Def. 3.1) vote honestly, and their errors are what the diversity
    tests are for, so they are not counted.

    Examples
    --------
    >>> from robustgraph.generators import gamma_merg
    >>> from protocol_runner.run.roster import build_roster
    >>> gate_f(build_roster(gamma_merg(7), "4S2W1A")), gate_f(build_roster(gamma_merg(7), "7S"), 2)
    (1, 2)
    """
    return len(roster.adversaries) if declared is None else declared


def check_commit_gate(n: int, f: int, *, keyring: Path | None = None) -> None:
    """Raise ``ParameterError`` unless ``n`` agents can run the gate tolerating ``f`` voters.

    A given ``keyring`` that exists must be a usable keyring (owner-only, well-formed), so a
    bad one is refused before the run writes anything.

    Examples
    --------
    >>> check_commit_gate(7, 2)
    >>> check_commit_gate(7, 3)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    solvers.errors.ParameterError: --commit-gate: the gate's f = 3 Byzantine voters needs ...
    """
    if not isinstance(f, int) or isinstance(f, bool) or f < 0:
        raise ParameterError(f"--gate-f must be a non-negative integer, got {f!r}")
    if n < 3 * f + 1:
        raise ParameterError(f"--commit-gate: the gate's f = {f} Byzantine voters needs "
                             f"n >= 3f+1 = {3 * f + 1} agents, the graph has {n} (lower "
                             f"--gate-f)")
    if keyring is not None and (keyring.exists() or keyring.is_symlink()):
        Keyring.open(keyring)
    elif keyring is not None and not keyring.parent.is_dir():
        raise KeyringError(f"{keyring}: no such directory for the keyring")


def infrastructure(agent: AgentSpec) -> Infrastructure:
    """The gate's view of a roster agent: what it declares, so shared weights are seen.

    The checkpoint is the declared one, else the agent's model name (two copies of one model
    share their weights, so they are one independence unit unless the roster declares distinct
    checkpoints), else (an adversary without a model) a value unique to the agent; the corpus
    as declared; the prompt lineage as declared, else unique to the agent (every agent of a run
    reads the same built-in prompt templates; counting that would make every run one unit, so a
    lineage is what the operator declares for agents built from different prompt families).

    Raises
    ------
    ParameterError
        If a declared attribute starts with :data:`UNSHARED`.

    Examples
    --------
    >>> infrastructure(AgentSpec(0, "a", "strong", "sim-strong", checkpoint="ck-1"))
    Infrastructure(checkpoint='ck-1', lineage='#own:a', corpora=())
    >>> infrastructure(AgentSpec(1, "b", "strong", "sim-strong", corpus="wiki"))
    Infrastructure(checkpoint='sim-strong', lineage='#own:b', corpora=('wiki',))
    """
    for name in ("checkpoint", "lineage", "corpus"):
        if getattr(agent, name).startswith(UNSHARED):
            raise ParameterError(f"agent on node {agent.node}: {name} may not start with "
                                 f"{UNSHARED!r} (reserved for 'shared with no one')")
    own = UNSHARED + agent.agent_id
    return Infrastructure(agent.checkpoint or agent.model or own, agent.lineage or own,
                          (agent.corpus,) if agent.corpus else ())


def registry_for(roster: Roster, keyring: Keyring) -> Registry:
    """Register every agent of ``roster`` with its key in ``keyring`` and its infrastructure.

    Raises
    ------
    ParameterError
        If two agents have the same id, an agent has no key in ``keyring``, or a declared
        attribute uses the reserved prefix.
    """
    records = []
    for agent in roster.agents:
        key = keyring.agents.get(agent.agent_id)
        if key is None:
            raise ParameterError(f"{keyring.path}: no key for agent {agent.agent_id!r}")
        records.append(AgentRecord(agent.agent_id, public_key_hex(key.public_key()),
                                   infrastructure(agent)))
    return Registry(tuple(records))


def _required(records: Sequence[QueryRecord]) -> list[tuple[str, str]]:
    """The gate decisions (proposal id, stage) that finished gated queries rest on."""
    needed = []
    for record in records:
        data = record.protocol_data.get(DATA_KEY)
        if isinstance(data, Mapping):
            needed.append((data["proposal_id"], "initial"))
            if "diversity" in data:
                needed.append((data["proposal_id"], "diversity"))
    return needed


def check_ledger_holds(path: Path, records: Sequence[QueryRecord]) -> None:
    """Refuse to resume when the ledger lacks a decision that a finished query's record shows.

    Parameters
    ----------
    path : Path
        The run's ledger.
    records : sequence of QueryRecord
        The run's finished queries (``results.jsonl``).

    Raises
    ------
    LedgerError
        If gated records exist and the ledger is missing, or any of their decisions (the first
        one, and the diversity round's where the record has one) is not in it.

    Notes
    -----
    Called before the ledger is opened for writing, so a ledger that went missing is never
    created afresh beside results that rest on it. O(E + R) for E entries and R records.
    """
    needed = _required(records)
    if not needed:
        return
    hint = "restore the ledger, or run into a new -o"
    if not path.exists():
        raise LedgerError(f"{path}: no such ledger, but {len(needed)} decisions of this run's "
                          f"finished queries rest on it; {hint}")
    have = set(_recorded(read_entries(path)))
    missing = [item for item in needed if item not in have]
    if missing:
        proposal, stage = missing[0]
        raise LedgerError(f"{path} lacks {len(missing)} decisions of this run's finished queries "
                          f"(first: {proposal}, {stage}): it lost entries (was its -wal file "
                          f"deleted?); {hint}")


def _own_source(agent: AgentSpec, infra: Infrastructure, task: Task,
                corpora: Corpora | None) -> str:
    if agent.corpus and corpora is not None and agent.corpus in corpora:
        document = corpora.document(agent.corpus, task.id)
        return f"weights {infra.checkpoint}" if document is None else document.evidence
    if agent.corpus:
        return _document(agent.corpus, task)
    return f"weights {infra.checkpoint}"


def conditioned_on(ctx: QueryContext, outcome: Outcome, registry: Registry, *,
                   corpora: Corpora | None = None) -> dict[str, list[str]]:
    """What each honest agent's final answer was derived from, as evidence items.

    Parameters
    ----------
    ctx : QueryContext
        The concluded query.
    outcome : Outcome
        Its protocol's outcome.
    registry : Registry
        The gate's registry (for the agents' infrastructure).
    corpora : Corpora, optional
        The run's corpora with documents (``--corpus``, :mod:`protocol_runner.run.corpora`).

    Returns
    -------
    dict of agent id to list of str
        For an agent that adopted a group decision (``outcome.decision`` is set): that decision.
        Otherwise its own source plus, after at least one round, one item ``message from
        <node>: <answer>`` per in-neighbour message it received in the last round. The own
        source of an agent whose corpus is in ``corpora``: the document it read
        (``document sha256:<hex of its text>``), or ``weights <checkpoint>`` for a task the
        corpus has no document for; of an agent whose corpus has no documents (the simulated
        backend, or a corpus without ``--corpus``): ``document <corpus>/<task id>``; of an
        agent without a corpus: ``weights <checkpoint>``.

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
    items = {agent.agent_id: [_own_source(agent, infra[agent.agent_id], ctx.task, corpora)]
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


@dataclass(frozen=True)
class Reask:
    """One agent's part in the diversity-forcing round.

    ``corpus`` is the retrieval corpus it reads (its request identity's corpus), empty when its
    share holds no document; ``evidence`` is what its new answer is derived from: the document
    of its share, else its own weights. ``document`` is the document's text when the corpus
    has one on file (``--corpus``): the agent reads it in its prompt.
    """

    agent: int
    corpus: str
    evidence: tuple[str, ...]
    document: Document | None = None


def _document(corpus: str, task: Task) -> str:
    return f"document {corpus}/{task.id}"


def plan_diversity_round(ctx: QueryContext, registry: Registry, *, seed: int,
                         corpora: Corpora | None = None) -> dict[str, Reask]:
    """Who reads what in the diversity-forcing round after a correlated quorum (issue 7).

    Parameters
    ----------
    ctx : QueryContext
        The concluded query.
    registry : Registry
        The gate's registry (for the agents' checkpoints).
    seed : int
        Seed of the deal (:func:`~protocol_runner.commit.partition_evidence`).
    corpora : Corpora, optional
        The run's corpora with documents (``--corpus``).

    Returns
    -------
    dict of agent id to Reask
        One entry per honest agent, in roster order. The distinct documents the honest agents'
        corpora serve for the task are dealt in pairwise disjoint shares; an agent whose share
        is empty (fewer documents than agents) answers from its own weights alone. A corpus in
        ``corpora`` serves its document for the task (none if it has none), identified by the
        hash of its text, so corpora serving one text serve one document (read under the first
        such corpus in roster order); any other corpus serves ``document <corpus>/<task id>``.

    Notes
    -----
    Shares hold at most one document, as there are at most as many documents as agents. No
    agent reads neighbour messages, so the new evidence hashes share nothing but a checkpoint
    that two weights-only agents have in common (the independence-unit test still sees it).

    Examples
    --------
    >>> from protocol_runner.protocols import EngineConfig, Network
    >>> from protocol_runner.run.roster import Roster
    >>> from robustgraph.topology import Topology
    >>> roster = Roster((AgentSpec(0, "a", "strong", "sim-strong", corpus="wiki"),
    ...                  AgentSpec(1, "b", "strong", "sim-strong", corpus="wiki"),
    ...                  AgentSpec(2, "c", "strong", "sim-strong", checkpoint="ck")), "3S")
    >>> network = Network(Topology.from_edges([("a", "b"), ("b", "c")]), roster)
    >>> ctx = QueryContext(network, Task("t1", "What is 2 + 3?", "5"), 0, None,
    ...                    EngineConfig(rounds=0, F=0, seed=0), protocol="sac")
    >>> import tempfile, os
    >>> ring = Keyring.open(os.path.join(tempfile.mkdtemp(), "keyring.json"), "abc")
    >>> plan = plan_diversity_round(ctx, registry_for(roster, ring), seed=0)
    >>> {agent: r.evidence for agent, r in plan.items()}  # one document, dealt to one agent
    {'a': ('weights sim-strong',), 'b': ('weights sim-strong',), 'c': ('document wiki/t1',)}
    """
    agents = ctx.network.roster.agents
    honest = [agents[i] for i in ctx.honest]
    served: dict[str, tuple[str, Document | None]] = {}
    for a in honest:
        if a.corpus and corpora is not None and a.corpus in corpora:
            document = corpora.document(a.corpus, ctx.task.id)
            if document is not None:
                served.setdefault(document.evidence, (a.corpus, document))
        elif a.corpus:
            served.setdefault(_document(a.corpus, ctx.task), (a.corpus, None))
    shares = partition_evidence([a.agent_id for a in honest], list(served), seed=seed)
    checkpoint = {record.agent_id: record.infra.checkpoint for record in registry}
    plan = {}
    for agent in honest:
        share = shares[agent.agent_id]
        if share:
            corpus, document = served[share[0]]
            plan[agent.agent_id] = Reask(agent.index, corpus, share, document)
        else:
            plan[agent.agent_id] = Reask(agent.index, "",
                                         (f"weights {checkpoint[agent.agent_id]}",))
    return plan


class SimulatedReexecutor:
    """An independent, non-voting re-executor: a simulated agent that shares nothing with voters.

    It answers the task afresh from its own snapshot with its own
    :class:`~protocol_runner.sim.agents.Simulator` (default world, profile ``model``), outside
    the run's LLM client and response cache, under an agent id, checkpoint, prompt lineage and
    snapshot corpus that no registered agent uses
    (:func:`~protocol_runner.commit.reexec.independent_identity`), so its error draws are
    independent of every voter's. The run's default re-executor;
    :class:`~protocol_runner.commit.reexec.ModelReexecutor` is the real-model one.

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
    >>> import tempfile, os
    >>> from protocol_runner.run.roster import Roster
    >>> task = Task("t1", "What is 2 + 3?", "5")
    >>> ring = Keyring.open(os.path.join(tempfile.mkdtemp(), "keyring.json"), ["a"])
    >>> reg = registry_for(Roster((AgentSpec(0, "a", "strong", "sim-strong"),), "1S"), ring)
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
        who = independent_identity(registry)
        self.identity = who.identity
        self.infra = who.infra
        self.snapshot = who.snapshot

    def __call__(self, task: Task) -> Reexecution:
        """Answer ``task`` from the own snapshot; the answer's hash and the snapshot's."""
        text = self._simulator.reply(self._profile, self.identity, answer_messages(task),
                                     seed=self.seed)
        return reexecution_from_answer(key_of(parse_answer(text, task), task),
                                       [f"document {self.snapshot}/{task.id}"])


def _values(answers: Mapping[str, str | None]) -> dict[str, str]:
    """Value hash to normalised answer, for the answers that cast a vote."""
    return {value_hash(normalise_answer(a)): normalise_answer(a)
            for a in answers.values() if a is not None}


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


def _recorded(entries: Iterable[LedgerEntry]) -> dict[tuple[str, str], dict[str, Any]]:
    """Gate decisions already in the ledger, by proposal id and stage (unchecked: an entry
    without a string proposal id and stage names no proposal and is left out)."""
    found = {}
    for entry in entries:
        body = entry.body
        key = (body.get("proposal_id"), body.get("stage"))
        if (body.get("kind"), body.get("rule")) == ("decision", "gate") \
                and all(isinstance(part, str) for part in key):
            found[key] = body
    return found


def _round_seed(seed: int, proposal: str) -> int:
    """The diversity round's deal seed: a hash of the run's seed and the proposal id."""
    digest = hashlib.sha256(f"{seed}/{proposal}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


class CommitStage:
    """The runner hook (:data:`protocol_runner.run.runner.QueryHook`) that decides every query.

    Parameters
    ----------
    roster : Roster
        The run's agents.
    tasks : sequence of Task
        The run's tasks (for the re-executor).
    f : int
        Byzantine voters the gate tolerates (:func:`gate_f`).
    run_id : str
        Prefix of every proposal id.
    seed : int
        Seeds the simulated re-executor's world and the diversity round's deal (never a key).
    ledger : str or Path
        The ledger file; created when missing, appended to when it exists.
    keyring : str or Path
        The keyring file (:class:`~protocol_runner.commit.Keyring`); created when missing,
        fresh keys added for agents it lacks.
    finished : sequence of QueryRecord
        The run's queries already in ``results.jsonl``: their decisions must be in the ledger
        (:func:`check_ledger_holds`).
    reexecutor_model : str, optional
        Re-execute with this model through the run's client
        (:class:`~protocol_runner.commit.reexec.ModelReexecutor`) instead of the
        :class:`SimulatedReexecutor`.
    corpora : Corpora, optional
        The run's corpora with documents (``--corpus``): votes backed by a document carry its
        text's hash as evidence, and the diversity round's shares put the text in the prompt.
    conflict : {"diverse", "quorum", "strict"}
        The gate's conflict rule (``run --gate-conflict``).

    Raises
    ------
    ParameterError
        If n < 3f+1, the roster cannot be registered, the keyring is unusable, or
        ``reexecutor_model`` is not independent of the roster
        (:func:`~protocol_runner.commit.reexec.check_reexecutor_model`).
    LedgerError
        If ``ledger`` is not a robustgraph ledger, cannot be opened, was started with another
        keyring, or lacks a decision of a finished query.

    Notes
    -----
    Per query: n signatures, 3n signature checks (the gate; the plain quorum on the votes
    signed, and again on the votes in the gate's decision, which is how a decision reused from
    the ledger is compared too), at most one re-execution and one ledger append (one
    fsync'd SQLite transaction). A correlated quorum
    adds the diversity round: one LLM call per honest agent (through the run's client, so
    cached and counted in the query's cost), as many signatures and checks again, at most one
    more re-execution and one more append.

    A model re-execution is an awaited LLM call, while the gate asks for its re-execution
    synchronously inside :meth:`~protocol_runner.commit.CommitGate.decide`. So before each
    decision a dry run of the gate (the same registry and f, no ledger: n more signatures and
    3n more checks) tells whether the decision reaches test 4; only then is the model asked,
    and the gate gets its reply. A decision whose dry run stops short of test 4 costs no call,
    as with the simulated re-executor.
    """

    def __init__(self, roster: Roster, tasks: Sequence[Task], *, f: int,
                 run_id: str, seed: int, ledger: str | Path, keyring: str | Path,
                 finished: Sequence[QueryRecord] = (),
                 reexecutor_model: str | None = None,
                 corpora: Corpora | None = None, conflict: str = "diverse") -> None:
        check_commit_gate(len(roster.agents), f)
        ring = Keyring.open(keyring, [agent.agent_id for agent in roster.agents])
        self.registry = registry_for(roster, ring)
        self._keys = ring.agents
        check_ledger_holds(Path(ledger), finished)
        self.reexecutor: SimulatedReexecutor | ModelReexecutor
        if reexecutor_model is None:
            self.reexecutor = SimulatedReexecutor(tasks, self.registry, seed=seed)
        else:
            self.reexecutor = ModelReexecutor(reexecutor_model, roster, self.registry)
        self.run_id = run_id
        self.seed = seed
        self.corpora = corpora
        self.ledger = Ledger(ledger)
        try:
            self.gate = CommitGate(self.registry, f, self._reexecute,
                                   reexecutor=self.reexecutor.infra, ledger=self.ledger,
                                   keyring=ring, conflict=conflict)
            self._recorded = _recorded(self.ledger.entries())
        except BaseException:
            self.ledger.close()
            raise
        self._pending: dict[str, Callable[[], Reexecution]] = {}

    def _reexecute(self, proposal_id: str) -> Reexecution:
        return self._pending[proposal_id]()

    def close(self) -> None:
        self.ledger.close()

    def __enter__(self) -> CommitStage:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _reaches_reexecution(self, proposal: str, answers: Mapping[str, str | None],
                             evidence: Mapping[str, Sequence[str]], stage: Stage) -> bool:
        """Whether the gate's decision on these answers gets to test 4 (a dry run, no ledger)."""
        asked = []

        def note(proposal_id: str) -> Reexecution:
            asked.append(proposal_id)
            return Reexecution(None, "", "dry run")

        dry = CommitGate(self.registry, self.gate.f, note, reexecutor=self.reexecutor.infra,
                         conflict=self.gate.conflict)
        decide_from_answers(dry, proposal, answers, evidence, self._keys, stage=stage)
        return bool(asked)

    async def _reexecution(self, ctx: QueryContext, proposal: str,
                           answers: Mapping[str, str | None],
                           evidence: Mapping[str, Sequence[str]],
                           stage: Stage) -> Callable[[], Reexecution]:
        """What the gate's test 4 gets for this decision: the simulated re-execution, run when
        asked; or the model's, asked now if the decision reaches test 4."""
        rerun = self.reexecutor
        if isinstance(rerun, SimulatedReexecutor):
            return partial(rerun, ctx.task)
        if not self._reaches_reexecution(proposal, answers, evidence, stage):
            # the gate will not ask; if it did (its replay memory differs from the dry run's),
            # it gets no value and aborts: fail closed
            return partial(Reexecution, None, "", "the re-execution was not prepared")
        done = await rerun(ctx)
        return lambda: done

    async def _decide(self, ctx: QueryContext, proposal: str,
                      answers: Mapping[str, str | None],
                      evidence: Mapping[str, Sequence[str]], stage: Stage) -> dict[str, Any]:
        """The gate's decision (taken and appended now, or reused from the ledger) as JSON."""
        body = self._recorded.get((proposal, stage))
        if body is not None:  # decided (and appended) before this run was interrupted
            return body
        self._pending[proposal] = await self._reexecution(ctx, proposal, answers, evidence, stage)
        try:
            out = decide_from_answers(self.gate, proposal, answers, evidence, self._keys,
                                      stage=stage)
        finally:
            del self._pending[proposal]
        return out.gate.to_json()

    async def diversity_round(self, ctx: QueryContext,
                              proposal: str) -> tuple[dict[str, str | None], dict[str, Reask]]:
        """Re-ask every honest agent alone with its share of the evidence; its new answers.

        Each agent asks the task's answer prompt (no neighbour messages; with the text of its
        share's document when the corpus has it on file) under its own id and checkpoint, the
        corpus of its share (none for an empty share) and sample :data:`DIVERSITY_SAMPLE`,
        through the query's context: the run's client, response cache and cost accounting, on
        any backend.

        Returns
        -------
        answers : dict of agent id to str or None
            Each agent's new answer in normal form (None when it did not parse: no vote).
        plan : dict of agent id to Reask
            :func:`plan_diversity_round`'s deal, seeded by the run's seed and ``proposal``.
        """
        task = ctx.task
        plan = plan_diversity_round(ctx, self.registry, seed=_round_seed(self.seed, proposal),
                                    corpora=self.corpora)
        agents = ctx.network.roster.agents
        requests = []
        for agent_id, reask in plan.items():
            spec = agents[reask.agent]
            who = AgentIdentity(agent_id, checkpoint=spec.checkpoint, corpus=reask.corpus)
            document = None if reask.document is None else reask.document.prompt_text
            prompt = answer_messages(task, document=document)
            requests.append(replace(ctx.request(spec.model or "", prompt, who.to_user()),
                                    sample=DIVERSITY_SAMPLE))
        replies = await ctx.wave(ctx.ask_request(r) for r in requests)
        answers = {agent_id: key_of(parse_answer(c.text, task), task)
                   for agent_id, c in zip(plan, replies, strict=True)}
        return answers, plan

    async def __call__(self, ctx: QueryContext, outcome: Outcome) -> dict[str, Any]:
        """Decide the query's proposal; return ``{"commit_gate": ...}`` for its record.

        The first decision is ``"gate"``; after a correlated quorum the diversity round's
        decision, the final one, is ``"diversity"`` with the round's ``"votes"`` and each
        agent's evidence (``"shares"``). A decision found in the ledger is reused, never taken
        or appended again; the diversity round's answers then come from the response cache.
        """
        task = ctx.task
        proposal = f"{self.run_id}/{query_id(ctx.protocol, task.id)}"
        agents = ctx.network.roster.agents
        answers = {agents[t.agent].agent_id: key_of(t.answer, task)
                   for t in outcome.final if t.honest}
        evidence = conditioned_on(ctx, outcome, self.registry, corpora=self.corpora)
        gate = await self._decide(ctx, proposal, answers, evidence, "initial")
        cast = [*gate["votes"], *(r["vote"] for r in gate["rejected"])]
        plain = plain_quorum(self.registry, self.gate.f, proposal,
                             [Vote.from_json(v) for v in cast]).to_json()
        data = {
            "proposal_id": proposal,
            "f": self.gate.f,
            "votes": sum(a is not None for a in answers.values()),
            "gate": _summary(gate, _values(answers), ctx),
            "plain": _summary(plain, _values(answers), ctx),
        }
        if gate.get("escalate_to") == "diversity_round":
            again, plan = await self.diversity_round(ctx, proposal)
            shares = {agent_id: reask.evidence for agent_id, reask in plan.items()}
            final = await self._decide(ctx, proposal, again, shares, "diversity")
            data["diversity"] = {
                **_summary(final, _values(again), ctx),
                "votes": sum(a is not None for a in again.values()),
                "shares": {agent_id: list(items) for agent_id, items in shares.items()},
            }
        return {DATA_KEY: data}

    def head(self) -> tuple[int, str]:
        """The ledger's last entry: its sequence number and hash (``(0, "")`` when empty)."""
        seq, digest = 0, ""
        for entry in self.ledger.entries():
            seq, digest = entry.seq, entry.entry_hash
        return seq, digest
