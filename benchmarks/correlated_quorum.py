"""False commits with and without the commit gate, on the paper's roster shapes (simulated).

For each roster, many proposals (one arithmetic task each) are answered by simulated agents and
decided twice from the same signed votes: by a plain 2f+1 quorum, and by the evidence-diversity
gate followed, after a correlated quorum, by one diversity-forcing round (then a human).

Rosters (f = 2, quorum 5):

* ``4S2W1A``, ``5S1W1A`` (n = 7) and ``6S2W1A`` (n = 9), the paper's shapes: the strong agents
  are copies of one model (``sim-strong``), the weak ones of another (``sim-weak``). Copies of
  one model share their weights, so in the simulated world their errors are drawn from one
  checkpoint latent (the model name is their checkpoint), and the gate, reading the roster as
  ``run --commit-gate`` does, counts them as one independence unit. Each agent answers from its
  own weights (evidence ``weights <model>``). The adversary is one registered, signing member
  that votes for the honest agents' most common wrong answer (a fixed wrong value when they
  have none) with fabricated, distinct evidence: the worst case for a false commit.
* ``stale-document`` (n = 7, issue 7): ``r1``, ``r2`` read one retrieval pipeline on different
  checkpoints, ``v1``, ``v2`` share checkpoint ``ck-gamma`` and read it too, ``p1``, ``p2``
  answer from their own weights, ``live`` reads a live source; the pipeline carries most of the
  error variance (``--corpus-share``).

The re-executor is a non-voting simulated agent on its own checkpoint and snapshot
(``--reexecutor-accuracy``). Everything printed is counted from this run: false commits per
1,000 proposals and per 1,000 commits with 95% Wilson intervals (``scipy.stats.binomtest``).
Every number is simulated: the simulator's accuracies and error correlations are illustrative
parameters, not measurements of models.

Run::

    .venv/bin/python benchmarks/correlated_quorum.py --proposals 2000 --seed 1
"""

from __future__ import annotations

import argparse
import asyncio
import json
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

__all__ = ["main"]

F = 2
FIXED_WRONG = "999999"


@dataclass(frozen=True)
class Agent:
    """A simulated agent: id, profile, checkpoint (its weights), lineage, corpus, role."""

    agent_id: str
    profile: str
    checkpoint: str
    lineage: str
    corpus: str = ""
    adversary: bool = False

    def infra(self) -> Infrastructure:
        return Infrastructure(self.checkpoint, self.lineage, (self.corpus,) if self.corpus else ())

    def evidence(self, task: Task) -> list[str]:
        """What the first-round answer is conditioned on: a retrieved document, or the weights."""
        if self.adversary:
            return [f"fabricated by {self.agent_id}/{task.id}"]
        if self.corpus:
            return [f"{self.corpus}/{task.id}"]
        return [f"weights {self.checkpoint}"]


def paper_roster(strong: int, weak: int) -> tuple[Agent, ...]:
    """``<strong>S<weak>W1A``: copies of sim-strong and of sim-weak, and one adversary."""
    agents = [Agent(f"s{i}", "strong", "sim-strong", f"lin-s{i}") for i in range(strong)]
    agents += [Agent(f"w{i}", "weak", "sim-weak", f"lin-w{i}") for i in range(weak)]
    agents.append(Agent("adv", "strong", "ck-adv", "lin-adv", adversary=True))
    return tuple(agents)


STALE_DOCUMENT = (
    Agent("r1", "pipeline", "ck-alpha", "lin-rag", "news-index"),
    Agent("r2", "pipeline", "ck-beta", "lin-rag", "news-index"),
    Agent("v1", "pipeline", "ck-gamma", "lin-verify-1", "news-index"),
    Agent("v2", "pipeline", "ck-gamma", "lin-verify-2", "news-index"),
    Agent("p1", "strong", "ck-delta", "lin-param-1"),
    Agent("p2", "strong", "ck-epsilon", "lin-param-2"),
    Agent("live", "strong", "ck-zeta", "lin-live", "live-feed"),
)
ROSTERS = {"4S2W1A": paper_roster(4, 2), "5S1W1A": paper_roster(5, 1),
           "6S2W1A": paper_roster(6, 2), "stale-document": STALE_DOCUMENT}
REEXECUTOR = Agent("reexec", "reexec", "ck-omega", "lin-reexec", "archive-snapshot")


@dataclass
class Tally:
    """Outcome counts of one decision rule over the run."""

    outcomes: Counter = field(default_factory=Counter)
    commits: int = 0
    false_commits: int = 0
    refused_right: int = 0
    refused_wrong: int = 0

    def add(self, decision: Decision, values: dict[str, str], task: Task) -> None:
        """Count ``decision``; ``values`` maps value hashes to the answers they stand for."""
        self.outcomes[decision.kind if not isinstance(decision, CorrelatedQuorum)
                      else f"escalate:{decision.escalate_to}"] += 1
        if decision.committed:
            self.commits += 1
            self.false_commits += not is_correct(values[decision.value_hash], task)
        elif isinstance(decision, CorrelatedQuorum | NonReproducible):
            if is_correct(values[decision.value_hash], task):
                self.refused_right += 1
            else:
                self.refused_wrong += 1


class Scenario:
    """One roster: its agents, fresh keys, the simulated backend and the gate."""

    def __init__(self, roster: tuple[Agent, ...], tasks: list[Task], *, seed: int,
                 config: SimConfig, ledger: Ledger | None) -> None:
        self.roster = roster
        self.seed = seed
        self.backend = SimulatedBackend(Simulator(tasks, config))
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
        self.gate = CommitGate(self.registry, F, self._reexecute, reexecutor=REEXECUTOR.infra(),
                               ledger=ledger, keyring=keyring if ledger is not None else None)

    def _reexecute(self, proposal_id: str) -> Reexecution:
        self.reexecution_calls += 1
        return self.reexecutions[proposal_id]

    async def ask(self, agent: Agent, task: Task, *, corpus: str, sample: int) -> str | None:
        self.llm_calls += 1
        who = AgentIdentity(agent.agent_id, checkpoint=agent.checkpoint, corpus=corpus)
        request = CompletionRequest(f"sim-{agent.profile}", answer_messages(task), seed=self.seed,
                                    user=who.to_user(), sample=sample)
        reply = await self.backend.complete(request)
        return answer_key(reply.text, task)

    def _with_adversary(self, answers: dict[str, str | None], task: Task) -> None:
        wrong = Counter(a for agent, a in answers.items()
                        if a is not None and not is_correct(a, task))
        for agent in self.roster:
            if agent.adversary:
                answers[agent.agent_id] = wrong.most_common(1)[0][0] if wrong else FIXED_WRONG

    async def first_round(self, task: Task, proposal: str) -> dict[str, str | None]:
        honest = [a for a in self.roster if not a.adversary]
        replies = await asyncio.gather(*(self.ask(a, task, corpus=a.corpus, sample=0)
                                         for a in honest))
        rerun = await self.ask(REEXECUTOR, task, corpus=REEXECUTOR.corpus, sample=0)
        self.llm_calls -= 1  # counted when the gate actually calls the re-executor
        self.reexecutions[proposal] = reexecution_from_answer(rerun, REEXECUTOR.evidence(task))
        answers = {a.agent_id: r for a, r in zip(honest, replies, strict=True)}
        self._with_adversary(answers, task)
        return answers

    async def diversity_round(self, task: Task) -> tuple[dict, dict]:
        """Re-ask every honest agent with a disjoint document (its corpus's) and a fresh sample."""
        honest = [a for a in self.roster if not a.adversary]
        sources = sorted({f"{a.corpus}/{task.id}" for a in honest if a.corpus})
        shares = partition_evidence([a.agent_id for a in honest], sources,
                                    seed=self.seed * 1_000_003 + int(task.id.rsplit("-", 1)[1]))
        corpus = {a: share[0].split("/")[0] if share else "" for a, share in shares.items()}
        replies = await asyncio.gather(*(self.ask(a, task, corpus=corpus[a.agent_id], sample=1)
                                         for a in honest))
        evidence = {a.agent_id: list(shares[a.agent_id]) or [f"weights {a.checkpoint}"]
                    for a in honest}
        answers = {a.agent_id: r for a, r in zip(honest, replies, strict=True)}
        self._with_adversary(answers, task)
        for agent in self.roster:
            if agent.adversary:
                evidence[agent.agent_id] = [f"fabricated again by {agent.agent_id}/{task.id}"]
        return answers, evidence


async def replay(scenario: Scenario, tasks: list[Task], name: str) -> dict[str, Tally]:
    plain, final = Tally(), Tally()
    for task in tasks:
        proposal = f"{name}/{task.id}"
        answers = await scenario.first_round(task, proposal)
        evidence = {a.agent_id: a.evidence(task) for a in scenario.roster}
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


def summarise(tally: Tally, proposals: int) -> dict:
    escalated = sum(c for k, c in tally.outcomes.items() if k.startswith("escalate"))
    return {
        "commits": tally.commits,
        "false_commits": tally.false_commits,
        "commits_per_1000_proposals": per_1000(tally.commits, proposals),
        "false_per_1000_proposals": per_1000(tally.false_commits, proposals),
        "false_per_1000_commits": per_1000(tally.false_commits, tally.commits),
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
          f"(arith, seed {report['seed']}), f = {F}, quorum {2 * F + 1}; checkpoint_share "
          f"{report['checkpoint_share']}, corpus_share {report['corpus_share']}, pipeline "
          f"accuracy {report['pipeline_accuracy']}, re-executor accuracy "
          f"{report['reexecutor_accuracy']}; 95% Wilson intervals in brackets")
    head = ("| roster | n | rule | commits / 1k proposals | false commits / 1k proposals "
            "| false / 1k commits | to a human / 1k | aborts / 1k |")
    print(head)
    print("|---|---|---|---|---|---|---|---|")
    for name, data in report["rosters"].items():
        for rule, row in data["rules"].items():
            print(f"| {name} | {data['n']} | {rule} | {fmt(row['commits_per_1000_proposals'])} | "
                  f"{fmt(row['false_per_1000_proposals'])} ({row['false_commits']}) | "
                  f"{fmt(row['false_per_1000_commits'])} | "
                  f"{fmt(row['to_human_per_1000_proposals'])} | "
                  f"{fmt(row['aborts_per_1000_proposals'])} |")
    for name, data in report["rosters"].items():
        print(f"{name}: independence units {'  '.join(data['units'])}; "
              f"{data['llm_calls']} simulated LLM calls ({data['reexecutions']} re-executions, "
              f"{data['diversity_rounds']} diversity rounds)"
              + (f"; ledger {data['ledger']}" if data.get("ledger") else ""))
    print(f"wall {report['wall_s']:.1f} s")


def run_roster(name: str, tasks: list[Task], args: argparse.Namespace,
               ledger_dir: Path | None) -> dict:
    config = SimConfig.from_mapping({
        "checkpoint_share": args.checkpoint_share, "corpus_share": args.corpus_share,
        "profiles": {"pipeline": {"base": "strong", "accuracy": args.pipeline_accuracy},
                     "reexec": {"base": "strong", "accuracy": args.reexecutor_accuracy}}})
    roster = ROSTERS[name]
    ledger = None if ledger_dir is None else Ledger(ledger_dir / f"{name}.sqlite")
    try:
        scenario = Scenario(roster, tasks, seed=args.seed, config=config, ledger=ledger)
        tallies = asyncio.run(replay(scenario, tasks, name))
    finally:
        if ledger is not None:
            ledger.close()
    data = {"n": len(roster), "units": ["{" + ", ".join(sorted(u)) + "}"
                                        for u in scenario.registry.units],
            "rules": {rule: summarise(t, len(tasks)) for rule, t in tallies.items()},
            "llm_calls": scenario.llm_calls, "reexecutions": scenario.reexecution_calls,
            "diversity_rounds": scenario.diversity_rounds}
    if ledger_dir is not None:
        checked = verify(ledger_dir / f"{name}.sqlite")
        data["ledger"] = f"{checked.entries} entries, " + (
            "valid" if checked.valid else str(checked.reason))
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--proposals", type=int, default=2000, help="proposals per roster")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rosters", default=",".join(ROSTERS),
                        help=f"comma-separated, of {', '.join(ROSTERS)}")
    parser.add_argument("--checkpoint-share", type=float, default=0.7,
                        help="error variance shared by agents on one checkpoint (copies of one "
                             "model); the simulator's default")
    parser.add_argument("--corpus-share", type=float, default=0.3,
                        help="error variance shared by agents reading one corpus")
    parser.add_argument("--pipeline-accuracy", type=float, default=0.75,
                        help="stale-document: accuracy of the agents reading the shared pipeline")
    parser.add_argument("--reexecutor-accuracy", type=float, default=0.85,
                        help="accuracy of the non-voting re-executor (0.85 = sim-strong)")
    parser.add_argument("--ledger", type=Path, default=None,
                        help="record every gate decision in DIR/<roster>.sqlite (signed, with "
                             "fresh keys) and verify it at the end")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    if args.proposals < 1:
        parser.error("--proposals must be >= 1")
    names = [r.strip() for r in args.rosters.split(",") if r.strip()]
    unknown = [r for r in names if r not in ROSTERS]
    if unknown or not names:
        parser.error(f"--rosters: unknown {unknown}; expected some of {', '.join(ROSTERS)}")
    if args.ledger is not None:
        args.ledger.mkdir(parents=True, exist_ok=True)
    tasks = list(generate_arith(args.proposals, seed=args.seed))
    start = time.perf_counter()
    rosters = {name: run_roster(name, tasks, args, args.ledger) for name in names}
    report = {"simulated": True, "proposals": len(tasks), "seed": args.seed, "f": F,
              "checkpoint_share": args.checkpoint_share, "corpus_share": args.corpus_share,
              "pipeline_accuracy": args.pipeline_accuracy,
              "reexecutor_accuracy": args.reexecutor_accuracy, "rosters": rosters,
              "wall_s": time.perf_counter() - start}
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        print()
    else:
        render(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
