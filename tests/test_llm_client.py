"""The shared LLM client: retries, Retry-After, timeouts, give-up, cache, dedupe, concurrency.

A scripted backend plays each failure kind in order, so every policy branch is exercised
without a network; the HTTP path is covered in test_llm_openai.py.
"""

from __future__ import annotations

import asyncio

import pytest

from protocol_runner.llm import (
    ClientConfig,
    Completion,
    CompletionRequest,
    LLMClient,
    ResponseCache,
    Usage,
    cache_key,
)
from protocol_runner.llm import client as client_module
from protocol_runner.llm.errors import RateLimited, TransientError
from robustgraph.errors import BackendError, ParameterError

FAST = ClientConfig(backoff_base_s=0.001, backoff_max_s=0.004, timeout_s=5.0)


class Scripted:
    """A backend that replays a script: exceptions are raised, floats are sleeps, else success."""

    namespace = "scripted"

    def __init__(self, script=(), delay: float = 0.0) -> None:
        self.script = list(script)
        self.delay = delay
        self.calls = 0
        self.inflight = 0
        self.max_inflight = 0

    def describe(self, request):
        return f"scripted backend, model {request.model!r}"

    def provenance(self):
        return {"backend": "scripted"}

    async def check(self, models):
        return None

    async def aclose(self):
        return None

    async def complete(self, request):
        self.calls += 1
        self.inflight += 1
        self.max_inflight = max(self.max_inflight, self.inflight)
        try:
            step = self.script.pop(0) if self.script else "ok"
            if isinstance(step, BaseException):
                raise step
            if isinstance(step, float):
                await asyncio.sleep(step)
            elif self.delay:
                await asyncio.sleep(self.delay)
            return Completion(f"reply to {request.messages[-1].content}", Usage(7, 3), "m", "stop")
        finally:
            self.inflight -= 1


def req(text: str = "hello", **params) -> CompletionRequest:
    return CompletionRequest.chat("m", [("user", text)], **params)


def run(coro):
    return asyncio.run(coro)


def test_transient_errors_are_retried_until_success():
    backend = Scripted([TransientError("HTTP 500"), TransientError("HTTP 503")])
    client = LLMClient(backend, config=FAST)
    reply = run(client.complete(req()))
    assert reply.text == "reply to hello" and not reply.cached
    s = client.stats
    assert (s.attempts, s.retries, s.calls) == (3, 2, 1)
    assert (s.prompt_tokens, s.completion_tokens) == (7, 3)


def _recorded_waits(monkeypatch) -> list[float]:
    """The delays the client asks ``asyncio.sleep`` for (each then waits no time): the retry
    policy checked without a clock."""
    waits: list[float] = []
    sleep = asyncio.sleep

    async def record(delay, *args, **kwargs):
        waits.append(delay)
        return await sleep(0)

    monkeypatch.setattr(client_module.asyncio, "sleep", record)
    return waits


def test_retry_after_is_honoured(monkeypatch):
    waits = _recorded_waits(monkeypatch)
    backend = Scripted([RateLimited("HTTP 429", retry_after=0.25)])
    client = LLMClient(backend, config=FAST)
    run(client.complete(req()))
    assert len(waits) == 1 and 0.25 <= waits[0] <= 0.25 * 1.1  # Retry-After plus 0-10% jitter
    assert client.stats.rate_limited == 1 and client.stats.calls == 1


def test_rate_limit_without_retry_after_uses_backoff(monkeypatch):
    waits = _recorded_waits(monkeypatch)
    client = LLMClient(Scripted([RateLimited("HTTP 429")]), config=FAST)
    run(client.complete(req()))
    assert len(waits) == 1 and waits[0] <= FAST.backoff_max_s  # not a 1 s default


def test_excessive_retry_after_is_a_clear_error():
    config = ClientConfig(max_retry_after_s=1.0)
    client = LLMClient(Scripted([RateLimited("HTTP 429", retry_after=3600)]), config=config)
    with pytest.raises(BackendError, match="retry after 3600 s") as info:
        run(client.complete(req()))
    assert "\n" not in str(info.value) and client.stats.attempts == 1


def test_timeout_is_retried():
    backend = Scripted([2.0])
    client = LLMClient(backend, config=ClientConfig(timeout_s=0.1, backoff_base_s=0.001))
    reply = run(client.complete(req()))  # the 2 s attempt was cut: a timeout, then a retry
    assert reply.text == "reply to hello"
    assert client.stats.timeouts == 1 and backend.calls == 2


def test_give_up_is_one_line_and_never_cached(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    config = ClientConfig(max_retries=2, backoff_base_s=0.001, backoff_max_s=0.002)
    backend = Scripted([TransientError("HTTP 502: bad gateway")] * 3)
    client = LLMClient(backend, cache=cache, config=config)
    with pytest.raises(BackendError) as info:
        run(client.complete(req()))
    message = str(info.value)
    assert "\n" not in message
    assert "gave up after 3 attempts" in message and "HTTP 502: bad gateway" in message
    assert len(cache) == 0
    reply = run(client.complete(req()))  # the script is spent: the error was not remembered
    assert reply.text == "reply to hello" and backend.calls == 4


def test_fatal_errors_are_not_retried():
    backend = Scripted([BackendError("model not found")])
    client = LLMClient(backend, config=FAST)
    with pytest.raises(BackendError, match="model not found"):
        run(client.complete(req()))
    assert backend.calls == 1 and client.stats.retries == 0


def test_cache_hits_and_misses(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    backend = Scripted()
    client = LLMClient(backend, cache=cache, config=FAST)

    async def three():
        first = await client.complete(req(seed=1))
        again = await client.complete(req(seed=1))
        other = await client.complete(req(seed=1, sample=1))
        return first, again, other

    first, again, other = run(three())
    assert not first.cached and again.cached and not other.cached
    assert again.text == first.text and again.usage == first.usage
    assert backend.calls == 2
    assert (client.stats.cache_hits, client.stats.cache_misses) == (1, 2)
    # tokens count only real calls
    assert client.stats.prompt_tokens == 14


def test_policy_is_not_part_of_the_key(tmp_path):
    path = tmp_path / "c.sqlite"
    run(LLMClient(Scripted(), cache=ResponseCache(path), config=FAST).complete(req()))
    other_policy = ClientConfig(timeout_s=1.0, max_retries=0, max_concurrency=1)
    backend = Scripted()
    client = LLMClient(backend, cache=ResponseCache(path), config=other_policy)
    assert run(client.complete(req())).cached and backend.calls == 0


def test_identical_requests_in_flight_share_one_call():
    backend = Scripted(delay=0.05)
    client = LLMClient(backend, config=FAST)

    async def many():
        return await asyncio.gather(*(client.complete(req()) for _ in range(5)))

    replies = run(many())
    assert {r.text for r in replies} == {"reply to hello"}
    assert backend.calls == 1 and client.stats.shared == 4


def test_cancelled_owner_hands_the_call_to_a_waiter():
    backend = Scripted(delay=0.05)
    client = LLMClient(backend, config=FAST)

    async def scenario():
        owner = asyncio.create_task(client.complete(req()))
        await asyncio.sleep(0.01)
        waiter = asyncio.create_task(client.complete(req()))
        await asyncio.sleep(0.01)
        owner.cancel()
        return await waiter

    assert run(scenario()).text == "reply to hello"
    assert backend.calls == 2


def test_concurrency_is_bounded():
    backend = Scripted(delay=0.02)
    client = LLMClient(backend, config=ClientConfig(max_concurrency=3))

    async def many():
        await asyncio.gather(*(client.complete(req(f"q{i}")) for i in range(12)))

    run(many())
    assert backend.max_inflight == 3 and backend.calls == 12


def test_backoff_is_exponential_with_jitter():
    client = LLMClient(Scripted(), config=ClientConfig(backoff_base_s=0.5, backoff_max_s=4.0))
    for attempt, cap in [(0, 0.5), (1, 1.0), (2, 2.0), (3, 4.0), (6, 4.0)]:
        delays = [client._backoff(attempt) for _ in range(50)]
        assert all(cap / 2 <= d <= cap for d in delays)
        assert len(set(delays)) > 1


def test_cache_key_covers_what_changes_output_only():
    base = req(seed=1, user="agent=a1")
    key = cache_key("ns", base)
    assert key == cache_key("ns", req(seed=1, user="agent=a1"))
    variants = [
        req(seed=2, user="agent=a1"),
        req(seed=1, user="agent=a2"),
        req(seed=1, user="agent=a1", sample=3),
        req(seed=1, user="agent=a1", temperature=0.7),
        req(seed=1, user="agent=a1", max_tokens=10),
        req("other", seed=1, user="agent=a1"),
        CompletionRequest.chat("m2", [("user", "hello")], seed=1, user="agent=a1"),
    ]
    assert len({key, *(cache_key("ns", v) for v in variants)}) == len(variants) + 1
    assert cache_key("other-ns", base) != key


def test_cache_is_wal_and_survives_reopening(tmp_path):
    path = tmp_path / "sub" / "c.sqlite"
    cache = ResponseCache(path)
    assert cache._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    cache.put("k", {"text": "x"})
    cache.close()
    assert ResponseCache(path).get("k") == {"text": "x"}


def test_bad_config_and_bad_cache_file_are_parameter_errors(tmp_path):
    with pytest.raises(ParameterError):
        ClientConfig(max_concurrency=0)
    with pytest.raises(ParameterError):
        ClientConfig(timeout_s=0)
    bogus = tmp_path / "not-a-db.sqlite"
    bogus.write_text("this is not sqlite " * 100)
    with pytest.raises(ParameterError, match="response cache"):
        ResponseCache(bogus)
