"""Our whole `robustgraph robustness FILE --json` command against the published MILP, timed.

The baseline is ``benchmarks/published_milp.py``: an independent script of the MILP of Usevitch &
Panagou (Automatica 111, 2020), written from the paper (it imports neither ``solvers`` nor
``robustgraph``), solved by CP-SAT with one worker and by HiGHS with one thread. Every command runs
as its own process, as a user would run it, so start-up and imports count; for each graph the
three commands run back to back, in an order that rotates from graph to graph (interleaved), so
that they see the same load. A row gives each command's wall seconds (CPU seconds of the process
beside it, which a busy machine inflates less) and the ratios baseline / ours; a command stopped
by ``--cap`` counts at the cap (so a ratio against it is a lower bound) and is marked ``>``. The
last column says where our time went: the r* solve's own seconds (the rest of our wall time is
start-up, reading, the report and exit) and the steps that ran (``cores``: the core search,
``exhaustive``: the subset DP, ``published-r``/``strong-rK``: model solves).

Graphs: ``robustgraph.generators.erdos_renyi(n, p, seed, directed)`` for graphs and digraphs,
n in ``--sizes``, p = 0.3 and 0.5, seeds ``--seeds`` (1001-1003: no test or other benchmark
uses them). ``--deadlines`` instead runs ``robustness --time-limit T`` on the five hard suite
graphs of ``benchmarks/certify_scaling.py`` (seed 0) and prints the wall time against T + 2 s.

    nice -n 10 .venv/bin/python benchmarks/vs_published.py --sizes 10,20,30,40 --cap 20
    nice -n 10 .venv/bin/python benchmarks/vs_published.py --deadlines 20,60
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BASELINE = HERE / "published_milp.py"
HARD = (
    ("er", 50, 0.5),
    ("er", 60, 0.3),
    ("er", 60, 0.5),
    ("digraph", 60, 0.3),
    ("digraph", 60, 0.5),
)
"""The five suite graphs (seed 0) that no engine settles within 60 s (docs/performance.md)."""


def _uptime() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _timed(cmd: list[str], cap: float) -> tuple[dict | None, float, float, int | None]:
    """Run ``cmd`` under a CPU cap of ``cap`` seconds (``RLIMIT_CPU``: a busy machine stretches
    wall time, not CPU time) and a wall cap ten times that. Returns its last stdout line as
    JSON (None if capped or unparsable), its wall and CPU seconds, and its exit code (None when
    a cap stopped it)."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (math.ceil(cap), math.ceil(cap) + 1))

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    try:
        done = subprocess.run(
            cmd, capture_output=True, text=True, timeout=10 * cap, preexec_fn=limit
        )
        code: int | None = done.returncode if done.returncode >= 0 else None
        out = done.stdout.strip()
    except subprocess.TimeoutExpired:
        code, out = None, ""
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    try:
        data = json.loads(out) if out.startswith("{") else json.loads(out.splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        data = None
    return data, wall, cpu, code


def _graphs(sizes: list[int], seeds: list[int], folder: Path):
    from robustgraph import generators, io

    for family in ("er", "digraph"):
        for n in sizes:
            for p in (0.3, 0.5):
                for seed in seeds:
                    g = generators.erdos_renyi(n, p, seed=seed, directed=family == "digraph")
                    path = folder / f"{family}-{n}-{p}-{seed}.json"
                    io.write(g, path)
                    yield family, n, p, seed, path


def _inside(data: dict | None) -> str:
    """Where our command's time went: the r* solve's seconds and its steps (engine or bound)."""
    if not data:
        return "-"
    r = data["r"]
    steps = [s.get("step") or s.get("model", "?") for s in r.get("steps", [])]
    names = [name for name in dict.fromkeys(steps) if name not in ("degree", "halves")]
    return f"{r.get('seconds', 0):.2f}, {'+'.join(names)}"


def _ours(path: Path, extra: list[str]) -> list[str]:
    command = str(Path(sys.executable).parent / "robustgraph")
    return [command, "robustness", str(path), "--json", *extra]


def compare(args: argparse.Namespace) -> int:
    sizes = [int(x) for x in args.sizes.split(",")]
    seeds = [int(x) for x in args.seeds.split(",")]
    print(f"# {platform.machine()}, {os.cpu_count()} cores, python {platform.python_version()}")
    print(f"# load {_uptime()} at the start, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"# cap {args.cap:g} CPU s per command; ratios baseline / ours, wall (and CPU)")
    print(
        "| graph | n | p | seed | r* | ours s (cpu) | cpsat s (cpu) | highs s (cpu) "
        "| cpsat/ours | highs/ours | ours: r* s, steps |"
    )
    print("|---" * 11 + "|")
    ratios: dict[str, list[float]] = {"cpsat": [], "highs": [], "cpsat cpu": [], "highs cpu": []}
    slower = []
    with tempfile.TemporaryDirectory() as tmp:
        for k, (family, n, p, seed, path) in enumerate(_graphs(sizes, seeds, Path(tmp))):
            cmds = {
                "ours": _ours(path, []),
                "cpsat": [sys.executable, str(BASELINE), str(path), "cpsat"],
                "highs": [sys.executable, str(BASELINE), str(path), "highs"],
            }
            names = list(cmds)
            order = names[k % 3 :] + names[: k % 3]  # interleaved: each goes first in turn
            got = {name: _timed(cmds[name], args.cap) for name in order}
            values = {got["ours"][0]["r"]["value"]} if got["ours"][0] else set()
            values |= {got[b][0]["r"] for b in ("cpsat", "highs") if got[b][0]}
            values.discard(None)
            if len(values) > 1:
                print(f"# DISAGREEMENT on {path.name}: {values}")
            cells = []
            for name in names:
                _, wall, cpu, code = got[name]
                cells.append(f"{'>' if code is None else ''}{wall:.2f} ({cpu:.2f})")
            for b in ("cpsat", "highs"):
                ratio = got[b][1] / got["ours"][1]
                cpu_ratio = got[b][2] / got["ours"][2]
                ratios[b].append(ratio)
                ratios[f"{b} cpu"].append(cpu_ratio)
                mark = ">" if got[b][3] is None else ""
                cells.append(f"{mark}{ratio:.2f} ({cpu_ratio:.2f})")
                if ratio <= 1.0:
                    slower.append(f"{path.name} vs {b}")
            r_text = str(values.pop()) if len(values) == 1 else "?"
            cells.append(_inside(got["ours"][0]))
            row = [family, str(n), str(p), str(seed), r_text, *cells]
            print("| " + " | ".join(row) + " |", flush=True)
    for name, rs in ratios.items():
        finite = rs
        if finite:
            print(
                f"# vs {name}: median ratio {statistics.median(finite):.2f}, "
                f"min {min(finite):.2f}, ours faster on {sum(r > 1 for r in finite)} of "
                f"{len(finite)}"
            )
    print(f"# not faster (wall): {', '.join(slower) or 'none'}")
    print(f"# load {_uptime()} at the end")
    return 0


def deadlines(args: argparse.Namespace) -> int:
    from robustgraph import generators, io

    limits = [float(x) for x in args.deadlines.split(",")]
    print(f"# load {_uptime()} at the start; each command: robustness FILE --json --time-limit T")
    print("| graph | n | p | T | wall s | in command s | within T + 2 s | r* bounds | status |")
    print("|---" * 9 + "|")
    with tempfile.TemporaryDirectory() as tmp:
        for limit in limits:
            for family, n, p in HARD:
                g = generators.erdos_renyi(n, p, seed=0, directed=family == "digraph")
                path = Path(tmp) / f"{family}-{n}-{p}.json"
                io.write(g, path)
                cmd = _ours(path, ["--time-limit", f"{limit:g}"])
                data, wall, _, code = _timed(cmd, limit + 30)  # the wall time is the check
                r = data["r"] if data else {}
                bounds = f"[{r.get('lower')},{r.get('upper')}]" if r else "-"
                ok = "yes" if wall <= limit + 2 else "NO"
                inside = f"{data['seconds']:.2f}" if data else "-"  # its total time
                row = [family, str(n), str(p), f"{limit:g}", f"{wall:.2f}", inside, ok, bounds]
                print("| " + " | ".join([*row, str(r.get("status", code))]) + " |", flush=True)
    print(f"# load {_uptime()} at the end")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10,15,20,25,30,35,40")
    ap.add_argument("--seeds", default="1001,1002,1003")
    ap.add_argument("--cap", type=float, default=20.0, help="CPU seconds per command")
    ap.add_argument("--deadlines", default=None, metavar="T,T", help="the time-limit check")
    args = ap.parse_args(argv)
    return deadlines(args) if args.deadlines else compare(args)


if __name__ == "__main__":
    sys.exit(main())
