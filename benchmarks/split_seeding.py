"""Measured table: the degree-sequence split with and without seeding each case from the pair
clauses of earlier cases (robustgraph/design/minimum_seeds.py; issue 43).

For each cell and level, the modes run one after another in this process, interleaved over
--repeats rounds: prove_minimum(n, r, L, split=True, seed=MODE) proves "at least L edges" (the
refutation of "at most L - 1"), then the certificate is checked once more, timed on its own.
Columns: pair clauses in the certificate (of them seeded from the pool), new pair clauses (one
oracle call each), LRAT steps, the proof's CPU seconds (search, refutations and the check
prove_minimum runs), the gzip bytes of the LRAT files, the checker's CPU seconds, and the
median of each over the rounds. CPU seconds of this process; run it alone on a core and say
the load (`uptime`) beside its figures.

    python benchmarks/split_seeding.py --cell 10,3,21 --cell 11,5,36 --repeats 1

Not part of the test run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from robustgraph.certificate.proofs import minimality as mp
from robustgraph.design.minimum import prove_minimum
from robustgraph.design.minimum_seeds import SEEDS


def measure(n: int, r: int, level: int, seed: str, time_limit: float) -> dict[str, float] | None:
    """One proof of "at least ``level`` edges" by the split seeded by ``seed``, or None."""
    c0 = time.process_time()
    result = prove_minimum(n, r, level, split=True, seed=seed, time_limit=time_limit)
    cpu = time.process_time() - c0
    if result.lower_bound < level or result.document["proof"]["kind"] != "degree-split":
        print(f"n = {n}, r = {r}, L = {level}, {seed}: not proven ({result.note})", flush=True)
        return None
    proof = result.document["proof"]
    c1 = time.process_time()
    mp.check_minimum(result.document, result.files.__getitem__)
    check = time.process_time() - c1
    seeded = sum(case.get("seeds", 0) for case in proof["cases"])
    return {"cases": len(proof["cases"]), "pairs": proof["pairs"], "seeded": seeded,
            "new": proof["pairs"] - seeded, "steps": proof["steps"], "cpu": cpu,
            "lrat_mb": sum(case["lrat_bytes"] for case in proof["cases"]) / 1e6,
            "check": check}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cell", action="append", required=True, metavar="N,R,L",
                    help="a cell and the level L to prove (at least L edges); repeatable")
    ap.add_argument("--modes", default=",".join(SEEDS), help="seeding modes, comma-separated")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--time-limit", type=float, default=3600.0)
    args = ap.parse_args(argv)
    modes = args.modes.split(",")
    print("| cell, level | seed | cases | pair clauses (seeded) | new (oracle calls) | LRAT steps "
          "| proof CPU s | LRAT gzip MB | check CPU s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for cell in args.cell:
        n, r, level = (int(x) for x in cell.split(","))
        runs: dict[str, list[dict[str, float]]] = {mode: [] for mode in modes}
        for _ in range(args.repeats):
            for mode in modes:
                if (found := measure(n, r, level, mode, args.time_limit)) is not None:
                    runs[mode].append(found)
                    print(f"n = {n}, r = {r}, L = {level}, {mode}: {found}", file=sys.stderr,
                          flush=True)
        for mode, found in runs.items():
            if not found:
                continue
            med = {key: statistics.median(f[key] for f in found) for key in found[0]}
            print(f"| n = {n}, r = {r}, L = {level} | {mode} | {med['cases']:.0f} | "
                  f"{med['pairs']:,.0f} ({med['seeded']:,.0f}) | {med['new']:,.0f} | "
                  f"{med['steps']:,.0f} | {med['cpu']:.1f} | {med['lrat_mb']:.1f} | "
                  f"{med['check']:.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
