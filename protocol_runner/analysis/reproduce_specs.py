"""The settings of the SAC paper's tables that ``robustgraph reproduce`` re-runs: one
:class:`TableSpec` per table in :data:`TABLES`, read from the shipped published values
(:mod:`protocol_runner.analysis.paper_values`).

A module of its own, importing no runner, so that ``robustgraph reproduce --help`` (which lists
every table's setting) starts without numpy or aiohttp (issue 33); the runs themselves are
:mod:`protocol_runner.analysis.reproduce`.

References
----------
Lee et al., "Robust Multi-Agent LLMs under Byzantine Faults", arXiv:2605.09076, 2026: Sec.
5.1-5.4, Tables 1-6, 9, 10, App. C (datasets).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from protocol_runner.analysis.paper_values import PaperBenchmark, PaperTable, paper_tables

__all__ = ["COMMONSENSE30", "GRAPH_LABELS", "TABLES", "Column", "TableSpec"]

GRAPH_LABELS = {"merg": "MERG", "complete": "Complete", "er": "ER", "pa": "PA"}
"""Display (and directory) name of each topology key of the paper's tables."""

COMMONSENSE30 = "commonsense30"
"""The built-in task set of App. C Table 8's 30 Commonsense170k instances."""

_ARITH_STAND_IN = "arith:20"
_ANSWER_KINDS = {"math": "math", "choice": "choice", "yesno": "bool"}
"""The paper's answer kind -> the task kind of :mod:`protocol_runner.tasks` (yes/no: bool)."""
_FORMATS = {"math": "math", "math30": "math", "arc_challenge": "arc", "hellaswag": "hellaswag",
            "boolq": "boolq", "openbookqa": "openbookqa", "rte": "rte", "commonsense": "jsonl"}
"""The local format a bare ``--tasks BENCHMARK=PATH`` is read in (docs/tasks.md): the
benchmark's public release format; Commonsense170k has none of its own, so robustgraph's JSONL."""
_MATH_PROFILE = "table2-math"
"""The simulator profile of the MATH columns: fitted to Table 2 (docs/simulation.md)."""
_BENCHMARK_LABELS = {
    "math": "MATH", "commonsense": "Commonsense",
    "arc_challenge": "ARC-C", "hellaswag": "HellaSwag", "boolq": "BoolQ",
    "openbookqa": "OBQA", "rte": "RTE", "math30": "MATH",
}


@dataclass(frozen=True)
class Column:
    """One run column of a table: a benchmark (or Table 5's composition) with its roster.

    ``key`` names the output subdirectory and the ``--tasks KEY=SPEC`` option; ``paper`` the
    columns selecting its published rows (``{"benchmark": ..., "composition": ...}``);
    ``dataset``/``questions`` what the paper ran; ``stand_in`` the built-in default task spec.
    """

    key: str
    label: str
    roster: str
    paper: Mapping[str, str]
    dataset: str
    questions: int
    models: Mapping[str, str]
    stand_in: str
    kind: str = "math"
    format: str = "jsonl"
    profile: str = "handset"

    def data_text(self) -> str:
        """The column's default data, kind, size and profile on one line (``--help``)."""
        return (f"{self.label}: {self.stand_in} ({self.kind}, {_size(self.stand_in)} q.; "
                f"paper {self.questions} q.), profile {self.profile}")


@dataclass(frozen=True)
class TableSpec:
    """One table of the paper: which runs, which published values, and how to print them.

    ``runs`` names the table whose runs it reads (Table 2 reads Table 1's); ``view`` is
    ``metrics`` (a row per method x topology) or ``rounds`` (per-round W / S); ``pooled``
    prints one column, the mean over the run columns (Tables 3 and 4).
    """

    name: str
    runs: str
    view: str
    pooled: bool
    cite: str
    title: str
    n: int
    F: int
    T: int
    graphs: tuple[tuple[str, int], ...]
    columns: tuple[Column, ...]

    @property
    def paper(self) -> PaperTable:
        """The published values this table prints beside ours."""
        return paper_tables()[self.name]

    def setting_text(self, questions: bool = True) -> str:
        """The setting on one line (``--help``; the table heading without the paper's question
        counts, which each column's heading gives beside ours)."""
        rosters = sorted({c.roster for c in self.columns}, key=[c.roster for c in self.columns]
                         .index)
        graphs = ", ".join(f"{GRAPH_LABELS[g]} r={r}" for g, r in self.graphs)
        counts: dict[int, list[str]] = {}
        for column in self.columns:
            counts.setdefault(column.questions, []).append(column.label)
        data = "; ".join(f"{', '.join(labels)}: {q} q." + (" each" if len(labels) > 1 else "")
                         for q, labels in counts.items())
        data = f"; {data}" if questions else ""
        return f"n={self.n} ({'/'.join(rosters)}), F={self.F}, T={self.T}; {graphs}{data}"


def _size(task_spec: str) -> int:
    """The question count of a built-in stand-in spec (``arith:20``, ``placeholder-rte:50``;
    ``commonsense30``: 30)."""
    parts = task_spec.split(":")
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 30


def _roster(strong: int, weak: int, adversarial: int) -> str:
    return f"{strong}S" + (f"{weak}W" if weak else "") + f"{adversarial}A"


def _stand_in(bench: PaperBenchmark) -> str:
    """The built-in default task spec for a benchmark: of its answer kind, and its size.

    MATH: the arithmetic set (20 of the paper's 100 or 30 questions, for time); Commonsense170k:
    the paper's own 30 instances (``commonsense30``); the five open-weight benchmarks of Tables
    3/4/9/10: their synthetic placeholder sets (:mod:`protocol_runner.tasks.placeholders`, the
    benchmark's answer kind and option count), at the paper's 50 questions.
    """
    if bench.kind == "math":
        return _ARITH_STAND_IN
    if bench.key == "commonsense":
        return COMMONSENSE30
    return f"placeholder-{bench.key}:{bench.questions}"


def _kind(bench: PaperBenchmark) -> str:
    """The task kind of a column's default data (``commonsense30`` mixes yes/no and choice)."""
    return "bool/choice" if bench.key == "commonsense" else _ANSWER_KINDS[bench.kind]


def _profile(bench: PaperBenchmark) -> str:
    """The simulator profile a benchmark's column runs: MATH's and Commonsense170k's fitted to
    their Table 2 rows, each Table 9 benchmark's fitted to its Table 10 rows
    (``table10-<benchmark>``), else the hand-set world."""
    if bench.kind == "math":
        return _MATH_PROFILE
    if bench.key == "commonsense":
        return "table2-commonsense"
    if bench.key in _FORMATS and bench.key != "commonsense":
        return f"table10-{bench.key}"
    return "handset"


def _column(key: str, label: str, roster: str, paper: Mapping[str, str],
            bench: PaperBenchmark) -> Column:
    return Column(key, label, roster, paper, bench.dataset, bench.questions, bench.models,
                  _stand_in(bench), _kind(bench), _FORMATS.get(bench.key, "jsonl"),
                  _profile(bench))


def _columns(table: PaperTable) -> tuple[Column, ...]:
    setting, benchmarks = table.setting, table.benchmarks
    out = []
    if "compositions" in setting:  # Table 5
        (key, bench), = benchmarks.items()
        for comp in setting["compositions"]:
            roster = _roster(setting["strong"], comp["weak"], comp["adversarial"])
            out.append(_column(comp["key"], f"b={comp['adversarial']} w={comp['weak']}", roster,
                               {"benchmark": key, "composition": comp["key"]}, bench))
        return tuple(out)
    roster = _roster(setting["strong"], setting["weak"], setting["adversarial"])
    for bench in benchmarks.values():  # the runs' own benchmarks (Table 3's are Table 9's)
        out.append(_column(bench.key, _BENCHMARK_LABELS[bench.key], roster,
                           {"benchmark": bench.key}, bench))
    return tuple(out)


def _spec(name: str, runs: str, view: str) -> TableSpec:
    table, source = paper_tables()[name], paper_tables()[runs]
    setting = table.setting
    return TableSpec(
        name=name, runs=runs, view=view, pooled=name in ("table3", "table4"),
        cite=table.cite, title=table.title, n=setting["n"], F=setting["F"], T=setting["T"],
        graphs=tuple(setting["r"].items()), columns=_columns(source),
    )


TABLES: dict[str, TableSpec] = {
    "table1": _spec("table1", "table1", "metrics"),
    "table2": _spec("table2", "table1", "rounds"),
    "table3": _spec("table3", "table9", "metrics"),
    "table4": _spec("table4", "table9", "rounds"),
    "table5": _spec("table5", "table5", "metrics"),
    "table6": _spec("table6", "table6", "metrics"),
    "table9": _spec("table9", "table9", "metrics"),
    "table10": _spec("table10", "table9", "rounds"),
}
"""Every table of the paper with results, by name."""
