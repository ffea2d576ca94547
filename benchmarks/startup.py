"""Start-up cost of the command line: wall and CPU time of whole ``robustgraph`` processes.

Issue 16: ``robustgraph info`` and an n <= 20 ``robustness`` should start in well under 0.5 s
on an idle machine; issue 33: ``info`` on GraphML (igraph without matplotlib) and every
command's ``--help`` under 0.3 s (``--help`` rows with ``--helps``). Each command runs as a
fresh interpreter running the program (``python -c 'from robustgraph.cli.main import run;
run()' ARGS``), ``--repeat`` times, interleaved across the source trees given
(``--tree NAME=PATH``, e.g. a checkout of the previous revision beside this one: each runs with
``PYTHONPATH=PATH``), so load on the shared machine hits all alike. The table gives the median
wall time and the median CPU time (user + system, from ``os.wait4``: what an idle machine's wall
time would be, near enough, for a single-threaded process) and the ratio to the first tree. The
first row, ``python -c pass``, is the interpreter's own floor. Not part of the test run::

    nice -n 10 .venv/bin/python benchmarks/startup.py --tree old=/tmp/old --tree new=. --repeat 5
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import networkx as nx

from robustgraph import io
from robustgraph.topology import Topology

__all__ = ["main"]

_ENTRY = "from robustgraph.cli.main import run; run()"
"""The ``robustgraph`` program itself (its start-up arrangements included)."""


def _graphs(folder: Path) -> dict[str, Path]:
    """Two small graphs the portfolio answers by subset DP (n <= 20), and the first as GraphML
    (read by igraph)."""
    made = {
        "er20": nx.gnp_random_graph(20, 0.5, seed=3),
        "dig16": nx.gnp_random_graph(16, 0.4, seed=5, directed=True),
    }
    paths = {}
    for name, graph in made.items():
        paths[name] = folder / f"{name}.json"
        io.write(Topology.from_networkx(graph), paths[name])
    paths["er20.graphml"] = folder / "er20.graphml"
    io.write(Topology.from_networkx(made["er20"]), paths["er20.graphml"])
    return paths


def _run(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(wall, cpu) seconds of one process; raises if it fails."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 3):
        raise SystemExit(f"{' '.join(argv)} exited {proc.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--tree",
        action="append",
        default=None,
        metavar="NAME=PATH",
        help="A source tree to time (repeatable; default: this checkout).",
    )
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--helps", action="store_true", help="Also time every command's --help.")
    args = parser.parse_args(argv)
    here = Path(__file__).resolve().parent.parent
    trees = [t.split("=", 1) for t in (args.tree or [f"this={here}"])]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        paths = _graphs(folder)
        commands = {
            "python -c pass": None,
            "info er20.json": ["info", str(paths["er20"])],
            "info dig16.json --json": ["info", str(paths["dig16"]), "--json"],
            "robustness er20.json": ["robustness", str(paths["er20"])],
            "robustness dig16.json --json": ["robustness", str(paths["dig16"]), "--json"],
            "info er20.graphml": ["info", str(paths["er20.graphml"])],
        }
        if args.helps:
            from robustgraph.cli.main import COMMANDS

            commands["--help"] = ["--help"]
            commands.update({f"{name} --help": [name, "--help"] for name in sorted(COMMANDS)})
        load_before = os.getloadavg()
        times: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for _ in range(args.repeat):
            for label, command in commands.items():
                for name, path in trees:
                    env = dict(os.environ, PYTHONPATH=str(Path(path).resolve()))
                    argv_ = [sys.executable, "-c", "pass" if command is None else _ENTRY]
                    argv_ += command or []
                    times.setdefault((label, name), []).append(_run(argv_, env, folder))
        load_after = os.getloadavg()
    print(f"machine: {platform.node()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"load (1, 5, 15 min): before {load_before}, after {load_after}")
    print(f"medians of {args.repeat} runs, interleaved; ratio = tree / {trees[0][0]}\n")
    print("| command | tree | wall s | CPU s | wall ratio | CPU ratio |")
    print("|---|---|---|---|---|---|")
    for label in commands:
        base = None
        for name, _ in trees:
            wall = statistics.median(w for w, _ in times[label, name])
            cpu = statistics.median(c for _, c in times[label, name])
            base = base or (wall, cpu)
            print(
                f"| {label} | {name} | {wall:.3f} | {cpu:.3f} | "
                f"{wall / base[0]:.2f} | {cpu / base[1]:.2f} |"
            )


if __name__ == "__main__":
    main()
