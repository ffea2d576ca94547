"""From the final answers of a protocol run to signed votes and a commit decision.

The last stage of a protocol run (``robustgraph run ... --commit-gate``): every honest agent's
final answer becomes a PREPARE vote whose evidence hash covers the messages and documents the
agent conditioned on; the gate decides, and a plain 2f+1 quorum decides on the same votes for
comparison.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol_runner.commit.canonical import evidence_hash, value_hash
from protocol_runner.commit.gate import CommitGate, plain_quorum
from protocol_runner.commit.outcomes import Decision, Reexecution, Stage
from protocol_runner.commit.votes import Vote, sign_vote
from robustgraph.errors import ParameterError

__all__ = ["AnswerDecision", "decide_from_answers", "reexecution_from_answer", "normalise_answer"]


def normalise_answer(text: str) -> str:
    """Default answer normalisation: collapse whitespace. Pass a task-aware one when you have it.

    Examples
    --------
    >>> normalise_answer("  42 \\n")
    '42'
    """
    return " ".join(text.split())


@dataclass(frozen=True)
class AnswerDecision:
    """Votes built from answers, and the gate's and the plain quorum's decisions on them.

    ``values`` maps each value hash to the normalised answer it stands for, so a caller can tell
    whether a committed value is the right answer.
    """

    votes: tuple[Vote, ...]
    values: dict[str, str]
    gate: Decision
    plain: Decision

    def committed_value(self, rule: str = "gate") -> str | None:
        """The normalised answer committed under ``rule`` ("gate" or "plain"), or None."""
        decision = {"gate": self.gate, "plain": self.plain}[rule]
        return self.values[decision.value_hash] if decision.committed else None


def decide_from_answers(gate: CommitGate, proposal_id: str, answers: Mapping[str, str | None],
                        conditioned_on: Mapping[str, Iterable[str]],
                        keys: Mapping[str, Ed25519PrivateKey], *,
                        normalise: Callable[[str], str] = normalise_answer,
                        stage: Stage = "initial") -> AnswerDecision:
    """Sign one vote per answering agent and decide with the gate and with a plain quorum.

    Parameters
    ----------
    gate : CommitGate
        The gate (its registry must hold every answering agent).
    proposal_id : str
        For a protocol run: one id per query, e.g. ``f"{run_id}/{task.id}"``.
    answers : mapping of agent id to str or None
        Final answers of the honest agents; None (no answer, e.g. a timed-out agent) casts no vote.
    conditioned_on : mapping of agent id to iterable of str
        What each agent's final answer was derived from: the neighbour messages it received and
        the documents it retrieved, but not its own earlier answers (those would make every
        evidence hash distinct and the evidence test vacuous).
    keys : mapping of agent id to Ed25519PrivateKey
        Signing keys (``Keyring.agents``, :class:`~protocol_runner.commit.keyring.Keyring`).
    normalise : callable, optional
        Maps an answer to the canonical form whose hash is voted on.
    stage : {"initial", "diversity"}

    Returns
    -------
    AnswerDecision

    Raises
    ------
    ParameterError
        If an answering agent has no signing key.

    Examples
    --------
    >>> from protocol_runner.commit.registry import AgentRecord, Infrastructure, Registry
    >>> from protocol_runner.commit.signing import public_key_hex
    >>> keys = {a: Ed25519PrivateKey.generate() for a in "abcd"}
    >>> reg = Registry(tuple(AgentRecord(a, public_key_hex(k.public_key()),
    ...                      Infrastructure("ck-" + a, "lin-" + a)) for a, k in keys.items()))
    >>> rerun = lambda pid: reexecution_from_answer("7", ["fresh fetch"])
    >>> gate = CommitGate(reg, 1, rerun, reexecutor=Infrastructure("ck-r", "lin-r"))
    >>> out = decide_from_answers(gate, "q1", {"a": "7", "b": "7", "c": " 7", "d": "8"},
    ...                           {a: ["msg from " + a] for a in keys}, keys)
    >>> out.gate.kind, out.plain.kind, out.committed_value()
    ('committed', 'committed', '7')
    """
    votes: list[Vote] = []
    values: dict[str, str] = {}
    evidence: dict[str, list[str]] = {}
    for agent, answer in answers.items():
        if answer is None:
            continue
        if agent not in keys:
            raise ParameterError(f"agent {agent!r} answered but has no signing key")
        text = normalise(answer)
        digest = value_hash(text)
        values[digest] = text
        evidence[agent] = sorted(set(conditioned_on.get(agent, ())))
        votes.append(sign_vote(keys[agent], agent, proposal_id, digest,
                               evidence_hash(evidence[agent]), stage=stage))
    plain = plain_quorum(gate.registry, gate.f, proposal_id, votes, stage=stage)
    decided = gate.decide(proposal_id, votes, stage=stage,
                          context={"values": values, "evidence": evidence})
    return AnswerDecision(tuple(votes), values, decided, plain)


def reexecution_from_answer(answer: str | None, snapshot: Sequence[str], *,
                            normalise: Callable[[str], str] = normalise_answer) -> Reexecution:
    """Wrap a re-executor's own answer and the snapshot it read as a :class:`Reexecution`.

    Examples
    --------
    >>> reexecution_from_answer(None, ["doc"]).value_hash is None
    True
    """
    snapshot_hash = evidence_hash(snapshot)
    if answer is None:
        return Reexecution(None, snapshot_hash, "re-executor gave no answer")
    return Reexecution(value_hash(normalise(answer)), snapshot_hash)
