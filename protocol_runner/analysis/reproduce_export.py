"""A reproduced table as CSV (one line per published cell) and LaTeX (the paper's layout).

Both carry, per cell, whether it is fitted (in-sample for the simulator profile's fit) or
predicted (:func:`protocol_runner.analysis.reproduce_view.in_sample`): the CSV in its ``fit``
column, the LaTeX table by a superscript asterisk on our value, explained in its caption with
the simulated label. Rows come from :func:`protocol_runner.analysis.reproduce_view.compare`.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from protocol_runner.analysis.agreement import paper_noise
from protocol_runner.analysis.provenance import SIMULATED_BANNER
from protocol_runner.analysis.reproduce import ReproResult
from protocol_runner.analysis.reproduce_specs import GRAPH_LABELS
from protocol_runner.analysis.reproduce_view import HEADERS, Pair, Row, compare

__all__ = ["CSV_COLUMNS", "table_csv", "table_latex"]

CSV_COLUMNS = ("benchmark", "method", "label", "metric", "ours", "low", "high", "paper",
               "inside", "z", "naive", "fit", "simulated")
"""The CSV header: the row's labels, the metric, ours with its 95% interval and the paper's
value (percent), the count's rule, the standardised distance, the naive prediction and
``fitted`` / ``predicted`` (empty: unknown)."""

_FIT = {True: "fitted", False: "predicted", None: ""}


def _points(value: float | None) -> str:
    return "" if value is None else f"{value:.4g}"


def table_csv(result: ReproResult, rows: Sequence[Row] | None = None) -> str:
    """Every published cell of the table, one CSV line each (:data:`CSV_COLUMNS`)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    sigma = paper_noise()[0]
    for row in compare(result) if rows is None else rows:
        for cell in row.cells:
            for pair in cell:
                ours = pair.ours
                found = pair.comparison
                writer.writerow([
                    row.benchmark, row.labels[0], row.labels[-1], pair.metric,
                    _points(None if ours is None else 100 * ours.value),
                    _points(None if ours is None else 100 * ours.low),
                    _points(None if ours is None else 100 * ours.high),
                    _points(pair.paper), "" if pair.inside is None else str(pair.inside).lower(),
                    "" if found is None else f"{found.z(sigma):.3f}", _points(pair.naive),
                    _FIT[pair.fitted], str(result.simulated).lower(),
                ])
    return out.getvalue()


def _tex(pair: Pair, value: float | None) -> str:
    if value is None:
        return "--"
    sign = "+" if pair.metric == "BFTI" and value >= 0 else ""
    return f"{sign}{value:.{pair.digits}f}"


def _tex_cell(pairs: Sequence[Pair], join: str) -> str:
    ours = join.join(_tex(p, None if p.ours is None else 100 * p.ours.value) for p in pairs)
    mark = "$^{*}$" if any(p.fitted for p in pairs) else ""
    paper = join.join(_tex(p, p.paper) for p in pairs)
    return f"{ours}{mark} ({'n/a' if all(p.paper is None for p in pairs) else paper})"


def table_latex(result: ReproResult, rows: Sequence[Row] | None = None) -> str:
    """The table as one LaTeX ``tabular`` per printed column, ``ours (paper)`` per cell."""
    rows = compare(result) if rows is None else rows
    spec = result.spec
    rounds = spec.view == "rounds"
    join = "/" if rounds else r"$\to$"
    caption = (f"{spec.cite}: ours (the paper's), percent. $^{{*}}$: fitted (in-sample for "
               "the simulator profile); unmarked: predicted."
               + (f" {SIMULATED_BANNER}." if result.simulated else ""))
    lines = [f"% robustgraph reproduce {spec.name}", r"\begin{table}", r"\centering",
             rf"\caption{{{caption}}}"]
    for benchmark in result.view_columns:
        part = [r for r in rows if r.benchmark == benchmark]
        width = len(part[0].cells) if part else 0
        header = (["method", "round", *(f"{GRAPH_LABELS[g]} W/S" for g, _ in spec.graphs)]
                  if rounds else ["method", "topology", *HEADERS])
        name = benchmark.replace("_", r"\_")
        lines += [rf"\par\smallskip\textbf{{{name}}}\par",
                  r"\begin{tabular}{ll" + "l" * width + "}", r"\hline",
                  " & ".join(header).replace("→", r"$\to$") + r" \\", r"\hline"]
        for row in part:
            cells = [_tex_cell(cell, join) for cell in row.cells]
            lines.append(" & ".join([*row.labels, *cells]).replace("†", r"$^\dagger$")
                         + r" \\")
        lines += [r"\hline", r"\end{tabular}"]
    lines += [r"\end{table}", ""]
    return "\n".join(lines)
