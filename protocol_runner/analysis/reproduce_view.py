"""A reproduced table in the paper's layout: ours beside the published value, cell by cell.

:func:`compare` pairs every cell of a :class:`~protocol_runner.analysis.reproduce.ReproResult`
with the paper's value (:mod:`protocol_runner.analysis.paper_values`) and decides whether the
published value lies inside our 95% interval, widened by half a unit of the paper's last
printed digit (0.05 for one decimal, 0.5 for the integer W / S columns), since the paper
rounds. :func:`table_text` prints it at a glance (every line at most :data:`WIDTH` columns):

- metrics tables (1, 3, 5, 6, 9): a row per method x topology, columns IAA, FAA, BFTI, RA,
  W IAA->FAA, S IAA->FAA, H-Majority (Sec. 5.1), each ``ours (paper)``;
- per-round tables (2, 4, 10): a row per method x round (``Init``, ``Rnd k``; CP-WBFT's
  rounds 1-6 aggregated as the paper does), a column per topology, ``W/S (paper W/S)``.

``-`` marks a metric undefined for the run (W without weak agents), ``n/a`` a value the paper
does not publish; ``--ci`` adds each row's intervals on a second line. :func:`table_json`
holds everything, intervals included.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from protocol_runner.analysis.agreement import (
    LEGEND,
    Agreement,
    CellComparison,
    agreement,
    leave_one_out,
    paper_noise,
)
from protocol_runner.analysis.metrics import Estimate, ProtocolMetrics
from protocol_runner.analysis.paper_values import round_span
from protocol_runner.analysis.provenance import SIMULATED_BANNER
from protocol_runner.analysis.reproduce import (
    GRAPH_LABELS,
    PROTOCOLS,
    Column,
    ReproResult,
    TableSpec,
    er_probability,
)

__all__ = ["FITTED_MARK", "HEADERS", "WIDTH", "Pair", "Row", "agreements", "compare",
           "in_sample", "table_json", "table_text"]

WIDTH = 120
"""The widest line :func:`table_text` prints."""

LEGENDS = {
    "metrics": "IAA / FAA: initial / final answer accuracy, the share of all n agents (the "
               "adversary included) answering right in round 0 / after the last round; BFTI "
               "(Byzantine fault-tolerance improvement) = FAA - IAA; RA (robust accuracy): the "
               "plurality answer of all agents is right; H-Maj. (H-Majority): the same over the "
               "honest agents; W / S: the weak / strong honest agents' IAA→FAA; 4S2W1A: 4 "
               "strong, 2 weak, 1 adversarial agent (Sec. 5.1).",
    "rounds": "W/S: the share of the weak / strong honest agents answering right after each "
              "round (Init: round 0; CP-WBFT's rounds 1-6 as one row, as the paper prints "
              "them); 4S2W1A: 4 strong, 2 weak, 1 adversarial agent (Sec. 5.1).",
}
"""What the columns and roster names mean, as the closing notes say it (issue 44, item 4)."""

TIE_NOTES = {
    "first": "RA, H-Maj.: the plurality answer correct, a tie broken by first occurrence in "
             "agent order, as the authors' code (--ties wrong: a tie counts as wrong).",
    "wrong": "RA, H-Maj.: the plurality answer correct, a tie counted as wrong (--ties first: "
             "broken by first occurrence, as the authors' code).",
}
"""The tie rule of RA and H-Majority, as the closing notes state it."""

FITTED_MARK = "*"
"""Marks an in-sample (fitted) cell of ours: :func:`in_sample`."""

METHOD_LABELS = {"cpwbft": "CP-WBFT", "sac": "SAC"}
_SCALARS = ("IAA", "FAA", "BFTI", "RA")
HEADERS = ("IAA", "FAA", "BFTI", "RA", "W IAA→FAA", "S IAA→FAA", "H-Maj.")
"""The metric columns of a metrics table (Sec. 5.1), in the paper's order."""
DISAGREEING = {("table1", "commonsense", "complete"), ("table2", "commonsense", "complete")}
"""Cells where the paper disagrees with itself (docs/protocols.md, the paper's inconsistencies;
``paper_values.consistency_issues``): marked with a dagger."""


@dataclass(frozen=True)
class Pair:
    """One published number and ours: metric, our estimate (None: undefined), the paper's value
    (None: not published), the decimals printed (the paper's W / S group columns: 0), the naive
    prediction (:func:`~protocol_runner.analysis.agreement.leave_one_out`) and whether the
    cell is in-sample for the simulator profile's fit (``fitted``; None: unknown or no fit)."""

    metric: str
    ours: Estimate | None
    paper: float | None
    digits: int = 1
    naive: float | None = None
    fitted: bool | None = None

    @property
    def comparison(self) -> CellComparison | None:
        """The cell in points, for :func:`~protocol_runner.analysis.agreement.agreement`."""
        if self.ours is None or self.paper is None:
            return None
        return CellComparison(100 * self.ours.value, 100 * self.ours.low, 100 * self.ours.high,
                              self.paper, self.naive, self.fitted)

    @property
    def inside(self) -> bool | None:
        """Whether the paper's value lies in our 95% interval (no slack)."""
        found = self.comparison
        return None if found is None else found.inside

    def to_json(self) -> dict[str, Any]:
        ours = None if self.ours is None else {
            k: v if k == "n" else round(100 * v, 4) for k, v in self.ours.to_json().items()}
        found = self.comparison
        return {"metric": self.metric, "ours": ours, "paper": self.paper, "inside": self.inside,
                "z": None if found is None else round(found.z(paper_noise()[0]), 4),
                "naive": None if self.naive is None else round(self.naive, 4),
                "fit": _FIT_WORDS[self.fitted]}


_FIT_WORDS = {True: "fitted", False: "predicted", None: None}


@dataclass(frozen=True)
class Row:
    """One printed row: its labels (method, topology or round) and its pairs, in column order."""

    benchmark: str
    labels: tuple[str, ...]
    cells: tuple[tuple[Pair, ...], ...]
    flagged: bool = False


def _pair(found: ProtocolMetrics, published: Mapping[str, Any], metric: str,
          digits: int = 1, ties: str = "wrong") -> Pair:
    """Our ``metric`` beside the paper's; RA and H-Majority by the tie rule ``ties``
    (``first``: ``RA_first``, the authors' rule; ``wrong``: ``RA``)."""
    ours = f"{metric}_first" if ties == "first" and metric in _PLURALITY else metric
    return Pair(ours, found.estimates[ours], published.get(metric), digits)


_PLURALITY = ("RA", "H_Majority")


def _metric_rows(result: ReproResult, benchmark: str) -> list[Row]:
    spec, paper = result.spec, result.spec.paper
    rows = []
    for method in PROTOCOLS:
        for graph, _ in spec.graphs:
            found: ProtocolMetrics = result.metrics[(benchmark, graph)][method]
            key = {"method": method, "topology": graph, **_paper_key(result, benchmark)}
            published = paper.row(**key) or {}
            cells = [(_pair(found, published, m, ties=result.ties),) for m in _SCALARS]
            cells += [(_pair(found, published, f"{g}_IAA", 0),
                       _pair(found, published, f"{g}_FAA", 0)) for g in "WS"]
            cells.append((_pair(found, published, "H_Majority", ties=result.ties),))
            rows.append(Row(benchmark, (METHOD_LABELS[method], GRAPH_LABELS[graph]),
                            tuple(cells), _flagged(result, benchmark, graph)))
    return rows


def _paper_key(result: ReproResult, benchmark: str) -> dict[str, str]:
    for column in result.spec.columns:
        if column.key == benchmark:
            return dict(column.paper)
    return {"benchmark": benchmark}  # a pooled column (mean5)


def _round_estimate(found: ProtocolMetrics, group: str, label: str) -> Estimate | None:
    first, last = round_span(label)
    if first != last:
        return found.after_first.get(group)
    series = found.rounds[group]
    return series[first] if first < len(series) else None


def _round_rows(result: ReproResult, benchmark: str) -> list[Row]:
    spec, paper = result.spec, result.spec.paper
    rows = []
    for method in PROTOCOLS:
        labels = list(dict.fromkeys(r["round"] for r in paper.rows
                                    if r["method"] == method and r["benchmark"] == benchmark))
        for label in labels:
            cells = []
            for graph, _ in spec.graphs:
                found = result.metrics[(benchmark, graph)][method]
                published = paper.row(benchmark=benchmark, method=method, round=label,
                                      topology=graph) or {}
                cells.append(tuple(
                    Pair(f"{g}/{label}/{graph}", _round_estimate(found, group, label),
                         published.get(g))
                    for g, group in (("W", "weak"), ("S", "strong"))))
            rows.append(Row(benchmark, (METHOD_LABELS[method], label), tuple(cells)))
    return rows


def compare(result: ReproResult) -> list[Row]:
    """Every printed row of the table, for every view column, in the paper's order; each pair
    with its naive prediction and whether it is in-sample for the profile's fit."""
    build = _round_rows if result.spec.view == "rounds" else _metric_rows
    rows = [row for benchmark in result.view_columns for row in build(result, benchmark)]
    published = {(i, j, k): (_naive_group(row.benchmark, pair.metric), pair.paper)
                 for i, row in enumerate(rows) for j, cell in enumerate(row.cells)
                 for k, pair in enumerate(cell) if pair.paper is not None}
    naive = leave_one_out(published)
    return [replace(row, cells=tuple(
        tuple(replace(pair, naive=naive.get((i, j, k)),
                      fitted=in_sample(result, row.benchmark, pair.metric))
              for k, pair in enumerate(cell)) for j, cell in enumerate(row.cells)))
        for i, row in enumerate(rows)]


def _naive_group(benchmark: str, metric: str) -> tuple[str, str]:
    """The cells a naive prediction averages: the same column and metric (per-round cells: the
    same group, W or S, over rounds and topologies)."""
    return benchmark, metric.split("/")[0]


_PER_ROUND_METRICS = ("IAA", "FAA", "BFTI", "W_IAA", "W_FAA", "S_IAA", "S_FAA")
"""Metrics a per-round fit determines: the groups' Init and final rows, and IAA / FAA as their
roster-weighted means (``paper_values.consistency_issues``); RA and H-Majority it never sees."""


def in_sample(result: ReproResult, benchmark: str, metric: str) -> bool | None:
    """Whether a cell is in-sample for the simulator profile its column ran: the profile was
    fitted to the per-round rows of this table's runs and benchmark (Table 2 for Table 1's MATH,
    Table 10 for Table 9's), and the cell is one of those rows or a metric they determine
    (:data:`_PER_ROUND_METRICS`). None when the column ran no named profile (a parameter file;
    a real model). A pooled column (Tables 3, 4) is in-sample when all its columns are.
    """
    from protocol_runner.analysis.reproduce_specs import TABLES
    from protocol_runner.sim.profiles import shipped_profiles

    spec = result.spec
    keys = [c.key for c in spec.columns] if benchmark == "mean5" else [benchmark]
    verdicts = []
    for key in keys:
        name = result.column_profiles.get(key, "")
        entry = shipped_profiles().get(name)
        if entry is None:
            if name != "handset":
                return None
            verdicts.append(False)
            continue
        fit = entry.get("fitted_to", {})
        fitted_runs = TABLES[fit["table"]].runs if fit.get("table") in TABLES else None
        verdicts.append(fitted_runs == spec.runs and fit.get("benchmark") == key)
    if not all(verdicts):
        return False
    return spec.view == "rounds" or metric in _PER_ROUND_METRICS


# ----------------------------------------------------------------------------- text
def _number(value: float | None, pair: Pair) -> str:
    if value is None:
        return "-"
    sign = "+" if pair.metric == "BFTI" else ""
    return f"{value:{sign}.{pair.digits}f}"


def _cell_text(pairs: Sequence[Pair], join: str) -> str:
    ours = join.join(_number(None if p.ours is None else 100 * p.ours.value, p) for p in pairs)
    ours += FITTED_MARK if any(p.fitted for p in pairs) else ""
    if all(p.paper is None for p in pairs):
        return f"{ours} (n/a)"
    return f"{ours} ({join.join(_number(p.paper, p) for p in pairs)})"


def _interval_text(pairs: Sequence[Pair], join: str) -> str:
    """Our 95% intervals as ``low–high`` (the ``--ci`` line under a row)."""
    return join.join(
        "-" if p.ours is None else
        f"{_number(100 * p.ours.low, p)}–{_number(100 * p.ours.high, p)}" for p in pairs)


def _grid(header: Sequence[str], lines: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(str(x[i])) for x in [header, *lines]) for i in range(len(header))]
    gap = "  " if sum(widths) + 2 * (len(widths) - 1) <= WIDTH else " "  # fitted marks widen
    return [gap.join(str(x[i]).ljust(widths[i]) for i in range(len(header))).rstrip()
            for x in [header, *lines]]


def _wrap(text: str, indent: str = "") -> list[str]:
    return textwrap.wrap(text, WIDTH, subsequent_indent=indent, break_on_hyphens=False)


def _column_heading(result: ReproResult, benchmark: str) -> list[str]:
    """What the paper ran for a column and what we ran (tasks, models, seeds x queries)."""
    spec = result.spec
    first = next(iter(result.metrics[(benchmark, spec.graphs[0][0])].values()))
    per_seed = first.queries_per_seed[0] if first.queries_per_seed else 0
    models = " / ".join(result.models.get(r, "?") for r in ("strong", "weak"))
    if benchmark == "mean5":
        bench = spec.paper.benchmarks["mean5"]
        label, paper_models = "Mean of 5", bench.models
        paper = f"{bench.questions} questions, {bench.dataset}"
        ours = "; ".join(f"{c.label} {result.tasks[c.key][0]}" for c in spec.columns)
        stand_in = all(result.tasks[c.key][1] for c in spec.columns)
        kinds = ", ".join(dict.fromkeys(c.kind for c in spec.columns))
        profile = _profile_text(result, spec.columns)
    else:
        column = next(c for c in spec.columns if c.key == benchmark)
        label, paper_models = column.label, column.models
        label += f" ({column.roster})" if spec.name == "table5" else ""
        paper = f"{column.questions} questions of {column.dataset}"
        ours, stand_in = result.tasks[benchmark]
        kinds = column.kind
        profile = _profile_text(result, [column])
    kind = f"{kinds}; built-in stand-in, not the paper's data" if stand_in else "your --tasks"
    if ours == "commonsense30" and benchmark == "commonsense":
        kind = f"{kinds}; built in: the paper's 30 instances, App. C Table 8"
    seeds = ",".join(map(str, result.seeds))
    return [
        *_wrap(f"{label}: paper {paper}; {paper_models['strong']} / {paper_models['weak']}",
               "    "),
        *_wrap(f"    ours {ours} ({kind}); {models}{profile}; seeds {seeds} x {per_seed} "
               "queries", "    "),
    ]


def _profile_text(result: ReproResult, columns: Sequence[Column]) -> str:
    """``; profile NAME`` (or one per column) for the simulated agents; ``""`` otherwise."""
    names = [result.column_profiles.get(c.key, "") for c in columns]
    if not any(names):
        return ""
    if len(set(names)) == 1:
        return f"; profile {names[0]}"
    return "; profiles " + ", ".join(f"{c.label} {n}" for c, n in zip(columns, names, strict=True))


def _attack_text(spec: TableSpec) -> str:
    """Who attacks and how: the adversaries per roster and the ``fixed`` attack's reply choice
    (:mod:`protocol_runner.protocols.attacks`)."""
    counts = sorted({int(re.search(r"(\d+)A$", c.roster).group(1)) for c in spec.columns})
    who = "one adversary" if counts == [1] else f"{'/'.join(map(str, counts))} adversaries"
    return (f"{who} per App. B.4 (fixed: cached weak-model replies to out-of-distribution "
            "questions, confidence 1.0; per question ours sends the cached reply that is wrong "
            "for it, chosen with the reference answer, which B.4 does not specify)")


def _flagged(result: ReproResult, benchmark: str, graph: str) -> bool:
    return (result.spec.name, benchmark, graph) in DISAGREEING


def _body(result: ReproResult, benchmark: str, rows: Sequence[Row], ci: bool) -> list[str]:
    join = "/" if result.spec.view == "rounds" else "→"
    if join == "/":  # a flagged topology is marked in its column's header
        header = ["method", "round", *(
            f"{GRAPH_LABELS[g]}{'†' if _flagged(result, benchmark, g) else ''} W/S"
            for g, _ in result.spec.graphs)]
    else:
        header = ["method", "topology", *HEADERS]
    lines = []
    for row in rows:
        mark = "†" if row.flagged else ""
        lines.append([*row.labels[:-1], row.labels[-1] + mark,
                      *(_cell_text(c, join) for c in row.cells)])
        if ci:
            lines.append(["", "", *(_interval_text(c, join) for c in row.cells)])
    return _grid(header, lines)


def _totals(rows: Sequence[Row]) -> tuple[int, int]:
    pairs = [p for row in rows for cell in row.cells for p in cell]
    compared = [p.inside for p in pairs if p.inside is not None]
    return sum(compared), len(compared)


def agreements(rows: Sequence[Row]) -> dict[str, Agreement]:
    """:func:`~protocol_runner.analysis.agreement.agreement` over every compared cell (``all``)
    and, where the fit is known, over the ``predicted`` and the ``fitted`` cells apart."""
    cells = [c for row in rows for cell in row.cells for p in cell if (c := p.comparison)]
    parts = {"all": cells, "predicted": [c for c in cells if c.fitted is False],
             "fitted": [c for c in cells if c.fitted]}
    return {k: found for k, part in parts.items() if (found := agreement(part)) is not None}


def _agreement_lines(rows: Sequence[Row]) -> list[str]:
    """The closing statistics: a legend, then one sentence for the predicted cells (the
    evidence) and one for the fitted ones, or one for all when the fit is unknown."""
    found = agreements(rows)
    if not found:
        return []
    parts = [(k, a) for k, a in found.items() if k != "all"] or [("all", found["all"])]
    names = {"predicted": "predicted ({n} cells, the evidence)",
             "fitted": f"fitted{FITTED_MARK} ({{n}} cells, in-sample: the fit worked, no "
                       "prediction)",
             "all": "all {n} cells (fit unknown)"}
    lines = _wrap(LEGEND.format(sigma=found["all"].sigma), "    ")
    for key, part in parts:
        lines += _wrap("  " + part.line(names[key].format(n=part.cells)), "      ")
    return lines


def table_text(result: ReproResult, *, ci: bool = False, files: Sequence[str] = ()) -> str:
    """The table at a glance (module docstring); ``files`` are named in the closing lines."""
    spec = result.spec
    rows = compare(result)
    lines = [*_wrap(f"{spec.cite}: {spec.title}"),
             *_wrap(f"setting (the paper's): {spec.setting_text(questions=False)}; attack: "
                    f"{_attack_text(spec)}, methods CP-WBFT and SAC", "    ")]
    if result.simulated:
        named = "".join(f"; {p}" for p in result.profiles)
        if any(result.column_profiles.values()):
            named = "; each column's simulator profile is named in its heading"
        lines += _wrap(f"{SIMULATED_BANNER} (the paper's models replaced by simulated "
                       f"agents{named})", "    ")
    if result.er_draws:
        r = dict(spec.graphs)["er"]
        draws = ", ".join(f"{d} (seed {s})" for s, d in sorted(result.er_draws.items()))
        lines += _wrap(f"ER: G({spec.n}, p={er_probability(spec.n, r):.4f}) as App. A, "
                       f"resampled until a draw is proven {r}-robust; draws: {draws}", "    ")
    for benchmark in result.view_columns:
        lines += ["", *_column_heading(result, benchmark),
                  *_body(result, benchmark, [r for r in rows if r.benchmark == benchmark], ci)]
    inside, compared = _totals(rows)
    lines += [""]
    cells = [p for r in rows for c in r.cells for p in c]
    notes = ["ours (paper): our mean over seeds (the paper's published value), percent"
             + ("." if ci else "; --ci prints our 95% intervals."),
             LEGENDS[spec.view]]
    if spec.view != "rounds":
        notes.append(TIE_NOTES[result.ties])
    if any(p.ours is None for p in cells):
        notes.append("-: undefined for this run (no agent of that group).")
    if any(p.paper is None for p in cells):
        notes.append(f"n/a: the paper's {spec.cite.split(' (')[0]} does not publish it.")
    lines += [x for note in notes for x in _wrap(note, "    ")]
    if any(_flagged(result, b, g) for b in result.view_columns for g, _ in spec.graphs):
        lines += _wrap("†: the paper disagrees with itself in this column (Table 1 vs Table 2, "
                       "Commonsense Complete); we print this table's own values "
                       "(docs/protocols.md, 'The paper's own inconsistencies').")
    if any(p.fitted for p in cells):
        lines += _wrap(f"{FITTED_MARK}: fitted (in-sample): the column's simulator profile was "
                       "fitted to the per-round rows this cell is or is computed from; "
                       "unmarked: predicted (never seen by the fit).")
    lines += _agreement_lines(rows)
    runs = f"{result.output}/<column>/<topology>/seed-<S>/"
    lines += _wrap(f"Runs: {runs}; this table: " + (", ".join(files) or "not written") + ".")
    lines += ["Next, each run's summary, tables and figures:",
              f"  robustgraph report {result.output}"]
    return "\n".join(lines) + "\n"


def table_json(result: ReproResult) -> dict[str, Any]:
    """The table as JSON: the setting, per column the tasks and per row every pair."""
    spec = result.spec
    rows = compare(result)
    inside, compared = _totals(rows)
    return {
        "table": spec.name,
        "cite": spec.cite,
        "title": spec.title,
        "simulated": result.simulated,
        "backend": result.backend,
        "models": dict(result.models),
        "setting": {"n": spec.n, "F": spec.F, "T": spec.T, "r": dict(spec.graphs),
                    "rosters": {c.key: c.roster for c in spec.columns}},
        "tasks": {k: {"spec": v[0], "built_in": v[1]} for k, v in result.tasks.items()},
        "profiles": dict(result.column_profiles),
        "profile_labels": list(result.profiles),
        "attack": _attack_text(spec),
        "ties": result.ties,
        "paper_data": {c.key: {"dataset": c.dataset, "questions": c.questions,
                               "models": dict(c.models)} for c in spec.columns},
        "seeds": list(result.seeds),
        "resamples": result.resamples,
        "er_draws": {str(s): d for s, d in sorted(result.er_draws.items())},
        "rows": [{"benchmark": r.benchmark, "labels": list(r.labels), "flagged": r.flagged,
                  "cells": [p.to_json() for cell in r.cells for p in cell]} for r in rows],
        "inside": inside,
        "compared": compared,
        "agreement": {k: a.to_json() for k, a in agreements(rows).items()},
        "output": str(result.output),
    }
