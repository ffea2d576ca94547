"""False commits with and without the commit gate, on the paper's roster shapes (simulated).

For each roster, many proposals (one arithmetic task each) are answered by simulated agents and
decided twice from the same signed votes: by a plain 2f+1 quorum, and by the evidence-diversity
gate (units and evidence counted after the worst removal of f votes, docs/commit-gate.md)
followed, after a correlated quorum, by one diversity-forcing round (then a human).

Rosters:

* ``4S2W1A``, ``5S1W1A`` (n = 7) and ``6S2W1A`` (n = 9), the paper's shapes, f = 1 (the one
  adversary; quorum 3). With declared diversity (the default, ``run --diversity checkpoint``)
  every copy of the strong and weak model runs its own checkpoint (``sim-strong@s0``, ...): its
  errors are its own, and the gate counts it as its own unit. ``--undeclared`` runs the copies
  on one checkpoint per model instead (one unit per model, errors drawn from one checkpoint
  latent). Each agent answers from its own weights (evidence ``weights <checkpoint>``). The
  adversary is one registered, signing member that votes for the honest agents' most common
  wrong answer (a fixed wrong value when they have none) with fabricated, distinct evidence
  and a unit of its own: the worst case for a false commit.
* ``stale-document`` (n = 7, f = 2, quorum 5), the correlated-quorum note's incident: ``A`` and
  ``B`` propose what one retrieval pipeline (``news-index``) serves; ``C`` and ``D`` (one
  checkpoint, one prompt lineage) verify A's proposal by re-reading the document it cites and
  confirm it when the document asserts it; ``E`` reads a live source; ``F`` and ``G`` answer
  from their own weights and, when they differ from the broadcast proposal, defer to it with
  probability ``--deference`` (assertion-shaped context is what agents converge on). With
  probability ``--stale-rate`` the pipeline's document is stale and asserts the task's most
  plausible wrong answer. The two rates are modelling parameters (defaults chosen so that the
  plain quorum's false-commit rate lands near the note's 1 in 40), not measurements.
  In the diversity round every agent is re-asked alone: one with the pipeline's document,
  one with the live document, the rest from their own weights.

The re-executor is a non-voting simulated agent on its own checkpoint and snapshot
(``--reexecutor-accuracy``). Everything printed is counted from this run: false commits per
1,000 proposals and per 1,000 commits with 95% Wilson intervals (``scipy.stats.binomtest``),
and the share of the plain quorum's right commits the gate commits too. Every number is
simulated: the simulator's accuracies and error correlations are illustrative parameters,
not measurements of models.

Run::

    .venv/bin/python benchmarks/correlated_quorum.py --proposals 1000 --seed 1
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from scipy.stats import binomtest

from protocol_runner.commit import (
    AgentRecord,
    CommitGate,
    CorrelatedQuorum,
    Decision,
    Infrastructure,
    Keyring,
    Ledger,
    NonReproducible,
    Reexecution,
    Registry,
    decide_from_answers,
    partition_evidence,
    public_key_hex,
    reexecution_from_answer,
    verify,
)
from protocol_runner.llm import AgentIdentity, CompletionRequest
from protocol_runner.llm.backends import SimulatedBackend
from protocol_runner.protocols.answers import answer_key, is_correct
from protocol_runner.protocols.prompts import answer_messages
from protocol_runner.sim.agents import SimConfig, Simulator
from protocol_runner.tasks import Task, generate_arith
from robustgraph.errors import ParameterError

__all__ = ["main"]

FIXED_WRONG = "999999"
PIPELINE, LIVE = "news-index", "live-feed"


@dataclass(frozen=True)
class Agent:
    """A simulated agent: id, profile, checkpoint (its weights), lineage, corpus and role.

    Roles: ``own`` answers from its own weights (or its corpus); ``adversary`` votes the worst
    wrong value; ``reader`` states what its corpus's document asserts; ``verifier`` confirms the
    proposer's value when the document the proposal cites asserts it; ``deferrer`` answers from
    its own weights and defers to the broadcast proposal (``--deference``).
    """

    agent_id: str
    profile: str
    checkpoint: str
    lineage: str
    corpus: str = ""
    role: str = "own"

    @property
    def adversary(self) -> bool:
        return self.role == "adversary"

    def infra(self) -> Infrastructure:
        return Infrastructure(self.checkpoint, self.lineage, (self.corpus,) if self.corpus else ())


def paper_roster(strong: int, weak: int, *, declared: bool) -> tuple[Agent, ...]:
    """``<strong>S<weak>W1A``: copies of sim-strong and sim-weak (each on its own checkpoint
    when ``declared``), and one adversary."""
    def checkpoint(model: str, agent: str) -> str:
        return f"{model}@{agent}" if declared else model

    agents = [Agent(f"s{i}", "strong", checkpoint("sim-strong", f"s{i}"), f"lin-s{i}")
              for i in range(strong)]
    agents += [Agent(f"w{i}", "weak", checkpoint("sim-weak", f"w{i}"), f"lin-w{i}")
               for i in range(weak)]
    agents.append(Agent("adv", "strong", "ck-adv", "lin-adv", role="adversary"))
    return tuple(agents)


STALE_DOCUMENT = (
    Agent("A", "strong", "ck-alpha", "lin-rag", PIPELINE, "reader"),
    Agent("B", "strong", "ck-beta", "lin-rag", PIPELINE, "reader"),
    Agent("C", "strong", "ck-gamma", "lin-verify", role="verifier"),
    Agent("D", "strong", "ck-gamma", "lin-verify", role="verifier"),
    Agent("E", "strong", "ck-delta", "lin-live", LIVE, "reader"),
    Agent("F", "strong", "ck-zeta", "lin-f", role="deferrer"),
    Agent("G", "strong", "ck-eta", "lin-g", role="deferrer"),
)
PROPOSER = "A"
PAPER = {"4S2W1A": (4, 2), "5S1W1A": (5, 1), "6S2W1A": (6, 2)}
ROSTERS = (*PAPER, "stale-document")
REEXECUTOR = Agent("reexec", "reexec", "ck-omega", "lin-reexec", "archive-snapshot")


def roster_for(name: str, *, declared: bool) -> tuple[tuple[Agent, ...], int]:
    """The agents of roster ``name`` and the gate's f (the note's f = 2 for the incident)."""
    if name == "stale-document":
        return STALE_DOCUMENT, 2
    agents = paper_roster(*PAPER[name], declared=declared)
    return agents, sum(a.adversary for a in agents)


@dataclass
class Tally:
    """Outcome counts of one decision rule over the run."""

    outcomes: Counter = field(default_factory=Counter)
    commits: int = 0
    false_commits: int = 0
    refused_right: int = 0
    refused_wrong: int = 0
    right: set = field(default_factory=set)

    def add(self, decision: Decision, values: dict[str, str], task: Task) -> None:
        """Count ``decision``; ``values`` maps value hashes to the answers they stand for."""
        self.outcomes[decision.kind if not isinstance(decision, CorrelatedQuorum)
                      else f"escalate:{decision.escalate_to}"] += 1
        if decision.committed:
            self.commits += 1
            if is_correct(values[decision.value_hash], task):
                self.right.add(task.id)
            else:
                self.false_commits += 1
        elif isinstance(decision, CorrelatedQuorum | NonReproducible):
            if is_correct(values[decision.value_hash], task):
                self.refused_right += 1
            else:
                self.refused_wrong += 1


@dataclass(frozen=True)
class World:
    """The stale-document incident's draws for one task: the pipeline's document asserts
    ``pipeline`` (stale when it is not the answer); the live source the answer."""

    pipeline: str
    live: str

    def asserts(self, corpus: str) -> str:
        return self.pipeline if corpus == PIPELINE else self.live


class Scenario:
    """One roster: its agents, fresh keys, the simulated backend and the gate."""

    def __init__(self, roster: tuple[Agent, ...], f: int, tasks: list[Task], *,
                 args: argparse.Namespace, config: SimConfig, ledger: Ledger | None) -> None:
        self.roster = roster
        self.f = f
        self.seed = args.seed
        self.stale_rate = args.stale_rate
        self.deference = args.deference
        self.simulator = Simulator(tasks, config)
        self.backend = SimulatedBackend(self.simulator)
        self.keys = {a.agent_id: Ed25519PrivateKey.generate() for a in roster}
        self.registry = Registry(tuple(
            AgentRecord(a.agent_id, public_key_hex(self.keys[a.agent_id].public_key()), a.infra())
            for a in roster))
        keyring = Keyring(Path("in-memory"), Ed25519PrivateKey.generate(),
                          Ed25519PrivateKey.generate(), self.keys)
        self.reexecutions: dict[str, Reexecution] = {}
        self.reexecution_calls = 0
        self.llm_calls = 0
        self.diversity_rounds = 0
        self.stale = 0
        self.gate = CommitGate(self.registry, f, self._reexecute, reexecutor=REEXECUTOR.infra(),
                               ledger=ledger, keyring=keyring if ledger is not None else None,
                               conflict=args.gate_conflict)

    def _reexecute(self, proposal_id: str) -> Reexecution:
        self.reexecution_calls += 1
        return self.reexecutions[proposal_id]

    def _rng(self, *parts: object) -> random.Random:
        return random.Random("/".join(map(str, (self.seed, *parts))))

    def world(self, task: Task) -> World:
        stale = self._rng("stale", task.id).random() < self.stale_rate
        self.stale += stale
        wrong = self.simulator.distractors(task, seed=self.seed)
        return World(wrong[0] if stale and wrong else task.answer, task.answer)

    async def ask(self, agent: Agent, task: Task, *, corpus: str, sample: int) -> str | None:
        self.llm_calls += 1
        who = AgentIdentity(agent.agent_id, checkpoint=agent.checkpoint, corpus=corpus)
        request = CompletionRequest(f"sim-{agent.profile}", answer_messages(task), seed=self.seed,
                                    user=who.to_user(), sample=sample)
        reply = await self.backend.complete(request)
        return answer_key(reply.text, task)

    def _with_adversary(self, answers: dict[str, str | None], evidence: dict[str, list[str]],
                        task: Task, stage: str) -> None:
        wrong = Counter(a for agent, a in answers.items()
                        if a is not None and not is_correct(a, task))
        for agent in self.roster:
            if agent.adversary:
                answers[agent.agent_id] = wrong.most_common(1)[0][0] if wrong else FIXED_WRONG
                evidence[agent.agent_id] = [f"fabricated by {agent.agent_id}/{task.id}/{stage}"]

    async def _own(self, agent: Agent, task: Task, world: World | None, corpus: str,
                   sample: int) -> tuple[str | None, list[str]]:
        """An answer from a document (the stale scenario's sources) or the agent's weights."""
        if world is not None and corpus:
            return answer_key(world.asserts(corpus), task), [f"document {corpus}/{task.id}"]
        answer = await self.ask(agent, task, corpus=corpus, sample=sample)
        source = f"document {corpus}/{task.id}" if corpus else f"weights {agent.checkpoint}"
        return answer, [source]

    async def first_round(self, task: Task, proposal: str) -> tuple[dict, dict]:
        world = self.world(task) if any(a.role == "reader" for a in self.roster) else None
        honest = [a for a in self.roster if not a.adversary]
        own = await asyncio.gather(*(self._own(a, task, world, a.corpus, 0) for a in honest))
        answers = {a.agent_id: r[0] for a, r in zip(honest, own, strict=True)}
        evidence = {a.agent_id: r[1] for a, r in zip(honest, own, strict=True)}
        if world is not None:
            claim = answers[PROPOSER]
            cited = evidence[PROPOSER][0]
            for agent in honest:
                broadcast = f"proposal of {PROPOSER}: {claim}"
                if agent.role == "verifier":  # re-read the cited document: it asserts the claim
                    answers[agent.agent_id] = claim
                    evidence[agent.agent_id] = [cited, broadcast]
                elif agent.role == "deferrer":
                    defer = self._rng("defer", agent.agent_id, task.id).random() < self.deference
                    if answers[agent.agent_id] != claim and defer:
                        answers[agent.agent_id] = claim
                    evidence[agent.agent_id] = [*evidence[agent.agent_id], broadcast]
        rerun = await self.ask(REEXECUTOR, task, corpus=REEXECUTOR.corpus, sample=0)
        self.llm_calls -= 1  # counted when the gate actually calls the re-executor
        self.reexecutions[proposal] = reexecution_from_answer(
            rerun, [f"document {REEXECUTOR.corpus}/{task.id}"])
        self._with_adversary(answers, evidence, task, "initial")
        return answers, evidence

    async def diversity_round(self, task: Task) -> tuple[dict, dict]:
        """Re-ask every honest agent alone with a disjoint document (or its own weights) and a
        fresh sample."""
        world = self.world(task) if any(a.role == "reader" for a in self.roster) else None
        if world is not None:
            self.stale -= world.pipeline != task.answer  # the same draw: counted once
        honest = [a for a in self.roster if not a.adversary]
        sources = sorted({a.corpus for a in honest if a.corpus})
        shares = partition_evidence([a.agent_id for a in honest], sources,
                                    seed=self.seed * 1_000_003 + int(task.id.rsplit("-", 1)[1]))
        own = await asyncio.gather(*(
            self._own(a, task, world, shares[a.agent_id][0] if shares[a.agent_id] else "", 1)
            for a in honest))
        answers = {a.agent_id: r[0] for a, r in zip(honest, own, strict=True)}
        evidence = {a.agent_id: r[1] for a, r in zip(honest, own, strict=True)}
        self._with_adversary(answers, evidence, task, "diversity")
        return answers, evidence


async def replay(scenario: Scenario, tasks: list[Task], name: str) -> dict[str, Tally]:
    plain, final = Tally(), Tally()
    for task in tasks:
        proposal = f"{name}/{task.id}"
        answers, evidence = await scenario.first_round(task, proposal)
        out = decide_from_answers(scenario.gate, proposal, answers, evidence, scenario.keys)
        plain.add(out.plain, out.values, task)
        if isinstance(out.gate, CorrelatedQuorum):
            scenario.diversity_rounds += 1
            answers, evidence = await scenario.diversity_round(task)
            out = decide_from_answers(scenario.gate, proposal, answers, evidence, scenario.keys,
                                      stage="diversity")
        final.add(out.gate, out.values, task)
    scenario.llm_calls += scenario.reexecution_calls
    return {"plain 2f+1 quorum": plain, "gate + diversity round": final}


def per_1000(count: int, total: int) -> dict[str, float] | None:
    """``count / total`` per 1,000 with its 95% Wilson interval; None when ``total`` is 0."""
    if total == 0:
        return None
    ci = binomtest(count, total).proportion_ci(confidence_level=0.95, method="wilson")
    return {"value": 1000.0 * count / total, "low": 1000.0 * ci.low, "high": 1000.0 * ci.high}


def summarise(tally: Tally, proposals: int, plain: Tally) -> dict:
    escalated = sum(c for k, c in tally.outcomes.items() if k.startswith("escalate"))
    kept = len(tally.right & plain.right)
    return {
        "commits": tally.commits,
        "false_commits": tally.false_commits,
        "right_commits": len(tally.right),
        "commits_per_1000_proposals": per_1000(tally.commits, proposals),
        "false_per_1000_proposals": per_1000(tally.false_commits, proposals),
        "false_per_1000_commits": per_1000(tally.false_commits, tally.commits),
        "share_of_plain_right_commits": per_1000(kept, len(plain.right)),
        "refused_quorums_on_a_wrong_value": tally.refused_wrong,
        "refused_quorums_on_the_right_value": tally.refused_right,
        "to_human_per_1000_proposals": per_1000(tally.outcomes.get("escalate:human", 0),
                                                proposals),
        "escalations": escalated,
        "aborts_per_1000_proposals": per_1000(tally.outcomes.get("non_reproducible", 0),
                                              proposals),
        "outcomes": dict(sorted(tally.outcomes.items())),
    }


def fmt(rate: dict | None) -> str:
    if rate is None:
        return "-"
    return f"{rate['value']:.1f} [{rate['low']:.1f}, {rate['high']:.1f}]"


def render(report: dict) -> None:
    print(f"correlated-quorum benchmark (SIMULATED): {report['proposals']} proposals per roster "
          f"(arith, seed {report['seed']}); paper rosters with "
          f"{'declared' if report['declared'] else 'undeclared'} checkpoints; checkpoint_share "
          f"{report['checkpoint_share']}, corpus_share {report['corpus_share']}, stale rate "
          f"{report['stale_rate']}, deference {report['deference']}, re-executor accuracy "
          f"{report['reexecutor_accuracy']}, conflict rule {report['gate_conflict']}; 95% "
          f"Wilson intervals in brackets")
    head = ("| roster | n | f | rule | commits / 1k proposals | false commits / 1k proposals "
            "| false / 1k commits | of plain's right commits / 1k | to a human / 1k "
            "| aborts / 1k |")
    print(head)
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, data in report["rosters"].items():
        for rule, row in data["rules"].items():
            print(f"| {name} | {data['n']} | {data['f']} | {rule} | "
                  f"{fmt(row['commits_per_1000_proposals'])} | "
                  f"{fmt(row['false_per_1000_proposals'])} ({row['false_commits']}) | "
                  f"{fmt(row['false_per_1000_commits'])} | "
                  f"{fmt(row['share_of_plain_right_commits'])} | "
                  f"{fmt(row['to_human_per_1000_proposals'])} | "
                  f"{fmt(row['aborts_per_1000_proposals'])} |")
    for name, data in report["rosters"].items():
        print(f"{name}: independence units {'  '.join(data['units'])}; "
              f"{data['llm_calls']} simulated LLM calls ({data['reexecutions']} re-executions, "
              f"{data['diversity_rounds']} diversity rounds)"
              + (f"; {data['stale_documents']} stale documents" if "stale_documents" in data
                 else "")
              + (f"; ledger {data['ledger']}" if data.get("ledger") else ""))
    print(f"wall {report['wall_s']:.1f} s")


def run_roster(name: str, tasks: list[Task], args: argparse.Namespace, config: SimConfig,
               ledger_dir: Path | None) -> dict:
    roster, f = roster_for(name, declared=not args.undeclared)
    ledger = None if ledger_dir is None else Ledger(ledger_dir / f"{name}.sqlite")
    try:
        scenario = Scenario(roster, f, tasks, args=args, config=config, ledger=ledger)
        tallies = asyncio.run(replay(scenario, tasks, name))
    finally:
        if ledger is not None:
            ledger.close()
    plain = tallies["plain 2f+1 quorum"]
    data = {"n": len(roster), "f": f,
            "units": ["{" + ", ".join(sorted(u)) + "}" for u in scenario.registry.units],
            "rules": {rule: summarise(t, len(tasks), plain) for rule, t in tallies.items()},
            "llm_calls": scenario.llm_calls, "reexecutions": scenario.reexecution_calls,
            "diversity_rounds": scenario.diversity_rounds}
    if name == "stale-document":
        data["stale_documents"] = scenario.stale
    if ledger_dir is not None:
        checked = verify(ledger_dir / f"{name}.sqlite")
        data["ledger"] = f"{checked.entries} entries, " + (
            "valid" if checked.valid else str(checked.reason))
    return data


def _config(args: argparse.Namespace) -> SimConfig:
    return SimConfig.from_mapping({
        "checkpoint_share": args.checkpoint_share, "corpus_share": args.corpus_share,
        "profiles": {"reexec": {"base": "strong", "accuracy": args.reexecutor_accuracy}}})


def _check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[str]:
    """The rosters asked for; any bad parameter is one line (``parser.error``, exit 2)."""
    if args.proposals < 1:
        parser.error("--proposals must be >= 1")
    for name in ("stale_rate", "deference", "reexecutor_accuracy"):
        value = getattr(args, name)
        if not 0.0 <= value <= 1.0:
            parser.error(f"--{name.replace('_', '-')} must be in [0, 1], got {value}")
    names = [r.strip() for r in args.rosters.split(",") if r.strip()]
    unknown = [r for r in names if r not in ROSTERS]
    if unknown or not names:
        parser.error(f"--rosters: unknown {unknown}; expected some of {', '.join(ROSTERS)}")
    try:
        _config(args)
    except ParameterError as exc:
        parser.error(f"simulator parameters: {exc}")
    return names


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--proposals", type=int, default=1000, help="proposals per roster")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rosters", default=",".join(ROSTERS),
                        help=f"comma-separated, of {', '.join(ROSTERS)}")
    parser.add_argument("--undeclared", action="store_true",
                        help="paper rosters: the copies of one model share its checkpoint (one "
                             "unit per model) instead of declaring one checkpoint each")
    parser.add_argument("--checkpoint-share", type=float, default=0.7,
                        help="error variance shared by agents on one checkpoint (copies of one "
                             "model); the simulator's default")
    parser.add_argument("--corpus-share", type=float, default=0.3,
                        help="error variance shared by agents reading one corpus (checkpoint "
                             "share + corpus share <= 1)")
    parser.add_argument("--stale-rate", type=float, default=0.035,
                        help="stale-document: probability that the pipeline's document is stale")
    parser.add_argument("--deference", type=float, default=0.5,
                        help="stale-document: probability that F or G, answering otherwise, "
                             "adopts the broadcast proposal")
    parser.add_argument("--reexecutor-accuracy", type=float, default=0.85,
                        help="accuracy of the non-voting re-executor (0.85 = sim-strong)")
    parser.add_argument("--gate-conflict", choices=("diverse", "quorum", "strict"),
                        default="diverse",
                        help="the gate's conflict rule (docs/commit-gate.md)")
    parser.add_argument("--ledger", type=Path, default=None,
                        help="record every gate decision in DIR/<roster>.sqlite (signed, with "
                             "fresh keys) and verify it at the end")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    names = _check(parser, args)
    if args.ledger is not None:
        args.ledger.mkdir(parents=True, exist_ok=True)
    tasks = list(generate_arith(args.proposals, seed=args.seed))
    config = _config(args)
    start = time.perf_counter()
    rosters = {name: run_roster(name, tasks, args, config, args.ledger) for name in names}
    report = {"simulated": True, "proposals": len(tasks), "seed": args.seed,
              "declared": not args.undeclared, "checkpoint_share": args.checkpoint_share,
              "corpus_share": args.corpus_share, "stale_rate": args.stale_rate,
              "deference": args.deference, "reexecutor_accuracy": args.reexecutor_accuracy,
              "gate_conflict": args.gate_conflict, "rosters": rosters,
              "wall_s": time.perf_counter() - start}
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        print()
    else:
        render(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
