"""The SAC paper's tables, re-run in their own settings; ours beside the published values.

Every table of Lee et al. (2026) with results has a :class:`TableSpec` in :data:`TABLES`, whose
setting (n, roster, F, T, r per topology, benchmarks, question counts) is read from the shipped
published values (:mod:`protocol_runner.analysis.paper_values`), so the runs and the values
they are compared with come from one transcription of the paper:

- ``table1`` (Sec. 5.2, 5.3.1): n = 7, 4 strong, 2 weak, 1 adversary, F = 3, T = 6; gamma-MERG,
  complete and ER, each 4-robust; MATH and Commonsense170k columns. ``table2`` prints the
  per-round weak / strong accuracy of the same runs.
- ``table3`` (Sec. 5.3.2): the same setting on five commonsense benchmarks, their mean;
  ``table9`` (App. D) per benchmark; ``table4`` and ``table10`` their per-round accuracy.
- ``table5`` (Sec. 5.4): n = 7, 4 strong, (adversaries, weak) in {(1, 2), (2, 1), (3, 0)},
  F = 3, T = 6, r = 4.
- ``table6`` (Sec. 5.4): n = 9, 6 strong, 2 weak, 1 adversary, F = 3, T = 6; r = 5 for MERG and
  complete, r = 4 for preferential attachment and ER.

Each (benchmark column, topology, seed) is one resumable run of
:func:`protocol_runner.run.runner.run` in ``OUTPUT/<column>/<topology>/seed-<S>/``; the
topology's directory name is also its display name (the run's ``topology_source``), so
``robustgraph report OUTPUT`` names and summarises the same runs the same way. Our numbers come
from :func:`protocol_runner.analysis.report.write_summary` on each topology directory (one
bootstrap for ``report`` and ``reproduce``); a mean over benchmarks (Tables 3 and 4) is the
same summary of the benchmarks' records pooled per seed.

**Every topology is built before any run** (:func:`plan`). ER graphs follow App. A: G(n, p) at
p = (ln n + (r - 1) ln ln n) / n, drawn per seed until a draw is proven r-robust; App. A samples
at that p and verifies, so we only resample (up to :data:`ER_DRAWS` draws), never raise p, and
fail before the first run when no draw is r-robust.

Task sets: the paper's datasets are not shipped, except the 30 Commonsense170k instances of
App. C Table 8 (the built-in ``commonsense30`` set). A column runs on the task spec the caller
gives (``--tasks COLUMN=SPEC``), by default on a built-in stand-in that the output names as such.

References
----------
Lee et al., "Robust Multi-Agent LLMs under Byzantine Faults", arXiv:2605.09076, 2026: Sec.
5.1-5.4, Tables 1-6, 9, 10, App. A (topologies), App. C (datasets).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from protocol_runner.analysis.collection import write_order
from protocol_runner.analysis.metrics import ProtocolMetrics
from protocol_runner.analysis.provenance import results_profile, results_simulated
from protocol_runner.analysis.report import (
    RESULTS_FILE,
    LoadedResults,
    Summary,
    load_results,
    summarize,
    write_summary,
)
from protocol_runner.analysis.reproduce_specs import (
    COMMONSENSE30,
    GRAPH_LABELS,
    TABLES,
    Column,
    TableSpec,
)
from protocol_runner.run.occupancy import claim
from protocol_runner.run.runner import BackendSpec, RunSpec, run
from protocol_runner.run.runner import plan as plan_run
from protocol_runner.run.topology_spec import build_topology
from protocol_runner.sim.graphs import ER_DRAWS, er_probability, er_robust
from protocol_runner.tasks.spec import FORMATS, load_tasks
from robustgraph.errors import ParameterError
from robustgraph.topology import Topology

__all__ = [
    "COMMONSENSE30",
    "ER_DRAWS",
    "GRAPH_LABELS",
    "PROTOCOLS",
    "TABLES",
    "Cell",
    "Column",
    "ReproResult",
    "TableSpec",
    "er_probability",
    "plan",
    "reproduce",
    "column_backend",
    "column_tasks",
    "resolve_tasks",
]


PROTOCOLS = ("cpwbft", "sac")
"""The paper's methods, in its row order."""


def _built_in(task_spec: str) -> bool:
    """Whether a task spec names a built-in set (no file): arithmetic, ``commonsense30`` or a
    placeholder set."""
    head = task_spec.split(":")[0]
    return head in ("arith", COMMONSENSE30) or head.startswith("placeholder-")


def column_tasks(column: Column, text: str) -> str:
    """The task spec of ``--tasks COLUMN=TEXT``: a spec as given, or a bare file or folder read
    in the benchmark's own local format (``column.format``: ``arc``, ``hellaswag``, ``boolq``,
    ``openbookqa``, ``rte``, ``math``; docs/tasks.md), its first ``column.questions`` problems
    (the paper's count). A bare path is one that exists and does not start with a format.

    >>> from protocol_runner.analysis.reproduce_specs import TABLES
    >>> column_tasks(TABLES["table9"].columns[0], "arc:data/arc/test.jsonl:10")
    'arc:data/arc/test.jsonl:10'
    """
    if not Path(text).exists() or text.split(":")[0] in FORMATS or _built_in(text):
        return text
    return f"{column.format}:{text}:{column.questions}"


def resolve_tasks(spec: TableSpec, given: Sequence[str] = ()) -> dict[str, tuple[str, bool]]:
    """Each column's task spec and whether it is a built-in set (no file of yours).

    ``given`` holds ``KEY=SPEC`` (one column; a bare PATH is read in the benchmark's format,
    :func:`column_tasks`) or ``SPEC`` (every column) entries, later ones winning.

    Raises
    ------
    ParameterError
        For a key that is not one of the table's columns.
    """
    columns = {c.key: c for c in spec.columns}
    keys = list(columns)
    out = {c.key: (c.stand_in, True) for c in spec.columns}
    for entry in given:
        key, sep, task_spec = entry.partition("=")
        if sep and key in keys:
            task_spec = column_tasks(columns[key], task_spec)
            out[key] = (task_spec, _built_in(task_spec))
        elif sep and ":" not in key and "/" not in key:
            raise ParameterError(f"--tasks {entry!r}: {spec.name} has no column {key!r}; "
                                 f"its columns: {', '.join(keys)}")
        else:
            out = {k: (entry, _built_in(entry)) for k in keys}
    return out


def column_backend(backend: BackendSpec, column: Column) -> BackendSpec:
    """The backend of ``column``'s runs: on the simulated agents without ``--sim-config``, the
    column's own profile (:attr:`Column.profile`: fitted to its benchmark where one was);
    otherwise ``backend`` as given."""
    if backend.kind != "simulated" or backend.sim_config is not None:
        return backend
    return replace(backend, sim_config=column.profile)


@dataclass(frozen=True)
class Cell:
    """One run of a table: column, topology (key, r, graph), seed, directory, how it was drawn."""

    column: Column
    graph: str
    r: int
    seed: int
    topology: Topology
    directory: Path
    draws: int = 0


def _build(graph: str, n: int, r: int, seed: int) -> tuple[Topology, int]:
    if graph == "er":
        return er_robust(n, r, seed, ER_DRAWS)
    spec = "merg" if graph == "merg" else "complete" if graph == "complete" else f"pa:r={r}"
    return build_topology(spec, n, seed=seed), 0


def plan(spec: TableSpec, output: Path, seeds: Sequence[int]) -> list[Cell]:
    """Every run of ``spec``, its topology built (and for ER, drawn and proven r-robust) first.

    Raises
    ------
    ParameterError
        No seed, or an ER cell with no r-robust draw (before any run starts).
    """
    if not seeds:
        raise ParameterError("reproduce needs at least one seed")
    cells = []
    for column in spec.columns:
        for graph, r in spec.graphs:
            for seed in seeds:
                topology, draws = _build(graph, spec.n, r, seed)
                directory = Path(output) / column.key / GRAPH_LABELS[graph] / f"seed-{seed}"
                cells.append(Cell(column, graph, r, seed, topology, directory, draws))
    return cells


@dataclass(frozen=True)
class ReproResult:
    """Our numbers for a table: per (view column, topology) each protocol's metrics.

    ``simulated`` is true when any run's agents were simulated, in-process or behind an
    OpenAI-style endpoint that declared itself simulated (``serve-sim``).
    """

    spec: TableSpec
    output: Path
    seeds: tuple[int, ...]
    backend: str
    models: Mapping[str, str]
    tasks: Mapping[str, tuple[str, bool]]
    metrics: Mapping[tuple[str, str], Mapping[str, ProtocolMetrics]]
    er_draws: Mapping[int, int]
    resamples: int
    simulated: bool = True
    profiles: tuple[str, ...] = ()  # the simulator profiles of the runs (docs/simulation.md)
    column_profiles: Mapping[str, str] = field(default_factory=dict)
    """Per run column, the ``--sim-config`` its runs used (a profile name or a file); empty
    off the simulated backend."""
    ties: str = "first"
    """RA and H-Majority's tie rule: ``first`` (the authors': first occurrence in agent order,
    ``RA_first``) or ``wrong`` (a tie counts as wrong, ``RA``;
    :mod:`protocol_runner.analysis.metrics`)."""

    @property
    def view_columns(self) -> tuple[str, ...]:
        """The benchmark keys of the printed columns (``mean5`` for a pooled table)."""
        if self.spec.pooled:
            return ("mean5",)
        return tuple(c.key for c in self.spec.columns)


def _profiles_by_column(cells: Sequence[Cell]) -> tuple[str, ...]:
    """The simulator profiles the runs used (docs/simulation.md): one entry when every column
    ran the same profile, else one ``"COLUMN: profile"`` entry per column."""
    by_column = {c.column.label: p for c in cells if (p := results_profile(c.directory))}
    if len(set(by_column.values())) <= 1:
        return tuple(set(by_column.values()))
    return tuple(f"{label}: {profile}" for label, profile in by_column.items())


def _pooled(summaries: Sequence[tuple[str, Path]], resamples: int) -> Summary:
    """The summary of several benchmarks' records pooled per seed (query ids made distinct)."""
    records, config = [], None
    for key, directory in summaries:
        loaded = load_results(directory)
        config = config or loaded.config
        records += [replace(r, query_id=f"{key}/{r.query_id}") for r in loaded.records]
    records.sort(key=lambda r: r.seed)
    path = Path(summaries[0][1]) / RESULTS_FILE  # its directory: where sessions would be
    return summarize(LoadedResults(path, tuple(records), (), config), resamples=resamples)


def _claim_directories(cells: Sequence[Cell], run_specs: Sequence[RunSpec]) -> None:
    """One run per results directory (:func:`protocol_runner.run.occupancy.claim`), checked for
    every topology directory before the first run: ``OUTPUT/<column>/<topology>/`` may hold only
    the seeds this command runs, each with the same run id, so a summary never pools the seeds
    of an earlier command with other settings (``--seeds 1`` after ``--seeds 1-3``).

    Raises
    ------
    ParameterError
        (exit 2) A directory holds the results of another run, or of a seed not run now.
    """
    by_directory: dict[Path, dict[Path, tuple[str, Mapping[str, object]]]] = {}
    for cell, run_spec in zip(cells, run_specs, strict=True):
        planned = plan_run(run_spec)
        by_directory.setdefault(cell.directory.parent, {})[cell.directory] = (
            planned.run_id, planned.identity)
    for directory, planned_runs in by_directory.items():
        claim(directory, planned_runs)


def reproduce(
    spec: TableSpec,
    output: Path,
    *,
    seeds: Sequence[int],
    tasks: Sequence[str] = (),
    backend: BackendSpec | None = None,
    ood_tasks: str | None = None,
    resamples: int = 2000,
    ties: str = "first",
    log: Callable[[str], None] | None = None,
) -> ReproResult:
    """Run every cell of ``spec`` (resuming finished ones) and summarise them.

    Parameters
    ----------
    spec : TableSpec
        A table of :data:`TABLES`.
    output : Path
        ``OUTPUT/<column>/<topology>/seed-<S>/`` per run; shared by tables of the same runs.
    seeds : sequence of int
        One run per seed and cell; intervals resample seeds, then queries.
    tasks : sequence of str
        ``KEY=SPEC`` or ``SPEC`` (:func:`resolve_tasks`); default the built-in stand-ins.
    backend : BackendSpec, optional
        Default: the simulated agents.
    ood_tasks : str, optional
        The ``fixed`` attack's out-of-distribution pool (App. B.4); default the run's own.
    resamples : int
        Bootstrap resamples (the same as ``robustgraph report --resamples``).
    ties : str
        RA and H-Majority's tie rule (:attr:`ReproResult.ties`).
    log : callable, optional
        Receives one progress line per run (stderr in the CLI).

    Raises
    ------
    ParameterError
        Bad seeds, a column's unreadable tasks, an impossible ER cell or a directory holding
        another run's results (all before any run), or any run's error.
    """
    backend = backend or BackendSpec()
    resolved = resolve_tasks(spec, tasks)
    for task_spec, _ in resolved.values():  # every column's tasks readable before any run
        load_tasks(task_spec)
    cells = plan(spec, output, seeds)
    er_draws = {c.seed: c.draws for c in cells if c.graph == "er"}
    extra = {"ood_tasks": ood_tasks} if ood_tasks else {}
    run_specs = [RunSpec(
        cell.topology, cell.directory, roster=cell.column.roster, attack="fixed",
        protocols=PROTOCOLS, tasks=resolved[cell.column.key][0], rounds=spec.T,
        seed=cell.seed, F=spec.F, backend=column_backend(backend, cell.column),
        topology_source=GRAPH_LABELS[cell.graph], **extra,
    ) for cell in cells]
    _claim_directories(cells, run_specs)
    for i, (cell, run_spec) in enumerate(zip(cells, run_specs, strict=True), start=1):
        if log is not None:
            log(f"{spec.name}: {cell.column.label} / {GRAPH_LABELS[cell.graph]} "
                f"(r={cell.r}), seed {cell.seed} ({i} of {len(cells)})")
        run(run_spec)
    metrics: dict[tuple[str, str], Mapping[str, ProtocolMetrics]] = {}
    for column in spec.columns:
        write_order(Path(output) / column.key, [GRAPH_LABELS[g] for g, _ in spec.graphs])
    for graph, _ in spec.graphs:
        dirs = [(c.key, Path(output) / c.key / GRAPH_LABELS[graph]) for c in spec.columns]
        if spec.pooled:
            metrics[("mean5", graph)] = _pooled(dirs, resamples).protocols
            continue
        for key, directory in dirs:
            metrics[(key, graph)] = write_summary(directory, plots=False,
                                                  resamples=resamples).protocols
    simulated = any(results_simulated(cell.directory) for cell in cells)  # serve-sim too
    profiles = _profiles_by_column(cells)
    used = {c.key: column_backend(backend, c).sim_config or "" for c in spec.columns}
    return ReproResult(spec, Path(output), tuple(seeds), backend.kind, backend.models(),
                       resolved, metrics, er_draws, resamples, simulated, profiles,
                       used if backend.kind == "simulated" else {}, ties)
