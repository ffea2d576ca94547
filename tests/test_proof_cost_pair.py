"""How benchmarks/proof_cost_pair.py scores two proof-cost runs (issue 40, round 35): rows both
runs settled with an answer over 0.3 s, the core-tree ratio, round 34's default-certify estimate,
the margin for a slower row, and "no proof" carried through the medians. Made-up rows; nothing is
timed."""

from __future__ import annotations

import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
spec = importlib.util.spec_from_file_location("proof_cost_pair", BENCH / "proof_cost_pair.py")
pair = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pair)


def _row(name: str, answer: float, lrat: str, tree: str, bounded: bool = False) -> str:
    if bounded:
        return f"| {name} | [3, 4] | {answer:.2f} (bounded) " + "| - " * 12 + "|"
    lrat_size = "no proof" if lrat == "none" else "10 / 1 KiB"
    tree_size = "no proof" if tree == "none" else "5 / 0 KiB"
    lrat_s = "200.00" if lrat == "none" else lrat
    tree_s = "200.00" if tree == "none" else tree
    return (f"| {name} | 9 | {answer:.2f} / {answer:.2f} | 1.00 / 1.00 | 1.0 / 1.0 | 10 / 1 KiB "
            f"| 0.10 | {lrat_s} / {lrat_s} | 1.0 / 1.0 | {lrat_size} | 0.10 "
            f"| {tree_s} / {tree_s} | 1.0 / 1.0 | {tree_size} | 0.10 |")


HEAD = "| graph | r* | robustness wall / CPU (s) |" + " x |" * 12 + "\n| --- " * 15 + "|"


def _table(*rows: str) -> str:
    return "\n".join([HEAD, *rows])


def test_rows_ratios_and_the_default_estimate():
    old = pair.read_table(_table(
        _row("A", 1.0, "6.00", "3.00"),
        _row("B", 50.0, "150.00", "160.00"),  # tree over half the limit: 100 + LRAT
        _row("C", 0.2, "1.00", "1.00"),  # answer under 0.3 s: left out
        _row("D", 90.0, "-", "-", bounded=True),
    ))
    new = pair.read_table(_table(
        _row("A", 1.0, "6.00", "2.00"),
        _row("B", 50.0, "none", "170.00"),  # LRAT lost: the default has no proof
        _row("C", 0.2, "1.00", "1.00"),
    ))
    assert set(old) == {"A", "B", "C"} and old["B"]["lrat"] == 150.0 and new["B"]["lrat"] is None
    assert pair.default_certify(old["B"], 200.0) == 250.0
    assert pair.default_certify(new["B"], 200.0) is None
    lines = pair.compare(old, new, 200.0, 0.3)
    table = [line for line in lines if line.startswith("| A") or line.startswith("| B")]
    assert table[0].endswith("| 0.67 | 3.00 / 2.00 | - |")
    assert table[1].endswith("| 250.00 / no proof | default |")
    assert "# rows: 2; core-tree certify new/old: median 0.86, max 1.06" in lines
    assert "# new (iii) default certify: 2.0, no proof; median no proof, worst no proof" in lines
    assert "# new (ii) core tree: 2.0, 3.4; median 2.70x, worst 3.40x" in lines


def test_a_tree_slower_by_the_margin_is_named():
    old = pair.read_table(_table(_row("A", 1.0, "6.00", "3.00")))
    new = pair.read_table(_table(_row("A", 1.0, "6.00", "3.50")))  # 3.5 > 1.1 * 3 + 0.1
    assert pair.compare(old, new, 200.0, 0.3)[2].endswith("| tree, default |")
    same = pair.read_table(_table(_row("A", 1.0, "6.00", "3.39")))
    assert pair.compare(old, same, 200.0, 0.3)[2].endswith("| - |")
