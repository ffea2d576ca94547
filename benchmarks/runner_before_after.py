"""Before/after: the same SAC runs on an older revision and on the working tree, alternating.

Usage::

    .venv/bin/python benchmarks/runner_before_after.py REV [--queries 64] [--repeats 5]
        [--latency-ms 20] [--concurrency 64]

``REV`` (a commit) is exported with ``git archive`` to a temporary directory. Each repeat runs,
for the old tree and then the working tree, one child process with ``PYTHONPATH`` set to that
tree: it starts that tree's ``serve-sim`` (latency L) and runs SAC on gamma-MERG n=7 (as in
``runner_throughput.py``) over Q tasks through the openai backend over HTTP, then through the
in-process simulated backend with the same L, each on the event loop that tree's ``run``
command uses. Both trees run in the same minutes on the same machine, so a shared machine's load
falls on both alike; the medians over the repeats are printed side by side with the load average.
CPU/call in-process includes the simulated agents' own time here (the two trees share them).
Never part of the test run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Runs inside each tree: only APIs both trees have.
CHILD = r"""
import asyncio, json, os, subprocess, sys, tempfile, time
from pathlib import Path
from protocol_runner.run.runner import BackendSpec, RunSpec, execute, prepare
from robustgraph.generators import gamma_merg
queries, latency_ms, concurrency = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
try:
    from protocol_runner.run.aio import run as run_loop
except ImportError:
    run_loop = asyncio.run

def cpu(pid):
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

def waited():
    return sum(int((t / "schedstat").read_text().split()[1])
               for t in Path("/proc/self/task").iterdir()) / 1e9

def measure(backend, q, seed, server=None):
    with tempfile.TemporaryDirectory(prefix="rg-ab-") as out:
        prepared = prepare(RunSpec(gamma_merg(7), Path(out), roster="4S2W1A", F=3,
                                   protocols=("sac",), tasks=f"arith:{q}", rounds=2, seed=seed,
                                   concurrency=concurrency, backend=backend))
        s0 = cpu(server) if server else 0.0
        c0, w0, q0 = time.process_time(), time.perf_counter(), waited()
        result = run_loop(execute(prepared))
        wall = time.perf_counter() - w0
    n = max(result.stats["calls"], 1)
    return {"calls": result.stats["calls"], "wall": wall,
            "cpu": 1000 * (time.process_time() - c0) / n,
            "srv": 1000 * (cpu(server) - s0) / n if server else 0.0,
            "wait": (waited() - q0) / wall}

command = [sys.executable, "-c", "from robustgraph.cli import main; main()", "serve-sim",
           "--port", "0", "--latency-ms", str(latency_ms), "--tasks", f"arith:{queries}",
           "--json"]
server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
try:
    text = ""
    for line in server.stdout:
        text += line
        try:
            url = json.loads(text)["base_url"]
            break
        except ValueError:
            continue
    http = BackendSpec("openai", base_url=url, api_key_env=None, strong_model="sim-strong",
                       weak_model="sim-weak")
    inproc = BackendSpec("simulated", latency_s=latency_ms / 1000)
    measure(http, 1, 9999, server.pid)
    measure(inproc, 1, 9999)
    print(json.dumps({"http": measure(http, queries, 1, server.pid),
                      "inproc": measure(inproc, queries, 1)}))
finally:
    server.terminate()
    server.wait()
"""


def _export(rev: str) -> Path:
    target = Path(tempfile.mkdtemp(prefix="rg-rev-"))
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("rev", help="the older revision, e.g. a commit hash")
    parser.add_argument("--queries", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--latency-ms", type=float, default=20.0)
    parser.add_argument("--concurrency", type=int, default=64)
    args = parser.parse_args()
    old_tree = _export(args.rev)
    try:
        _compare(args, {args.rev[:10]: old_tree, "working tree": ROOT})
    finally:
        shutil.rmtree(old_tree, ignore_errors=True)


def _compare(args: argparse.Namespace, trees: dict[str, Path]) -> None:
    """Run both trees alternately, ``args.repeats`` times, and print the medians."""
    rows: dict[str, list[dict[str, dict[str, float]]]] = {name: [] for name in trees}
    load_before = _load()
    for _ in range(args.repeats):
        for name, tree in trees.items():
            child = subprocess.run(
                [sys.executable, "-c", CHILD, str(args.queries), str(args.latency_ms),
                 str(args.concurrency)],
                capture_output=True, text=True, cwd=tempfile.gettempdir(),
                env={**os.environ, "PYTHONPATH": str(tree)}, check=False,
            )
            if child.returncode != 0:
                sys.exit(f"{name}: {child.stderr.strip().splitlines()[-1:]}")
            rows[name].append(json.loads(child.stdout))
    latency = args.latency_ms / 1000
    print(f"SAC on gamma-MERG n=7, Q={args.queries}, T=2, L={args.latency_ms:g} ms, "
          f"C={args.concurrency}; medians of {args.repeats} alternating runs; load average "
          f"before {load_before}, after {_load()}")
    head = (f"{'tree':<13} {'setup':<7} {'N':>5} {'bound s':>7} {'wall s':>7} {'wall/bd':>7} "
            f"{'CPU/call':>8} {'srv/call':>8} {'wait':>5}")
    print(head)
    print("-" * len(head))
    for setup in ("http", "inproc"):
        for name, results in rows.items():
            med = {k: statistics.median(r[setup][k] for r in results) for k in results[0][setup]}
            bound = max(5 * latency, med["calls"] * latency / args.concurrency)
            srv = f"{med['srv']:>6.3f}ms" if setup == "http" else f"{'-':>8}"
            print(f"{name:<13} {setup:<7} {med['calls']:>5.0f} {bound:>7.3f} {med['wall']:>7.3f} "
                  f"{med['wall'] / bound:>7.2f} {med['cpu']:>6.3f}ms {srv} "
                  f"{100 * med['wait']:>4.0f}%")
    print("CPU/call: the runner process's CPU / N (in-process: with the simulated agents); "
          "srv/call: serve-sim's; wait: runner waiting for a CPU / wall.")


if __name__ == "__main__":
    main()
