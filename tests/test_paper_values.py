"""The shipped SAC-paper values (protocol_runner/data/sac_paper.json): settings, cells, and the
paper's own cross-checks (Lee et al. 2026, Tables 1-6, 9, 10)."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from protocol_runner.analysis import paper_values
from protocol_runner.analysis.paper_values import consistency_issues, paper_tables, round_span
from robustgraph.errors import ParameterError

ROW_COUNTS = {"table1": 12, "table2": 54, "table3": 6, "table4": 27, "table5": 18,
              "table6": 8, "table9": 30, "table10": 135}

# The paper's inconsistencies, as docs/protocols.md lists them ("The paper's own inconsistencies").
KNOWN = [
    "table2 commonsense/cpwbft/complete/Init W = 75.0 but table1 W_IAA = 72",
    "table2 commonsense/cpwbft/complete/Rnd 1-6 W = 13.3 but table1 W_FAA = 17",
    "table2 commonsense/cpwbft/complete/Rnd 1-6 S = 13.3 but table1 S_FAA = 17",
    "table2 commonsense/sac/complete/Init W = 75.0 but table1 W_IAA = 77",
    "table2 commonsense/sac/complete/Rnd 6 S = 83.3 but table1 S_FAA = 82",
    "table1 commonsense/cpwbft/complete IAA = 69.0 but table2's Init W / S give 70.0",
    "table1 commonsense/cpwbft/complete FAA = 14.3 but table2's Rnd 1-6 W / S give 11.4",
    "table1 commonsense/sac/complete IAA = 69.5 but table2's Init W / S give 69.0",
    "table1 commonsense/sac/complete FAA = 69.5 but table2's Rnd 6 W / S give 70.5",
]


def _raw() -> dict:
    text = resources.files("protocol_runner.data").joinpath("sac_paper.json").read_text("utf-8")
    return json.loads(text)


def test_every_table_and_row_is_there() -> None:
    tables = paper_tables()
    assert {name: len(t.rows) for name, t in tables.items()} == ROW_COUNTS


def test_settings_are_the_papers() -> None:
    t = paper_tables()
    one = t["table1"].setting
    assert (one["n"], one["strong"], one["weak"], one["adversarial"], one["F"], one["T"]) == (
        7, 4, 2, 1, 3, 6)
    assert one["r"] == {"merg": 4, "complete": 4, "er": 4}  # no PA in Table 1
    math, common = t["table1"].benchmarks["math"], t["table1"].benchmarks["commonsense"]
    assert (math.questions, dict(math.models)) == (100, {"strong": "gpt-4o-mini",
                                                         "weak": "gpt-3.5-turbo"})
    assert (common.questions, dict(common.models)) == (30, {"strong": "gpt-5", "weak": "gpt-4o"})
    assert t["table2"].setting == one and t["table2"].benchmarks.keys() == {"math", "commonsense"}
    assert t["table3"].benchmarks["mean5"].mean_of == (
        "arc_challenge", "hellaswag", "boolq", "openbookqa", "rte")
    assert {b.questions for b in t["table9"].benchmarks.values()} == {50}
    assert t["table10"].benchmarks.keys() == t["table9"].benchmarks.keys()
    assert {b.models["strong"] for b in t["table9"].benchmarks.values()} == {"Qwen3-4B"}
    five = t["table5"].setting
    assert [(c["adversarial"], c["weak"]) for c in five["compositions"]] == [(1, 2), (2, 1), (3, 0)]
    assert (five["n"], five["strong"], five["F"], five["T"]) == (7, 4, 3, 6)
    six = t["table6"].setting
    assert (six["n"], six["strong"], six["weak"], six["adversarial"], six["F"], six["T"]) == (
        9, 6, 2, 1, 3, 6)
    assert six["r"] == {"merg": 5, "complete": 5, "pa": 4, "er": 4}
    assert t["table6"].benchmarks["math30"].questions == 30


def test_spot_cells() -> None:
    t = paper_tables()
    assert t["table1"].row(benchmark="commonsense", method="cpwbft", topology="complete")[
        "BFTI"] == -54.7
    assert t["table6"].row(method="sac", topology="er")["BFTI"] == -2.2
    assert t["table5"].row(method="sac", topology="merg", composition="b1w2")["H_Majority"] == 96.7
    rte = t["table10"].row(benchmark="rte", method="sac", round="Rnd 6", topology="er")
    assert (rte["W"], rte["S"]) == (69.0, 82.5)
    assert t["table4"].row(method="cpwbft", round="Rnd 1-6", topology="er")["S"] == 39.1


def test_the_papers_cross_checks_fail_only_where_documented() -> None:
    assert consistency_issues() == KNOWN


def test_docs_list_every_inconsistency() -> None:
    from pathlib import Path

    docs = (Path(__file__).parents[1] / "docs" / "protocols.md").read_text(encoding="utf-8")
    section = docs.split("### The paper's own inconsistencies")[1].split("\n## ")[0]
    section = " ".join(section.split())
    for cell in ("75.0 (Table 1: W IAA 72)", "13.3 and S 13.3", "W 75.0 (Table 1: W IAA 77)",
                 "S 83.3 (Table 1:", "69.0 vs 70.0", "14.3 vs 11.4", "69.5 vs 69.0",
                 "69.5 vs 70.5"):
        assert cell in section


@pytest.mark.parametrize("table, key, column, value, expect", [
    ("table6", {"method": "sac", "topology": "er"}, "BFTI", 2.2, "BFTI 2.2 != FAA - IAA"),
    ("table9", {"benchmark": "rte", "method": "sac", "topology": "er"}, "RA", 90.0,
     "table3 mean5/sac/er RA: 76.8 != mean of table9"),
    ("table10", {"benchmark": "boolq", "method": "sac", "round": "Rnd 3", "topology": "merg"},
     "S", 93.5, "table4 mean5/sac/merg/Rnd 3 S: 75.7 != mean of table10"),
    ("table2", {"benchmark": "math", "method": "sac", "round": "Init", "topology": "er"},
     "W", 30.0, "table2 math/sac/er/Init W = 30.0 but table1 W_IAA = 25"),
])
def test_a_changed_cell_is_caught(monkeypatch, table, key, column, value, expect) -> None:
    document = _raw()
    entry = document["tables"][table]
    for row in entry["rows"]:
        named = dict(zip(entry["columns"], row, strict=True))
        if all(named[k] == v for k, v in key.items()):
            row[entry["columns"].index(column)] = value
    monkeypatch.setattr(paper_values, "paper_tables", lambda: paper_values._parse(document))
    assert any(expect in issue for issue in consistency_issues())


def test_round_labels() -> None:
    assert [round_span(x) for x in ("Init", "Rnd 4", "Rnd 1-6")] == [(0, 0), (4, 4), (1, 6)]
    with pytest.raises(ParameterError):
        round_span("Round 2")


def test_a_malformed_row_is_one_clear_error() -> None:
    document = _raw()
    document["tables"]["table6"]["rows"][0].append(1.0)
    with pytest.raises(ParameterError, match="table6"):
        paper_values._parse(document)
