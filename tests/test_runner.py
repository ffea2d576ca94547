"""The runner: certificate gate, resume, kill and resume over HTTP, end to end through serve-sim."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from protocol_runner.run.records import read_records
from protocol_runner.run.runner import RESULTS_FILE, RunSpec, run
from protocol_runner.sim.agents import Simulator
from protocol_runner.sim.profiles import resolve_config
from protocol_runner.sim.server import running_server
from protocol_runner.tasks import load_tasks
from robustgraph import io
from robustgraph.certificate.certifier import certify
from robustgraph.certificate.claims import Claim
from robustgraph.cli import main
from robustgraph.generators import gamma_merg, k_circulant

RUN = ["run", "--topology", "merg", "--n", "5", "--roster", "3S1W1A",
       "--protocols", "sac,crs,majority", "--tasks", "arith:6", "--rounds", "2", "--seed", "3",
       "--no-plots"]


def _invoke(args: list[str]):
    return CliRunner().invoke(main, args, catch_exceptions=False)


def _content(record):
    """What must not depend on scheduling, interruption or transport."""
    return (
        [[(t.answer, t.correct, t.details) for t in r] for r in record.rounds],
        [(t.answer, t.correct) for t in record.final],
        record.decision,
        {k: v for k, v in record.protocol_data.items()},
    )


def test_gate_refuses_with_the_witness_in_words(tmp_path):
    out = tmp_path / "ring"
    result = _invoke(["run", "--topology", "circulant:k=1", "--n", "6", "--F", "1",
                      "--roster", "5S1A", "--tasks", "arith:2", "-o", str(out)])
    assert result.exit_code == 1
    line = result.output.strip().splitlines()[-1]
    assert line.startswith("robustgraph: error: refusing to run SAC with F = 1")
    assert "S1 = {" in line and "2 in-neighbours outside" in line and "--allow-uncertified" in line
    assert not out.exists()


def test_a_refused_run_of_graph_free_protocols_names_them_not_sac(tmp_path):
    out = tmp_path / "ring"
    result = _invoke(["run", "--topology", "circulant:k=1", "--n", "6", "--F", "1",
                      "--roster", "5S1A", "--tasks", "arith:2", "--protocols", "crs,majority",
                      "-o", str(out)])
    assert result.exit_code == 1
    line = result.output.strip().splitlines()[-1]
    assert line.startswith("robustgraph: error: refusing to run crs, majority with F = 1")
    assert "SAC with" not in line and not out.exists()


def test_allow_uncertified_is_recorded(tmp_path):
    out = tmp_path / "ring"
    result = _invoke(["run", "--topology", "circulant:k=1", "--n", "6", "--F", "1",
                      "--roster", "5S1A", "--tasks", "arith:2", "--rounds", "1",
                      "--protocols", "sac", "--allow-uncertified", "--no-plots", "--json",
                      "-o", str(out)])
    assert result.exit_code == 0, result.output
    config = json.loads((out / "config.json").read_text())
    assert config["allow_uncertified"] is True
    assert config["gate"]["certified"] is False and config["gate"]["proven_r"] == 1
    assert "running uncertified" in result.output
    assert len(read_records(out / RESULTS_FILE)) == 2


def test_graph_file_with_its_certificate_and_with_a_foreign_one(tmp_path):
    graph, other = tmp_path / "g.json", tmp_path / "ring.json"
    io.write(gamma_merg(5), graph)
    io.write(k_circulant(5, 1), other)
    cert = tmp_path / "g.cert.json"
    certify(gamma_merg(5), Claim.tolerance(1, "sac"), engines="exhaustive").dump(cert)
    base = ["run", "--graph", str(graph), "--certificate", str(cert), "--F", "1",
            "--roster", "4S1A", "--tasks", "arith:2", "--rounds", "1", "--protocols", "majority",
            "--no-plots"]
    ok = _invoke([*base, "-o", str(tmp_path / "a")])
    assert ok.exit_code == 0, ok.output
    stored = json.loads((tmp_path / "a" / "config.json").read_text())
    assert stored["certificate"]["source"] == str(cert)
    assert stored["gate"]["certified"] is True
    base[2] = str(other)
    bad = _invoke([*base, "-o", str(tmp_path / "b")])
    assert bad.exit_code == 2 and "not a valid certificate" in bad.output


def test_output_of_another_run_is_refused(tmp_path):
    out = tmp_path / "r"
    assert _invoke([*RUN, "-o", str(out)]).exit_code == 0
    other = [*RUN[:-3], "--seed", "4", "--no-plots", "-o", str(out)]
    result = _invoke(other)
    assert result.exit_code == 2 and "holds the results of another run" in result.output


def test_resume_skips_completed_queries_and_repeats_no_call(tmp_path):
    spec = RunSpec(gamma_merg(5), tmp_path / "r", roster="3S1W1A", F=2,
                   protocols=("sac", "crs", "debate"), tasks="arith:5", rounds=2, seed=2)
    first = run(spec)
    results = tmp_path / "r" / RESULTS_FILE
    records = {r.query_id: r for r in read_records(results)}
    lines = results.read_text().splitlines(keepends=True)
    # keep a prefix of the file (CrS's records stay a prefix in task order) plus a torn line
    kept = [line for line in lines if '"protocol":"crs"' not in line][:4]
    kept += [line for line in lines if '"protocol":"crs"' in line][:2]
    results.write_text("".join(kept) + lines[-1][:40])
    again = run(spec)
    assert (first.ran, again.skipped, again.ran) == (15, 6, 9)
    assert again.stats["calls"] == 0 and again.stats["cache_hits"] > 0
    resumed = {r.query_id: r for r in read_records(results)}
    assert sorted(resumed) == sorted(records)
    assert all(_content(resumed[q]) == _content(records[q]) for q in records)


@pytest.mark.timeout(120)
def test_kill_and_resume_through_serve_sim_over_http(tmp_path):
    tasks = "arith:8"
    out = tmp_path / "http"
    world = resolve_config(None, {"math"})  # what the in-process run below uses by default
    with running_server(Simulator(load_tasks(tasks), world), latency_s=0.02) as server:
        command = [
            sys.executable, "-c", "from robustgraph.cli import main; main()",
            *RUN[:RUN.index("--tasks")], "--tasks", tasks, *RUN[RUN.index("--rounds"):],
            "--backend", "openai", "--base-url", server.base_url, "--model", "sim-strong",
            "--weak-model", "sim-weak", "--api-key-env", "", "--concurrency", "4",
            "-o", str(out),
        ]
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, env=env)
        results = out / RESULTS_FILE
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and process.poll() is None:
            if results.exists() and results.read_text().count("\n") >= 3:
                break
            time.sleep(0.02)
        process.send_signal(signal.SIGKILL)
        process.wait()
        done_at_kill = len(read_records(results))
        assert 3 <= done_at_kill < 24, "the kill must land mid-run"
        finished = subprocess.run(command, capture_output=True, text=True, env=env, timeout=90)
        assert finished.returncode == 0, finished.stderr
        stats = server.stats.as_dict()
    over_http = {r.query_id: r for r in read_records(results)}
    assert len(over_http) == 24
    # a call that completed before the kill is never repeated (only calls in flight may be)
    assert stats["repeated"] <= 4
    assert stats["completions"] == stats["distinct"] + stats["repeated"]
    # the same run on the in-process simulated backend gives the same records
    spec = RunSpec(gamma_merg(5), tmp_path / "local", roster="3S1W1A", F=2,
                   protocols=("sac", "crs", "majority"), tasks=tasks, rounds=2, seed=3)
    run(spec)
    local = {r.query_id: r for r in read_records(tmp_path / "local" / RESULTS_FILE)}
    assert sorted(local) == sorted(over_http)
    assert all(_content(local[q]) == _content(over_http[q]) for q in local)
    assert "sac" in finished.stdout.lower() and "IAA" in finished.stdout


def test_cli_usage_errors_are_one_line(tmp_path):
    for args in (
        ["run", "--roster", "4S", "-o", str(tmp_path / "x")],  # no graph
        ["run", "--topology", "merg", "--roster", "4S", "-o", str(tmp_path / "x")],  # no --n
        [*RUN[:-1], "--protocols", "sac,nope", "-o", str(tmp_path / "x")],
        ["run", "--topology", "merg", "--n", "5", "--roster", "4S", "-o", str(tmp_path / "x")],
    ):
        result = _invoke(args)
        assert result.exit_code == 2, (args, result.output)
        assert result.output.count("\n") == 1 and result.output.startswith("robustgraph: error")


def test_seeds_axis_runs_each_seed_and_pools_them(tmp_path):
    out = tmp_path / "seeds"
    base = [a for a in RUN if a not in ("--seed", "3")]
    result = _invoke([*base, "--seeds", "1-3", "--json", "-o", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [r["seed"] for r in data["run"]] == [1, 2, 3]
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["seed-1", "seed-2", "seed-3"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["run"]["seeds"] == [1, 2, 3] and summary["run"]["simulated"] is True
    assert summary["run"]["backend"] == "simulated"
    assert summary["run"]["models"] == ["sim-strong", "sim-weak"]
    assert "seeds resampled" in summary["bootstrap"]["method"]
    sac = summary["protocols"]["sac"]
    assert sac["seeds"] == [1, 2, 3] and sac["queries_per_seed"] == [6, 6, 6]
    per_seed = sac["per_seed"]["IAA"]
    assert sac["metrics"]["IAA"]["value"] == pytest.approx(sum(per_seed.values()) / 3, abs=1e-6)
    for seed in (1, 2, 3):  # each seed's own run and summary, as a one-seed run would be
        one = json.loads((out / f"seed-{seed}" / "config.json").read_text())
        assert one["run"]["seed"] == seed
    markdown = (out / "summary.md").read_text()
    assert "3 seeds (1, 2, 3" in markdown and "simulated agents: not LLM results" in markdown
    table = _invoke([*base, "--seeds", "1-3", "-o", str(out)])  # resumed: nothing re-run
    assert "0 queries run, 18 resumed" in table.stdout
    assert "simulated agents: not LLM results" in " ".join(table.stdout.split())


def test_seed_options_and_simulated_only_flags_are_checked(tmp_path):
    both = _invoke([*RUN, "--seeds", "1-2", "-o", str(tmp_path / "a")])
    assert both.exit_code == 2 and "--seed or --seeds" in both.output
    openai = _invoke(["run", "--topology", "merg", "--n", "5", "--roster", "4S1A",
                      "--backend", "openai", "--base-url", "http://127.0.0.1:9/v1",
                      "--model", "m", "--independent-agents", "-o", str(tmp_path / "b")])
    assert openai.exit_code == 2 and "--independent-agents is for the simulated" in openai.output


def test_independent_agents_change_the_simulated_world(tmp_path):
    shared = _invoke([*RUN, "--json", "-o", str(tmp_path / "shared")])
    apart = _invoke([*RUN, "--independent-agents", "--json", "-o", str(tmp_path / "apart")])
    ids = [json.loads(r.stdout)["run"]["run_id"] for r in (shared, apart)]
    assert ids[0] != ids[1]  # the simulator's parameters are part of the run's identity


@pytest.mark.parametrize(
    "module",
    ["protocol_runner.protocols.attacks", "protocol_runner.run.roster",
     "protocol_runner.run.cert_gate", "protocol_runner.run.occupancy",
     "protocol_runner.run.topology_spec", "protocol_runner.run.records",
     "protocol_runner.run.runner",
     "protocol_runner.protocols.engine", "protocol_runner.protocols.sac",
     "protocol_runner.protocols.cpwbft", "protocol_runner.protocols.crs"],
)
def test_docstring_examples(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0 and result.attempted > 0


def test_query_hooks_add_to_the_record(tmp_path):
    import asyncio

    from protocol_runner.run.runner import execute, prepare

    def votes(ctx, outcome):
        heard = {ctx.node(i): [ctx.node(j) for j, _ in ctx.inbox(i)[0]] for i in ctx.honest}
        return {"commit": {"answers": [t.answer for t in outcome.final if t.honest],
                           "heard": heard}}

    spec = RunSpec(gamma_merg(5), tmp_path / "h", roster="4S1A", F=1, protocols=("sac",),
                   tasks="arith:2", rounds=1, seed=1, placement="labels", adversary_nodes=("4",))
    asyncio.run(execute(prepare(spec), hooks=[votes]))
    for record in read_records(tmp_path / "h" / RESULTS_FILE):
        commit = record.protocol_data["commit"]
        assert commit["answers"] == [t.answer for t in record.final[:4]]
        assert commit["heard"]["0"] == ["1", "2", "3", "4"]  # merg5: node 0 hears everyone


def test_one_run_per_directory_in_both_orders_and_the_same_run_resumes(tmp_path):
    """Issue 30: ``--seeds 1-2`` into a directory holding a ``--seed 0`` run of other
    parameters wrote its seeds beside it (and kept the first run's summary); the other order
    hid the seeds. Both are refused before any work (exit 2, one line), and the same command
    resumes."""
    base = [a for a in RUN if a not in ("--seed", "3")]
    single = [*base, "--seed", "0"]
    several = [*base, "--attack", "collude", "--seeds", "1-2"]
    for first, second, name in ((single, several, "a"), (several, single, "b")):
        out = tmp_path / name
        assert _invoke([*first, "-o", str(out)]).exit_code == 0
        before = sorted(p.relative_to(out) for p in out.rglob("*"))
        refused = CliRunner().invoke(main, [*second, "-o", str(out)])
        assert refused.exit_code == 2, refused.output
        assert refused.stderr.count("\n") == 1 and "holds the results of another run" in (
            refused.stderr)
        assert sorted(p.relative_to(out) for p in out.rglob("*")) == before  # nothing written
        again = _invoke([*first, "-o", str(out)])
        assert again.exit_code == 0 and " 0 queries run" in again.stdout


def test_other_seeds_into_a_seeds_directory_are_refused_more_resume(tmp_path):
    """A directory of per-seed runs pools every seed it holds: a command without one of them
    would mix in a seed it did not ask for; one with more seeds resumes the seeds it holds."""
    base = [a for a in RUN if a not in ("--seed", "3")]
    out = str(tmp_path / "s")
    assert _invoke([*base, "--seeds", "1-2", "-o", out]).exit_code == 0
    other = CliRunner().invoke(main, [*base, "--seeds", "1,3", "-o", out])
    assert other.exit_code == 2 and "(seed-2/: run id" in other.stderr
    more = _invoke([*base, "--seeds", "1-3", "--json", "-o", out])
    assert [r["skipped"] for r in json.loads(more.stdout)["run"]] == [18, 18, 0]


ISSUE_PLACEMENT = ["run", "--topology", "circulant:k=2", "--n", "10", "--F", "1", "--roster",
                   "7S3A", "--placement", "labels", "--adversary-nodes", "1,2,8",
                   "--tasks", "arith:2", "--rounds", "1", "--protocols", "sac", "--no-plots"]


def test_a_byzantine_set_outside_the_F_local_model_is_refused_or_labelled(tmp_path):
    """Issue 30: agent 0 hears three adversaries at F = 1; SAC's Property 4.2 assumes an F-local
    Byzantine set (Def. 3.2), which the 2-robust certificate alone does not give."""
    out = tmp_path / "outside"
    refused = CliRunner().invoke(main, [*ISSUE_PLACEMENT, "-o", str(out)])
    assert refused.exit_code == 2 and refused.stderr.count("\n") == 1, refused.output
    assert ("adversaries {1, 2, 8} + faulty {}; max per neighbourhood 3 > F = 1 (agent 0)"
            in refused.stderr) and not out.exists()
    allowed = _invoke([*ISSUE_PLACEMENT, "--allow-uncertified", "-o", str(out)])
    assert allowed.exit_code == 0, allowed.output
    gate = json.loads((out / "summary.json").read_text())["run"]["gate"]
    assert gate["certified"] is False and gate["f_local"] is False
    assert gate["byzantine"] == {"adversaries": ["1", "2", "8"], "faulty": [], "max_heard": 3,
                                 "node": "0", "F": 1, "f_local": False}
    assert "outside the F-local model" in (out / "summary.md").read_text()


def test_the_papers_roster_counts_weak_agents_in_F_and_the_summary_names_the_set(tmp_path):
    """Issue 28 item 7: the SAC paper's F = 3 for 4S2W1A counts the 2 faulty (weak) agents
    with the adversary (Def. 3.1, Table 1), so F defaults to 3 and needs a 4-robust graph."""
    out = tmp_path / "paper"
    done = _invoke(["run", "--topology", "merg", "--n", "7", "--roster", "4S2W1A", "--tasks",
                    "arith:2", "--rounds", "1", "--protocols", "sac", "--seed", "1",
                    "--no-plots", "--json", "-o", str(out)])
    gate = json.loads(done.stdout)["run"]["gate"]
    assert (gate["F"], gate["needed_r"], gate["certified"]) == (3, 4, True)
    assert len(gate["byzantine"]["adversaries"]) == 1 and len(gate["byzantine"]["faulty"]) == 2
    assert re.search(r"byzantine set checked: adversaries \{\d\} \+ faulty \{\d, \d\}; max per "
                     r"neighbourhood [0-3] <= F = 3", (out / "summary.md").read_text())
    ring = CliRunner().invoke(main, ["run", "--topology", "circulant:k=2", "--n", "7",
                                     "--roster", "4S2W1A", "--tasks", "arith:2",
                                     "-o", str(tmp_path / "ring")])
    assert ring.exit_code == 1 and "F = 3: the graph is not 4-robust" in ring.stderr
