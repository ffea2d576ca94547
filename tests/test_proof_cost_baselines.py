"""benchmarks/proof_cost.py's "before" columns: what each ``--baseline`` switches on or off."""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

import pytest

from robustgraph import generators as gen
from robustgraph.certificate import certifier
from robustgraph.certificate.proofs import ahead

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
spec = importlib.util.spec_from_file_location("proof_cost", BENCH / "proof_cost.py")
proof_cost = importlib.util.module_from_spec(spec)
spec.loader.exec_module(proof_cost)


class _Answer:
    lower = upper = 3


@pytest.mark.parametrize(
    ("baseline", "before_ahead", "before_idle"),
    [("round13", True, ahead.CAN_IDLE), ("round12", True, ahead.CAN_IDLE),
     ("round11", True, ahead.CAN_IDLE), ("round10", True, ahead.CAN_IDLE),
     ("round9", True, False),
     ("round8", False, ahead.CAN_IDLE)],
)
def test_before_is_round9_with_its_child_and_after_is_this_tree(
    monkeypatch, baseline, before_ahead, before_idle
):
    t = gen.erdos_renyi(12, 0.6, seed=4381)
    seen = []
    real_start = certifier.start_ahead

    def answered(seed, solve_limit, only, threads):
        yield "ER(12, 0.6)", t, _Answer(), 1.0, 1.0

    def certified(t, r, limit, kind="lrat", threads=1):
        seen.append((certifier.start_ahead is real_start, ahead.CAN_IDLE, threads))
        return 1.0, "1 / 1 KiB", 0.1, 1.0, 0.1

    monkeypatch.setattr(proof_cost, "_answered", answered)
    monkeypatch.setattr(proof_cost, "_certified", certified)
    rows = list(proof_cost.before_after_table(10.0, 10.0, baseline=baseline, tree=False,
                                              threads=2))
    assert len(rows) == 3 and rows[2].startswith("| ER(12, 0.6) | 3 |")
    before, after = seen
    assert before == (before_ahead, before_idle, 2)
    assert after == (True, ahead.CAN_IDLE, 2)  # this tree: the proof ahead, idle where it can


@pytest.mark.parametrize(
    ("baseline", "encoding"),
    [("round13", "robustgraph-cnf-3"), ("round12", "robustgraph-cnf-3"),
     ("round11", "robustgraph-cnf-3"), ("round10", "robustgraph-cnf-2"),
     ("round7", "robustgraph-cnf-1"),
     (None, "robustgraph-cnf-3")],
)
def test_the_encoding_of_before_reaches_the_proof_ahead_child(baseline, encoding):
    pytest.importorskip("pysat")
    from robustgraph.certificate.proofs import prover
    from robustgraph.certificate.proofs.checker import View, check_proof

    view = View.of(gen.erdos_renyi(14, 0.6, seed=4391))  # r = 4: CaDiCaL's proof, not the tree
    path = proof_cost.BASELINES[baseline]() if baseline else proof_cost.contextlib.nullcontext()
    with path:
        child = ahead.Ahead(view, 4, 1, "lrat", lambda: 60.0, delay=0.0)
        try:
            made, _ = child.take(120.0)
        finally:
            child.stop()
        assert prover.ENCODING == encoding  # and in this process
    proof, files = made
    assert proof["encoding"] == encoding
    assert check_proof(view, 4, 1, proof, files.__getitem__).steps == proof["steps"]
    assert not child.alive


def test_the_tree_curve_checks_each_proof_under_its_own_encoding():
    """``--tree-curve`` checked the tree's proof (``coretree.ENCODING``, cnf-2) against
    CaDiCaL's CNF (cnf-3) after round 11, and failed on its first row; now each proof is
    checked against the CNF it refutes (``_proof_cpu`` raises on a proof that does not check)."""
    pytest.importorskip("pysat")
    from robustgraph.certificate.proofs.checker import View

    nb = View.of(gen.erdos_renyi(14, 0.6, seed=4391)).canonical()
    cells = proof_cost._curve_row(nb, 6000, 60.0).split(" | ")
    assert cells[0] == "5" and len(cells) == 6  # r*, dry run, then CaDiCaL's and the tree's
    assert all(int(cell.split(" / ")[0].replace(",", "")) > 0 for cell in (cells[3], cells[5]))


def test_round11_races_by_the_childs_age_and_drops_a_short_try():
    """``--baseline round11``: round 11's race (an in-process try within what is left of 1 s
    since the child's start, dropped when it finds nothing, then the child's proof)."""
    pytest.importorskip("pysat")
    from robustgraph.certificate.proofs.checker import View, check_proof

    view = View.of(gen.erdos_renyi(14, 0.6, seed=4391))
    asked = []

    def here(seconds):
        asked.append(seconds)
        return None  # the try found nothing in its time

    with proof_cost.BASELINES["round11"]():
        child = ahead.Ahead(view, 4, 1, "lrat", lambda: 60.0, delay=0.0)
        try:
            while not child.started:  # waiting on the fact, not on a time
                time.sleep(0.01)
            made, _ = child.race(here, 120.0)
        finally:
            child.stop()
    assert len(asked) <= 1 and all(0 < x <= proof_cost.ROUND11_QUICK for x in asked)
    proof, files = made  # the child's, although the try in process found none
    assert check_proof(view, 4, 1, proof, files.__getitem__).steps == proof["steps"]
    assert not child.alive and ahead.Ahead.race is not proof_cost._round11_race
