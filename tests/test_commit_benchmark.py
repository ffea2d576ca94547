"""Smoke test of benchmarks/correlated_quorum.py: it runs, and its counts are consistent."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "correlated_quorum.py"


def test_benchmark_counts_are_consistent(tmp_path):
    ledgers = tmp_path / "ledgers"
    done = subprocess.run([sys.executable, str(SCRIPT), "--proposals", "30", "--seed", "3",
                           "--rosters", "4S2W1A,stale-document", "--json", "--ledger",
                           str(ledgers)], capture_output=True, text=True, timeout=300, check=True)
    report = json.loads(done.stdout)
    assert report["simulated"] is True and set(report["rosters"]) == {"4S2W1A", "stale-document"}
    for name, data in report["rosters"].items():
        assert data["ledger"].endswith("valid") and (ledgers / f"{name}.sqlite").exists()
        rules = data["rules"]
        for row in rules.values():
            assert sum(row["outcomes"].values()) == 30
            assert row["false_commits"] + row["right_commits"] == row["commits"]
            rate = row["false_per_1000_proposals"]
            assert rate["low"] <= rate["value"] <= rate["high"]
            assert rate["value"] == 1000 * row["false_commits"] / 30
    paper = report["rosters"]["4S2W1A"]
    honest = paper["n"] - 1
    assert paper["f"] == 1
    assert paper["llm_calls"] == 30 * honest + paper["reexecutions"] \
        + honest * paper["diversity_rounds"]
    # declared diversity: every copy of a model on its own checkpoint, its own unit
    assert paper["units"] == ["{s0}", "{s1}", "{s2}", "{s3}", "{w0}", "{w1}", "{adv}"]
    stale = report["rosters"]["stale-document"]
    assert stale["f"] == 2
    assert stale["units"] == ["{A, B}", "{C, D}", "{E}", "{F}", "{G}"]
    # outside a stale document A-D and E are right: a false quorum of 5 needs a stale document
    assert stale["rules"]["plain 2f+1 quorum"]["false_commits"] <= stale["stale_documents"]


def test_undeclared_copies_of_one_model_are_one_unit():
    done = subprocess.run([sys.executable, str(SCRIPT), "--proposals", "3", "--rosters",
                           "4S2W1A", "--undeclared", "--json"], capture_output=True, text=True,
                          timeout=300, check=True)
    units = json.loads(done.stdout)["rosters"]["4S2W1A"]["units"]
    assert units == ["{s0, s1, s2, s3}", "{w0, w1}", "{adv}"]


@pytest.mark.parametrize("args, message", [
    (["--corpus-share", "0.9"], "checkpoint_share and corpus_share must be >= 0 with sum <= 1"),
    (["--stale-rate", "1.5"], "--stale-rate must be in [0, 1], got 1.5"),
    (["--rosters", "9S"], "--rosters: unknown ['9S']"),
])
def test_parameter_errors_are_one_line(args, message):
    done = subprocess.run([sys.executable, str(SCRIPT), "--proposals", "3", *args],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert message in done.stderr.strip().splitlines()[-1]
