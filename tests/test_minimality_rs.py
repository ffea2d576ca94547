"""Issue 43 (part A): (r, s) minimality certificates.

Every exact (r, s) cell up to n = 8 is checked against ``tests/exact_minima.py``, which reads
Def. 7 of LeBlanc et al. 2013 directly (numpy over all pairs of node sets); forged (r, s)
certificates are rejected.
"""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustgraph.certificate.proofs import minimality as mp
from robustgraph.design.minimum import pair_clause, prove_minimum
from robustgraph.generators import max_robustness
from solvers.exhaustive import exact_s
from tests.exact_minima import minimum_edges, minimum_edges_rs, s_star
from tests.test_minimality import _rejected

RS_CELLS = [(n, r, s) for n in range(4, 9) for r in range(1, max_robustness(n) + 1)
            for s in range(2, n + 1)]


def _check(result) -> mp.MinimumCheck:
    return mp.check_minimum(result.document, result.files.__getitem__)


def test_the_enumerator_agrees_with_the_r_robust_minima() -> None:
    for n in range(4, 8):
        assert {r: minimum_edges_rs(n)[(r, 1)] for r in minimum_edges(n)} == minimum_edges(n)


@pytest.mark.parametrize(("n", "r", "s"), RS_CELLS)
def test_every_exact_rs_cell_up_to_8_is_proven_and_matches_the_enumerator(
    n: int, r: int, s: int
) -> None:
    fewest = minimum_edges_rs(n)[(r, s)]
    result = prove_minimum(n, r, fewest, s=s, time_limit=120)
    assert result.minimum and result.lower_bound == result.edges == fewest
    assert result.better is None
    found = _check(result)
    assert (found.lower_bound, found.s) == (fewest, s)


@settings(max_examples=10)
@given(st.integers(5, 7).flatmap(lambda n: st.tuples(
    st.just(n), st.integers(2, max_robustness(n)), st.integers(2, n), st.integers(1, 3))))
def test_an_rs_count_above_the_minimum_is_beaten_by_an_rs_robust_graph(case) -> None:
    n, r, s, extra = case
    fewest = minimum_edges_rs(n)[(r, s)]
    top = n * (n - 1) // 2
    result = prove_minimum(n, r, min(fewest + extra, top), s=s, time_limit=120)
    assert result.minimum and result.edges == result.lower_bound == fewest
    if result.better is not None:
        assert sum(m.bit_count() for m in result.better) // 2 == fewest
        assert s_star(result.better, r) >= s


# ----------------------------------------------------------------------------- pair clauses
def test_an_rs_pair_clause_may_leave_s_minus_1_members_loose() -> None:
    # n = 4, r = 2, S1 = {0, 1}, S2 = {2, 3}, the clause names the pair (0, 2) only: nodes 0
    # and 2 keep one outside pair out of it (held), nodes 1 and 3 two (loose)
    clause = mp.PairClause((0, 1), (2, 3), (2,))
    assert mp.pair_clause_problem(4, 2, clause, s=3) is None  # 2 loose <= s - 1
    assert "other member" in mp.pair_clause_problem(4, 2, clause, s=2)
    assert "more than r - 1" in mp.pair_clause_problem(4, 2, clause)


def test_an_rs_pair_clause_needs_a_held_member_on_each_side() -> None:
    clause = mp.PairClause((0,), (1, 2, 3), (4, 5, 6))  # node 0: its 3 outside pairs missing
    assert "no member of S1" in mp.pair_clause_problem(4, 2, clause, s=4)


def test_the_prover_pair_clause_of_an_rs_witness_is_given_by_the_definition() -> None:
    # K_4 minus the edge {0, 1} is (2, 2)-robust but not (2, 3)-robust (the minimum is 6)
    masks = [0b1100, 0b1100, 0b1011, 0b0111]
    most, pair = exact_s(masks, 2)
    assert most == 2 and s_star(masks, 2) == 2
    clause = pair_clause(4, 2, masks, sum(1 << i for i in pair.s1), sum(1 << i for i in pair.s2))
    assert mp.pair_clause_problem(4, 2, clause, s=3) is None
    assert mp.pair_clause_problem(4, 2, clause, s=1)  # it leaves an r-reachable member loose
    assert all(not masks[u] >> v & 1 for u in range(4) for v in range(u + 1, 4)
               if mp.edge_variable(4, u, v) in clause.literals)


# ----------------------------------------------------------------------------- forgeries
@pytest.fixture(scope="module")
def rs_proof():
    n, r, s = 7, 2, 6
    result = prove_minimum(n, r, minimum_edges_rs(n)[(r, s)], s=s, time_limit=120)
    assert result.document["proof"]["kind"] == "lrat" and result.document["s"] == s
    return result.document, result.files


def test_the_genuine_rs_certificate_checks(rs_proof) -> None:
    doc, files = rs_proof
    found = mp.check_minimum(doc, files.__getitem__)
    assert (found.n, found.r, found.s, found.lower_bound) == (7, 2, 6, 14)
    assert "(2, 6)-robust" in doc["statement"]


def test_an_rs_certificate_relabelled_to_a_smaller_s_is_rejected(rs_proof) -> None:
    doc, files = copy.deepcopy(rs_proof[0]), dict(rs_proof[1])
    pairs = mp.parse_pairs(files[doc["proof"]["pairs_file"]], "pairs")
    loose = [p for p in pairs if mp.pair_clause_problem(7, 2, p, s=1)]
    assert loose  # the proof uses the s - 1 allowance of Def. 7
    del doc["s"]
    doc["statement"] = mp.statement(7, 2, doc["lower_bound"])
    _rejected(doc, files, "not given by the definition")


@pytest.mark.parametrize("s", [0, 8, True, "6"])
def test_an_rs_certificate_with_s_out_of_range_is_rejected(rs_proof, s) -> None:
    doc, files = copy.deepcopy(rs_proof[0]), dict(rs_proof[1])
    doc["s"] = s
    _rejected(doc, files, "field 's'")


def test_an_rs_certificate_whose_statement_drops_s_is_rejected(rs_proof) -> None:
    doc, files = copy.deepcopy(rs_proof[0]), dict(rs_proof[1])
    doc["statement"] = mp.statement(7, 2, doc["lower_bound"])
    _rejected(doc, files, "statement")


@pytest.mark.parametrize("shift", [1, -1])
def test_an_rs_edge_count_off_by_one_is_rejected(rs_proof, shift: int) -> None:
    doc, files = copy.deepcopy(rs_proof[0]), dict(rs_proof[1])
    doc["lower_bound"] += shift
    doc["statement"] = mp.statement(7, 2, doc["lower_bound"], 6)
    _rejected(doc, files, "CNF|does not check")


def test_cli_verify_states_an_rs_certificate_and_relates_it_to_a_graph(tmp_path) -> None:
    import itertools
    import json

    from click.testing import CliRunner

    from robustgraph import io
    from robustgraph.cli import main
    from robustgraph.topology import Topology

    result = prove_minimum(5, 2, minimum_edges_rs(5)[(2, 3)], s=3, time_limit=120)
    cert = tmp_path / "k5.min.json"
    result.dump(cert)
    graph = tmp_path / "k5.json"
    io.write(Topology.from_edges(itertools.combinations(range(5), 2)), graph)
    verified = CliRunner().invoke(main, ["verify", str(cert), str(graph), "--json"])
    assert verified.exit_code == 0, verified.output
    checked = " ".join(json.loads(verified.stdout)["checked"])
    assert "has 10 edges; every (2, 3)-robust graph on 5 nodes has at least 8" in checked



def test_cli_design_s_prove_minimal_writes_an_rs_certificate_verify_accepts(tmp_path) -> None:
    import json

    from click.testing import CliRunner

    from robustgraph.cli import main

    out = tmp_path / "g.json"
    args = ["design", "--n", "7", "--r", "2", "--s", "2", "--time-limit", "1", "--prove-minimal",
            "-o", str(out), "--json"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["edges"] == data["lower_bound"] == minimum_edges_rs(7)[(2, 2)]
    assert data["minimum_certificate"] == str(tmp_path / "g.min.json")
    verified = CliRunner().invoke(main, ["verify", data["minimum_certificate"], str(out),
                                         "--json"])
    assert verified.exit_code == 0, verified.output
    assert "(2, 2)-robust graph on 7 nodes has" in " ".join(json.loads(verified.stdout)["checked"])


def test_a_proof_over_the_input_budgets_falls_back_to_the_formula_bound(monkeypatch) -> None:
    # n = 11, r = 4 refuted "at most 27 edges" with a 266 MB LRAT file, over the 64 MiB budget
    # of the checker: prove_minimum raised instead of keeping the bound it could check
    monkeypatch.setenv("ROBUSTGRAPH_MAX_BYTES", "100")
    result = prove_minimum(7, 3, minimum_edges(7)[3], time_limit=120)
    assert not result.minimum and result.document["proof"]["kind"] == "formula"
    assert result.lower_bound == max(mp.formula_bounds(7, 3).values())
    assert "budget" in result.note
