"""``robustgraph sweep``: spec checking, stable cell ids, resume, failing cells, local vs Ray."""

from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from conftest import assert_doctests_pass_in_fresh_process

from protocol_runner.run.records import read_records
from protocol_runner.sweep.execute import CELL_FILE, ERROR_FILE, run_sweep
from protocol_runner.sweep.spec import SpecError, load_spec, parse_spec
from robustgraph.cli import main
from robustgraph.executors import LocalExecutor, RayExecutor

TINY = {
    "name": "tiny",
    "grid": {
        "topology": "merg",
        "n": 5,
        "roster": "3S1W1A",
        "tasks": "arith:3",
        "rounds": 1,
        "seed": [1, 2],
    },
    "protocols": ["sac", "majority"],
    "options": {"plots": False, "resamples": 200, "concurrency": 8},
}


def tiny(**grid) -> dict:
    spec = copy.deepcopy(TINY)
    spec["grid"].update(grid)
    return spec


def sweep(spec: dict, out: Path, executor=None):
    executor = executor or LocalExecutor(workers=1)
    return run_sweep(parse_spec(spec), out, executor=executor, progress=False)


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


# ----------------------------------------------------------------------------- the spec
@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"grids": {}}, "top level: unknown key 'grids'"),
        ({"grid": {"n": 5}}, "grid: missing axis 'topology'"),
        ({"grid": {**TINY["grid"], "n": [5, 0]}}, r"grid.n\[1\]: must be >= 1"),
        (
            {"grid": {**TINY["grid"], "n": [5, 7]}},
            "roster 3S1W1A has 5 agents but the grid has n = 7",
        ),
        ({"grid": {**TINY["grid"], "topology": "ring"}}, "unknown topology family 'ring'"),
        ({"grid": {**TINY["grid"], "topology": "circulant:j=2"}}, "circulant takes k, got 'j=2'"),
        ({"grid": {**TINY["grid"], "attack": ["fixed", "bribe"]}}, "unknown attack 'bribe'"),
        ({"grid": {**TINY["grid"], "seed": [1, 1]}}, "grid.seed: lists a value twice"),
        ({"grid": {**TINY["grid"], "rounds": "3"}}, "expected an integer, got '3'"),
        ({"grid": {**TINY["grid"], "placement": "center"}}, "expected one of random, degree"),
        ({"grid": {**TINY["grid"], "backend": "openai"}}, "needs base_url and model"),
        ({"grid": {**TINY["grid"], "backend": {"kind": "simulated", "port": 1}}}, "key 'port'"),
        ({"grid": {**TINY["grid"], "n": [5, 7], "roster": {5: "3S1W1A"}}}, "no rosters for n = 7"),
        ({"grid": {**TINY["grid"], "unknown": 1}}, "grid: unknown key 'unknown'"),
        ({"protocols": ["sac", "paxos"]}, "unknown protocol 'paxos'"),
        ({"options": {"workers": 2}}, "options: unknown key 'workers'"),
        ({"options": {"plots": "yes"}}, "options.plots: expected true or false"),
        ({"options": {"commit_gate": 1}}, "options.commit_gate: expected true or false"),
        ({"options": {"crs": {"eta": 2}}}, "eta must be in"),
        ({"options": {"certify_time_limit": 0}}, "expected seconds > 0 or null"),
    ],
)
def test_a_malformed_spec_is_one_clear_error(change, message):
    spec = {**copy.deepcopy(TINY), **change}
    with pytest.raises(SpecError, match=message) as info:
        parse_spec(spec, source="s.yaml")
    assert str(info.value).startswith("s.yaml: ") and "\n" not in str(info.value)


def test_rosters_per_n_and_defaults():
    spec = parse_spec(tiny(n=[5, 7], roster={5: ["3S1W1A", "4S1A"], 7: "5S1W1A"}))
    cells = spec.cells()
    assert [(c.params["n"], c.params["roster"]) for c in cells[::2]] == [
        (5, "3S1W1A"),
        (5, "4S1A"),
        (7, "5S1W1A"),
    ]
    assert cells[0].params["F"] is None and cells[0].params["attack"] == "fixed"
    assert cells[0].params["backend"] == {"kind": "simulated"}
    assert spec.varying() == ["n", "roster", "seed"]


def test_cell_ids_are_stable_when_the_grid_grows_and_ignore_execution_options():
    before = {c.id for c in parse_spec(tiny()).cells()}
    grown = {c.id for c in parse_spec(tiny(seed=[1, 2, 3], attack=["fixed"])).cells()}
    assert before < grown and len(grown) == 3
    other = copy.deepcopy(TINY)
    other["options"].update(concurrency=1, plots=True, resamples=50, certify_time_limit=5)
    assert {c.id for c in parse_spec(other).cells()} == before
    changed = tiny(rounds=2)
    assert not before & {c.id for c in parse_spec(changed).cells()}


def test_the_shipped_example_is_a_valid_spec():
    spec = load_spec(Path(__file__).parents[1] / "examples" / "sweep.yaml")
    assert len(spec.cells()) == 16
    assert spec.varying() == ["topology", "n", "roster", "attack", "seed"]


def test_bad_yaml_and_missing_file_are_one_line_errors_with_exit_2(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("grid: [unclosed\n")
    for path, message in ((bad, "not valid YAML"), (tmp_path / "none.yaml", "cannot read")):
        result = cli("sweep", path, "-o", tmp_path / "out")
        assert result.exit_code == 2
        assert message in result.stderr and "Traceback" not in result.stderr


# ----------------------------------------------------------------------------- running
def test_a_small_sweep_merges_every_cell_in_grid_order(tmp_path):
    result = sweep(tiny(), tmp_path)
    summary = result.summary
    assert result.exit_code == 0 and len(result.ran) == 2 and not result.skipped
    assert summary["counts"] == {"cells": 2, "done": 2, "failed": 0}
    assert [c["params"]["seed"] for c in summary["cells"]] == [1, 2]
    for cell in summary["cells"]:
        own = json.loads((tmp_path / cell["directory"] / "summary.json").read_text())
        for protocol in ("sac", "majority"):
            assert cell["protocols"][protocol]["metrics"] == own["protocols"][protocol]["metrics"]
            assert cell["protocols"][protocol]["queries"] == 3
    assert json.loads((tmp_path / "summary.json").read_text()) == summary
    table = (tmp_path / "summary.md").read_text()
    assert table.count("| sac |") == 2 and table.count("| majority |") == 2
    assert list((tmp_path / "plots").iterdir()) == []  # options.plots is false
    pooled = (tmp_path / "table1.md").read_text()  # Table 1: the two seeds pooled in one row
    assert pooled.count("| merg | sac |") == 1 and "2 seed(s) per row pooled" in pooled


def test_a_failing_cell_is_reported_and_the_others_finish(tmp_path):
    spec = tiny(F=[2, 3], seed=1)  # merg on 5 nodes is 3-robust, not 4: F = 3 is refused
    result = cli("sweep", _write(tmp_path, spec), "--workers", "1", "-o", tmp_path / "out")
    assert result.exit_code == 1, result.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    done, failed = summary["cells"]
    assert done["status"] == "done" and failed["status"] == "failed"
    assert failed["error"].startswith("NotCertified: ")
    assert f"sweep: {failed['id']} failed: NotCertified" in result.stderr
    assert "NotCertified" in (tmp_path / "out" / failed["directory"] / ERROR_FILE).read_text()
    assert "FAILED: NotCertified" in result.stdout
    again = sweep(spec, tmp_path / "out")
    assert again.skipped == (done["id"],) and again.failed == (failed["id"],)


def _write(tmp_path: Path, spec: dict) -> Path:
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def test_an_interrupted_sweep_skips_finished_cells_and_resumes_partial_ones(tmp_path):
    out = tmp_path / "interrupted"
    first = sweep(tiny(), out).summary
    finished, partial = (out / c["directory"] for c in first["cells"])
    results = partial / "results.jsonl"
    lines = results.read_text().splitlines(keepends=True)
    results.write_text("".join(lines[:4]) + lines[4][:20])  # killed mid-line
    (partial / CELL_FILE).unlink()
    stamp = (finished / "results.jsonl").stat().st_mtime_ns
    again = sweep(tiny(), out)
    assert again.skipped == (finished.name,) and again.ran == (partial.name,)
    assert (finished / "results.jsonl").stat().st_mtime_ns == stamp
    assert json.loads((partial / CELL_FILE).read_text())["resumed_queries"] == 4
    assert len(read_records(results)) == 6
    assert again.summary == first, "a resumed cell gives the numbers of an uninterrupted one"


def test_a_killed_sweep_process_resumes_without_redoing_finished_cells(tmp_path):
    spec = tiny(seed=[1, 2, 3], tasks="arith:12", rounds=2)
    path, out = _write(tmp_path, spec), tmp_path / "out"
    command = [sys.executable, "-c", "from robustgraph.cli import main; main()", "sweep", str(path)]
    proc = subprocess.Popen(
        [*command, "--workers", "1", "-o", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not list(out.glob(f"cells/*/{CELL_FILE}")) and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    finished = list(out.glob(f"cells/*/{CELL_FILE}"))
    assert finished, "no cell finished within 60 s"
    stamps = {p.parent.name: (p.parent / "results.jsonl").stat().st_mtime_ns for p in finished}
    result = sweep(spec, out)
    assert set(result.skipped) == set(stamps) and result.exit_code == 0
    assert len(result.skipped) + len(result.ran) == 3
    for name, stamp in stamps.items():
        assert (out / "cells" / name / "results.jsonl").stat().st_mtime_ns == stamp


def test_dry_run_lists_the_cells_and_runs_nothing(tmp_path):
    result = cli("sweep", _write(tmp_path, tiny()), "--dry-run", "--json", "-o", tmp_path / "o")
    assert result.exit_code == 0, result.stderr
    cells = json.loads(result.stdout)["cells"]
    assert [c["params"]["seed"] for c in cells] == [1, 2] and not (tmp_path / "o").exists()


def test_dry_run_loads_every_task_set(tmp_path):
    missing = tmp_path / "missing.jsonl"
    spec = tiny(tasks=["arith:4", f"gsm8k:{missing}:3"])
    result = cli("sweep", _write(tmp_path, spec), "--dry-run", "--json", "-o", tmp_path / "o")
    assert result.exit_code == 2 and result.stdout == "", result.stdout
    assert result.stderr.count("\n") == 1 and "grid.tasks[1]" in result.stderr
    assert str(missing) in result.stderr and not (tmp_path / "o").exists()


def test_executor_options_that_do_not_fit_are_usage_errors(tmp_path):
    result = cli("sweep", _write(tmp_path, tiny()), "--address", "h:1", "-o", tmp_path / "o")
    assert result.exit_code == 2 and "--address is for the ray executor" in result.stderr


# ----------------------------------------------------------------------------- Ray
def test_local_and_ray_give_identical_summaries(tmp_path, ray_instance):
    spec = tiny(attack=["fixed", "collude"], seed=[1, 2])
    local = sweep(spec, tmp_path / "local")
    with RayExecutor(max_retries=0) as executor:
        remote = sweep(spec, tmp_path / "ray", executor=executor)
    assert local.exit_code == remote.exit_code == 0 and len(remote.ran) == 4
    for name in ("summary.json", "summary.md"):
        assert (tmp_path / "local" / name).read_bytes() == (tmp_path / "ray" / name).read_bytes()
    status = json.loads((tmp_path / "ray" / "sweep.json").read_text())
    assert status["executor"] == "ray"


@pytest.mark.parametrize(
    "module",
    [
        "protocol_runner.sweep.spec",
        "protocol_runner.analysis.sweep_plots",
        "protocol_runner.sweep.execute",
    ],
)
def test_docstring_examples_run(module):
    assert_doctests_pass_in_fresh_process(module)
