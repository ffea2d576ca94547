"""``robustgraph report DIR``: recompute a run's (or a sweep's) summary, write it, print it.

For a run's results directory: writes ``summary.json``, ``summary.md``, ``table1.{md,tex,csv}``
and (unless ``--no-plots``) the figures as PNG, PDF and SVG
(:func:`protocol_runner.analysis.report.write_summary`), then prints Table 1 and the cost line
(:func:`protocol_runner.analysis.cost.cost_line`, the same line ``run`` prints), or with
``--json`` the summary on stdout. For a sweep directory (its ``summary.json`` is a sweep
summary): rewrites the sweep's Table 1 and figure
(:func:`protocol_runner.analysis.sweep_plots.write_sweep_report`) and prints the table. For a
directory of runs (one per subdirectory): summarises each and writes Table 1 and the
comparison figure over all of them
(:func:`protocol_runner.analysis.collection.write_collection`); for a ``reproduce`` output (one
such directory per benchmark column), each column in turn, with the same bootstrap and the
same topology names as ``reproduce`` prints.
Warnings (a truncated last line of a killed run, a figure that was skipped) go to stderr, one
line each. Exit 0 on success, 2 for a missing, empty or malformed results directory (one line
on stderr).
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from robustgraph.cli.common import emit, json_option, warn

# The analysis modules (numpy, rich, matplotlib) are imported where used: not for --help.

__all__ = ["report_command"]


SWEEP_FORMAT = "robustgraph-sweep-summary"


def _sweep_summary(directory: Path) -> dict[str, Any] | None:
    """The sweep summary of ``directory``, or None when it is not a sweep directory."""
    from protocol_runner.analysis.report import RESULTS_FILE, SUMMARY_JSON

    path = directory / SUMMARY_JSON
    if (directory / RESULTS_FILE).exists() or not path.is_file():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None  # not a sweep: write_summary names what is missing
    return doc if isinstance(doc, dict) and doc.get("format") == SWEEP_FORMAT else None


def _report_sweep(directory: Path, summary: dict[str, Any], no_plots: bool, resamples: int,
                  as_json: bool) -> None:
    from protocol_runner.analysis.sweep_plots import write_sweep_report

    files = write_sweep_report(summary, directory, resamples=resamples, plots=not no_plots)
    names = [str(path.relative_to(directory)) for path in files]

    def render() -> None:
        table = directory / "table1.md"
        if table.is_file():
            click.echo(table.read_text(encoding="utf-8"), nl=False)
        click.echo(f"wrote {', '.join(names) or 'nothing (no finished cell)'} in {directory}")

    emit({"sweep": str(directory), "files": names}, as_json, render)


def _collection(directory: Path, no_plots: bool, resamples: int
                ) -> tuple[dict[str, Any], Callable[[], None]]:
    """Summarise one collection: its JSON document and the function that prints it."""
    from protocol_runner.analysis.collection import run_dirs, write_collection
    from protocol_runner.analysis.cost import cost_line

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        summaries, files = write_collection(directory, plots=not no_plots, resamples=resamples)
    for note in dict.fromkeys([*(n for s in summaries for n in s.warnings),
                               *(str(w.message) for w in caught)]):
        warn(note)
    names = [path.name for path in files]

    def render() -> None:
        click.echo((directory / "table1.md").read_text(encoding="utf-8"), nl=False)
        for child, summary in zip(run_dirs(directory), summaries, strict=True):
            click.echo(f"{child.name}: {cost_line(summary.cost.to_json())}")
        click.echo(f"wrote {', '.join(names)} in {directory} (and each run's files in its own)")

    return {"runs": {child.name: s.to_json() for child, s in
                     zip(run_dirs(directory), summaries, strict=True)}, "files": names}, render


def _report_collections(directories: list[Path], no_plots: bool, resamples: int,
                        as_json: bool) -> None:
    """A ``reproduce`` output: one collection per benchmark column, each reported in turn."""
    done = {d.name: _collection(d, no_plots, resamples) for d in directories}

    def render() -> None:
        for name, (_, show) in done.items():
            click.echo(f"## {name}")
            show()

    emit({"collections": {name: data for name, (data, _) in done.items()}}, as_json, render)


@click.command("report")
@click.argument("results_dir", metavar="DIR")
@click.option("--no-plots", is_flag=True, help="Do not write the figures (PNG, PDF, SVG).")
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
@click.option(
    "--style",
    type=click.Choice(["screen", "paper"]),
    default="screen",
    show_default=True,
    help="Figures for the screen (title block and banner in the figure) or for a paper "
    "(column or page width, print-size fonts; the title, provenance and 'simulated' go to "
    "STEM.caption.txt and the files' metadata).",
)
@click.option(
    "--columns",
    type=click.IntRange(1, 2),
    default=2,
    show_default=True,
    help="With --style paper: the figures span 1 column (3.5 in) or 2 (7 in) of a "
    "two-column page.",
)
@json_option
def report_command(
    results_dir: str, no_plots: bool, resamples: int, seed: int | None, style: str,
    columns: int, as_json: bool,
) -> None:
    """Summarise DIR (a 'run', 'sweep' or 'reproduce' output): Table 1 with 95% CIs, figures.

    \b
    Examples:
      robustgraph report results/
      robustgraph report results/ --json --no-plots
      robustgraph report sweep/
      robustgraph report results/ --style paper --columns 1
    """
    from rich.console import Console

    from protocol_runner.analysis.collection import collection_dirs, run_dirs
    from protocol_runner.analysis.cost import cost_line
    from protocol_runner.analysis.figures import layout
    from protocol_runner.analysis.report import rich_table, write_summary

    click.get_current_context().with_resource(layout(style, columns))  # until the command ends
    sweep = _sweep_summary(Path(results_dir))
    if sweep is not None:
        _report_sweep(Path(results_dir), sweep, no_plots, resamples, as_json)
        return
    if run_dirs(results_dir):
        data, render = _collection(Path(results_dir), no_plots, resamples)
        emit(data, as_json, render)
        return
    if collection_dirs(results_dir):
        _report_collections(collection_dirs(results_dir), no_plots, resamples, as_json)
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        summary = write_summary(results_dir, plots=not no_plots, resamples=resamples, seed=seed)
    notes = list(summary.warnings)
    notes += [str(w.message) for w in caught if str(w.message) not in notes]
    for note in notes:
        warn(note)

    def render() -> None:
        Console(highlight=False).print(rich_table(summary))
        click.echo(cost_line(summary.cost.to_json()))  # as 'robustgraph run' prints it
        click.echo(f"wrote {', '.join(summary.files)} in {results_dir}")

    emit(summary.to_json(), as_json, render)
