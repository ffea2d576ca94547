"""What cube and conquer (``certify --cubes K``) buys on hard LRAT refutations: a table.

For each graph and r it refutes the robustness CNF (robustgraph.certificate.proofs.cnf)
monolithically (one CaDiCaL run, as ``certify --proof lrat``) and by cube and conquer
(robustgraph.certificate.proofs.cubes) on a local pool of ``--workers`` processes, with the
lookahead split (3^K open cubes, hardest first; the default of ``certify --cubes K``) and, with
``--fixed``, the old split on the K nodes of highest in-degree. It prints, per run: the wall time
and its speedup over the monolithic run; the per-cube wall times (sum and max); the split and
combine steps; the combined proof's size and the time our checker (the one ``verify`` runs,
robustgraph.certificate.proofs.lrat, unchanged) takes on it. Every proof is checked.

Then a SIMULATED scaling table: the makespan of a longest-processing-time-first schedule of the
measured per-cube CPU seconds on 2, 4, 8 and 16 idle workers, plus the CPU seconds of the main
process (split, renumbering, combine: counted as if none of it overlapped the cubes), against
the monolithic run's CPU seconds (CPU time, not wall time: the machine is shared, and
its load inflates wall times but hardly CPU times). No machine with more than 2 cores was used:
read it as what the measured cubes would allow, not as a measurement (moving proofs over a
network is not counted). With ``--ray N`` the lookahead split also runs on a
private local Ray instance (``ray.init(address="local", num_cpus=N)``, never an existing
cluster), measured, and is shut down after.

``--kinds incremental`` (issue 40, round 4) runs the incremental workers of
``cubes.Split(incremental=True)``: ``--workers`` processes, each with one CaDiCaL instance that
solves the cubes it takes from a shared queue (hardest first) as assumptions, keeping what it
learned. Its cubes are not independent (a cube's cost depends on what its worker solved
before), so no schedule of them is simulated: its SIMULATED cell is the largest worker's
measured CPU seconds (its solves and the trimming of its proof) plus the main process's, at
W = ``--workers``, what that many idle cores would take; run it with ``--workers 4`` or ``8``
(more processes than cores: their CPU seconds, not their wall time, are the figure) for the
cells past two cores. The per-cube CPU columns count the solves only. Since round 5 the other
cells of its row are an ESTIMATE: the LPT schedule of the cubes' measured solve CPU seconds on W
workers, plus a worker's mean CPU seconds outside its solves and the main process's, as if a
cube cost the same on any worker (it does not quite: see ``_shared_row``).

``--repeat N`` alternates the single solve and the splits N times on each graph (interleaved);
every measured row names the 1-minute load before and after it.

Round 5 (registered 2026-12-04 04:18 UTC, in the commit that added ``--repeat``, before any of
its rows was timed): incremental workers, K = 3, against the single solve, ``--repeat 2``, on
ER(45, 1/2) seed 2 and ER(50, 1/2) seed 1 (both above: single solves of 36-62 CPU s in earlier
rounds). Added at 04:35, after the first incremental rows and not registered before: one run of
``--kinds lookahead`` (independent cubes), K = 3, on each of the two, for ``certify``'s default.

Pre-registered graphs (chosen 2026-12-03 18:40 UTC, before any row of this table was timed;
r is r*, found by ``robustgraph robustness --threads 1``, except where noted):

- ER(45, 1/2) seed 1, r = 12 (r*; the monolithic proof took 56 s in a first trial);
- ER(45, 1/2) seed 2, r = 12 (r*);
- ER(50, 1/2) seed 1, r = 12 (r*; 29.5 s monolithically on 2026-12-02, docs/performance.md);
- ER(40, 1/2) seed 1, r = 11 (r*; the graph of the earlier table, under 30 s).

Every proof, monolithic (CaDiCaL's log trimmed, as ``certify --proof lrat`` makes it) or
combined, is checked the way ``verify`` checks it (``checker.check_proof`` on the gzip file and
its record, under the default input budgets, docs/certificate.md "Input budgets"), in a fresh
child process whose peak resident memory is printed beside the check's seconds; a proof over a
budget prints the budget's message instead.

``--stretch`` (issue 40's stretch goal: exact r* with a checked proof within 5 minutes on 2
cores): for each graph below, the portfolio's bounds (``--bounds-limit`` s, its default two
threads), then cube and conquer at r = the upper bound on ``--workers`` local workers within
what is left of ``--budget`` seconds (wall, from the start of the graph): refuted and checked,
r* is settled; satisfiable (a violating pair, so r* < r), the next r down; out of time, not
settled. Graphs (pre-registered 2026-12-03 22:00 UTC before this code ran on them; the earlier
stretch run's seeds are not recorded in this repository, so these are the seeds that
docs/performance.md names for n = 50, p = 0.35, where neither published script settled r* in
20 s): ER G(50, 0.35) and digraph G(50, 0.35), seeds 1001, 2001, 2002.

Not part of the test run::

    nice -n 5 /work/venv/bin/python benchmarks/cube_and_conquer.py --cubes 2,3 --ray 2
    nice -n 5 /work/venv/bin/python benchmarks/cube_and_conquer.py --stretch --cubes 2
    nice -n 5 /work/venv/bin/python benchmarks/cube_and_conquer.py --cubes 2 \
        --kinds incremental,lookahead --only "ER(45, 1/2) seed 1"
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import hashlib
import heapq
import multiprocessing
import os
import platform
import resource
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor

from robustgraph import generators as gen
from robustgraph.certificate.proofs import cubes, sat
from robustgraph.certificate.proofs.checker import View, check_proof
from robustgraph.certificate.proofs.cnf import ENCODING, encode
from robustgraph.certificate.proofs.prover import lrat_additions
from robustgraph.certificate.proofs.trim import trim
from robustgraph.errors import RobustgraphError
from robustgraph.executors import Executor, LocalExecutor
from robustgraph.topology import Topology
from solvers import registry
from solvers.types import Question, Request, Result
from solvers.witness import reach

__all__ = ["main", "lpt_makespan", "SIMULATED"]

SIMULATED = (2, 4, 8, 16)
"""Worker counts of the simulated schedule."""


def lpt_makespan(seconds: list[float], workers: int) -> float:
    """The makespan of the longest-processing-time-first schedule of ``seconds`` on ``workers``.

    Examples
    --------
    >>> lpt_makespan([3.0, 2.0, 2.0, 1.0], 2)
    4.0
    """
    loads = [0.0] * workers
    for job in sorted(seconds, reverse=True):
        heapq.heapreplace(loads, loads[0] + job)
    return max(loads)


def _suite() -> list[tuple[str, Topology, int]]:
    """The pre-registered (name, graph, r) of the module notes."""
    return [
        ("ER(45, 1/2) seed 1", gen.erdos_renyi(45, 0.5, seed=1), 12),
        ("ER(45, 1/2) seed 2", gen.erdos_renyi(45, 0.5, seed=2), 12),
        ("ER(50, 1/2) seed 1", gen.erdos_renyi(50, 0.5, seed=1), 12),
        ("ER(40, 1/2) seed 1", gen.erdos_renyi(40, 0.5, seed=1), 11),
    ]


def _stretch_suite() -> list[tuple[str, Topology]]:
    """The pre-registered graphs of ``--stretch`` (module notes)."""
    return [
        (f"{kind}(50, 0.35) seed {seed}", gen.erdos_renyi(50, 0.35, seed=seed, directed=directed))
        for kind, directed in (("ER", False), ("digraph", True))
        for seed in (1001, 2001, 2002)
    ]


def _verify_child(t: Topology, r: int, proof: dict, data: bytes) -> tuple[str, float, float]:
    """In a fresh process: ``check_proof`` as ``verify`` runs it; (what it said, CPU seconds,
    peak resident MiB of the process)."""
    start = time.process_time()
    try:
        said = check_proof(View.of(t), r, 1, proof, {proof["file"]: data}.__getitem__).text
    except RobustgraphError as exc:
        said = f"REJECTED: {exc}"
    seconds = time.process_time() - start
    return said, seconds, _peak_mib()


def _peak_mib() -> float:
    """This process's peak resident MiB: VmHWM on Linux (``ru_maxrss`` survives the exec of a
    spawned child, so it would show the parent's peak), else ``ru_maxrss``."""
    with contextlib.suppress(OSError):
        for line in open("/proc/self/status").read().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _check(t: Topology, r: int, text: bytes) -> str:
    """The proof's size and what the verifier's check of it says (module notes)."""
    data = gzip.compress(text, mtime=0)
    digest = hashlib.sha256(data).hexdigest()
    cnf = encode(View.of(t).canonical(), r, 1)
    proof = {  # the record prover.py writes
        "kind": "lrat",
        "encoding": ENCODING,
        "variables": cnf.variables,
        "clauses": len(cnf.clauses),
        "file": f"lrat-{digest[:20]}.lrat.gz",
        "sha256": digest,
        "bytes": len(data),
        "steps": lrat_additions(text),
    }
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, mp_context=spawn) as child:
        said, seconds, peak = child.submit(_verify_child, t, r, proof, data).result()
    size = f"{len(text) / 2**20:.1f} MiB ({len(data) / 2**20:.1f} gzip), {proof['steps']:,} steps"
    return f"{size} | {said} | {seconds:.1f} | {peak:.0f}"


def _conquer(
    nb: list[frozenset[int]], r: int, split: cubes.Split
) -> tuple[float, float, cubes.Conquered]:
    """Wall seconds, this (the main) process's CPU seconds, and the outcome."""
    start, cpu = time.perf_counter(), time.process_time()
    done = cubes.refute(nb, r, 1, split)
    wall, main = time.perf_counter() - start, time.process_time() - cpu
    if done.status is not False or done.text is None:
        raise SystemExit(f"r = {r} was not refuted by cube and conquer: pick r <= r*")
    return wall, main, done


def _row(
    name: str, how: str, wall: float, mono: float, done: cubes.Conquered | None, main: float = 0
) -> str:
    if done is None:
        cells = "- | - | - | -"
    else:
        per = [leaf.seconds for leaf in done.leaves]
        cpu = [leaf.cpu_seconds for leaf in done.leaves]
        cells = (
            f"{len(per)} | {sum(per):.1f} / {max(per):.1f} | {sum(cpu):.1f} / {max(cpu):.1f} | "
            f"{done.split_seconds:.2f} / {done.combine_seconds:.2f} / {main:.1f}"
        )
    return f"| {name} | {how} | {wall:.1f} | {mono / wall:.2f}x | {cells}"


def _simulated(name: str, k: int, done: cubes.Conquered, main: float, mono_cpu: float) -> str:
    """A row of the SIMULATED table: the cubes' CPU seconds scheduled on W workers, plus all of
    the main process's CPU seconds (split, renumbering, combine), as if none of it ran beside
    the cubes."""
    per = [leaf.cpu_seconds for leaf in done.leaves]
    spans = [lpt_makespan(per, w) + main for w in SIMULATED]
    cells = " | ".join(f"{span:.1f} ({mono_cpu / span:.2f}x)" for span in spans)
    return f"| {name} | lookahead K={k} | {mono_cpu:.1f} | {cells} |"


def _shared_row(name: str, k: int, done: cubes.Conquered, main: float, mono_cpu: float) -> str:
    """A row of the SIMULATED table for incremental workers. At W = len(workers): the largest
    worker's measured CPU seconds plus the main process's, what that many idle cores would
    take (marked "measured CPU"). At the other W: the LPT schedule of the cubes' measured solve
    CPU seconds, plus a worker's mean CPU seconds outside its solves (its ``not cube`` steps
    and log trimming) and the main process's. That schedule assumes a cube costs on any
    worker what it cost on the one that ran it, which incremental workers do not guarantee
    (a cube's cost depends on what its worker learned before): an estimate, not a measure."""
    per = [leaf.cpu_seconds for leaf in done.leaves]
    overhead = max(0.0, sum(done.workers) - sum(per)) / len(done.workers)
    spans = {w: lpt_makespan(per, w) + overhead + main for w in SIMULATED}
    spans[len(done.workers)] = max(done.workers) + main
    cells = [
        f"{spans[w]:.1f} ({mono_cpu / spans[w]:.2f}x"
        + (", measured CPU)" if w == len(done.workers) else ")")
        for w in SIMULATED
    ]
    return f"| {name} | incremental K={k} | {mono_cpu:.1f} | {' | '.join(cells)} |"


@contextlib.contextmanager
def _ray(cpus: int) -> Iterator[Executor]:
    """A RayExecutor on a private local instance of ``cpus`` CPUs (never an existing cluster),
    shut down on leaving."""
    import ray

    from robustgraph.executors import RayExecutor

    os.environ.pop("RAY_ADDRESS", None)
    ray.init(address="local", num_cpus=cpus, include_dashboard=False, logging_level="warning")
    try:
        with RayExecutor() as executor:
            yield executor
    finally:
        ray.shutdown()


def _load() -> float:
    """The 1-minute load average."""
    return os.getloadavg()[0]


def _measure(
    name: str, t: Topology, r: int, ks: list[int], args: argparse.Namespace
) -> list[str]:
    """Print the graph's rows as they are measured; return its simulated rows. With
    ``--repeat N`` the single solve and the splits alternate N times (interleaved, so that each
    split has a single solve of nearly the same load beside it)."""
    simulated = []
    for _ in range(args.repeat):
        simulated += _round(name, t, r, ks, args)
    return simulated


def _round(
    name: str, t: Topology, r: int, ks: list[int], args: argparse.Namespace
) -> list[str]:
    """One single solve, then each split asked for, each row with the 1-minute load before and
    after it (``load a-b``)."""
    nb = View.of(t).canonical()
    before = _load()
    start, cpu = time.perf_counter(), time.process_time()
    status, text = sat.refute(encode(nb, r, 1))
    if status is not False or text is None:
        raise SystemExit(f"{name}: r = {r} is satisfiable: pick r <= r*")
    text = trim(text)  # as certify --proof lrat keeps it
    mono, mono_cpu = time.perf_counter() - start, time.process_time() - cpu
    how = f"monolithic, r = {r} (CPU {mono_cpu:.1f} s, load {before:.1f}-{_load():.1f})"
    print(f"{_row(name, how, mono, mono, None)} | {_check(t, r, text)} |", flush=True)
    simulated = []
    for k in ks:
        kinds = [kind for kind in args.kinds.split(",") if kind] + (["fixed"] if args.fixed else [])
        for kind in kinds:
            look, shared = kind != "fixed", kind == "incremental"
            before = _load()
            with LocalExecutor(args.workers) as pool:
                wall, main, done = _conquer(nb, r, cubes.Split(k, pool, False, look, shared))
            how = f"{kind} K={k}, {args.workers} local workers, load {before:.1f}-{_load():.1f}"
            if shared:
                how += (
                    f" (worker CPU s {' / '.join(f'{c:.1f}' for c in done.workers)}, "
                    f"all CPU {sum(done.workers) + main:.1f} s)"
                )
            row = _row(name, how, wall, mono, done, main)
            print(f"{row} | {_check(t, r, done.text)} |", flush=True)
            if shared:
                simulated.append(_shared_row(name, k, done, main, mono_cpu))
            elif look:
                simulated.append(_simulated(name, k, done, main, mono_cpu))
        for kind in [kind for kind in kinds if kind != "fixed"] if args.ray else []:
            shared = kind == "incremental"
            with _ray(args.ray) as executor:
                wall, main, done = _conquer(nb, r, cubes.Split(k, executor, False, True, shared))
            how = f"{kind} K={k}, local Ray num_cpus={args.ray}"
            if shared:
                how += f" (worker CPU s {' / '.join(f'{c:.1f}' for c in done.workers)})"
            row = _row(name, how, wall, mono, done, main)
            print(f"{row} | {_check(t, r, done.text)} |", flush=True)
    return simulated


def _upper_holds(t: Topology, bounds: Result, r: int) -> bool:
    """Whether ``r`` is proven an upper bound on r*: r is below the portfolio's upper bound (a
    cube gave a violating pair of (r + 1)-robustness, checked by ``cubes.refute``), or the
    portfolio's witness pair is disjoint, nonempty, and neither set is (r + 1)-reachable."""
    if r < bounds.upper:
        return True
    pair = bounds.witness
    if pair is None or not pair.s1 or not pair.s2 or pair.s1 & pair.s2:
        return False
    return max(reach(t.in_neighbors, pair.s1), reach(t.in_neighbors, pair.s2)) <= r


def _settle(name: str, t: Topology, k: int, args: argparse.Namespace) -> str:
    """One ``--stretch`` row (module notes)."""
    start = time.perf_counter()
    nb = View.of(t).canonical()
    bounds = registry.solve(Request(t, Question.max_r(), time_limit=args.bounds_limit, threads=2))
    first = time.perf_counter() - start
    r, cpu, tried = bounds.upper, 0.0, []
    while r >= 1:
        left = args.budget - (time.perf_counter() - start)
        if left <= 0:
            break
        with LocalExecutor(args.workers) as pool:
            done = cubes.refute(nb, r, 1, cubes.Split(k, pool, False), left)
        cpu += sum(leaf.cpu_seconds for leaf in done.leaves)
        tried.append(f"r={r}: {'refuted' if done.status is False else done.status}")
        if done.status is not False:
            if done.status is None:
                break
            r -= 1  # a violating pair: r* < r
            continue
        wall = time.perf_counter() - start
        proven = "witness checked" if _upper_holds(t, bounds, r) else "NO WITNESS"
        head = f"| {name} | [{bounds.lower}, {bounds.upper}] at {first:.1f} s | r* = {r} ({proven})"
        return f"{head} | {wall:.1f} | {cpu:.1f} | {', '.join(tried)} | {_check(t, r, done.text)} |"
    wall = time.perf_counter() - start
    head = f"| {name} | [{bounds.lower}, {bounds.upper}] at {first:.1f} s | not settled"
    return f"{head} | {wall:.1f} | {cpu:.1f} | {', '.join(tried)} | - | - | - | - |"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cubes", default="2,3", help="K values (3^K open cubes)")
    parser.add_argument("--workers", type=int, default=2, help="local pool processes")
    parser.add_argument("--fixed", action="store_true", help="also the fixed highest-degree split")
    parser.add_argument(
        "--kinds", default="lookahead", help="splits to run: lookahead, incremental (comma list)"
    )
    parser.add_argument("--ray", type=int, default=0, help="also on local Ray with N CPUs")
    parser.add_argument("--only", default=None, help="run the graphs whose name has this text")
    parser.add_argument(
        "--repeat", type=int, default=1, help="alternate the single solve and the splits N times"
    )
    parser.add_argument("--stretch", action="store_true", help="the stretch table instead")
    parser.add_argument("--budget", type=float, default=300.0, help="--stretch: s per graph")
    parser.add_argument("--bounds-limit", type=float, default=30.0, help="--stretch: portfolio s")
    args = parser.parse_args(argv)
    ks = [int(k) for k in args.cubes.split(",")]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.python_version()}")
    print(f"load before: {os.getloadavg()[0]:.2f} (1-min average)")
    check = "proof | the verifier's check says | check CPU s | check peak MiB"
    if args.stretch:
        print(f"| graph | portfolio bounds | result | wall s | cube CPU s | tried | {check} |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for name, t in _stretch_suite():
            if args.only is None or args.only in name:
                print(_settle(name, t, ks[0], args), flush=True)
        print(f"load after: {os.getloadavg()[0]:.2f} (1-min average)")
        return
    print(
        "| graph | run | wall s | speedup | cubes | cube wall s sum / max "
        f"| cube CPU s sum / max | split / combine wall s / main CPU s | {check} |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    simulated = []
    for name, t, r in _suite():
        if args.only is None or args.only in name:
            simulated += _measure(name, t, r, ks, args)
    print(f"load after: {os.getloadavg()[0]:.2f} (1-min average)")
    print(
        "\nSIMULATED (not measured): the LPT makespan of the cubes' measured CPU seconds on W "
        "idle workers, + the main process's CPU seconds (split, renumbering, combine); (speedup "
        "over the monolithic CPU seconds)"
    )
    heads = " | ".join(f"W = {w} s" for w in SIMULATED)
    print(f"| graph | split | monolithic CPU s | {heads} |")
    print("|---|---|---|" + "---|" * len(SIMULATED))
    print("\n".join(simulated))


if __name__ == "__main__":
    main()
