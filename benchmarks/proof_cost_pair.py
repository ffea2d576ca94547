"""Two ``proof_cost.py --before-after`` runs side by side: a change's test (issue 40, round 35).

Reads the tables of two whole outputs of ``benchmarks/proof_cost.py --before-after`` (the same
seed and options; "old" first, e.g. main, then "new", the candidate) and prints, for every graph
both settled whose answer took over ``--over`` seconds (0.3, the issue's line): the answer, the
core-tree certify (``--proof coretree``) of each run and their ratio, and the default
``certify`` as round 34 declared it: the tree's time where the tree took at most half of
``--limit`` (``prover.AUTO_TREE_SHARE``), else half the limit plus the LRAT certify's time, or no
proof where neither proved it. A row is slower by the rounds' margin (10% + 0.1 s). It then scores
the new run against the target (certify/answer at most 3x at the median, 8x at worst): (i) LRAT,
(ii) core tree, (iii) the default. Nothing is measured here::

    /work/venv/bin/python benchmarks/proof_cost_pair.py OLD.txt NEW.txt
"""

from __future__ import annotations

import argparse
import math
import statistics
from pathlib import Path

NO_PROOF = "no proof"


def read_table(text: str) -> dict[str, dict]:
    """The settled rows of one ``--before-after`` table: graph -> r*, answer, LRAT and core-tree
    certify seconds (wall), each None where that certify made no proof."""
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.split("|")[1:-1]]
        if len(cells) != 15 or cells[0] in ("graph", "---") or cells[2].endswith("(bounded)"):
            continue
        try:
            answer = float(cells[2].split("/")[0])
        except ValueError:
            continue

        def took(wall: str, size: str) -> float | None:
            return None if size == NO_PROOF else float(wall.split("/")[0])

        rows[cells[0]] = {
            "r": cells[1],
            "answer": answer,
            "lrat": took(cells[7], cells[9]),
            "tree": took(cells[11], cells[13]),
            "tree_wall": float(cells[11].split("/")[0]),
        }
    return rows


def default_certify(row: dict, limit: float) -> float | None:
    """Round 34's (iii): the tree's time within half the limit, else half plus LRAT's, else None."""
    if row["tree"] is not None and row["tree"] <= limit / 2:
        return row["tree"]
    return None if row["lrat"] is None else limit / 2 + row["lrat"]


def _slower(new: float | None, old: float | None) -> bool:
    if new is None:
        return old is not None
    return old is not None and new > 1.1 * old + 0.1


def _ratio(took: float | None, answer: float) -> float:
    return math.inf if took is None else took / answer


def _shown(x: float | None, unit: str = "") -> str:
    return NO_PROOF if x is None or math.isinf(x) else f"{x:.2f}{unit}"


def compare(old: dict, new: dict, limit: float, over: float) -> list[str]:
    """The printed lines: one table row per graph, then the summary and the three scores."""
    lines = [
        "| graph | r* | answer old / new (s) | core tree old (s) | new (s) | new / old "
        "| default certify old / new (s) | slower |",
        "|---|---|---|---|---|---|---|---|",
    ]
    ratios, scores = [], {"(i) LRAT": [], "(ii) core tree": [], "(iii) default certify": []}
    for name, o in old.items():
        n = new.get(name)
        if n is None or o["answer"] <= over:
            continue
        ratio = n["tree_wall"] / o["tree_wall"]
        ratios.append(ratio)
        d_old, d_new = default_certify(o, limit), default_certify(n, limit)
        slow = [k for k, a, b in (("tree", n["tree"], o["tree"]), ("default", d_new, d_old))
                if _slower(a, b)]
        lines.append(
            f"| {name} | {o['r']} | {o['answer']:.2f} / {n['answer']:.2f} | {_shown(o['tree'])} "
            f"| {_shown(n['tree'])} | {ratio:.2f} | {_shown(d_old)} / {_shown(d_new)} "
            f"| {', '.join(slow) or '-'} |"
        )
        for key, took in zip(scores, (n["lrat"], n["tree"], d_new), strict=True):
            scores[key].append(_ratio(took, n["answer"]))
    if not ratios:
        return lines + [f"# no graph both runs settled has an answer over {over} s"]
    lines.append(f"# rows: {len(ratios)}; core-tree certify new/old: median "
                 f"{statistics.median(ratios):.2f}, max {max(ratios):.2f}")
    for key, values in scores.items():
        shown = ", ".join("no proof" if math.isinf(v) else f"{v:.1f}" for v in values)
        med, worst = statistics.median(values), max(values)
        lines.append(f"# new {key}: {shown}; median {_shown(med, 'x')}, worst {_shown(worst, 'x')}")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path, help="proof_cost.py --before-after output (before)")
    parser.add_argument("new", type=Path, help="the same run of the change")
    parser.add_argument("--limit", type=float, default=200.0, help="their --limit (seconds)")
    parser.add_argument("--over", type=float, default=0.3, help="answers over this many seconds")
    args = parser.parse_args(argv)
    old, new = (read_table(path.read_text()) for path in (args.old, args.new))
    print("\n".join(compare(old, new, args.limit, args.over)))


if __name__ == "__main__":
    main()
