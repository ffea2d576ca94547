"""The SAC paper's published table values, as shipped in ``protocol_runner/data/sac_paper.json``.

The data file holds, transcribed by hand from Lee et al. (2026), every published cell of Tables
1-6, 9 and 10 and each table's setting. Its schema (``robustgraph/sac-paper-values/1``):

- ``paper``: authors, title, arXiv id, year; ``units``: ``"percent"`` (every value as printed).
- ``tables``: one entry per table name (``table1`` ... ``table10``; Tables 7 and 8 list problems,
  not results), each with

  - ``kind``: ``metrics`` (a row per benchmark x method x topology with the Sec. 5.1 metrics),
    ``rounds`` (per-round weak / strong honest accuracy) or ``composition`` (Table 5: the
    metrics per adversarial / weak composition ``b<b>w<w>``);
  - ``cite``: the table and section; ``title``: a one-line description (ours, not the caption);
  - ``setting``: ``n``, the roster counts ``strong``, ``weak``, ``adversarial`` (Table 5 instead
    lists ``compositions``), ``F``, ``T`` (and ``T_source`` where the caption omits it), ``r``
    per topology key (``merg``, ``complete``, ``er``, ``pa``) and the ``attack``; or
    ``{"same_as": "<table>"}`` for a table of the same runs as another;
  - ``benchmarks``: per benchmark key, the ``dataset`` the paper used, its ``questions`` count,
    the ``models`` (``strong``, ``weak``) and the answer ``kind`` (``math``, ``choice``,
    ``yesno``); a mean over benchmarks names them in ``mean_of``; or ``{"same_as": ...}``
    (absent: those of the table the setting refers to);
  - ``columns`` and ``rows``: one list per published row, in the paper's order. Metric columns
    use :data:`protocol_runner.analysis.metrics.PAPER_METRICS` names; W/S group columns are
    printed as integers by the paper (``25->58%``). A ``rounds`` row's ``round`` is the paper's
    label: ``Init`` (round 0), ``Rnd k`` (round k) or ``Rnd a-b`` (the paper aggregates
    CP-WBFT's rounds a..b into one row). Methods are ``sac`` and ``cpwbft``.

:func:`paper_tables` loads and validates the file once; :func:`consistency_issues` runs the
paper's internal cross-checks (BFTI = FAA - IAA; Table 3 = mean of Table 9; Table 4 = mean of
Table 10; the per-round Init and final rows against the group IAA / FAA columns), whose
findings docs/protocols.md lists ("The paper's own inconsistencies").

References
----------
Lee et al., "Robust Multi-Agent LLMs under Byzantine Faults", arXiv:2605.09076, 2026: Sec. 5.1
(metrics), Sec. 5.2 (setup), Tables 1-6, App. A (topologies), App. D (Tables 9 and 10).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from types import MappingProxyType
from typing import Any

from robustgraph.errors import ParameterError

__all__ = [
    "DATA_FILE",
    "PaperBenchmark",
    "PaperTable",
    "consistency_issues",
    "paper_tables",
    "round_span",
]

DATA_FILE = "sac_paper.json"
"""The data file's name inside the ``protocol_runner.data`` package directory."""

_SCHEMA = "robustgraph/sac-paper-values/1"
_KINDS = ("metrics", "rounds", "composition")


@dataclass(frozen=True)
class PaperBenchmark:
    """One benchmark column of a paper table: the dataset, its size, the models, answer kind."""

    key: str
    dataset: str
    questions: int
    models: Mapping[str, str]
    kind: str
    mean_of: tuple[str, ...] = ()


@dataclass(frozen=True)
class PaperTable:
    """One published table: its setting, benchmarks and rows (dicts keyed by ``columns``)."""

    name: str
    kind: str
    cite: str
    title: str
    setting: Mapping[str, Any]
    benchmarks: Mapping[str, PaperBenchmark]
    rows: tuple[Mapping[str, Any], ...]

    def row(self, **key: Any) -> Mapping[str, Any] | None:
        """The one row whose columns equal ``key`` (e.g. ``method="sac", topology="er"``)."""
        found = [r for r in self.rows if all(r.get(k) == v for k, v in key.items())]
        if len(found) > 1:
            raise ParameterError(f"{self.name}: {key} matches {len(found)} rows")
        return found[0] if found else None


def round_span(label: str) -> tuple[int, int]:
    """The rounds a per-round row covers: ``Init`` (0, 0), ``Rnd 3`` (3, 3), ``Rnd 1-6`` (1, 6).

    >>> round_span("Rnd 1-6")
    (1, 6)
    """
    if label == "Init":
        return (0, 0)
    if label.startswith("Rnd "):
        first, _, last = label[4:].partition("-")
        if first.isdigit() and (not last or last.isdigit()):
            return (int(first), int(last or first))
    raise ParameterError(f"not a round label of the paper: {label!r}")


def _benchmarks(raw: Mapping[str, Any]) -> dict[str, PaperBenchmark]:
    return {
        key: PaperBenchmark(key, b["dataset"], int(b["questions"]), MappingProxyType(b["models"]),
                            b["kind"], tuple(b.get("mean_of", ())))
        for key, b in raw.items()
    }


def _parse(document: Mapping[str, Any]) -> dict[str, PaperTable]:
    if document.get("schema") != _SCHEMA:
        raise ParameterError(f"{DATA_FILE}: schema is not {_SCHEMA}")
    raw = document["tables"]
    tables: dict[str, PaperTable] = {}
    for name, entry in raw.items():
        setting = entry["setting"]
        source = raw[setting["same_as"]] if "same_as" in setting else entry
        bench = entry.get("benchmarks", source.get("benchmarks"))
        if "same_as" in bench:
            bench = raw[bench["same_as"]]["benchmarks"]
        if "same_as" in setting:
            setting = raw[setting["same_as"]]["setting"]
        if entry["kind"] not in _KINDS:
            raise ParameterError(f"{DATA_FILE}: {name}: unknown kind {entry['kind']!r}")
        columns = entry["columns"]
        rows = []
        for row in entry["rows"]:
            if len(row) != len(columns):
                raise ParameterError(f"{DATA_FILE}: {name}: row {row} has not {len(columns)} cells")
            rows.append(MappingProxyType(dict(zip(columns, row, strict=True))))
        tables[name] = PaperTable(name, entry["kind"], entry["cite"], entry["title"],
                                  MappingProxyType(dict(setting)), _benchmarks(bench), tuple(rows))
    return tables


@cache
def paper_tables() -> Mapping[str, PaperTable]:
    """Every published table of the paper, by name (``table1`` ... ``table10``), read once.

    Raises
    ------
    ParameterError
        When the shipped data file is missing or malformed (a broken installation).

    Examples
    --------
    >>> t1 = paper_tables()["table1"]
    >>> t1.setting["F"], t1.row(benchmark="math", method="sac", topology="merg")["FAA"]
    (3, 53.1)
    """
    try:
        text = resources.files("protocol_runner.data").joinpath(DATA_FILE).read_text("utf-8")
        return MappingProxyType(_parse(json.loads(text)))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ParameterError(f"shipped paper values ({DATA_FILE}) unreadable: {exc}") from None


# --- the paper's own cross-checks ------------------------------------------------------------

_BFTI_TOLERANCE = 0.15  # FAA and IAA are each rounded to 0.1
_MEAN_TOLERANCE = {1: 0.1, 0: 1.0}  # decimals of the averaged column -> tolerance of the mean
_GROUP_TOLERANCE = 0.5  # a one-decimal round value against the paper's integer group column


def _bfti(tables: Mapping[str, PaperTable]) -> list[str]:
    out = []
    for table in tables.values():
        for row in table.rows:
            if "BFTI" in row and abs(row["FAA"] - row["IAA"] - row["BFTI"]) > _BFTI_TOLERANCE:
                out.append(f"{table.name} {_where(row)}: BFTI {row['BFTI']} != FAA - IAA "
                           f"= {row['FAA'] - row['IAA']:.1f}")
    return out


def _where(row: Mapping[str, Any], *keys: str) -> str:
    keys = keys or ("benchmark", "method", "topology", "composition", "round")
    return "/".join(str(row[k]) for k in keys if k in row)


def _means(mean: PaperTable, parts: PaperTable, keys: tuple[str, ...]) -> list[str]:
    """Each cell of ``mean`` against the mean of the same cell over ``parts``' benchmarks."""
    out = []
    for row in mean.rows:
        names = mean.benchmarks[row["benchmark"]].mean_of
        found = [parts.row(benchmark=b, **{k: row[k] for k in keys}) for b in names]
        for column, value in row.items():
            if column in ("benchmark", *keys) or any(f is None for f in found):
                continue
            average = sum(f[column] for f in found) / len(found)
            decimals = 0 if isinstance(value, int) else 1
            if abs(average - value) > _MEAN_TOLERANCE[decimals] + 1e-9:
                out.append(f"{mean.name} {_where(row)} {column}: {value} != mean of "
                           f"{parts.name} = {average:.2f}")
    return out


def _init_and_last(
    metrics: PaperTable, rounds: PaperTable
) -> Iterator[tuple[Mapping[str, Any], Mapping[str, Any], str]]:
    """(metrics row, per-round row, "IAA" | "FAA"): each row's Init row and its last round's row."""
    for row in metrics.rows:
        key = {k: row[k] for k in ("benchmark", "method", "topology")}
        per_round = [r for r in rounds.rows if all(r[k] == v for k, v in key.items())]
        if per_round:
            yield row, per_round[0], "IAA"
            yield row, max(per_round, key=lambda r: round_span(r["round"])[1]), "FAA"


def _groups(metrics: PaperTable, rounds: PaperTable) -> list[str]:
    """The Init row against W_IAA / S_IAA, and the last round's row against W_FAA / S_FAA."""
    out = []
    for row, published, stage in _init_and_last(metrics, rounds):
        for group in ("W", "S"):
            if abs(published[group] - row[f"{group}_{stage}"]) > _GROUP_TOLERANCE + 1e-9:
                out.append(f"{rounds.name} {_where(published)} {group} = {published[group]} "
                           f"but {metrics.name} {group}_{stage} = {row[f'{group}_{stage}']}")
    return out


def _weighted(metrics: PaperTable, rounds: PaperTable) -> list[str]:
    """IAA and FAA against the roster-weighted W / S of the Init and last per-round rows.

    With the adversary's out-of-distribution answer never correct (App. B.4), Sec. 5.1's IAA
    over all ``n`` agents is ``(weak * W + strong * S) / n``.
    """
    setting = metrics.setting
    out = []
    for row, published, metric in _init_and_last(metrics, rounds):
        weighted = (setting["weak"] * published["W"] + setting["strong"] * published["S"]) / (
            setting["n"])
        if abs(weighted - row[metric]) > _BFTI_TOLERANCE:
            out.append(f"{metrics.name} {_where(row)} {metric} = {row[metric]} but "
                       f"{rounds.name}'s {published['round']} W / S give {weighted:.1f}")
    return out


def consistency_issues() -> list[str]:
    """The paper's internal cross-checks that fail, one line each (empty when all agree).

    Checks: BFTI = FAA - IAA (within rounding) in Tables 1, 3, 5, 6 and 9; every Table 3 cell
    is the mean of its five Table 9 cells and every Table 4 cell the mean of its five Table 10
    cells; the Init row of Tables 2 and 10 (and 4) equals the W / S IAA of Tables 1 and 9 (and
    3), and the last round's row (CP-WBFT's aggregated ``Rnd 1-6``) their W / S FAA, to the
    paper's integer rounding; and IAA / FAA equal the roster-weighted W / S of those rows
    (:func:`_weighted`).

    >>> len(consistency_issues())  # the nine listed in docs/protocols.md
    9
    """
    t = paper_tables()
    return [
        *_bfti(t),
        *_means(t["table3"], t["table9"], ("method", "topology")),
        *_means(t["table4"], t["table10"], ("method", "round", "topology")),
        *_groups(t["table1"], t["table2"]),
        *_groups(t["table3"], t["table4"]),
        *_groups(t["table9"], t["table10"]),
        *_weighted(t["table1"], t["table2"]),
        *_weighted(t["table3"], t["table4"]),
        *_weighted(t["table9"], t["table10"]),
    ]
