"""``robustgraph run``: SAC and its baselines among LLM agents on a certified graph."""

from __future__ import annotations

import sqlite3
import warnings
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from protocol_runner.cli.choices import (
    ATTACKS,
    BACKENDS,
    CONTRIBUTIONS,
    DEFAULT_OOD_POOL,
    FAMILIES,
    PLACEMENTS,
    PROTOCOLS,
)
from robustgraph import io, limits
from robustgraph.cli.common import emit, json_option, warn
from robustgraph.errors import ParameterError

if TYPE_CHECKING:
    from rich.console import Console

    from protocol_runner.run.runner import Plan, Progress, RunResult

# The runner (aiohttp, numpy), the roster and protocol configs (yaml) and rich are imported
# when the command runs, so that --help stays light (issue 33).

__all__ = ["run_command"]


def _topology(
    family: str | None, n: int | None, graph: str | None, fmt: str | None,
    directed: bool | None, seed: int, certificate: str | None,
) -> tuple[Any, str]:
    if (family is None) == (graph is None):
        raise ParameterError("give exactly one of --topology FAMILY (with --n) or --graph FILE")
    if graph is not None:
        if n is not None:
            raise ParameterError("--n goes with --topology, not with --graph")
        topology = io.read(graph, format=fmt, directed=directed)
        limits.at_most(f"{graph}: agents (nodes)", topology.n, limits.MAX_AGENTS)
        return topology, graph
    if certificate is not None:
        raise ParameterError("--certificate goes with --graph FILE")
    if n is None:
        raise ParameterError(f"--topology {family} needs --n (the number of agents)")
    limits.at_most("--n", n, limits.MAX_AGENTS, " agents")
    from protocol_runner.run.topology_spec import build_topology

    return build_topology(family, n, seed=seed), f"{family} n={n}"


class _ProgressBar:
    """A rich progress bar on stderr: queries done, backend calls, cache hits, ETA."""

    def __init__(self, console: Console) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.progress import Progress as Bar

        self.bar = Bar(
            TextColumn("[bold]run"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn(
                "queries  {task.fields[calls]} backend calls  {task.fields[hits]} cache hits"
            ),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console,
            transient=False,
        )
        self.task: Any = None

    def __call__(self, snapshot: Progress) -> None:
        if self.task is None:
            self.task = self.bar.add_task("run", total=snapshot.total, calls=0, hits=0)
            self.bar.start()
        self.bar.update(
            self.task, completed=snapshot.done, calls=snapshot.calls, hits=snapshot.cache_hits
        )

    def close(self) -> None:
        if self.task is not None:
            self.bar.stop()


def _ledger_info(path: Path, run_id: str) -> dict[str, Any]:
    """The commit gate's ledger after the run: entries, this run's decisions, head hash."""
    from protocol_runner.commit.ledger import read_entries

    entries = read_entries(path)
    mine = [e for e in entries if e.body.get("kind") == "decision"
            and str(e.body.get("proposal_id", "")).startswith(run_id + "/")]
    return {"ledger": str(path), "entries": len(entries), "run_decisions": len(mine),
            "head_hash": entries[-1].entry_hash if entries else None}


def _finish(results: list[RunResult], output: Path, plots: bool, as_json: bool,
            ledgers: list[dict[str, Any]] | None = None) -> None:
    """Summarise the results directory (the metrics owner's one entry point) and print it.

    Several seeds: the summary, tables and figures in ``output`` pool the seeds' runs (the
    topology figure draws each seed's graph when they differ). ``ledgers``: the commit gate's
    ledger after each seed's run (:func:`_ledger_info`), in the order of ``results``."""
    from rich.console import Console

    from protocol_runner.analysis.cost import cost_line
    from protocol_runner.analysis.report import rich_table, write_summary

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        summary = write_summary(output, plots=plots)
    for note in list(summary.warnings) + [str(w.message) for w in caught]:
        click.echo(f"robustgraph: warning: {' '.join(note.split())}", err=True)
    runs = [_result_json(result) for result in results]
    data = {"run": runs[0] if len(runs) == 1 else runs, "summary": summary.to_json()}
    if ledgers is not None:
        data["commit_gate"] = ledgers[0] if len(ledgers) == 1 else ledgers

    def render() -> None:
        Console(highlight=False).print(rich_table(summary))
        click.echo(cost_line(summary.cost.to_json()))  # as 'robustgraph report' prints it
        for result in results:
            click.echo(
                f"run {result.run_id} (seed {result.seed}): {result.ran} queries run, "
                f"{result.skipped} resumed from disk; results in {result.output}"
            )
        for result, ledger in zip(results, ledgers or [None] * len(results), strict=True):
            if ledger is not None:
                click.echo(
                    f"commit gate: {ledger['run_decisions']} decisions of run {result.run_id} "
                    f"in {ledger['ledger']} ({ledger['entries']} entries, head "
                    f"{ledger['head_hash']}); check it with 'robustgraph ledger verify'"
                )

    emit(data, as_json, render)


def _result_json(result: RunResult) -> dict[str, Any]:
    return {
        "output": str(result.output),
        "run_id": result.run_id,
        "seed": result.seed,
        "queries": result.queries,
        "ran": result.ran,
        "skipped": result.skipped,
        "wall_s": round(result.wall_s, 3),
        "client": result.stats,
        "gate": result.gate.to_json(),
        "certificate": result.certificate_source,
    }


@click.command(
    "run",
    epilog="""\b
Examples:
  robustgraph run --topology merg --n 7 --F 3 --roster 4S2W1A --attack fixed \\
      --protocols sac,cpwbft,crs,majority,debate --tasks arith:100 --rounds 6 \\
      --backend simulated --seed 1 -o results/
  robustgraph run --graph g.json --certificate g.cert.json --F 1 --roster 5S1A \\
      --tasks gsm8k:test.jsonl:50 --backend openai --base-url http://127.0.0.1:8000/v1 \\
      --model my-model -o results-gsm8k/
  robustgraph run --topology merg --n 5 --F 1 --roster 4S1A --tasks arith:20 \\
      --backend openai --base-url http://127.0.0.1:8000/v1 --model my-model \\
      --commit-gate --reexecutor-model auditor-model -o results-gated/
  robustgraph run --graph k7.edges --roster roster.yaml --F 2 --tasks gsm8k:test.jsonl:50 \\
      --backend openai --base-url http://127.0.0.1:8000/v1 --model my-model \\
      --corpus news-index=news.jsonl --corpus live-feed=live.jsonl --commit-gate -o rag/
\b
Exit codes: 0 done; 1 the certificate does not prove (F+1)-robustness (the witness is
printed; --allow-uncertified runs anyway and records it); 2 usage or input error, a
Byzantine set (adversaries + weak agents) that is not F-local, or an -o holding another run.
Running the same command into the same -o resumes an interrupted run.
""",
)
@click.option("--topology", "family", default=None, metavar="FAMILY[:k=v...]",
              help=f"Generate the graph: {', '.join(FAMILIES)} (e.g. circulant:k=2).")
@click.option("--n", "n", type=int, default=None, help="Number of agents for --topology.")
@click.option("--graph", type=click.Path(dir_okay=False), default=None, help="Graph file.")
@click.option("--certificate", type=click.Path(dir_okay=False), default=None,
              help="Certificate of --graph (default: certify it first, time-limited).")
@click.option("--format", "fmt", default=None, help="Format of --graph (default: extension).")
@click.option("--directed/--undirected", default=None, help="For edge lists: arcs or edges.")
@click.option("--F", "faults", type=click.IntRange(min=0), default=None,
              help="Byzantine agents tolerated per neighbourhood (default: adversaries + weak "
              "agents, the paper's |B| = |A| + |F|).")
@click.option("--roster", required=True, help="Counts such as 4S2W1A, or a roster YAML/JSON file.")
@click.option("--attack", default="fixed", show_default=True,
              help=f"Adversaries' attack: {', '.join(ATTACKS)} (echo-then-flip:k=K).")
@click.option("--placement", type=click.Choice(PLACEMENTS), default="random", show_default=True,
              help="Where adversaries sit.")
@click.option("--adversary-nodes", default="", help="Comma-separated labels (placement labels).")
@click.option("--protocols", default="sac,cpwbft,crs,majority,debate", show_default=True,
              help=f"Comma-separated, from {', '.join(PROTOCOLS)}.")
@click.option("--tasks", "task_spec", default="arith:100", show_default=True,
              help="Task set spec (docs/tasks.md).")
@click.option("--rounds", type=click.IntRange(min=0, max=limits.MAX_ROUNDS), default=6,
              show_default=True, help="Rounds T after the initial answers.")
@click.option("--seed", type=click.IntRange(min=0), default=None,
              help="The run's seed (default 0).")
@click.option("--seeds", "seed_list", default=None, metavar="SEEDS",
              help="Several seeds (1-5, 1,3,5): one run each in OUTPUT/seed-S/, then a pooled "
              "summary (CIs resample seeds, then queries).")
@click.option("--backend", type=click.Choice(BACKENDS), default="simulated", show_default=True)
@click.option("--base-url", default=None, help="openai: endpoint ending in /v1.")
@click.option("--model", default=None, help="Strong agents' model (openai: required).")
@click.option("--weak-model", default=None, help="Weak agents' model (default: --model).")
@click.option("--api-key-env", default="OPENAI_API_KEY", show_default=True,
              help="openai: environment variable holding the key.")
@click.option("--allow-cross-origin-redirects", "cross_origin", is_flag=True,
              help="openai: follow redirects to other hosts than --base-url's (default: "
              "refused; prompts would reach a host not named, docs/endpoints.md).")
@click.option("--sim-config", default=None, metavar="NAME|FILE",
              help="simulated: a profile (handset, or one fitted to the SAC paper) or a JSON "
              "file of parameters (default: the profile fitted to the tasks' kind).")
@click.option("--independent-agents", is_flag=True,
              help="simulated: agents on one model draw their errors independently "
              "(default: they share them, docs/simulation.md).")
@click.option("--ood-tasks", default=DEFAULT_OOD_POOL, show_default=True,
              help="fixed attack: task set of the out-of-distribution queries (the run's own "
              "tasks are left out); auto: one of each task kind of the run (App. B.4, "
              "docs/protocols.md). Answers must parse as the run's kind.")
@click.option("--latency-ms", type=click.FloatRange(min=0), default=0.0,
              help="simulated: artificial latency per call.")
@click.option("--concurrency", type=click.IntRange(min=1, max=limits.MAX_CONCURRENCY),
              default=64, show_default=True, help="Queries and LLM calls in flight at most.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=60.0,
              show_default=True,
              help="Seconds per LLM call attempt; openai: to connect and per read of a reply "
              "(an attempt is capped at 10x).")
@click.option("--max-retries", type=click.IntRange(min=0, max=limits.MAX_RETRIES), default=6,
              show_default=True)
@click.option("--max-calls", type=click.IntRange(min=1), default=limits.MAX_RUN_CALLS,
              show_default=True, help="Run budget: agents x tasks x protocols x (1 + 2 rounds) "
              "LLM calls at most; a larger run is refused before any work.")
@click.option("--allow-uncertified", is_flag=True,
              help="Run even if the certificate does not prove (F+1)-robustness (recorded).")
@click.option("--certify-time-limit", type=float, default=60.0, show_default=True,
              help="Seconds per question when the runner certifies the graph itself.")
@click.option("--eta", type=float, default=0.1, show_default=True, help="CrS learning rate.")
@click.option("--contributions", type=click.Choice(CONTRIBUTIONS), default="shapley",
              show_default=True, help="CrS contributions.")
@click.option("--judge-model", default=None, help="CrS/judge: model (default: a strong agent's).")
@click.option("--max-chars", type=click.IntRange(min=1), default=2000, show_default=True,
              help="Cap on a neighbour's text quoted in a prompt.")
@click.option("--commit-gate", is_flag=True,
              help="Last stage: honest final answers become signed votes; the evidence-diversity "
                   "gate and a plain 2f+1 quorum (f: --gate-f) decide each query; decisions go "
                   "to a ledger (docs/commit-gate.md).")
@click.option("--ledger", type=click.Path(dir_okay=False), default=None,
              help="Ledger of --commit-gate (default: OUTPUT/ledger.sqlite).")
@click.option("--keyring", type=click.Path(dir_okay=False), default=None,
              help="--commit-gate: the file (mode 0600) of the agents', gate's and reviewer's "
                   "private keys, created with fresh keys when missing (default: "
                   "OUTPUT/keyring.json); reuse one to keep a deployment's identities.")
@click.option("--reexecutor-model", default=None, metavar="NAME",
              help="--commit-gate on --backend openai: model NAME at the same endpoint "
                   "re-executes each quorum's task (bare prompt, own identity, past the "
                   "response cache, counted in the cost) instead of the simulated re-executor; "
                   "refused if an agent runs on or declares NAME as its checkpoint.")
@click.option("--corpus", "corpus_files", multiple=True, metavar="NAME=PATH",
              help="openai: the documents of roster corpus NAME, a JSONL file of "
                   '{"task_id", "text"[, "source"]} lines; agents reading NAME get the task\'s '
                   "document in their answer prompts, and their votes its text's hash as "
                   "evidence. Repeatable (docs/commit-gate.md).")
# -- the commit gate's fault bound, conflict rule and declared diversity (issue 45) --
@click.option("--gate-f", type=click.IntRange(min=0), default=None,
              help="--commit-gate: Byzantine voters the gate tolerates, n >= 3f+1 (default: the "
                   "roster's adversaries; SAC's --F is separate).")
@click.option("--gate-conflict", type=click.Choice(("diverse", "quorum", "strict")),
              default="diverse", show_default=True,
              help="--commit-gate: escalate a quorum whose dissent spans as many units as it "
                   "(diverse), never (quorum) or on any dissent (strict); docs/commit-gate.md.")
@click.option("--diversity", default="", metavar="KINDS",
              help="Comma-separated of checkpoint, corpus, lineage: every honest agent has its "
                   "own where the roster declares none (docs/commit-gate.md).")
@click.option("--no-plots", is_flag=True, help="Write the summary and tables without figures.")
@click.option("-o", "--output", required=True, type=click.Path(file_okay=False),
              help="Results directory (created; resumed if it holds this run).")
@json_option
def run_command(
    family: str | None, n: int | None, graph: str | None, certificate: str | None,
    fmt: str | None, directed: bool | None, faults: int | None, roster: str, attack: str,
    placement: str, adversary_nodes: str, protocols: str, task_spec: str, rounds: int,
    seed: int | None, seed_list: str | None, backend: str, base_url: str | None,
    model: str | None, weak_model: str | None, api_key_env: str, cross_origin: bool,
    sim_config: str | None, independent_agents: bool, ood_tasks: str, latency_ms: float,
    concurrency: int, timeout: float, max_retries: int, max_calls: int, allow_uncertified: bool,
    certify_time_limit: float,
    eta: float, contributions: str, judge_model: str | None, max_chars: int, commit_gate: bool,
    ledger: str | None, keyring: str | None, reexecutor_model: str | None,
    corpus_files: tuple[str, ...], gate_f: int | None, gate_conflict: str, diversity: str,
    no_plots: bool, output: str, as_json: bool,
) -> None:
    """Run SAC and baselines among LLM agents on a certified communication graph.

    \b
    A run is: a graph (generated, or a file with its certificate) x an agent roster
    (strong/weak honest agents and adversaries following --attack) x protocols x tasks x
    rounds x seed. The graph must be proven (F+1)-robust for the requested F, which is what
    SAC needs to tolerate F Byzantine neighbours per agent (F defaults to the adversaries
    plus the weak agents, the paper's faulty ones), and no agent may hear more than F of
    them; without --certificate the runner certifies it first. One line per query goes to
    OUTPUT/results.jsonl as soon as the query completes; the summary table (IAA, FAA, BFTI,
    RA, H-Majority, weak/strong) is printed at the end and written to OUTPUT/summary.md.
    With --seeds each seed is a run of its own in OUTPUT/seed-S/ (a generated random graph
    is drawn per seed) and the summary in OUTPUT pools them.
    """
    from protocol_runner.protocols.crs import CrSConfig
    from protocol_runner.run.corpora import parse_corpus_option
    from protocol_runner.run.occupancy import claim
    from protocol_runner.run.runner import BackendSpec, RunSpec, parse_seeds, plan, seed_output
    from robustgraph.cli.batch import _given  # an explicit --api-key-env must name a set key

    if not output:
        raise ParameterError("-o is empty; name the results directory")
    if seed is not None and seed_list is not None:
        raise ParameterError("give --seed or --seeds, not both")
    seeds = parse_seeds(seed_list) if seed_list is not None else (seed or 0,)
    topology, source = _topology(family, n, graph, fmt, directed, seeds[0], certificate)
    spec = RunSpec(
        topology,
        Path(output),
        roster=roster,
        attack=attack,
        placement=placement,
        adversary_nodes=tuple(x.strip() for x in adversary_nodes.split(",") if x.strip()),
        protocols=tuple(p.strip() for p in protocols.split(",") if p.strip()),
        tasks=task_spec,
        rounds=rounds,
        seed=seeds[0],
        F=faults,
        backend=BackendSpec(
            backend,
            base_url=base_url,
            api_key_env=api_key_env or None,
            strong_model=model,
            weak_model=weak_model,
            sim_config=sim_config,
            latency_s=latency_ms / 1000.0,
            timeout_s=timeout,
            max_retries=max_retries,
            independent_agents=independent_agents,
            cross_origin_redirects=cross_origin,
            require_key=_given("api_key_env"),
        ),
        concurrency=concurrency,
        certificate=Path(certificate) if certificate else None,
        topology_source=source,
        allow_uncertified=allow_uncertified,
        certify_time_limit=certify_time_limit or None,  # 0: no limit; negative or NaN: refused
        max_chars=max_chars,
        crs=CrSConfig(eta=eta, contributions=contributions, judge_model=judge_model),
        commit_gate=commit_gate,
        ledger=Path(ledger) if ledger else None,
        keyring=Path(keyring) if keyring else None,
        reexecutor_model=reexecutor_model,
        corpora=tuple(parse_corpus_option(text) for text in corpus_files),
        ood_tasks=ood_tasks,
        gate_f=gate_f,
        gate_conflict=gate_conflict,
        diversity=tuple(k.strip() for k in diversity.split(",") if k.strip()),
        max_calls=max_calls,
    )
    plans = []
    for s in seeds:
        if s != seeds[0] and family is not None:  # a random family draws its graph per seed
            topology, source = _topology(family, n, graph, fmt, directed, s, certificate)
        plans.append(plan(replace(spec, seed=s, output=seed_output(Path(output), s, seeds),
                                  topology=topology, topology_source=source)))
    # every seed's run is checked before the first one starts: one run per directory
    claim(Path(output), {p.spec.output: (p.run_id, p.identity) for p in plans})
    results = [_run_one(p, as_json) for p in plans]
    ledgers = None
    if commit_gate:
        from protocol_runner.commit.stage import LEDGER_FILE

        # one ledger per seed's directory, unless --ledger named one file for all of them
        ledgers = [_ledger_info(spec.ledger or result.output / LEDGER_FILE, result.run_id)
                   for result in results]
    _finish(results, Path(output), not no_plots, as_json, ledgers)


def _run_one(planned: Plan, as_json: bool) -> RunResult:
    """Prepare and execute the run of one seed."""
    from rich.console import Console

    from protocol_runner.run import aio
    from protocol_runner.run.cert_gate import NotCertified
    from protocol_runner.run.runner import execute, prepare

    console = Console(stderr=True, highlight=False)

    def log(line: str) -> None:
        click.echo(f"robustgraph: run: certify: {line}", err=True)

    try:
        prepared = prepare(planned, log=log)
    except NotCertified as exc:  # --json callers get the refusal on stdout too (then exit 1)
        refusal = {"refused": True, "reason": str(exc), "output": str(planned.spec.output)}
        emit(refusal, as_json, lambda: None)
        raise
    if not prepared.gate.certified:
        click.echo(f"robustgraph: warning: running uncertified: {prepared.gate.reason}", err=True)
    if prepared.corpora is not None:
        served = prepared.corpora.served([task.id for task in prepared.tasks])
        for name in (name for name, count in served.items() if not count):
            warn(f"--corpus {name} has a document for none of the run's {len(prepared.tasks)} "
                 "tasks (task ids differ?): its agents answer from their weights")
    bar = _ProgressBar(console) if console.is_terminal else None
    try:
        return aio.run(execute(prepared, progress=bar))
    except (OSError, sqlite3.OperationalError) as exc:  # a full disk: one line naming the path
        raise _named(exc, planned) from None
    finally:
        if bar is not None:
            bar.close()


def _named(exc: OSError | sqlite3.OperationalError, planned: Plan) -> Exception:
    """``exc`` as an error naming what could not be written: an ``OSError`` that names no file
    (a failed ``write``) gets the results folder; SQLite's "database or disk is full" the
    databases the run writes (what is already written stays consistent and resumes)."""
    from protocol_runner.commit.stage import LEDGER_FILE
    from protocol_runner.run.runner import CACHE_FILE

    spec = planned.spec
    if isinstance(exc, OSError):
        return exc if exc.filename else OSError(exc.errno, exc.strerror, str(spec.output))
    paths = [str(Path(spec.output) / CACHE_FILE)]
    if spec.commit_gate:
        paths.append(str(spec.ledger or Path(spec.output) / LEDGER_FILE))
    return ParameterError(f"{' or '.join(paths)}: {exc} (the run resumes where it stopped)")
