"""The openai backend end to end against serve-sim on loopback: faults, errors, identity, usage."""

from __future__ import annotations

import asyncio
import json
import socket
import urllib.request

import pytest

from protocol_runner.llm import AgentIdentity, ClientConfig, CompletionRequest, LLMClient
from protocol_runner.llm.backends import OpenAIBackend, SimulatedBackend
from protocol_runner.protocols.prompts import (
    answer_messages,
    confidence_messages,
    parse_answer,
    refine_messages,
    score_messages,
)
from protocol_runner.sim.agents import Simulator
from protocol_runner.sim.server import FAULT_HEADER, SimServer, parse_faults, running_server
from protocol_runner.tasks import load_tasks
from robustgraph.errors import BackendError, ParameterError

TASKS = load_tasks("arith:12:seed=4")
RETRY_FAST = ClientConfig(backoff_base_s=0.01, backoff_max_s=0.05, timeout_s=5.0)


def ask(task, agent="a1", model="sim-strong", seed=3, **kw) -> CompletionRequest:
    user = AgentIdentity(agent).to_user()
    return CompletionRequest(model, answer_messages(task), seed=seed, user=user, **kw)


def served(coro_factory, *, faults="", latency_s=0.0, config=RETRY_FAST):
    """Run ``coro_factory(client, server)`` with serve-sim and an openai client on one loop."""

    async def main():
        server = SimServer(Simulator(TASKS), latency_s=latency_s, faults=parse_faults(faults))
        url = await server.start()
        try:
            async with LLMClient(OpenAIBackend(url, api_key_env=None), config=config) as client:
                return await coro_factory(client, server)
        finally:
            await server.stop()

    return asyncio.run(main())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("faults", ["429:0.05x2", "500x3", "malformed", "429:0.01,500,malformed"])
def test_injected_faults_end_in_a_retried_success(faults):
    async def scenario(client, server):
        reply = await client.complete(ask(TASKS[0]))
        return reply, client.stats, server.stats

    reply, stats, seen = served(scenario, faults=faults)
    n_faults = len(parse_faults(faults))
    assert parse_answer(reply.text, TASKS[0]) is not None
    assert stats.attempts == n_faults + 1 and stats.retries == n_faults and stats.calls == 1
    assert seen.requests == n_faults + 1 and seen.completions == 1
    assert stats.rate_limited == sum(f.kind == "429" for f in parse_faults(faults))


def test_slow_reply_times_out_and_is_retried():
    config = ClientConfig(timeout_s=0.2, backoff_base_s=0.01, backoff_max_s=0.02)

    async def scenario(client, server):
        reply = await client.complete(ask(TASKS[0]))
        return reply, client.stats

    reply, stats = served(scenario, faults="slow:2", config=config)
    assert parse_answer(reply.text, TASKS[0]) is not None
    assert stats.timeouts == 1 and stats.calls == 1


def test_persistent_failure_is_one_clear_line():
    config = ClientConfig(max_retries=2, backoff_base_s=0.01, backoff_max_s=0.02)

    async def scenario(client, server):
        with pytest.raises(BackendError) as info:
            await client.complete(ask(TASKS[0]))
        return str(info.value), client.stats

    message, stats = served(scenario, faults="500x5", config=config)
    assert "\n" not in message and "gave up after 3 attempts" in message and "HTTP 500" in message
    assert "127.0.0.1" in message and "sim-strong" in message
    assert stats.calls == 0


def test_unknown_model_is_a_fast_clear_error():
    async def scenario(client, server):
        with pytest.raises(BackendError) as call_error:
            await client.complete(ask(TASKS[0], model="gpt-nope"))
        with pytest.raises(BackendError) as check_error:
            await client.check(["sim-strong", "gpt-nope"])
        await client.check(["sim-strong", "sim-weak"])
        return str(call_error.value), str(check_error.value), client.stats

    call_message, check_message, stats = served(scenario)
    assert "model not found" in call_message and "gpt-nope" in call_message
    assert stats.attempts == 1  # a 404 is not retried
    assert "gpt-nope" in check_message and "sim-strong" in check_message
    assert "\n" not in call_message + check_message


def test_unreachable_endpoint_is_one_line():
    url = f"http://127.0.0.1:{free_port()}/v1"
    config = ClientConfig(max_retries=1, backoff_base_s=0.01, backoff_max_s=0.01)

    async def scenario():
        async with LLMClient(OpenAIBackend(url, api_key_env=None), config=config) as client:
            with pytest.raises(BackendError) as check_error:
                await client.check(["sim-strong"])
            with pytest.raises(BackendError) as call_error:
                await client.complete(ask(TASKS[0]))
        return str(check_error.value), str(call_error.value)

    check_message, call_message = asyncio.run(scenario())
    assert check_message.startswith(f"cannot reach {url}") and "\n" not in check_message
    assert "cannot connect" in call_message and "\n" not in call_message


def test_http_and_in_process_simulation_agree():
    prompts = [answer_messages(TASKS[1]), confidence_messages(TASKS[2])]
    prompts.append(score_messages(TASKS[3], "Answer: 12"))
    prompts.append(refine_messages(TASKS[4], "Answer: 1", [("Answer: 2", 0.9), ("Answer: 3", 0.4)]))
    requests = [
        CompletionRequest(
            model, msgs, seed=5, user=AgentIdentity(agent, checkpoint="c").to_user(), sample=k
        )
        for msgs in prompts
        for model in ("sim-strong", "sim-weak")
        for agent in ("a1", "a2")
        for k in (0, 1)
    ]

    async def over_http(client, server):
        return [(await client.complete(r)).text for r in requests], client.stats

    async def in_process():
        async with LLMClient(SimulatedBackend(Simulator(TASKS))) as client:
            return [(await client.complete(r)).text for r in requests]

    http_texts, stats = served(over_http)
    assert http_texts == asyncio.run(in_process())
    assert stats.prompt_tokens > 0 and stats.completion_tokens > 0


def test_fault_header_and_stats_routes():
    with running_server(Simulator(TASKS)) as server:
        body = json.dumps(ask(TASKS[0]).to_openai_body()).encode()
        request = urllib.request.Request(
            server.base_url + "/chat/completions",
            data=body,
            headers={"Content-Type": "application/json", FAULT_HEADER: "429:7"},
        )
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(request)
        assert info.value.code == 429 and info.value.headers["Retry-After"] == "7"
        queue = urllib.request.Request(
            server.base_url.removesuffix("/v1") + "/sim/faults",
            data=json.dumps({"faults": "500"}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(queue) as reply:
            assert json.load(reply)["queued"] == 1
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(
                urllib.request.Request(server.base_url + "/chat/completions", data=body)
            )
        assert info.value.code == 500
        with urllib.request.urlopen(
            urllib.request.Request(server.base_url + "/chat/completions", data=body)
        ) as r:
            assert json.load(r)["usage"]["prompt_tokens"] > 0
        with urllib.request.urlopen(server.base_url.removesuffix("/v1") + "/sim/stats") as reply:
            stats = json.load(reply)
    assert stats["requests"] == 3 and stats["completions"] == 1
    assert stats["faults"] == {"429": 1, "500": 1}


def test_api_key_comes_from_the_named_variable_and_is_never_shown(monkeypatch):
    secret = "sk-test-do-not-print-0123456789"
    monkeypatch.setenv("RG_TEST_KEY", secret)
    backend = OpenAIBackend("http://127.0.0.1:9/v1", api_key_env="RG_TEST_KEY")
    assert backend._headers() == {"Authorization": f"Bearer {secret}"}
    shown = repr(backend) + json.dumps(backend.provenance())
    shown += backend.describe(ask(TASKS[0]))
    assert secret not in shown and "RG_TEST_KEY" in shown
    monkeypatch.delenv("RG_TEST_KEY")
    assert backend._headers() == {}


def test_bad_base_url_and_busy_port_are_parameter_errors():
    with pytest.raises(ParameterError):
        OpenAIBackend("localhost:8000/v1")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]

        async def start():
            await SimServer(Simulator(TASKS), port=port).start()

        with pytest.raises(ParameterError, match="cannot listen"):
            asyncio.run(start())
