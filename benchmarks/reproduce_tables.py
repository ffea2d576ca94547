"""Every table of the SAC paper (Lee et al. 2026) re-run at full size on the simulated agents.

For each table of ``robustgraph reproduce`` (Tables 1-6, 9, 10) it runs the paper's setting
(:data:`protocol_runner.analysis.reproduce.TABLES`) with the paper's question counts where a
built-in task set can supply them (MATH columns: ``arith:100`` for Table 1, ``arith:30`` for
Tables 5 and 6, stand-ins for the paper's MATH Level-4 problems; Commonsense: the paper's 30
instances; the five open-weight benchmarks: their 50-task placeholder sets, reproduce's
default, each on its ``table10-<benchmark>`` profile) for ``--seeds`` seeds, and prints each
table as ``reproduce`` does (ours beside the paper's, the closing statistics, fitted and
predicted cells apart) with its wall time and the machine's load. Simulated agents: not
LLM results. Not part of the test run. The output in docs/protocols.md::

    nice -n 5 .venv/bin/python benchmarks/reproduce_tables.py --seeds 1-3 -o /tmp/repro
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from protocol_runner.analysis.reproduce import TABLES, reproduce
from protocol_runner.analysis.reproduce_view import table_text
from protocol_runner.run.runner import parse_seeds

FULL = {"table1": ("math=arith:100",), "table5": ("arith:30",), "table6": ("arith:30",)}
"""Full-size task specs where the default stand-in is smaller than the paper's count."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1-3")
    parser.add_argument("--tables", default=",".join(TABLES))
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("-o", "--output", type=Path, required=True)
    args = parser.parse_args(argv)
    seeds = parse_seeds(args.seeds)
    print(f"seeds {args.seeds}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs "
          "at the start; simulated agents: not LLM results\n")
    for name in args.tables.split(","):
        spec = TABLES[name]
        start = time.perf_counter()
        result = reproduce(spec, args.output / spec.runs, seeds=seeds,
                           tasks=FULL.get(spec.runs, ()), resamples=args.resamples)
        wall = time.perf_counter() - start
        print(table_text(result), end="")
        print(f"[{name}: {wall:.0f} s wall (resumed runs count 0), load average "
              f"{os.getloadavg()[0]:.1f}]\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
