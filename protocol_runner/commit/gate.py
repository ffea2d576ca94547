"""The evidence-diversity commit gate, and the plain 2f+1 quorum it is compared with.

A quorum of 2f+1 signed votes bounds how many voters may lie, not how many make the same
mistake. With f the number of Byzantine voters the gate tolerates (n >= 3f+1 registered voters;
not SAC's F, which bounds faulty neighbours per agent), the gate commits a value only when four
tests pass:

1. quorum: at least 2f+1 counted votes agree on one value;
2. evidence: those votes carry at least f+1 distinct evidence hashes after any f of them are
   removed;
3. independence: they come from at least f+1 independence units (agents sharing no checkpoint,
   retrieval corpus or prompt lineage, directly or through a chain) after any f of them are
   removed;
4. reproduction: an independent, non-voting re-execution reproduces the value from its own
   snapshot.

A quorum failing 2 or 3 is a correlated quorum and escalates; failing 4 aborts. Test 1 is the
classical PBFT prepare quorum (Castro & Liskov, OSDI 1999). Tests 2 and 3 count what the
votes span after the worst removal of f voters (:func:`~protocol_runner.commit.spans.robust_span`),
so whichever f voters are Byzantine, the honest agreeing votes alone span f+1 units and f+1
evidence hashes: a Byzantine voter cannot supply the missing unit or hash. It is the weakest
count with that guarantee (the gate does not know which voters are Byzantine, so it must hold
for every f of them). A quorum whose dissent (votes for other values from units outside the
quorum's) spans as many units as the quorum escalates too (:data:`CONFLICT_RULES`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from protocol_runner.commit.enrolment import Enrolment
from protocol_runner.commit.outcomes import (
    Committed,
    Conflict,
    CorrelatedQuorum,
    Decision,
    NonReproducible,
    NoQuorum,
    Reexecution,
    Rule,
    Stage,
)
from protocol_runner.commit.registry import Infrastructure, Registry
from protocol_runner.commit.spans import robust_span
from protocol_runner.commit.votes import Validation, Vote, validate_votes
from robustgraph.errors import ParameterError

if TYPE_CHECKING:
    from protocol_runner.commit.keyring import Keyring
    from protocol_runner.commit.ledger import Ledger

__all__ = ["CONFLICT_RULES", "CommitGate", "Reexecutor", "check_conflict_rule",
           "check_fault_bound", "decide_rule", "plain_quorum"]

Reexecutor = Callable[[str], Reexecution]
"""Re-executes a proposal (given its id) from its own snapshot and reports the value hash."""

_STAGES = ("initial", "diversity")

CONFLICT_RULES = ("diverse", "quorum", "strict")
"""What counted votes for other values, from units outside the quorum's, do to a quorum that
passed tests 1-3: escalate it as a correlated quorum when they span at least as many units as
the quorum does after any f removals (``diverse``, the default: a larger quorum is not trusted
over a more diverse dissent, and f Byzantine dissenters span at most f < f+1 units), never
(``quorum``: tests 1-4 alone), or whenever there are any (``strict``)."""


def _short(digest: str) -> str:
    return digest[:12]


def check_fault_bound(n: int, f: int) -> None:
    """Raise ``ParameterError`` unless ``f`` is a non-negative int with ``n >= 3f + 1``.

    Examples
    --------
    >>> check_fault_bound(7, 2)
    >>> check_fault_bound(7, 3)
    Traceback (most recent call last):
    ...
    solvers.errors.ParameterError: 7 voters tolerate at most f = 2 faults (n >= 3f+1), got f = 3
    """
    if not isinstance(f, int) or isinstance(f, bool) or f < 0:
        raise ParameterError(f"f must be a non-negative integer, got {f!r}")
    if n < 3 * f + 1:
        raise ParameterError(
            f"{n} voters tolerate at most f = {(n - 1) // 3} faults (n >= 3f+1), got f = {f}")


def check_conflict_rule(conflict: object) -> None:
    """Raise ``ParameterError`` unless ``conflict`` is one of :data:`CONFLICT_RULES`."""
    if conflict not in CONFLICT_RULES:
        raise ParameterError(f"conflict rule must be one of {', '.join(CONFLICT_RULES)}, "
                             f"got {conflict!r}")


def _independent_dissent(registry: Registry, common: dict[str, Any], value: str,
                         units: set[int]) -> list[str]:
    """Counted voters for another value whose unit holds no agreeing voter."""
    return sorted(v.voter for v in common["accepted"]
                  if v.value_hash != value and registry.unit_of(v.voter) not in units)


def _common(proposal_id: str, rule: Rule, stage: Stage, f: int,
            validation: Validation) -> dict[str, Any]:
    counts = Counter(v.value_hash for v in validation.accepted)
    tally = tuple(sorted(counts.items(), key=lambda item: (-item[1], item[0])))
    return {"proposal_id": proposal_id, "rule": rule, "stage": stage, "f": f,
            "accepted": validation.accepted, "rejected": validation.rejected, "tally": tally}


def _quorum(common: dict[str, Any], f: int) -> Decision | tuple[str, list[str], list[Vote]]:
    """The quorum test: a refusal, or the winning value, the reasons so far and its votes."""
    quorum = 2 * f + 1
    tally: tuple[tuple[str, int], ...] = common["tally"]
    rejected = len(common["rejected"])
    head = f"{sum(c for _, c in tally)} votes counted, {rejected} rejected"
    winners = [value for value, count in tally if count >= quorum]
    if len(winners) > 1:
        listed = ", ".join(_short(v) for v in winners)
        return Conflict(**common, reasons=(head, f"values {listed} each reach the quorum "
                                                 f"2f+1 = {quorum}: conflicting commits"))
    if not winners:
        if len(tally) > 1:
            split = ", ".join(f"{_short(v)}: {c}" for v, c in tally)
            return Conflict(**common, reasons=(head, f"votes split ({split}); none reaches "
                                                     f"2f+1 = {quorum}"))
        best = tally[0][1] if tally else 0
        return NoQuorum(**common, reasons=(head, f"{best} agreeing votes; quorum is "
                                                 f"2f+1 = {quorum}"))
    value = winners[0]
    count = dict(tally)[value]
    support = [v for v in common["accepted"] if v.value_hash == value]
    agree = f"{count} votes agree on {_short(value)} (quorum 2f+1 = {quorum})"
    return value, [head, agree], support


def _reproduction_failures(registry: Registry, reexecutor: Infrastructure, value: str,
                           support: Sequence[Vote], rerun: Reexecution) -> list[str]:
    if rerun.value_hash is None:
        return [f"re-execution produced no value: {rerun.detail or 'no detail'}"]
    failures = []
    if rerun.value_hash != value:
        failures.append(f"re-execution from its own snapshot produced "
                        f"{_short(rerun.value_hash)}, not {_short(value)}: non-reproducible")
    same_snapshot = sorted(v.voter for v in support if v.evidence_hash == rerun.snapshot_hash)
    if same_snapshot:
        failures.append(f"re-execution snapshot equals the evidence of "
                        f"{', '.join(same_snapshot)}: not independent")
    for agent, kind, shared in registry.shared_attributes(reexecutor,
                                                          (v.voter for v in support)):
        failures.append(f"re-executor shares {kind} {shared!r} with agreeing voter "
                        f"{agent}: not independent")
    return failures


def decide_rule(rule: Rule, registry: Registry, f: int, proposal_id: str,
                validation: Validation, stage: Stage, *, reexecutor: Infrastructure | None = None,
                reexecute: Callable[[], Reexecution] | None = None,
                conflict: str = "diverse") -> Decision:
    """Apply a decision rule to votes already validated: the whole rule, as a pure function.

    Parameters
    ----------
    rule : {"gate", "plain"}
        The evidence-diversity gate (tests 1-4 of the module docstring) or a plain 2f+1
        quorum (test 1 only).
    registry : Registry
    f : int
        Byzantine voters tolerated.
    proposal_id : str
    validation : Validation
        The counted and the rejected votes (:func:`~protocol_runner.commit.votes.validate_votes`).
    stage : {"initial", "diversity"}
    reexecutor : Infrastructure, optional
        The gate's re-executor (required for ``rule="gate"``).
    reexecute : callable, optional
        Called (at most once, and only for a quorum passing tests 1-3 of the gate) for the
        re-execution result.
    conflict : {"diverse", "quorum", "strict"}
        The gate's conflict rule (:data:`CONFLICT_RULES`); the plain rule ignores it.

    Returns
    -------
    Decision

    Notes
    -----
    :class:`CommitGate` decides with it, and ``ledger verify`` re-derives every recorded
    decision with it from the recorded signed votes and re-execution, so a recorded outcome
    must be exactly what the rule gives. O(V log V) for V votes.
    """
    common = _common(proposal_id, rule, stage, f, validation)
    step = _quorum(common, f)
    if isinstance(step, Decision):
        return step
    value, reasons, support = step
    voters = tuple(v.voter for v in support)
    evidence = len({v.evidence_hash for v in support})
    units_of = [registry.unit_of(a) for a in voters]
    unit_ids = sorted(set(units_of))
    if rule == "plain":
        return Committed(**common, reasons=tuple(reasons), value_hash=value, support=voters,
                         evidence=evidence, units=len(unit_ids), reexecution=None)
    if reexecutor is None or reexecute is None:
        raise ParameterError("the gate rule needs a re-executor")
    check_conflict_rule(conflict)
    correlated = []
    left = robust_span((v.evidence_hash for v in support), f)
    line = (f"{evidence} distinct evidence hashes among the agreeing votes, {left} after any "
            f"f = {f} of them are removed (need f+1 = {f + 1})")
    (correlated if left < f + 1 else reasons).append(line)
    groups = "; ".join("{" + ", ".join(sorted(registry.units[u] & set(voters))) + "}"
                       for u in unit_ids)
    left = robust_span(units_of, f)
    line = (f"agreeing votes come from {len(unit_ids)} independence units, {left} after any "
            f"f = {f} of them are removed (need f+1 = {f + 1}): {groups}")
    (correlated if left < f + 1 else reasons).append(line)
    dissent = _independent_dissent(registry, common, value, set(unit_ids))
    spanned = len({registry.unit_of(a) for a in dissent})
    if conflict == "strict" and dissent:
        correlated.append(f"strict conflict rule: {', '.join(dissent)} dissent from units "
                          f"outside the quorum's")
    elif conflict == "diverse" and dissent and spanned >= left:
        correlated.append(f"diverse conflict rule: the dissent ({', '.join(dissent)}) spans "
                          f"{spanned} units outside the quorum's, not fewer than its {left}")
    if correlated:
        escalate_to = "diversity_round" if stage == "initial" else "human"
        return CorrelatedQuorum(**common, reasons=(*reasons, *correlated,
                                                   f"correlated quorum: escalate to "
                                                   f"{escalate_to.replace('_', ' ')}"),
                                value_hash=value, support=voters, evidence=evidence,
                                units=len(unit_ids), escalate_to=escalate_to)
    rerun = reexecute()
    failures = _reproduction_failures(registry, reexecutor, value, support, rerun)
    if failures:
        return NonReproducible(**common, reasons=(*reasons, *failures, "abort"),
                               value_hash=value, support=voters, reexecution=rerun)
    reasons.append(f"independent re-execution from snapshot {_short(rerun.snapshot_hash)} "
                   f"reproduced {_short(value)}")
    return Committed(**common, reasons=tuple(reasons), value_hash=value, support=voters,
                     evidence=evidence, units=len(unit_ids), reexecution=rerun)


def plain_quorum(registry: Registry, f: int, proposal_id: str, votes: Iterable[Vote], *,
                 stage: Stage = "initial") -> Decision:
    """Decide by a plain 2f+1 quorum of valid signed votes, for comparison with the gate.

    Parameters
    ----------
    registry : Registry
    f : int
        Faults tolerated; needs ``len(registry) >= 3f + 1``.
    proposal_id : str
    votes : iterable of Vote
    stage : {"initial", "diversity"}

    Returns
    -------
    Committed, Conflict or NoQuorum
        ``Committed.evidence`` and ``.units`` are reported for information only.

    Notes
    -----
    Stateless: no replay memory. This is the PBFT prepare rule (Castro & Liskov 1999) that counts
    signatures and nothing else.
    """
    check_fault_bound(len(registry), f)
    validation = validate_votes(votes, registry, proposal_id, stage=stage)
    return decide_rule("plain", registry, f, proposal_id, validation, stage)


class CommitGate:
    """The evidence-diversity commit gate for one registry of voters.

    Parameters
    ----------
    registry : Registry
        Voting agents, their keys and infrastructure.
    f : int
        Byzantine voters tolerated; the quorum is 2f+1 and the diversity thresholds f+1
        (counted after any f agreeing votes are removed). Needs ``len(registry) >= 3f + 1``.
    reexecute : callable
        ``reexecute(proposal_id) -> Reexecution``: an independent, non-voting re-execution of the
        proposal from its own snapshot. Called only for a quorum that passed the diversity tests.
    reexecutor : Infrastructure
        The re-executor's checkpoint, lineage and corpora: it must share none with the agreeing
        voters, or its agreement proves nothing.
    ledger : Ledger, optional
        When given, the registry is recorded once (an
        :class:`~protocol_runner.commit.enrolment.Enrolment`, endorsed by every key), votes
        already in the ledger count as seen (replays), and every decision is appended, signed
        by the gate's key, before :meth:`decide` returns.
    keyring : Keyring, optional
        The agents', gate's and reviewer's private keys; required with ``ledger``.
    conflict : {"diverse", "quorum", "strict"}
        The conflict rule (:data:`CONFLICT_RULES`), recorded in the enrolment.

    Examples
    --------
    >>> from protocol_runner.commit.canonical import evidence_hash, value_hash
    >>> from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    >>> from protocol_runner.commit.registry import AgentRecord
    >>> from protocol_runner.commit.signing import public_key_hex
    >>> from protocol_runner.commit.votes import sign_vote
    >>> keys = {a: Ed25519PrivateKey.generate() for a in "abcd"}
    >>> reg = Registry(tuple(AgentRecord(a, public_key_hex(k.public_key()),
    ...                      Infrastructure("ck-" + a, "lin-" + a)) for a, k in keys.items()))
    >>> fine = lambda pid: Reexecution(value_hash("4"), evidence_hash(["own snapshot"]))
    >>> gate = CommitGate(reg, 1, fine, reexecutor=Infrastructure("ck-r", "lin-r"))
    >>> votes = [sign_vote(k, a, "p1", value_hash("4"), evidence_hash(["doc " + a]))
    ...          for a, k in keys.items()]
    >>> gate.decide("p1", votes).kind
    'committed'
    >>> gate.decide("p1", votes).kind  # the same votes again are replays
    'no_quorum'
    >>> votes = [sign_vote(k, a, "p2", value_hash("5"), evidence_hash(["doc"]))
    ...          for a, k in keys.items()]
    >>> gate.decide("p2", votes).kind  # one shared document: a correlated quorum
    'correlated_quorum'

    Notes
    -----
    Each decision costs O(V) signature checks for V votes plus at most one re-execution.
    """

    def __init__(self, registry: Registry, f: int, reexecute: Reexecutor, *,
                 reexecutor: Infrastructure, ledger: Ledger | None = None,
                 keyring: Keyring | None = None, conflict: str = "diverse") -> None:
        check_fault_bound(len(registry), f)
        check_conflict_rule(conflict)
        self.registry = registry
        self.f = f
        self.conflict = conflict
        self.reexecutor = reexecutor
        self._reexecute = reexecute
        self._ledger = ledger
        self._keyring = keyring
        self._seen: set[str] = set()
        if ledger is not None:
            if keyring is None:
                raise ParameterError("a gate with a ledger needs the keyring that signs its "
                                     "entries")
            self.enrolment = Enrolment.create(registry, f, reexecutor, keyring,
                                              conflict=conflict)
            ledger.record_registry(self.enrolment, keyring.gate)
            self._seen.update(ledger.vote_digests())

    def decide(self, proposal_id: str, votes: Iterable[Vote], *, stage: Stage = "initial",
               context: Mapping[str, Any] | None = None) -> Decision:
        """Decide one proposal from the votes received for it.

        Parameters
        ----------
        proposal_id : str
        votes : iterable of Vote
        stage : {"initial", "diversity"}
            ``"diversity"`` for the re-vote after a correlated quorum; a correlated quorum there
            escalates to a human instead of another round.
        context : mapping, optional
            What a person reviewing the decision needs to read, recorded with it in the ledger:
            ``{"values": {value hash: answer}, "evidence": {voter: [evidence items]}}``
            (``ledger verify`` checks that they hash to what the votes signed).

        Returns
        -------
        Decision
            :class:`Committed`, :class:`CorrelatedQuorum`, :class:`NonReproducible`,
            :class:`Conflict` or :class:`NoQuorum`, with its reasons.

        Raises
        ------
        ParameterError
            If ``stage`` is unknown.
        """
        if stage not in _STAGES:
            raise ParameterError(f"stage must be one of {_STAGES}, got {stage!r}")
        validation = validate_votes(votes, self.registry, proposal_id, stage=stage,
                                    seen=self._seen)
        decision = decide_rule("gate", self.registry, self.f, proposal_id, validation, stage,
                               reexecutor=self.reexecutor,
                               reexecute=lambda: self._run_reexecution(proposal_id),
                               conflict=self.conflict)
        self._seen.update(v.digest for v in validation.accepted)
        if self._ledger is not None:
            self._ledger.record_decision(decision, self.enrolment, self._keyring.gate,
                                         context=context)
        return decision

    def _run_reexecution(self, proposal_id: str) -> Reexecution:
        # Fail closed: a re-executor that crashes yields no value, and the proposal aborts with
        # the exception named in its reasons instead of committing unchecked.
        try:
            rerun = self._reexecute(proposal_id)
        except Exception as exc:
            return Reexecution(None, "", f"re-execution raised {type(exc).__name__}: {exc}")
        if not isinstance(rerun, Reexecution):
            return Reexecution(None, "", f"re-execution returned {type(rerun).__name__}, "
                                         f"not Reexecution")
        return rerun
