"""Validate a simulator profile on published cells it was never fitted to (issue 29).

For every cell of the SAC paper's Table 5 (the (b, w) composition ablation, n = 7) and Table 6
(n = 9), and the MATH half of Table 1 (whose H-Majority and RA the per-round fit never sees),
this runs the cell's setting on the simulated agents with the given profile, at the paper's
question count, for each seed, pools the seeds with the project's two-level bootstrap
(:func:`protocol_runner.analysis.metrics.compute_metrics`), and counts the cells whose published
value lies inside our 95% interval widened by the paper's 2-point run-to-run spread. It also
checks the paper's qualitative findings per cell: CP-WBFT's BFTI negative, SAC's at or above
about zero (>= -2.5 points: the paper itself prints -2.2 for SAC on Table 6's ER graph).

The published values are read through
:func:`protocol_runner.analysis.paper_values.paper_tables` (the one shipped copy). The built-in
arithmetic tasks stand in for the paper's MATH problems. Simulated: not LLM results.

**Held-out protocol** (issue 42; pre-registered in docs/simulation.md, "A held-out test",
with the commit that froze the simulator's structure), ``--held-out``:

- ``rounds``: fit Table 2's MATH rows of rounds Init-3 (SAC Init, Rnd 1-3; CP-WBFT Init) and
  predict the rows of rounds 4-6 (SAC Rnd 4-6, CP-WBFT's Rnd 1-6 row, which the fit never saw).
- ``benchmarks``: refit each ``table10-<benchmark>`` profile on its Table 10 rows; predict each
  benchmark's Table 9 cells (FAA, BFTI, RA, H-Majority, W and S FAA) from the other four: the
  mean of their fitted parameters, the benchmark's own accuracies set from its Init rows only;
  beside the prediction of its own refit profile (in-sample).

Both fit with :data:`HELD_OUT_BUDGET` (one world seed, graph seed 1) and evaluate over
``--seeds`` at the paper's question counts; a cell is covered when
``|ours - paper| <= 1.96 * sqrt(se_ours^2 + sigma^2)`` (``sigma``: the paper's run-to-run SD,
:func:`protocol_runner.analysis.agreement.paper_noise`). Targets: held-out coverage >= 75%
and held-out MAE <= 1.5 x the in-sample MAE.

Usage::

    nice -n 5 python benchmarks/sim_validation.py [--profile table2-math|FILE.json] [--seeds 1-5]
        [--tables table5,table6,table1] [--json out.json] [--figure docs/img/sim_validation.png]
    nice -n 5 python benchmarks/sim_validation.py --held-out rounds|benchmarks --seeds 1-5 \
        --checkpoints DIR [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from protocol_runner.analysis.agreement import Z95, CellComparison, paper_noise
from protocol_runner.analysis.metrics import compute_metrics
from protocol_runner.analysis.paper_values import paper_tables
from protocol_runner.run.records import QueryRecord
from protocol_runner.run.runner import parse_seeds
from protocol_runner.sim.agents import SimConfig
from protocol_runner.sim.calibrate import (
    PRIOR_WIDTH,
    SPREAD,
    Calibration,
    FitResult,
    run_setting,
)
from protocol_runner.sim.profiles import resolve_config
from protocol_runner.sim.targets import (
    TOPOLOGY_SPECS,
    Setting,
    Target,
    paper_targets,
    stand_in_tasks,
)

METRICS = ("IAA", "FAA", "BFTI", "H_Majority")
SAC_FLOOR = -2.5  # points: "at or above about zero"
HELD_OUT_BUDGET = {"cpwbft": (16, 60), "sac": (8, 15)}
"""(Sobol points, Nelder-Mead evaluations) per block of every held-out fit: about half the
shipped fits' budget (benchmarks/fit_paper_profiles.py), fixed before any held-out run."""
NINE = ("arc_challenge", "hellaswag", "boolq", "openbookqa", "rte")
PREDICTED = ("FAA", "BFTI", "RA", "H_Majority", "W_FAA", "S_FAA")
"""Table 9's cells a leave-one-benchmark-out profile predicts (IAA, W and S IAA are set from
the benchmark's Init rows)."""
ACCURACIES = ("strong.accuracy", "weak.accuracy")


def _cells(table: str) -> list[tuple[str, Setting, str]]:
    """(cell label, setting, benchmark) for every composition x topology of a paper table."""
    found = paper_tables()[table]
    s = found.setting
    compositions = s.get("compositions") or [
        {"key": "", "adversarial": s["adversarial"], "weak": s["weak"]}]
    benchmark = "math30" if "math30" in found.benchmarks else "math"
    questions = found.benchmarks[benchmark].questions
    cells = []
    for comp in compositions:
        weak = f"{comp['weak']}W" if comp["weak"] else ""
        roster = f"{s['strong']}S{weak}{comp['adversarial']}A"
        for key, r in s["r"].items():
            label = "/".join(x for x in (comp["key"], key) if x)
            cells.append((label, Setting(
                label, TOPOLOGY_SPECS[key].format(r=r), int(s["n"]), roster=roster, F=int(s["F"]),
                rounds=int(s["T"]), tasks=stand_in_tasks("math", questions),
            ), benchmark))
    return cells


def _paper_row(table: str, label: str, method: str, benchmark: str) -> dict:
    comp, _, topo = label.rpartition("/")
    key = {"benchmark": benchmark, "method": method, "topology": topo}
    if comp:
        key["composition"] = comp
    return dict(paper_tables()[table].row(**key) or {})


def run_seeds(config: SimConfig, setting: Setting, seeds: tuple[int, ...], work: Path,
              label: str) -> list[QueryRecord]:
    """``setting``'s query records on the simulated agents, one run per seed, a random graph
    family drawn per seed (its graph seed is the seed); progress on stderr."""
    records = []
    for seed in seeds:
        graph = replace(setting, graph_seed=seed)  # a random family drawn per seed
        records += run_setting(config, graph, seed, work)
        print(f"sim_validation: {label} seed {seed}", file=sys.stderr, flush=True)
    return records


def inside(value: float, low: float, high: float) -> bool:
    """The coverage rule: ``value`` (points) inside [low, high] widened by the paper's spread."""
    return low - 100 * SPREAD <= value <= high + 100 * SPREAD


def validate(table: str, profile: str, seeds: tuple[int, ...], work: Path) -> list[dict]:
    """One row per (cell, method, metric): paper value, ours with its interval, hit or miss."""
    config = resolve_config(profile)
    rows = []
    for label, setting, benchmark in _cells(table):
        records = run_seeds(config, setting, seeds, work, f"{table} {label}")
        papers = {m: _paper_row(table, label, m, benchmark) for m in ("cpwbft", "sac")}
        rows += cell_rows(table, label, compute_metrics(records), papers)
    return rows


def cell_rows(table: str, label: str, metrics: dict, papers: dict[str, dict]) -> list[dict]:
    """One row per (method, metric of :data:`METRICS`) of one cell: the paper's value
    (``papers[method][metric]``, points), ours with its 95% interval, :func:`inside`; the
    method's last row carries the qualitative finding (module docstring)."""
    rows: list[dict] = []
    for method, paper in papers.items():
        for metric in METRICS:
            if metric not in paper:
                continue
            est = metrics[method].estimates[metric]
            low, high = 100 * est.low, 100 * est.high
            value = paper[metric]
            rows.append({
                "table": table, "cell": label, "method": method, "metric": metric,
                "paper": value, "ours": round(100 * est.value, 1),
                "low": round(low, 1), "high": round(high, 1),
                "hit": inside(value, low, high),
            })
        bfti = 100 * metrics[method].value("BFTI")
        rows[-1]["qualitative"] = bfti < 0 if method == "cpwbft" else bfti >= SAC_FLOOR
    return rows


def figure(rows: list[dict], path: Path, profile: str) -> None:
    """Paper vs simulated per row (cell, method, metric) with our intervals; one panel per
    table, the paper's value green when inside our interval widened by 2 points."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tables = list(dict.fromkeys(r["table"] for r in rows))
    widest = max(sum(r["table"] == t for r in rows) for t in tables)
    width = max(13.0, 0.09 * widest)  # room for every cell's label
    fig, axes = plt.subplots(len(tables), 1, figsize=(width, 3.6 * len(tables)), squeeze=False)
    for ax, table in zip(axes[:, 0], tables, strict=True):
        part = [r for r in rows if r["table"] == table]
        xs = range(len(part))
        ours = [r["ours"] for r in part]
        err = [[r["ours"] - r["low"] for r in part], [r["high"] - r["ours"] for r in part]]
        ax.errorbar(xs, ours, yerr=err, fmt="o", ms=3, color="tab:blue", label="simulated, 95% CI")
        colors = ["tab:green" if r["hit"] else "tab:red" for r in part]
        ax.scatter(xs, [r["paper"] for r in part], marker="x", c=colors, zorder=3,
                   label="paper (green: inside CI ± 2)")
        ax.set_xticks(list(xs))
        ax.set_xticklabels([f"{r['method']} {r['cell']} {r['metric']}" for r in part],
                           rotation=90, fontsize=6)
        hits = sum(r["hit"] for r in part)
        ax.set_title(f"{table}: paper inside our interval ± 2 in {hits}/{len(part)} cells",
                     fontsize=9)
        ax.axhline(0, color="grey", lw=0.5)
        ax.set_ylabel("percent")
        ax.legend(fontsize=7, loc="lower left")
    fig.suptitle(f"simulated agents (profile {profile}): not LLM results", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def print_rows(rows: list[dict]) -> None:
    """One line per row: table, cell, method, metric, paper, ours [95% CI], hit."""
    print(f"{'table':7s} {'cell':14s} {'method':7s} {'metric':10s} {'paper':>6s} "
          f"{'ours [95% CI]':>22s}  hit")
    for r in rows:
        ci = f"{r['ours']:6.1f} [{r['low']:6.1f}, {r['high']:6.1f}]"
        print(f"{r['table']:7s} {r['cell']:14s} {r['method']:7s} {r['metric']:10s} "
              f"{r['paper']:6.1f} {ci:>22s}  {'yes' if r['hit'] else 'NO'}")


def covered(ours: float, low: float, high: float, paper: float) -> bool:
    """The held-out coverage rule (points): ``|ours - paper| <= 1.96 sqrt(se^2 + sigma^2)``."""
    return CellComparison(ours, low, high, paper).z(paper_noise()[0]) <= Z95


def _summary(cells: list[dict]) -> dict:
    """MAE (points) and coverage of cells with ``ours``, ``low``, ``high``, ``paper``."""
    if not cells:
        return {"cells": 0, "mae": None, "coverage": None}
    mae = sum(abs(c["ours"] - c["paper"]) for c in cells) / len(cells)
    hits = sum(covered(c["ours"], c["low"], c["high"], c["paper"]) for c in cells)
    return {"cells": len(cells), "mae": round(mae, 2), "coverage": round(hits / len(cells), 3)}


def _fit(settings, targets, kind: str, checkpoint: Path) -> tuple[Calibration, FitResult]:
    """A resumable fit with :data:`HELD_OUT_BUDGET` and the paper profiles' prior."""
    cal = Calibration(settings, targets, kind=kind, checkpoint=checkpoint, seeds=(1,),
                      prior_width=PRIOR_WIDTH,
                      log=lambda line: print(f"{checkpoint.name}: {line}", file=sys.stderr,
                                             flush=True))
    return cal, cal.fit(HELD_OUT_BUDGET)


def _round_cells(metrics: dict, target: Target) -> dict:
    """One per-round target against the pooled metrics of its setting (points)."""
    found = metrics[target.protocol]
    est = (found.after_first[target.group] if len(target.rounds) > 1
           else found.rounds[target.group][target.rounds[0]])
    return {"cell": target.key, "paper": round(100 * target.value, 1),
            "ours": 100 * est.value, "low": 100 * est.low, "high": 100 * est.high}


def held_out_rounds(seeds: tuple[int, ...], checkpoints: Path, work: Path) -> dict:
    """Protocol (a): fit Table 2's MATH rounds Init-3, predict rounds 4-6 (module docstring)."""
    settings, targets, kind = paper_targets("table2", "math")
    train = [t for t in targets if max(t.rounds) <= 3]
    test = [t for t in targets if max(t.rounds) > 3]
    cal, fit = _fit(settings, train, kind, checkpoints / "held-out-rounds.ckpt.json")
    config = cal.config(fit.values)
    cells: dict[str, list[dict]] = {"in_sample": [], "held_out": []}
    for setting in settings:
        metrics = compute_metrics(run_seeds(config, setting, seeds, work, f"rounds {setting.name}"))
        for part, chosen in (("in_sample", train), ("held_out", test)):
            cells[part] += [_round_cells(metrics, t) for t in chosen if t.setting == setting.name]
    return {"protocol": "rounds", "fit": fit.to_json(), "cells": cells,
            **{part: _summary(c) for part, c in cells.items()}}


def _init_accuracies(benchmark: str) -> dict[str, float]:
    """A benchmark's strong and weak accuracies from its Table 10 Init rows only (fractions)."""
    rows = [r for r in paper_tables()["table10"].rows
            if r["benchmark"] == benchmark and r["round"] == "Init"]
    return {f"{role}.accuracy": sum(r[col] for r in rows) / (100 * len(rows))
            for role, col in (("strong", "S"), ("weak", "W"))}


def _table9_cells(metrics: dict, benchmark: str, topology: str) -> list[dict]:
    cells = []
    for method in ("cpwbft", "sac"):
        paper = paper_tables()["table9"].row(benchmark=benchmark, method=method,
                                            topology=topology)
        for metric in PREDICTED:
            est = metrics[method].estimates[f"{metric}_first" if metric in ("RA", "H_Majority")
                                           else metric]
            cells.append({"cell": f"{benchmark}/{method}/{topology}/{metric}",
                          "paper": paper[metric], "ours": 100 * est.value,
                          "low": 100 * est.low, "high": 100 * est.high})
    return cells


def held_out_benchmarks(seeds: tuple[int, ...], checkpoints: Path, work: Path) -> dict:
    """Protocol (b): refit each table10 profile; predict each benchmark's Table 9 cells from
    the other four (module docstring)."""
    fits = {}
    for benchmark in NINE:
        settings, targets, kind = paper_targets("table10", benchmark)
        fits[benchmark] = (settings, *_fit(settings, targets, kind,
                                           checkpoints / f"held-out-{benchmark}.ckpt.json"))
    cells: dict[str, list[dict]] = {"in_sample": [], "held_out": []}
    for benchmark, (settings, cal, fit) in fits.items():
        others = [fits[b][2].values for b in NINE if b != benchmark]
        loo = {n: sum(v[n] for v in others) / len(others) for n in fit.values}
        loo.update(_init_accuracies(benchmark))
        for part, values in (("in_sample", fit.values), ("held_out", loo)):
            config = cal.config(values)
            for setting in settings:
                label = f"{part} {benchmark} {setting.name}"
                metrics = compute_metrics(run_seeds(config, setting, seeds, work, label))
                cells[part] += _table9_cells(metrics, benchmark, setting.name)
    return {"protocol": "benchmarks",
            "fits": {b: fit.to_json() for b, (_, _, fit) in fits.items()},
            "cells": cells, **{part: _summary(c) for part, c in cells.items()}}


def print_held_out(result: dict) -> None:
    """The held-out protocol's figures against its targets (module docstring)."""
    inside, held = result["in_sample"], result["held_out"]
    ratio = held["mae"] / inside["mae"] if inside["mae"] else float("inf")
    print(f"held-out protocol {result['protocol']}: in-sample {inside['cells']} cells, MAE "
          f"{inside['mae']} points, coverage {100 * inside['coverage']:.0f}%; held-out "
          f"{held['cells']} cells, MAE {held['mae']} points, coverage "
          f"{100 * held['coverage']:.0f}%; MAE ratio {ratio:.2f}")
    print(f"targets: held-out coverage >= 75%: {'met' if held['coverage'] >= 0.75 else 'NOT met'}"
          f"; held-out MAE <= 1.5 x in-sample: {'met' if ratio <= 1.5 else 'NOT met'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="table2-math",
                        help="a profile name or a JSON file of parameters (as --sim-config)")
    parser.add_argument("--seeds", default="1-5")
    parser.add_argument("--tables", default="table5,table6,table1")
    parser.add_argument("--json", dest="json_out", default=None)
    parser.add_argument("--figure", default=None)
    parser.add_argument("--held-out", choices=("rounds", "benchmarks"), default=None)
    parser.add_argument("--checkpoints", default="held-out-checkpoints")
    args = parser.parse_args()
    seeds = parse_seeds(args.seeds)
    if args.held_out:
        checkpoints = Path(args.checkpoints)
        checkpoints.mkdir(parents=True, exist_ok=True)
        run = held_out_rounds if args.held_out == "rounds" else held_out_benchmarks
        with tempfile.TemporaryDirectory() as work:
            result = run(seeds, checkpoints, Path(work))
        print_held_out(result)
        if args.json_out:
            Path(args.json_out).write_text(json.dumps(result, indent=1) + "\n",
                                           encoding="utf-8")
        return
    started, rows = time.process_time(), []
    with tempfile.TemporaryDirectory() as work:
        for table in args.tables.split(","):
            rows += validate(table, args.profile, seeds, Path(work))
    print(f"simulated agents (profile {args.profile}): not LLM results; seeds {args.seeds}; "
          f"CPU {time.process_time() - started:.0f} s")
    print_rows(rows)
    for table in dict.fromkeys(r["table"] for r in rows):
        part = [r for r in rows if r["table"] == table]
        qual = [r["qualitative"] for r in part if "qualitative" in r]
        print(f"{table}: paper inside our 95% interval widened by 2 points in "
              f"{sum(r['hit'] for r in part)} of {len(part)} cells; qualitative finding "
              f"(CP-WBFT BFTI < 0, SAC BFTI >= {SAC_FLOOR}) holds in {sum(qual)} of {len(qual)}")
    held = [r for r in rows if r["table"] in ("table5", "table6")]
    if held:
        print(f"Tables 5 and 6 together: {sum(r['hit'] for r in held)} of {len(held)} cells "
              f"({100 * sum(r['hit'] for r in held) / len(held):.0f}%; target >= 75%)")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    if args.figure:
        figure(rows, Path(args.figure), args.profile)


if __name__ == "__main__":
    main()
