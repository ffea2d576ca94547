"""Runner throughput against serve-sim at a fixed latency: wall time vs the critical-path bound.

Usage::

    .venv/bin/python benchmarks/runner_throughput.py [--latency-ms 20] [--concurrency 64]
        [--rounds 2] [--queries 1,4,16,64] [--sequential 1,4]

serve-sim runs in its own process (so its CPU is not charged to the runner) with a fixed
latency L per completion. Each row runs SAC on the 7-agent gamma-MERG (4 strong, 2 weak,
1 adversary, F = 1) over Q arithmetic tasks with T rounds, through the openai backend over
HTTP, into a fresh results directory (so every distinct call reaches the server), and prints:

- N: backend calls of the run (identical requests are answered by the response cache);
- bound: ``max((1 + 2T) L, N L / C)``, the critical path of DESIGN.md (one answer wave, then per
  round a scoring and a refinement wave; C calls in flight at most) -- no runner can be faster;
- wall / bound for the concurrent runner (``--concurrency C``), and the same run done as the
  research code does it, one call at a time (concurrency 1: a sequential loop), for the rows
  listed in ``--sequential``;
- the runner's own CPU per backend call (process CPU time during the run / N), per request
  the protocols made (N plus cache hits and requests joined to an identical call in flight),
  and serve-sim's CPU per call.

The machine matters: at C / L calls per second the two processes need CPU too; the CPU columns
say when a row is CPU-bound rather than latency-bound. Never part of the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from protocol_runner.runner import BackendSpec, RunSpec, execute, prepare
from robustgraph.generators import gamma_merg

ROSTER, F = "4S2W1A", 1


def _start_server(latency_ms: float, tasks: str) -> tuple[subprocess.Popen[str], str]:
    command = [sys.executable, "-c", "from robustgraph.cli import main; main()", "serve-sim",
               "--port", "0", "--latency-ms", str(latency_ms), "--tasks", tasks, "--json"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True)
    text = ""
    assert server.stdout is not None
    for line in server.stdout:
        text += line
        try:
            return server, json.loads(text)["base_url"]
        except ValueError:
            continue
    raise RuntimeError("serve-sim did not start")


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _measure(base_url: str, queries: int, rounds: int, concurrency: int, server_pid: int,
             seed: int) -> dict[str, float]:
    out = Path(tempfile.mkdtemp(prefix="rg-bench-"))
    spec = RunSpec(
        gamma_merg(7), out, roster=ROSTER, F=F, protocols=("sac",), tasks=f"arith:{queries}",
        rounds=rounds, seed=seed, concurrency=concurrency,
        backend=BackendSpec("openai", base_url=base_url, api_key_env=None,
                            strong_model="sim-strong", weak_model="sim-weak"),
    )
    prepared = prepare(spec)
    server_cpu = _cpu_seconds(server_pid)
    cpu, wall = time.process_time(), time.perf_counter()
    result = asyncio.run(execute(prepared))
    wall = time.perf_counter() - wall
    cpu = time.process_time() - cpu
    calls = result.stats["calls"]
    return {
        "calls": calls,
        "requests": calls + result.stats["cache_hits"],
        "wall": wall,
        "cpu_per_call_ms": 1000 * cpu / max(calls, 1),
        "cpu_per_request_ms": 1000 * cpu / max(calls + result.stats["cache_hits"]
                                               + result.stats["shared"], 1),
        "server_cpu_per_call_ms": 1000 * (_cpu_seconds(server_pid) - server_cpu) / max(calls, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--latency-ms", type=float, default=20.0)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--queries", default="1,4,16,64")
    parser.add_argument("--sequential", default="1,4")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    sizes = [int(x) for x in args.queries.split(",")]
    sequential = {int(x) for x in args.sequential.split(",") if x}
    latency = args.latency_ms / 1000.0
    server, base_url = _start_server(args.latency_ms, f"arith:{max(sizes)}")
    try:
        _measure(base_url, 1, 1, args.concurrency, server.pid, seed=10_000)  # warm-up imports
        print(f"SAC on gamma-MERG n=7 ({ROSTER}, F={F}), T={args.rounds}, serve-sim L="
              f"{args.latency_ms:g} ms over HTTP, C={args.concurrency} calls in flight")
        head = (f"{'Q':>4} {'N':>6} {'bound s':>8} {'wall s':>8} {'wall/bound':>10} "
                f"{'CPU/call':>9} {'CPU/req':>8} {'srv CPU/call':>12} {'seq wall s':>10} "
                f"{'seq/bound':>9} {'speed-up':>8}")
        print(head)
        print("-" * len(head))
        for q in sizes:
            row = _measure(base_url, q, args.rounds, args.concurrency, server.pid, args.seed)
            bound = max((1 + 2 * args.rounds) * latency, row["calls"] * latency / args.concurrency)
            line = (f"{q:>4} {row['calls']:>6} {bound:>8.3f} {row['wall']:>8.3f} "
                    f"{row['wall'] / bound:>10.2f} {row['cpu_per_call_ms']:>7.3f}ms "
                    f"{row['cpu_per_request_ms']:>6.3f}ms "
                    f"{row['server_cpu_per_call_ms']:>10.3f}ms")
            if q in sequential:
                seq = _measure(base_url, q, args.rounds, 1, server.pid, args.seed)
                seq_bound = max((1 + 2 * args.rounds) * latency, seq["calls"] * latency / 1)
                line += (f" {seq['wall']:>10.2f} {seq['wall'] / seq_bound:>9.2f} "
                         f"{seq['wall'] / row['wall']:>7.1f}x")
            print(line, flush=True)
        print("bound = max((1+2T) L, N L / C); CPU/call: the runner process's CPU time / N; "
              "CPU/req: / every request the protocols made (cache hits and shared in-flight "
              "calls included); seq: the same run one call at a time (concurrency 1), its "
              "bound N L.")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
