"""``robustgraph report RESULTS_DIR``: recompute a run's summary, write it, print the table.

Writes ``summary.json``, ``summary.md`` and (unless ``--no-plots``) the PNG plots into the
results directory (:func:`protocol_runner.analysis.report.write_summary`), then prints the paper's
table
(or, with ``--json``, the summary as JSON on stdout). Warnings (a truncated last line of a killed
run, a topology plot that was skipped) go to stderr, one line each. Exit 0 on success, 2 for a
missing, empty or malformed results directory (one line on stderr).
"""

from __future__ import annotations

import warnings

import click
from rich.console import Console

from protocol_runner.analysis.report import rich_table, write_summary
from robustgraph.cli.common import emit, json_option, warn

__all__ = ["report_command"]


@click.command("report")
@click.argument("results_dir", metavar="RESULTS_DIR")
@click.option("--no-plots", is_flag=True, help="Do not write the PNG plots.")
@click.option(
    "--resamples",
    type=click.IntRange(min=1),
    default=2000,
    show_default=True,
    help="Bootstrap resamples for the confidence intervals.",
)
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=None,
    help="Bootstrap seed (default: the run's own seed).",
)
@json_option
def report_command(
    results_dir: str, no_plots: bool, resamples: int, seed: int | None, as_json: bool
) -> None:
    """Summarise RESULTS_DIR (a 'robustgraph run' output): metrics with 95% intervals, plots.

    \b
    Examples:
      robustgraph report results/
      robustgraph report results/ --json --no-plots
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        summary = write_summary(results_dir, plots=not no_plots, resamples=resamples, seed=seed)
    notes = list(summary.warnings)
    notes += [str(w.message) for w in caught if str(w.message) not in notes]
    for note in notes:
        warn(note)

    def render() -> None:
        Console(highlight=False).print(rich_table(summary))
        cost = summary.cost
        click.echo(
            f"cost: {cost.llm_calls} LLM calls ({cost.cache_hits} cache hits, "
            f"{cost.cache_misses} misses), {cost.total_tokens} tokens, "
            f"{cost.query_wall_s:.1f} s summed query wall time"
        )
        click.echo(f"wrote {', '.join(summary.files)} in {results_dir}")

    emit(summary.to_json(), as_json, render)
