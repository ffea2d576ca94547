"""Issue 30, item 5: the Python API gives answers where a networkx user looks for them, and
runs SAC from one documented call."""

from __future__ import annotations

import json

import networkx as nx
import pytest

import protocol_runner as pr
import robustgraph as rg
from robustgraph.robustness import Decision, Undecided
from solvers.types import Question, Status


def test_a_decision_is_its_answer():
    """``rg.is_r_robust(G, 2).value`` was None whenever the engine proved the answer without
    pinning r* (the answer was only in ``.holds``); ``bool(result)`` was always True."""
    ring = nx.cycle_graph(8)
    yes, no = rg.is_r_robust(ring, 1), rg.is_r_robust(ring, 2)
    assert (yes.value, bool(yes), yes.holds) == (True, True, True)
    assert (no.value, bool(no), no.holds) == (False, False, False)
    assert no.witness is not None and rg.describe_witness(ring, no)
    assert rg.is_rs_robust(nx.complete_graph(5), 2, 5).value is True
    assert [bool(rg.is_r_robust(rg.generators.gamma_merg(9), r)) for r in (4, 5)] == [True, True]


def test_an_undecided_decision_refuses_a_truth_value():
    open_question = Decision(
        Question.is_r_robust(3), Status.BOUNDED, 2, 4, None, "portfolio", None, 1.0
    )
    assert open_question.value is None and open_question.holds is None
    with pytest.raises(Undecided, match="undecided") as info:
        bool(open_question)
    assert info.value.exit_code == 3 and isinstance(info.value, rg.RobustgraphError)


def test_max_r_value_is_still_r_star():
    assert rg.max_r(nx.complete_graph(6)).value == 3


def test_run_protocols_runs_sac_end_to_end_and_resumes(tmp_path):
    out = tmp_path / "sac-run"
    kwargs = dict(F=2, roster="3S1W1A", protocols=("sac", "majority"), tasks="arith:2",
                  rounds=1, seed=2)
    done = pr.run_protocols(rg.generators.gamma_merg(5), out, **kwargs)
    assert done.simulated and done.result.gate.certified
    assert (done.result.queries, done.result.ran) == (4, 4)
    assert sorted(done.summary.protocols) == ["majority", "sac"]
    assert 0 <= done.metric("sac", "FAA") <= 1
    summary = json.loads((out / "summary.json").read_text())
    assert summary["run"]["simulated"] is True
    assert (out / "results.jsonl").read_text().count("\n") == 4
    again = pr.run_protocols(rg.generators.gamma_merg(5), out, **kwargs)
    assert (again.result.ran, again.result.skipped) == (0, 4)
    assert again.metric("sac", "FAA") == done.metric("sac", "FAA")


def test_run_protocols_refuses_an_uncertified_graph(tmp_path):
    from protocol_runner.run.cert_gate import NotCertified

    with pytest.raises(NotCertified):
        pr.run_protocols(nx.cycle_graph(5), tmp_path / "out", F=2, roster="4S1A",
                         tasks="arith:1", rounds=1)
