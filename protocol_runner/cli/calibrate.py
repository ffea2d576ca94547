"""``robustgraph calibrate RUN_DIR... -o profile.json``: fit the simulated agents to your runs."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import click

from robustgraph.cli.common import emit, json_option

__all__ = ["calibrate_command"]


@click.command(
    "calibrate",
    epilog="""\b
Examples:
  robustgraph run --topology merg --n 7 --roster 4S2W1A --F 3 --protocols sac,cpwbft \\
      --tasks math:pilot.jsonl:20 --backend openai --base-url URL --model M --weak-model W \\
      -o pilot/
  robustgraph calibrate pilot/ -o my-models.json
  robustgraph run ... --sim-config my-models.json -o offline/
\b
Exit codes: 0 fitted; 2 usage or input error. The fit resumes from its checkpoint
(--checkpoint, default OUTPUT.checkpoint.json): rerun the same command after an interruption.
""",
)
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(file_okay=False))
@click.option("--seeds", default="1", show_default=True,
              help="World seeds of every simulated evaluation (common random numbers).")
@click.option("--max-evaluations", type=click.IntRange(min=1), default=120, show_default=True,
              help="Nelder-Mead's budget per parameter block (CP-WBFT's, then SAC's).")
@click.option("--fit", "fit_names", default=None, metavar="NAMES",
              help="Comma-separated parameters to fit (default: all; docs/simulation.md lists "
              "them), the others kept at the hand-set values.")
@click.option("--presearch", type=click.IntRange(min=0), default=32, show_default=True,
              help="Sobol design points per block before Nelder-Mead.")
@click.option("--intervals/--no-intervals", default=False, show_default=True,
              help="Also scan each parameter for its conditional 95% interval (5 evaluations "
              "each).")
@click.option("--checkpoint", type=click.Path(dir_okay=False), default=None,
              help="JSON file of the evaluations so far (default: OUTPUT.checkpoint.json).")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="The fitted profile: a --sim-config file.")
@json_option
def calibrate_command(
    run_dirs: tuple[str, ...], seeds: str, max_evaluations: int, fit_names: str | None,
    presearch: int, intervals: bool,
    checkpoint: str | None, output: str, as_json: bool,
) -> None:
    """Fit the simulated agents' parameters to the per-round accuracy of your own runs.

    \b
    Each RUN_DIR is a `robustgraph run` output (a real model's, typically a small pilot) with
    SAC and/or CP-WBFT queries; its results.jsonl give the weak and strong groups' accuracy at
    every round. The fit simulates the same graphs, rosters, F, rounds and tasks and moves the
    simulator's parameters (accuracies, judging, refinement, confidence, shared errors) to
    match them by weighted least squares (docs/simulation.md, "Calibrating to your models").
    The result is a --sim-config file for `run`, `sweep` and `serve-sim`.
    """
    from protocol_runner.run.runner import parse_seeds
    from protocol_runner.sim.calibrate import Calibration, scan_intervals
    from protocol_runner.sim.params import BLOCKS, select_blocks
    from protocol_runner.sim.targets import targets_from_runs

    def log(line: str) -> None:
        click.echo(f"robustgraph: {line}", err=True)

    out = Path(output)
    with tempfile.TemporaryDirectory(prefix="calibrate-") as work:
        settings, targets, kind = targets_from_runs(run_dirs, Path(work))
        calibration = Calibration(
            settings, targets, kind=kind, seeds=parse_seeds(seeds),
            checkpoint=checkpoint or out.with_name(out.name + ".checkpoint.json"),
            max_evaluations=max_evaluations, presearch=presearch, workdir=Path(work) / "sims",
            blocks=select_blocks(fit_names.split(",")) if fit_names else None, log=log,
        )
        fit = calibration.fit()
        if intervals:
            names = list(dict.fromkeys(n for block in BLOCKS.values() for n in block))
            fit.intervals = scan_intervals(calibration, fit, names)
        description = f"profile calibrated on {', '.join(Path(d).name for d in run_dirs)}"
        profile = {**calibration.config(fit.values).to_mapping(), "description": description}
    out.write_text(json.dumps(profile, indent=2) + "\n", encoding="utf-8")
    report = {"profile": str(out), "description": description, **fit.to_json()}

    def render() -> None:
        click.echo(f"fitted {fit.parameters} parameters to {fit.targets} per-round targets "
                   f"({kind} tasks): chi2 {fit.chi2:.1f} on {fit.dof} degrees of freedom, "
                   f"{fit.evaluations} evaluations")
        for name, value in fit.values.items():
            span = fit.intervals.get(name)
            extra = f"  [{span[0]:.3g}, {span[1]:.3g}]" if span else ""
            click.echo(f"  {name:26s} {value:8.3f}{extra}")
        click.echo(f"profile written to {out}; use it with --sim-config {out}")

    emit(report, as_json, render)
