"""robustgraph run --commit-gate: votes from final answers, ledger, both decisions, resume."""

from __future__ import annotations

import asyncio
import doctest
import json
from collections import Counter

import pytest
from click.testing import CliRunner

from protocol_runner import commit_stage
from protocol_runner.answers import answer_key, is_correct
from protocol_runner.commit import evidence_hash, verify
from protocol_runner.commit.ledger import read_entries
from protocol_runner.records import read_records
from protocol_runner.runner import RESULTS_FILE, RunSpec, execute, prepare
from protocol_runner.tasks import load_tasks
from robustgraph.cli import main
from robustgraph.generators import gamma_merg

F = 1
RUN = ["run", "--topology", "merg", "--n", "5", "--roster", "4S1A", "--F", str(F),
       "--placement", "labels", "--adversary-nodes", "4", "--attack", "echo-then-flip:k=1",
       "--protocols", "sac,majority",
       "--tasks", "arith:4", "--rounds", "1", "--seed", "2", "--no-plots", "--commit-gate"]


TASKS = load_tasks("arith:4")


def _invoke(args: list[str]):
    return CliRunner().invoke(main, args, catch_exceptions=False)


def _decisions(path) -> dict[str, dict]:
    """Gate decisions in a ledger, by proposal id (each proposal must appear once)."""
    bodies = [e.body for e in read_entries(path) if e.body["kind"] == "decision"]
    ids = Counter(b["proposal_id"] for b in bodies)
    assert max(ids.values()) == 1, ids
    return {b["proposal_id"]: b for b in bodies}


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("gate") / "results"
    result = _invoke([*RUN, "--json", "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out, json.loads(result.stdout)


def test_ledger_verifies_and_holds_one_decision_per_query(small_run):
    out, data = small_run
    ledger = out / commit_stage.LEDGER_FILE
    report = verify(ledger)
    assert report.valid, report.reason
    assert sum(report.outcomes.values()) == 8  # 4 tasks x 2 protocols
    assert data["commit_gate"]["run_decisions"] == 8
    assert data["commit_gate"]["head_hash"] == report.head_hash
    cli = _invoke(["ledger", "verify", str(ledger)])
    assert cli.exit_code == 0 and "valid, 9 entries" in cli.output  # registry + 8 decisions


def test_every_record_carries_the_gate_and_the_plain_quorum_decision(small_run):
    out, data = small_run
    decided = _decisions(out / commit_stage.LEDGER_FILE)
    records = read_records(out / RESULTS_FILE)
    assert len(records) == 8
    for record in records:
        gate_data = record.protocol_data["commit_gate"]
        assert gate_data["proposal_id"] == f"{record.run_id}/{record.query_id}"
        assert gate_data["f"] == F and gate_data["votes"] == 4  # the honest agents
        body = decided[gate_data["proposal_id"]]
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
        body = decided[record.protocol_data["commit_gate"]["proposal_id"]]
        evidence = {v["voter"]: v["evidence_hash"] for v in body["votes"]}
        if record.protocol == "majority":  # every agent adopted the vote's result: one witness
            assert len(set(evidence.values())) == 1
            assert record.protocol_data["commit_gate"]["gate"]["outcome"] == "correlated_quorum"
            continue
        before = {t.node: t.answer for t in record.rounds[-2]}  # read in the last round
        graph = gamma_merg(5)
        for turn in record.honest_final:
            heard = [str(graph.labels[j]) for j in graph.in_neighbors[turn.agent]]
            items = [f"weights {commit_stage.UNSHARED}{turn.node}"]
            items += [f"message from {j}: {before[j]}" for j in heard]
            assert evidence[turn.node] == evidence_hash(items)
            assert evidence[turn.node] != evidence_hash([turn.answer])


def test_summary_has_the_rates_side_by_side(small_run):
    out, data = small_run
    records = read_records(out / RESULTS_FILE)
    summary = json.loads((out / "summary.json").read_text())
    assert summary == data["summary"]
    for protocol in ("sac", "majority"):
        mine = [r.protocol_data["commit_gate"] for r in records if r.protocol == protocol]
        rates = summary["protocols"][protocol]["commit_gate"]
        for rule in ("gate", "plain"):
            actions = Counter(d[rule]["action"] for d in mine)
            for metric, action in (("commit", "commit"), ("escalation", "escalate"),
                                   ("abort", "abort")):
                assert rates[rule][metric]["value"] == pytest.approx(actions[action] / len(mine))
            wrong = [not d[rule]["value_correct"] for d in mine if d[rule]["action"] == "commit"]
            false = rates[rule]["false_commit"]
            assert (false is None) == (not wrong)
            if wrong:
                assert false["value"] == pytest.approx(sum(wrong) / len(wrong))
                assert false["n"] == len(wrong)
    markdown = (out / "summary.md").read_text()
    assert "## Commit gate (f = F = 1, quorum 2f+1 = 3)" in markdown
    assert "| sac | gate |" in markdown and "| sac | plain 2f+1 quorum |" in markdown


def test_no_commit_section_without_the_gate(tmp_path):
    out = tmp_path / "plain"
    args = [a for a in RUN if a != "--commit-gate"]
    assert _invoke([*args, "-o", str(out)]).exit_code == 0
    assert "Commit gate" not in (out / "summary.md").read_text()
    summary = json.loads((out / "summary.json").read_text())
    assert "commit_gate" not in summary["protocols"]["sac"]
    assert not (out / commit_stage.LEDGER_FILE).exists()


def test_resume_appends_no_duplicate_decisions(tmp_path):
    ledger = tmp_path / "elsewhere.sqlite"
    spec = RunSpec(gamma_merg(5), tmp_path / "r", roster="4S1A", F=F, protocols=("sac",),
                   tasks="arith:4", rounds=1, seed=5, commit_gate=True, ledger=ledger)
    asyncio.run(execute(prepare(spec)))
    results = tmp_path / "r" / RESULTS_FILE
    first = {r.query_id: r.protocol_data for r in read_records(results)}
    entries = len(read_entries(ledger))
    assert entries == 5 and not (tmp_path / "r" / commit_stage.LEDGER_FILE).exists()

    done = asyncio.run(execute(prepare(spec)))  # everything finished: nothing to decide
    assert done.ran == 0 and len(read_entries(ledger)) == entries

    # killed after two decisions reached the ledger but before their records were written
    lines = results.read_text().splitlines(keepends=True)
    results.write_text("".join(lines[:2]))
    again = asyncio.run(execute(prepare(spec)))
    assert again.ran == 2
    assert len(read_entries(ledger)) == entries and verify(ledger).valid
    assert {r.query_id: r.protocol_data for r in read_records(results)} == first


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


def test_gate_refuses_a_correlated_quorum_that_plain_quorum_commits(tmp_path):
    roster, world = tmp_path / "roster.yaml", tmp_path / "world.json"
    roster.write_text(SHARED_ROSTER)
    world.write_text(json.dumps(SHARED_WORLD))
    out = tmp_path / "shared"
    result = _invoke(["run", "--topology", "complete", "--n", "4", "--roster", str(roster),
                      "--F", "1", "--protocols", "sac", "--tasks", "arith:5", "--rounds", "0",
                      "--sim-config", str(world), "--seed", "3", "--no-plots", "--commit-gate",
                      "-o", str(out)])
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
        assert any("1 independence units (need f+1 = 2)" in line for line in gate["reasons"])
    rates = json.loads((out / "summary.json").read_text())["protocols"]["sac"]["commit_gate"]
    assert rates["plain"]["commit"]["value"] == 1.0
    assert rates["plain"]["false_commit"]["value"] == 1.0
    assert rates["gate"]["commit"]["value"] == 0.0 and rates["gate"]["false_commit"] is None
    assert rates["gate"]["escalation"]["value"] == 1.0
    assert verify(out / commit_stage.LEDGER_FILE).outcomes == {"correlated_quorum": 5}


@pytest.mark.parametrize("args, message", [
    (["--F", "2", "--roster", "3S2A"], "--commit-gate: f = F = 2 needs n >= 3f+1 = 7 agents"),
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
