"""run --commit-gate --reexecutor-model on the openai backend, against serve-sim on loopback:
a model that reproduces (commit), garbage and failed replies (no commit), refusals, an
unreachable endpoint mid-run and the resume after it."""

from __future__ import annotations

import asyncio
import doctest
import json
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner

from protocol_runner.commit import evidence_hash, verify
from protocol_runner.commit import reexec as commit_reexec
from protocol_runner.commit import stage as commit_stage
from protocol_runner.commit.ledger import read_entries
from protocol_runner.llm import CompletionRequest, ResponseCache, cache_key
from protocol_runner.protocols.prompts import answer_messages
from protocol_runner.run.records import read_records
from protocol_runner.run.runner import CACHE_FILE, RESULTS_FILE
from protocol_runner.sim.agents import SimConfig, SimRequestError, Simulator
from protocol_runner.sim.server import running_server
from protocol_runner.sweep.execute import run_cell
from protocol_runner.sweep.spec import SpecError, parse_spec
from protocol_runner.tasks import load_tasks
from robustgraph.cli import main

TASKS = "arith:4"
SEED = 2
# Voters and the auditor always right: every SAC quorum passes tests 1-3 and reaches test 4.
WORLD = {"profiles": {"strong": {"accuracy": 1.0},
                      "auditor": {"base": "strong", "accuracy": 1.0},
                      "garbage": {"base": "strong"}, "broken": {"base": "strong"}}}
WHO = "agent=reexecutor;ckpt={model};corpus=reexecutor-snapshot"


class Endpoint(Simulator):
    """serve-sim's simulator, recording the re-executor's requests; ``sim-garbage`` replies
    with text that holds no answer, ``sim-broken`` with HTTP 500. ``down_at``: on that
    re-executor request the server stops listening (an endpoint gone mid-run)."""

    def __init__(self, *, down_at: int | None = None) -> None:
        super().__init__(load_tasks(TASKS), SimConfig.from_mapping(WORLD))
        self.reexecutions: list[dict] = []
        self.down_at = down_at
        self.server = None

    def respond(self, body):
        if str(body.get("user", "")).startswith("agent=reexecutor"):
            self.reexecutions.append(body)
            if len(self.reexecutions) == self.down_at:
                self.stopping = asyncio.get_running_loop().create_task(self.server.stop())
                raise SimRequestError(500, "going down")
        if body.get("model") == "sim-broken":
            raise SimRequestError(500, "the auditor model crashed")
        reply = super().respond(body)
        if body.get("model") == "sim-garbage":
            reply["choices"][0]["message"]["content"] = "Lorem ipsum; no number here."
        return reply


@contextmanager
def serving(endpoint: Endpoint, **options):
    """``running_server`` with the endpoint told its server (for ``down_at``)."""
    with running_server(endpoint, **options) as server:
        endpoint.server = server
        yield server


# Four sim-strong agents that declare distinct checkpoints (else the commit gate counts the
# copies of one model as one independence unit), the adversary on node 4.
ROSTER = "agents:\n" + "".join(f"  - {{node: {i}, role: strong, checkpoint: ck-{i}}}\n"
                                for i in range(4)) + "  - {node: 4, role: adversary}\n"


def _run_args(url: str, out, *extra: str) -> list[str]:
    roster = Path(out).parent / f"{Path(out).name}-roster.yaml"
    roster.write_text(ROSTER)
    return ["run", "--topology", "merg", "--n", "5", "--roster", str(roster), "--F", "1",
            "--protocols", "sac",
            "--tasks", TASKS, "--rounds", "1", "--seed", str(SEED), "--backend", "openai",
            "--base-url", url, "--model", "sim-strong", "--api-key-env", "",
            "--max-retries", "1", "--timeout", "5", "--commit-gate", "--no-plots", "--json",
            "-o", str(out), *extra]


def _invoke(args: list[str]):
    return CliRunner().invoke(main, args, catch_exceptions=False)


def _decisions(path) -> dict[str, dict]:
    bodies = [e.body for e in read_entries(path) if e.body["kind"] == "decision"]
    assert max(Counter(b["proposal_id"] for b in bodies).values()) == 1
    return {b["proposal_id"]: b for b in bodies}


def _gated_run(tmp_path, model: str, *, baseline: bool = False):
    """A gated run re-executed by ``model``; with ``baseline``, first the same run with the
    simulated re-executor in another directory. The output, the JSON of each run, and the
    endpoint."""
    endpoint = Endpoint()
    data = []
    with serving(endpoint) as server:
        if baseline:
            result = _invoke(_run_args(server.base_url, tmp_path / "simulated"))
            assert result.exit_code == 0, result.output
            data.append(json.loads(result.stdout))
        result = _invoke(_run_args(server.base_url, tmp_path / "out",
                                   "--reexecutor-model", model))
        assert result.exit_code == 0, result.output
        data.append(json.loads(result.stdout))
        assert server.stats.as_dict()["completions"] == sum(d["run"]["client"]["calls"]
                                                            for d in data)
    return tmp_path / "out", data, endpoint


def test_a_reexecutor_model_that_reproduces_the_value_lets_it_commit(tmp_path):
    out, (simulated, data), endpoint = _gated_run(tmp_path, "sim-auditor", baseline=True)
    records = read_records(out / RESULTS_FILE)
    assert len(records) == 4
    decided = _decisions(out / commit_stage.LEDGER_FILE)
    for record in records:
        gate = record.protocol_data["commit_gate"]["gate"]
        assert (gate["outcome"], gate["value_correct"]) == ("committed", True)
        body = decided[record.protocol_data["commit_gate"]["proposal_id"]]
        snapshot = evidence_hash(["weights sim-auditor",
                                  f"document reexecutor-snapshot/{record.task_id}"])
        assert body["reexecution"]["snapshot_hash"] == snapshot
        assert body["reexecution"]["value_hash"] == body["value_hash"]
    # one re-execution per quorum: the bare task prompt, its own identity, model sim-auditor
    tasks = {t.id: t for t in load_tasks(TASKS)}
    asked = sorted(m["content"] for b in endpoint.reexecutions for m in b["messages"])
    assert asked == sorted(m.content for r in records for m in answer_messages(tasks[r.task_id]))
    assert {(b["model"], b["user"]) for b in endpoint.reexecutions} == {
        ("sim-auditor", WHO.format(model="sim-auditor"))}
    assert len(endpoint.reexecutions) == 4
    # the ledger names the re-executor; the chain and every commit verify
    registry = [e.body for e in read_entries(out / commit_stage.LEDGER_FILE)
                if e.body["kind"] == "registry"]
    assert [r["reexecutor"] for r in registry] == [{
        "checkpoint": "sim-auditor", "lineage": "reexecutor-lineage",
        "corpora": ["reexecutor-snapshot"]}]
    assert verify(out / commit_stage.LEDGER_FILE).valid
    # counted: the run's backend calls (all served, above) and each query's cost hold its
    # re-execution, one call more than with the simulated re-executor ...
    client = data["run"]["client"]
    assert client["calls"] == simulated["run"]["client"]["calls"] + 4
    before = {r.query_id: r.cost for r in read_records(tmp_path / "simulated" / RESULTS_FILE)}
    for record in records:
        assert record.cost.llm_calls == before[record.query_id].llm_calls + 1
        assert record.cost.prompt_tokens > before[record.query_id].prompt_tokens
    # ... which never reach the response cache
    cache = ResponseCache(out / CACHE_FILE)
    try:
        assert len(cache) == client["calls"] - 4
        for body in endpoint.reexecutions:
            request = CompletionRequest.chat("sim-auditor", [
                (m["role"], m["content"]) for m in body["messages"]], seed=SEED,
                user=body["user"])
            assert cache.get(cache_key("openai", request)) is None
    finally:
        cache.close()


@pytest.mark.parametrize("model, detail", [
    ("sim-garbage", "re-executor sim-garbage gave no parseable answer: "
                    "'Lorem ipsum; no number here.'"),
    ("sim-broken", "re-executor sim-broken failed: "),
])
def test_a_reexecutor_without_a_value_means_no_commit(tmp_path, model, detail):
    out, _, endpoint = _gated_run(tmp_path, model)
    records = read_records(out / RESULTS_FILE)
    assert len(records) == 4 and len(endpoint.reexecutions) == 4 * (1 + (model == "sim-broken"))
    decided = _decisions(out / commit_stage.LEDGER_FILE)
    for record in records:
        data = record.protocol_data["commit_gate"]
        assert data["plain"]["action"] == "commit"  # the quorum was there
        assert (data["gate"]["outcome"], data["gate"]["action"]) == ("non_reproducible", "abort")
        reasons = [r for r in data["gate"]["reasons"] if "produced no value" in r]
        assert len(reasons) == 1 and detail in reasons[0]
        rerun = decided[data["proposal_id"]]["reexecution"]
        assert rerun["value_hash"] is None and detail in rerun["detail"]
    assert verify(out / commit_stage.LEDGER_FILE).valid


@pytest.mark.parametrize("model, roster, backend, message", [
    ("ck-audit", True, "openai", "--reexecutor-model 'ck-audit' is the checkpoint of agent 1"),
    ("sim-strong", False, "openai",
     "--reexecutor-model 'sim-strong' is the model agent 0 (node 0) runs on"),
    ("a;b", False, "openai", "may not contain ';'"),
    ("sim-auditor", False, "simulated", "--reexecutor-model needs --backend openai"),
])
def test_refusals_are_one_line_exit_2_and_write_nothing(tmp_path, model, roster, backend,
                                                         message):
    args = _run_args("http://127.0.0.1:9/v1", tmp_path / "never", "--reexecutor-model", model)
    args[args.index("openai")] = backend
    if backend != "openai":  # the simulated backend refuses --base-url first
        at = args.index("--base-url")
        del args[at:at + 2]
    if roster:  # agent 1 declares the checkpoint the re-executor would use
        path = tmp_path / "roster.yaml"
        path.write_text("agents:\n" + "".join(
            f"  - {{node: '{i}', role: strong, model: sim-strong"
            f"{', checkpoint: ck-audit' if i == 1 else ''}}}\n" for i in range(4))
            + "  - {node: '4', role: adversary, attack: fixed}\n")
        args[args.index("--roster") + 1] = str(path)
    result = _invoke(args)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.output
    assert not (tmp_path / "never").exists()


def test_without_the_gate_the_option_is_refused(tmp_path):
    args = [a for a in _run_args("http://127.0.0.1:9/v1", tmp_path / "never",
                                 "--reexecutor-model", "sim-auditor") if a != "--commit-gate"]
    result = _invoke(args)
    assert result.exit_code == 2 and "goes with --commit-gate" in result.output


def test_endpoint_gone_mid_run_stops_the_run_and_resume_finishes_it(tmp_path):
    out = tmp_path / "out"
    endpoint = Endpoint(down_at=3)  # concurrency 1: queries 1 and 2 finish, the third stops
    with serving(endpoint) as server:
        port = server.port
        result = _invoke(_run_args(server.base_url, out, "--reexecutor-model", "sim-auditor",
                                   "--concurrency", "1"))
    assert result.exit_code == 2 and not result.stdout
    errors = [line for line in result.stderr.splitlines() if "certify:" not in line]  # progress
    assert len(errors) == 1 and errors[0].startswith("robustgraph: error: "), result.stderr
    assert "re-execution by 'sim-auditor' failed and the endpoint is unusable" in errors[0]
    assert "cannot reach" in errors[0]
    done = read_records(out / RESULTS_FILE)
    assert len(done) == 2  # finished queries kept; the third was not decided
    assert len(_decisions(out / commit_stage.LEDGER_FILE)) == 2

    back = Endpoint()  # the endpoint is back, same address: the same run resumes
    with serving(back, port=port) as server:
        again = _invoke(_run_args(server.base_url, out, "--reexecutor-model", "sim-auditor",
                                  "--concurrency", "1"))
    assert again.exit_code == 0, again.output
    run = json.loads(again.stdout)["run"]
    assert (run["skipped"], run["ran"]) == (2, 2)
    assert run["client"]["cache_hits"] > 0  # the third query's voter calls, from the cache
    assert len(back.reexecutions) == 2  # decided queries are never re-executed again
    records = read_records(out / RESULTS_FILE)
    assert len(records) == 4
    assert all(r.protocol_data["commit_gate"]["gate"]["outcome"] == "committed" for r in records)
    assert len(_decisions(out / commit_stage.LEDGER_FILE)) == 4
    assert verify(out / commit_stage.LEDGER_FILE).valid


def test_sweep_backends_carry_the_reexecutor_model(tmp_path):
    endpoint = Endpoint()
    roster = tmp_path / "roster.yaml"
    roster.write_text(ROSTER)
    with serving(endpoint) as server:
        backend = {"kind": "openai", "base_url": server.base_url, "model": "sim-strong",
                   "api_key_env": None, "reexecutor_model": "sim-auditor"}
        spec = {"grid": {"topology": "merg", "n": 5, "roster": str(roster), "tasks": TASKS,
                         "rounds": 1, "backend": backend},
                "protocols": ["sac"], "options": {"commit_gate": True, "plots": False}}
        (cell,) = parse_spec(spec).cells()
        execution = {"concurrency": 8, "certify_time_limit": 60, "plots": False,
                     "resamples": 100}
        run_cell(cell.params, str(tmp_path / cell.id), execution)
    assert len(endpoint.reexecutions) == 4
    assert {b["model"] for b in endpoint.reexecutions} == {"sim-auditor"}
    with pytest.raises(SpecError, match=r"grid.backend\[0\].reexecutor_model: goes with"):
        parse_spec({**spec, "options": {}})
    with pytest.raises(SpecError, match="reexecutor_model: expected a non-empty string"):
        parse_spec({**spec, "grid": {**spec["grid"],
                                     "backend": {**backend, "reexecutor_model": 3}}})


def test_docstring_examples():
    outcome = doctest.testmod(commit_reexec)
    assert outcome.failed == 0 and outcome.attempted > 0


def test_a_correlated_quorum_costs_no_reexecution_until_the_diversity_round(tmp_path):
    endpoint = Endpoint()
    with serving(endpoint) as server:
        args = _run_args(server.base_url, tmp_path / "out", "--reexecutor-model", "sim-auditor")
        args[args.index("sac")] = "majority"
        result = _invoke(args)
    assert result.exit_code == 0, result.output
    records = read_records(tmp_path / "out" / RESULTS_FILE)
    for record in records:  # one copied decision: escalated without asking the re-executor
        data = record.protocol_data["commit_gate"]
        assert data["gate"]["outcome"] == "correlated_quorum"
        assert data["diversity"]["outcome"] == "committed"
    assert len(records) == len(endpoint.reexecutions) == 4  # for the diversity decisions only
