"""``robustgraph reproduce``: every table of the SAC paper in its own setting (Lee et al. 2026,
Tables 1-6, 9, 10), ours beside the published values, one bootstrap with ``report``.

Every table runs here at a tiny size (3 arithmetic tasks, one seed, T = 6 as in the paper) on
the simulated backend (simulated agents: not LLM results).
"""

from __future__ import annotations

import json
import math
from dataclasses import replace

import pytest
from click.testing import CliRunner

from protocol_runner.analysis import reproduce as repro
from protocol_runner.analysis.collection import collection_dirs, run_dirs
from protocol_runner.analysis.paper_values import consistency_issues, paper_tables
from protocol_runner.analysis.reproduce import (
    ER_DRAWS,
    TABLES,
    er_probability,
    plan,
    reproduce,
    resolve_tasks,
)
from protocol_runner.analysis.reproduce_view import (
    DISAGREEING,
    WIDTH,
    compare,
    table_json,
    table_text,
)
from protocol_runner.run.runner import parse_seeds
from robustgraph.cli import main
from robustgraph.errors import ParameterError
from robustgraph.robustness import max_r

TINY = ("arith:3",)


def test_every_table_and_its_setting():
    assert list(TABLES) == ["table1", "table2", "table3", "table4", "table5", "table6",
                            "table9", "table10"]
    t1 = TABLES["table1"]
    assert (t1.n, t1.F, t1.T, t1.graphs) == (7, 3, 6, (("merg", 4), ("complete", 4), ("er", 4)))
    assert [(c.key, c.roster, c.questions) for c in t1.columns] == [
        ("math", "4S2W1A", 100), ("commonsense", "4S2W1A", 30)]
    assert TABLES["table2"].runs == "table1" and TABLES["table2"].view == "rounds"
    nine = [c.key for c in TABLES["table9"].columns]
    assert nine == ["arc_challenge", "hellaswag", "boolq", "openbookqa", "rte"]
    for name in ("table3", "table4", "table10"):
        assert [c.key for c in TABLES[name].columns] == nine and TABLES[name].runs == "table9"
    assert TABLES["table3"].pooled and TABLES["table4"].pooled and not TABLES["table9"].pooled
    t5 = TABLES["table5"]
    assert [(c.key, c.roster) for c in t5.columns] == [
        ("b1w2", "4S2W1A"), ("b2w1", "4S1W2A"), ("b3w0", "4S3A")]
    assert (t5.n, t5.F, t5.T, dict(t5.graphs)) == (7, 3, 6, {"merg": 4, "complete": 4, "er": 4})
    t6 = TABLES["table6"]
    assert (t6.n, t6.F, t6.T, [c.roster for c in t6.columns]) == (9, 3, 6, ["6S2W1A"])
    assert dict(t6.graphs) == {"merg": 5, "complete": 5, "pa": 4, "er": 4}
    assert {c.questions for c in t5.columns + t6.columns} == {30}


def test_help_lists_every_table_with_its_setting():
    result = CliRunner().invoke(main, ["reproduce", "--help"], terminal_width=120)
    assert result.exit_code == 0
    for name, spec in TABLES.items():
        assert f"{name}: {spec.cite}" in result.output
    assert "n=9 (6S2W1A), F=3, T=6; MERG r=5, Complete r=5, PA r=4, ER r=4" in result.output
    assert "MATH-500" not in result.output and "HMMT" not in result.output


def test_tasks_by_column():
    spec = TABLES["table1"]
    assert resolve_tasks(spec, ["math=math:x.jsonl:100"])["math"] == ("math:x.jsonl:100", False)
    assert resolve_tasks(spec, ["arith:5:seed=2"]) == {
        "math": ("arith:5:seed=2", True), "commonsense": ("arith:5:seed=2", True)}
    assert all(built_in for _, built_in in resolve_tasks(spec).values())
    with pytest.raises(ParameterError, match="no column 'arc'"):
        resolve_tasks(spec, ["arc=arc:x.jsonl"])


def test_er_cells_are_drawn_at_the_papers_p_and_proven_before_any_run(tmp_path, monkeypatch):
    assert math.isclose(er_probability(9, 4), (math.log(9) + 3 * math.log(math.log(9))) / 9)
    cells = plan(TABLES["table6"], tmp_path, (1, 2))
    er = [c for c in cells if c.graph == "er"]
    assert len(er) == 2 and all(1 <= c.draws <= ER_DRAWS for c in er)
    assert all(max_r(c.topology).value >= 4 for c in er)
    pa = next(c for c in cells if c.graph == "pa")
    assert max_r(pa.topology).value >= 4 and pa.topology.n == 9
    # a cell with no r-robust draw stops the table before its first run
    impossible = repro.TableSpec(**{**TABLES["table6"].__dict__, "graphs": (("merg", 5),
                                                                          ("er", 5))})
    monkeypatch.setattr(repro, "ER_DRAWS", 30)
    ran = []
    monkeypatch.setattr(repro, "run", lambda spec: ran.append(spec))
    with pytest.raises(ParameterError, match=r"no 5-robust draw of G\(9, p=0\.5940\) in 30"):
        reproduce(impossible, tmp_path / "x", seeds=(1,), tasks=TINY)
    assert ran == [] and not (tmp_path / "x").exists()


def test_ood_tasks_and_sim_config_reach_every_run(tmp_path, monkeypatch):
    seen = []

    class Stop(Exception):
        pass

    def fake_run(spec):
        seen.append(spec)
        raise Stop

    monkeypatch.setattr(repro, "run", fake_run)
    (tmp_path / "sim.json").write_text('{"model_share": 0.5}')
    backend = repro.BackendSpec(sim_config=str(tmp_path / "sim.json"))
    with pytest.raises(Stop):
        reproduce(TABLES["table6"], tmp_path, seeds=(1,), tasks=TINY, backend=backend,
                  ood_tasks="arith:8:seed=5")
    assert seen[0].ood_tasks == "arith:8:seed=5" and seen[0].F == 3 and seen[0].rounds == 6
    assert seen[0].backend.sim_config == str(tmp_path / "sim.json")
    assert (seen[0].roster, seen[0].protocols, seen[0].attack) == ("6S2W1A", ("cpwbft", "sac"),
                                                                    "fixed")


def test_a_directory_holding_other_seeds_is_refused_before_any_run(tmp_path, monkeypatch):
    """One run per directory, as for ``run`` (issue 30): ``--seeds 1`` into the directory of a
    ``--seeds 1-2`` command would otherwise pool seed 2's old runs into a summary that says
    seed 1 only."""
    reproduce(TABLES["table1"], tmp_path, seeds=(1, 2), tasks=TINY, resamples=50)
    ran = []
    monkeypatch.setattr(repro, "run", ran.append)
    refused = r"math/MERG holds the results of another run \(seed-2/: run id \w+\); this command"
    with pytest.raises(ParameterError, match=refused + " writes seed-1/"):
        reproduce(TABLES["table1"], tmp_path, seeds=(1,), tasks=TINY, resamples=50)
    with pytest.raises(ParameterError, match="differing in: tasks"):
        reproduce(TABLES["table1"], tmp_path, seeds=(1, 2), tasks=("arith:4",), resamples=50)
    assert ran == []
    reproduce(TABLES["table1"], tmp_path, seeds=(1, 2, 3), tasks=TINY, resamples=50)
    assert [spec.seed for spec in ran] == [1, 2, 3] * 6  # the same runs resume, seed 3 is new


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Each table's runs once, tiny; tables of the same runs share a directory."""
    root = tmp_path_factory.mktemp("reproduce")
    out = {}
    for name in TABLES:
        spec = TABLES[name]
        out[name] = reproduce(spec, root / spec.runs, seeds=(1,), tasks=TINY, resamples=200)
    return out


@pytest.mark.parametrize("name", list(TABLES))
def test_every_table_prints_every_published_cell_beside_ours(runs, name):
    result = runs[name]
    text = table_text(result, ci=True, files=["t.txt"])
    assert max(len(line) for line in text.splitlines()) <= WIDTH
    assert "simulated agents: not LLM results" in text
    assert "MATH-500" not in text and "HMMT" not in text
    paper = paper_tables()[name]
    rows = compare(result)
    published = [p.paper for r in rows for c in r.cells for p in c if p.paper is not None]
    if paper.kind == "rounds":
        assert len(published) == 2 * len(paper.rows)
    else:
        columns = [c for c in paper.rows[0] if c not in ("benchmark", "method", "topology",
                                                          "composition")]
        assert len(published) == len(paper.rows) * len(columns)
    data = table_json(result)
    assert data["compared"] == len(published) and 0 <= data["inside"] <= data["compared"]
    flat_text = " ".join(text.split())
    parts = {k: a for k, a in data["agreement"].items() if k != "all"} or data["agreement"]
    assert sum(a["count"]["inside"] for a in parts.values()) == data["inside"]
    for part in parts.values():
        assert f"(no slack): {part['count']['inside']} of {part['cells']}" in flat_text
    assert f"\n  robustgraph report {result.output}\n" in text
    assert "built-in stand-in, not the paper's data" in " ".join(text.split())
    yours = replace(result, tasks={k: ("math:l4.jsonl", False) for k in result.tasks})
    flat = " ".join(table_text(yours).split())
    assert "(your --tasks)" in flat and "stand-in" not in flat


def test_table1_values_and_the_papers_own_disagreement(runs):
    text = table_text(runs["table1"])
    assert any(line.split()[:2] == ["SAC", "MERG"] for line in text.splitlines())
    assert "(53.1)" in text and "(-54.7)" in text
    assert "(25→58)" in text  # the paper's W IAA->FAA, as it prints them
    assert "Complete†" in text and "The paper's own inconsistencies" in text
    assert "PA" not in [line.split()[1] for line in text.splitlines() if line.startswith("SAC")]


def test_daggers_mark_exactly_the_columns_the_paper_contradicts():
    found = {(issue.split()[0], *issue.split()[1].split("/")[0:3:2])
             for issue in consistency_issues()}
    assert found == DISAGREEING  # table1 and table2, Commonsense, Complete


def test_table2_rounds_and_cp_wbfts_aggregated_row(runs):
    result = runs["table2"]
    text = table_text(result)
    assert "CP-WBFT  Rnd 1-6" in text and "SAC      Rnd 6" in text
    assert "Complete† W/S" in text.split("Commonsense: paper")[1]
    assert "Complete† W/S" not in text.split("Commonsense: paper")[0]
    row = next(r for r in compare(result) if r.labels == ("CP-WBFT", "Rnd 1-6")
               and r.benchmark == "math")
    found = result.metrics[("math", "merg")]["cpwbft"]
    weak = [found.rounds["weak"][k].value for k in range(1, 7)]
    assert row.cells[0][0].ours.value == pytest.approx(sum(weak) / 6)
    assert row.cells[0][0].paper == 57.5


def test_table5_prints_dash_for_no_weak_agent_and_na_for_unpublished(runs):
    text = table_text(runs["table5"])
    b3w0 = text.split("b=3 w=0 (4S3A): paper")[1]
    assert "-→- (n/a)" in b3w0  # no weak agent: undefined ours, unpublished paper
    flat = " ".join(text.split())
    assert "-: undefined for this run" in flat and "n/a: the paper's Table 5 does not" in flat


def test_table3_is_the_mean_of_table9s_runs(runs):
    three, nine = runs["table3"], runs["table9"]
    sac = three.metrics[("mean5", "merg")]["sac"].value("FAA")
    parts = [nine.metrics[(c.key, "merg")]["sac"].value("FAA") for c in TABLES["table9"].columns]
    assert sac == pytest.approx(sum(parts) / len(parts))  # equal question counts: the mean


def test_report_and_reproduce_give_one_bootstrap_and_one_name(runs, tmp_path):
    result = runs["table1"]
    reported = CliRunner().invoke(main, ["report", str(result.output), "--json", "--no-plots",
                                         "--resamples", "200"])
    assert reported.exit_code == 0, reported.output
    collections = json.loads(reported.output)["collections"]
    assert set(collections) == {"math", "commonsense"}
    checked = 0
    for row in compare(result):
        method = {"CP-WBFT": "cpwbft", "SAC": "sac"}[row.labels[0]]
        run = collections[row.benchmark]["runs"][row.labels[1].removesuffix("†")]
        assert run["run"]["graph_name"] == row.labels[1].removesuffix("†")
        for pair in (p for cell in row.cells for p in cell):
            theirs = run["protocols"][method]["metrics"][pair.metric]
            assert (theirs is None) == (pair.ours is None)
            if theirs is not None:
                assert 100 * theirs["low"] == pytest.approx(100 * pair.ours.low, abs=1e-3)
                assert 100 * theirs["high"] == pytest.approx(100 * pair.ours.high, abs=1e-3)
                checked += 1
    assert checked == 12 * 9


def test_cli_writes_the_table_and_says_where(runs, tmp_path):
    out = runs["table1"].output
    result = CliRunner().invoke(main, ["reproduce", "table1", "--tasks", "arith:3", "--seeds",
                                       "1", "--resamples", "200", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert (out / "table1.txt").is_file() and json.loads((out / "table1.json").read_text())
    assert f"this table: {out}/table1.txt" in " ".join(result.output.split())


def test_report_keeps_the_tables_topology_order(runs, tmp_path):
    # by name "Complete" would come before "MERG"; the table's order puts it second
    out = runs["table1"].output
    assert [d.name for d in run_dirs(out / "math")] == ["MERG", "Complete", "ER"]
    assert [d.name for d in collection_dirs(out)] == ["commonsense", "math"]
    assert collection_dirs(out / "math") == [] and run_dirs(out) == []
    for name in ("b", "a"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "results.jsonl").write_text("")
    assert [d.name for d in run_dirs(tmp_path)] == ["a", "b"]  # no order file: by name
    (tmp_path / "order.json").write_text('{"runs": ["b", "gone"]}')
    assert [d.name for d in run_dirs(tmp_path)] == ["b", "a"]  # named first, then by name
    (tmp_path / "order.json").write_text("{not json")
    assert [d.name for d in run_dirs(tmp_path)] == ["a", "b"]  # a bad file changes nothing


def test_seed_specs():
    assert parse_seeds("1-3,7") == (1, 2, 3, 7) and parse_seeds("2") == (2,)
    for text in ("3-1", "a", "1-", "-2", ""):
        with pytest.raises(ParameterError, match="--seeds"):
            parse_seeds(text)


def test_cli_bad_input_is_one_line(tmp_path):
    missing = f"commonsense=jsonl:{tmp_path / 'missing.jsonl'}"
    for args in (["--seeds", "x"], ["--tasks", "arc=arc:x"], ["--tasks", missing]):
        result = CliRunner().invoke(main, ["reproduce", "table1", *args, "-o",
                                           str(tmp_path / "o")])
        assert result.exit_code == 2 and "Traceback" not in result.output
        assert len(result.output.strip().splitlines()) == 1
        assert not (tmp_path / "o" / "math").exists()  # no run started


def test_every_cell_is_marked_fitted_or_predicted(runs):
    """Table 1's MATH and Commonsense W/S, IAA, FAA, BFTI are the per-round rows Table 2's fits
    saw (issue 42, item 3); RA, H-Majority, Table 6 and a hand-set column are predicted."""
    def fits(name, benchmark):
        return {p.metric: p.fitted for r in compare(runs[name]) if r.benchmark == benchmark
                for c in r.cells for p in c}

    math_cells = fits("table1", "math")
    assert {m for m, f in math_cells.items() if f} == {
        "IAA", "FAA", "BFTI", "W_IAA", "W_FAA", "S_IAA", "S_FAA"}
    assert math_cells["RA_first"] is False and math_cells["H_Majority_first"] is False
    assert fits("table1", "commonsense")["IAA"] is True
    assert fits("table1", "commonsense")["RA_first"] is False
    handset = replace(runs["table1"], column_profiles={"math": "handset", "commonsense": "x.json"})
    assert {p.fitted for r in compare(handset) for c in r.cells for p in c} == {False, None}
    assert set(fits("table2", "math").values()) == {True}
    assert set(fits("table6", "math30").values()) == {False}
    assert fits("table3", "mean5")["IAA"] is True
    assert fits("table3", "mean5")["RA_first"] is False
    data = table_json(runs["table1"])
    assert {c["fit"] for r in data["rows"] for c in r["cells"]} == {"fitted", "predicted"}
    assert set(data["agreement"]) == {"all", "fitted", "predicted"}
    text = table_text(runs["table1"])
    assert "*: fitted (in-sample)" in " ".join(text.split())
    ra = next(r for r in compare(runs["table1"]) if r.benchmark == "math")
    first = next(line for line in text.split("MATH: paper")[1].splitlines()
                 if line.startswith("CP-WBFT"))
    assert first.split()[2].endswith("*") and "*" not in first.split()[8]  # IAA, RA
    assert ra.cells[3][0].fitted is False


def test_csv_and_latex_carry_fitted_or_predicted(runs, tmp_path):
    import csv
    import io

    from protocol_runner.analysis.reproduce_export import table_csv, table_latex

    result = runs["table1"]
    lines = list(csv.DictReader(io.StringIO(table_csv(result))))
    assert len(lines) == 12 * 9
    fits = {(x["benchmark"], x["metric"]): x["fit"] for x in lines}
    assert fits[("math", "IAA")] == "fitted" and fits[("math", "RA_first")] == "predicted"
    assert {x["simulated"] for x in lines} == {"true"}
    tex = table_latex(result)
    assert tex.count("$^{*}$") == 1 + 12 * 5  # the caption; IAA, FAA, BFTI, W, S per row
    assert "not LLM results" in tex
    out = result.output
    done = CliRunner().invoke(main, ["reproduce", "table1", "--tasks", "arith:3", "--seeds", "1",
                                     "--resamples", "200", "-o", str(out)])
    assert done.exit_code == 0, done.output
    assert (out / "table1.csv").read_text() == table_csv(result)


def test_ra_and_h_majority_break_ties_as_the_authors_by_default(runs):
    result = runs["table1"]

    def metrics(res):
        return {p.metric for r in compare(res) for c in r.cells for p in c}

    assert {"RA_first", "H_Majority_first"} <= metrics(result)
    assert not {"RA", "H_Majority"} & metrics(result)
    strict = replace(result, ties="wrong")
    assert {"RA", "H_Majority"} <= metrics(strict)
    assert "first occurrence in agent order, as the authors' code" in " ".join(
        table_text(result).split())
    assert table_json(result)["ties"] == "first" and table_json(strict)["ties"] == "wrong"
    assert table_json(result)["profiles"] == {"math": "table2-math",
                                              "commonsense": "table2-commonsense"}
