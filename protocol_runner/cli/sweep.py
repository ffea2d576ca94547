"""``robustgraph sweep``: run a grid of runs on a local process pool or a Ray cluster."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from protocol_runner.tasks import load_tasks
from robustgraph.cli.choices import EXECUTORS
from robustgraph.cli.common import cap_at_cores, emit, fail, json_option
from robustgraph.errors import ParameterError, RobustgraphError

__all__ = ["sweep_command"]

# The sweep's spec reader and executor (the runner: aiohttp, numpy, yaml) and the pools (rich)
# are imported when the command runs, so that --help stays light (issue 33).


@click.command(
    "sweep",
    epilog="""\b
Examples:
  robustgraph sweep examples/sweep.yaml -o sweep/
  robustgraph sweep examples/sweep.yaml --executor ray --address 10.0.0.5:6379 -o /shared/sweep/
  robustgraph sweep examples/sweep.yaml --dry-run -o sweep/
\b
Exit codes: 0 every cell done; 1 some cell failed (each is reported, the others ran;
its error is in DIR/cells/<id>/error.txt); 2 usage or spec error.
Running the same spec into the same -o again skips finished cells and resumes the rest.
The spec format and cluster setup: docs/scale-out.md.
""",
)
@click.argument("spec_path", metavar="SPEC.yaml", type=click.Path(dir_okay=False))
@click.option(
    "--executor",
    type=click.Choice(EXECUTORS),
    default="local",
    show_default=True,
    help="A local process pool, or Ray (pip install 'robustgraph[distributed]').",
)
@click.option(
    "--address",
    default=None,
    help="With --executor ray: the cluster (host:port, auto, ray://...); default RAY_ADDRESS, "
    "else a local Ray instance.",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    callback=cap_at_cores,
    help="With --executor local: processes (default: one per CPU; at most the CPU cores).",
)
@click.option("--dry-run", is_flag=True, help="Check the spec and its tasks, list the cells.")
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(file_okay=False),
    help="Sweep directory (created; finished cells in it are skipped).",
)
@json_option
def sweep_command(
    spec_path: str,
    executor: str,
    address: str | None,
    workers: int | None,
    dry_run: bool,
    output: str,
    as_json: bool,
) -> None:
    """Run every cell of the grid in SPEC.yaml: one run per cell, merged summary and plots.

    \b
    The spec lists values per axis (topology families, n, rosters, F, attacks, placement,
    task sets, rounds, seeds, backends), the protocols every cell runs, and shared options;
    each combination is one run of 'robustgraph run' into DIR/cells/<cell id>/. The merged
    table goes to DIR/summary.md and summary.json, Table 1 (seeds pooled) to DIR/table1.*, the
    FAA/BFTI figure to DIR/plots/.
    Progress over the whole grid is drawn on stderr.
    """
    from protocol_runner.sweep.execute import CELLS_DIR, SUMMARY_MD, backend_spec, run_sweep
    from protocol_runner.sweep.spec import load_spec
    from robustgraph.executors import make_executor

    if not output:
        raise ParameterError("-o is empty; name the sweep directory")
    spec = load_spec(spec_path)
    cells = spec.cells()
    for cell in cells:  # each backend's checks (an unset api_key_env) before any cell runs
        backend_spec(cell.params["backend"])
    if dry_run:
        _check_task_sets(spec.axes["tasks"])
        data = {"cells": [{"id": c.id, "params": dict(c.params)} for c in cells]}

        def render_cells() -> None:
            for cell in cells:
                click.echo(f"{CELLS_DIR}/{cell.id}")
            click.echo(f"{len(cells)} cells; varying: {', '.join(spec.varying()) or 'none'}")

        emit(data, as_json, render_cells)
        return
    with make_executor(executor, address=address, workers=workers) as runner:
        result = run_sweep(
            spec,
            output,
            executor=runner,
            log=lambda line: click.echo(f"robustgraph: sweep: {line}", err=True),
        )
    data = {
        **result.summary,
        "skipped": list(result.skipped),
        "ran": list(result.ran),
        "failed": list(result.failed),
    }

    def render() -> None:
        click.echo((result.directory / SUMMARY_MD).read_text(encoding="utf-8"), nl=False)
        click.echo(
            f"sweep: {len(result.ran)} cells run, {len(result.skipped)} finished earlier, "
            f"{len(result.failed)} failed; results in {Path(output)}"
        )

    emit(data, as_json, render)
    sys.exit(result.exit_code)


def _check_task_sets(specs: tuple[str, ...]) -> None:
    """Load every task set of the grid here, so a dry run catches what would fail each cell
    that uses it (paths are read relative to the working directory, as the cells read them)."""
    for i, text in enumerate(specs):
        try:
            load_tasks(text)
        except RobustgraphError as exc:
            fail(f"grid.tasks[{i}] {text!r}: {exc}")
