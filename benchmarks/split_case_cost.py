"""What one degree-split minimality proof, or one of its cases, costs: one JSON line.

Issue 43. Run it under two checkouts (``PYTHONPATH=...``) interleaved to compare provers, as
docs/design.md ("Degree clauses") does::

    python benchmarks/split_case_cost.py 10 3 21            # the whole level, then its check
    python benchmarks/split_case_cost.py 12 4 32 --case 73  # case 73 of level 32 only
    python benchmarks/split_case_cost.py 10 3 21 --whole    # the level as one CNF (lrat)

The whole level is ``prove_minimum(n, r, L, split=True)`` without a climb or seeding (with
``--whole``, ``split=False``: one counterexample loop and one LRAT refutation for every degree
sequence at once), then ``check_minimum`` on its certificate; a case is its counterexample-
guided search and its LRAT refutation, unseeded. CPU seconds of this process; ``negative``
counts the negative literals of the pair clauses (degree clauses, docs/theory.md section 8).
"""

from __future__ import annotations

import argparse
import json
import time

from robustgraph.certificate.proofs import minimality as mp
from robustgraph.design import minimum_split
from robustgraph.design.minimum import prove_minimum


def _level(n: int, r: int, level: int, split: bool) -> dict:
    start = time.process_time()
    result = prove_minimum(n, r, level, time_limit=1e6, split=split)
    cpu = time.process_time() - start
    if not (result.minimum and result.lower_bound == level):
        raise SystemExit(f"level {level} not proven: {result.note}")
    start = time.process_time()
    mp.check_minimum(result.document, result.files.__getitem__)
    check = time.process_time() - start
    proof = result.document["proof"]
    clauses = [c for case in proof.get("cases", [proof])
               for c in mp.parse_pairs(result.files[case["pairs_file"]], "pairs")]
    return {"proof": proof["kind"], "cases": len(proof.get("cases", [proof])),
            "pairs": proof["pairs"], "steps": proof["steps"],
            "negative": sum(x < 0 for c in clauses for x in c.literals),
            "cpu": round(cpu, 2), "check_cpu": round(check, 2)}


def _case(n: int, r: int, level: int, k: int) -> dict:
    degrees = list(mp.degree_sequences(n, r, 2 * (level - 1), exactly=True))[k - 1]
    start = time.process_time()
    status, found = minimum_split._case_search(n, r, 1, degrees, 2_000_000,
                                               time.monotonic() + 1e6, minimum_split.Split(n))
    search = time.process_time() - start
    if status != "unsat":
        raise SystemExit(f"case {k} not refuted: {status}")
    entry, _ = minimum_split._case_refutation(n, degrees, *found, time.monotonic() + 1e6)
    return {"case": k, "degrees": list(degrees), "pairs": entry["pairs"],
            "steps": entry["steps"], "negative": sum(x < 0 for c in found[0] for x in c.literals),
            "search_cpu": round(search, 2), "cpu": round(time.process_time() - start, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int)
    parser.add_argument("r", type=int)
    parser.add_argument("level", type=int, help="L: refute 'at most L - 1 edges'")
    parser.add_argument("--case", type=int, help="only this case of the level's cover (1-based)")
    parser.add_argument("--whole", action="store_true",
                        help="the level as one CNF (no degree split)")
    args = parser.parse_args()
    found = (_case(args.n, args.r, args.level, args.case) if args.case
             else _level(args.n, args.r, args.level, not args.whole))
    print(json.dumps({"cell": [args.n, args.r, args.level]} | found), flush=True)


if __name__ == "__main__":
    main()
