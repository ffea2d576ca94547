"""``reproduce``'s Tables 3/4/9/10 on data of each benchmark's own kind and size, with the
profile fitted to that benchmark (issue 42, item 1), said in ``--help`` and the output."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from protocol_runner.analysis import reproduce as repro
from protocol_runner.analysis.reproduce import TABLES, reproduce, resolve_tasks
from protocol_runner.tasks.spec import load_tasks
from robustgraph.cli import main

NINE = {"arc_challenge": "choice", "hellaswag": "choice", "boolq": "bool",
        "openbookqa": "choice", "rte": "bool"}


@pytest.mark.parametrize("name", ["table3", "table4", "table9", "table10"])
def test_each_benchmark_runs_its_own_kind_and_size_with_its_own_profile(name):
    for column in TABLES[name].columns:
        tasks = load_tasks(column.stand_in)
        assert len(tasks) == column.questions == 50
        assert {t.kind for t in tasks} == {NINE[column.key]} == {column.kind}
        assert column.profile == f"table10-{column.key}"
        assert not set(column.stand_in.split(":")[0].split("-")) & {"commonsense30", "arith"}


def test_a_bare_file_is_read_in_the_benchmarks_format_at_the_papers_size(tmp_path):
    data = tmp_path / "arc.jsonl"
    data.write_text("")
    spec = TABLES["table9"]
    found = resolve_tasks(spec, [f"arc_challenge={data}", "rte=rte:x.jsonl:7"])
    assert found["arc_challenge"] == (f"arc:{data}:50", False)
    assert found["rte"] == ("rte:x.jsonl:7", False)  # a spec stays as given
    assert found["boolq"] == ("placeholder-boolq:50", True)


def test_each_column_runs_its_profile_unless_sim_config_is_given(tmp_path, monkeypatch):
    seen = []
    monkeypatch.setattr(repro, "run", seen.append)
    monkeypatch.setattr(repro, "write_summary", lambda *a, **k: None)

    class Stop(Exception):
        pass

    def stop(*args, **kwargs):
        raise Stop

    monkeypatch.setattr(repro, "write_order", stop)
    with pytest.raises(Stop):
        reproduce(TABLES["table9"], tmp_path / "a", seeds=(1,), tasks=("arith:3",))
    assert {(s.output.parts[-3], s.backend.sim_config) for s in seen} == {
        (key, f"table10-{key}") for key in NINE}
    seen.clear()
    with pytest.raises(Stop):
        reproduce(TABLES["table1"], tmp_path / "b", seeds=(1,), tasks=("arith:3",),
                  backend=repro.BackendSpec(sim_config="handset"))
    assert {s.backend.sim_config for s in seen} == {"handset"}


def test_help_names_data_kind_size_and_profile_per_column():
    text = CliRunner().invoke(main, ["reproduce", "--help"], terminal_width=120).output
    assert ("arc_challenge=ARC-C: placeholder-arc_challenge:50 (choice, 50 q.; paper 50 q.), "
            "profile table10-arc_challenge") in text
    assert "math=MATH: arith:20 (math, 20 q.; paper 100 q.), profile table2-math" in text
    assert max(map(len, text.splitlines())) <= 120


def test_the_output_spells_out_its_metrics_and_rosters(tmp_path):
    """Issue 44, item 4: IAA, FAA, BFTI, RA, H-Majority and 4S2W1A explained in the output."""
    done = CliRunner().invoke(main, ["reproduce", "table1", "--tasks", "arith:2", "--seeds", "1",
                                     "--resamples", "20", "-o", str(tmp_path)])
    assert done.exit_code == 0, done.output
    flat = " ".join(done.output.split())
    for words in ("IAA / FAA: initial / final answer accuracy", "BFTI (Byzantine fault-tolerance "
                  "improvement) = FAA - IAA", "RA (robust accuracy)", "H-Maj. (H-Majority)",
                  "4S2W1A: 4 strong, 2 weak, 1 adversarial agent"):
        assert words in flat
    assert max(len(x) for x in done.output.splitlines() if str(tmp_path) not in x) <= 120
    assert "MATH: 100 q." not in done.output  # the paper's count only beside ours (item 7)


def test_a_local_arc_file_is_read_as_arc(tmp_path):
    import json

    data = tmp_path / "ARC-Challenge-Test.jsonl"
    records = [{"id": f"q{i}", "question": {"stem": f"Which {i}?", "choices": [
        {"label": "A", "text": "one"}, {"label": "B", "text": "two"}]}, "answerKey": "B"}
        for i in range(3)]
    data.write_text("".join(json.dumps(r) + "\n" for r in records))
    spec, built_in = resolve_tasks(TABLES["table9"], [f"arc_challenge={data}"])["arc_challenge"]
    tasks = load_tasks(spec)
    assert not built_in and [t.kind for t in tasks] == ["choice"] * 3
    assert tasks[0].answer == "answer2"
