"""Issue 41, rows 1-5: the openai backend against a hostile OpenAI-compatible endpoint on the
loopback (tests/hostile_endpoint.py): bodies bounded after decoding whatever the framing or
coding, on ``/models`` too; at most ``connections`` bodies at once; redirects only within the
origin named; one line and no aiohttp warnings after an error; an unset ``--api-key-env``."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hostile_endpoint import OTHER_HOST, HostileEndpoint

from protocol_runner.llm.http import MAX_BODY, HTTPClient, TransportError, TransportTimeout
from robustgraph.errors import BackendError

ROOT = Path(__file__).resolve().parents[1]
ROUTES = [("GET", "/models", None), ("POST", "/chat/completions", b'{"model": "m"}')]


@pytest.fixture(scope="module")
def endpoint():
    with HostileEndpoint(bomb_bytes=4 * MAX_BODY) as server:
        yield server


def _request(url: str, method: str, path: str, body: bytes | None, **options):
    total = options.pop("total", 20)

    async def once():
        client = HTTPClient(url, **options)
        try:
            return await client.request(method, path, body, timeout_s=total)
        finally:
            await client.aclose()

    return asyncio.run(once())


@pytest.mark.parametrize("route", ROUTES, ids=["models", "chat"])
@pytest.mark.parametrize("mode", ["gzip-bomb", "deflate-bomb", "chunked-bomb", "endless"])
def test_a_body_is_bounded_after_decoding_whatever_its_framing(endpoint, mode, route):
    with pytest.raises(TransportError) as info:
        _request(endpoint.url(mode), *route)
    message = str(info.value)
    assert message.startswith("reply too large") and f"over {MAX_BODY} bytes" in message
    assert "\n" not in message


def test_a_coding_never_offered_is_refused(endpoint):
    with pytest.raises(TransportError, match="content coding 'br' was not offered"):
        _request(endpoint.url("br"), *ROUTES[1])


def test_a_bomb_under_the_cap_is_decoded():
    with HostileEndpoint(bomb_bytes=MAX_BODY // 2) as server:
        reply = _request(server.url("gzip-bomb"), *ROUTES[1])
    assert reply.status == 200 and reply.body == bytes(MAX_BODY // 2)


def test_at_most_connections_bodies_are_read_at_once(endpoint):
    async def many():
        client = HTTPClient(endpoint.url("endless"), connections=2)
        try:
            return await asyncio.gather(
                *(client.request(*ROUTES[1]) for _ in range(6)), return_exceptions=True
            )
        finally:
            await client.aclose()

    endpoint.peak = 0
    errors = asyncio.run(many())
    assert all(isinstance(e, TransportError) and "too large" in str(e) for e in errors)
    assert endpoint.peak <= 2


def test_slow_loris_and_silence_end_at_the_time_limits(endpoint):
    with pytest.raises(TransportTimeout, match="no reply within 0.5 s"):
        _request(endpoint.url("slow-loris"), *ROUTES[1], read_timeout_s=5, total=0.5)
    with pytest.raises(TransportTimeout, match="no data within 0.3 s"):
        _request(endpoint.url("silent"), *ROUTES[1], read_timeout_s=0.3)


def test_a_redirect_loop_is_one_backend_error(endpoint):
    with pytest.raises(BackendError, match="redirects more than 10 times"):
        _request(endpoint.url("loop"), *ROUTES[0])


@pytest.mark.parametrize("route", ROUTES, ids=["models", "chat"])
def test_a_redirect_to_another_host_is_refused_and_reaches_nothing(endpoint, route):
    before = len(endpoint.requests_to(OTHER_HOST))
    with pytest.raises(BackendError) as info:
        _request(endpoint.url("redirect"), *route, headers=None)
    message = str(info.value)
    assert f"redirects to host {OTHER_HOST}" in message and "http://127.0.0.1:" in message
    assert "--allow-cross-origin-redirects" in message and "\n" not in message
    assert len(endpoint.requests_to(OTHER_HOST)) == before


def test_a_redirect_within_the_origin_is_followed_with_the_key(endpoint):
    reply = _request(endpoint.url("same-origin"), *ROUTES[1], headers={"Authorization": "k"})
    assert reply.status == 200 and endpoint.seen[-1][2].startswith("/ok/") and endpoint.seen[-1][3]


def _run(url: str, tmp_path: Path, *extra: str, env: dict | None = None):
    """``robustgraph run`` on the openai backend at ``url`` in a child process (stderr whole)."""
    command = [
        sys.executable, "-c", "from robustgraph.cli import run; run()", "run",
        "--topology", "merg", "--n", "5", "--roster", "4S1A", "--F", "1", "--protocols", "sac",
        "--tasks", "arith:2", "--rounds", "1", "--backend", "openai", "--base-url", url,
        "--model", "sim-strong", "--timeout", "5", "--max-retries", "0", "--concurrency", "8",
        "--no-plots", "-o", str(tmp_path / "out"), *extra,
    ]
    environ = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONWARNINGS": "default"}
    environ.pop("OPENAI_API_KEY", None)
    return subprocess.run(command, capture_output=True, text=True, timeout=120,
                          env={**environ, **(env or {})}, cwd=tmp_path)


def _errors(stderr: str) -> list[str]:
    """stderr without the progress lines of certification."""
    return [line for line in stderr.splitlines() if not line.startswith("robustgraph: run: ")]


@pytest.mark.parametrize("mode, what", [
    ("gzip-bomb", "reply too large"), ("chat-gzip-bomb", "reply too large"),
    ("chat-endless", "reply too large"), ("redirect", f"redirects to host {OTHER_HOST}"),
    ("chat-redirect", f"redirects to host {OTHER_HOST}"), ("chat-silent", "no data within"),
])
def test_a_run_against_a_hostile_endpoint_ends_in_one_line(endpoint, tmp_path, mode, what):
    before = len(endpoint.requests_to(OTHER_HOST))
    timeout = ["--timeout", "0.5"] if mode == "chat-silent" else []
    result = _run(endpoint.url(mode), tmp_path, *timeout)
    errors = _errors(result.stderr)
    assert result.returncode == 2, result.stderr
    assert len(errors) == 1 and what in errors[0], result.stderr  # no "Unclosed client session"
    assert len(endpoint.requests_to(OTHER_HOST)) == before


def test_opting_in_follows_a_redirect_to_another_host_without_the_key(endpoint, tmp_path):
    before = len(endpoint.requests_to(OTHER_HOST))
    result = _run(endpoint.url("chat-redirect"), tmp_path, "--allow-cross-origin-redirects",
                  "--api-key-env", "HOSTILE_KEY", env={"HOSTILE_KEY": "secret"})
    assert result.returncode == 0, result.stderr
    followed = endpoint.requests_to(OTHER_HOST)[before:]
    assert followed and not any(had_key for *_, had_key in followed)


def test_an_unset_api_key_env_is_one_line(endpoint, tmp_path):
    result = _run(endpoint.url("ok"), tmp_path, "--api-key-env", "ROBUSTGRAPH_UNSET_KEY_41")
    assert result.returncode == 2 and _errors(result.stderr) == [
        "robustgraph: error: --api-key-env ROBUSTGRAPH_UNSET_KEY_41: that environment variable "
        "is not set (give --api-key-env '' to send no key)"
    ]
    assert not (tmp_path / "out").exists()
