"""Client CPU per HTTP request: the openai backend's transport against two alternatives.

Usage::

    .venv/bin/python benchmarks/runner_http_client.py [--requests 3000] [--concurrency 64]
        [--repeats 3] [--no-sdk]

Starts ``serve-sim`` (no latency) in its own process and sends it the same chat-completion
bodies (answer prompts of 64 arithmetic tasks, 4 agents), ``--concurrency`` requests in flight
under a semaphore, on the event loop the ``run`` command uses, through:

- ``HTTPClient``: :class:`protocol_runner.llm.http.HTTPClient`, the openai backend's transport
  (an aiohttp session whose proxy settings were read from the environment once);
- ``aiohttp trust_env``: a plain ``aiohttp.ClientSession(trust_env=True)``, which reads the
  proxy variables and ``~/.netrc`` again for every request, on a worker thread;
- ``openai SDK``: ``openai.AsyncOpenAI`` (httpx), the official client (a test dependency; left
  out with ``--no-sdk`` or when it is not installed).

Each reply is read and its JSON decoded. Prints the client process's CPU time per request
(medians over ``--repeats`` alternating runs, after a warm-up of 200 requests each) and wall
time per request, with the load average. Never part of the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import orjson
from runner_throughput import start_serve_sim  # benchmarks/ is the script's directory

from protocol_runner.llm import AgentIdentity, CompletionRequest
from protocol_runner.llm.http import HTTPClient
from protocol_runner.protocols.prompts import answer_messages
from protocol_runner.run import aio
from protocol_runner.tasks import load_tasks

JSON_BODY = {"Content-Type": "application/json"}
Send = Callable[[dict[str, Any], bytes], Awaitable[Any]]


def _requests() -> list[tuple[dict[str, Any], bytes]]:
    bodies = [
        CompletionRequest(
            "sim-strong", answer_messages(task), seed=1, user=AgentIdentity(f"a{i}").to_user()
        ).to_openai_body()
        for task in load_tasks("arith:64")
        for i in range(4)
    ]
    return [(body, orjson.dumps(body)) for body in bodies]


async def _drive(send: Send, requests: list[tuple[dict[str, Any], bytes]], n: int,
                 concurrency: int) -> tuple[float, float]:
    slots = asyncio.Semaphore(concurrency)

    async def one(k: int) -> None:
        async with slots:
            await send(*requests[k % len(requests)])

    await asyncio.gather(*(one(k) for k in range(200)))
    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.gather(*(one(k) for k in range(n)))
    return (time.process_time() - cpu) / n, (time.perf_counter() - wall) / n


async def _ours(url: str, requests, n: int, concurrency: int) -> tuple[float, float]:
    client = HTTPClient(url, connections=concurrency)

    async def send(_: dict[str, Any], raw: bytes) -> Any:
        reply = await client.request("POST", "/chat/completions", raw, headers=JSON_BODY)
        return orjson.loads(reply.body)

    try:
        return await _drive(send, requests, n, concurrency)
    finally:
        await client.aclose()


async def _trust_env(url: str, requests, n: int, concurrency: int) -> tuple[float, float]:
    session = aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=concurrency), trust_env=True
    )
    target = f"{url}/chat/completions"

    async def send(_: dict[str, Any], raw: bytes) -> Any:
        async with session.post(target, data=raw, headers=JSON_BODY) as reply:
            return orjson.loads(await reply.read())

    try:
        return await _drive(send, requests, n, concurrency)
    finally:
        await session.close()


async def _sdk(url: str, requests, n: int, concurrency: int) -> tuple[float, float]:
    import openai

    client = openai.AsyncOpenAI(base_url=url, api_key="unused", max_retries=0)

    async def send(body: dict[str, Any], _: bytes) -> Any:
        return await client.chat.completions.create(**body)

    try:
        return await _drive(send, requests, n, concurrency)
    finally:
        await client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-sdk", action="store_true")
    args = parser.parse_args()
    clients = {"HTTPClient (ours)": _ours, "aiohttp trust_env": _trust_env}
    if not args.no_sdk:
        try:
            import openai  # noqa: F401 - only to know whether to compare
        except ImportError:
            print("openai is not installed: leaving the SDK out")
        else:
            clients["openai SDK"] = _sdk
    requests = _requests()
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    server, url = start_serve_sim(0.0, "arith:64")
    try:
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in clients}
        for _ in range(args.repeats):
            for name, client in clients.items():
                times[name].append(aio.run(client(url, requests, args.requests,
                                                  args.concurrency)))
    finally:
        server.terminate()
        server.wait()
    print(f"{args.requests} requests, {args.concurrency} in flight, serve-sim without latency; "
          f"medians of {args.repeats}; load average before {load}")
    ours = statistics.median(cpu for cpu, _ in times["HTTPClient (ours)"])
    for name, values in times.items():
        cpu = statistics.median(c for c, _ in values)
        wall = statistics.median(w for _, w in values)
        runs = ", ".join(f"{1000 * c:.3f}" for c, _ in values)
        print(f"{name:<20} {1000 * cpu:.3f} ms client CPU per request ({cpu / ours:.2f}x ours), "
              f"{1000 * wall:.3f} ms wall per request (CPU runs: {runs})")


if __name__ == "__main__":
    main()
