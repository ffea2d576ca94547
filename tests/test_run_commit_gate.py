"""robustgraph run --commit-gate: votes from final answers, the diversity-forcing round after a
correlated quorum, ledger, both rules' decisions, resume."""

from __future__ import annotations

import asyncio
import doctest
import json
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from protocol_runner.analysis.report import write_summary
from protocol_runner.commit import (
    Enrolment,
    Ledger,
    evidence_hash,
    normalise_answer,
    value_hash,
    verify,
)
from protocol_runner.commit import stage as commit_stage
from protocol_runner.commit.ledger import read_entries
from protocol_runner.llm import AgentIdentity, CompletionRequest
from protocol_runner.llm.backends import SimulatedBackend
from protocol_runner.protocols.answers import answer_key, is_correct
from protocol_runner.protocols.prompts import answer_messages, parse_answer
from protocol_runner.run.records import read_records
from protocol_runner.run.runner import RESULTS_FILE, BackendSpec, RunSpec, execute, prepare
from protocol_runner.sim.agents import SimConfig, Simulator
from protocol_runner.sim.profiles import resolve_config
from protocol_runner.sim.server import running_server
from protocol_runner.tasks import load_tasks
from robustgraph.cli import main
from robustgraph.generators import gamma_merg

F = 1
# Four strong agents on one model that declare distinct checkpoints (four independence units:
# docs/commit-gate.md, "Declaring what agents share"), one adversary on node 4.
DISTINCT_ROSTER = """\
agents:
  - {node: "0", role: strong, checkpoint: ck-0}
  - {node: "1", role: strong, checkpoint: ck-1}
  - {node: "2", role: strong, checkpoint: ck-2}
  - {node: "3", role: strong, checkpoint: ck-3}
  - {node: "4", role: adversary, attack: "echo-then-flip:k=1"}
"""
RUN = ["run", "--topology", "merg", "--n", "5", "--F", str(F), "--protocols", "sac,majority",
       "--tasks", "arith:4", "--rounds", "1", "--seed", "2", "--no-plots", "--commit-gate"]


TASKS = load_tasks("arith:4")


def _invoke(args: list[str]):
    return CliRunner().invoke(main, args, catch_exceptions=False)


def _decisions(path) -> dict[tuple[str, str], dict]:
    """Gate decisions in a ledger, by proposal id and stage (each pair must appear once)."""
    bodies = [e.body for e in read_entries(path) if e.body["kind"] == "decision"]
    ids = Counter((b["proposal_id"], b["stage"]) for b in bodies)
    assert max(ids.values()) == 1, ids
    return {(b["proposal_id"], b["stage"]): b for b in bodies}


def _final(data: dict) -> dict:
    """The gate's final decision in a record: the diversity round's when one ran."""
    return data.get("diversity", data["gate"])


@pytest.fixture(scope="module")
def roster_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("roster") / "roster.yaml"
    path.write_text(DISTINCT_ROSTER)
    return str(path)


@pytest.fixture(scope="module")
def small_run(tmp_path_factory, roster_file):
    out = tmp_path_factory.mktemp("gate") / "results"
    result = _invoke([*RUN, "--roster", roster_file, "--json", "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out, json.loads(result.stdout)


@pytest.fixture(scope="module")
def plain_run(tmp_path_factory, roster_file):
    """The same run without the gate."""
    out = tmp_path_factory.mktemp("plain") / "results"
    args = [*[a for a in RUN if a != "--commit-gate"], "--roster", roster_file, "-o", str(out)]
    assert _invoke(args).exit_code == 0
    return out


def _gate_data(record) -> dict:
    """The record's gate data without the proposal id (which names the run)."""
    return {k: v for k, v in record.protocol_data["commit_gate"].items() if k != "proposal_id"}


def test_ledger_verifies_and_holds_one_decision_per_query_and_stage(small_run):
    out, data = small_run
    ledger = out / commit_stage.LEDGER_FILE
    report = verify(ledger)
    assert report.valid, report.reason
    decided = _decisions(ledger)
    records = read_records(out / RESULTS_FILE)
    rounds = sum("diversity" in r.protocol_data["commit_gate"] for r in records)
    assert rounds == 4  # majority's quorums are one decision copied: all correlated
    assert Counter(stage for _, stage in decided) == {"initial": 8, "diversity": rounds}
    assert sum(report.outcomes.values()) == 8 + rounds  # 4 tasks x 2 protocols, + re-votes
    assert data["commit_gate"]["run_decisions"] == 8 + rounds
    assert data["commit_gate"]["head_hash"] == report.head_hash
    cli = _invoke(["ledger", "verify", str(ledger)])
    assert cli.exit_code == 0 and f"valid, {9 + rounds} entries" in cli.output  # + registry


def test_every_record_carries_the_gate_and_the_plain_quorum_decision(small_run):
    out, data = small_run
    decided = _decisions(out / commit_stage.LEDGER_FILE)
    records = read_records(out / RESULTS_FILE)
    assert len(records) == 8
    for record in records:
        gate_data = record.protocol_data["commit_gate"]
        assert gate_data["proposal_id"] == f"{record.run_id}/{record.query_id}"
        assert gate_data["f"] == F and gate_data["votes"] == 4  # the honest agents
        body = decided[gate_data["proposal_id"], "initial"]
        assert gate_data["gate"]["outcome"] == body["outcome"]
        assert gate_data["gate"]["reasons"] == body["reasons"]
        assert {v["voter"] for v in body["votes"]} == {t.node for t in record.honest_final}
        # the plain quorum, recomputed from the honest final answers: 2f+1 = 3 agreeing
        task = TASKS[record.task_id]
        counts = Counter(answer_key(t.answer, task) for t in record.honest_final)
        value, support = counts.most_common(1)[0]
        plain = gate_data["plain"]
        if support >= 2 * F + 1:
            assert (plain["action"], plain["value"]) == ("commit", value)
            assert plain["value_correct"] == is_correct(value, task)
        else:
            assert plain["action"] == "none" and plain["value"] is None
        if gate_data["gate"]["action"] == "commit":
            assert plain["action"] == "commit"
            assert gate_data["gate"]["value"] == plain["value"]


def test_a_vote_commits_to_its_sources_and_last_round_messages(small_run):
    out, _ = small_run
    decided = _decisions(out / commit_stage.LEDGER_FILE)
    for record in read_records(out / RESULTS_FILE):
        body = decided[record.protocol_data["commit_gate"]["proposal_id"], "initial"]
        evidence = {v["voter"]: v["evidence_hash"] for v in body["votes"]}
        if record.protocol == "majority":  # every agent adopted the vote's result: one witness
            assert len(set(evidence.values())) == 1
            assert record.protocol_data["commit_gate"]["gate"]["outcome"] == "correlated_quorum"
            continue
        before = {t.node: t.answer for t in record.rounds[-2]}  # read in the last round
        graph = gamma_merg(5)
        for turn in record.honest_final:
            heard = [str(graph.labels[j]) for j in graph.in_neighbors[turn.agent]]
            items = [f"weights ck-{turn.node}"]
            items += [f"message from {j}: {before[j]}" for j in heard]
            assert evidence[turn.node] == evidence_hash(items)
            assert evidence[turn.node] != evidence_hash([turn.answer])


def test_the_diversity_round_reasks_each_agent_alone_with_a_disjoint_share(small_run, plain_run):
    out, _ = small_run
    decided = _decisions(out / commit_stage.LEDGER_FILE)
    without_gate = {r.query_id: r for r in read_records(plain_run / RESULTS_FILE)}
    backend = SimulatedBackend(Simulator(list(TASKS), resolve_config(None, {"math"})))  # run's
    seen = 0
    for record in read_records(out / RESULTS_FILE):
        data = record.protocol_data["commit_gate"]
        calls = without_gate[record.query_id].cost.llm_calls
        if data["gate"].get("escalate_to") != "diversity_round":
            assert "diversity" not in data and record.cost.llm_calls == calls
            continue
        seen += 1
        task, rerun = TASKS[record.task_id], data["diversity"]
        honest = [t.node for t in record.honest_final]
        assert sorted(rerun["shares"]) == sorted(honest)
        items = [item for share in rerun["shares"].values() for item in share]
        assert len(items) == len(set(items))  # disjoint: no corpora here, so own weights
        assert items == [f"weights ck-{node}" for node in rerun["shares"]]
        body = decided[data["proposal_id"], "diversity"]
        assert body["outcome"] == rerun["outcome"] and body["reasons"] == rerun["reasons"]
        assert {v["voter"] for v in body["votes"]} == set(honest) and rerun["votes"] == 4
        for vote in body["votes"]:  # the answer to the bare task prompt, a fresh sample
            assert vote["stage"] == "diversity"
            assert vote["evidence_hash"] == evidence_hash(rerun["shares"][vote["voter"]])
            who = AgentIdentity(vote["voter"], checkpoint=f"ck-{vote['voter']}")
            reply = asyncio.run(backend.complete(CompletionRequest(
                "sim-strong", answer_messages(task), seed=2, user=who.to_user(),
                sample=commit_stage.DIVERSITY_SAMPLE)))
            answer = answer_key(parse_answer(reply.text, task), task)
            assert vote["value_hash"] == value_hash(normalise_answer(answer))
        # one call per honest agent through the run's client, counted in the query's cost
        assert record.cost.llm_calls == calls + len(honest)
        assert (rerun["action"] == "commit") == (rerun["outcome"] == "committed")
        if rerun["action"] == "commit":
            assert rerun["value_correct"] == is_correct(rerun["value"], task)
    assert seen == 4


def test_summary_has_the_rates_side_by_side(small_run):
    out, data = small_run
    records = read_records(out / RESULTS_FILE)
    summary = json.loads((out / "summary.json").read_text())
    assert summary == data["summary"]
    for protocol in ("sac", "majority"):
        mine = [r.protocol_data["commit_gate"] for r in records if r.protocol == protocol]
        rates = summary["protocols"][protocol]["commit_gate"]
        final = {"gate": [_final(d) for d in mine], "plain": [d["plain"] for d in mine]}
        for rule in ("gate", "plain"):
            actions = Counter(d["action"] for d in final[rule])
            for metric, action in (("commit", "commit"), ("escalation", "escalate"),
                                   ("abort", "abort")):
                assert rates[rule][metric]["value"] == pytest.approx(actions[action] / len(mine))
            wrong = [not d["value_correct"] for d in final[rule] if d["action"] == "commit"]
            false = rates[rule]["false_commit"]
            assert (false is None) == (not wrong)
            if wrong:
                assert false["value"] == pytest.approx(sum(wrong) / len(wrong))
                assert false["n"] == len(wrong)
    # majority's first decisions are all escalations; the rates count the diversity round's
    first = [r.protocol_data["commit_gate"]["gate"] for r in records if r.protocol == "majority"]
    assert all(d["escalate_to"] == "diversity_round" for d in first)
    assert summary["protocols"]["majority"]["commit_gate"]["gate"]["escalation"]["value"] < 1.0
    markdown = (out / "summary.md").read_text()
    assert "## Commit gate (f = 1 Byzantine voters, quorum 2f+1 = 3)" in markdown
    assert "| sac | gate |" in markdown and "| sac | plain 2f+1 quorum |" in markdown


def test_no_commit_section_without_the_gate(plain_run):
    out = plain_run
    assert "Commit gate" not in (out / "summary.md").read_text()
    summary = json.loads((out / "summary.json").read_text())
    assert "commit_gate" not in summary["protocols"]["sac"]
    assert not (out / commit_stage.LEDGER_FILE).exists()


def _spec(tmp_path, name: str, ledger, **options) -> RunSpec:
    return RunSpec(gamma_merg(5), tmp_path / name, roster="4S1A", F=F,
                   protocols=("sac", "majority"), tasks="arith:4", rounds=1, seed=5,
                   commit_gate=True, ledger=ledger, **options)


def test_resume_appends_no_duplicate_decisions(tmp_path):
    ledger = tmp_path / "elsewhere.sqlite"
    spec = _spec(tmp_path, "r", ledger)
    asyncio.run(execute(prepare(spec)))
    results = tmp_path / "r" / RESULTS_FILE
    first = {r.query_id: r.protocol_data for r in read_records(results)}
    rounds = sum("diversity" in d["commit_gate"] for d in first.values())
    entries = len(read_entries(ledger))
    assert rounds >= 4 and entries == 1 + 8 + rounds  # registry, 8 first decisions, re-votes
    assert not (tmp_path / "r" / commit_stage.LEDGER_FILE).exists()

    done = asyncio.run(execute(prepare(spec)))  # everything finished: nothing to decide
    assert done.ran == 0 and len(read_entries(ledger)) == entries

    # killed after the decisions reached the ledger but before the records were written
    lines = results.read_text().splitlines(keepends=True)
    results.write_text("".join(lines[:2]))
    again = asyncio.run(execute(prepare(spec)))
    assert again.ran == 6
    assert len(read_entries(ledger)) == entries and verify(ledger).valid
    assert {r.query_id: r.protocol_data for r in read_records(results)} == first
    _decisions(ledger)  # one decision per proposal and stage


def test_resume_after_a_kill_between_the_first_decision_and_the_diversity_round(
        tmp_path, monkeypatch):
    clean = _spec(tmp_path, "clean", tmp_path / "clean.sqlite", concurrency=1)
    asyncio.run(execute(prepare(clean)))
    expected = {r.query_id: _gate_data(r) for r in read_records(tmp_path / "clean" / RESULTS_FILE)}

    async def killed(self, ctx, proposal):
        raise RuntimeError("killed")

    ledger = tmp_path / "killed.sqlite"
    spec = _spec(tmp_path, "killed", ledger, concurrency=1)
    with monkeypatch.context() as patch:
        patch.setattr(commit_stage.CommitStage, "diversity_round", killed)
        with pytest.raises(RuntimeError, match="killed"):
            asyncio.run(execute(prepare(spec)))
    stages = Counter(stage for _, stage in _decisions(ledger))
    assert stages == {"initial": stages["initial"]} and stages["initial"] >= 1
    killed_at = len(read_records(tmp_path / "killed" / RESULTS_FILE))
    assert killed_at < 8  # the query whose diversity round was cut short has no record

    asyncio.run(execute(prepare(spec)))
    resumed = {r.query_id: _gate_data(r) for r in read_records(tmp_path / "killed" / RESULTS_FILE)}
    assert resumed == expected  # the first decision reused, the round run once
    report = verify(ledger)
    assert report.valid and report.entries == len(read_entries(tmp_path / "clean.sqlite"))
    _decisions(ledger)


SHARED_ROSTER = """\
agents:
  - {node: "0", role: strong, model: sim-shared, checkpoint: ck-shared, corpus: doc-a}
  - {node: "1", role: strong, model: sim-shared, checkpoint: ck-shared, corpus: doc-b}
  - {node: "2", role: strong, model: sim-shared, checkpoint: ck-shared, corpus: doc-c}
  - {node: "3", role: strong, model: sim-solo, checkpoint: ck-solo, corpus: doc-d}
"""

# Agents on ck-shared are always wrong and, with the whole error variance on the checkpoint,
# pick the same wrong answer; the solo agent is always right. Corpora carry no error variance.
SHARED_WORLD = {"checkpoint_share": 1.0, "corpus_share": 0.0,
                "profiles": {"shared": {"base": "strong", "accuracy": 0.0},
                             "solo": {"base": "strong", "accuracy": 1.0}}}


def test_a_correlated_quorum_goes_to_a_diversity_round_then_to_a_human(tmp_path):
    roster, world = tmp_path / "roster.yaml", tmp_path / "world.json"
    roster.write_text(SHARED_ROSTER)
    world.write_text(json.dumps(SHARED_WORLD))
    out = tmp_path / "shared"
    result = _invoke(["run", "--topology", "complete", "--n", "4", "--roster", str(roster),
                      "--F", "1", "--protocols", "sac", "--tasks", "arith:5", "--rounds", "0",
                      "--sim-config", str(world), "--seed", "3", "--no-plots", "--commit-gate",
                      "--gate-f", "1", "-o", str(out)])
    assert result.exit_code == 0, result.output
    records = read_records(out / RESULTS_FILE)
    assert len(records) == 5
    for record in records:
        data = record.protocol_data["commit_gate"]
        plain, gate = data["plain"], data["gate"]
        assert (plain["action"], plain["value_correct"]) == ("commit", False)
        assert gate["outcome"] == "correlated_quorum" and gate["action"] == "escalate"
        assert gate["value"] == plain["value"]
        assert gate["evidence"] == 3 and gate["units"] == 1  # three documents, one checkpoint
        units = "1 independence units, 1 after any f = 1 of them are removed (need f+1 = 2)"
        assert any(units in line for line in gate["reasons"])
        assert gate["escalate_to"] == "diversity_round"
        # re-asked with one document each (four documents, four agents): the checkpoint still
        # decides the shared agents' answers, so the same wrong quorum, one unit: to a human
        rerun = data["diversity"]
        docs = sorted(item for share in rerun["shares"].values() for item in share)
        assert docs == [f"document doc-{c}/{record.task_id}" for c in "abcd"]
        assert all(len(share) == 1 for share in rerun["shares"].values())
        assert rerun["outcome"] == "correlated_quorum" and rerun["escalate_to"] == "human"
        assert (rerun["value"], rerun["evidence"], rerun["units"]) == (plain["value"], 3, 1)
    rates = json.loads((out / "summary.json").read_text())["protocols"]["sac"]["commit_gate"]
    assert rates["plain"]["commit"]["value"] == 1.0
    assert rates["plain"]["false_commit"]["value"] == 1.0
    assert rates["gate"]["commit"]["value"] == 0.0 and rates["gate"]["false_commit"] is None
    assert rates["gate"]["escalation"]["value"] == 1.0
    ledger = out / commit_stage.LEDGER_FILE
    assert verify(ledger).outcomes == {"correlated_quorum": 10}
    escalations = Counter((stage, b["escalate_to"]) for (_, stage), b in _decisions(ledger).items())
    assert escalations == {("initial", "diversity_round"): 5, ("diversity", "human"): 5}


# Four accurate agents that share nothing: majority vote's quorum is one decision copied (one
# evidence hash), re-asked alone each rests on its own weights.
ACCURATE_WORLD = {"profiles": {"strong": {"accuracy": 1.0}}}
MAJORITY = dict(F=1, protocols=("majority",), tasks="arith:4", rounds=0, seed=2,
                commit_gate=True, gate_f=1)


def test_the_diversity_round_commits_what_the_first_round_could_not(tmp_path):
    world = tmp_path / "world.json"
    world.write_text(json.dumps(ACCURATE_WORLD))
    roster = tmp_path / "roster.yaml"
    roster.write_text("\n".join(DISTINCT_ROSTER.splitlines()[:5]) + "\n")
    majority = dict(MAJORITY, roster=str(roster))
    spec = RunSpec(gamma_merg(4), tmp_path / "sim", backend=BackendSpec(sim_config=str(world)),
                   **majority)
    asyncio.run(execute(prepare(spec)))
    records = read_records(tmp_path / "sim" / RESULTS_FILE)
    assert len(records) == 4
    for record in records:
        data = record.protocol_data["commit_gate"]
        first, rerun = data["gate"], data["diversity"]
        assert (first["outcome"], first["evidence"], first["units"]) == ("correlated_quorum", 1, 4)
        assert data["plain"]["action"] == "commit" and data["plain"]["value_correct"]
        # the re-executor (85% accurate) reproduces all four answers with this seed
        assert (rerun["outcome"], rerun["evidence"], rerun["units"]) == ("committed", 4, 4)
        assert rerun["value"] == first["value"] and rerun["value_correct"]
    rates = write_summary(tmp_path / "sim", plots=False).to_json()
    rates = rates["protocols"]["majority"]["commit_gate"]
    assert rates["gate"]["commit"]["value"] == 1.0 and rates["gate"]["escalation"]["value"] == 0
    assert rates["gate"]["false_commit"]["value"] == 0 and rates["plain"]["commit"]["value"] == 1
    ledger = tmp_path / "sim" / commit_stage.LEDGER_FILE
    assert verify(ledger).outcomes == {"correlated_quorum": 4, "committed": 4}

    # the openai backend (serve-sim over HTTP) runs the same round with the same results
    simulator = Simulator(load_tasks("arith:4"), SimConfig.from_mapping(ACCURATE_WORLD))
    with running_server(simulator) as server:
        http = BackendSpec("openai", base_url=server.base_url, strong_model="sim-strong",
                           api_key_env=None)
        asyncio.run(execute(prepare(RunSpec(gamma_merg(4), tmp_path / "http", backend=http,
                                            **majority))))
        assert server.stats.as_dict()["completions"] == 4 * 4 * 2  # round 0 and re-votes
    over_http = {r.query_id: r for r in read_records(tmp_path / "http" / RESULTS_FILE)}
    for record in records:
        again = over_http[record.query_id]
        assert _gate_data(again) == _gate_data(record)
        assert again.cost.llm_calls == record.cost.llm_calls == 8


@pytest.mark.parametrize("args, message", [
    (["--F", "2", "--roster", "3S2A"],
     "--commit-gate: the gate's f = 2 Byzantine voters needs n >= 3f+1 = 7 agents"),
    (["--F", "1", "--roster", "4S1A", "--gate-f", "2"], "the gate's f = 2 Byzantine voters"),
    (["--F", "1", "--roster", "4S1A", "--gate-f", "1", "--gate-conflict", "strict",
      "--diversity", "weights"], "--diversity 'weights'; expected some of checkpoint"),
    (["--F", "1", "--roster", "4S1A", "--ledger", "x.sqlite"], "--ledger goes with"),
])
def test_usage_errors_are_one_line_and_write_nothing(tmp_path, args, message):
    out = tmp_path / "never"
    base = ["run", "--topology", "merg", "--n", "5", "--tasks", "arith:2", "--no-plots"]
    if "--ledger" not in args:
        base.append("--commit-gate")
    result = _invoke([*base, *args, "-o", str(out)])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0]
    assert not out.exists()


def test_docstring_examples():
    outcome = doctest.testmod(commit_stage)
    assert outcome.failed == 0 and outcome.attempted > 0


def test_the_papers_4s2w1a_roster_counts_the_strong_copies_as_one_unit(tmp_path):
    """Four copies of one strong model (and two of one weak model) are one independence unit
    each by default, so at f = 2 no quorum has the f+1 = 3 units the gate needs. (The roster's
    3 Byzantine agents are not 2-local on gamma-MERG: the run is outside SAC's model, allowed.)"""
    out = tmp_path / "paper"
    result = _invoke(["run", "--topology", "merg", "--n", "7", "--roster", "4S2W1A", "--F", "2",
                      "--gate-f", "2", "--protocols", "sac", "--tasks", "arith:6", "--rounds",
                      "1", "--seed", "1",
                      "--no-plots", "--commit-gate", "--allow-uncertified", "--sim-config",
                      "handset", "-o", str(out)])
    assert result.exit_code == 0, result.output
    registry = read_entries(out / commit_stage.LEDGER_FILE)[0].body
    strong = sorted(a["agent_id"] for a in registry["agents"]
                    if a["infra"]["checkpoint"] == "sim-strong")
    assert len(strong) == 4
    assert frozenset(strong) in Enrolment.from_body(registry).registry.units
    quorums = 0
    for record in read_records(out / RESULTS_FILE):
        data = record.protocol_data["commit_gate"]
        for decision in (data["gate"], data.get("diversity")):
            if decision is None or decision["value"] is None:
                continue  # the votes split or fell short: no quorum to judge
            quorums += 1
            assert decision["outcome"] == "correlated_quorum" and decision["units"] <= 2
            line = next(r for r in decision["reasons"] if "independence units" in r)
            assert "(need f+1 = 3)" in line and strong[0] in line
    assert quorums >= 4  # the same seed gives the same answers: 4 quorums, all correlated


# The run holds still once it has written this many results, until the test kills it: the kill
# then lands mid-run on any machine, however fast the run or slow the polling test.
HOLD_AFTER = (
    "import threading\n"
    "from protocol_runner.run import runner\n"
    "written, append = [], runner.append_record\n"
    "def held(handle, record):\n"
    "    append(handle, record)\n"
    "    written.append(1)\n"
    "    if len(written) == {n}:\n"
    "        threading.Event().wait()\n"
    "runner.append_record = held\n"
)


def _run_subprocess(out, tasks: int, *, hold_after: int | None = None):
    roster = out.parent / "roster.yaml"
    roster.write_text(DISTINCT_ROSTER)
    args = [*RUN, "--roster", str(roster), "--concurrency", "1", "-o", str(out)]
    args[args.index("arith:4")] = f"arith:{tasks}"
    hold = "" if hold_after is None else HOLD_AFTER.format(n=hold_after)
    return [sys.executable, "-c", hold + "from robustgraph.cli import main; main()", *args]


def test_deleting_the_wal_after_a_killed_run_loses_no_decision(tmp_path):
    """A real run in a subprocess, killed with SIGKILL mid-way; then the ledger's -wal and -shm
    files are deleted. Every finished query's decisions are still in the ledger, which
    verifies, and the resumed run finishes the rest on the same ledger."""
    out = tmp_path / "killed"
    child = subprocess.Popen(_run_subprocess(out, 40, hold_after=12), stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    results, ledger = out / RESULTS_FILE, out / commit_stage.LEDGER_FILE
    try:
        deadline = time.monotonic() + 240  # a hang guard only: the run holds after 12 results
        while not (results.exists() and results.read_text().count("\n") >= 12):
            assert child.poll() is None and time.monotonic() < deadline, "run ended too early"
            time.sleep(0.02)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    wal = ledger.with_name(ledger.name + "-wal")
    assert wal.exists()  # the run was killed with the ledger open in WAL mode
    wal.unlink()
    ledger.with_name(ledger.name + "-shm").unlink(missing_ok=True)
    report = verify(ledger)
    assert report.valid, report.reason
    decided = _decisions(ledger)
    finished = read_records(results)
    assert len(finished) == 12  # held there: killed mid-run
    for record in finished:
        data = record.protocol_data["commit_gate"]
        assert (data["proposal_id"], "initial") in decided
        assert "diversity" not in data or (data["proposal_id"], "diversity") in decided
    again = subprocess.run(_run_subprocess(out, 40), capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert len(read_records(results)) == 80 and verify(ledger).valid
    assert {(r.protocol_data["commit_gate"]["proposal_id"], "initial")
            for r in read_records(results)} <= set(_decisions(ledger))


def test_a_resume_refuses_a_ledger_that_lost_decisions_or_is_gone(tmp_path):
    out = tmp_path / "run"
    ledger = out / commit_stage.LEDGER_FILE
    spec = RunSpec(gamma_merg(5), out, roster="4S1A", F=F, protocols=("sac",), tasks="arith:3",
                   rounds=1, seed=5, commit_gate=True)
    asyncio.run(execute(prepare(spec)))
    old = tmp_path / "old.sqlite"
    with Ledger(ledger) as opened:  # an old copy holding the registry and one decision
        entries = list(opened.entries())
    assert len(entries) >= 3
    conn = sqlite3.connect(ledger)
    conn.execute(f"VACUUM INTO '{old}'")
    conn.close()
    cut = sqlite3.connect(old, isolation_level=None)
    cut.execute("DROP TRIGGER entries_no_delete")
    cut.execute("DELETE FROM entries WHERE seq > 2")
    cut.execute("UPDATE meta SET value = '2' WHERE key = 'head_seq'")
    cut.execute("UPDATE meta SET value = ? WHERE key = 'head_hash'", (entries[1].entry_hash,))
    cut.close()
    assert verify(old).valid
    shutil.copy(old, ledger)
    result = _invoke(["run", "--topology", "merg", "--n", "5", "--roster", "4S1A", "--F", "1",
                      "--protocols", "sac", "--tasks", "arith:3", "--rounds", "1", "--seed", "5",
                      "--commit-gate", "--no-plots", "-o", str(out)])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "lacks" in result.output
    assert "finished queries" in result.output and "was its -wal file deleted?" in result.output
    ledger.unlink()
    gone = _invoke(["run", "--topology", "merg", "--n", "5", "--roster", "4S1A", "--F", "1",
                    "--protocols", "sac", "--tasks", "arith:3", "--rounds", "1", "--seed", "5",
                    "--commit-gate", "--no-plots", "-o", str(out)])
    assert gone.exit_code == 2 and "no such ledger" in gone.output
    assert not ledger.exists()  # never a fresh ledger beside results that rest on the old one


def test_several_seeds_report_each_seeds_ledger(tmp_path, roster_file):
    """`run --seeds 1,2 --commit-gate`: each seed's directory holds its own ledger, and the run
    reports both (it once looked for one ledger in the top directory and failed)."""
    out = tmp_path / "seeds"
    args = [a for a in RUN if a not in ("--seed", "2")]
    result = _invoke([*args, "--seeds", "1,2", "--roster", roster_file, "--json", "-o", str(out)])
    assert result.exit_code == 0, result.output
    ledgers = json.loads(result.stdout)["commit_gate"]
    assert [Path(x["ledger"]) for x in ledgers] == [out / "seed-1" / "ledger.sqlite",
                                                    out / "seed-2" / "ledger.sqlite"]
    for info in ledgers:
        entries = read_entries(info["ledger"])
        assert info["entries"] == len(entries) and info["head_hash"] == entries[-1].entry_hash
        assert info["run_decisions"] >= 2 * len(TASKS)  # two protocols, one decision each at least
    assert not (out / "ledger.sqlite").exists()


def test_the_papers_run_at_f_3_commits_with_declared_checkpoints(tmp_path):
    """Issue 45: SAC's F = 3 no longer sets the gate's f (the roster's one adversary does), and
    with distinct checkpoints declared the 4S2W1A run commits; its ledger verifies."""
    out = tmp_path / "run4"
    result = _invoke(["run", "--topology", "merg", "--n", "7", "--F", "3", "--roster", "4S2W1A",
                      "--protocols", "sac,majority", "--tasks", "arith:10", "--rounds", "2",
                      "--seed", "1", "--commit-gate", "--diversity", "checkpoint", "--no-plots",
                      "-o", str(out)])
    assert result.exit_code == 0, result.output
    report = verify(out / commit_stage.LEDGER_FILE)
    assert report.valid and report.outcomes.get("committed", 0) >= 1
    registry = Enrolment.from_body(read_entries(out / commit_stage.LEDGER_FILE)[0].body)
    assert registry.f == 1 and len(registry.registry.units) == 7
    finals = [r.protocol_data["commit_gate"] for r in read_records(out / RESULTS_FILE)]
    committed = [d.get("diversity", d["gate"]) for d in finals]
    committed = [d for d in committed if d["action"] == "commit"]
    assert committed and all(d["value_correct"] for d in committed)
