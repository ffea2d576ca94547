"""Smoke test of benchmarks/correlated_quorum.py: it runs, and its counts are consistent."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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
            assert row["false_commits"] <= row["commits"]
            rate = row["false_per_1000_proposals"]
            assert rate["low"] <= rate["value"] <= rate["high"]
            assert rate["value"] == 1000 * row["false_commits"] / 30
        honest = data["n"] - (name == "4S2W1A")
        first_round_calls = 30 * honest + data["reexecutions"]
        assert data["llm_calls"] == first_round_calls + honest * data["diversity_rounds"]
    # the paper's strong copies are one unit; the weak copies another; the adversary its own
    assert report["rosters"]["4S2W1A"]["units"] == ["{s0, s1, s2, s3}", "{w0, w1}", "{adv}"]
