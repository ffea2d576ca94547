"""The client's fast paths keep its contracts: the same cache keys, batched commits that are
durable before a completion is handed out, the event loop and collector helpers."""

from __future__ import annotations

import asyncio
import gc
import hashlib
import json
import sqlite3
import sys

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
from protocol_runner.run import aio


def reference_key(namespace: str, request: CompletionRequest) -> str:
    """The definition of a cache key: one json.dumps of the whole payload (schema 1)."""
    payload = [
        1,
        namespace,
        request.model,
        [[m.role, m.content] for m in request.messages],
        request.temperature,
        request.top_p,
        request.max_tokens,
        request.seed,
        request.user,
        request.sample,
    ]
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_cache_key_is_unchanged_for_every_code_point():
    points = [cp for cp in range(sys.maxunicode + 1) if not 0xD800 <= cp < 0xE000]
    chunk = 8192
    for start in range(0, len(points), chunk):
        text = "".join(map(chr, points[start : start + chunk]))
        request = CompletionRequest.chat(
            "m", [("system", text), ("user", text[::-1])], seed=start, user="agent=a1"
        )
        assert cache_key("openai", request) == reference_key("openai", request), hex(start)


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"temperature": None, "top_p": 0.95, "max_tokens": 7, "seed": None},
        {"temperature": 1e-7, "top_p": 1e16, "seed": 2**40, "user": "agent=é;ckpt=模型"},
        {"sample": 3, "user": None},
        {"temperature": 0.1 + 0.2, "user": 'quote " and \\ backslash'},
    ],
)
def test_cache_key_is_unchanged_for_numbers_and_tags(params):
    request = CompletionRequest.chat("módel\n", [("user", "2+2?\t\x00\x1f\u2028")], **params)
    for namespace in ("simulated:abc", "ns \"quoted\" ü"):
        assert cache_key(namespace, request) == reference_key(namespace, request)


def test_memoised_numbers_keep_their_json_type():
    keys = set()
    for temperature in (1.0, 1, True, 1.0):
        request = CompletionRequest.chat("m", [("user", "hi")], temperature=temperature)
        assert cache_key("ns", request) == reference_key("ns", request)
        keys.add(cache_key("ns", request))
    assert len(keys) == 3  # 1.0, 1 and true are different JSON, hence different keys


def test_a_lone_surrogate_is_still_refused():
    request = CompletionRequest.chat("m", [("user", "bad \ud800 text")])
    with pytest.raises(UnicodeEncodeError):
        cache_key("ns", request)


def test_put_many_is_one_transaction(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    cache.put_many([("a", {"text": "x"}), ("b", {"text": "y"})])
    assert len(cache) == 2 and cache.get("b") == {"text": "y"}
    with pytest.raises(sqlite3.Error):
        cache.put_many([("c", {"text": "z"}), (["not", "a", "key"], {"text": "w"})])
    assert cache.get("c") is None and len(cache) == 2  # the first row was rolled back
    cache.put_many([("a", {"text": "other"})])
    assert cache.get("a") == {"text": "x"}  # an existing entry is kept


class Echo:
    """A backend answering every request after ``delay`` seconds (at once when ``None``)."""

    namespace = "echo"

    def __init__(self, delay: float | None = 0.01) -> None:
        self.delay = delay
        self.calls = 0

    def describe(self, request):
        return "echo backend"

    def provenance(self):
        return {"backend": "echo"}

    async def check(self, models):
        return None

    async def aclose(self):
        return None

    async def complete(self, request):
        self.calls += 1
        if self.delay is not None:
            await asyncio.sleep(self.delay)
        return Completion(f"echo {request.messages[-1].content}", Usage(3, 2), request.model)


class CountingCache(ResponseCache):
    """A cache that counts its batch commits and checks them from a second connection."""

    def __init__(self, path) -> None:
        super().__init__(path)
        self.batches: list[int] = []

    def put_many(self, items) -> None:
        items = list(items)
        self.batches.append(len(items))
        super().put_many(items)


def requests(n: int) -> list[CompletionRequest]:
    return [CompletionRequest.chat("m", [("user", f"q{i}")], seed=1) for i in range(n)]


def test_completions_are_committed_in_batches_before_they_are_returned(tmp_path):
    path = tmp_path / "c.sqlite"
    cache = CountingCache(path)
    reader = ResponseCache(path)  # another connection: sees committed rows only
    client = LLMClient(Echo(), cache=cache, config=ClientConfig(max_concurrency=8))
    unseen: list[str] = []

    async def one(request):
        completion = await client.complete(request)
        if reader.get(cache_key("echo", request)) != completion.to_record():
            unseen.append(request.messages[-1].content)
        return completion

    async def many():
        return await asyncio.gather(*(one(r) for r in requests(40)))

    replies = asyncio.run(many())
    assert [r.text for r in replies] == [f"echo q{i}" for i in range(40)]
    assert unseen == []
    assert sum(cache.batches) == 40 and len(cache.batches) < 40  # calls share commits
    assert max(cache.batches) <= 8  # never more than the calls in flight
    assert len(reader) == 40


def test_a_failed_commit_fails_every_call_of_its_batch(tmp_path):
    class Broken(ResponseCache):
        def put_many(self, items):
            raise sqlite3.OperationalError("disk I/O error")

    cache = Broken(tmp_path / "c.sqlite")
    client = LLMClient(Echo(), cache=cache, config=ClientConfig(max_concurrency=4))

    async def many():
        return await asyncio.gather(
            *(client.complete(r) for r in requests(6)), return_exceptions=True
        )

    outcomes = asyncio.run(many())
    assert all(isinstance(o, sqlite3.OperationalError) for o in outcomes)
    assert len(cache) == 0 and not client._inflight


def test_a_cancelled_call_that_completed_is_still_committed(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    backend = Echo(delay=None)
    client = LLMClient(backend, cache=cache)
    request = requests(1)[0]

    async def scenario():
        task = asyncio.create_task(client.complete(request))
        await asyncio.sleep(0)  # the task ran: answered, now waits for the commit
        assert backend.calls == 1 and cache.get(cache_key("echo", request)) is None
        task.cancel()
        results = await asyncio.gather(task, return_exceptions=True)
        return results[0]

    assert isinstance(asyncio.run(scenario()), asyncio.CancelledError)
    assert cache.get(cache_key("echo", request)) is not None


def test_run_uses_uvloop_when_installed():
    pytest.importorskip("uvloop")

    async def loop_module():
        return type(asyncio.get_running_loop()).__module__

    assert aio.run(loop_module()).startswith("uvloop")


def test_frozen_heap_unfreezes_and_restores_thresholds_even_on_error():
    before, thresholds = gc.get_freeze_count(), gc.get_threshold()
    with pytest.raises(RuntimeError), aio.frozen_heap(young=1234):
        assert gc.get_freeze_count() > before
        assert gc.get_threshold() == (1234, *thresholds[1:])
        raise RuntimeError("boom")
    assert gc.get_freeze_count() == before and gc.get_threshold() == thresholds


def test_docstring_examples_run():
    import doctest

    result = doctest.testmod(aio)
    assert result.attempted > 0 and result.failed == 0
