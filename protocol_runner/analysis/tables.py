"""The SAC paper's Table 1 layout in Markdown, LaTeX (booktabs) and CSV, with confidence intervals.

One row per protocol and topology (and, for a sweep, per value of every other axis that
varies); the columns are :data:`COLUMNS`: IAA, FAA, BFTI, RA, weak and strong IAA -> FAA and
H-Majority [1]_, in percent, each with its confidence interval. The table is built from the
JSON of a run's or a sweep's ``summary.json`` (:func:`run_table`, :func:`sweep_table`), so it
depends only on what those files hold; the metric names come from :data:`COLUMNS` alone.

Files written by :func:`write_tables`: ``table1.md``, ``table1.tex`` (needs
``\\usepackage{booktabs}``; each row of values is followed by a row of intervals in
``\\scriptsize``) and ``table1.csv``
(one column per value and per interval bound, in percent, ``""`` where undefined).

References
----------
.. [1] H. Lee, V.-D. Yun, H. Oh, D. Panagou and S. P. Karimireddy, "Robust Multi-Agent LLMs
   under Byzantine Faults", arXiv:2605.09076, 2026, Table 1 and Sec. 5.1.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from protocol_runner.analysis.names import protocol_name, topology_name
from protocol_runner.analysis.provenance import (
    SIMULATED_SENTENCE,
    UNCERTIFIED_SENTENCE,
    Provenance,
    label_of,
)
from robustgraph.atomic import write_atomic

__all__ = [
    "BFTI",
    "COLUMNS",
    "FAA",
    "H_MAJORITY",
    "IAA",
    "RA",
    "STRONG",
    "WEAK",
    "TABLE_FILES",
    "Column",
    "Table",
    "caption",
    "run_table",
    "runs_table",
    "sweep_table",
    "write_tables",
]

TABLE_FILES = ("table1.md", "table1.tex", "table1.csv")


@dataclass(frozen=True)
class Column:
    """A column of Table 1: its header (text and LaTeX) and the metric key(s) of
    ``summary.json`` it shows; two keys make an ``IAA -> FAA`` column."""

    header: str
    latex: str
    keys: tuple[str, ...]
    signed: bool = False


IAA, FAA, BFTI, RA, H_MAJORITY = "IAA", "FAA", "BFTI", "RA", "H_Majority"
WEAK = ("W_IAA", "W_FAA")
STRONG = ("S_IAA", "S_FAA")
"""The ``summary.json`` metric keys behind Table 1 and the figures: the one place naming them."""

COLUMNS = (
    Column("IAA", "IAA", (IAA,)),
    Column("FAA", "FAA", (FAA,)),
    Column("BFTI", "BFTI", (BFTI,), signed=True),
    Column("RA", "RA", (RA,)),
    Column("W IAA→FAA", r"W IAA$\to$FAA", WEAK),
    Column("S IAA→FAA", r"S IAA$\to$FAA", STRONG),
    Column("H-Majority", "H-Majority", (H_MAJORITY,)),
)
"""Table 1's columns, in the paper's order."""


@dataclass(frozen=True)
class Table:
    """Rows of (labels, protocol, metrics) and a caption.

    ``labels`` are the row's identifying values (``topology`` first, then any other varying
    axis), the same keys in every row; ``metrics`` maps a metric key to its
    ``{"value", "low", "high", "n"}`` (fractions) or None.
    """

    label_names: tuple[str, ...]
    rows: tuple[tuple[tuple[str, ...], str, Mapping[str, Any]], ...]
    caption: str
    confidence: float = 0.95
    label: str = ""

    def _estimate(self, metrics: Mapping[str, Any], key: str) -> Mapping[str, float] | None:
        estimate = metrics.get(key)
        return estimate if isinstance(estimate, Mapping) else None

    def _value(self, metrics: Mapping[str, Any], key: str, signed: bool) -> str:
        estimate = self._estimate(metrics, key)
        if estimate is None:
            return "–"
        value = round(100 * estimate["value"], 1) + 0.0  # + 0.0: no "-0.0"
        return f"{value:+.1f}" if signed else f"{value:.1f}"

    def _interval(self, metrics: Mapping[str, Any], key: str) -> str:
        estimate = self._estimate(metrics, key)
        if estimate is None:
            return "–"
        low, high = (round(100 * estimate[k], 1) + 0.0 for k in ("low", "high"))
        return f"[{low:.1f}, {high:.1f}]"

    def cells(self, metrics: Mapping[str, Any]) -> list[tuple[str, str]]:
        """Per column: (value text, interval text), ``→`` joining the two of a pair column."""
        out = []
        for column in COLUMNS:
            values = [self._value(metrics, k, column.signed) for k in column.keys]
            intervals = [self._interval(metrics, k) for k in column.keys]
            out.append(("→".join(values), "→".join(intervals)))
        return out

    def markdown(self) -> str:
        """A Markdown table: each cell ``value [low, high]``, then the caption."""
        header = [*(n.capitalize() for n in self.label_names), "Protocol",
                  *(c.header for c in COLUMNS)]
        lines = [
            "| " + " | ".join(header) + " |",
            "|" + "|".join("---" if i < len(header) - len(COLUMNS) else "--:"
                           for i in range(len(header))) + "|",
        ]
        for labels, protocol, metrics in self.rows:
            cells = [_pair_text(value, interval) for value, interval in self.cells(metrics)]
            lines.append("| " + " | ".join([*map(_md, labels), _md(protocol), *cells]) + " |")
        return "\n".join(lines) + f"\n\n{self.caption}\n"

    def latex(self) -> str:
        """A booktabs ``table`` environment in the paper's column order (:data:`COLUMNS`), rows
        named for readers (``gamma-MERG``, ``ER (r = 4)``, ``CP-WBFT``: :mod:`.names`), the
        caption naming backend, models, seeds and queries; intervals on a ``\\scriptsize`` row
        under each row."""
        n_labels = len(self.label_names) + 1
        spec = "l" * n_labels + "r" * len(COLUMNS)
        header = [*(_tex(n.capitalize()) for n in self.label_names), "Protocol",
                  *(c.latex for c in COLUMNS)]
        lines = [
            r"% needs \usepackage{booktabs}",
            r"\begin{table}[t]",
            r"\centering",
            r"\small",
            rf"\caption{{{_tex(self.caption)}}}",
            r"\label{tab:table1}",
            rf"\begin{{tabular}}{{{spec}}}",
            r"\toprule",
            " & ".join(header) + r" \\",
            r"\midrule",
        ]
        previous: tuple[str, ...] | None = None
        for labels, protocol, metrics in self.rows:
            if previous is not None and labels != previous:
                lines.append(r"\midrule")
            shown = [_tex(_label(name, v)) if labels != previous else ""
                     for name, v in zip(self.label_names, labels, strict=True)]
            previous = labels
            cells = self.cells(metrics)
            values = [_tex(v) for v, _ in cells]
            intervals = [r"{\scriptsize " + _tex(i) + "}" for _, i in cells]
            lines.append(" & ".join([*shown, _tex(protocol_name(protocol)), *values]) + r" \\")
            lines.append(" & ".join([""] * n_labels + intervals) + r" \\")
        lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
        return "\n".join(lines) + "\n"

    def csv(self) -> str:
        """CSV: the labels, the protocol, then per metric key its value, low and high (percent)."""
        keys = [k for column in COLUMNS for k in column.keys]
        header = [*self.label_names, "protocol"]
        for key in keys:
            header += [key, f"{key}_low", f"{key}_high", f"{key}_n"]
        header.append("label")
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(header)
        for labels, protocol, metrics in self.rows:
            row = [*labels, protocol]
            for key in keys:
                estimate = self._estimate(metrics, key)
                if estimate is None:
                    row += ["", "", "", ""]
                else:
                    row += [
                        f"{100 * estimate[part]:.2f}" for part in ("value", "low", "high")
                    ] + [str(estimate["n"])]
            writer.writerow([*row, self.label])
        return buffer.getvalue()


def _pair_text(value: str, interval: str) -> str:
    if value == "–":
        return "–"
    if "→" not in value:
        return f"{value} {interval}"
    return " → ".join(
        v if v == "–" else f"{v} {i}"
        for v, i in zip(value.split("→"), interval.split("→"), strict=True)
    )


def _label(axis: str, value: str) -> str:
    """A row label of the LaTeX table as a reader writes it (topology and protocol names)."""
    return topology_name(value) if axis == "topology" else value


def _md(text: str) -> str:
    return str(text).replace("|", "\\|")


_TEX = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\^{}",
    "→": r"$\to$", "−": "$-$", "–": "--", "·": r"$\cdot$",
}


def _tex(text: str) -> str:
    r"""Escape LaTeX's special characters; arrows and dashes as LaTeX writes them.

    Examples
    --------
    >>> print(_tex("95% [1.0, 2.0]→– a_b"))
    95\% [1.0, 2.0]$\to$-- a\_b
    """
    return "".join(_TEX.get(ch, ch) for ch in str(text))


def caption(
    what: str, confidence: float, method: str, *, simulated: bool, uncertified: bool = False
) -> str:
    """The caption of the three formats: what the rows are, units, the intervals' level and
    method, on the simulated backend the statement that these are not LLM results, and for a
    run the certificate gate did not certify (``--allow-uncertified``) the statement that it
    is NOT certified (issue 41, item 12)."""
    text = (
        f"{what[0].upper()}{what[1:]}. Accuracies in percent, BFTI = FAA − IAA in percentage "
        f"points; W/S: weak/strong agents' IAA → FAA. Brackets: {100 * confidence:g}% "
        f"confidence intervals ({method})."
    )
    text += f" {SIMULATED_SENTENCE}" if simulated else ""
    return text + (f" {UNCERTIFIED_SENTENCE}" if uncertified else "")


def run_table(summary: Mapping[str, Any]) -> Table:
    """Table 1 of one run, from its ``summary.json`` document (see :func:`runs_table`)."""
    return runs_table([summary])


def runs_table(summaries: Sequence[Mapping[str, Any]]) -> Table:
    """Table 1 of runs side by side (one per topology, say), from their ``summary.json``.

    The topology column holds each run's ``run.graph_name`` (the graph the user gave; "–"
    when unknown); the caption names what the runs rest on (:class:`Provenance`) and the
    bootstrap of the first run's ``bootstrap`` section.
    """
    rows = tuple(
        ((str(doc["run"].get("graph_name") or "–"),), name, p["metrics"])
        for doc in summaries
        for name, p in doc["protocols"].items()
    )
    provenance = Provenance.merge([
        Provenance.of_run(doc["run"], [p["queries"] for p in doc["protocols"].values()])
        for doc in summaries
    ])
    bootstrap = summaries[0]["bootstrap"]
    what = " · ".join(provenance.lines()[:2])
    method = f"bootstrap: {bootstrap['method']}, {bootstrap['resamples']} resamples"
    text = caption(what, bootstrap["confidence"], method, simulated=provenance.simulated,
                   uncertified=provenance.uncertified)
    return Table(("topology",), rows, text, bootstrap["confidence"],
                 label_of(provenance.simulated, provenance.uncertified))


def sweep_table(
    summary: Mapping[str, Any],
    rows: Sequence[Any],
    *,
    confidence: float,
    simulated: bool,
    uncertified: bool = False,
) -> Table:
    """Table 1 of a sweep from its pooled rows (:func:`protocol_runner.analysis.pooled.pool_cells`).

    Rows are ordered by topology, then by the other varying axes (grid order), protocols in
    the cells' order; the labels are the varying axes other than ``seed`` (pooled).
    """
    axes = [a for a in summary["varying"] if a != "seed"]
    names = ("topology", *[a for a in axes if a != "topology"])
    order = {value: i for i, value in enumerate(dict.fromkeys(r.labels.get("topology", "")
                                                              for r in rows))}
    ordered = sorted(rows, key=lambda r: order[r.labels.get("topology", "")])
    grid = summary["spec"]["grid"]

    def label(row: Any, axis: str) -> str:
        """The row's value on ``axis``; else the axis's only grid value (a per-n mapping, such
        as a roster per n, has no single value: ``?``)."""
        if axis in row.labels:
            return str(row.labels[axis])
        values = grid.get(axis)
        return str(values[0]) if isinstance(values, list) and values else "?"

    table_rows = tuple(
        (tuple(label(r, n) for n in names), r.protocol, r.metrics) for r in ordered
    )
    seeds = max((len(r.seeds) for r in rows), default=1)
    method = ("two-level bootstrap over seeds, then queries within each seed" if seeds > 1
              else "bootstrap over each cell's queries")
    what = f"Sweep {summary.get('name') or ''}".rstrip() + f", {seeds} seed(s) per row pooled"
    text = caption(what, confidence, method, simulated=simulated, uncertified=uncertified)
    return Table(names, table_rows, text, confidence, label_of(simulated, uncertified))


def write_tables(table: Table, directory: str | Path) -> list[Path]:
    """Write ``table1.md``, ``table1.tex`` and ``table1.csv`` into ``directory``, each whole or
    not at all (:func:`robustgraph.atomic.write_atomic`; a full disk raises ``OSError`` naming
    the file)."""
    out = Path(directory)
    texts = (table.markdown(), table.latex(), table.csv())
    paths = []
    for name, text in zip(TABLE_FILES, texts, strict=True):
        path = out / name
        write_atomic(path, text.encode("utf-8"))
        paths.append(path)
    return paths
