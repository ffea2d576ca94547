"""Measured table: one degree case of the split refuted with one pair clause per model, of the
oracle's witness as found ("plain") or widened ("wide", robustgraph/design/oracle.py,
widest_pair), or with the shortest clauses of the witnesses near it ("shortest", the default:
robustgraph/design/minimum_loop.py, pair_clauses; issue 43).

For each case (a degree sequence of a level's cover), the modes run one after another in this
process, each first in turn from case to case and round to round: the case's
counterexample-guided search (minimum_split's own loop, unseeded) and its LRAT refutation.
"plain" and "wide" are the same code with minimum_loop.pair_clauses replaced by one clause of
the witness, as found or widened. Columns per case and mode: models (one oracle call each),
pair clauses, mean literals per pair clause, search and refutation CPU seconds, LRAT steps;
medians over --repeats rounds; then the totals over the cases every mode refuted and the ratios
to plain. CPU seconds of this process; say the load (`uptime`) beside them.

    python benchmarks/split_witness.py --cell 11,4,28 --cases 1:74:8 --repeats 1

Not part of the test run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from robustgraph.certificate.proofs import minimality as mp
from robustgraph.design import minimum_loop, minimum_split
from robustgraph.design.oracle import widest_pair

MODES = ("plain", "wide", "shortest")


def _plain(n, r, s, masks, pair):
    return [minimum_loop.pair_clause(n, r, masks, *pair)]


def _wide(n, r, s, masks, pair):
    return [minimum_loop.pair_clause(n, r, masks, *widest_pair(masks, r, pair))]


_CLAUSES = {"plain": _plain, "wide": _wide, "shortest": minimum_loop.pair_clauses}


def measure(n: int, r: int, degrees: tuple[int, ...], mode: str,
            time_limit: float) -> dict[str, float] | None:
    """One case refuted in ``mode``: its figures, or None when the time limit stopped it."""
    minimum_loop.pair_clauses = _CLAUSES[mode]
    models = [0]
    oracle = minimum_loop.witness

    def counted(*args):
        models[0] += 1
        return oracle(*args)

    minimum_loop.witness = counted
    try:
        deadline = time.monotonic() + time_limit
        c0 = time.process_time()
        status, found = minimum_split._case_search(  # the split's own loop, one case
            n, r, 1, degrees, 2_000_000, deadline, minimum_split.Split(n))
        c1 = time.process_time()
        if status != "unsat":
            print(f"{degrees} {mode}: {status}", file=sys.stderr)
            return None
        made = minimum_split._case_refutation(n, degrees, *found, deadline)
        c2 = time.process_time()
    finally:
        minimum_loop.pair_clauses = _CLAUSES["shortest"]
        minimum_loop.witness = oracle
    if made is None:
        return None
    pairs = found[0]
    return {"models": models[0], "clauses": len(pairs),
            "literals": sum(len(p.literals) for p in pairs) / max(len(pairs), 1),
            "search": c1 - c0, "refute": c2 - c1, "cpu": c2 - c0, "steps": made[0]["steps"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cell", required=True, metavar="N,R,L",
                    help="the cell and the level L whose cover the cases come from")
    ap.add_argument("--cases", default="1:", metavar="A:B[:STEP]",
                    help="cases of the cover by their 1-based place (a slice, B included)")
    ap.add_argument("--degrees", action="append", default=[], metavar="D0-D1-...",
                    help="a case by its degree sequence instead (repeatable)")
    ap.add_argument("--modes", default=",".join(MODES), help="modes, comma-separated")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--time-limit", type=float, default=1800.0, help="seconds per case and mode")
    args = ap.parse_args(argv)
    try:
        n, r, level = (int(x) for x in args.cell.split(","))
        cover = list(mp.degree_sequences(n, r, 2 * (level - 1)))
        if args.degrees:
            cases = [tuple(int(d) for d in text.split("-")) for text in args.degrees]
        else:
            a, _, rest = args.cases.partition(":")
            b, _, step = rest.partition(":")
            cases = cover[int(a or 1) - 1:int(b) if b else None:int(step or 1)]
    except ValueError:
        print("split_witness: --cell N,R,L and --cases A:B[:STEP] take integers", file=sys.stderr)
        return 2
    modes = tuple(args.modes.split(","))
    if not set(modes) <= set(MODES):
        print(f"split_witness: --modes takes {', '.join(MODES)}", file=sys.stderr)
        return 2
    if not cases or any(len(c) != n or c not in cover for c in cases):
        print(f"split_witness: no such case in the cover of n = {n}, r = {r}, L = {level}",
              file=sys.stderr)
        return 2
    print(f"n = {n}, r = {r}, L = {level}: {len(cases)} of the cover's {len(cover)} cases, "
          f"{args.repeats} round(s)")
    print("| degrees | mode | models | pair clauses | literals | search CPU s | refutation CPU s "
          "| CPU s | LRAT steps |")
    print("|---|---|---|---|---|---|---|---|---|")
    totals = {mode: {} for mode in modes}
    for k, degrees in enumerate(cases):
        runs = {mode: [] for mode in modes}
        for round_ in range(args.repeats):
            turn = (k + round_) % len(modes)  # each mode first in turn
            order = modes[turn:] + modes[:turn]
            for mode in order:
                runs[mode].append(measure(n, r, degrees, mode, args.time_limit))
        both = all(run is not None for mode in modes for run in runs[mode])
        for mode in modes:
            if any(run is None for run in runs[mode]):
                print(f"| {'-'.join(map(str, degrees))} | {mode} | not refuted in the time "
                      "limit | | | | | | |", flush=True)
                continue
            med = {key: statistics.median(run[key] for run in runs[mode]) for key in runs[mode][0]}
            for key, value in med.items():  # totals over the cases both modes refuted
                totals[mode][key] = totals[mode].get(key, 0) + value * both
            print(f"| {'-'.join(map(str, degrees))} | {mode} | {med['models']:,.0f} | "
                  f"{med['clauses']:,.0f} | {med['literals']:.1f} | {med['search']:.2f} | "
                  f"{med['refute']:.2f} | {med['cpu']:.2f} | {med['steps']:,.0f} |", flush=True)
    for mode in modes:
        t = totals[mode]
        if t:
            print(f"| total | {mode} | {t['models']:,.0f} | {t['clauses']:,.0f} | | "
                  f"{t['search']:.1f} | "
                  f"{t['refute']:.1f} | {t['cpu']:.1f} | {t['steps']:,.0f} |")
    for mode in modes:
        if mode != "plain" and totals.get("plain") and totals[mode]:
            print(f"| ratio | {mode} / plain | " + " | ".join(
                f"{totals[mode][key] / totals['plain'][key]:.2f}" if key != "literals" else ""
                for key in ("models", "clauses", "literals", "search", "refute", "cpu", "steps"))
                + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
