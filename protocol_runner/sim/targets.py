"""What a fit matches: settings to simulate and per-round weak/strong accuracies to match.

A :class:`Setting` is one run's configuration (topology, roster, F, rounds, task set, the
protocols); a :class:`Target` is one published or measured per-round group accuracy of one
protocol in one setting, with the number of questions behind it. :func:`round_curves` reads the
per-round accuracy of each group from a run's records (the ``round/<group>/<r>`` values of
:func:`protocol_runner.analysis.metrics.query_values`, Sec. 5.1 of the SAC paper: the average
per-agent accuracy of the weak and strong honest groups at each round), and
:func:`targets_from_runs` turns a user's own run directories into settings and targets.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from protocol_runner.analysis.metrics import query_values
from protocol_runner.run.records import QueryRecord, read_records
from robustgraph.errors import ParameterError

__all__ = [
    "GROUPS",
    "TOPOLOGY_SPECS",
    "Setting",
    "Target",
    "paper_targets",
    "round_curves",
    "stand_in_tasks",
    "targets_from_runs",
]

GROUPS = ("weak", "strong")


@dataclass(frozen=True)
class Setting:
    """One run configuration a fit simulates.

    ``topology`` is a generator spec (``merg``, ``complete``, ``er:r=4``, ...) on ``n`` nodes, or
    a graph file path when ``graph_file`` is set; ``roster`` a counts spec (``4S2W1A``) or a
    roster file; ``tasks`` a task set spec (docs/tasks.md); ``graph_seed`` the seed a random
    family is drawn with (fixed, so every evaluation of a fit sees the same graph).
    """

    name: str
    topology: str
    n: int
    roster: str = "4S2W1A"
    F: int = 3  # noqa: N815 - the paper's F
    rounds: int = 6
    tasks: str = "arith:100"
    protocols: tuple[str, ...] = ("sac", "cpwbft")
    graph_seed: int = 1
    graph_file: bool = False


@dataclass(frozen=True)
class Target:
    """A per-round group accuracy to match: the mean over ``rounds`` of ``group``'s accuracy
    under ``protocol`` in setting ``setting`` (a fraction), measured on ``questions`` queries.

    The SAC paper prints CP-WBFT's rounds 1-6 as one row (Table 2, Table 10): a target with
    ``rounds = (1, ..., 6)`` is matched against the mean of those rounds.
    """

    setting: str
    protocol: str
    group: str
    rounds: tuple[int, ...]
    value: float
    questions: int

    @property
    def key(self) -> str:
        """``setting/protocol/group/r1-r2``: the target's name in fit reports."""
        first, last = self.rounds[0], self.rounds[-1]
        span = f"{first}" if first == last else f"{first}-{last}"
        return f"{self.setting}/{self.protocol}/{self.group}/{span}"


def round_curves(records: Iterable[QueryRecord]) -> dict[tuple[str, str], list[float | None]]:
    """Per protocol and group (weak, strong): the accuracy at each round, averaged over queries.

    Examples
    --------
    >>> from protocol_runner.analysis.metrics import Turn
    >>> r0 = (Turn(0, "a", "strong", "4", True), Turn(1, "b", "weak", "9", False))
    >>> r1 = (Turn(0, "a", "strong", "4", True), Turn(1, "b", "weak", "4", True))
    >>> rec = QueryRecord("sac/q", "run", "sac", "q", 0, "math", "4", 1, 1, {}, (r0, r1), r1)
    >>> round_curves([rec])[("sac", "weak")]
    [0.0, 1.0]
    """
    sums: dict[tuple[str, str], list[list[float]]] = {}
    for record in records:
        values = query_values(record)
        for group in GROUPS:
            row = sums.setdefault((record.protocol, group), [])
            for r in range(len(record.rounds)):
                value = values.get(f"round/{group}/{r}")
                if r >= len(row):
                    row.append([0.0, 0.0])
                if value is not None:
                    row[r][0] += value
                    row[r][1] += 1
    return {key: [s / c if c else None for s, c in row] for key, row in sums.items()}


TOPOLOGY_SPECS = {"merg": "merg", "complete": "complete", "er": "er:r={r}", "pa": "pa:r={r}"}
"""The generator spec of each of the paper's topology keys (App. A) at robustness ``r``."""

_KINDS = {"math": "math", "choice": "choice", "yesno": "bool"}


def stand_in_tasks(kind: str, questions: int, benchmark: str | None = None) -> str:
    """The built-in task set that stands in for a paper benchmark of answer ``kind``.

    MATH: the built-in arithmetic set (answer kind ``math``); the fitted accuracies absorb the
    difference in difficulty, the distractors differ (docs/simulation.md). Table 9/10's five
    open-weight benchmarks: their synthetic placeholder sets
    (:mod:`protocol_runner.tasks.placeholders`: the benchmark's answer kind and option count,
    no benchmark text), cut to ``questions``.

    Raises
    ------
    ParameterError
        For a kind without a built-in stand-in (give a task file of that kind).
    """
    from protocol_runner.tasks.placeholders import PLACEHOLDERS, placeholder_spec

    if kind == "math":
        return f"arith:{questions}"
    if benchmark is not None and placeholder_spec(benchmark) in PLACEHOLDERS:
        return f"{placeholder_spec(benchmark)}:{questions}"
    raise ParameterError(f"no built-in task set stands in for {kind!r} questions; give --tasks")


def paper_targets(
    table: str, benchmark: str, *, tasks: str | None = None,
    topologies: Sequence[str] | None = None,
) -> tuple[list[Setting], list[Target], str]:
    """Settings, per-round W/S targets and the task kind of one benchmark of a per-round table.

    Read through :func:`protocol_runner.analysis.paper_values.paper_tables` (the one copy of
    the published values). ``table`` is ``table2`` or ``table10``; each topology of the table
    is a setting named by its key (``merg``, ``complete``, ``er``), on ``tasks`` (default:
    :func:`stand_in_tasks`) with the paper's question count; each row's W and S a target.
    ``topologies`` keeps only those (leave-one-topology-out).

    Raises
    ------
    ParameterError
        An unknown table or benchmark, or a table that is not per-round.
    """
    from protocol_runner.analysis.paper_values import paper_tables, round_span

    found = paper_tables().get(table)
    if found is None or found.kind != "rounds":
        raise ParameterError(f"{table!r} is not one of the paper's per-round tables")
    bench = found.benchmarks.get(benchmark)
    if bench is None:
        raise ParameterError(
            f"{table} has no benchmark {benchmark!r}: {', '.join(found.benchmarks)}")
    kind = _KINDS[bench.kind]
    s = found.setting
    roster = f"{s['strong']}S{s['weak']}W{s['adversarial']}A"
    task_spec = tasks or stand_in_tasks(kind, bench.questions, benchmark)
    keys = [k for k in s["r"] if topologies is None or k in topologies]
    settings = [
        Setting(k, TOPOLOGY_SPECS[k].format(r=s["r"][k]), int(s["n"]), roster=roster,
                F=int(s["F"]), rounds=int(s["T"]), tasks=task_spec)
        for k in keys
    ]
    targets = []
    for row in found.rows:
        if row["benchmark"] != benchmark or row["topology"] not in keys:
            continue
        first, last = round_span(row["round"])
        for group, column in (("weak", "W"), ("strong", "S")):
            targets.append(Target(row["topology"], row["method"], group,
                                  tuple(range(first, last + 1)), row[column] / 100.0,
                                  bench.questions))
    return settings, targets, kind


def _run_config(directory: Path) -> Mapping[str, object]:
    path = directory / "config.json"
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
        return config["run"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ParameterError(f"{directory}: not a run directory (config.json: {exc})") from None


def targets_from_runs(
    directories: Sequence[str | Path], workdir: Path
) -> tuple[list[Setting], list[Target], str]:
    """Settings, per-round targets and the task kind of run directories (``run -o DIR``).

    Each directory becomes one setting: its graph (``topology.json``), its roster (written to
    ``workdir`` as a roster file with each agent's node and role), F, rounds, task set spec and
    protocols; each (protocol, group, round) of its records one target. CP-WBFT's rounds after
    the first are pooled as in the paper. A directory with ``seed-S`` subdirectories is read as
    its seeds' runs, each a setting.

    Raises
    ------
    ParameterError
        A directory without a run's config or results, or with no SAC / CP-WBFT queries; runs
        on more than one task kind (the fitted accuracies are per kind).
    """
    settings: list[Setting] = []
    targets: list[Target] = []
    kinds: set[str] = set()
    runs: list[Path] = []
    for given in map(Path, directories):
        seeds = sorted(p for p in given.glob("seed-*") if (p / "config.json").is_file())
        runs.extend(seeds or [given])
    for index, directory in enumerate(runs):
        run = _run_config(directory)
        results = directory / "results.jsonl"
        if not results.is_file():
            raise ParameterError(f"{directory}: no results.jsonl")
        records = read_records(results)
        kinds.update(record.task_kind for record in records)
        name = f"run{index}"
        roster = run.get("roster")
        agents = roster.get("agents") if isinstance(roster, dict) else None
        if not agents:
            raise ParameterError(f"{directory}: config.json has no roster")
        roster_file = workdir / f"{name}.roster.json"
        listed = [{"node": a["node"], "role": a["role"]}
                  | ({"attack": a["attack"]} if a.get("attack") else {}) for a in agents]
        roster_file.write_text(json.dumps({"agents": listed}), encoding="utf-8")
        protocols = tuple(p for p in run.get("protocols", ()) if p in ("sac", "cpwbft"))
        if not protocols:
            raise ParameterError(f"{directory}: the run has neither SAC nor CP-WBFT queries")
        setting = Setting(
            name, str(directory / "topology.json"), int(run["topology"]["n"]),
            roster=str(roster_file), F=int(run["F"]), rounds=int(run["rounds"]),
            tasks=str(run["tasks"]["spec"]), protocols=protocols, graph_seed=int(run["seed"]),
            graph_file=True,
        )
        settings.append(setting)
        counts: dict[str, int] = {}
        for record in records:
            counts[record.protocol] = counts.get(record.protocol, 0) + 1
        for (protocol, group), curve in round_curves(records).items():
            if protocol not in protocols:
                continue
            spans = [(r,) for r in range(len(curve))]
            if protocol == "cpwbft" and len(curve) > 2:
                spans = [(0,), tuple(range(1, len(curve)))]
            for span in spans:
                values = [curve[r] for r in span]
                if any(v is None for v in values):
                    continue
                mean = sum(values) / len(values)  # type: ignore[arg-type]
                targets.append(Target(name, protocol, group, span, mean, counts[protocol]))
    if len(kinds) != 1:
        raise ParameterError(f"the runs' tasks are of kinds {sorted(kinds)}; calibrate one kind "
                             "at a time")
    return settings, targets, kinds.pop()
