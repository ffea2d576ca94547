"""Measured scaling of the robustness engines: published vs strong model, per engine, per family.

Prints one table row per solve of ``max_r`` (family, n, density, seed, engine, formulation,
status, value, proven bounds, seconds), each capped at ``--cap`` seconds. Not part of the test
run. Example (the table in docs/performance.md)::

    .venv/bin/python benchmarks/certify_scaling.py --families er --sizes 10,20,30,40 --cap 20
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from collections.abc import Iterator

import networkx as nx

from robustgraph import generators
from robustgraph.topology import Topology
from solvers import registry
from solvers.types import Question, Request

FAMILIES = ("er", "digraph", "kin", "merg", "pa", "circulant", "rgg")


def suite(families: list[str], sizes: list[int], big: list[int], seeds: int) -> Iterator[tuple]:
    """``(family, n, density label, seed, Topology)`` for the requested families."""
    for family in families:
        for seed in range(seeds):
            if family in ("er", "digraph"):
                for n in sizes:
                    for p in (0.3, 0.5):
                        g = generators.erdos_renyi(n, p, seed=seed, directed=family == "digraph")
                        yield family, n, f"p={p}", seed, g
            elif family == "kin":
                for n in sizes:
                    for k in (3, 4, 5):
                        yield family, n, f"k={k}", seed, generators.random_k_in(n, k, seed=seed)
            elif family == "merg" and seed == 0:
                for n in big:
                    yield family, n, "-", seed, generators.gamma_merg(n)
            elif family == "pa":
                for n in big:
                    for r in (3, 5):
                        g = generators.preferential_attachment(n, r, seed=seed)
                        yield family, n, f"r={r}", seed, g
            elif family == "circulant" and seed == 0:
                for n in big:
                    yield family, n, "k=4", seed, generators.k_circulant(n, 4)
            elif family == "rgg":
                for n in big:
                    radius = 0.25 if n <= 50 else 0.18
                    g = nx.random_geometric_graph(n, radius, seed=seed)
                    yield family, n, f"rad={radius}", seed, Topology.from_networkx(g)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--families", default="er,digraph", help=f"comma list of {','.join(FAMILIES)}")
    ap.add_argument("--sizes", default="10,20,30,40,50,60", help="n for er, digraph and kin")
    ap.add_argument("--big", default="50,100,200", help="n for merg, pa, circulant and rgg")
    ap.add_argument("--seeds", type=int, default=1, help="seeds 0..K-1 per random family")
    ap.add_argument("--engines", default="cpsat,highs,cbc,portfolio")
    ap.add_argument("--formulations", default="published,strong")
    ap.add_argument("--cap", type=float, default=60.0, help="seconds per solve")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="one JSON object per row instead")
    args = ap.parse_args(argv)
    families = [f for f in args.families.split(",") if f]
    unknown = set(families) - set(FAMILIES)
    if unknown:
        ap.error(f"unknown families {sorted(unknown)}; choose from {FAMILIES}")
    sizes = [int(x) for x in args.sizes.split(",") if x]
    big = [int(x) for x in args.big.split(",") if x]
    engines = [e for e in args.engines.split(",") if e]
    forms = [f for f in args.formulations.split(",") if f]
    print(
        f"# {platform.node()} {platform.processor() or platform.machine()}, "
        f"python {platform.python_version()}, cap {args.cap:g} s, threads {args.threads}",
        file=sys.stderr,
    )
    head = "family     n  density  seed engine     form       status   value bounds    seconds"
    if not args.json:
        print(head)
    warm = generators.complete(4)  # load solver libraries before the clock starts
    for engine in engines:
        registry.solve(Request(warm, Question.max_r()), engine)
    times: dict[tuple[str, str, str, int, str], list[float]] = {}
    for family, n, density, seed, g in suite(families, sizes, big, args.seeds):
        for engine in engines:
            for form in forms if engine != "portfolio" else ["strong"]:
                req = Request(g, Question.max_r(), args.cap, args.threads, form, seed)
                start = time.perf_counter()
                res = registry.solve(req, engine)
                seconds = time.perf_counter() - start
                label = form if engine != "portfolio" else "-"
                times.setdefault((family, density, engine, n, label), []).append(seconds)
                row = {
                    "family": family,
                    "n": n,
                    "density": density,
                    "seed": seed,
                    "engine": engine,
                    "formulation": label,
                    "status": res.status.value,
                    "value": res.value,
                    "lower": res.lower,
                    "upper": res.upper,
                    "seconds": round(seconds, 3),
                }
                if args.json:
                    print(json.dumps(row), flush=True)
                else:
                    value = "-" if res.value is None else res.value
                    print(
                        f"{family:<8} {n:>4}  {density:<8} {seed:>4} {engine:<10} {label:<10} "
                        f"{res.status.value:<8} {value!s:>5} [{res.lower},{res.upper}]"
                        f"{'':<4} {seconds:>8.2f}",
                        flush=True,
                    )
    if args.seeds > 1 and not args.json:
        print("\n# median seconds over seeds (capped solves count at the cap)")
        for key, values in sorted(times.items()):
            print(f"# {key}: {statistics.median(values):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
