"""Client CPU per HTTP request: the openai backend's lean client against aiohttp, same server.

Usage::

    .venv/bin/python benchmarks/runner_http_client.py [--requests 4000] [--concurrency 64]
        [--repeats 3]

Starts ``serve-sim`` (no latency) in its own process and sends it the same chat-completion
bodies (answer prompts of 64 arithmetic tasks, 4 agents) through
:class:`protocol_runner.llm.http.HTTPClient` and, when it is installed (it is no dependency of
robustgraph any more), through an ``aiohttp.ClientSession`` with an unlimited connector, each
with ``--concurrency`` requests in flight under a semaphore, on uvloop where installed. Each
reply is read and its JSON decoded. Prints the client process's CPU time per request, medians
over ``--repeats`` alternating runs (after a warm-up of 200 requests each), with the load
average. Never part of the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import orjson
from runner_throughput import start_serve_sim  # benchmarks/ is the script's directory

from protocol_runner.llm import AgentIdentity, CompletionRequest
from protocol_runner.llm.http import HTTPClient
from protocol_runner.protocols.prompts import answer_messages
from protocol_runner.run import aio
from protocol_runner.tasks import load_tasks

JSON_BODY = (("Content-Type", "application/json"),)


def _bodies() -> list[bytes]:
    return [
        orjson.dumps(
            CompletionRequest(
                "sim-strong", answer_messages(task), seed=1, user=AgentIdentity(f"a{i}").to_user()
            ).to_openai_body()
        )
        for task in load_tasks("arith:64")
        for i in range(4)
    ]


async def _drive(send: Callable[[bytes], Awaitable[bytes]], bodies: list[bytes], n: int,
                 concurrency: int) -> float:
    slots = asyncio.Semaphore(concurrency)

    async def one(body: bytes) -> None:
        async with slots:
            orjson.loads(await send(body))

    await asyncio.gather(*(one(bodies[k % len(bodies)]) for k in range(200)))
    started = time.process_time()
    await asyncio.gather(*(one(bodies[k % len(bodies)]) for k in range(n)))
    return (time.process_time() - started) / n


async def _lean(url: str, bodies: list[bytes], n: int, concurrency: int) -> float:
    client = HTTPClient(url)

    async def send(body: bytes) -> bytes:
        reply = await client.request("POST", "/chat/completions", body, headers=JSON_BODY)
        return reply.body

    try:
        return await _drive(send, bodies, n, concurrency)
    finally:
        await client.aclose()


async def _aiohttp(url: str, bodies: list[bytes], n: int, concurrency: int) -> float:
    import aiohttp

    session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
    target = f"{url}/chat/completions"

    async def send(body: bytes) -> bytes:
        async with session.post(target, data=body, headers=dict(JSON_BODY)) as reply:
            return await reply.read()

    try:
        return await _drive(send, bodies, n, concurrency)
    finally:
        await session.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=4000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    clients = {"lean (protocol_runner.llm.http)": _lean}
    try:
        import aiohttp  # noqa: F401 - only to know whether to compare
    except ImportError:
        print("aiohttp is not installed: measuring the lean client alone")
    else:
        clients["aiohttp"] = _aiohttp
    bodies = _bodies()
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    server, url = start_serve_sim(0.0, "arith:64")
    try:
        times: dict[str, list[float]] = {name: [] for name in clients}
        for _ in range(args.repeats):
            for name, client in clients.items():
                times[name].append(aio.run(client(url, bodies, args.requests, args.concurrency)))
    finally:
        server.terminate()
        server.wait()
    print(f"{args.requests} requests, {args.concurrency} in flight, serve-sim without latency; "
          f"medians of {args.repeats}; load average before {load}")
    for name, values in times.items():
        runs = ", ".join(f"{1000 * v:.3f}" for v in values)
        print(f"{name:<32} {1000 * statistics.median(values):.3f} ms client CPU per request "
              f"(runs: {runs})")


if __name__ == "__main__":
    main()
