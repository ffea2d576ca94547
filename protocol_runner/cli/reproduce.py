"""``robustgraph reproduce TABLE``: re-run a table of the SAC paper, ours beside the paper's."""

from __future__ import annotations

import json
from pathlib import Path

import click

from protocol_runner.analysis.reproduce_specs import TABLES
from protocol_runner.cli.choices import BACKENDS
from robustgraph.cli.common import emit, json_option

__all__ = ["reproduce_command"]

# The runs (the runner: aiohttp, numpy) and their tables are imported when the command runs;
# the tables' settings come from a module of their own, so that --help stays light (issue 33).


def _table_list() -> str:
    lines = []
    for name, spec in TABLES.items():
        reads = "" if spec.runs == name else f"; the runs of {spec.runs}"
        view = ", per round" if spec.view == "rounds" else ""
        lines.append(f"  {name}: {spec.cite}{view}{reads}")
        lines.append(f"    {spec.setting_text()}")
        if spec.runs != name and spec.runs in TABLES:
            lines.append(f"    columns ({spec.columns[0].roster}): as {spec.runs}")
            continue
        lines += [f"    {c.key}={c.data_text()}" for c in spec.columns]
    return "\n".join(lines)


_HELP = f"""Run one of the SAC paper's tables in its own setting; print ours beside the paper's.

\b
Every cell (column x topology x seed) is a resumable run in OUTPUT/<column>/<topology>/seed-S/;
tables of the same runs (table1/table2; table9/table3/table4/table10) share them. Each cell
prints ours (the paper's), percent; the closing lines say how far ours are from the paper's.
The paper's datasets are not shipped (but the 30 Commonsense170k instances of App. C): each
column runs by default on a built-in stand-in of its benchmark's answer kind (arith: MATH;
placeholder-*: synthetic sets shaped like each open-weight benchmark, 50 questions as the
paper) with the simulator profile fitted to that benchmark (docs/simulation.md). Give your
data with --tasks COLUMN=FILE (read in the benchmark's usual local format, the paper's
question count) or COLUMN=SPEC (docs/tasks.md). Per table: the paper's setting (q.:
questions), then per column COLUMN=our default data (its kind, size), its profile:
\b
{_table_list()}
"""


@click.command(
    "reproduce",
    help=_HELP,
    epilog="""\b
Examples:
  robustgraph reproduce table1 -o results/
  robustgraph reproduce table6 --tasks math30=math:data/math_level4.jsonl:30 -o t6/
  robustgraph reproduce table9 --tasks arc_challenge=arc:data/arc.jsonl:50 \\
      --tasks boolq=boolq:data/boolq.jsonl:50 --backend openai \\
      --base-url http://127.0.0.1:8000/v1 --model qwen3-4b \\
      --weak-model qwen2.5-1.5b-instruct -o t9/
\b
Exit codes: 0 done; 2 usage or input error (also: an ER cell with no r-robust draw,
found before any run starts).
""",
)
@click.argument("table", type=click.Choice(list(TABLES)))
@click.option("--tasks", "task_specs", multiple=True, metavar="[COLUMN=]SPEC",
              help="A column's task set (repeatable); SPEC alone: every column.")
@click.option("--seeds", default="1-2", show_default=True,
              help="Seeds: 1-5, 1,3,5 or one number; CIs resample seeds, then queries.")
@click.option("--backend", type=click.Choice(BACKENDS), default="simulated", show_default=True)
@click.option("--base-url", default=None, help="openai: endpoint ending in /v1.")
@click.option("--model", default=None, help="Strong agents' model (openai: required).")
@click.option("--weak-model", default=None, help="Weak agents' model (default: --model).")
@click.option("--api-key-env", default="OPENAI_API_KEY", show_default=True,
              help="openai: environment variable holding the API key.")
@click.option("--allow-cross-origin-redirects", "cross_origin", is_flag=True,
              help="openai: follow redirects to other hosts than --base-url's (default: "
              "refused; prompts would reach a host not named, docs/endpoints.md).")
@click.option("--sim-config", default=None,
              help="simulated: a profile name or a JSON file of simulator parameters for every "
                   "column (docs/simulation.md; default: each column's own profile).")
@click.option("--independent-agents", is_flag=True,
              help="simulated: agents on one model draw their errors independently.")
@click.option("--ood-tasks", default=None,
              help="The fixed attack's out-of-distribution pool (App. B.4; default: auto).")
@click.option("--ties", type=click.Choice(["first", "wrong"]), default="first",
              show_default=True,
              help="RA and H-Majority: a tie for the top broken by first occurrence in agent "
                   "order (the authors' code), or counted as wrong.")
@click.option("--ci", is_flag=True, help="Print each row's 95% intervals on a second line.")
@click.option("--resamples", type=click.IntRange(min=1), default=2000, show_default=True,
              help="Bootstrap resamples (as robustgraph report).")
@click.option("-o", "--output", required=True, type=click.Path(file_okay=False),
              help="Directory for the runs (created; resumed).")
@json_option
def reproduce_command(
    table: str, task_specs: tuple[str, ...], seeds: str, backend: str, base_url: str | None,
    model: str | None, weak_model: str | None, api_key_env: str, cross_origin: bool,
    sim_config: str | None, independent_agents: bool, ood_tasks: str | None, ties: str, ci: bool,
    resamples: int, output: str, as_json: bool,
) -> None:
    from protocol_runner.analysis.reproduce import reproduce
    from protocol_runner.analysis.reproduce_export import table_csv, table_latex
    from protocol_runner.analysis.reproduce_view import table_json, table_text
    from protocol_runner.run.runner import BackendSpec, parse_seeds
    from robustgraph.atomic import write_atomic
    from robustgraph.cli.batch import _given  # an explicit --api-key-env must name a set key

    spec = BackendSpec(  # checked here, before any run: as 'robustgraph run' checks it
        backend, base_url=base_url, api_key_env=api_key_env or None, strong_model=model,
        weak_model=weak_model, sim_config=sim_config, independent_agents=independent_agents,
        cross_origin_redirects=cross_origin, require_key=_given("api_key_env"),
    )

    def log(line: str) -> None:
        click.echo(f"robustgraph: reproduce: {line}", err=True)

    result = reproduce(
        TABLES[table], Path(output), seeds=parse_seeds(seeds), tasks=task_specs, backend=spec,
        ood_tasks=ood_tasks, resamples=resamples, ties=ties, log=log,
    )
    files = [str(Path(output) / f"{table}.{ext}") for ext in ("txt", "json", "csv", "tex")]
    text = table_text(result, ci=ci, files=files)
    data = table_json(result)
    contents = (table_text(result, ci=True, files=files),
                json.dumps(data, indent=2, ensure_ascii=False) + "\n",
                table_csv(result), table_latex(result))
    for path, content in zip(files, contents, strict=True):  # whole or not at all; ENOSPC names it
        write_atomic(path, content.encode("utf-8"))
    emit({**data, "files": files}, as_json, lambda: click.echo(text, nl=False))
