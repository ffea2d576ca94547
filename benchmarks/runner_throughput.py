"""Runner throughput at a fixed per-call latency: wall time vs the critical-path bound.

Usage::

    .venv/bin/python benchmarks/runner_throughput.py [--latency-ms 20] [--concurrency 64]
        [--rounds 2] [--queries 1,4,16,64] [--sequential 1,4] [--repeats 3]

Each row runs SAC on the 7-agent gamma-MERG (4 strong, 2 weak, 1 adversary, F = 3) over Q
arithmetic tasks with T rounds into a fresh results directory (so every distinct call reaches
the backend), on the event loop the ``run`` command uses (:func:`protocol_runner.run.aio.run`), in
two set-ups with the same latency L per completion:

- ``http``: the openai backend (aiohttp, ``protocol_runner.llm.http``) over HTTP to
  ``serve-sim`` (aiohttp.web) in its own process (so its CPU is not charged to the runner): the
  full path of a real endpoint;
- ``inproc``: the simulated backend in the runner's process, L as an ``asyncio.sleep``: no HTTP
  stack, so it isolates the runner (engine, client, cache). The simulated agents' own CPU
  (composing the replies, which serve-sim does in the ``http`` set-up) is measured apart.

Columns (medians over ``--repeats`` runs; the machine is shared and noisy):

- N: backend calls of the run (identical requests are answered by the response cache);
- bound: ``max((1 + 2T) L, N L / C)``, the critical path of DESIGN.md (one answer wave, then
  per round a scoring and a refinement wave; C calls in flight at most): no runner is faster;
- wall and wall / bound at ``--concurrency C``;
- CPU/call: the runner process's CPU time / N; for ``inproc`` without the simulated agents'
  time (which is in ``sim/call``); srv/call: serve-sim's CPU time / N;
- busy: the runner's CPU time / wall; wait: the time the runner was ready to run but waited
  for a CPU (``/proc/<pid>/schedstat``) / wall. Wall = CPU + wait + idle: on a shared machine
  the wait is the other users' load, and no change to the runner removes it;
- seq: the same run one call at a time (concurrency 1), as the research code does it, for the
  sizes in ``--sequential``; its own bound is N L; speed-up = seq wall / wall.

The load average before and after is printed with the table. Never part of the test run.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from protocol_runner.run import aio
from protocol_runner.run.runner import BackendSpec, RunSpec, execute, prepare
from protocol_runner.sim.agents import Simulator
from robustgraph.generators import gamma_merg

ROSTER, F = "4S2W1A", 3  # the paper's F: adversary + 2 faulty (weak) agents


def start_serve_sim(latency_ms: float, tasks: str) -> tuple[subprocess.Popen[str], str]:
    """Start ``serve-sim`` on a free loopback port in a child process; (process, base URL)."""
    command = [sys.executable, "-c", "from robustgraph.cli import main; main()", "serve-sim",
               "--port", "0", "--latency-ms", str(latency_ms), "--tasks", tasks, "--json"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True)
    assert server.stdout is not None
    line = server.stdout.readline()  # the ready message: one line of JSON
    try:
        return server, json.loads(line)["base_url"]
    except ValueError:
        server.kill()
        server.wait()
        raise RuntimeError(f"serve-sim did not start: {line!r}") from None


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _waited_seconds() -> float:
    """Time this process was runnable but not running (the run queue), all threads."""
    total = 0
    for task in Path("/proc/self/task").iterdir():
        total += int((task / "schedstat").read_text().split()[1])
    return total / 1e9


class _SimClock:
    """Charge the simulated agents' CPU time apart (wraps ``Simulator.respond``)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._respond = Simulator.respond

    def __enter__(self) -> _SimClock:
        respond = self._respond

        def timed(simulator: Simulator, body: dict[str, Any]) -> dict[str, Any]:
            start = time.process_time()
            try:
                return respond(simulator, body)
            finally:
                self.seconds += time.process_time() - start

        Simulator.respond = timed  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        Simulator.respond = self._respond  # type: ignore[method-assign]


def _measure(backend: BackendSpec, queries: int, rounds: int, concurrency: int, seed: int,
             server_pid: int | None) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="rg-bench-") as out:
        spec = RunSpec(
            gamma_merg(7), Path(out), roster=ROSTER, F=F, protocols=("sac",),
            tasks=f"arith:{queries}", rounds=rounds, seed=seed, concurrency=concurrency,
            backend=backend,
        )
        prepared = prepare(spec)
        server_cpu = _cpu_seconds(server_pid) if server_pid else 0.0
        with _SimClock() as sim:
            cpu, wall, waited = time.process_time(), time.perf_counter(), _waited_seconds()
            result = aio.run(execute(prepared))
            wall = time.perf_counter() - wall
            cpu = time.process_time() - cpu
            waited = _waited_seconds() - waited
    calls = max(result.stats["calls"], 1)
    return {
        "calls": result.stats["calls"],
        "wall": wall,
        "cpu": 1000 * (cpu - sim.seconds) / calls,
        "sim": 1000 * sim.seconds / calls,
        "srv": 1000 * (_cpu_seconds(server_pid) - server_cpu) / calls if server_pid else 0.0,
        "busy": cpu / wall,
        "wait": waited / wall,
    }


def _median(rows: list[dict[str, float]]) -> dict[str, float]:
    return {key: statistics.median(row[key] for row in rows) for key in rows[0]}


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--latency-ms", type=float, default=20.0)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--queries", default="1,4,16,64")
    parser.add_argument("--sequential", default="1,4")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    sizes = [int(x) for x in args.queries.split(",")]
    sequential = {int(x) for x in args.sequential.split(",") if x}
    latency = args.latency_ms / 1000.0
    server, base_url = start_serve_sim(args.latency_ms, f"arith:{max(sizes)}")
    setups: dict[str, tuple[BackendSpec, int | None]] = {
        "http": (BackendSpec("openai", base_url=base_url, api_key_env=None,
                             strong_model="sim-strong", weak_model="sim-weak"), server.pid),
        "inproc": (BackendSpec("simulated", latency_s=latency), None),
    }
    loop = (aio.loop_factory() or (lambda: None)).__module__ or "asyncio"
    try:
        for backend, pid in setups.values():  # warm-up: imports, first connections
            _measure(backend, 1, 1, args.concurrency, 10_000, pid)
        print(f"SAC on gamma-MERG n=7 ({ROSTER}, F={F}), T={args.rounds}, L={args.latency_ms:g} "
              f"ms, C={args.concurrency} calls in flight, {os.cpu_count()} CPUs, event loop "
              f"{loop.split('.')[0]}, medians of {args.repeats}; load average before: {_load()}")
        head = (f"{'backend':<7} {'Q':>3} {'N':>5} {'bound s':>7} {'wall s':>7} {'wall/bd':>7} "
                f"{'CPU/call':>8} {'sim/call':>8} {'srv/call':>8} {'busy':>5} {'wait':>5} "
                f"{'seq s':>6} {'seq/bd':>6} {'speed-up':>8}")
        print(head)
        print("-" * len(head))
        for name, (backend, pid) in setups.items():
            for q in sizes:
                measure = functools.partial(_measure, backend, q, args.rounds, seed=args.seed,
                                            server_pid=pid)
                row = _median([measure(args.concurrency) for _ in range(args.repeats)])
                bound = max((1 + 2 * args.rounds) * latency,
                            row["calls"] * latency / args.concurrency)
                line = (f"{name:<7} {q:>3} {row['calls']:>5.0f} {bound:>7.3f} {row['wall']:>7.3f} "
                        f"{row['wall'] / bound:>7.2f} {row['cpu']:>6.3f}ms "
                        + (f"{row['sim']:>6.3f}ms " if name == "inproc" else f"{'-':>8} ")
                        + (f"{row['srv']:>6.3f}ms " if pid else f"{'-':>8} ")
                        + f"{100 * row['busy']:>4.0f}% {100 * row['wait']:>4.0f}%")
                if q in sequential:
                    seq = _median([measure(1) for _ in range(args.repeats)])
                    seq_bound = max((1 + 2 * args.rounds) * latency, seq["calls"] * latency)
                    line += (f" {seq['wall']:>6.2f} {seq['wall'] / seq_bound:>6.2f} "
                             f"{seq['wall'] / row['wall']:>7.1f}x")
                print(line, flush=True)
        print(f"load average after: {_load()}")
        print("bound = max((1+2T) L, N L / C); CPU/call: runner CPU time / N (inproc: without "
              "the simulated agents, sim/call); srv/call: serve-sim's; busy: runner CPU / wall; "
              "wait: runner waiting for a CPU / wall; seq: concurrency 1, its bound N L.")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
