"""Validate the Table 10 profiles on cells they were never fitted to (issue 29 (b) and (c)).

The SAC paper's open-weight experiments (Qwen3-4B strong, Qwen2.5-1.5B-Instruct weak; 4S2W1A,
F = 3, T = 6; 50 questions per benchmark; App. C-D) publish per-round W/S (Table 10, the only
rows the ``table10-<benchmark>`` profiles are fitted to) and the end metrics (Table 9 per
benchmark, Table 3 their mean). Parts (each prints its rows and counts; simulated agents on
synthetic placeholder tasks of each benchmark's shape, :mod:`protocol_runner.tasks.placeholders`:
not LLM results):

- ``tables`` (validation (b)): Table 9's IAA, FAA, BFTI, H-Majority per benchmark and topology
  on the shipped profile ``table10-<benchmark>``, and Table 3's (the five benchmarks pooled),
  at the paper's question counts with ``--seeds``; coverage as in benchmarks/sim_validation.py
  (the paper's value inside our 95% interval widened by 2 points).
- ``loto`` (validation (c)): per benchmark and held-out topology, a fit on the other two
  topologies' Table 10 rows (budget :data:`LOTO_BUDGET`), then the held-out topology's rounds
  predicted; coverage per round and group.
- ``lobo`` (validation (c)): per held-out benchmark, the dynamics fitted pooled on the other
  four (:class:`protocol_runner.sim.pooled.PooledCalibration`, budget :data:`LOBO_BUDGET`), the
  held-out benchmark's accuracies from its own Init rows, its rounds 1-6 predicted.

Init rows are not scored in ``loto`` and ``lobo``: Table 10 prints the same Init row for the
three topologies (the same models on the same questions), and the leave-one-benchmark-out
prediction takes its accuracies from it.

Usage::

    nice -n 5 python benchmarks/sim_validation_open.py tables --seeds 1-5 --json tables.json
    nice -n 5 python benchmarks/sim_validation_open.py loto --work out/loto --json loto.json
    nice -n 5 python benchmarks/sim_validation_open.py lobo --work out/lobo --json lobo.json
    python benchmarks/sim_validation_open.py figure tables.json loto.json lobo.json \\
        --figure docs/img/sim_validation_open.png
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from sim_validation import cell_rows, figure, inside, print_rows, run_seeds

from protocol_runner.analysis.metrics import compute_metrics
from protocol_runner.analysis.paper_values import paper_tables
from protocol_runner.run.runner import parse_seeds
from protocol_runner.sim.agents import SimConfig
from protocol_runner.sim.calibrate import PRIOR_WIDTH, Calibration
from protocol_runner.sim.pooled import (
    Part,
    PooledCalibration,
    leave_one_benchmark_out,
    leave_one_topology_out,
    paper_part,
)
from protocol_runner.sim.profiles import named_config

TABLE = "table10"
BENCHMARKS = ("arc_challenge", "hellaswag", "openbookqa", "boolq", "rte")
SHORT = {"arc_challenge": "arc", "hellaswag": "hella", "openbookqa": "obqa", "boolq": "boolq",
         "rte": "rte"}
LOTO_BUDGET = {"cpwbft": (8, 30), "sac": (4, 10)}
"""(Sobol points, Nelder-Mead evaluations) per block of each leave-one-topology-out fit."""
LOBO_BUDGET = {"cpwbft": (8, 30), "sac": (4, 10)}
"""The same for each pooled leave-one-benchmark-out fit (four benchmarks per evaluation)."""


def _log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def tables(seeds: tuple[int, ...], work: Path, benchmarks: tuple[str, ...]) -> list[dict]:
    """Validation (b): Table 9 per benchmark and topology, Table 3 over the five pooled
    (only when ``benchmarks`` are all five)."""
    t9 = paper_tables()["table9"]
    rows: list[dict] = []
    pooled: dict[str, list] = {}
    for bench in benchmarks:
        config = named_config(f"{TABLE}-{bench}")
        for setting in paper_part(TABLE, bench).settings:
            records = run_seeds(config, setting, seeds, work, f"{bench} {setting.name}")
            pooled.setdefault(setting.name, []).extend(records)
            papers = {m: dict(t9.row(benchmark=bench, method=m, topology=setting.name) or {})
                      for m in ("cpwbft", "sac")}
            rows += cell_rows("table9", f"{SHORT[bench]}/{setting.name}",
                              compute_metrics(records), papers)
    t3 = paper_tables()["table3"]
    for topology, records in pooled.items() if set(benchmarks) == set(BENCHMARKS) else ():
        papers = {m: dict(t3.row(benchmark="mean5", method=m, topology=topology) or {})
                  for m in ("cpwbft", "sac")}
        rows += cell_rows("table3", f"mean5/{topology}", compute_metrics(records), papers)
    return rows


def predict(config: SimConfig, part: Part, seeds: tuple[int, ...], work: Path,
            table: str) -> list[dict]:
    """Rows for ``part``'s targets after Init: the paper's per-round value against ours (the
    group's accuracy at that round, or over rounds 1-T for CP-WBFT's pooled row) with its 95%
    interval, at the part's question count with one run per seed."""
    rows = []
    for setting in part.settings:
        records = run_seeds(config, setting, seeds, work, f"{table} {part.benchmark} "
                            f"{setting.name}")
        metrics = compute_metrics(records)
        for t in part.targets:
            if t.setting != setting.name or t.rounds == (0,):
                continue
            m = metrics[t.protocol]
            if len(t.rounds) == 1:
                est = m.rounds[t.group][t.rounds[0]]
            elif t.rounds == tuple(range(1, setting.rounds + 1)):
                est = m.after_first[t.group]
            else:
                raise ValueError(f"{t.key}: rounds {t.rounds} are not one round nor 1-T")
            low, high, paper = 100 * est.low, 100 * est.high, 100 * t.value
            span = f"{t.rounds[0]}" if len(t.rounds) == 1 else f"{t.rounds[0]}-{t.rounds[-1]}"
            rows.append({
                "table": table, "cell": f"{SHORT[part.benchmark]}/{setting.name}",
                "method": t.protocol, "metric": f"{t.group[0].upper()} r{span}",
                "paper": round(paper, 1), "ours": round(100 * est.value, 1),
                "low": round(low, 1), "high": round(high, 1), "hit": inside(paper, low, high),
            })
    return rows


def loto(seeds: tuple[int, ...], work: Path, benchmarks: tuple[str, ...]) -> list[dict]:
    """Validation (c), leave one topology out (module docstring), on ``benchmarks``."""
    rows = []
    for bench in benchmarks:
        for held in ("merg", "complete", "er"):
            train, test = leave_one_topology_out(TABLE, bench, held)
            cal = Calibration(train.settings, train.targets, kind=train.kind,
                              checkpoint=work / f"loto-{bench}-{held}.ckpt.json",
                              prior_width=PRIOR_WIDTH, log=_log)
            fit = cal.fit(LOTO_BUDGET)
            _log(f"loto {bench} without {held}: chi2 {fit.chi2:.1f} on {fit.dof} dof")
            rows += predict(cal.config(fit.values), test, seeds, work, "loto")
    return rows


def lobo(seeds: tuple[int, ...], work: Path, benchmarks: tuple[str, ...]) -> list[dict]:
    """Validation (c), leave one benchmark out (module docstring): each of ``benchmarks``
    held out in turn (the pooled fit is always on the other four of the five)."""
    rows = []
    for held in benchmarks:
        train, test = leave_one_benchmark_out(TABLE, BENCHMARKS, held)
        cal = PooledCalibration(train, checkpoint=work / f"lobo-{held}.ckpt.json",
                                prior_width=PRIOR_WIDTH, log=_log)
        fit = cal.fit(LOBO_BUDGET)
        _log(f"lobo without {held}: chi2 {fit.chi2:.1f} on {fit.dof} dof")
        rows += predict(cal.transfer(fit.values, test), test, seeds, work, "lobo")
    return rows


def summary(rows: list[dict]) -> None:
    """Counts per table and per (table, method), then the misses by cell."""
    for table in dict.fromkeys(r["table"] for r in rows):
        part = [r for r in rows if r["table"] == table]
        per = ", ".join(
            f"{m} {sum(r['hit'] for r in part if r['method'] == m)}/"
            f"{sum(1 for r in part if r['method'] == m)}"
            for m in dict.fromkeys(r["method"] for r in part))
        qual = [r["qualitative"] for r in part if "qualitative" in r]
        extra = f"; qualitative finding holds in {sum(qual)} of {len(qual)}" if qual else ""
        print(f"{table}: paper inside our 95% interval widened by 2 points in "
              f"{sum(r['hit'] for r in part)} of {len(part)} cells ({per}){extra}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=("tables", "loto", "lobo", "figure"))
    parser.add_argument("inputs", nargs="*", help="figure: the parts' --json files")
    parser.add_argument("--seeds", default="1-5")
    parser.add_argument("--benchmarks", default=",".join(BENCHMARKS),
                        help="the benchmarks validated (held out, for lobo)")
    parser.add_argument("--work", default=None, help="checkpoints of the fits (resumable)")
    parser.add_argument("--json", dest="json_out", default=None)
    parser.add_argument("--figure", default=None)
    args = parser.parse_args()
    if args.part == "figure":
        rows = [r for f in args.inputs for r in json.loads(Path(f).read_text(encoding="utf-8"))]
        summary(rows)
        if args.figure:
            figure(rows, Path(args.figure), "table10-<benchmark>, placeholder tasks")
        return
    seeds = parse_seeds(args.seeds)
    benchmarks = tuple(b for b in args.benchmarks.split(",") if b)
    if not benchmarks or set(benchmarks) - set(BENCHMARKS):
        parser.error(f"--benchmarks: a comma list of {', '.join(BENCHMARKS)}")
    started = time.process_time()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(args.work) if args.work else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        rows = {"tables": tables, "loto": loto, "lobo": lobo}[args.part](seeds, work, benchmarks)
    print(f"simulated agents (Table 10 fits, placeholder tasks): not LLM results; seeds "
          f"{args.seeds}; CPU {time.process_time() - started:.0f} s")
    print_rows(rows)
    summary(rows)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    if args.figure:
        figure(rows, Path(args.figure), "table10-<benchmark>, placeholder tasks")


if __name__ == "__main__":
    main()
