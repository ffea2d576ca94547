"""``robustgraph reproduce TABLE``: re-run a table of the SAC paper, ours beside the paper's."""

from __future__ import annotations

from pathlib import Path

import click

from protocol_runner.analysis.reproduce import (
    TABLES,
    load_paper_values,
    reproduce,
    table_json,
    table_text,
)
from protocol_runner.run.runner import BACKENDS, BackendSpec, parse_seeds
from robustgraph.cli.common import emit, json_option

__all__ = ["reproduce_command"]


@click.command(
    "reproduce",
    epilog="""\b
Examples:
  robustgraph reproduce table1 -o repro/
  robustgraph reproduce table1 --tasks math:data/math500.jsonl:100 --seeds 1-5 \\
      --backend openai --base-url http://127.0.0.1:8000/v1 --model qwen3-4b \\
      --weak-model qwen2.5-1.5b-instruct -o repro-llm/
\b
Exit codes: 0 done; 2 usage or input error. Running the same command into the same -o
resumes (every cell is a resumable run under OUTPUT/<topology>/seed-<S>/).
""",
)
@click.argument("table", type=click.Choice(sorted(TABLES)))
@click.option("--tasks", "task_spec", default="arith:20", show_default=True,
              help="Task set (arith:N, or a dataset file: see docs/tasks.md).")
@click.option("--seeds", default="1-3", show_default=True,
              help="Seeds: 1-5, 1,3,5 or one number; CIs resample seeds, then queries.")
@click.option("--backend", type=click.Choice(BACKENDS), default="simulated", show_default=True)
@click.option("--base-url", default=None, help="openai: endpoint ending in /v1.")
@click.option("--model", default=None, help="Strong agents' model (openai: required).")
@click.option("--weak-model", default=None, help="Weak agents' model (default: --model).")
@click.option("--api-key-env", default="OPENAI_API_KEY", show_default=True,
              help="openai: environment variable holding the API key.")
@click.option("--independent-agents", is_flag=True,
              help="simulated: agents on one model draw their errors independently.")
@click.option("--paper-values", type=click.Path(dir_okay=False), default=None,
              help="JSON of the paper's cells to print beside ours (default: n/a).")
@click.option("--resamples", type=click.IntRange(min=1), default=2000, show_default=True,
              help="Bootstrap resamples.")
@click.option("-o", "--output", required=True, type=click.Path(file_okay=False),
              help="Directory for the runs (created; resumed).")
@json_option
def reproduce_command(
    table: str, task_spec: str, seeds: str, backend: str, base_url: str | None,
    model: str | None, weak_model: str | None, api_key_env: str, independent_agents: bool,
    paper_values: str | None, resamples: int, output: str, as_json: bool,
) -> None:
    """Run the setting of one of the SAC paper's tables and print ours beside the paper's.

    \b
    TABLE is table1 (7 agents, 4S2W1A, F = 3, T = 6, fixed attack; SAC, CP-WBFT and the
    judge-only control on gamma-MERG, complete, ER and PA), table3 (the same on a
    commonsense benchmark given with --tasks), table5 (9 agents, 6S2W1A, F = 4) or table6
    (closed-model setting: 4S3A on one model). Every cell is run for every seed; each
    metric is printed as ours = mean over seeds [95% two-level bootstrap CI] beside the
    paper's value, or n/a where the paper's value is not available (docs/protocols.md).
    """
    paper = load_paper_values(paper_values) if paper_values else None
    spec = BackendSpec(
        backend, base_url=base_url, api_key_env=api_key_env or None, strong_model=model,
        weak_model=weak_model, independent_agents=independent_agents,
    )

    def log(line: str) -> None:
        click.echo(f"robustgraph: reproduce: {line}", err=True)

    result = reproduce(
        TABLES[table], Path(output), seeds=parse_seeds(seeds), tasks=task_spec, backend=spec,
        paper=paper, resamples=resamples, log=log,
    )
    emit(table_json(result), as_json, lambda: click.echo(table_text(result), nl=False))
