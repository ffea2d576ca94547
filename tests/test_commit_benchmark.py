"""Smoke test of benchmarks/correlated_quorum.py: it runs, and its counts are consistent."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "correlated_quorum.py"


def test_benchmark_counts_are_consistent(tmp_path):
    ledger = tmp_path / "bench.db"
    done = subprocess.run([sys.executable, str(SCRIPT), "--proposals", "40", "--seed", "3",
                           "--json", "--ledger", str(ledger)],
                          capture_output=True, text=True, timeout=120, check=True)
    report = json.loads(done.stdout)
    rules = report["rules"]
    assert report["ledger"].endswith("valid") and ledger.exists()
    for row in rules.values():
        assert sum(row["outcomes"].values()) == 40
        assert row["false_commits"] <= row["commits"]
    plain, first = rules["plain 2f+1 quorum"], rules["gate, initial round"]
    # the gate commits a subset of what the plain quorum commits on the same votes
    assert first["commits"] <= plain["commits"]
    assert first["false_commits"] <= plain["false_commits"]
    escalated = first["outcomes"].get("escalate:diversity_round", 0)
    assert report["diversity_rounds"] == escalated
    assert report["llm_calls"] == 40 * 7 + 7 * escalated + report["reexecutions"]
