"""Correlated quorums on the simulated backend: false commits of a plain 2f+1 quorum vs the gate.

Replays the shared-infrastructure scenario of issue 7 over many proposals (one arithmetic task
each) with 7 simulated agents and f = 2 (quorum 5):

* ``r1``, ``r2`` read one retrieval pipeline (corpus ``news-index``) on different checkpoints;
* ``v1``, ``v2`` share checkpoint ``ck-gamma`` and "verify" from the same pipeline;
* ``p1``, ``p2`` answer from their own weights (no retrieval), each on its own checkpoint;
* ``live`` reads a live source (corpus ``live-feed``).

The four pipeline agents use profile ``sim-pipeline``: the ``strong`` profile with accuracy
``--pipeline-accuracy`` (the share of fresh documents the pipeline serves); the others and the
re-executor use ``sim-strong`` (the re-executor's accuracy is ``--reexecutor-accuracy``).

Answers come from ``protocol_runner.sim.agents`` through the ``simulated`` backend, whose error
draws are a Gaussian copula shared by agents with the same checkpoint or corpus, so the four
pipeline agents fail together. A vote's evidence is what the agent conditioned on: the document
its corpus served for the task, or its own weights. The re-executor is a non-voting simulated
agent on its own checkpoint and snapshot. A correlated quorum goes to one diversity-forcing round
(every agent re-asked with a disjoint document, ``partition_evidence``, and a fresh sample),
then to a human. Every number printed is counted from this run; nothing is assumed.

Run::

    .venv/bin/python benchmarks/correlated_quorum.py --proposals 2000 --seed 1
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from protocol_runner.commit import (
    AgentRecord,
    CommitGate,
    CorrelatedQuorum,
    Decision,
    Infrastructure,
    Ledger,
    NonReproducible,
    Reexecution,
    Registry,
    decide_from_answers,
    keyring_from_seed,
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

F = 2


@dataclass(frozen=True)
class Agent:
    """A simulated agent: id, capability profile and infrastructure."""

    agent_id: str
    profile: str
    checkpoint: str
    lineage: str
    corpus: str = ""

    def infra(self) -> Infrastructure:
        return Infrastructure(self.checkpoint, self.lineage, (self.corpus,) if self.corpus else ())

    def evidence(self, task: Task) -> list[str]:
        """What the first-round answer is conditioned on: a retrieved document, or the weights."""
        if self.corpus:
            return [f"{self.corpus}/{task.id}"]
        return [f"weights:{self.checkpoint}"]


ROSTER = (
    Agent("r1", "pipeline", "ck-alpha", "lin-rag", "news-index"),
    Agent("r2", "pipeline", "ck-beta", "lin-rag", "news-index"),
    Agent("v1", "pipeline", "ck-gamma", "lin-verify-1", "news-index"),
    Agent("v2", "pipeline", "ck-gamma", "lin-verify-2", "news-index"),
    Agent("p1", "strong", "ck-delta", "lin-param-1"),
    Agent("p2", "strong", "ck-epsilon", "lin-param-2"),
    Agent("live", "strong", "ck-zeta", "lin-live", "live-feed"),
)
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
    """The agents, their keys, the simulated backend and the gate."""

    def __init__(self, tasks: list[Task], *, seed: int, checkpoint_share: float,
                 corpus_share: float, pipeline_accuracy: float, reexecutor_accuracy: float,
                 ledger: Ledger | None) -> None:
        self.seed = seed
        config = SimConfig.from_mapping({
            "checkpoint_share": checkpoint_share, "corpus_share": corpus_share,
            "profiles": {"pipeline": {"base": "strong", "accuracy": pipeline_accuracy},
                         "reexec": {"base": "strong", "accuracy": reexecutor_accuracy}}})
        self.backend = SimulatedBackend(Simulator(tasks, config))
        self.keys = keyring_from_seed([a.agent_id for a in ROSTER], seed)
        self.registry = Registry(tuple(
            AgentRecord(a.agent_id, public_key_hex(self.keys[a.agent_id].public_key()), a.infra())
            for a in ROSTER))
        self.tasks = {t.id: t for t in tasks}
        self.reexecutions: dict[str, Reexecution] = {}
        self.reexecution_calls = 0
        self.llm_calls = 0
        self.gate = CommitGate(self.registry, F, self._reexecute,
                               reexecutor=REEXECUTOR.infra(), ledger=ledger)

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

    async def first_round(self, task: Task) -> dict[str, str | None]:
        answers = await asyncio.gather(*(self.ask(a, task, corpus=a.corpus, sample=0)
                                         for a in ROSTER))
        rerun = await self.ask(REEXECUTOR, task, corpus=REEXECUTOR.corpus, sample=0)
        self.llm_calls -= 1  # counted when the gate actually calls the re-executor
        self.reexecutions[task.id] = reexecution_from_answer(rerun, REEXECUTOR.evidence(task))
        return {a.agent_id: ans for a, ans in zip(ROSTER, answers, strict=True)}

    async def diversity_round(self, task: Task) -> tuple[dict, dict]:
        """Re-ask every agent with a disjoint document and a fresh sample."""
        sources = [f"source-{k}" for k in range(len(ROSTER))]
        shares = partition_evidence([a.agent_id for a in ROSTER], sources,
                                    seed=self.seed * 1_000_003 + int(task.id.rsplit("-", 1)[1]))
        answers = await asyncio.gather(*(self.ask(a, task, corpus=shares[a.agent_id][0], sample=1)
                                         for a in ROSTER))
        evidence = {a: [f"{s}/{task.id}" for s in share] for a, share in shares.items()}
        return {a.agent_id: ans for a, ans in zip(ROSTER, answers, strict=True)}, evidence


async def replay(scenario: Scenario, tasks: list[Task]) -> dict[str, Tally]:
    plain, initial, final = Tally(), Tally(), Tally()
    for task in tasks:
        answers = await scenario.first_round(task)
        evidence = {a.agent_id: a.evidence(task) for a in ROSTER}
        out = decide_from_answers(scenario.gate, task.id, answers, evidence, scenario.keys)
        plain.add(out.plain, out.values, task)
        initial.add(out.gate, out.values, task)
        if isinstance(out.gate, CorrelatedQuorum):
            answers, evidence = await scenario.diversity_round(task)
            out = decide_from_answers(scenario.gate, task.id, answers, evidence, scenario.keys,
                                      stage="diversity")
        final.add(out.gate, out.values, task)
    scenario.llm_calls += scenario.reexecution_calls
    return {"plain 2f+1 quorum": plain, "gate, initial round": initial,
            "gate + diversity round": final}


def per_1000(count: int, total: int) -> float | None:
    return None if total == 0 else 1000.0 * count / total


def summarise(tallies: dict[str, Tally], proposals: int) -> dict[str, dict]:
    rows = {}
    for name, t in tallies.items():
        escalated = sum(c for k, c in t.outcomes.items() if k.startswith("escalate"))
        human = t.outcomes.get("escalate:human", 0)
        rows[name] = {
            "commits": t.commits,
            "correct_commits_per_1000_proposals": per_1000(t.commits - t.false_commits,
                                                          proposals),
            "false_commits": t.false_commits,
            "false_per_1000_commits": per_1000(t.false_commits, t.commits),
            # rule of three: with 0 events in N trials the 95% upper bound is 3/N
            "false_per_1000_commits_upper95": per_1000(3, t.commits)
            if t.false_commits == 0 else None,
            "refused_quorums_on_a_wrong_value": t.refused_wrong,
            "refused_quorums_on_the_right_value": t.refused_right,
            "escalations_per_1000_proposals": per_1000(escalated, proposals),
            "to_human_per_1000_proposals": per_1000(human, proposals),
            "aborts_per_1000_proposals": per_1000(t.outcomes.get("non_reproducible", 0),
                                                  proposals),
            "no_commit_per_1000_proposals": per_1000(
                t.outcomes.get("conflict", 0) + t.outcomes.get("no_quorum", 0), proposals),
            "outcomes": dict(sorted(t.outcomes.items())),
        }
    return rows


def fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.1f}"


def render(report: dict) -> None:
    print(f"correlated-quorum benchmark: {report['proposals']} proposals (arith, seed "
          f"{report['seed']}), n = 7, f = {F}, quorum {2 * F + 1}, simulated backend "
          f"(checkpoint_share {report['checkpoint_share']}, corpus_share "
          f"{report['corpus_share']}, pipeline accuracy {report['pipeline_accuracy']}, "
          f"re-executor accuracy {report['reexecutor_accuracy']})")
    print("independence units: " + "  ".join(report["units"]))
    head = (f"{'rule':<24}{'commits':>8}{'correct/1k':>11}{'false':>7}{'false/1k commits':>18}"
            f"{'escalations/1k':>16}{'to human/1k':>13}{'aborts/1k':>11}{'no commit/1k':>14}")
    print(head)
    print("-" * len(head))
    for name, row in report["rules"].items():
        false_rate = fmt(row["false_per_1000_commits"])
        if row["false_per_1000_commits_upper95"] is not None:
            false_rate += f" (<{row['false_per_1000_commits_upper95']:.1f})"
        print(f"{name:<24}{row['commits']:>8}"
              f"{fmt(row['correct_commits_per_1000_proposals']):>11}"
              f"{row['false_commits']:>7}{false_rate:>18}"
              f"{fmt(row['escalations_per_1000_proposals']):>16}"
              f"{fmt(row['to_human_per_1000_proposals']):>13}"
              f"{fmt(row['aborts_per_1000_proposals']):>11}"
              f"{fmt(row['no_commit_per_1000_proposals']):>14}")
    for name, row in report["rules"].items():
        if name != "plain 2f+1 quorum":
            print(f"{name}: refused {row['refused_quorums_on_a_wrong_value']} quorums on a wrong "
                  f"value and {row['refused_quorums_on_the_right_value']} on the right value "
                  f"(escalated or aborted)")
    print(f"false commits per 1k commits, plain / gate + diversity round: {report['reduction']}")
    print(f"cost: {report['llm_calls']} simulated LLM calls ({report['reexecutions']} "
          f"re-executions, {report['diversity_rounds']} diversity rounds); "
          f"{report['wall_s']:.1f} s wall")
    if report.get("ledger"):
        print(f"ledger: {report['ledger']}")


def reduction(rows: dict[str, dict]) -> str:
    plain = rows["plain 2f+1 quorum"]["false_per_1000_commits"]
    gate = rows["gate + diversity round"]
    if plain is None or plain == 0:
        return "plain quorum made no false commits: nothing to cut"
    if gate["false_commits"] == 0:
        bound = gate["false_per_1000_commits_upper95"]
        return (f"{plain:.1f} vs 0 observed; >= {plain / bound:.1f}x at 95% confidence "
                f"(rule of three)")
    return f"{plain:.1f} vs {gate['false_per_1000_commits']:.1f} = " \
           f"{plain / gate['false_per_1000_commits']:.1f}x"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--proposals", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--checkpoint-share", type=float, default=0.1,
                        help="error variance shared by agents on one checkpoint")
    parser.add_argument("--corpus-share", type=float, default=0.9,
                        help="error variance shared by agents reading one corpus")
    parser.add_argument("--pipeline-accuracy", type=float, default=0.75,
                        help="accuracy of the agents reading the shared pipeline")
    parser.add_argument("--reexecutor-accuracy", type=float, default=0.85,
                        help="accuracy of the non-voting re-executor (0.85 = sim-strong)")
    parser.add_argument("--ledger", type=Path, default=None,
                        help="record every gate decision in this ledger and verify it at the end "
                             "(default: a temporary file)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    if args.proposals < 1:
        parser.error("--proposals must be >= 1")
    tasks = list(generate_arith(args.proposals, seed=args.seed))
    with tempfile.TemporaryDirectory() as scratch:
        path = args.ledger or Path(scratch) / "ledger.db"
        start = time.perf_counter()
        with Ledger(path) as ledger:
            scenario = Scenario(tasks, seed=args.seed, checkpoint_share=args.checkpoint_share,
                                corpus_share=args.corpus_share,
                                pipeline_accuracy=args.pipeline_accuracy,
                                reexecutor_accuracy=args.reexecutor_accuracy, ledger=ledger)
            tallies = asyncio.run(replay(scenario, tasks))
        wall = time.perf_counter() - start
        checked = verify(path)
    rows = summarise(tallies, len(tasks))
    report = {
        "proposals": len(tasks), "seed": args.seed, "f": F,
        "checkpoint_share": args.checkpoint_share, "corpus_share": args.corpus_share,
        "pipeline_accuracy": args.pipeline_accuracy,
        "reexecutor_accuracy": args.reexecutor_accuracy,
        "units": ["{" + ", ".join(sorted(u)) + "}" for u in scenario.registry.units],
        "rules": rows, "reduction": reduction(rows), "llm_calls": scenario.llm_calls,
        "reexecutions": scenario.reexecution_calls,
        "diversity_rounds": rows["gate, initial round"]["outcomes"].get(
            "escalate:diversity_round", 0),
        "wall_s": wall,
        "ledger": f"{checked.entries} entries, {'valid' if checked.valid else checked.reason}",
    }
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        print()
    else:
        render(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
