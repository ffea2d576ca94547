"""Issue 43, item 3: exact minimum edge counts with minimality certificates.

Every exact cell up to n = 8 is checked against the independent enumerator of
``tests/exact_minima.py``; forged certificates (a clause dropped, a pair clause the definition
does not give, an edge count off by one) are rejected by ``verify``."""

from __future__ import annotations

import copy
import gzip
import hashlib
import json

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from robustgraph import io
from robustgraph.certificate.proofs import minimality as mp
from robustgraph.cli import main
from robustgraph.design.minimum import prove_minimum
from robustgraph.design.minimum_loop import pair_clause, pair_clauses
from robustgraph.design.oracle import find_pair
from robustgraph.generators import max_robustness
from solvers.exhaustive import exact_r
from tests.conftest import topologies
from tests.exact_minima import minimum_edges

CELLS = [(n, r) for n in range(4, 9) for r in range(1, max_robustness(n) + 1)]


def _check(result) -> mp.MinimumCheck:
    return mp.check_minimum(result.document, result.files.__getitem__)


@pytest.mark.parametrize(("n", "r"), CELLS)
def test_every_exact_cell_up_to_8_is_proven_and_matches_the_enumerator(n: int, r: int) -> None:
    fewest = minimum_edges(n)[r]
    result = prove_minimum(n, r, fewest, time_limit=120)
    assert result.minimum and result.lower_bound == result.edges == fewest
    assert result.better is None
    assert _check(result).lower_bound == fewest


@settings(max_examples=12)
@given(st.integers(5, 8).flatmap(lambda n: st.tuples(
    st.just(n), st.integers(2, max_robustness(n)), st.integers(1, 4))))
def test_a_count_above_the_minimum_is_beaten_by_a_robust_graph(case) -> None:
    n, r, extra = case
    fewest = minimum_edges(n)[r]
    result = prove_minimum(n, r, fewest + extra, time_limit=120)
    assert result.minimum and result.edges == result.lower_bound == fewest
    if fewest + extra > max(mp.formula_bounds(n, r).values()):
        assert result.better is not None
        assert sum(m.bit_count() for m in result.better) // 2 == fewest
        assert exact_r(result.better)[0] >= r


# ----------------------------------------------------------------------------- forgeries
@settings(max_examples=150, deadline=None)
@given(topologies(max_n=8, directed=False).filter(lambda t: t.n >= 3), st.integers(2, 4))
def test_the_shortest_pair_clauses_are_given_by_the_definition_and_cut_the_graph(t, r) -> None:
    """Each clause pair_clauses hands out is given by the definition (the checker's test),
    lacks every edge of the graph (so it cuts it off), and is no longer than the clause of the
    oracle's own witness, whose widening is among the candidates."""
    masks = [sum(1 << j for j in t.in_neighbors[i]) for i in range(t.n)]
    found = find_pair(masks, r)
    if found is None or r > max_robustness(t.n):  # the prover's range: r <= ceil(n/2)
        return
    clauses = pair_clauses(t.n, r, 1, masks, found)
    assert clauses and len({c.literals for c in clauses}) == len(clauses)
    edges = {mp.edge_variable(t.n, u, v) for u in range(t.n) for v in t.in_neighbors[u]}
    for clause in clauses:
        assert mp.pair_clause_problem(t.n, r, clause) is None
        assert not edges & set(clause.literals)
        assert len(clause.literals) == len(clauses[0].literals)
    assert len(clauses[0].literals) <= len(pair_clause(t.n, r, masks, *found).literals)


@pytest.fixture(scope="module")
def lrat_proof():
    result = prove_minimum(7, 3, 14, time_limit=120)
    assert result.document["proof"]["kind"] == "lrat"
    return result.document, result.files


def _refile(doc: dict, files: dict, key: str, data: bytes) -> None:
    proof = doc["proof"]
    del files[proof[f"{key}_file"]]
    name = f"forged-{key}.gz"
    files[name] = data
    proof |= {f"{key}_file": name, f"{key}_sha256": hashlib.sha256(data).hexdigest(),
              f"{key}_bytes": len(data)}


def _pairs(doc: dict, files: dict) -> list[mp.PairClause]:
    return mp.parse_pairs(files[doc["proof"]["pairs_file"]], "pairs")


def _rejected(doc: dict, files: dict, words: str) -> None:
    with pytest.raises(mp.MinimalityError, match=words):
        mp.check_minimum(doc, files.__getitem__)


def test_the_genuine_certificate_checks(lrat_proof) -> None:
    doc, files = lrat_proof
    found = mp.check_minimum(doc, files.__getitem__)
    assert (found.n, found.r, found.lower_bound, found.kind) == (7, 3, 14, "lrat")


def test_a_dropped_pair_clause_is_rejected(lrat_proof) -> None:
    doc, files = copy.deepcopy(lrat_proof[0]), dict(lrat_proof[1])
    pairs = _pairs(doc, files)
    del pairs[len(pairs) // 2]
    _refile(doc, files, "pairs", mp.write_pairs(pairs))
    cnf = mp.encode(7, 3, 14, pairs)
    doc["proof"] |= {"pairs": len(pairs), "clauses": len(cnf.clauses)}
    _rejected(doc, files, "does not check")


def test_a_dropped_lrat_line_is_rejected(lrat_proof) -> None:
    doc, files = copy.deepcopy(lrat_proof[0]), dict(lrat_proof[1])
    lines = gzip.decompress(files[doc["proof"]["lrat_file"]]).splitlines()
    adds = [i for i, line in enumerate(lines) if b" d " not in line]
    del lines[adds[len(adds) // 2]]
    _refile(doc, files, "lrat", gzip.compress(b"\n".join(lines) + b"\n"))
    _rejected(doc, files, "does not check|steps")


def test_a_pair_clause_the_definition_does_not_give_is_rejected(lrat_proof) -> None:
    doc, files = copy.deepcopy(lrat_proof[0]), dict(lrat_proof[1])
    pairs = _pairs(doc, files)
    for k, pair in enumerate(pairs):  # drop a literal some member then keeps as its r-th pair
        for lit in pair.literals:
            forged = mp.PairClause(pair.s1, pair.s2, tuple(x for x in pair.literals if x != lit))
            if len(forged.literals) >= 2 and mp.pair_clause_problem(7, 3, forged):
                pairs[k] = forged
                break
        else:
            continue
        break
    else:
        pytest.fail("no pair clause could be forged")
    _refile(doc, files, "pairs", mp.write_pairs(pairs))
    _rejected(doc, files, "not given by the definition")


def test_a_pair_clause_with_a_swapped_pair_is_rejected(lrat_proof) -> None:
    doc, files = copy.deepcopy(lrat_proof[0]), dict(lrat_proof[1])
    pairs = _pairs(doc, files)
    first = pairs[0]
    pairs[0] = mp.PairClause(first.s1, tuple(sorted({*first.s2, *first.s1})), first.literals)
    _refile(doc, files, "pairs", mp.write_pairs(pairs))
    _rejected(doc, files, "disjoint")


@pytest.mark.parametrize("shift", [1, -1])
def test_an_edge_count_off_by_one_is_rejected(lrat_proof, shift: int) -> None:
    doc, files = copy.deepcopy(lrat_proof[0]), dict(lrat_proof[1])
    doc["lower_bound"] += shift
    doc["statement"] = mp.statement(7, 3, doc["lower_bound"])
    _rejected(doc, files, "CNF|does not check")


def test_a_formula_certificate_one_above_its_formula_is_rejected() -> None:
    n, r = 8, 3
    bound = mp.formula_bounds(n, r)["degree-r"] + 1
    doc = {"format": mp.FORMAT, "version": 1, "n": n, "r": r, "directed": False,
           "lower_bound": bound, "statement": mp.statement(n, r, bound),
           "proof": {"kind": "formula", "formula": "degree-r"}}
    _rejected(doc, {}, "gives")


@pytest.mark.parametrize("shift", [0, 1])
def test_a_forest_formula_certificate_checks_only_at_its_value(shift: int) -> None:
    """The low-degree-forest bound (docs/theory.md, section 4) at n = 30, r = 2 is 40, above
    the degree-r bound's 36: a certificate may state 40 and not 41."""
    n, r = 30, 2
    bound = mp.formula_bounds(n, r)["forest"] + shift
    assert mp.formula_bounds(n, r)["forest"] == 40 > mp.formula_bounds(n, r)["degree-r"] == 36
    doc = {"format": mp.FORMAT, "version": 1, "n": n, "r": r, "directed": False,
           "lower_bound": bound, "statement": mp.statement(n, r, bound),
           "proof": {"kind": "formula", "formula": "forest"}}
    if shift:
        _rejected(doc, {}, "gives")
    else:
        assert mp.check_minimum(doc, {}.__getitem__).lower_bound == 40


def test_a_tampered_statement_or_proof_file_is_rejected(lrat_proof) -> None:
    doc, files = copy.deepcopy(lrat_proof[0]), dict(lrat_proof[1])
    doc["statement"] = "every 3-robust graph on 7 nodes has at least 15 edges"
    _rejected(doc, files, "statement")
    doc, files = copy.deepcopy(lrat_proof[0]), dict(lrat_proof[1])
    name = doc["proof"]["lrat_file"]
    files[name] = files[name][:-1] + bytes([files[name][-1] ^ 1])
    _rejected(doc, files, "sha256")


# ----------------------------------------------------------------------------- CLI
def test_cli_design_prove_minimal_writes_a_certificate_verify_accepts(tmp_path) -> None:
    out = tmp_path / "g.json"
    args = ["design", "--n", "8", "--r", "3", "--time-limit", "1", "--prove-minimal"]
    result = CliRunner().invoke(main, [*args, "-o", str(out), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["edges"] == data["lower_bound"] == minimum_edges(8)[3]
    assert data["minimum"] and data["minimum_certificate"] == str(tmp_path / "g.min.json")
    verified = CliRunner().invoke(main, ["verify", data["minimum_certificate"], str(out),
                                         "--json"])
    assert verified.exit_code == 0, verified.output
    assert "fewest" in " ".join(json.loads(verified.stdout)["checked"])


def test_cli_verify_rejects_a_forged_minimality_certificate(tmp_path) -> None:
    out = tmp_path / "g.json"
    args = ["design", "--n", "7", "--r", "2", "--time-limit", "1", "--prove-minimal"]
    assert CliRunner().invoke(main, [*args, "-o", str(out)]).exit_code == 0
    path = tmp_path / "g.min.json"
    doc = json.loads(path.read_text())
    doc["lower_bound"] += 1
    doc["statement"] = mp.statement(7, 2, doc["lower_bound"])
    path.write_text(json.dumps(doc))
    verified = CliRunner().invoke(main, ["verify", str(path), str(out)])
    assert verified.exit_code == 1 and "INVALID" in verified.stdout


def test_cli_design_minimum_from_a_formula_needs_no_flag(tmp_path) -> None:
    out = tmp_path / "g.json"
    args = ["design", "--n", "9", "--r", "5", "--time-limit", "1", "-o", str(out), "--json"]
    data = json.loads(CliRunner().invoke(main, args).stdout)
    assert data["minimum_certificate"] and data["edges"] == data["lower_bound"] == 30
    assert io.read(out).m == 30


def test_cli_prove_minimal_refuses_what_it_does_not_cover(tmp_path) -> None:
    args = ["design", "--n", "8", "--r", "2", "--directed", "--prove-minimal"]
    result = CliRunner().invoke(main, [*args, "-o", str(tmp_path / "g.json")])
    assert result.exit_code == 2 and "--prove-minimal covers" in result.stderr


def test_cli_design_certifies_its_printed_lower_bound_even_when_not_minimal(tmp_path) -> None:
    out = tmp_path / "g.json"
    args = ["design", "--n", "12", "--r", "3", "--time-limit", "1", "-o", str(out), "--json"]
    data = json.loads(CliRunner().invoke(main, args).stdout)
    assert data["lower_bound"] == mp.formula_bounds(12, 3)["degree-r"] < data["edges"]
    assert data["minimum_certificate"] is None and data["lower_bound_certificate"]
    verified = CliRunner().invoke(main, ["verify", data["lower_bound_certificate"], str(out)])
    assert verified.exit_code == 0 and "at least 21" in verified.stdout


@pytest.mark.parametrize("module", ["robustgraph.certificate.proofs.minimality",
                                    "robustgraph.certificate.proofs.minimum_report"])
def test_docstring_examples_run(module: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0
