"""Measured scaling of the robustness engines on the issue-8 suite: one table, one row per graph.

For every graph of the suite (fixed seeds) it runs, each under a per-solve cap:

- the default ``portfolio`` on ``max_r`` (the r* column, its status and seconds), with
  ``threads = 1`` and, in the ``race`` column, with ``threads = 2`` (CP-SAT and HiGHS race on
  two cores, ``solvers/race.py``; ``--no-race`` leaves it out). Beside it: the racer that
  settled it, ``cores`` (process CPU seconds over wall seconds: how much of the two cores the
  race got on a shared machine) and ``2-core est`` (the wall time before the race plus the
  winner's CPU seconds: what the race would take with a core per racer; an estimate);
- the deployment decision ``is_r_robust(G, r)`` at ``r = ceil(r*/2)`` and at ``r = r*`` (the
  hardest yes) for graphs with n <= ``--decision-max-n``;
- ``max_r`` with the ``published`` (Usevitch & Panagou 2020) and the ``strong`` model on each of
  CP-SAT, HiGHS and CBC, for graphs with n <= ``--model-max-n``.

A cell is the wall time in seconds when the solve was exact, ``>cap [lower,upper]`` when the cap
stopped it (bounds still proven), ``-`` when not run. With ``--seeds K`` the Erdos-Renyi
n = 40, p = 0.5 graph is repeated for seeds 0..K-1 and the medians of CP-SAT published and strong
over those seeds close the table (the issue's 10x comparison; a capped solve counts at the cap,
so its ratio is a lower bound). Not part of the test run. The table in docs/performance.md::

    .venv/bin/python benchmarks/certify_scaling.py --seeds 5

With ``--sparse`` it measures instead how whole commands grow with n on large sparse graphs
(issue 32): for each family of :data:`SPARSE_FAMILIES` and each n of ``--sparse-sizes``
(10^3 to 10^5 by default) it writes the graph to an edge list and runs, each as its own process,
``robustgraph robustness --time-limit T`` and ``robustgraph certify --r 1``; a row holds each
command's wall seconds, peak resident memory (``os.wait4``'s ``ru_maxrss``: the child's own
peak) and answer. ``--plot FILE`` draws both against n (log-log, matplotlib). The table and plot
in docs/performance.md::

    nice -n 5 .venv/bin/python benchmarks/certify_scaling.py --sparse --plot docs/img/scaling.svg
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import networkx as nx

from robustgraph import generators, limits
from robustgraph import io as graph_io
from robustgraph.topology import Topology
from solvers import race, registry
from solvers.types import Question, Request, Result, Status

FAMILIES = ("er", "digraph", "kin", "merg", "pa", "circulant", "rgg")
MODELS = [(e, f) for e in ("cpsat", "highs", "cbc") for f in ("published", "strong")]
SPARSE_FAMILIES = ("cycle", "4-regular", "pa2", "pa3", "grid")
"""cycles (r* = 1), random 4-regular graphs, preferential attachment with r = 2 and 3 (r* = r,
LeBlanc et al. 2013 Thm. 5), square grids (r* = 1)."""
COMPARE = ("er", 40, "p=0.5")
"""The instance repeated over seeds for the published-vs-strong comparison."""


def suite(families: list[str], sizes: list[int], big: list[int], seeds: int) -> Iterator[tuple]:
    """``(family, n, parameter label, seed, Topology)``: seed 0 everywhere, plus seeds
    1..seeds-1 of :data:`COMPARE`."""
    for family in families:
        if family in ("er", "digraph"):
            for n in sizes:
                for p in (0.3, 0.5):
                    label = f"p={p}"
                    extra = seeds if (family, n, label) == COMPARE else 1
                    for seed in range(extra):
                        g = generators.erdos_renyi(n, p, seed=seed, directed=family == "digraph")
                        yield family, n, label, seed, g
        elif family == "kin":
            for n in sizes:
                for k in (3, 4, 5):
                    yield family, n, f"k={k}", 0, generators.random_k_in(n, k, seed=0)
        elif family == "merg":
            for n in big:
                yield family, n, "-", 0, generators.gamma_merg(n)
        elif family == "pa":
            for n in big:
                for r in (3, 5):
                    yield family, n, f"r={r}", 0, generators.preferential_attachment(n, r, seed=0)
        elif family == "circulant":
            for n in big:
                yield family, n, "k=4", 0, generators.k_circulant(n, 4)
        elif family == "rgg":
            for n in big:
                radius = 0.25 if n <= 50 else 0.18
                g = nx.random_geometric_graph(n, radius, seed=0)
                yield family, n, f"rad={radius}", 0, Topology.from_networkx(g)


def _solve(
    g: Topology, q: Question, engine: str, form: str, cap: float, threads: int = 1
) -> tuple[Result, float]:
    res, secs, _ = _solve_cpu(g, q, engine, form, cap, threads)
    return res, secs


def _solve_cpu(
    g: Topology, q: Question, engine: str, form: str, cap: float, threads: int = 1
) -> tuple[Result, float, float]:
    """The result, its wall seconds and the process CPU seconds it used (all threads)."""
    start, cpu = time.perf_counter(), time.process_time()
    res = registry.solve(Request(g, q, cap, threads, form, 0), engine)
    return res, time.perf_counter() - start, time.process_time() - cpu


def _two_core_estimate(res: Result) -> str:
    """Seconds the race would take if each racer had a core of its own: the wall time before
    the race plus the winner's CPU seconds (one-worker solves run in the racer's thread)."""
    steps = res.params.get("steps", [])
    done = next((s for s in steps if s.get("step") == "race"), None)
    if done is None or done["winner"] is None:
        return "-"
    cpu = sum(s.get("cpu", 0.0) for s in steps if s.get("engine") == done["winner"])
    return f"{done['started'] + cpu:.2f}"


def _winner(res: Result) -> str:
    """Which racer settled it: ``cpsat``/``highs`` (``/pub`` when the published slice did),
    ``no race`` when the subset DP or the cheap bounds did, ``-`` when nothing settled it."""
    steps = res.params.get("steps", [])
    done = next((s for s in steps if s.get("step") == "race"), None)
    if done is None:
        return "no race" if res.status is Status.EXACT else "-"
    if done["winner"] is None:
        return "-"
    last = [s for s in steps if s.get("engine") == done["winner"] and "model" in s][-1]
    return done["winner"] + ("/pub" if last["model"].startswith("published") else "")


def _cell(res: Result | None, seconds: float) -> str:
    if res is None:
        return "-"
    if res.status is Status.EXACT:
        return f"{seconds:.2f}"
    return f">cap [{res.lower},{res.upper}]"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--families", default=",".join(FAMILIES), help=f"comma list of {FAMILIES}")
    ap.add_argument("--sizes", default="20,30,40,50,60", help="n for er, digraph and kin")
    ap.add_argument("--big", default="50,100,200", help="n for merg, pa, circulant and rgg")
    ap.add_argument("--seeds", type=int, default=1, help="seeds of ER n=40 p=0.5 (comparison)")
    ap.add_argument("--cap", type=float, default=60.0, help="seconds per portfolio/CP-SAT solve")
    ap.add_argument("--milp-cap", type=float, default=20.0, help="seconds per HiGHS/CBC solve")
    ap.add_argument("--decision-cap", type=float, default=10.0, help="seconds per decision")
    ap.add_argument("--model-max-n", type=int, default=60, help="largest n for model engines")
    ap.add_argument("--decision-max-n", type=int, default=50, help="largest n for decisions")
    ap.add_argument("--models", default=",".join(f"{e}:{f}" for e, f in MODELS))
    ap.add_argument("--json", action="store_true", help="one JSON object per row instead")
    ap.add_argument(
        "--race",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="the race column: portfolio with threads=2",
    )
    ap.add_argument(
        "--published-slice",
        type=float,
        default=race.PUBLISHED_SLICE,
        help="seconds of the published model the race's CP-SAT racer starts with",
    )
    ap.add_argument(
        "--params", default="", help="keep only these param labels, e.g. p=0.5,k=5 (default: all)"
    )
    ap.add_argument(
        "--gil-check",
        action="store_true",
        help="only measure whether CP-SAT and HiGHS solves run in parallel in two threads",
    )
    ap.add_argument("--sparse", action="store_true", help="whole commands on large sparse graphs")
    ap.add_argument("--sparse-families", default=",".join(SPARSE_FAMILIES))
    ap.add_argument("--sparse-sizes", default="1000,3000,10000,30000,100000")
    ap.add_argument("--time-limit", type=float, default=10.0, help="robustness --time-limit")
    ap.add_argument("--plot", help="with --sparse: draw seconds and memory against n here")
    args = ap.parse_args(argv)
    if args.gil_check:
        return _gil_check()
    if args.sparse:
        return _sparse(args)
    race.PUBLISHED_SLICE = args.published_slice  # read by race.racers() when the portfolio races
    families = [f for f in args.families.split(",") if f]
    unknown = set(families) - set(FAMILIES)
    if unknown:
        ap.error(f"unknown families {sorted(unknown)}; choose from {FAMILIES}")
    sizes = [int(x) for x in args.sizes.split(",") if x]
    big = [int(x) for x in args.big.split(",") if x]
    models = [tuple(x.split(":")) for x in args.models.split(",") if x]
    keep = {x for x in args.params.split(",") if x}
    print(
        f"# {platform.node()} {platform.machine()}, {os.cpu_count()} cores, load {_load()}, "
        f"{time.strftime('%Y-%m-%d %H:%M %Z')}, python {platform.python_version()}, threads 1 "
        f"(race: 2, published slice {args.published_slice:g} s), caps: portfolio/cpsat "
        f"{args.cap:g} s, highs/cbc {args.milp_cap:g} s, "
        f"decisions {args.decision_cap:g} s",
        flush=True,
    )
    warm = generators.complete(4)  # load solver libraries before the clock starts
    for engine in ("portfolio", "cpsat", "highs", "cbc"):
        registry.solve(Request(warm, Question.max_r()), engine)
    columns = ["family", "n", "param", "seed", "r*", "portfolio"]
    widths = [9, 4, 8, 4, 8, 22]
    if args.race:
        columns += ["race", "won by", "cores", "2-core est"]
        widths += [22, 10, 5, 10]
    columns += ["dec r*/2", "dec r*"] + [f"{e} {f[:3]}" for e, f in models]
    widths += [9, 9] + [22] * len(models)
    if not args.json:
        print("  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)), flush=True)
    compare: dict[tuple[str, str], list[float]] = {}
    timings: dict[str, list[tuple[Result, float]]] = {"portfolio": [], "race": []}
    for family, n, param, seed, g in suite(families, sizes, big, args.seeds):
        if keep and param not in keep:
            continue
        res, secs = _solve(g, Question.max_r(), "portfolio", "strong", args.cap)
        timings["portfolio"].append((res, secs))
        row = {"family": family, "n": n, "param": param, "seed": seed}
        row["portfolio"] = _cell(res, secs)
        if args.race:
            rres, rsecs, rcpu = _solve_cpu(
                g, Question.max_r(), "portfolio", "strong", args.cap, threads=2
            )
            timings["race"].append((rres, rsecs))
            row["race"], row["won by"] = _cell(rres, rsecs), _winner(rres)
            row["cores"] = f"{rcpu / max(rsecs, 1e-9):.2f}"
            row["2-core est"] = _two_core_estimate(rres)
            if rres.value is not None and res.value is None:
                res = rres  # the bounds columns below use what either proved
        star = res.value if res.value is not None else res.lower
        row["r*"] = str(res.value) if res.value is not None else f"[{res.lower},{res.upper}]"
        for label, r in (("dec r*/2", math.ceil(star / 2)), ("dec r*", star)):
            cell = "-"
            if n <= args.decision_max_n and r > 0:
                dres, dsecs = _solve(
                    g, Question.is_r_robust(r), "portfolio", "strong", args.decision_cap
                )
                cell = _cell(dres, dsecs)
            row[label] = cell
        for engine, form in models:
            cap = args.cap if engine == "cpsat" else args.milp_cap
            mres, msecs = (None, 0.0)
            if n <= args.model_max_n:
                mres, msecs = _solve(g, Question.max_r(), engine, form, cap)
                if (family, n, param) == COMPARE and engine == "cpsat":
                    exact = mres.status is Status.EXACT
                    compare.setdefault((engine, form), []).append(msecs if exact else cap)
            row[f"{engine} {form[:3]}"] = _cell(mres, msecs)
        if args.json:
            print(json.dumps(row), flush=True)
        else:
            cells = [str(row[c]) for c in columns]
            print("  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)), flush=True)
    if args.race and timings["race"] and not args.json:
        _summary(timings, args.cap)
    if compare and not args.json:
        pub = statistics.median(compare.get(("cpsat", "published"), [math.nan]))
        strong = statistics.median(compare.get(("cpsat", "strong"), [math.nan]))
        count = len(compare.get(("cpsat", "strong"), []))
        print(
            f"# ER n=40 p=0.5, {count} seeds, CP-SAT median seconds: published {pub:.2f}, "
            f"strong {strong:.2f}, ratio {pub / strong:.1f}x (capped solves count at the cap)"
        )
    if not args.json:
        print(f"# load at the end {_load()}")
    return 0


def _gil_check(n: int = 40, seed: int = 0) -> int:
    """Wall and CPU seconds of the strong model's infeasible probe of G(n, 1/2): each engine
    alone, then two solves at once in two threads of this process. Two threads on two idle
    cores take about the wall of the slower solve alone when the engines release the GIL."""
    from solvers import cpsat, highs
    from solvers.milp_model import strong_r

    g = generators.erdos_renyi(n, 0.5, seed=seed)
    star = registry.solve(Request(g, Question.max_r()), "portfolio").value
    model = strong_r(g.in_neighbors, star)
    engines = {"cpsat": cpsat, "highs": highs}
    print(f"# G({n}, 1/2) seed {seed}, strong model at r* = {star}, load {_load()}")
    print("solves            wall s  cpu s  per solve (wall s)")
    combos = [("cpsat",), ("highs",), ("cpsat", "cpsat"), ("highs", "highs"), ("cpsat", "highs")]

    def one(walls: dict[int, float], k: int, name: str) -> None:
        walls[k] = engines[name].run(model, None, 1, 0).seconds

    for combo in combos:
        walls: dict[int, float] = {}
        threads = [threading.Thread(target=one, args=(walls, k, e)) for k, e in enumerate(combo)]
        start, cpu = time.perf_counter(), time.process_time()
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        wall, used = time.perf_counter() - start, time.process_time() - cpu
        each = ", ".join(f"{combo[k]} {walls[k]:.2f}" for k in sorted(walls))
        print(f"{' + '.join(combo):<17} {wall:6.2f}  {used:5.2f}  {each}", flush=True)
    print(f"# load at the end {_load()}")
    return 0


def _sparse_graph(family: str, n: int) -> Topology:
    """The family's graph on about n nodes (a grid: the nearest square), seed 0."""
    if family == "cycle":
        return Topology.from_networkx(nx.cycle_graph(n))
    if family == "4-regular":
        return Topology.from_networkx(nx.random_regular_graph(4, n, seed=0))
    if family in ("pa2", "pa3"):  # above the generator's 20,000-node ceiling for the CLI
        with _ceiling("MAX_PA_NODES", n):
            return generators.preferential_attachment(n, int(family[2]), seed=0)
    side = round(math.sqrt(n))
    return Topology.from_networkx(nx.convert_node_labels_to_integers(nx.grid_2d_graph(side, side)))


@contextlib.contextmanager
def _ceiling(name: str, value: int) -> Iterator[None]:
    """Raise one of ``robustgraph.limits``' ceilings to ``value`` for this process only."""
    saved = getattr(limits, name)
    setattr(limits, name, max(saved, value))
    try:
        yield
    finally:
        setattr(limits, name, saved)


def _timed(command: list[str], scratch: Path) -> tuple[float, float, dict]:
    """Run a command under GNU ``/usr/bin/time``; its wall seconds, peak resident MB and
    parsed ``--json`` output. (A child's ``ru_maxrss`` from ``os.wait4`` would start at this
    process's own size, as the fork copies it; ``time`` is small.)"""
    report = scratch / "time.txt"
    start = time.perf_counter()
    done = subprocess.run(
        ["/usr/bin/time", "-f", "%M", "-o", str(report), *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    seconds = time.perf_counter() - start
    try:
        data = json.loads(done.stdout)
    except ValueError:
        data = {}
    peak_kb = int(report.read_text().split()[-1])
    return seconds, peak_kb / 1024, data


def _sparse(args: argparse.Namespace) -> int:
    """The ``--sparse`` table (module notes), and the plot with ``--plot``."""
    families = [f for f in args.sparse_families.split(",") if f]
    sizes = [int(x) for x in args.sparse_sizes.split(",") if x]
    cli = [str(Path(sys.executable).with_name("robustgraph"))]  # the venv's entry point
    print(
        f"# {platform.node()} {platform.machine()}, {os.cpu_count()} cores, load {_load()}, "
        f"{time.strftime('%Y-%m-%d %H:%M %Z')}, python {platform.python_version()}; robustness "
        f"--time-limit {args.time_limit:g}; certify --r 1 (no limit); wall s / peak MB",
        flush=True,
    )
    print(f"{'family':10} {'n':>7} {'m':>7}  {'robustness':>16}  {'r*':<10}  {'certify --r 1':>16}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:  # interleaved: every family at one size before the next size
            for family in families:
                g = _sparse_graph(family, n)
                path = Path(tmp) / f"{family}-{n}.edgelist"
                graph_io.write(g, path)
                rob = _timed(
                    [
                        *cli,
                        "robustness",
                        "--undirected",
                        "--json",
                        "--time-limit",
                        str(args.time_limit),
                        str(path),
                    ],
                    Path(tmp),
                )
                cert = _timed(
                    [
                        *cli,
                        "certify",
                        "--r",
                        "1",
                        "--undirected",
                        "--json",
                        str(path),
                        "-o",
                        str(Path(tmp) / "c.cert.json"),
                    ],
                    Path(tmp),
                )
                r = rob[2].get("r") or {}
                answer = f"{r.get('lower')}..{r.get('upper')}" if r else "?"
                if r.get("status") == "exact":
                    answer = str(r.get("value"))
                verdict = cert[2].get("verdict", "?")
                rows.append((family, g.n, rob[0], rob[1], cert[0], cert[1]))
                print(
                    f"{family:10} {g.n:7} {g.m:7}  {rob[0]:7.2f} {rob[1]:7.0f}MB  {answer:<10}  "
                    f"{cert[0]:7.2f} {cert[1]:7.0f}MB {verdict}",
                    flush=True,
                )
    print(f"# load at the end {_load()}")
    if args.plot:
        _plot(rows, families, args.plot)
    return 0


def _plot(rows: list[tuple], families: list[str], path: str) -> None:
    """Seconds and peak MB against n, log-log, one line per family and command."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for i, family in enumerate(families):
        mine = [r for r in rows if r[0] == family]
        ns = [r[1] for r in mine]
        for k, (what, style) in enumerate((("robustness", "-o"), ("certify --r 1", "--s"))):
            label = f"{family}: {what}"
            axes[0].plot(ns, [r[2 + 2 * k] for r in mine], style, color=f"C{i}", label=label)
            axes[1].plot(ns, [r[3 + 2 * k] for r in mine], style, color=f"C{i}", label=label)
    for ax, label in zip(axes, ("wall seconds", "peak resident MB"), strict=True):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("n (nodes)")
        ax.set_ylabel(label)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=6, ncol=2)
    fig.suptitle("robustness --time-limit 10 (solid) and certify --r 1 (dashed) on sparse graphs")
    fig.tight_layout()
    fig.savefig(path)


def _load() -> str:
    """The 1, 5 and 15 minute load averages (other users' work shares the cores)."""
    if not hasattr(os, "getloadavg"):
        return "unknown"
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


def _summary(timings: dict[str, list[tuple[Result, float]]], cap: float) -> None:
    """Exact rows, median seconds (a capped solve counts at the cap) and the race's speed-up."""
    for name, runs in timings.items():
        exact = sum(res.status is Status.EXACT for res, _ in runs)
        secs = [s if res.status is Status.EXACT else cap for res, s in runs]
        print(
            f"# {name}: {exact}/{len(runs)} exact within {cap:g} s, median "
            f"{statistics.median(secs):.2f} s (capped solves count at the cap)"
        )
    both = [
        (a[1], b[1])
        for a, b in zip(timings["portfolio"], timings["race"], strict=True)
        if a[0].status is Status.EXACT and b[0].status is Status.EXACT
    ]
    if both:
        ratios = [one / max(two, 1e-3) for one, two in both]
        print(
            f"# rows exact in both: {len(both)}; threads=1 / race wall, median "
            f"{statistics.median(ratios):.2f}x, min {min(ratios):.2f}x, max {max(ratios):.2f}x"
        )


if __name__ == "__main__":
    sys.exit(main())
