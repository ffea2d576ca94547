"""Fit a simulator profile to one benchmark of the SAC paper's per-round tables; ship it.

Runs :class:`protocol_runner.sim.calibrate.Calibration` on the per-round weak/strong targets of
``TABLE BENCHMARK`` (Table 2 ``math`` on the built-in arithmetic set; Table 10 per benchmark on
its synthetic placeholder set, :mod:`protocol_runner.tasks.placeholders`, or ``--tasks``), read
through the shipped paper values, with the checkpoint ``--checkpoint``
(rerun the same command to resume), then scans the named parameters' conditional intervals
and writes the profile into ``protocol_runner/data/sim_profiles.json`` under ``--name``.
The fit sees only the per-round rows; nothing else of the paper (benchmarks/sim_validation.py
checks the held-out cells).

Usage (the shipped ``table2-math`` profile; 369 evaluations, one core)::

    nice -n 10 python benchmarks/fit_paper_profiles.py table2 math --name table2-math \\
        --checkpoint table2.ckpt.json \\
        --intervals task_share,strong.doubt_when_right,strong.trust_when_right

The ``table2-commonsense`` profile (Table 2's Commonsense rows on the paper's 30 instances,
``commonsense30``; one accuracy for its yes/no and choice questions)::

    nice -n 10 python benchmarks/fit_paper_profiles.py table2 commonsense \
        --name table2-commonsense --tasks commonsense30 --kind bool/choice \
        --checkpoint table2-commonsense.ckpt.json

The ``table10-<benchmark>`` profiles (170 evaluations each on 50 placeholder tasks, with the
budget and the model before ``doubt_when_right``, e79e637; a rerun today fits the current model
with the current budget)::

    for b in arc_challenge hellaswag openbookqa boolq rte; do
        nice -n 5 python benchmarks/fit_paper_profiles.py table10 $b --name table10-$b \\
            --checkpoint table10-$b.ckpt.json
    done
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from protocol_runner.analysis.paper_values import paper_tables
from protocol_runner.sim.calibrate import PRIOR_WIDTH, Calibration, scan_intervals
from protocol_runner.sim.profiles import PROFILES_FILE
from protocol_runner.sim.targets import paper_targets

DATA = Path(__file__).resolve().parents[1] / "protocol_runner" / "data" / PROFILES_FILE
BUDGET = {"cpwbft": (32, 150), "sac": (8, 25)}
"""(Sobol points, Nelder-Mead evaluations) per block: the CPU budget of a shipped fit."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("table")
    parser.add_argument("benchmark")
    parser.add_argument("--name", required=True)
    parser.add_argument("--checkpoint", required=True)
    parser.add_argument("--tasks", default=None)
    parser.add_argument("--kind", default=None,
                        help="the task kinds the per-kind parameters apply to (bool/choice for "
                             "commonsense30: one accuracy for both)")
    parser.add_argument("--intervals", default="")
    parser.add_argument("--output", default=str(DATA))
    args = parser.parse_args()
    settings, targets, kind = paper_targets(args.table, args.benchmark, tasks=args.tasks)
    kind = args.kind or kind
    started, cpu = time.perf_counter(), time.process_time()

    def log(line: str) -> None:
        print(f"{time.perf_counter() - started:7.1f}s {line}", file=sys.stderr, flush=True)

    cal = Calibration(settings, targets, kind=kind, checkpoint=args.checkpoint, seeds=(1,),
                      prior_width=PRIOR_WIDTH, log=log)
    fit = cal.fit(BUDGET)
    config = cal.config(fit.values).to_mapping()
    del config["description"]  # the entry's own
    table = args.table.replace("table", "Table ")
    bench = {"math": "MATH", "commonsense": "Commonsense170k"}.get(args.benchmark, args.benchmark)
    if args.table == "table10":  # the models and the placeholder tasks are part of the label
        found = paper_tables()["table10"].benchmarks[args.benchmark]
        bench = (f"{found.dataset.split(' (')[0]}, {found.models['strong']} / "
                 f"{found.models['weak']}, placeholder tasks")
    entry = {
        "description": f"profile fitted to the SAC paper's {table}, {bench}",
        "default_for": kind if args.table == "table2" and "/" not in kind else None,
        "fitted_to": {"table": args.table, "benchmark": args.benchmark, "kind": kind,
                      "tasks": settings[0].tasks, "targets": len(targets)},
        "config": config,
        "fit": {},
    }
    path = Path(args.output)

    def write() -> None:  # before the interval scans, and again after them
        entry["fit"] = {**fit.to_json(), "seeds": list(cal.seeds),
                        "prior_width": cal.prior_width,
                        "budget": {b: {"sobol": p, "nelder_mead": e}
                                   for b, (p, e) in BUDGET.items()},
                        "cpu_s": round(time.process_time() - cpu, 1)}
        document = (json.loads(path.read_text(encoding="utf-8")) if path.is_file()
                    else {"schema": "robustgraph/sim-profiles/1", "profiles": {}})
        document["profiles"][args.name] = entry
        path.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")

    write()
    names = [n for n in args.intervals.split(",") if n]
    if names:
        fit.intervals = scan_intervals(cal, fit, names, points=3)
        write()
    print(json.dumps(fit.to_json(), indent=1))


if __name__ == "__main__":
    main()
