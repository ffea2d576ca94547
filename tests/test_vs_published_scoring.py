"""How benchmarks/vs_published.py scores issue 40's comparisons (round 3): each command's CPU
cap is its workers x ``--cap``, and a row no side of a comparison proved r* of is listed apart
("bounded on both sides"), out of the slower rows and the medians. Nothing here is timed: the
rows are made up, and the caps are read back from the child's own ``getrlimit``."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from robustgraph import io
from robustgraph.generators import erdos_renyi

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


vs = _load("vs_published")


def _ours(wall, cpu, value=None, lower=3, upper=5):
    status = "exact" if value is not None else "bounded"
    r = {"status": status, "value": value, "lower": value or lower, "upper": value or upper}
    return ({"r": r}, wall, cpu, 0)


def _script(wall, cpu, value=None, lower=None, upper=None):
    if value is not None:
        return ({"r": value, "seconds": wall}, wall, cpu, 0)
    data = {"lower": lower, "upper": upper} if lower is not None else None
    return (data, wall, cpu, None)  # stopped by the CPU cap


def _row(ours1, ours2, cpsat1, highs1, cpsat2):
    return dict(ours1=ours1, ours2=ours2, cpsat1=cpsat1, highs1=highs1, cpsat2=cpsat2)


def test_a_script_with_two_workers_gets_twice_the_cpu_cap():
    show = [
        sys.executable,
        "-c",
        "import json, resource as r; print(json.dumps({'cpu': r.getrlimit(r.RLIMIT_CPU)}))",
    ]
    one = vs._timed(show, 10, 1)
    two = vs._timed(show, 10, 2)
    assert one[0] == {"cpu": [10, 11]} and one[3] == 0
    assert two[0] == {"cpu": [20, 21]} and two[3] == 0
    assert vs.WORKERS == {"ours1": 1, "ours2": 2, "cpsat1": 1, "highs1": 1, "cpsat2": 2}


def test_a_row_no_side_proved_is_bounded_on_both_sides_not_slower():
    # the idle run's er-50-p0.35-7101: ours at its 10 s limit, the two-worker script at its cap
    both = _row(
        _ours(9.51, 9.97, lower=7, upper=9),
        _ours(9.51, 18.73, lower=8, upper=9),
        _script(9.91, 10.01, lower=6, upper=9),
        _script(9.91, 10.00),
        _script(5.16, 9.88, lower=7, upper=9),
    )
    kind, best = vs._outcome(both["ours2"], {"cpsat2": both["cpsat2"]})
    assert (kind, best) == ("bounded", None)
    lines = vs._workers_summary([("er-50-p0.35-7101", both)])
    text = "\n".join(lines)
    assert "two workers, slower by more than 10% + 0.1 s (wall or CPU): none" in text
    assert "one worker, slower by more than 10% + 0.1 s (wall or CPU): none" in text
    assert "median" not in text  # no row is a time comparison
    bounded = [line for line in lines if "two workers, bounded on both sides" in line]
    assert bounded == [
        "# two workers, bounded on both sides (no side proved r*; not a time comparison): "
        "er-50-p0.35-7101 (ours2 [8, 9], cpsat2 [7, 9])"
    ]
    one = [line for line in lines if "one worker, bounded on both sides" in line][0]
    assert "ours1 [7, 9], cpsat1 [6, 9], highs1 -" in one


def test_slower_lost_and_ok_rows_are_scored_against_the_fastest_script_that_proved():
    rows = [
        # ours slower than the HiGHS script in CPU only (the idle run's regular-80-d4-7101)
        (
            "slow",
            _row(
                _ours(0.35, 0.52, 1),
                _ours(0.32, 0.50, 1),
                _script(0.44, 0.52, 1),
                _script(0.25, 0.35, 1),
                _script(0.41, 0.51, 1),
            ),
        ),
        # ours bounded where a script proved r* (kin-60-k10-7101 with one thread)
        (
            "lost",
            _row(
                _ours(9.51, 9.99, lower=4, upper=5),
                _ours(1.30, 2.20, 5),
                _script(1.21, 1.30, 5),
                _script(9.92, 10.0),
                _script(1.20, 2.03, 5),
            ),
        ),
        # the fastest script by wall time was stopped by its cap: the prover is the best
        (
            "ok",
            _row(
                _ours(0.40, 0.40, 8),
                _ours(0.48, 0.77, 8),
                _script(3.84, 3.90, 8),
                _script(0.30, 0.30),
                _script(3.33, 4.48, 8),
            ),
        ),
    ]
    kind, best = vs._outcome(rows[0][1]["ours1"], {s: rows[0][1][s] for s in ("cpsat1", "highs1")})
    assert (kind, best) == ("slower", "highs1")
    kind, best = vs._outcome(rows[1][1]["ours1"], {s: rows[1][1][s] for s in ("cpsat1", "highs1")})
    assert (kind, best) == ("lost", "cpsat1")
    kind, best = vs._outcome(rows[2][1]["ours1"], {s: rows[2][1][s] for s in ("cpsat1", "highs1")})
    assert (kind, best) == ("ok", "cpsat1")
    lines = vs._workers_summary(rows)
    slower1 = next(line for line in lines if line.startswith("# one worker, slower"))
    assert "slow (0.35 s, cpu 0.52 vs highs1 0.25 s" in slower1 and "lost (" in slower1
    assert "ok (" not in slower1
    lost1 = next(line for line in lines if line.startswith("# one worker, ours bounded"))
    assert lost1.endswith("lost (ours1 [4, 5], cpu 9.99)")
    median1 = next(line for line in lines if line.startswith("# one worker: median"))
    assert "ours faster on 1 of 3" in median1  # 0.25/0.35, 1.21/9.51, 3.84/0.40
    slower2 = next(line for line in lines if line.startswith("# two workers, slower"))
    assert "lost" not in slower2 and "slow (" not in slower2 and "ok (" not in slower2


@pytest.mark.skipif(importlib.util.find_spec("ortools") is None, reason="needs ortools")
def test_the_cpsat_script_prints_its_bounds_as_they_move(tmp_path):
    path = tmp_path / "g.json"
    io.write(erdos_renyi(20, 0.3, seed=3), path)
    cmd = [sys.executable, str(BENCH / "published_milp.py"), str(path), "cpsat", "1", "--progress"]
    lines = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.splitlines()
    seen = [json.loads(line) for line in lines]
    answer = seen[-1]["r"]
    progress = seen[:-1]
    assert progress and all(set(x) == {"lower", "upper"} for x in progress)
    assert progress[-1]["upper"] == answer or progress[-1]["lower"] == answer
    assert all(x["lower"] <= answer for x in progress)
    assert all(x["upper"] is None or x["upper"] >= answer for x in progress)
    timed = vs._timed(cmd, 10, 1)  # as the harness reads it: the answer, not a progress line
    assert vs._proved(timed) == answer and timed[3] == 0


def test_the_last_json_is_read_whole_or_from_the_last_line():
    ours = json.dumps({"r": {"status": "exact", "value": 3}}, indent=2)  # one indented document
    assert vs._last_json(ours) == {"r": {"status": "exact", "value": 3}}
    progress = '{"lower": 0, "upper": 4}\n{"lower": 2, "upper": 3}\n{"r": 3, "seconds": 0.4}'
    assert vs._last_json(progress) == {"r": 3, "seconds": 0.4}
    assert vs._proved((vs._last_json(progress), 0.4, 0.4, 0)) == 3
    stopped = '{"lower": 0, "upper": 4}\n{"lower": 2, "upper": 3}'  # the cap stopped it here
    assert vs._last_json(stopped) == {"lower": 2, "upper": 3}
    assert vs._proved((vs._last_json(stopped), 10.0, 10.0, None)) is None
    assert vs._last_json("") is None and vs._last_json("Traceback ...") is None


# Round 5: one wall limit for every command, and a stopped script keeps its last progress line.
# The fake scripts sleep (no CPU) or spin (no wall-clock dependence in what is asserted): which
# limit stops them does not depend on how fast this machine is.
_PROGRESS_THEN_SLEEP = (
    "import json, sys, time\n"
    "print(json.dumps({'lower': 1, 'upper': 4}), flush=True)\n"
    "print(json.dumps({'lower': 2, 'upper': 4}), flush=True)\n"
    'sys.stdout.write(\'{"lower": 3, "up\'); sys.stdout.flush()\n'  # stopped mid-line
    "time.sleep(600)\n"
)


def test_a_script_stopped_by_the_wall_limit_keeps_its_last_progress_line(monkeypatch):
    monkeypatch.setattr(vs, "GRACE", 0.0)  # the wall limit is then cap itself
    got = vs._timed([sys.executable, "-c", _PROGRESS_THEN_SLEEP], 0.5, 1)
    assert got[0] == {"lower": 2, "upper": 4}  # the last whole line, not the cut one
    assert got[3] is None  # stopped by a limit
    assert vs._proved(got) is None and vs._reached(got) == "[2, 4]"


def test_every_command_gets_cap_plus_grace_in_wall_seconds(monkeypatch):
    seen = {}

    class Popen:
        def __init__(self, cmd, **kwargs):
            self.pid, self.returncode = 1, 0
            seen["session"] = kwargs.get("start_new_session")

        def communicate(self, timeout=None):
            seen["timeout"] = timeout
            return '{"r": 3}', ""

    monkeypatch.setattr(vs.subprocess, "Popen", Popen)
    for workers in (1, 2):
        assert vs._timed(["x"], 10, workers)[0] == {"r": 3}
        assert seen == {"session": True, "timeout": 10 + vs.GRACE}
    vs._timed(["x"], 10, 1, wall=40)
    assert seen["timeout"] == 40
    assert f"stopped at {10 + vs.GRACE:g} wall s" in vs._limits(10, "10 s per worker")


def test_a_script_stopped_by_the_cpu_cap_keeps_its_progress_line_too():
    spin = (
        "import json\n"
        "print(json.dumps({'lower': 5, 'upper': 7}), flush=True)\n"
        "while True:\n    pass\n"
    )
    got = vs._timed([sys.executable, "-c", spin], 1, 1, wall=600)  # only RLIMIT_CPU stops it
    assert got[0] == {"lower": 5, "upper": 7} and got[3] is None


def test_rs_rows_no_side_proved_are_bounded_on_both_sides_not_slower(monkeypatch, capsys, tmp_path):
    """``--rs``: a row where neither ours nor the script proved s* is listed apart, not slower,
    even when ours used more CPU (its two threads); a proved row that is slower stays slower."""
    graphs = [
        ("er", 30, 0.2, 1, tmp_path / "settled.json"),
        ("er", 40, 0.5, 1, tmp_path / "open.json"),
    ]
    monkeypatch.setattr(vs, "_graphs", lambda args, folder: iter(graphs))

    def timed(cmd, cap, workers=1):
        name = next(p for p in cmd if p.endswith(".json")).rsplit("/", 1)[-1]
        if "cpsat-s" in cmd:  # the published (r, s) script
            return ({"s": 2}, 0.3, 0.3, 0) if name == "settled.json" else (None, 20.0, 20.0, None)
        if "--rs" not in cmd:  # the first call: r* for the row's R
            return ({"r": {"status": "exact", "value": 3}}, 0.1, 0.1, 0)
        if name == "settled.json":
            return ({"s": {"status": "exact", "value": 2}}, 1.0, 1.0, 0)
        return ({"s": {"status": "bounded", "value": None}}, 19.5, 28.0, 0)

    monkeypatch.setattr(vs, "_timed", timed)
    args = vs.argparse.Namespace(cap=20.0)
    assert vs.compare_rs(args) == 0
    out = capsys.readouterr().out
    assert "# slower by more than 10% + 0.1 s (wall or CPU): settled (1.00 s" in out
    assert "open (" not in out.split("# slower")[1].split("\n")[0]
    assert "# bounded on both sides (no side proved s*; not a time comparison): open" in out
    assert "| open | 3 | ? | >19.50 (28.00) | >20.00 (20.00) | bounded |" in out


def test_the_checkout_is_compiled_before_timing_whatever_the_environment_says(
    tmp_path, monkeypatch
):
    """``compile_checkout`` writes each package's bytecode even where Python is told not to
    write it on import (``PYTHONDONTWRITEBYTECODE``), so no timed command compiles modules."""
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    for package in ("robustgraph", "solvers", "elsewhere"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "mod.py").write_text("x = 1\n")
    assert vs.compile_checkout(tmp_path) == tmp_path
    assert list((tmp_path / "solvers" / "__pycache__").glob("mod.*.pyc"))
    assert list((tmp_path / "robustgraph" / "__pycache__").glob("mod.*.pyc"))
    assert not (tmp_path / "elsewhere" / "__pycache__").exists()  # not one of PACKAGES
