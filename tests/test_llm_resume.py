"""Resume: a client process killed mid-run restarts and repeats no completed call; serve-sim CLI."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from click.testing import CliRunner

from protocol_runner.llm import AgentIdentity, CompletionRequest
from protocol_runner.protocols.prompts import answer_messages
from protocol_runner.sim.agents import Simulator
from protocol_runner.sim.server import running_server
from protocol_runner.tasks import load_tasks
from robustgraph.cli import main

SPEC = "arith:20:seed=9"
CONCURRENCY = 4

CLIENT = f"""
import asyncio, json, sys
from protocol_runner.llm import AgentIdentity, ClientConfig, CompletionRequest, LLMClient
from protocol_runner.llm import ResponseCache
from protocol_runner.llm.backends import OpenAIBackend
from protocol_runner.protocols.prompts import answer_messages
from protocol_runner.tasks import load_tasks

url, cache_path = sys.argv[1], sys.argv[2]
requests = [
    CompletionRequest(model, answer_messages(task), seed=2, user=AgentIdentity(f"a{{i}}").to_user())
    for task in load_tasks({SPEC!r})
    for i, model in enumerate(("sim-strong", "sim-weak", "sim-strong"))
]

async def run():
    config = ClientConfig(max_concurrency={CONCURRENCY})
    backend = OpenAIBackend(url, api_key_env=None)
    async with LLMClient(backend, cache=ResponseCache(cache_path), config=config) as client:
        replies = await asyncio.gather(*(client.complete(r) for r in requests))
    print(json.dumps({{"texts": [r.text for r in replies], "stats": client.stats.as_dict()}}))

asyncio.run(run())
"""


def expected_texts() -> list[str]:
    """The replies computed in-process by the simulator from the very same request bodies."""
    sim = Simulator(load_tasks(SPEC))
    texts = []
    for task in load_tasks(SPEC):
        for i, model in enumerate(("sim-strong", "sim-weak", "sim-strong")):
            request = CompletionRequest(
                model, answer_messages(task), seed=2, user=AgentIdentity(f"a{i}").to_user()
            )
            texts.append(sim.respond(request.to_openai_body())["choices"][0]["message"]["content"])
    return texts


def run_client(url: str, cache: Path) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", CLIENT, url, str(cache)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_killed_run_resumes_without_repeating_calls(tmp_path):
    cache = tmp_path / "cache.sqlite"
    total = len(expected_texts())
    with running_server(Simulator(load_tasks(SPEC)), latency_s=0.05) as server:
        proc = subprocess.Popen(
            [sys.executable, "-c", CLIENT, server.base_url, str(cache)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            deadline = time.monotonic() + 60
            while server.stats.completions < 20 and time.monotonic() < deadline:
                assert proc.poll() is None, proc.stderr.read().decode()
                time.sleep(0.01)
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdout.close()
            proc.stderr.close()
        assert proc.returncode == -signal.SIGKILL
        before = server.stats.completions
        assert 20 <= before < total

        resumed = run_client(server.base_url, cache)
        assert resumed["texts"] == expected_texts()
        seen = server.stats.as_dict()
        # only calls in flight at the kill can be repeated: at most the client's concurrency
        assert seen["distinct"] == total
        assert seen["repeated"] <= CONCURRENCY
        assert seen["completions"] == total + seen["repeated"]
        assert resumed["stats"]["cache_hits"] + resumed["stats"]["calls"] == total
        assert resumed["stats"]["cache_hits"] >= before - CONCURRENCY

        again = run_client(server.base_url, cache)  # a new client on the same file: all hits
        assert again["texts"] == resumed["texts"]
        assert again["stats"]["cache_hits"] == total and again["stats"]["calls"] == 0
        assert server.stats.completions == seen["completions"]


def test_serve_sim_command_serves_and_stops_on_sigterm():
    exe = Path(sys.executable).with_name("robustgraph")
    proc = subprocess.Popen(
        [str(exe), "serve-sim", "--port", "0", "--tasks", "arith:5", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        assert line, proc.stderr.read()
        info = json.loads(line)  # the ready message is one line of JSON
        assert info["tasks"] == 5 and info["models"] == ["sim-strong", "sim-weak"]
        with urllib.request.urlopen(info["base_url"] + "/models") as reply:
            assert [m["id"] for m in json.load(reply)["data"]] == info["models"]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
        assert "stopped after 0 completions" in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()


def test_serve_sim_errors_are_one_line(tmp_path):
    runner = CliRunner()
    for args in (
        ["--faults", "404"],
        ["--tasks", "nope:3"],
        ["--sim-config", str(tmp_path / "x.json")],
    ):
        result = runner.invoke(main, ["serve-sim", "--port", "0", *args])
        assert result.exit_code == 2, result.output
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("robustgraph: error:")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"profiles": {"mid": {"accuracy": 2}}}))
    result = runner.invoke(main, ["serve-sim", "--sim-config", str(bad)])
    assert result.exit_code == 2 and "mid.accuracy" in result.stderr
