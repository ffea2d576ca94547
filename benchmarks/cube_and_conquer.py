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
measured per-cube CPU seconds on 2, 4, 8 and 16 idle workers, plus the split and combine steps,
against the monolithic run's CPU seconds (CPU time, not wall time: the machine is shared, and
its load inflates wall times but hardly CPU times). No machine with more than 2 cores was used:
read it as what the measured cubes would allow, not as a measurement (moving proofs over a
network is not counted). With ``--ray N`` the lookahead split also runs on a
private local Ray instance (``ray.init(address="local", num_cpus=N)``, never an existing
cluster), measured, and is shut down after.

Pre-registered graphs (chosen 2026-12-03 18:40 UTC, before any row of this table was timed;
r is r*, found by ``robustgraph robustness --threads 1``, except where noted):

- ER(45, 1/2) seed 1, r = 12 (r*; the monolithic proof took 56 s in a first trial);
- ER(45, 1/2) seed 2, r = 12 (r*);
- ER(50, 1/2) seed 1, r = 12 (r*; 29.5 s monolithically on 2026-12-02, docs/performance.md);
- ER(40, 1/2) seed 1, r = 11 (r*; the graph of the earlier table, under 30 s).

Not part of the test run::

    nice -n 5 /work/venv/bin/python benchmarks/cube_and_conquer.py --cubes 2,3 --ray 2
"""

from __future__ import annotations

import argparse
import contextlib
import heapq
import os
import platform
import time
from collections.abc import Iterator

from robustgraph import generators as gen
from robustgraph.certificate.proofs import cubes, sat
from robustgraph.certificate.proofs.checker import View
from robustgraph.certificate.proofs.cnf import encode
from robustgraph.certificate.proofs.lrat import check_refutation
from robustgraph.executors import Executor, LocalExecutor
from robustgraph.topology import Topology

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


def _check(nb: list[frozenset[int]], r: int, text: bytes) -> str:
    start = time.perf_counter()
    steps = check_refutation(encode(nb, r, 1).clauses, text.decode().splitlines())
    seconds = time.perf_counter() - start
    return f"{len(text) / 2**20:.1f} MiB, {steps:,} steps | {seconds:.1f}"


def _conquer(
    nb: list[frozenset[int]], r: int, split: cubes.Split
) -> tuple[float, cubes.Conquered]:
    start = time.perf_counter()
    done = cubes.refute(nb, r, 1, split)
    wall = time.perf_counter() - start
    if done.status is not False or done.text is None:
        raise SystemExit(f"r = {r} was not refuted by cube and conquer: pick r <= r*")
    return wall, done


def _row(name: str, how: str, wall: float, mono: float, done: cubes.Conquered | None) -> str:
    if done is None:
        cells = "- | - | - | -"
    else:
        per = [leaf.seconds for leaf in done.leaves]
        cpu = [leaf.cpu_seconds for leaf in done.leaves]
        cells = (
            f"{len(per)} | {sum(per):.1f} / {max(per):.1f} | {sum(cpu):.1f} / {max(cpu):.1f} | "
            f"{done.split_seconds:.2f} / {done.combine_seconds:.2f}"
        )
    return f"| {name} | {how} | {wall:.1f} | {mono / wall:.2f}x | {cells}"


def _simulated(name: str, k: int, done: cubes.Conquered, mono_cpu: float) -> str:
    per = [leaf.cpu_seconds for leaf in done.leaves]
    fixed = done.split_seconds + done.combine_seconds
    spans = [lpt_makespan(per, w) + fixed for w in SIMULATED]
    cells = " | ".join(f"{span:.1f} ({mono_cpu / span:.2f}x)" for span in spans)
    return f"| {name} | lookahead K={k} | {mono_cpu:.1f} | {cells} |"


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


def _measure(
    name: str, t: Topology, r: int, ks: list[int], args: argparse.Namespace
) -> list[str]:
    """Print the graph's rows as they are measured; return its simulated rows."""
    nb = View.of(t).canonical()
    start, cpu = time.perf_counter(), time.process_time()
    status, text = sat.refute(encode(nb, r, 1))
    mono, mono_cpu = time.perf_counter() - start, time.process_time() - cpu
    if status is not False or text is None:
        raise SystemExit(f"{name}: r = {r} is satisfiable: pick r <= r*")
    how = f"monolithic, r = {r} (CPU {mono_cpu:.1f} s)"
    print(f"{_row(name, how, mono, mono, None)} | {_check(nb, r, text)} |", flush=True)
    simulated = []
    for k in ks:
        kinds = [("lookahead", True)] + ([("fixed", False)] if args.fixed else [])
        for kind, look in kinds:
            with LocalExecutor(args.workers) as pool:
                wall, done = _conquer(nb, r, cubes.Split(k, pool, False, look))
            how = f"{kind} K={k}, {args.workers} local workers"
            print(f"{_row(name, how, wall, mono, done)} | {_check(nb, r, done.text)} |", flush=True)
            if look:
                simulated.append(_simulated(name, k, done, mono_cpu))
        if args.ray:
            with _ray(args.ray) as executor:
                wall, done = _conquer(nb, r, cubes.Split(k, executor, False))
            how = f"lookahead K={k}, local Ray num_cpus={args.ray}"
            print(f"{_row(name, how, wall, mono, done)} | {_check(nb, r, done.text)} |", flush=True)
    return simulated


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cubes", default="2,3", help="K values (3^K open cubes)")
    parser.add_argument("--workers", type=int, default=2, help="local pool processes")
    parser.add_argument("--fixed", action="store_true", help="also the fixed highest-degree split")
    parser.add_argument("--ray", type=int, default=0, help="also on local Ray with N CPUs")
    parser.add_argument("--only", default=None, help="run the graphs whose name has this text")
    args = parser.parse_args(argv)
    ks = [int(k) for k in args.cubes.split(",")]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.python_version()}")
    print(f"load before: {os.getloadavg()[0]:.2f} (1-min average)")
    print(
        "| graph | run | wall s | speedup | cubes | cube wall s sum / max "
        "| cube CPU s sum / max | split / combine s | proof | check s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    simulated = []
    for name, t, r in _suite():
        if args.only is None or args.only in name:
            simulated += _measure(name, t, r, ks, args)
    print(f"load after: {os.getloadavg()[0]:.2f} (1-min average)")
    print(
        "\nSIMULATED (not measured): the LPT makespan of the cubes' measured CPU seconds on W "
        "idle workers, + split + combine; (speedup over the monolithic CPU seconds)"
    )
    heads = " | ".join(f"W = {w} s" for w in SIMULATED)
    print(f"| graph | split | monolithic CPU s | {heads} |")
    print("|---|---|---|" + "---|" * len(SIMULATED))
    print("\n".join(simulated))


if __name__ == "__main__":
    main()
