"""Issue 40's first done-when item over many registered rounds, one line per run and comparison.

``vs_published.py --workers`` ends each run with summary lines (``# one worker: median
script/ours ..., ours faster on K of N``, ``# ... slower by more than 10% + 0.1 s ...: ROWS``,
``# ... ours bounded at its limit where a script proved r*: ROWS``). This script reads those lines
from the registered runs' result files (``benchmarks/results/rNN_idleSEED.txt`` and
``rNN_pairSEED.txt``; files with anything after the seed, such as ``_third_beside``, are not
registered runs and are skipped) and prints, per file and comparison (one worker, two workers):
the median ratio, the share of rows where ours is faster, the number of rows slower by the margin,
and whether ours was bounded at its limit on a row a script proved. It then counts how many
run-comparisons meet each of those conditions. Used by docs/performance.md, "Issue 40, round 22:
the first done-when item over rounds 13-22". Not part of the test run::

    /work/venv/bin/python benchmarks/registered_summary.py --rounds 13-22
"""

from __future__ import annotations

import argparse
import re
import statistics
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
RUN_FILE = re.compile(r"^r(\d+)_(idle|pair)(\d+)\.txt$")
COMPARISONS = ("one worker", "two workers")


def read_run(text: str, comparison: str) -> dict | None:
    """The summary of one comparison in one run's output, or None if the run has none."""
    head = re.search(
        rf"^# {comparison}: median script/ours ([\d.]+), min [\d.]+, ours faster on (\d+) of (\d+)",
        text,
        re.M,
    )
    slower = re.search(
        rf"^# {comparison}, slower by more than 10% \+ 0\.1 s \(wall or CPU\): (.*)$", text, re.M
    )
    bounded = re.search(
        rf"^# {comparison}, ours bounded at its limit where a script proved r\*: (.*)$", text, re.M
    )
    if not (head and slower and bounded):
        return None
    return {
        "median": float(head.group(1)),
        "faster": int(head.group(2)),
        "rows": int(head.group(3)),
        "slower": 0 if slower.group(1).strip() == "none" else slower.group(1).count(" vs "),
        "bounded": bounded.group(1).strip() != "none",
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", default="13-22", help="first-last round, inclusive")
    args = ap.parse_args(argv)
    first, last = (int(x) for x in args.rounds.split("-"))
    runs = []
    for path in RESULTS.iterdir():
        match = RUN_FILE.match(path.name)
        if match and first <= int(match.group(1)) <= last:
            round_, kind, seed = int(match.group(1)), match.group(2), int(match.group(3))
            runs.append((round_, kind, seed, path.read_text()))
    print(
        "| round | run | seed | comparison | median | ours faster | slower rows "
        "| bounded where a script proved |"
    )
    print("|---|---|---|---|---|---|---|---|")
    lines = []
    for round_, kind, seed, text in sorted(runs, key=lambda r: (r[0], r[1], r[2])):
        for comparison in COMPARISONS:
            s = read_run(text, comparison)
            if s is None:
                continue
            lines.append((comparison, s))
            share = 100 * s["faster"] / s["rows"]
            print(
                f"| {round_} | {kind} | {seed} | {comparison} | {s['median']:.2f} "
                f"| {s['faster']} of {s['rows']} ({share:.0f}%) | {s['slower']} "
                f"| {'yes' if s['bounded'] else 'no'} |"
            )
    if not lines:
        print("no registered run found")
        return 1
    summaries = [s for _, s in lines]
    print(f"# run-comparisons: {len(summaries)}")
    print(f"# none slower: {sum(s['slower'] == 0 for s in summaries)}")
    at_least_90 = sum(s["faster"] >= 0.9 * s["rows"] for s in summaries)
    print(f"# ours faster on at least 90% of rows: {at_least_90}")
    print(f"# never bounded where a script proved: {sum(not s['bounded'] for s in summaries)}")
    for comparison in COMPARISONS:
        medians = [s["median"] for c, s in lines if c == comparison]
        if medians:
            print(
                f"# {comparison}: median ratio per run {min(medians):.2f}-{max(medians):.2f} "
                f"(median {statistics.median(medians):.2f})"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
