"""benchmarks/ls_witness.py (issue 40, round 14, i45a): what it reports is sound.

Against r* from the definition (``naive_max_r``) on random small graphs and digraphs: the local
search never reports a pair below r* and a decision ``t <= U - 1`` is never called infeasible
when U > r* nor feasible when U = r* (``unknown`` is allowed: a time limit proves nothing).
No timing decides a pass.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from conftest import naive_max_r, topologies
from hypothesis import given

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
_spec = importlib.util.spec_from_file_location("ls_witness", BENCH / "ls_witness.py")
ls_witness = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ls_witness)


@given(topologies(max_n=7))
def test_local_search_never_reaches_below_r_star(t) -> None:
    if t.n < 2:
        return
    r = naive_max_r(t)
    if r > 0:
        assert ls_witness._ls(t.in_neighbors, r - 1, 0.2).startswith(">")


@given(topologies(max_n=7))
def test_decisions_agree_with_the_definition(t) -> None:
    if t.n < 2:
        return
    r = naive_max_r(t)
    at_r = ls_witness._probes(t.in_neighbors, max(r, 1), 2.0)
    above = ls_witness._probes(t.in_neighbors, r + 1, 2.0)
    if r > 0:  # t <= r - 1 has no pair: infeasible, or not settled (CP-SAT says optim/feasi)
        assert all(cell.split()[0] in ("infea", "unkno") for cell in at_r)
    assert all(cell.split()[0] in ("optim", "feasi", "unkno") for cell in above)


def test_reached_and_seeds() -> None:
    steps = [
        {"step": "cores", "upper": 6, "seconds": 2.4},
        {"model": "published-r", "seconds": 1.5},
        {"step": "long-heuristic", "upper": 5, "seconds": 8.7},
    ]
    assert ls_witness._reached(steps, 5) == "8.70 long-heuristic"
    assert ls_witness._reached(steps, 4) == "model"
    assert ls_witness._seeds("7591-7593") == "7591,7592,7593"
    assert ls_witness._seeds("7591,7595") == "7591,7595"
