"""The cases of issue 17, end to end through the openai backend and the shared client: an origin
reachable only through a proxy, gzip replies, a 307 on /v1/models, a reply that trickles in for
longer than the timeout; and 401/403 as one fatal line, 429 after its Retry-After."""

from __future__ import annotations

import asyncio
import gzip
import json
import time

import orjson
import pytest
from aiohttp import web
from click.testing import CliRunner
from http_fakes import ForwardProxy, Scripted, in_thread

from protocol_runner.llm import AgentIdentity, ClientConfig, CompletionRequest, LLMClient
from protocol_runner.llm.backends import OpenAIBackend
from protocol_runner.protocols.prompts import answer_messages, parse_answer
from protocol_runner.run.runner import BackendSpec
from protocol_runner.sim.agents import Simulator
from protocol_runner.sim.server import SimServer, parse_faults, running_server
from protocol_runner.tasks import load_tasks
from robustgraph.cli import main
from robustgraph.errors import BackendError

TASKS = load_tasks("arith:6:seed=5")
ORIGIN = "origin.invalid"  # RFC 6761: resolves nowhere, so only the proxy can reach it
FAST = {"backoff_base_s": 0.01, "backoff_max_s": 0.02}


def ask(task=TASKS[0], model="sim-strong") -> CompletionRequest:
    return CompletionRequest(
        model, answer_messages(task), seed=3, user=AgentIdentity("a1").to_user()
    )


async def complete_and_check(url: str, *, config: ClientConfig | None = None, **backend):
    """``check`` then one ``complete`` at ``url``: the completion, the client's stats, seconds."""
    client = LLMClient(OpenAIBackend(url, api_key_env=None, **backend),
                       config=config or ClientConfig(**FAST))
    async with client:
        started = time.perf_counter()
        await client.check(["sim-strong"])
        completion = await client.complete(ask())
        return completion, client.stats, time.perf_counter() - started


def test_an_origin_reachable_only_through_the_proxy(monkeypatch):
    async def scenario():
        server = SimServer(Simulator(TASKS))
        await server.start()
        proxy = ForwardProxy({ORIGIN: ("127.0.0.1", server.port)})
        try:
            async with proxy as proxy_url:
                monkeypatch.setenv("HTTP_PROXY", proxy_url)
                result = await complete_and_check(f"http://{ORIGIN}:{server.port}/v1")
                return result, proxy.seen, server.stats.completions, server.port
        finally:
            await server.stop()

    (completion, stats, _), seen, served, port = asyncio.run(scenario())
    assert parse_answer(completion.text, TASKS[0]) is not None and stats.attempts == 1
    assert seen == [("GET", f"http://{ORIGIN}:{port}/v1/models"),
                    ("POST", f"http://{ORIGIN}:{port}/v1/chat/completions")]
    assert served == 1


def test_without_the_proxy_the_origin_is_unreachable_in_one_line():
    async def scenario():
        backend = OpenAIBackend(f"http://{ORIGIN}:8000/v1", api_key_env=None)
        try:
            await backend.check(["sim-strong"])
        finally:
            await backend.aclose()

    with pytest.raises(BackendError, match=f"cannot reach http://{ORIGIN}:8000/v1: ") as info:
        asyncio.run(scenario())
    assert "\n" not in str(info.value)


def test_gzip_replies_are_decoded():
    body = Simulator(TASKS).respond(ask().to_openai_body())
    models = {"data": [{"id": "sim-strong"}]}

    def gzipped(data) -> bytes:
        packed = gzip.compress(orjson.dumps(data))
        return (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip"
                b"\r\nContent-Length: %d\r\n\r\n%s" % (len(packed), packed))

    async def scenario():
        server = Scripted([gzipped(models), gzipped(body)])
        async with server as url:
            return await complete_and_check(url), server.requests

    (completion, stats, _), requests = asyncio.run(scenario())
    assert completion.text == body["choices"][0]["message"]["content"]
    assert stats.attempts == 1 and stats.retries == 0
    assert all("gzip" in fields["accept-encoding"] for _, _, fields, _ in requests)


def test_a_307_on_models_and_chat_to_another_origin_is_followed_when_opted_in():
    async def scenario():
        server = SimServer(Simulator(TASKS))
        target = await server.start()
        moved: list[str] = []

        async def redirect(request: web.Request) -> web.Response:
            moved.append(f"{request.method} {request.path}")
            location = target + request.path.removeprefix("/v1")
            raise web.HTTPTemporaryRedirect(location)

        app = web.Application()
        app.router.add_route("*", "/v1/{tail:.*}", redirect)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = runner.addresses[0][1]
        try:
            url = f"http://127.0.0.1:{port}/v1"
            return (await complete_and_check(url, cross_origin_redirects=True), moved,
                    server.stats)
        finally:
            await runner.cleanup()
            await server.stop()

    (completion, stats, _), moved, served = asyncio.run(scenario())
    assert moved == ["GET /v1/models", "POST /v1/chat/completions"]
    assert parse_answer(completion.text, TASKS[0]) is not None and stats.attempts == 1
    assert served.completions == 1


def test_a_reply_trickling_in_for_longer_than_the_timeout_is_not_cut():
    # the case scaled by 1/10: a reply over 1.5 s, the timeout 0.5 s
    spec = BackendSpec("openai", base_url="http://127.0.0.1:1/v1", strong_model="sim-strong",
                       timeout_s=0.5)
    config = ClientConfig(timeout_s=spec.attempt_timeout_s(), **FAST)

    async def scenario():
        server = SimServer(Simulator(TASKS), faults=parse_faults("trickle:1.5"))
        url = await server.start()
        try:
            return await complete_and_check(url, config=config, read_timeout_s=0.5)
        finally:
            await server.stop()

    completion, stats, elapsed = asyncio.run(scenario())
    assert parse_answer(completion.text, TASKS[0]) is not None
    assert stats.attempts == 1 and stats.timeouts == 0 and elapsed >= 1.4
    assert spec.attempt_timeout_s() == 5.0  # 10 read timeouts


def test_silence_for_the_timeout_is_a_timeout_and_the_cap_cuts_a_live_reply():
    async def scenario(faults: str, config: ClientConfig):
        server = SimServer(Simulator(TASKS), faults=parse_faults(faults))
        url = await server.start()
        try:
            return await complete_and_check(url, config=config, read_timeout_s=0.3)
        finally:
            await server.stop()

    _, silent, _ = asyncio.run(scenario("slow:2", ClientConfig(timeout_s=3.0, **FAST)))
    assert silent.timeouts == 1 and silent.attempts == 2 and silent.calls == 1
    _, capped, _ = asyncio.run(scenario("trickle:2", ClientConfig(timeout_s=0.8, **FAST)))
    assert capped.timeouts == 1 and capped.attempts == 2 and capped.calls == 1


@pytest.mark.parametrize("status", [401, 403])
def test_a_refused_key_is_one_fatal_line_naming_the_variable(status, monkeypatch):
    monkeypatch.setenv("RG_TEST_KEY", "sk-wrong-0123")
    error = json.dumps({"error": {"message": "Incorrect API key provided", "code": status}})
    refused = (f"HTTP/1.1 {status} Refused\r\nContent-Type: application/json\r\n"
               f"Content-Length: {len(error)}\r\n\r\n{error}").encode()

    async def scenario():
        server = Scripted([refused, refused])
        async with server as url:
            backend = OpenAIBackend(url, api_key_env="RG_TEST_KEY")
            async with LLMClient(backend, config=ClientConfig(**FAST)) as client:
                with pytest.raises(BackendError) as call_error:
                    await client.complete(ask())
                with pytest.raises(BackendError) as check_error:
                    await client.check(["sim-strong"])
                return str(call_error.value), str(check_error.value), client.stats, server

    call, check, stats, server = asyncio.run(scenario())
    hint = "(check the API key in the environment variable RG_TEST_KEY)"
    assert call.endswith(hint) and f"HTTP {status}: Incorrect API key provided" in call
    assert check.endswith(hint) and f"answered HTTP {status}" in check
    assert "sk-wrong" not in call + check and "\n" not in call + check
    assert stats.attempts == 1 and len(server.requests) == 2  # not retried
    assert server.requests[0][2]["authorization"] == "Bearer sk-wrong-0123"


def test_429_is_retried_after_its_retry_after():
    async def scenario():
        server = SimServer(Simulator(TASKS), faults=parse_faults("429:0.4"))
        url = await server.start()
        try:
            return await complete_and_check(url)
        finally:
            await server.stop()

    _, stats, elapsed = asyncio.run(scenario())
    assert stats.rate_limited == 1 and stats.calls == 1 and elapsed >= 0.4


def test_a_run_through_a_proxy_with_trickling_replies_and_a_short_timeout(tmp_path, monkeypatch):
    """The run command's wiring: --timeout bounds each read, the proxy comes from HTTP_PROXY."""
    faults = parse_faults("trickle:1.2x2")
    with running_server(Simulator(load_tasks("arith:2")), faults=faults) as server:
        proxy = ForwardProxy({ORIGIN: ("127.0.0.1", server.port)})
        with in_thread(proxy) as proxy_url:
            monkeypatch.setenv("HTTP_PROXY", proxy_url)
            result = CliRunner().invoke(main, [
                "run", "--topology", "merg", "--n", "5", "--roster", "4S1A", "--F", "1",
                "--protocols", "sac", "--tasks", "arith:2", "--rounds", "1", "--backend",
                "openai", "--base-url", f"http://{ORIGIN}:{server.port}/v1", "--model",
                "sim-strong", "--api-key-env", "", "--timeout", "0.5", "--max-retries", "0",
                "--no-plots", "--json", "-o", str(tmp_path / "out"),
            ], catch_exceptions=False)
        served = server.stats.as_dict()
    assert result.exit_code == 0, result.output
    client = json.loads(result.stdout)["run"]["client"]
    assert client["timeouts"] == 0 and client["retries"] == 0
    assert served["faults"] == {"trickle": 2} and served["completions"] == client["calls"]
    assert sum(method == "POST" for method, _ in proxy.seen) == client["calls"]
