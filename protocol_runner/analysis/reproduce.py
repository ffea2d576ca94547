"""The SAC paper's tables, re-run: each cell's setting, our numbers with CIs, the paper's beside.

A table (:data:`TABLES`) fixes what the paper's table fixes: the roster, F, the rounds T, the
attack, the protocols and the topologies (each with its node count). :func:`reproduce` runs
every (topology, seed) of a table with :func:`protocol_runner.run.runner.run` on the backend
and task set the caller gives (default: the simulated agents and the built-in arithmetic
tasks), pools the seeds of each topology with the two-level bootstrap of
:mod:`protocol_runner.analysis.metrics`, and :func:`table_text` prints, cell by cell, our value
with its 95% interval beside the paper's value.

The paper's published cell values are not in this repository, and we could not find them in
the authors' public code (which computes the tables from result files it does not ship): every
paper cell is ``n/a`` unless the caller supplies them (:func:`load_paper_values`, a JSON file
``{"<protocol>/<topology>": {"<metric>": value in percent}}``). No value is ever made up.

The settings, and where each comes from (docs/protocols.md, "Reproducing the paper's tables"):

- ``table1``: the SAC authors' README and ``scripts/run_math500.sh``: 7 agents, 1 Byzantine, 2
  weak honest (roster 4S2W1A), F = 3, T = 6, the ``fixed`` attack; SAC and CP-WBFT; plus the
  judge-only control (CrS review). Topologies: gamma-MERG, complete, ER and preferential
  attachment (the ER and PA graphs drawn until proven (F+1)-robust, as SAC needs).
- ``table3``: ``tools/make_tables_commonsense_qwen.py``: the same setting on the commonsense
  benchmarks (give ``--tasks arc:PATH`` etc.; the built-in arithmetic is only a stand-in).
- ``table5``: the same protocols on 9 agents (roster 6S2W1A, F = 4: gamma-MERG on 9 nodes is
  5-robust); our reading of the paper's n = 9 setting, whose exact roster we could not check.
- ``table6``: the README's closed-model setting: 7 agents of one strong model, 3 Byzantine, no
  weak agent (roster 4S3A), F = 3, T = 6, on gamma-MERG.

References
----------
Lee et al., "Robust Multi-Agent LLMs under Byzantine Faults", arXiv:2605.09076, 2026: Tables 1,
3, 5 and 6 and Sec. 5.1 (metrics).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from protocol_runner.analysis.collection import write_order
from protocol_runner.analysis.metrics import (
    PAPER_METRICS,
    Estimate,
    ProtocolMetrics,
    compute_metrics,
)
from protocol_runner.analysis.provenance import SIMULATED_BANNER, results_simulated
from protocol_runner.run.records import read_records
from protocol_runner.run.runner import RESULTS_FILE, BackendSpec, RunSpec, run
from protocol_runner.run.topology_spec import build_topology
from robustgraph.errors import ParameterError

__all__ = [
    "TABLES",
    "Cell",
    "TableResult",
    "TableSpec",
    "load_paper_values",
    "reproduce",
    "table_json",
    "table_text",
]


@dataclass(frozen=True)
class Cell:
    """One topology column of a table: its label, generator spec and node count."""

    label: str
    topology: str
    n: int


@dataclass(frozen=True)
class TableSpec:
    """The setting of one of the paper's tables (see the module docstring for the sources)."""

    name: str
    title: str
    roster: str
    F: int
    rounds: int
    attack: str
    protocols: tuple[str, ...]
    cells: tuple[Cell, ...]
    source: str


def _four(n: int, r: int) -> tuple[Cell, ...]:
    return (
        Cell("gamma-MERG", "merg", n),
        Cell("complete", "complete", n),
        Cell("ER", f"er:r={r}", n),
        Cell("PA", f"pa:r={r}", n),
    )


_PROTOCOLS = ("sac", "cpwbft", "judge")
TABLES: dict[str, TableSpec] = {
    "table1": TableSpec(
        "table1", "Table 1: SAC vs CP-WBFT, 7 agents (4 strong, 2 weak, 1 Byzantine)",
        "4S2W1A", 3, 6, "fixed", _PROTOCOLS, _four(7, 4),
        "SAC authors' README and scripts/run_math500.sh (MATH-500 in the paper)",
    ),
    "table3": TableSpec(
        "table3", "Table 3: the Table 1 setting on a commonsense benchmark",
        "4S2W1A", 3, 6, "fixed", _PROTOCOLS, _four(7, 4),
        "tools/make_tables_commonsense_qwen.py (give the benchmark with --tasks)",
    ),
    "table5": TableSpec(
        "table5", "Table 5: 9 agents (6 strong, 2 weak, 1 Byzantine), F = 4",
        "6S2W1A", 4, 6, "fixed", _PROTOCOLS, _four(9, 5),
        "our reading of the paper's n = 9 setting (roster not checked against the paper)",
    ),
    "table6": TableSpec(
        "table6", "Table 6: closed-model setting, 7 agents of one model, 3 Byzantine",
        "4S3A", 3, 6, "fixed", _PROTOCOLS, (Cell("gamma-MERG", "merg", 7),),
        "SAC authors' README, 'Closed-model setting' (HMMT in the paper)",
    ),
}
"""The tables :func:`reproduce` knows, by name."""


@dataclass(frozen=True)
class TableResult:
    """Our metrics per topology (seeds pooled), with the settings and the paper's values."""

    spec: TableSpec
    tasks: str
    seeds: tuple[int, ...]
    backend: str
    models: Mapping[str, str]
    metrics: Mapping[str, Mapping[str, ProtocolMetrics]]
    paper: Mapping[str, Mapping[str, float]]
    simulated: bool = False


def load_paper_values(path: str | Path) -> dict[str, dict[str, float]]:
    """Read published cell values: ``{"<protocol>/<topology label>": {"<metric>": percent}}``.

    Raises
    ------
    ParameterError
        For an unreadable file or values that are not numbers.
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:
        raise ParameterError(f"{path}: cannot read the paper's values: {exc}") from None
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise ParameterError(f"{path}: expected {{'protocol/topology': {{metric: percent}}}}")
    out: dict[str, dict[str, float]] = {}
    for cell, values in data.items():
        for metric, value in values.items():
            if metric not in PAPER_METRICS or isinstance(value, bool) or not isinstance(
                value, int | float
            ):
                raise ParameterError(f"{path}: {cell}: {metric!r} must be one of "
                                     f"{', '.join(PAPER_METRICS)} with a number")
            out.setdefault(cell, {})[metric] = float(value)
    return out


def reproduce(
    spec: TableSpec,
    output: Path,
    *,
    seeds: Sequence[int],
    tasks: str = "arith:50",
    backend: BackendSpec | None = None,
    paper: Mapping[str, Mapping[str, float]] | None = None,
    resamples: int = 2000,
    log: Callable[[str], None] | None = None,
) -> TableResult:
    """Run every (topology, seed) of ``spec`` into ``output/<label>/seed-<s>/`` and pool seeds.

    Each run is resumable (the runner's own resume: the same command skips finished queries).
    Every graph is certified for F before its run (the runner's gate; a random graph is drawn
    until proven (F+1)-robust).

    Raises
    ------
    ParameterError
        No seed, or any error of :func:`~protocol_runner.run.runner.run`.
    """
    if not seeds:
        raise ParameterError("reproduce needs at least one seed")
    backend = backend or BackendSpec()
    if spec.name == "table6":  # one model for every agent
        strong = backend.models()["strong"]
        backend = replace(backend, weak_model=strong)
    write_order(output, [cell.label for cell in spec.cells])  # `report DIR` keeps the order
    metrics: dict[str, dict[str, ProtocolMetrics]] = {}
    simulated = False
    for cell in spec.cells:
        records = []
        for seed in seeds:
            directory = Path(output) / cell.label / f"seed-{seed}"
            if log is not None:
                log(f"{spec.name}: {cell.label} (n = {cell.n}), seed {seed}")
            topology = build_topology(cell.topology, cell.n, seed=seed)
            run(RunSpec(
                topology, directory, roster=spec.roster, attack=spec.attack,
                protocols=spec.protocols, tasks=tasks, rounds=spec.rounds, seed=seed, F=spec.F,
                backend=backend, topology_source=f"{cell.topology} n={cell.n}",
            ))
            records.extend(read_records(directory / RESULTS_FILE))
            simulated = simulated or results_simulated(directory)
        metrics[cell.label] = compute_metrics(records, resamples=resamples, order=spec.protocols)
    return TableResult(spec, tasks, tuple(seeds), backend.kind, backend.models(), metrics,
                       dict(paper or {}), simulated)


def _ours(estimate: Estimate | None, metric: str) -> str:
    if estimate is None:
        return "n/a"
    sign = "+" if metric == "BFTI" else ""
    return (f"{100 * estimate.value:{sign}.1f} "
            f"[{100 * estimate.low:{sign}.1f}, {100 * estimate.high:{sign}.1f}]")


def _paper(values: Mapping[str, float] | None, metric: str) -> str:
    if not values or metric not in values:
        return "n/a"
    return f"{values[metric]:+.1f}" if metric == "BFTI" else f"{values[metric]:.1f}"


def table_text(result: TableResult) -> str:
    """The table as Markdown: per protocol and topology, ours [95% CI] | paper, per metric.

    Percent throughout; the heading names the backend, the models, the task set, the seeds
    and the query count, and on the simulated backend says the agents are simulated.
    """
    spec = result.spec
    first = next(iter(next(iter(result.metrics.values())).values()))
    per_seed = first.queries_per_seed[0] if first.queries_per_seed else 0
    models = ", ".join(f"{role} {name}" for role, name in result.models.items())
    lines = [f"## {spec.title}", ""]
    if result.simulated:
        lines += [f"**{SIMULATED_BANNER}**", ""]
    lines += [
        f"Backend {result.backend} ({models}); tasks {result.tasks}; roster {spec.roster}, "
        f"F = {spec.F}, T = {spec.rounds}, attack {spec.attack}; "
        f"{len(result.seeds)} seeds ({', '.join(map(str, result.seeds))}) x {per_seed} queries "
        "per cell; ours = mean over seeds [95% two-level bootstrap CI], percent; "
        f"paper = the published value (n/a: not available). Setting: {spec.source}.",
        "",
    ]
    header = ["protocol", "topology", *(f"{m}: ours / paper" for m in PAPER_METRICS)]
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for protocol in spec.protocols:
        for cell in spec.cells:
            found = result.metrics[cell.label].get(protocol)
            if found is None:
                continue
            paper = result.paper.get(f"{protocol}/{cell.label}")
            cells = [
                f"{_ours(found.estimates[m], m)} / {_paper(paper, m)}" for m in PAPER_METRICS
            ]
            lines.append("| " + " | ".join([protocol, cell.label, *cells]) + " |")
    return "\n".join(lines) + "\n"


def table_json(result: TableResult) -> dict[str, Any]:
    """The table as JSON: the setting, and per cell our metrics (``to_json``) and the paper's."""
    spec = result.spec
    return {
        "table": spec.name,
        "title": spec.title,
        "simulated": result.simulated,
        "backend": result.backend,
        "models": dict(result.models),
        "tasks": result.tasks,
        "roster": spec.roster,
        "F": spec.F,
        "rounds": spec.rounds,
        "attack": spec.attack,
        "seeds": list(result.seeds),
        "source": spec.source,
        "cells": [
            {
                "protocol": protocol,
                "topology": cell.label,
                "n": cell.n,
                "ours": result.metrics[cell.label][protocol].to_json(),
                "paper": result.paper.get(f"{protocol}/{cell.label}"),
            }
            for protocol in spec.protocols
            for cell in spec.cells
            if protocol in result.metrics[cell.label]
        ],
    }
