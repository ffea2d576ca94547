"""What cube and conquer (``certify --cubes K``) buys on hard LRAT refutations: a table.

For each graph and r (a proven lower bound, r* or close to it) it refutes the robustness CNF
(robustgraph.certificate.proofs.cnf) monolithically (K = 0: one CaDiCaL run, as ``certify
--proof lrat``) and split on K = 1, 2, 3 nodes (3^K cubes on a local pool of ``--workers``
processes), and prints: the wall time on this machine and its speedup over K = 0; the per-cube
wall times (sum and max); the combine step; the makespan a 32-core cluster would reach,
SIMULATED from the measured per-cube times (a longest-processing-time-first schedule of the
cubes on 32 workers, plus the combine step; no cluster was used); the combined proof's size and
the time our checker (robustgraph.certificate.proofs.lrat) takes to check it. Every proof is
checked. Not part of the test run. The table in docs/performance.md::

    nice -n 19 .venv/bin/python benchmarks/cube_and_conquer.py --only ER
    nice -n 19 .venv/bin/python benchmarks/cube_and_conquer.py --only regular
"""

from __future__ import annotations

import argparse
import heapq
import os
import platform
import time

import networkx as nx

from robustgraph import generators as gen
from robustgraph.certificate.proofs import cubes, sat
from robustgraph.certificate.proofs.checker import View
from robustgraph.certificate.proofs.cnf import encode
from robustgraph.certificate.proofs.lrat import check_refutation
from robustgraph.executors import LocalExecutor
from robustgraph.topology import Topology

__all__ = ["main", "lpt_makespan"]

CLUSTER = 32
"""Cores of the simulated cluster."""


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


def _regular(n: int, d: int, seed: int) -> Topology:
    graph = nx.random_regular_graph(d, n, seed=seed)
    return Topology.from_edges(list(graph.edges()), nodes=range(n))


def _digraph(n: int, p: float, seed: int) -> Topology:
    return gen.erdos_renyi(n, p, seed=seed, directed=True)


def _suite() -> list[tuple[str, Topology, int, str]]:
    """(name, graph, r, what r is): r found with the monolithic solver; ``r*`` when r + 1 is
    satisfiable, ``<= r*`` when r + 1 was not decided in 60 s."""
    return [
        ("ER(40, 1/2) seed 1", gen.erdos_renyi(40, 0.5, seed=1), 11, "r*"),
        ("digraph ER(40, 1/2) seed 1", _digraph(40, 0.5, 1), 10, "<= r*"),
        ("12-regular n=50 seed 1", _regular(50, 12, 1), 6, "r*"),
    ]


def _check(nb: list[frozenset[int]], r: int, text: bytes) -> tuple[float, int]:
    start = time.perf_counter()
    steps = check_refutation(encode(nb, r, 1).clauses, text.decode().splitlines())
    return time.perf_counter() - start, steps


def _row(name: str, r: str, k: int, wall: float, mono: float, rest: str) -> str:
    return f"| {name} | {r} | {k} | {wall:.2f} | {mono / wall:.2f}x | {rest} |"


def _measure(
    name: str, t: Topology, r: int, what: str, ks: list[int], workers: int
) -> list[str]:
    nb = View.of(t).canonical()
    label = f"{r} ({what})"
    start = time.perf_counter()
    status, text = sat.refute(encode(nb, r, 1))
    mono = time.perf_counter() - start
    assert status is False and text is not None
    check, steps = _check(nb, r, text)
    size = f"{len(text) / 2**20:.1f} MiB, {steps:,} steps"
    rows = [_row(name, label, 0, mono, mono, f"- | - | {mono:.2f} | {size} | {check:.1f}")]
    for k in ks:
        with LocalExecutor(workers) as pool:
            start = time.perf_counter()
            done = cubes.refute(nb, r, 1, cubes.Split(k, pool, progress=False))
            wall = time.perf_counter() - start
        assert done.status is False and done.text is not None
        per = [leaf.seconds for leaf in done.leaves]
        cluster = lpt_makespan(per, CLUSTER) + done.combine_seconds
        check, steps = _check(nb, r, done.text)
        size = f"{len(done.text) / 2**20:.1f} MiB, {steps:,} steps"
        cells = f"{sum(per):.2f} / {max(per):.2f} | {done.combine_seconds:.2f} | {cluster:.2f}"
        rows.append(_row(name, label, k, wall, mono, f"{cells} | {size} | {check:.1f}"))
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cubes", default="1,2,3", help="K values to compare with K = 0")
    parser.add_argument("--workers", type=int, default=2, help="local pool processes")
    parser.add_argument("--only", default=None, help="run the graphs whose name has this text")
    args = parser.parse_args(argv)
    ks = [int(k) for k in args.cubes.split(",")]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.python_version()}")
    print(f"load before: {os.getloadavg()[0]:.2f} (1-min average)")
    print(
        f"| graph | r | K | wall s ({args.workers} workers) | speedup | cubes s sum / max "
        f"| combine s | {CLUSTER}-core makespan s (simulated) | proof | check s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, t, r, what in _suite():
        if args.only is None or args.only in name:
            for row in _measure(name, t, r, what, ks, args.workers):
                print(row, flush=True)
    print(f"load after: {os.getloadavg()[0]:.2f} (1-min average)")


if __name__ == "__main__":
    main()
