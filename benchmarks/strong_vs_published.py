"""Issue 8's side-by-side comparison: the strong model against the published MILP on one engine.

For Erdos-Renyi G(n, p) graphs (default n = 40, p = 1/2, seeds 0..K-1) it answers ``max_r`` with
the ``published`` model (Usevitch & Panagou 2020) and the ``strong`` model, both on CP-SAT,
alternating per seed so that both see the same machine load. The published model is an
optimisation model, and CP-SAT's extra workers help it (its lower bound comes from dedicated
bound workers), so it runs with 1 and with ``--published-threads`` workers; the strong model
runs with 1 worker (its probes are decisions, which a single LP-heavy worker proves fastest).

A solve stopped by its cap counts at the cap, so a ratio computed from a capped median is a
lower bound on the true ratio. Prints one row per seed and the medians. Not part of the tests::

    .venv/bin/python benchmarks/strong_vs_published.py --seeds 5 --cap 200
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

from robustgraph import generators
from solvers import registry
from solvers.types import Question, Request, Result, Status


def _solve(g, form: str, threads: int, cap: float) -> tuple[Result, float]:
    start = time.perf_counter()
    res = registry.solve(Request(g, Question.max_r(), cap, threads, form, 0), "cpsat")
    return res, time.perf_counter() - start


def _cell(res: Result, seconds: float, cap: float) -> str:
    if res.status is Status.EXACT:
        return f"{seconds:.2f}"
    return f">{cap:g} [{res.lower},{res.upper}]"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--p", type=float, default=0.5)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--cap", type=float, default=200.0, help="seconds per solve")
    ap.add_argument("--published-threads", type=int, default=2)
    args = ap.parse_args(argv)
    runs = [("published", 1), ("published", args.published_threads), ("strong", 1)]
    load = os.getloadavg()[0]
    print(
        f"# {platform.node()}, {os.cpu_count()} cores, load {load:.2f} at start, "
        f"ER n={args.n} p={args.p}, CP-SAT, cap {args.cap:g} s per solve",
        flush=True,
    )
    warm = generators.complete(4)
    registry.solve(Request(warm, Question.max_r()), "cpsat")
    header = ["seed", "r*"] + [f"{form} x{t}" for form, t in runs]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header), flush=True)
    times: dict[tuple[str, int], list[float]] = {run: [] for run in runs}
    for seed in range(args.seeds):
        g = generators.erdos_renyi(args.n, args.p, seed=seed)
        cells, values = [], set()
        for form, threads in runs:
            res, secs = _solve(g, form, threads, args.cap)
            exact = res.status is Status.EXACT
            times[(form, threads)].append(secs if exact else args.cap)
            if exact:
                values.add(res.value)
            cells.append(_cell(res, secs, args.cap))
        if len(values) > 1:
            print(f"error: the models disagree on seed {seed}: {sorted(values)}", file=sys.stderr)
            return 4
        star = str(values.pop()) if values else "?"
        print(f"| {seed} | {star} | " + " | ".join(cells) + " |", flush=True)
    strong = statistics.median(times[("strong", 1)])
    for form, threads in runs[:2]:
        pub = statistics.median(times[(form, threads)])
        capped = sum(t >= args.cap for t in times[(form, threads)])
        print(
            f"# median published x{threads} {pub:.2f} s ({capped} of {args.seeds} capped) / "
            f"strong x1 {strong:.2f} s = {pub / strong:.1f}x"
            + (" (a lower bound: capped solves count at the cap)" if capped else "")
        )
    print(f"# load {os.getloadavg()[0]:.2f} at the end", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
