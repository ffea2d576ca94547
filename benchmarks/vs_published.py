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

Graphs (issue 32's range, at least 150 in the default run): ``robustgraph.generators.erdos_renyi(n,
p, seed, directed)`` for graphs and digraphs, n in ``--sizes`` (10-60), p in ``--probs``
(0.2-0.7), seeds ``--er-seeds``; the structured families of :data:`FAMILIES` at n in
``--struct-sizes`` (30-100), seeds ``--seeds`` (1001-1003: no test or other benchmark uses them);
and ``issue32``, the random 8-regular graph on 60 nodes of networkx seed 8105. All interleaved:
every family at one n before the next n, and the three commands of a graph in an order that
rotates. Our command runs with ``--time-limit`` = ``--cap`` (wall seconds; it then stops with
proven bounds, as a user would run it); every command, ours and the scripts, is stopped at the
same wall limit, ``--cap`` + :data:`GRACE` seconds, or at its CPU cap of its workers x ``--cap``
seconds, whichever comes first, and a script stopped so keeps the bounds of its last progress
line (:func:`_timed`; the header says the limits). The
summary gives the median of best script / ours where either side needs more than 0.5 s (and
again without the graphs no side proved r* of, where both ran to the cap and the ratio is one
of two caps), names every graph where ours is slower than the best script by more than
10% + 0.1 s, and counts the graphs where r* agrees. ``--only NAME,NAME`` re-runs just those
rows (names as in the summary), e.g. rows that were slower only under load. ``--deadlines``
instead runs ``robustness --time-limit T`` on the five hard suite graphs of
``benchmarks/certify_scaling.py`` (seed 0) and prints the wall time against T + 2 s.

``--workers`` runs issue 40's two comparisons instead, five commands per graph in rotating order
(:func:`compare_workers`): ``--threads 1`` against the faster one-worker script (CP-SAT with one
worker, HiGHS), and the default against the CP-SAT script with two workers, in wall and CPU
seconds. ``--large T,T`` prints the bounds of the large graphs of :data:`LARGE` at each limit T,
ours against the published model on CP-SAT given the same T (:func:`large`). Issue 40's seed,
registered before its run (docs/performance.md): 7001. Its second round (registered 2026-12-03
18:23 UTC, before any of its measurements): seed 7101 for the ``--workers`` run of the families
er, digraph, regular, regular-wide, ws, rgg, sbm, clusters, kab, grid, kin (n = 60, 80; ER at
n = 30, 50, p = 0.2, 0.35, 0.5) with the same command at seed 7102 beside it; ``--rs`` (the
(r, s) question at R = r* against the published (r, s) model) on ER graphs and digraphs of
n = 26, 30, 35, 40 at seed 7101; ``--large`` at seed 7101. Scratch seeds for tuning: 7201-7210.
Its third round (registered 2026-12-03 before any of its measurements, docs/performance.md
"Issue 40, round 3"): seed 7104 for the ``--workers`` run of the same families and sizes, with
the same command at seed 7105 started at the same moment beside it; scratch seeds 7211-7230.
Since that round each command's CPU cap is its workers x ``--cap`` (the CP-SAT script with two
workers: 2 x ``--cap``), the CP-SAT scripts print their bounds as they move (``--progress``),
and a row that no side of a comparison proved r* of is listed apart as bounded on both sides,
out of the slower rows and the medians (changed after seeing the idle run of seed 7101).
Its fourth round (registered 2026-12-04 00:40 UTC before any of its measurements,
docs/performance.md "Issue 40, round 4"): seed 7106 for the ``--workers`` run of the same
families and sizes, with the same command at seed 7107 started at the same moment beside it;
scratch seeds 7231-7260.
Its fifth round (registered 2026-12-04 04:15 UTC before any of its measurements,
docs/performance.md "Issue 40, round 5"): seed 7108 alone on an idle machine, then seed 7108 with
seed 7109 started beside it, same families, sizes and command; scratch seeds 7261-7290; from that
round every command gets the same wall limit as well as its CPU cap (decided after seeing the busy
run of seed 7107): ``--cap`` + :data:`GRACE` wall seconds, where until then a script had ten
times ``--cap`` and ours its own ``--time-limit``. ``--deadlines`` and ``--large`` give each
command a CPU cap of ``T`` + 30 s, as before, and a wall limit of ``T`` + 30 s + :data:`GRACE`
(the wall time is what ``--deadlines`` checks, against ``T`` + 2 s).

    nice -n 5 .venv/bin/python benchmarks/vs_published.py --cap 20          # the full run
    nice -n 5 .venv/bin/python benchmarks/vs_published.py --cap 20 --only regular-60-d8-1001
    nice -n 10 .venv/bin/python benchmarks/vs_published.py --deadlines 20,60
    nice -n 5 .venv/bin/python benchmarks/vs_published.py --workers --cap 10 --seeds 7001 \
        --er-seeds 7001 --sizes 30,50 --probs 0.2,0.35,0.5 --struct-sizes 60,80 \
        --families er,digraph,regular,regular-wide,ws,rgg,sbm,clusters,kab,grid,kin
    nice -n 5 .venv/bin/python benchmarks/vs_published.py --workers --cap 10 --seeds 7104 \
        --er-seeds 7104 --sizes 30,50 --probs 0.2,0.35,0.5 --struct-sizes 60,80 \
        --families er,digraph,regular,regular-wide,ws,rgg,sbm,clusters,kab,grid,kin
    nice -n 5 .venv/bin/python benchmarks/vs_published.py --large 1,10 --seeds 7001
    nice -n 5 .venv/bin/python benchmarks/vs_published.py --large 10 --seeds 7101 \
        --large-sizes 1000,3000,10000
    nice -n 5 .venv/bin/python benchmarks/vs_published.py --rs --cap 20 --sizes 26,30,35,40 \
        --probs 0.2,0.35,0.5 --er-seeds 7101 --families er,digraph

``--rs`` runs issue 40's (r, s) comparison instead (:func:`compare_rs`): at R = r*, our
``robustness FILE --rs R`` against the published (r, s) model on CP-SAT with one worker
(``published_milp.py FILE cpsat-s R``). ``--large-sizes N,N`` puts each large family at each n.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import resource
import signal
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


GRACE = 1.0
"""Wall seconds every command of a comparison gets beyond ``--cap``, the same for all of them:
start-up (the interpreter, imports, reading the graph) and exit. Ours stops itself at
``--time-limit`` = ``--cap``; a script has no limit of its own and is stopped at ``--cap`` +
:data:`GRACE` wall seconds (:func:`_timed`)."""


def _timed(
    cmd: list[str], cap: float, workers: int = 1, *, wall: float | None = None
) -> tuple[dict | None, float, float, int | None]:
    """Run ``cmd`` under two limits, whichever comes first: a CPU cap of ``workers`` x ``cap``
    seconds (``RLIMIT_CPU``; a command with w workers gets w x cap, the same ``cap`` wall
    seconds on an idle machine) and a wall limit of ``wall`` seconds (default ``cap`` +
    :data:`GRACE`: the same for every command of a comparison, so that a busy machine stretches
    no side's time beyond the other's). A command stopped by the wall limit is killed with its
    process group (``SIGKILL``) and what it printed until then is kept: a script's last
    ``--progress`` line still tells the bounds it reached (:func:`_proved`, :func:`_reached`).
    Returns its last JSON output (:func:`_last_json`), its wall and CPU seconds (its own and
    its children's), and its exit code (None when a limit stopped it)."""
    cpu_cap = math.ceil(workers * cap)
    wall_limit = cap + GRACE if wall is None else wall

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_cap, cpu_cap + 1))

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        preexec_fn=limit,
        start_new_session=True,  # its own process group: a stop ends its children too
    )
    try:
        out, _ = proc.communicate(timeout=wall_limit)
        code: int | None = proc.returncode if proc.returncode >= 0 else None
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()  # everything printed before the stop (none of it is lost)
        code = None
    wall_s = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return _last_json(out.strip()), wall_s, cpu, code


def _limits(cap: float, workers: str) -> str:
    """The header line that says the limits of a comparison: every command's wall limit and
    CPU cap (``workers``: which commands get which multiple of ``cap``)."""
    return (
        f"# limits: every command stopped at {cap + GRACE:g} wall s (--cap {cap:g} + {GRACE:g} s "
        f"for start-up and exit; ours also stops itself at --time-limit {cap:g}) or at its CPU "
        f"cap, {workers}"
    )


def _last_json(out: str) -> dict | None:
    """The JSON a command printed last: its whole output (ours: one indented document), else
    its last line that is a JSON object (a script's answer after its ``--progress`` lines, or
    its last progress line when a limit stopped it, perhaps in the middle of the next line);
    None if none parses."""
    try:
        whole = json.loads(out)
    except json.JSONDecodeError:
        whole = None
    if isinstance(whole, dict):
        return whole
    for line in reversed(out.splitlines()):
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict):
            return data
    return None


FAMILIES = (
    "er",
    "digraph",
    "regular",
    "circulant",
    "ws",
    "rgg",
    "clusters",
    "kab",
    "generate",
    "design",
    "issue32",
    "sbm",
    "grid",
    "kin",
    "regular-wide",
)
"""``er``/``digraph``: G(n, p), p in ``--probs``; the structured families of issue 32: random
d-regular (d = 4, 8), k-circulant (k = 2, n/6), Watts-Strogatz (k = 6, beta = 0.1), random
geometric (radius 0.3), two G(n/2, 0.8) clusters joined by three edges, K_{n/3, 2n/3}; the
outputs of ``generate`` (gamma-MERG, preferential attachment r = 3) and ``design`` (r = 3); and
``issue32``: random 8-regular, n = 60, networkx seed 8105 (the issue's worst case). Issue 40's
families: ``sbm`` (three blocks, p = 0.6 inside, 0.05 across), ``grid`` (the 2-D grid and the
torus nearest n), ``kin`` (``generate k-in``, k = 4 and 10), ``regular-wide`` (random
d-regular, d = 6 and 10)."""

ER = ("er", "digraph")
SBM_SHAPES = "3:0.6:0.05"
"""``--sbm-shapes``: the ``sbm`` family's shapes, ``BLOCKS:P:Q`` comma-separated (equal blocks, the
last taking the remainder; P inside a block, Q across). The default is issue 40's family; round 13
(i43a) measured 2-4 blocks and neighbouring p/q on scratch seeds with other shapes."""

UNSEEDED = ("circulant", "kab", "merg")
"""Families and parameters without a seed: one graph per n, with the first seed."""


def _structured(family: str, n: int, seed: int, first: bool, sbm_shapes: str = SBM_SHAPES):
    """``(parameter label, graph)`` pairs of one structured family at n (networkx or Topology);
    the unseeded ones (:data:`UNSEEDED`) only for the ``first`` seed; ``sbm`` in each shape of
    ``sbm_shapes`` (:data:`SBM_SHAPES`)."""
    import networkx as nx

    from robustgraph import design, generators  # design: the function

    rng_seed = seed % 2**32
    if family == "regular":
        return [(f"d={d}", nx.random_regular_graph(d, n, seed=rng_seed)) for d in (4, 8)]
    if family == "circulant":
        return [(f"k={k}", generators.k_circulant(n, k)) for k in sorted({2, max(2, n // 6)})]
    if family == "ws":
        return [("k=6", nx.connected_watts_strogatz_graph(n, 6, 0.1, seed=rng_seed))]
    if family == "rgg":
        return [("rad=0.3", nx.random_geometric_graph(n, 0.3, seed=rng_seed))]
    if family == "clusters":
        a = nx.gnp_random_graph(n // 2, 0.8, seed=rng_seed)
        b = nx.gnp_random_graph(n - n // 2, 0.8, seed=rng_seed + 1)
        g = nx.disjoint_union(a, b)
        g.add_edges_from((i, n // 2 + i) for i in range(3))
        return [("p=0.8,cut=3", g)]
    if family == "kab":
        return [(f"a={n // 3}", nx.complete_bipartite_graph(n // 3, n - n // 3))]
    if family == "generate":
        merg = [("merg", generators.gamma_merg(n))] if first else []
        return [*merg, ("pa r=3", generators.preferential_attachment(n, 3, seed=seed))]
    if family == "issue32":
        return [("d=8", nx.random_regular_graph(8, 60, seed=8105))]
    if family == "sbm":
        made = []
        for shape in sbm_shapes.split(","):
            blocks, p, q = shape.split(":")
            k = int(blocks)
            sizes = [n // k] * (k - 1) + [n - (k - 1) * (n // k)]
            probs = [[float(p) if a == b else float(q) for b in range(k)] for a in range(k)]
            graph = nx.stochastic_block_model(sizes, probs, seed=rng_seed)
            made.append((f"{k}-p{p}-q{q}", graph))
        return made
    if family == "grid":
        side = max(2, round(n**0.5))
        return [
            (f"{side}x{side}", nx.grid_2d_graph(side, side)),
            (f"torus{side}", nx.grid_2d_graph(side, side, periodic=True)),
        ]
    if family == "kin":
        return [(f"k={k}", generators.random_k_in(n, k, seed=seed)) for k in (4, 10)]
    if family == "regular-wide":
        return [(f"d={d}", nx.random_regular_graph(d, n, seed=rng_seed)) for d in (6, 10)]
    made = design(n, 3, time_limit=5.0, seed=seed, certify_result=False)
    return [("r=3", made.topology)]


def _graphs(args: argparse.Namespace, folder: Path):
    """Every graph, interleaved: all families at one n before the next n."""
    import networkx as nx

    from robustgraph import generators, io
    from robustgraph.topology import Topology

    sizes = {int(x) for x in args.sizes.split(",")}
    struct_sizes = {int(x) for x in args.struct_sizes.split(",")}
    probs = [float(x) for x in args.probs.split(",")]
    families = [f for f in args.families.split(",") if f]
    only = set(filter(None, args.only.split(","))) if args.only else None
    for n in sorted(sizes | struct_sizes | {60}):
        for family in families:
            if family == "issue32":
                if n != 60:
                    continue
                seeds = [8105]
            elif family in ER:
                if n not in sizes:
                    continue
                seeds = [int(x) for x in args.er_seeds.split(",")]
            else:
                if n not in struct_sizes:
                    continue
                seeds = [int(x) for x in args.seeds.split(",")]
            if family in UNSEEDED:
                seeds = seeds[:1]
            for k, seed in enumerate(seeds):
                if family in ER:
                    pairs = [
                        (f"p={p}", generators.erdos_renyi(n, p, seed=seed, directed=family != "er"))
                        for p in probs
                    ]
                else:
                    shapes = getattr(args, "sbm_shapes", SBM_SHAPES)
                    pairs = _structured(family, n, seed, first=k == 0, sbm_shapes=shapes)
                for param, g in pairs:
                    name = f"{family}-{n}-{param}-{seed}".replace("=", "").replace(",", "-")
                    name = name.replace(" ", "")
                    if only is not None and name not in only:
                        continue
                    if not isinstance(g, Topology):
                        g = Topology.from_networkx(nx.convert_node_labels_to_integers(g))
                    path = folder / f"{name}.json"
                    io.write(g, path)
                    yield family, n, param, seed, path


def _inside(data: dict | None) -> str:
    """Where our command's time went: the r* solve's seconds and its steps (engine or bound)."""
    if not data:
        return "-"
    r = data["r"]
    steps = [s.get("step") or s.get("model", "?") for s in r.get("steps", [])]
    names = [name for name in dict.fromkeys(steps) if name not in ("degree", "halves")]
    return f"{r.get('seconds', 0):.2f}, {'+'.join(names)}"


DEFAULT_THREADS = min(2, os.cpu_count() or 1)
"""Our command's default ``--threads`` (2, or 1 on one core): its CPU cap is that many times
``--cap`` where it runs with the default (:func:`_timed`)."""


def _ours(path: Path, extra: list[str]) -> list[str]:
    """Our command as a user runs it (default ``--threads``: 2 on this machine)."""
    command = str(Path(sys.executable).parent / "robustgraph")
    return [command, "robustness", str(path), "--json", *extra]


def compare(args: argparse.Namespace) -> int:
    print(f"# {platform.machine()}, {os.cpu_count()} cores, python {platform.python_version()}")
    print(f"# load {_uptime()} at the start, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(
        f"# ours: robustness FILE --json --time-limit {args.cap:g}; ratios baseline / ours, "
        f"wall (and CPU); load: 1-min at the row's start"
    )
    print(_limits(args.cap, f"{DEFAULT_THREADS:g} x {args.cap:g} s ours, {args.cap:g} s a script"))
    print(
        "| graph | n | param | seed | r* | ours s (cpu) | cpsat s (cpu) | highs s (cpu) "
        "| cpsat/ours | highs/ours | load | ours: r* s, steps |"
    )
    print("|---" * 12 + "|")
    ratios: dict[str, list[float]] = {"cpsat": [], "highs": [], "cpsat cpu": [], "highs cpu": []}
    best_ratios: list[float] = []
    proved_ratios: list[float] = []  # the same, on graphs some side proved r* of
    slower, disagree, unsettled = [], [], []
    agreed = count = 0
    with tempfile.TemporaryDirectory() as tmp:
        for k, (family, n, param, seed, path) in enumerate(_graphs(args, Path(tmp))):
            count += 1
            load = os.getloadavg()[0]
            cmds = {
                "ours": _ours(path, ["--time-limit", f"{args.cap:g}"]),
                "cpsat": [sys.executable, str(BASELINE), str(path), "cpsat"],
                "highs": [sys.executable, str(BASELINE), str(path), "highs"],
            }
            names = list(cmds)
            order = names[k % 3 :] + names[: k % 3]  # interleaved: each goes first in turn
            workers = {"ours": DEFAULT_THREADS, "cpsat": 1, "highs": 1}
            got = {name: _timed(cmds[name], args.cap, workers[name]) for name in order}
            ours_r = got["ours"][0]["r"] if got["ours"][0] else {}
            values = {ours_r.get("value")} if ours_r.get("status") == "exact" else set()
            values |= {got[b][0]["r"] for b in ("cpsat", "highs") if got[b][0]}
            values.discard(None)
            if len(values) > 1:
                disagree.append(f"{path.stem} {sorted(values)}")
            elif len(values) == 1:
                agreed += 1
            else:
                unsettled.append(path.stem)
            cells = []
            for name in names:
                _, wall, cpu, code = got[name]
                capped = code is None or (name == "ours" and ours_r.get("status") != "exact")
                cells.append(f"{'>' if capped else ''}{wall:.2f} ({cpu:.2f})")
            for b in ("cpsat", "highs"):
                ratio = got[b][1] / got["ours"][1]
                cpu_ratio = got[b][2] / got["ours"][2]
                ratios[b].append(ratio)
                ratios[f"{b} cpu"].append(cpu_ratio)
                mark = ">" if got[b][3] is None else ""
                cells.append(f"{mark}{ratio:.2f} ({cpu_ratio:.2f})")
            best = min(got["cpsat"][1], got["highs"][1])
            ours = got["ours"][1]
            if max(best, ours) > 0.5:
                best_ratios.append(best / ours)
                if values:
                    proved_ratios.append(best / ours)
            if _slower(ours, best):
                slower.append(f"{path.stem} ({ours:.2f} s vs {best:.2f} s, load {load:.2f})")
            bounds = f"[{ours_r.get('lower')},{ours_r.get('upper')}]"
            r_text = str(next(iter(values))) if len(values) == 1 else "?"
            if ours_r and ours_r.get("status") != "exact":
                r_text += f" (ours {bounds})"
            cells.append(f"{load:.2f}")
            cells.append(_inside(got["ours"][0]))
            row = [family, str(n), param, str(seed), r_text, *cells]
            print("| " + " | ".join(row) + " |", flush=True)
    for name, rs in ratios.items():
        if rs:
            print(
                f"# vs {name}: median ratio {statistics.median(rs):.2f}, "
                f"min {min(rs):.2f}, ours faster on {sum(r > 1 for r in rs)} of {len(rs)}"
            )
    if best_ratios:
        print(
            f"# vs the best script, where either side needs more than 0.5 s: median "
            f"{statistics.median(best_ratios):.2f}x over {len(best_ratios)} graphs"
        )
    if proved_ratios:  # where no side proved r*, both ran to the cap: a ratio of two caps
        print(
            f"# the same over the graphs that some side proved r* of: median "
            f"{statistics.median(proved_ratios):.2f}x over {len(proved_ratios)} graphs"
        )
    print(f"# graphs: {count}")
    print(f"# slower than the best script by more than 10% + 0.1 s: {', '.join(slower) or 'none'}")
    print(
        f"# r* agrees on {agreed} of {count} graphs (every side that proved it); "
        f"disagreements: {', '.join(disagree) or 'none'}; "
        f"proved by no side within the cap: {', '.join(unsettled) or 'none'}"
    )
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


def _slower(ours: float, best: float) -> bool:
    """The issue's noise margin: slower by more than 10% + 0.1 s."""
    return ours > 1.1 * best + 0.1


Timed = tuple  # (data, wall s, cpu s, exit code or None): what _timed returns

WORKERS = {"ours1": 1, "ours2": DEFAULT_THREADS, "cpsat1": 1, "highs1": 1, "cpsat2": 2}
"""Threads (CP-SAT workers) of each command of the ``--workers`` comparisons: its CPU cap is
that many times ``--cap`` (:func:`_timed`)."""

COMPARISONS = (("one worker", "ours1", ("cpsat1", "highs1")), ("two workers", "ours2", ("cpsat2",)))
"""Issue 40's two comparisons: (label, our command, the scripts it is measured against)."""


def script_command(name: str, path: Path) -> list[str]:
    """The published script of the ``--workers`` comparisons called ``name`` (``cpsat1``,
    ``highs1``, ``cpsat2``: :data:`WORKERS`) on the graph file ``path``."""
    if name == "highs1":
        return [sys.executable, str(BASELINE), str(path), "highs"]
    workers = {"cpsat1": "1", "cpsat2": "2"}[name]
    return [sys.executable, str(BASELINE), str(path), "cpsat", workers, "--progress"]


def _proved(got: Timed) -> int | None:
    """r* as a command proved it, or None: ours when its status is exact, a script when it
    printed its answer (a progress line, or no line, when the cap stopped it)."""
    data = got[0] or {}
    r = data.get("r")
    if isinstance(r, dict):  # ours: {"r": {"status": ..., "value": ...}}
        return r.get("value") if r.get("status") == "exact" else None
    return r


def _reached(got: Timed) -> str:
    """The proven bounds ``[lower, upper]`` a command reached (ours: its JSON; a CP-SAT
    script: its last progress line, ``published_milp.py --progress``), or ``-`` when it
    reported none (HiGHS under the cap)."""
    data = got[0] or {}
    r = data.get("r")
    if isinstance(r, dict):
        return f"[{r.get('lower')}, {r.get('upper')}]"
    if r is not None:
        return f"[{r}, {r}]"
    if "lower" in data or "upper" in data:
        return f"[{data.get('lower')}, {data.get('upper')}]"
    return "-"


def _outcome(ours: Timed, scripts: dict[str, Timed]) -> tuple[str, str | None]:
    """How our command fared against the scripts of one comparison: ``("bounded", None)`` when
    no side proved r* (both ran to their limits: not a time comparison), else ``(kind, best)``
    with ``best`` the fastest script that proved r* (the fastest script when none did) and
    ``kind`` one of ``lost`` (ours bounded where a script proved r*), ``slower`` (ours slower
    than ``best`` by more than 10% + 0.1 s in wall or CPU time) or ``ok``."""
    proved = [name for name, got in scripts.items() if _proved(got) is not None]
    ours_proved = _proved(ours) is not None
    if not proved and not ours_proved:
        return "bounded", None
    best = min(proved or scripts, key=lambda name: scripts[name][1])
    if not ours_proved:
        return "lost", best
    slow = _slower(ours[1], scripts[best][1]) or _slower(ours[2], scripts[best][2])
    return ("slower" if slow else "ok"), best


def _workers_summary(rows: list[tuple[str, dict[str, Timed]]]) -> list[str]:
    """The summary lines of :func:`compare_workers` over ``rows`` (graph name, every command's
    :func:`_timed` result): per comparison the median of best script / ours (wall) and how
    often ours was faster, over the rows some side proved r* of; the rows slower by more than
    10% + 0.1 s (wall or CPU); the rows bounded on our side where a script proved r*; and,
    apart, the rows bounded on both sides (no side proved r*), with the bounds each reached."""
    lines = []
    for label, ours_name, script_names in COMPARISONS:
        ratios: list[float] = []
        slower, lost, bounded = [], [], []
        for name, got in rows:
            ours = got[ours_name]
            kind, best = _outcome(ours, {s: got[s] for s in script_names})
            if kind == "bounded":
                reached = ", ".join(f"{s} {_reached(got[s])}" for s in (ours_name, *script_names))
                bounded.append(f"{name} ({reached})")
                continue
            ratios.append(got[best][1] / ours[1])
            described = (
                f"{name} ({ours[1]:.2f} s, cpu {ours[2]:.2f} vs {best} {got[best][1]:.2f} s, "
                f"cpu {got[best][2]:.2f})"
            )
            if kind == "lost":
                lost.append(f"{name} ({ours_name} {_reached(ours)}, cpu {ours[2]:.2f})")
            if kind in ("lost", "slower"):
                slower.append(described)
        if ratios:
            lines.append(
                f"# {label}: median script/ours {statistics.median(ratios):.2f}, min "
                f"{min(ratios):.2f}, ours faster on {sum(r > 1 for r in ratios)} of {len(ratios)}"
                f" (rows some side proved r* of)"
            )
        lines.append(
            f"# {label}, slower by more than 10% + 0.1 s (wall or CPU): "
            f"{'; '.join(slower) or 'none'}"
        )
        lines.append(
            f"# {label}, ours bounded at its limit where a script proved r*: "
            f"{'; '.join(lost) or 'none'}"
        )
        lines.append(
            f"# {label}, bounded on both sides (no side proved r*; not a time comparison): "
            f"{'; '.join(bounded) or 'none'}"
        )
    return lines


def compare_workers(args: argparse.Namespace) -> int:
    """Issue 40's two comparisons, per graph, five commands interleaved (rotating order): the
    one-worker one, ``--threads 1`` against the best of the one-worker CP-SAT script and the
    HiGHS script, and the two-worker one, our default (``--threads 2``) against the CP-SAT
    script with two workers. Wall and CPU seconds (CPU: the process and its children, the lane
    included); each command's CPU cap is its workers x ``--cap`` (:data:`WORKERS`); a graph is
    slower in a comparison when ours exceeds the script by more than 10% + 0.1 s in wall or in
    CPU time, and a row no side of a comparison proved r* of is listed apart
    (:func:`_workers_summary`)."""
    print(f"# {platform.machine()}, {os.cpu_count()} cores, python {platform.python_version()}")
    print(f"# load {_uptime()} at the start, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    cap = f"{args.cap:g}"
    print(f"# ours: robustness FILE --json --time-limit {cap} (t1: --threads 1, t2: --threads 2)")
    print(_limits(args.cap, f"{cap} s per worker (ours t2 and cpsat w2: {2 * args.cap:g} s)"))
    names = tuple(WORKERS)
    print(
        "| graph | r* | ours t1 s (cpu) | ours t2 s (cpu) | cpsat w1 | highs | cpsat w2 "
        "| 1-worker best/ours | 2-worker cpsat2/ours | load |"
    )
    print("|---" * 10 + "|")
    rows: list[tuple[str, dict[str, Timed]]] = []
    disagree = []
    agreed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for k, (_family, _n, _param, _seed, path) in enumerate(_graphs(args, Path(tmp))):
            load = os.getloadavg()[0]
            cmds = {
                "ours1": _ours(path, ["--time-limit", cap, "--threads", "1"]),
                "ours2": _ours(path, ["--time-limit", cap, "--threads", "2"]),
                **{name: script_command(name, path) for name in ("cpsat1", "highs1", "cpsat2")},
            }
            order = names[k % 5 :] + names[: k % 5]
            got = {name: _timed(cmds[name], args.cap, WORKERS[name]) for name in order}
            rows.append((path.stem, got))
            values = {_proved(got[name]) for name in names} - {None}
            if len(values) > 1:
                disagree.append(f"{path.stem} {sorted(values)}")
            elif values:
                agreed += 1

            def cell(name: str, got: dict = got) -> str:
                capped = _proved(got[name]) is None
                return f"{'>' if capped else ''}{got[name][1]:.2f} ({got[name][2]:.2f})"

            ratios = []
            for _label, ours_name, script_names in COMPARISONS:
                kind, best = _outcome(got[ours_name], {s: got[s] for s in script_names})
                bounded = kind == "bounded"
                ratios.append("bounded" if bounded else f"{got[best][1] / got[ours_name][1]:.2f}")
            r_text = str(next(iter(values))) if len(values) == 1 else "?"
            row = [path.stem, r_text, *(cell(x) for x in names), *ratios, f"{load:.2f}"]
            print("| " + " | ".join(row) + " |", flush=True)
    print(
        f"# graphs: {len(rows)}; r* agrees on {agreed} (every side that proved it); "
        f"disagreements: {', '.join(disagree) or 'none'}"
    )
    for line in _workers_summary(rows):
        print(line)
    print(f"# load {_uptime()} at the end")
    return 0


def compare_rs(args: argparse.Namespace) -> int:
    """Issue 40's (r, s) rows: at R = r* (found first by ``robustness FILE``, not timed), our
    ``robustness FILE --rs R --json --time-limit CAP`` (default threads: r* and s*_R, the whole
    command) against the published (r, s) model on CP-SAT with one worker
    (``published_milp.py FILE cpsat-s R``, under a CPU cap of CAP), back to back in alternating
    order; wall and CPU seconds, s*_R agreement, and the rows where ours is slower by more than
    10% + 0.1 s in wall or CPU time. A row that no side proved s*_R of is listed apart as bounded
    on both sides, out of the slower rows and the medians, as the ``--workers`` comparison does
    since round 3 (applied to ``--rs`` from round 6, decided after seeing the seed-7108 run of
    round 5, whose one "slower" row was of this kind)."""
    print(f"# {platform.machine()}, {os.cpu_count()} cores, python {platform.python_version()}")
    print(f"# load {_uptime()} at the start, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    cap = f"{args.cap:g}"
    print(f"# ours: robustness FILE --json --rs R --time-limit {cap}")
    print(_limits(args.cap, f"{DEFAULT_THREADS:g} x {cap} s ours, {cap} s the script"))
    print("| graph | R = r* | s* | ours s (cpu) | published (r, s) s (cpu) | pub/ours | load |")
    print("|---" * 7 + "|")
    ratios: list[float] = []
    slower, disagree, skipped, both = [], [], [], []
    count = agreed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for k, (_family, _n, _param, _seed, path) in enumerate(_graphs(args, Path(tmp))):
            first, _, _, _ = _timed(_ours(path, ["--time-limit", cap]), args.cap, DEFAULT_THREADS)
            r = first["r"] if first else {}
            if r.get("status") != "exact":
                skipped.append(path.stem)
                continue
            count += 1
            big_r = str(r["value"])
            load = os.getloadavg()[0]
            cmds = {
                "ours": _ours(path, ["--rs", big_r, "--time-limit", cap]),
                "pub": [sys.executable, str(BASELINE), str(path), "cpsat-s", big_r],
            }
            order = ["ours", "pub"] if k % 2 == 0 else ["pub", "ours"]
            workers = {"ours": DEFAULT_THREADS, "pub": 1}
            got = {name: _timed(cmds[name], args.cap, workers[name]) for name in order}
            ours_s = (got["ours"][0] or {}).get("s") or {}
            values = {ours_s.get("value")} if ours_s.get("status") == "exact" else set()
            if got["pub"][0]:
                values.add(got["pub"][0]["s"])
            if len(values) > 1:
                disagree.append(f"{path.stem} {sorted(values)}")
            elif values:
                agreed += 1
            (_, w, c, _), (_, bw, bc, bcode) = got["ours"], got["pub"]
            if not values:  # both ran to the cap: not a time comparison (as in --workers)
                both.append(path.stem)
            else:
                ratios.append(bw / w)
                if _slower(w, bw) or _slower(c, bc):
                    slower.append(
                        f"{path.stem} ({w:.2f} s, cpu {c:.2f} vs {bw:.2f} s, cpu {bc:.2f})"
                    )
            mark = "" if ours_s.get("status") == "exact" else ">"
            cells = [
                path.stem,
                big_r,
                str(next(iter(values))) if len(values) == 1 else "?",
                f"{mark}{w:.2f} ({c:.2f})",
                f"{'>' if bcode is None else ''}{bw:.2f} ({bc:.2f})",
                f"{bw / w:.2f}" if values else "bounded",
                f"{load:.2f}",
            ]
            print("| " + " | ".join(cells) + " |", flush=True)
    if ratios:
        print(
            f"# published/ours: median {statistics.median(ratios):.2f}, min {min(ratios):.2f}, "
            f"ours faster on {sum(x > 1 for x in ratios)} of {len(ratios)}"
        )
    print(
        f"# rows: {count}; s* agrees on {agreed} (every side that proved it); disagreements: "
        f"{', '.join(disagree) or 'none'}; r* not exact within the cap (no row): "
        f"{', '.join(skipped) or 'none'}"
    )
    print(f"# slower by more than 10% + 0.1 s (wall or CPU): {'; '.join(slower) or 'none'}")
    print(
        "# bounded on both sides (no side proved s*; not a time comparison): "
        f"{', '.join(both) or 'none'}"
    )
    print(f"# load {_uptime()} at the end")
    return 0


LARGE = (("regular", 10_000, 6), ("er", 2_000, 20), ("regular", 2_000, 8), ("ws", 5_000, 6))
"""Issue 40's large rows: (family, n, degree): a random d-regular graph, an ER graph of that
mean degree, a Watts-Strogatz graph (k = degree, beta = 0.1)."""


def large(args: argparse.Namespace) -> int:
    """Bounds at each limit of ``--large``: ours (``robustness --time-limit T``) against the
    published model on CP-SAT (one worker) given the same T from its start."""
    import networkx as nx

    from robustgraph import generators, io
    from robustgraph.topology import Topology

    limits = [float(x) for x in args.large.split(",")]
    seed = int(args.seeds.split(",")[0])
    print(f"# load {_uptime()} at the start; seed {seed}")
    print(
        "| graph | n | T | ours [lower, upper] | ours s (cpu) | cpsat [lower, upper] "
        "| cpsat s (cpu) | our upper no worse | load |"
    )
    print("|---" * 9 + "|")
    rows = LARGE
    if args.large_sizes:  # each family at each n (how the bounds and the cost grow with n)
        sizes = [int(x) for x in args.large_sizes.split(",")]
        rows = tuple((family, n, d) for family, _, d in LARGE for n in sizes)
    with tempfile.TemporaryDirectory() as tmp:
        for family, n, d in rows:
            if family == "regular":
                g = Topology.from_networkx(nx.random_regular_graph(d, n, seed=seed))
            elif family == "er":
                g = generators.erdos_renyi(n, d / (n - 1), seed=seed)
            else:
                g = Topology.from_networkx(nx.connected_watts_strogatz_graph(n, d, 0.1, seed=seed))
            path = Path(tmp) / f"{family}-{n}-{d}.json"
            io.write(g, path)
            for limit in limits:
                load = os.getloadavg()[0]
                data, wall, cpu, _ = _timed(_ours(path, ["--time-limit", f"{limit:g}"]), limit + 30)
                r = data["r"] if data else {}
                cmd = [sys.executable, str(BASELINE), str(path), "cpsat", "1", f"{limit:g}"]
                base, bwall, bcpu, _ = _timed(cmd, limit + 30)
                b = base or {}
                blow, bup = (
                    (b["r"], b["r"]) if b.get("r") is not None else (b.get("lower"), b.get("upper"))
                )
                ours_up = r.get("upper")
                ok = "yes" if bup is None or (ours_up is not None and ours_up <= bup) else "NO"
                row = [
                    family,
                    str(n),
                    f"{limit:g}",
                    f"[{r.get('lower')}, {r.get('upper')}]",
                    f"{wall:.2f} ({cpu:.2f})",
                    f"[{blow}, {bup}]",
                    f"{bwall:.2f} ({bcpu:.2f})",
                    ok,
                    f"{load:.2f}",
                ]
                print("| " + " | ".join(row) + " |", flush=True)
    print(f"# load {_uptime()} at the end")
    return 0


PACKAGES = ("robustgraph", "solvers", "protocol_runner")
"""The checkout's top-level packages, whose bytecode :func:`compile_checkout` writes."""


def compile_checkout(root: Path | None = None) -> Path:
    """Write the bytecode of the checkout ``root`` (default: the one ``robustgraph`` is imported
    from, which our command runs) before anything is timed, and return that root.

    Where ``PYTHONDONTWRITEBYTECODE`` is set, as in this machine's sessions, Python never writes
    it on import, so a checkout without it compiles every module again on every command: about
    0.05 s a run, seen as a new worktree's first rows in a before/after run (docs/performance.md,
    "Issue 40, round 33"). ``compileall`` writes it whatever that variable says."""
    import compileall

    if root is None:
        import robustgraph

        root = Path(robustgraph.__file__).resolve().parent.parent
    for package in PACKAGES:
        if (root / package).is_dir():
            compileall.compile_dir(root / package, quiet=1)
    return root


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10,15,20,25,30,40,50,60", help="n of er, digraph")
    ap.add_argument("--probs", default="0.2,0.35,0.5,0.7", help="p of er, digraph")
    ap.add_argument("--er-seeds", default="1001", help="seeds of er, digraph")
    ap.add_argument("--struct-sizes", default="30,45,60,80,100", help="n of the other families")
    ap.add_argument("--families", default=",".join(FAMILIES), help=f"comma list of {FAMILIES}")
    ap.add_argument("--seeds", default="1001,1002", help="seeds of the structured families")
    ap.add_argument("--sbm-shapes", default=SBM_SHAPES, help="sbm's BLOCKS:P:Q,... shapes")
    ap.add_argument("--only", default=None, metavar="NAME,NAME", help="just these rows")
    ap.add_argument(
        "--cap", type=float, default=20.0, help="our --time-limit; the scripts' CPU seconds"
    )
    ap.add_argument("--deadlines", default=None, metavar="T,T", help="the time-limit check")
    ap.add_argument(
        "--workers", action="store_true", help="the one-worker and two-worker comparisons"
    )
    ap.add_argument("--large", default=None, metavar="T,T", help="large-graph bounds at T")
    ap.add_argument(
        "--large-sizes", default=None, metavar="N,N", help="with --large: each family at these n"
    )
    ap.add_argument("--rs", action="store_true", help="(r, s) at R = r* against the script")
    args = ap.parse_args(argv)
    print(f"# bytecode written for {compile_checkout()} before timing")
    if args.large:
        return large(args)
    if args.rs:
        return compare_rs(args)
    if args.workers:
        return compare_workers(args)
    return deadlines(args) if args.deadlines else compare(args)


if __name__ == "__main__":
    sys.exit(main())
