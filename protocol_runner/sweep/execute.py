"""Run a sweep: every cell of a grid is one run, on a local process pool or a Ray cluster.

:func:`run_sweep` expands a :class:`~protocol_runner.sweep.spec.SweepSpec` into cells and runs
each one as a task of a :class:`~robustgraph.executors.Executor` (:func:`run_cell`: one
:func:`protocol_runner.run.runner.run` into ``DIR/cells/<cell id>/``, then its summary). The sweep
directory holds:

- ``cells/<id>/``: a results directory of ``robustgraph run`` (config, certificate, JSONL,
  summary, plots), plus ``cell.json`` once the cell has finished, or ``error.txt`` (the error
  and its traceback) when it failed;
- ``summary.json`` / ``summary.md``: every cell's parameters and per-protocol metrics, merged
  in grid order; nothing in them depends on the executor or on timing, so the same grid gives
  the same bytes locally and on a cluster;
- ``table1.{md,tex,csv}`` and ``plots/{protocols,rounds,commit_gate}.{png,pdf,svg}``:
  Table 1, FAA/BFTI per protocol, accuracy per round and (with the commit gate) the gate's
  decisions, cells that differ only in their seed pooled
  (:func:`protocol_runner.analysis.sweep_plots.write_sweep_report`);
- ``sweep.json``: how this invocation went (executor, per-cell status and seconds).

Running the same spec into the same directory again skips the cells that have ``cell.json``
and re-runs the others; a cell interrupted mid-run resumes from its ``results.jsonl`` (queries
already recorded are not asked again, see :mod:`protocol_runner.run.runner`). A failed cell is
reported and the other cells go on.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from protocol_runner.analysis.provenance import SIMULATED_SENTENCE
from protocol_runner.analysis.report import markdown_table, write_summary
from protocol_runner.protocols.crs import CrSConfig
from protocol_runner.run.runner import BackendSpec, RunSpec, run
from protocol_runner.run.topology_spec import build_topology
from protocol_runner.sweep.spec import AXES, Cell, SweepSpec
from robustgraph.executors import Executor, Outcome, Task

__all__ = [
    "CELLS_DIR",
    "CELL_FILE",
    "ERROR_FILE",
    "STATUS_FILE",
    "SUMMARY_JSON",
    "SUMMARY_MD",
    "TABLE_METRICS",
    "SweepResult",
    "backend_spec",
    "run_cell",
    "run_sweep",
    "merge",
    "summary_markdown",
]

CELLS_DIR = "cells"
CELL_FILE = "cell.json"
ERROR_FILE = "error.txt"
STATUS_FILE = "sweep.json"
SUMMARY_JSON = "summary.json"
SUMMARY_MD = "summary.md"
TABLE_METRICS = (
    ("IAA", "IAA"),
    ("FAA", "FAA"),
    ("BFTI", "BFTI"),
    ("RA", "RA"),
    ("H-Maj", "H_Majority"),
)
"""The columns of ``summary.md``: the SAC paper's main metrics, in percent."""


@dataclass(frozen=True)
class SweepResult:
    """What a sweep did: the merged summary, and the cells skipped, run and failed."""

    directory: Path
    summary: dict[str, Any]
    skipped: tuple[str, ...]
    ran: tuple[str, ...]
    failed: tuple[str, ...]

    @property
    def exit_code(self) -> int:
        """1 when a cell failed, else 0."""
        return 1 if self.failed else 0


def backend_spec(backend: Mapping[str, Any]) -> BackendSpec:
    """A spec's backend entry as the runs' :class:`BackendSpec` (its checks included: an
    ``api_key_env`` the spec names must be a set variable, as ``run --api-key-env``; redirects
    outside ``base_url``'s origin are refused, no key opts in)."""
    return BackendSpec(
        backend["kind"],
        base_url=backend.get("base_url"),
        api_key_env=backend.get("api_key_env", "OPENAI_API_KEY"),
        strong_model=backend.get("model"),
        weak_model=backend.get("weak_model"),
        sim_config=backend.get("sim_config"),
        latency_s=backend.get("latency_ms", 0.0) / 1000.0,
        timeout_s=backend.get("timeout", 60.0),
        max_retries=backend.get("max_retries", 6),
        require_key="api_key_env" in backend,
    )


def _compact(summary: Mapping[str, Any]) -> dict[str, Any]:
    """Per protocol: queries, every metric with its interval, and LLM calls (no timings)."""
    return {
        name: {
            "queries": data["queries"],
            "metrics": data["metrics"],
            "llm_calls": data["cost"]["llm_calls"],
        }
        for name, data in summary["protocols"].items()
    }


def run_cell(params: Mapping[str, Any], directory: str, execution: Mapping[str, Any]) -> dict:
    """Run one cell into ``directory`` and summarise it; return (and write) its ``cell.json``.

    Runs in a worker. ``params`` are the cell's parameters (:class:`Cell`), ``execution`` the
    options that do not change results (concurrency, certify_time_limit, plots, resamples).
    A directory holding part of this cell's run resumes it.

    Raises
    ------
    RobustgraphError
        Whatever the runner raises: ``NotCertified`` when the graph is not proven
        (F+1)-robust, ``ParameterError`` for a roster that does not fit, ``BackendError``.
    """
    out = Path(directory)
    topology = build_topology(params["topology"], params["n"], seed=params["seed"])
    spec = RunSpec(
        topology,
        out,
        roster=params["roster"],
        attack=params["attack"],
        placement=params["placement"],
        adversary_nodes=tuple(params["adversary_nodes"]),
        protocols=tuple(params["protocols"]),
        tasks=params["tasks"],
        rounds=params["rounds"],
        seed=params["seed"],
        F=params["F"],
        backend=backend_spec(params["backend"]),
        concurrency=execution["concurrency"],
        topology_source=f"{params['topology']} n={params['n']}",
        allow_uncertified=params["allow_uncertified"],
        commit_gate=params["commit_gate"],
        reexecutor_model=params["backend"].get("reexecutor_model"),
        corpora=tuple(params.get("corpora", {}).items()),
        certify_time_limit=execution["certify_time_limit"],
        max_chars=params["max_chars"],
        crs=CrSConfig(**params["crs"]),
    )
    result = run(spec)
    summary = write_summary(out, plots=execution["plots"], resamples=execution["resamples"])
    done = {
        "id": out.name,
        "params": dict(params),
        "summary_options": {k: execution[k] for k in ("plots", "resamples")},
        "run_id": result.run_id,
        "queries": result.queries,
        "resumed_queries": result.skipped,
        "certified": result.gate.certified,
        "simulated": bool(summary.run.get("simulated")),
        "protocols": _compact(summary.to_json()),
    }
    (out / CELL_FILE).write_text(json.dumps(done, indent=2) + "\n", encoding="utf-8")
    return done


def _finished(directory: Path, cell: Cell, summary_options: Mapping[str, Any]) -> dict | None:
    """The cell's ``cell.json`` if it finished with these parameters and summary options."""
    try:
        done = json.loads((directory / CELL_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    same = json.loads(json.dumps(dict(cell.params)))
    if not isinstance(done, dict) or done.get("params") != same:
        return None
    return done if done.get("summary_options") == dict(summary_options) else None


def _write_error(directory: Path, outcome: Outcome) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    text = f"{outcome.error}\n\n{outcome.detail or ''}"
    (directory / ERROR_FILE).write_text(text, encoding="utf-8")


def run_sweep(
    spec: SweepSpec,
    directory: str | Path,
    *,
    executor: Executor,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
) -> SweepResult:
    """Run every cell of ``spec`` not yet finished in ``directory``; merge, plot, summarise.

    Parameters
    ----------
    spec : SweepSpec
        From :func:`protocol_runner.sweep.spec.load_spec`.
    directory : str or Path
        The sweep directory (created); on a multi-node Ray cluster it must be on a file system
        every node mounts at the same path.
    executor : Executor
        Runs the cells, one task each.
    progress : bool
        Draw a progress bar over the cells on stderr.
    log : callable, optional
        Receives one line: how many cells there are, finished earlier, and to run.

    Returns
    -------
    SweepResult
        ``exit_code`` 1 when some cell failed.

    Examples
    --------
    >>> import tempfile
    >>> from protocol_runner.sweep.spec import parse_spec
    >>> from robustgraph.executors import LocalExecutor
    >>> spec = parse_spec({"grid": {"topology": "merg", "n": 5, "roster": "4S1A",
    ...     "tasks": "arith:2", "rounds": 1, "seed": [1, 2]}, "protocols": ["majority"],
    ...     "options": {"plots": False, "resamples": 100}})
    >>> result = run_sweep(spec, tempfile.mkdtemp(), executor=LocalExecutor(1), progress=False)
    >>> len(result.ran), result.exit_code
    (2, 0)
    """
    out = Path(directory).resolve()
    cells = spec.cells()
    execution = {
        k: spec.options[k] for k in ("concurrency", "certify_time_limit", "plots", "resamples")
    }
    summary_options = {k: execution[k] for k in ("plots", "resamples")}
    results: dict[str, dict[str, Any]] = {}
    tasks = []
    for cell in cells:
        cell_dir = out / CELLS_DIR / cell.id
        done = _finished(cell_dir, cell, summary_options)
        if done is not None:
            results[cell.id] = done
            continue
        (cell_dir / ERROR_FILE).unlink(missing_ok=True)
        tasks.append(Task(cell.id, run_cell, (dict(cell.params), str(cell_dir), execution)))
    skipped = tuple(results)
    out.mkdir(parents=True, exist_ok=True)
    if log is not None:
        log(
            f"{len(cells)} cells, {len(skipped)} finished earlier, {len(tasks)} to run on the "
            f"{executor.name} executor"
        )

    def record(outcome: Outcome) -> None:
        if not outcome.ok:
            _write_error(out / CELLS_DIR / outcome.key, outcome)

    outcomes = executor.run(tasks, label="sweep", progress=progress, on_outcome=record)
    errors = {o.key: o.error or "" for o in outcomes if not o.ok}
    results.update({o.key: o.value for o in outcomes if o.ok})
    summary = merge(spec, cells, results, errors)
    (out / SUMMARY_JSON).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    (out / SUMMARY_MD).write_text(summary_markdown(summary), encoding="utf-8")
    from protocol_runner.analysis.sweep_plots import (
        write_sweep_report,  # matplotlib: the driver only, not workers
    )

    write_sweep_report(summary, out, resamples=execution["resamples"], plots=execution["plots"])
    status = {
        "executor": executor.name,
        "cells": [
            {
                "id": cell.id,
                "status": "skipped"
                if cell.id in skipped
                else ("failed" if cell.id in errors else "done"),
                "seconds": next((round(o.seconds, 3) for o in outcomes if o.key == cell.id), 0.0),
                "error": errors.get(cell.id),
            }
            for cell in cells
        ],
    }
    (out / STATUS_FILE).write_text(json.dumps(status, indent=2) + "\n", encoding="utf-8")
    ran = tuple(o.key for o in outcomes if o.ok)
    return SweepResult(out, summary, skipped, ran, tuple(errors))


def merge(
    spec: SweepSpec,
    cells: Sequence[Cell],
    results: Mapping[str, Mapping[str, Any]],
    errors: Mapping[str, str],
) -> dict[str, Any]:
    """The sweep's summary: the spec, then every cell in grid order with its metrics or error.

    Depends only on the spec and the cells' records, not on the executor, the order cells
    finished in, or whether a cell was resumed.
    """
    rows = []
    for cell in cells:
        done = results.get(cell.id)
        rows.append(
            {
                "id": cell.id,
                "directory": f"{CELLS_DIR}/{cell.id}",
                "labels": {axis: cell.axis_value(axis) for axis in AXES},
                "params": dict(cell.params),
                "status": "done" if done is not None else "failed",
                "error": None if done is not None else errors.get(cell.id, "not run"),
                "run_id": None if done is None else done["run_id"],
                "queries": None if done is None else done["queries"],
                "certified": None if done is None else done["certified"],
                "simulated": None if done is None else done.get("simulated"),
                "protocols": {} if done is None else done["protocols"],
            }
        )
    failed = sum(row["status"] == "failed" for row in rows)
    return {
        "format": "robustgraph-sweep-summary",
        "schema": 1,
        "name": spec.name,
        "spec": spec.to_json(),
        "varying": spec.varying(),
        "counts": {"cells": len(rows), "done": len(rows) - failed, "failed": failed},
        "simulated": any(row["simulated"] for row in rows),
        "cells": rows,
    }


def _percent(metric: Mapping[str, Any] | None, signed: bool = False) -> str:
    if metric is None:
        return "-"
    value = 100 * metric["value"]
    return f"{value:+.1f}" if signed else f"{value:.1f}"


def summary_markdown(summary: Mapping[str, Any]) -> str:
    """``summary.md``: one row per (cell, protocol) with the varying axes and the main metrics.

    Failed cells get one row with their error. Values in percent; intervals are in
    ``summary.json`` and in each cell's own ``summary.md``.
    """
    axes = summary["varying"] or ["topology", "n"]
    header = [*axes, "protocol", *(name for name, _ in TABLE_METRICS), "queries"]
    banner = [f"**{SIMULATED_SENTENCE}**", ""] if summary.get("simulated") else []
    lines = [
        f"# Sweep{': ' + summary['name'] if summary['name'] else ''}",
        "",
        *banner,
        f"{summary['counts']['cells']} cells: {summary['counts']['done']} done, "
        f"{summary['counts']['failed']} failed. Varying: {', '.join(summary['varying']) or 'none'}."
        " Metrics in percent over each cell's queries (intervals in summary.json).",
        "",
    ]
    rows = []
    for row in summary["cells"]:
        labels = [row["labels"][axis].replace("|", "\\|") for axis in axes]
        if row["status"] == "failed":
            error = (row["error"] or "").replace("|", "\\|")
            blanks = ["-"] * len(TABLE_METRICS)
            rows.append([*labels, "-", *blanks, f"FAILED: {error}"])
            continue
        for protocol, data in row["protocols"].items():
            metrics = data["metrics"]
            cells = [_percent(metrics[key], signed=key == "BFTI") for _, key in TABLE_METRICS]
            rows.append([*labels, protocol, *cells, str(data["queries"])])
    lines += markdown_table(header, rows)
    lines += ["", "## Cells", ""]
    lines += [f"- `{row['directory']}`: {row['status']}" for row in summary["cells"]]
    return "\n".join(lines) + "\n"
