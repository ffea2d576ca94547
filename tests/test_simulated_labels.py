"""Simulated results say so on every path (issue 28): serve-sim identifies itself, the openai
backend records what it talked to, and every file a run through it writes carries the label."""

from __future__ import annotations

import csv
import io
import json

from click.testing import CliRunner

from protocol_runner.analysis.provenance import SIMULATED_BANNER
from protocol_runner.run.runner import CONFIG_FILE, RunSpec, run
from protocol_runner.sim.agents import Simulator
from protocol_runner.sim.server import running_server
from protocol_runner.tasks import load_tasks
from robustgraph.cli import main
from robustgraph.generators import complete

TASKS = "commonsense30:3:offset=14"  # one true/false item and two choice items
TEXT_FILES = ("summary.md", "table1.md", "table1.tex", "table1.csv")


def _csv_labels(path):
    return {row["label"] for row in csv.DictReader(io.StringIO(path.read_text()))}


def test_run_through_serve_sim_is_labelled_simulated_in_every_file(tmp_path):
    out = tmp_path / "via-http"
    with running_server(Simulator(load_tasks(TASKS))) as server:
        result = CliRunner().invoke(main, [
            "run", "--topology", "complete", "--n", "5", "--roster", "3S1W1A",
            "--protocols", "sac,cpwbft", "--tasks", TASKS, "--rounds", "1", "--seed", "2",
            "--backend", "openai", "--base-url", server.base_url, "--model", "sim-strong",
            "--weak-model", "sim-weak", "--api-key-env", "",
            "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert SIMULATED_BANNER in " ".join(result.output.split())  # the terminal table (wrapped)
    backend = json.loads((out / CONFIG_FILE).read_text())["backend"]
    assert backend["backend"] == "openai" and backend["base_url"] == server.base_url
    assert backend["simulated"] is True and backend["replies"] == backend["simulated_replies"] > 0
    assert backend["owned_by"] == {"sim-strong": "robustgraph-simulated",
                                   "sim-weak": "robustgraph-simulated"}
    assert set(backend["served_models"]) >= {"sim-strong", "sim-weak"}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["run"]["simulated"] is True and summary["run"]["backend"] == "openai"
    for name in TEXT_FILES:
        assert SIMULATED_BANNER.lower() in (out / name).read_text().lower(), name
    assert _csv_labels(out / "table1.csv") == {SIMULATED_BANNER}
    svgs = sorted(out.glob("*.svg"))
    assert svgs  # the figures, their banner in the SVG text
    for svg in svgs:
        assert "simulated agents" in svg.read_text(), svg.name


def test_in_process_table1_csv_carries_the_label(tmp_path):
    from protocol_runner.analysis.report import write_summary

    out = tmp_path / "in-process"
    run(RunSpec(complete(5), out, roster="3S1W1A", F=2, protocols=("majority",), tasks=TASKS,
                rounds=1, seed=1))
    write_summary(out, plots=False)
    assert _csv_labels(out / "table1.csv") == {SIMULATED_BANNER}


def test_reproduce_through_serve_sim_says_simulated(tmp_path):
    from dataclasses import replace

    from protocol_runner.analysis.reproduce import TABLES, reproduce
    from protocol_runner.analysis.reproduce_view import table_json, table_text
    from protocol_runner.run.runner import BackendSpec

    one = TABLES["table1"]  # one cell: its MATH column on the complete graph, one round
    spec = replace(one, columns=one.columns[:1], graphs=(("complete", 4),), T=1)
    with running_server(Simulator(load_tasks("arith:2"))) as server:
        backend = BackendSpec(kind="openai", base_url=server.base_url, api_key_env=None,
                              strong_model="sim-strong", weak_model="sim-weak")
        result = reproduce(spec, tmp_path / "repro", seeds=(1,), tasks=("arith:2",),
                           backend=backend, resamples=50)
    assert result.backend == "openai"
    assert SIMULATED_BANNER in table_text(result) and table_json(result)["simulated"] is True


def test_sweep_summary_says_simulated():
    from protocol_runner.sweep.execute import summary_markdown

    summary = {"name": "s", "varying": [], "counts": {"cells": 0, "done": 0, "failed": 0},
               "cells": [], "simulated": True}
    assert "Simulated agents: not LLM results." in summary_markdown(summary)
    assert "not LLM" not in summary_markdown({**summary, "simulated": False})


def test_an_endpoint_that_does_not_declare_itself_is_recorded_as_not_simulated():
    import asyncio

    from aiohttp import web

    from protocol_runner.llm import ChatMessage, CompletionRequest
    from protocol_runner.llm.backends import OpenAIBackend

    async def models(request):
        return web.json_response({"data": [{"id": "m", "owned_by": "someone"}]})

    async def chat(request):
        return web.json_response({"id": "x", "model": "m", "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "Answer: 4"},
             "finish_reason": "stop"}], "usage": {"prompt_tokens": 3, "completion_tokens": 2}})

    async def scenario():
        app = web.Application()
        app.router.add_get("/v1/models", models)
        app.router.add_post("/v1/chat/completions", chat)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = runner.addresses[0][1]
        backend = OpenAIBackend(f"http://127.0.0.1:{port}/v1", api_key_env=None)
        try:
            await backend.check(["m"])
            await backend.complete(CompletionRequest("m", (ChatMessage("user", "2+2?"),)))
            return backend.provenance()
        finally:
            await backend.aclose()
            await runner.cleanup()

    record = asyncio.run(scenario())
    assert record["simulated"] is False and record["owned_by"] == {"m": "someone"}
    assert (record["replies"], record["simulated_replies"]) == (1, 0)
