"""Summarise a results directory: ``summary.json``, ``summary.md``, Table 1 and the figures.

The entry point for the runner and the ``report`` command is :func:`write_summary`::

    from protocol_runner.analysis.report import write_summary
    summary = write_summary(results_dir)          # -> Summary
    summary.to_json()                             # what summary.json holds

It reads ``results.jsonl`` (one :class:`~protocol_runner.run.records.QueryRecord` per line),
computes every metric of :mod:`protocol_runner.analysis.metrics` per protocol with bootstrap
confidence intervals over queries, and writes into the directory:

- ``summary.json``: the run (id, task set, backend, models, roster, F, T, seed, graph), the
  bootstrap settings, per protocol every metric as ``{"value", "low", "high", "n"}``, the
  per-round accuracies, the cost (:mod:`protocol_runner.analysis.cost`), and any warnings; keys
  in a fixed order, no timestamps, so the same records give the same bytes;
- ``summary.md``: Table 1 with its intervals, the decision accuracy, for a ``--commit-gate``
  run the commit, false-commit, escalation and abort rates of the gate and of a plain 2f+1
  quorum per protocol (also in ``summary.json``), the per-round accuracy and the cost;
- ``table1.md``, ``table1.tex``, ``table1.csv`` (:mod:`protocol_runner.analysis.tables`);
- the figures of :mod:`protocol_runner.analysis.plots` as PNG, PDF and SVG (unless
  ``plots=False``).

The run's ``config.json`` (written by :mod:`protocol_runner.run.runner`), when present, adds the
certificate gate's verdict (a run with ``--allow-uncertified`` is flagged "NOT certified" in
every output), the protocol order and the graph and certificate file names.

A run killed while writing leaves a truncated last line: it is skipped with a
:class:`TruncatedResultsWarning` (also listed in ``Summary.warnings``), never an error. A
malformed line elsewhere, a missing or empty results file, records of two different runs, or a
``config.json`` of another run raise :class:`~robustgraph.errors.ParameterError` (the CLI: one
line, exit 2).

One module: loading results, the summary document and summary.md are one path from
results.jsonl to summary.json/summary.md, with one set of warnings; the metrics, tables, cost
and figures are their own modules.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from rich import box
from rich.markup import escape
from rich.table import Table

from protocol_runner.analysis.cost import RunCost, cost_line
from protocol_runner.analysis.metrics import (
    COMMIT_METRICS,
    COMMIT_RULES,
    Estimate,
    ProtocolMetrics,
    compute_metrics,
)
from protocol_runner.analysis.provenance import (
    run_simulated,
    simulated_banner,
)
from protocol_runner.analysis.tables import COLUMNS, run_table, write_tables
from protocol_runner.run.records import QueryRecord
from protocol_runner.run.sessions import read_sessions
from robustgraph.atomic import write_atomic
from robustgraph.errors import ParameterError

__all__ = [
    "CONFIG_FILE",
    "RESULTS_FILE",
    "SEED_DIR",
    "SUMMARY_JSON",
    "SUMMARY_MD",
    "LoadedResults",
    "Summary",
    "TruncatedResultsWarning",
    "load_results",
    "load_run",
    "markdown_table",
    "rich_table",
    "seed_dirs",
    "summarize",
    "summary_markdown",
    "write_summary",
]

RESULTS_FILE = "results.jsonl"
CONFIG_FILE = "config.json"
SUMMARY_JSON = "summary.json"
SUMMARY_MD = "summary.md"



class TruncatedResultsWarning(UserWarning):
    """The last line of ``results.jsonl`` is incomplete (a killed run) and was skipped."""


@dataclass(frozen=True)
class LoadedResults:
    """The complete records of a results directory, its ``config.json`` (None when absent),
    and what was skipped on the way."""

    path: Path
    records: tuple[QueryRecord, ...]
    warnings: tuple[str, ...]
    config: Mapping[str, Any] | None = None


def _results_path(results_dir: str | Path) -> Path:
    directory = Path(results_dir)
    if not directory.exists():
        raise ParameterError(f"{directory}: no such results directory")
    if not directory.is_dir():
        raise ParameterError(f"{directory}: not a directory (give the run's results directory)")
    path = directory / RESULTS_FILE
    if not path.is_file():
        raise ParameterError(f"{directory}: no {RESULTS_FILE} in it (not a results directory?)")
    return path


def _record(path: Path, number: int, data: Any) -> QueryRecord:
    try:
        return QueryRecord.from_json(data)
    except (ParameterError, AttributeError, TypeError) as exc:
        raise ParameterError(f"{path}:{number}: not a result record: {exc}") from None


def _load_config(directory: Path, run_id: str) -> Mapping[str, Any] | None:
    path = directory / CONFIG_FILE
    if not path.is_file():
        return None
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, RecursionError) as exc:  # also not UTF-8, 4300+ digit numbers
        raise ParameterError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(config, dict):
        raise ParameterError(f"{path}: not a run configuration (a JSON object)")
    if config.get("run_id") != run_id:
        raise ParameterError(
            f"{path} is of run {config.get('run_id')!r} but {RESULTS_FILE} of run {run_id!r}"
        )
    return config


SEED_DIR = "seed-"
"""A run over several seeds (``run --seeds``) keeps each seed's run in ``seed-<S>/``."""


def seed_dirs(directory: Path) -> list[Path]:
    """The per-seed runs of a several-seed results directory, by seed (empty when none)."""
    if (directory / RESULTS_FILE).is_file() or not directory.is_dir():
        return []
    found = [p for p in directory.glob(f"{SEED_DIR}*") if (p / RESULTS_FILE).is_file()]
    return sorted(found, key=lambda p: (len(p.name), p.name))


def load_results(results_dir: str | Path) -> LoadedResults:
    """Read the records of a results directory: one run, or one run per seed in ``seed-<S>/``.

    A several-seed directory (``run --seeds``) pools its seeds' records (each seed one run)
    with the first seed's ``config.json``; see :func:`load_run` for one run.
    """
    seeds = seed_dirs(Path(results_dir))
    if not seeds:
        return load_run(results_dir)
    runs = [load_run(directory) for directory in seeds]
    return LoadedResults(
        Path(results_dir) / RESULTS_FILE,
        tuple(r for run in runs for r in run.records),
        tuple(w for run in runs for w in run.warnings),
        runs[0].config,
    )


def load_run(results_dir: str | Path) -> LoadedResults:
    """Read every complete record of ``results_dir/results.jsonl``, in file order.

    The last line is skipped with a :class:`TruncatedResultsWarning` when it is not valid JSON
    (a run killed while writing it leaves it truncated). Blank lines are ignored. The run's
    ``config.json``, when present, is read too (the certificate gate's verdict, the protocol
    order).

    Raises
    ------
    ParameterError
        When the directory or its results file does not exist, a line other than the last is
        not a record, no complete record is left, the records belong to different runs, or
        ``config.json`` is malformed or of another run.
    """
    path = _results_path(results_dir)
    try:
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    except UnicodeDecodeError as exc:
        raise ParameterError(f"{path}: not UTF-8 text ({exc.reason})") from None
    numbered = [(i, text) for i, text in enumerate(lines, start=1) if text.strip()]
    records: list[QueryRecord] = []
    notes: list[str] = []
    last = numbered[-1][0] if numbered else 0
    for number, text in numbered:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            if number != last:
                raise ParameterError(f"{path}:{number}: not a result record: {exc}") from None
            note = (
                f"{path}:{number}: skipped a truncated last line ({len(text)} characters; "
                "the run was interrupted while writing it)"
            )
            warnings.warn(note, TruncatedResultsWarning, stacklevel=2)
            notes.append(note)
            continue
        except (ValueError, RecursionError) as exc:  # a 4300+ digit number, deep nesting
            reason = str(exc).split(";")[0]
            raise ParameterError(f"{path}:{number}: not a result record: {reason}") from None
        records.append(_record(path, number, data))
    if not records:
        raise ParameterError(f"{path}: no complete query record (empty results)")
    runs = sorted({record.run_id for record in records})
    if len(runs) > 1:
        raise ParameterError(
            f"{path}: records of {len(runs)} different runs ({', '.join(runs[:3])}); "
            "one results directory holds one run"
        )
    config = _load_config(path.parent, runs[0])
    return LoadedResults(path, tuple(records), tuple(notes), config)


@dataclass(frozen=True)
class Summary:
    """Everything ``summary.json`` holds: the run, the bootstrap settings, per-protocol metrics.

    ``files`` lists what :func:`write_summary` wrote (names relative to the directory).
    """

    run: Mapping[str, Any]
    protocols: Mapping[str, ProtocolMetrics]
    cost: RunCost
    resamples: int
    confidence: float
    bootstrap_seed: int
    warnings: tuple[str, ...] = ()
    files: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The summary as JSON-ready data, keys in a fixed order."""
        return {
            "format": "robustgraph-summary",
            "schema": 1,
            "run": dict(self.run),
            "bootstrap": {
                "resamples": self.resamples,
                "confidence": self.confidence,
                "seed": self.bootstrap_seed,
                "method": "percentile; seeds resampled, then queries within each seed, with "
                "replacement",
            },
            "protocols": {name: m.to_json() for name, m in self.protocols.items()},
            "cost": self.cost.to_json(),
            "warnings": list(self.warnings),
            "files": list(self.files),
        }

    def dumps(self) -> str:
        """``summary.json``'s text: 2-space indent, trailing newline."""
        return json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n"


def _run_info(records: Sequence[QueryRecord], config: Mapping[str, Any] | None) -> dict[str, Any]:
    first = records[0]
    info: dict[str, Any] = {
        "run_id": first.run_id,
        "seed": first.seed,
        "F": first.F,
        "roster": dict(first.roster),
        "seeds": sorted({record.seed for record in records}),
        "tasks": len({record.task_id for record in records}),
        "task_kinds": sorted({record.task_kind for record in records}),
        "records": len(records),
    }
    if config is not None:
        run = config.get("run", {})
        agents = (run.get("roster") or {}).get("agents") or []
        info["task_set"] = (run.get("tasks") or {}).get("spec")
        info["rounds"] = run.get("rounds")
        info["backend"] = (run.get("backend") or {}).get("kind")
        info["models"] = sorted({a["model"] for a in agents if a.get("model")})
        info["simulated"] = run_simulated(config)
        if info["simulated"]:  # the simulator profile, when the run's backend recorded it
            info["sim_profile"] = (config.get("backend") or {}).get("profile")
        info["graph_name"] = config.get("topology_source")
        info["graph"] = run.get("topology")
        info["certificate"] = config.get("certificate")
        info["gate"] = config.get("gate")
    return info


def _certified(run: Mapping[str, Any]) -> bool | None:
    gate = run.get("gate")
    return gate.get("certified") if isinstance(gate, dict) else None


def summarize(
    loaded: LoadedResults,
    *,
    resamples: int = 2000,
    confidence: float = 0.95,
    seed: int | None = None,
) -> Summary:
    """Compute the summary of loaded results (nothing is written).

    Parameters
    ----------
    loaded : LoadedResults
        From :func:`load_results`.
    resamples, confidence
        Bootstrap settings (:func:`protocol_runner.analysis.metrics.bootstrap_means`).
    seed : int, optional
        Bootstrap seed; default: the run's own seed, so a run's summary is reproducible.

    Protocols are reported in the order the run's ``config.json`` lists them, else in
    :data:`~protocol_runner.analysis.metrics.PROTOCOL_ORDER`.

    Raises
    ------
    ParameterError
        For bad bootstrap settings or a repeated query id.
    """
    records = loaded.records
    bootstrap_seed = records[0].seed if seed is None else seed
    config = loaded.config or {}
    protocols = compute_metrics(
        records,
        resamples=resamples,
        confidence=confidence,
        seed=bootstrap_seed,
        order=config.get("run", {}).get("protocols", ()),
    )
    return Summary(
        run=_run_info(records, loaded.config),
        protocols=protocols,
        cost=RunCost.of(
            records, read_sessions(loaded.path.parent, {record.run_id for record in records})
        ),
        resamples=resamples,
        confidence=confidence,
        bootstrap_seed=bootstrap_seed,
        warnings=loaded.warnings,
    )


# ----------------------------------------------------------------------------- rendering
def _percent(value: float | None, *, signed: bool = False) -> str:
    if value is None:
        return "–"
    return f"{100 * value:+.1f}" if signed else f"{100 * value:.1f}"


def _interval(estimate: Estimate | None) -> str:
    if estimate is None:
        return "–"
    return f"[{100 * estimate.low:.1f}, {100 * estimate.high:.1f}]"


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """The lines of a Markdown table: ``| a | b |``, ``|---|---|``, then one line per row."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def _roster_text(run: Mapping[str, Any]) -> str:
    roster = run.get("roster", {})
    parts = [str(roster.get("spec", "?"))]
    if "attack" in roster:
        parts.append(f"attack {roster['attack']}")
    return ", ".join(parts)


def _seeds_text(run: Mapping[str, Any]) -> str:
    seeds = run.get("seeds", [run["seed"]])
    return f"seed {seeds[0]}" if len(seeds) == 1 else (
        f"{len(seeds)} seeds ({', '.join(map(str, seeds))}; intervals resample seeds, then "
        "queries)"
    )


def _backend_text(run: Mapping[str, Any]) -> str:
    models = ", ".join(run.get("models") or []) or "?"
    banner = f"; {simulated_banner(run.get('sim_profile'))}" if run.get("simulated") else ""
    return f"backend {run.get('backend') or '?'} (models {models}{banner})"


def _provenance_text(run: Mapping[str, Any]) -> str:
    tasks = f"tasks {run['task_set']}" if run.get("task_set") else f"{run['tasks']} tasks"
    return (
        f"{tasks} ({', '.join(run['task_kinds'])}), {_backend_text(run)}, "
        f"roster {_roster_text(run)}, F = {run['F']}, T = {run.get('rounds', '?')}, "
        f"{_seeds_text(run)}"
    )


def summary_markdown(summary: Summary) -> str:
    """``summary.md``: Table 1 with intervals, decisions, commit gate, per-round accuracy, cost.

    Accuracies are in percent with one decimal; BFTI is signed; weak/strong columns read
    ``IAA → FAA``; "–" marks a metric undefined for the run (e.g. no weak agents).
    """
    run = summary.run
    level = f"{100 * summary.confidence:g}%"
    banner = simulated_banner(run.get("sim_profile"))
    simulated = [f"**{banner[0].upper()}{banner[1:]}.**", ""] if run.get("simulated") else []
    lines = [
        "# Run summary",
        "",
        *simulated,
        f"Run `{run['run_id']}`: {_provenance_text(run)}.",
        "",
        *_gate_lines(run),
        "Accuracy in percent over all agents, adversaries included (the SAC paper's "
        "definition; honest-only IAA_H/FAA_H in summary.json). BFTI = FAA − IAA; RA and "
        "H-Majority by plurality, a tie counted wrong; W/S: weak/strong honest agents.",
        "",
        "## Table 1",
        "",
        run_table(summary.to_json()).markdown().rstrip("\n"),
    ]
    decisions = {
        name: m.estimates["decision"]
        for name, m in summary.protocols.items()
        if m.estimates["decision"] is not None
    }
    if decisions:
        lines += ["", "## Group decision accuracy", ""]
        lines += markdown_table(
            ["Protocol", "Decision", f"{level} CI"],
            [[n, _percent(e.value), _interval(e)] for n, e in decisions.items()],
        )
    lines += _commit_lines(summary)
    lines += _round_lines(summary)
    lines += ["", "## Cost", "", cost_line(summary.cost.to_json()), ""]
    lines += markdown_table(
        ["Protocol", "Queries", "LLM requests", "Cache hits"],
        [[name, str(m.cost.queries), str(m.cost.llm_calls), str(m.cost.cache_hits)]
         for name, m in summary.protocols.items()],
    )
    lines += ["", "Definitions: docs/report.md, \"Cost\"."]
    if summary.warnings:
        lines += ["", "## Warnings", ""] + [f"- {note}" for note in summary.warnings]
    return "\n".join(lines) + "\n"


def _gate_lines(run: Mapping[str, Any]) -> list[str]:
    """The certificate gate's verdict, as ``config.json`` recorded it (nothing without one)."""
    certified = _certified(run)
    if certified is None:
        return []
    graph = run.get("graph") or {}
    size = f"n = {graph.get('n')}, m = {graph.get('m')}" if graph else "graph"
    reason = run["gate"].get("reason", "")
    if certified:
        return [f"Topology ({size}): certified; {reason}.", ""]
    return [f"Topology ({size}): **NOT certified** (run with --allow-uncertified); {reason}.", ""]


def _commit_lines(summary: Summary) -> list[str]:
    """The commit rates of a ``--commit-gate`` run, gate and plain quorum side by side."""
    rows = []
    for name, metrics in summary.protocols.items():
        if not metrics.commit:
            continue
        for rule, label in zip(COMMIT_RULES, ("gate", "plain 2f+1 quorum"), strict=True):
            cells = {m: metrics.commit[f"commit/{rule}/{m}"] for m in COMMIT_METRICS}
            false = cells["false_commit"]
            rows.append([name, label, str(0 if false is None else false.n)] + [
                "–" if e is None else f"{_percent(e.value)} {_interval(e)}"
                for e in cells.values()
            ])
    if not rows:
        return []
    gate = summary.run.get("commit_gate") or {}
    f = gate.get("f", summary.run["F"])  # runs before issue 45 record no f: theirs was F
    level = f"{100 * summary.confidence:g}%"
    return [
        "",
        f"## Commit gate (f = {f} Byzantine voters, quorum 2f+1 = {2 * f + 1})",
        "",
        "Honest agents' final answers as signed votes, one proposal per query. Gate: 2f+1 "
        "agreeing votes with f+1 distinct evidence hashes from f+1 independence units after "
        "any f of them are removed, reproduced by an independent re-execution "
        "(docs/commit-gate.md); its rates count the final decision, after the "
        "diversity-forcing round that follows a correlated quorum (an escalation there goes "
        "to a human). Rates in percent of "
        f"queries, false commits in percent of commits, with {level} bootstrap intervals.",
        "",
        *markdown_table(
            ["Protocol", "Rule", "Commits", "Commit", "False commit", "Escalation", "Abort"],
            rows,
        ),
    ]


def _round_lines(summary: Summary) -> list[str]:
    n_rounds = max(len(m.rounds["honest"]) for m in summary.protocols.values())
    rows = []
    for name, metrics in summary.protocols.items():
        for group, label in (("weak", "W"), ("strong", "S")):
            estimates = metrics.rounds[group]
            if all(e is None for e in estimates):
                continue
            values = [_percent(None if e is None else e.value) for e in estimates]
            rows.append([name, label] + values + [""] * (n_rounds - len(values)))
    if not rows:
        return []
    header = ["Protocol", "Agents"] + [f"r{r}" for r in range(n_rounds)]
    return ["", "## Accuracy per round (honest agents, percent)", "", *markdown_table(header, rows)]


def rich_table(summary: Summary) -> Table:
    """Table 1 for the terminal: each accuracy over its interval.

    Weak/strong cells show ``IAA→FAA`` only (their intervals are in ``table1.*``,
    ``summary.md`` and ``summary.json``); intervals are ``[low, high]`` in whole percents
    (one decimal in those files), so the table fits an 80-column terminal; the cost is
    printed under it by the CLI.
    """
    level = f"{100 * summary.confidence:g}%"
    run = summary.run
    uncertified = " (NOT certified)" if _certified(run) is False else ""
    table = Table(
        title=f"{_roster_text(run)}, F = {run['F']}, {run['tasks']} tasks, "
        f"{_seeds_text(run)}{uncertified}\n{_backend_text(run)}",
        caption=f"percent; under each value its {level} bootstrap interval "
        f"({summary.resamples} resamples: seeds, then queries); W/S: weak/strong agents' "
        "IAA→FAA",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        collapse_padding=False,
        padding=0,  # the box draws a space between columns
    )
    table.add_column("Protocol", style="bold", no_wrap=True)
    for column in COLUMNS:
        header = column.header.split()[0] if len(column.keys) > 1 else column.header  # W, S
        table.add_column(header, justify="right", no_wrap=True)
    table1 = run_table(summary.to_json())
    for _, name, metrics in table1.rows:
        row = []
        for (value, _), column in zip(table1.cells(metrics), COLUMNS, strict=True):
            estimate = metrics.get(column.keys[0]) if len(column.keys) == 1 else None
            if estimate is None:
                row.append(value)
            else:  # whole percents (+ 0: no "-0"), so that the table fits 80 columns
                low, high = (round(100 * estimate[k]) + 0 for k in ("low", "high"))
                row.append(f"{value}\n[dim]{escape(f'[{low}, {high}]')}[/dim]")
        table.add_row(name, *row)
    return table


def write_summary(
    results_dir: str | Path,
    *,
    plots: bool = True,
    resamples: int = 2000,
    confidence: float = 0.95,
    seed: int | None = None,
) -> Summary:
    """Summarise a results directory: ``summary.json``, ``summary.md``, Table 1, the figures.

    This is the one call the runner makes at the end of a run; ``robustgraph report`` makes it
    too. The summary depends only on the records, the session log (the cost) and the bootstrap
    settings, so calling it again after a resumed run rewrites the files with the complete
    numbers.

    Parameters
    ----------
    results_dir : str or Path
        A results directory holding ``results.jsonl`` (and, for the topology plot, the run's
        config and graph; see :mod:`protocol_runner.analysis.plots`).
    plots : bool
        Also write the figures (PNG, PDF, SVG); the tables are always written.
    resamples, confidence, seed
        Bootstrap settings (see :func:`summarize`).

    Returns
    -------
    Summary
        What was written to ``summary.json``; ``files`` names every file written.

    Raises
    ------
    ParameterError
        See :func:`load_results` and :func:`summarize`.
    OSError
        A file could not be written (a full disk): it names the file, which is left as it was
        (every file is written whole or not at all, :func:`robustgraph.atomic.write_atomic`).

    Warns
    -----
    TruncatedResultsWarning
        When the last line of ``results.jsonl`` was skipped.
    """
    directory = Path(results_dir)
    loaded = load_results(directory)
    summary = summarize(loaded, resamples=resamples, confidence=confidence, seed=seed)
    written = [SUMMARY_JSON, SUMMARY_MD]
    written += [p.name for p in write_tables(run_table(summary.to_json()), directory)]
    notes = list(summary.warnings)
    if plots:
        from protocol_runner.analysis.plots import write_plots  # matplotlib on demand

        outcome = write_plots(directory, summary.to_json(), loaded.records, loaded.config,
                              seed_dirs(directory))
        written += [path.name for path in outcome.files]
        notes += outcome.notes
    summary = replace(summary, warnings=tuple(notes), files=tuple(written))
    write_atomic(directory / SUMMARY_JSON, summary.dumps().encode("utf-8"))
    write_atomic(directory / SUMMARY_MD, summary_markdown(summary).encode("utf-8"))
    return summary
