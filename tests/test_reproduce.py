"""``robustgraph reproduce``: the paper's table settings, paper vs ours with CIs over seeds, and
the qualitative pattern of Table 1 on the simulated backend (simulated agents: not LLM results).
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from click.testing import CliRunner

from protocol_runner.analysis.collection import run_dirs
from protocol_runner.analysis.metrics import PAPER_METRICS
from protocol_runner.analysis.reproduce import (
    TABLES,
    load_paper_values,
    reproduce,
    table_json,
    table_text,
)
from protocol_runner.run.runner import parse_seeds
from robustgraph.cli import main
from robustgraph.errors import ParameterError


def test_table_settings_follow_the_sources():
    t1 = TABLES["table1"]
    assert (t1.roster, t1.F, t1.rounds, t1.attack) == ("4S2W1A", 3, 6, "fixed")
    assert [c.label for c in t1.cells] == ["gamma-MERG", "complete", "ER", "PA"]
    assert {c.n for c in t1.cells} == {7} and {c.n for c in TABLES["table5"].cells} == {9}
    assert "judge" in t1.protocols  # the judge-only control is part of the main job
    assert TABLES["table6"].roster == "4S3A"
    assert set(TABLES) == {"table1", "table3", "table5", "table6"}


@pytest.fixture(scope="module")
def table1(tmp_path_factory):
    """Table 1 on gamma-MERG and complete, 3 seeds, 12 arithmetic tasks (simulated)."""
    spec = replace(TABLES["table1"], cells=TABLES["table1"].cells[:2])
    out = tmp_path_factory.mktemp("table1")
    return reproduce(spec, out, seeds=(1, 2, 3), tasks="arith:12", resamples=300), out


def test_table1_pattern_on_the_simulated_backend(table1):
    # SAC: BFTI >= about 0 and the strong agents preserved; CP-WBFT: BFTI negative and the
    # strong agents collapsing (the paper's qualitative finding).
    result, _ = table1
    for cell in ("gamma-MERG", "complete"):
        sac, cp = result.metrics[cell]["sac"], result.metrics[cell]["cpwbft"]
        assert sac.estimates["BFTI"].high >= 0, cell  # not below zero (36 queries)
        assert sac.value("S_FAA") >= sac.value("S_IAA") - 0.1, cell
        assert cp.value("BFTI") < 0 and cp.value("S_FAA") < cp.value("S_IAA") - 0.1, cell
        assert sac.seeds == (1, 2, 3) and sac.queries_per_seed == (12, 12, 12)


def test_table_prints_paper_beside_ours_with_intervals(table1):
    result, _ = table1
    text = table_text(result)
    assert "simulated agents: not LLM results" in text
    assert "3 seeds (1, 2, 3) x 12 queries" in text and "sim-strong" in text
    assert all(f"{m}: ours / paper" in text for m in PAPER_METRICS)
    sac = result.metrics["gamma-MERG"]["sac"].estimates["IAA"]
    assert f"{100 * sac.value:.1f} [{100 * sac.low:.1f}, {100 * sac.high:.1f}] / n/a" in text
    with_paper = replace(result, paper={"sac/gamma-MERG": {"IAA": 59.4}})
    assert "/ 59.4 |" in table_text(with_paper)
    data = table_json(result)
    assert data["simulated"] and data["seeds"] == [1, 2, 3]
    assert {c["topology"] for c in data["cells"]} == {"gamma-MERG", "complete"}
    assert all(c["paper"] is None for c in data["cells"])


def test_reproduce_resumes_from_its_runs(table1):
    result, out = table1
    spec = replace(TABLES["table1"], cells=TABLES["table1"].cells[:2])
    again = reproduce(spec, out, seeds=(1, 2, 3), tasks="arith:12", resamples=300)
    assert table_text(again) == table_text(result)


def test_report_keeps_the_tables_topology_order(table1, tmp_path):
    # by name "complete" would come before "gamma-MERG"; the table's order puts it second
    _, out = table1
    assert [d.name for d in run_dirs(out)] == ["gamma-MERG", "complete"]
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "results.jsonl").write_text("")
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "results.jsonl").write_text("")
    assert [d.name for d in run_dirs(tmp_path)] == ["a", "b"]  # no order file: by name
    (tmp_path / "order.json").write_text('{"runs": ["b", "gone"]}')
    assert [d.name for d in run_dirs(tmp_path)] == ["b", "a"]  # named first, then by name
    (tmp_path / "order.json").write_text("{not json")
    assert [d.name for d in run_dirs(tmp_path)] == ["a", "b"]  # a bad file changes nothing


def test_paper_values_file_and_seed_specs(tmp_path):
    good = tmp_path / "paper.json"
    good.write_text(json.dumps({"sac/gamma-MERG": {"IAA": 59.4, "BFTI": 11.1}}))
    assert load_paper_values(good) == {"sac/gamma-MERG": {"IAA": 59.4, "BFTI": 11.1}}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"sac/gamma-MERG": {"iaa": 59.4}}))
    with pytest.raises(ParameterError, match="must be one of"):
        load_paper_values(bad)
    assert parse_seeds("1-3,7") == (1, 2, 3, 7) and parse_seeds("2") == (2,)
    for text in ("3-1", "a", "1-", "-2", ""):
        with pytest.raises(ParameterError, match="--seeds"):
            parse_seeds(text)


def test_cli_bad_input_is_one_line(tmp_path):
    result = CliRunner().invoke(main, ["reproduce", "table1", "--seeds", "x", "-o",
                                       str(tmp_path / "o")])
    assert result.exit_code == 2 and "--seeds 'x'" in result.output
    assert "Traceback" not in result.output
