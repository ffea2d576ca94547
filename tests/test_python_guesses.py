"""Issue 44, item 6: the Python API's natural guesses work, or fail in one clear line:
``rg.Claim.r(3)`` (was ``TypeError: 'NoneType' object is not callable``, the field's default)
and ``rg.describe_witness(g, decision.witness)`` (was an ``AttributeError``)."""

from __future__ import annotations

import dataclasses
import pickle

import networkx as nx
import pytest

import robustgraph as rg


def test_claim_r_and_rs_build_claims_and_the_field_still_reads():
    claim = rg.Claim.r(3)
    assert claim == rg.Claim.r_robust(3) and claim.r == 3
    assert claim.to_dict() == {"kind": "r", "r": 3}
    assert rg.Claim.rs(2, 2) == rg.Claim.rs_robust(2, 2)
    assert rg.Claim.tolerance(1, "sac").r is None  # a claim's own field, not the constructor
    assert pickle.loads(pickle.dumps(claim)) == claim
    assert dataclasses.replace(claim, r=4) == rg.Claim.r(4)
    assert rg.certify(nx.cycle_graph(6), rg.Claim.r(2)).verdict == "refuted"


def test_describe_witness_takes_the_witness_too():
    g = nx.cycle_graph(6)
    decision = rg.is_r_robust(g, 3)
    words = rg.describe_witness(g, decision.witness)
    assert words == rg.describe_witness(g, decision)
    assert words.endswith("no node of either has 2 in-neighbours outside its own set")
    assert rg.describe_witness(g, None) is None  # a result without a witness has .witness None
    with pytest.raises(rg.ParameterError, match="takes a result of max_r"):
        rg.describe_witness(g, 3)
