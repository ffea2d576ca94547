"""Issue 43: ``degree-split`` minimality proofs, one refutation per degree sequence. The cover
(every graphical non-increasing degree sequence with degrees >= r and sum exactly 2(L - 1), or
at most 2(L - 1) in certificates without a ``cover`` field) is checked against all graphs on up
to 6 nodes, edge monotonicity (which makes the exact cover enough) against the exhaustive
engine, the symmetry breaking kept inside a case against every labelling of every such graph,
and every exact cell up to n = 8 against the independent enumerator; a case dropped from the
cover, a case's degrees altered, a pair clause the definition does not give, an edge count off
by one, a cover other than the one the cases fill and an exact cover past n(n - 1)/2 edges are
rejected."""

from __future__ import annotations

import copy
import hashlib
import itertools
import json

import networkx as nx
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from robustgraph.certificate.proofs import minimality as mp
from robustgraph.cli import main
from robustgraph.design import minimum_split
from robustgraph.design.minimum import prove_minimum
from robustgraph.errors import ParameterError
from robustgraph.generators import max_robustness
from solvers.exhaustive import exact_s
from tests.exact_minima import _masks, minimum_edges
from tests.test_minimality import _rejected

N, R = 8, 3
CELLS = [(n, r) for n in range(4, 9) for r in range(2, max_robustness(n) + 1)]


def _degree_sets(n: int) -> set[tuple[int, ...]]:
    """The sorted degree sequences of every graph on n labelled nodes (brute force)."""
    pairs = list(itertools.combinations(range(n), 2))
    found = set()
    for mask in range(1 << len(pairs)):
        deg = [0] * n
        for k, (u, v) in enumerate(pairs):
            if mask >> k & 1:
                deg[u] += 1
                deg[v] += 1
        found.add(tuple(sorted(deg, reverse=True)))
    return found


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_graphical_is_exactly_the_degree_sequences_of_graphs(n: int) -> None:
    realised = _degree_sets(n)
    candidates = {d for d in itertools.product(range(n), repeat=n) if list(d) == sorted(d)[::-1]}
    assert {d for d in candidates if mp.graphical(d)} == realised


@pytest.mark.parametrize("exactly", [False, True])
@pytest.mark.parametrize(("n", "r", "most"), [(6, 2, 14), (6, 3, 18), (6, 2, 30), (5, 2, 12),
                                              (6, 2, 16), (6, 3, 22), (5, 2, 20)])
def test_the_cover_is_every_degree_sequence_of_a_graph_in_range(n: int, r: int, most: int,
                                                                 exactly: bool) -> None:
    cover = list(mp.degree_sequences(n, r, most, exactly=exactly))
    assert cover == sorted(cover, reverse=True) and len(set(cover)) == len(cover)
    assert set(cover) == {d for d in _degree_sets(n) if min(d) >= r
                          and (sum(d) == most if exactly else sum(d) <= most)}


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 7).flatmap(lambda n: st.tuples(
    st.just(n), st.sets(st.sampled_from(list(itertools.combinations(range(n), 2)))),
    st.sets(st.sampled_from(list(itertools.combinations(range(n), 2)))),
    st.integers(1, max_robustness(n)))))
def test_adding_edges_never_lowers_robustness(case) -> None:
    """Edge monotonicity (docs/theory.md, section 8), on which the exact cover rests: with the
    exhaustive engine, s*_r of a random graph with random edges added is at least that of the
    graph (s*_r >= 1: r-robust; s*_r >= s: (r, s)-robust)."""
    n, edges, more, r = case
    before, after = (_masks(nx.Graph(list(pairs)), n) for pairs in (edges, edges | more))
    assert exact_s(after, r)[0] >= exact_s(before, r)[0]


def _rows_ordered(adj: list[list[int]], degrees: list[int]) -> bool:
    n = len(adj)
    for i, j in itertools.combinations(range(n), 2):
        if degrees[i] == degrees[j]:
            rest = [k for k in range(n) if k not in (i, j)]
            if [adj[i][k] for k in rest] > [adj[j][k] for k in rest]:
                return False
    return True


@pytest.mark.parametrize("n", [4, 5, 6])
def test_every_graph_has_a_labelling_each_case_keeps(n: int) -> None:
    """The soundness of sb*_l within equal degrees (docs/theory.md, section 8): every graph of
    minimum degree >= 2 has a labelling with non-increasing degrees and, for i < j of equal
    degree, row i <= row j without columns i, j."""
    graphs = [g for g in nx.graph_atlas_g() if g.number_of_nodes() == n
              and min(dict(g.degree).values()) >= 2]
    assert graphs
    for g in graphs:
        kept = False
        for perm in itertools.permutations(range(n)):
            adj = [[int(g.has_edge(perm[i], perm[j])) for j in range(n)] for i in range(n)]
            degrees = [sum(row) for row in adj]
            if degrees == sorted(degrees, reverse=True) and _rows_ordered(adj, degrees):
                kept = True
                break
        assert kept, sorted(g.edges)


@pytest.mark.parametrize(("n", "r"), CELLS)
def test_every_exact_cell_up_to_8_is_proven_by_the_split(n: int, r: int) -> None:
    fewest = minimum_edges(n)[r]
    result = prove_minimum(n, r, fewest, time_limit=120, split=True)
    assert result.minimum and result.lower_bound == result.edges == fewest
    found = mp.check_minimum(result.document, result.files.__getitem__)
    assert found.lower_bound == fewest
    if fewest > max(mp.formula_bounds(n, r).values()):
        assert found.kind == "degree-split"


def test_a_count_above_the_minimum_is_beaten_by_the_split() -> None:
    fewest = minimum_edges(N)[R]
    result = prove_minimum(N, R, fewest + 2, time_limit=120, split=True)
    assert result.minimum and result.edges == fewest and result.better is not None


def test_a_climb_refutes_each_level_on_its_own_edge_count() -> None:
    """n = 9, r = 3: the climb certifies levels 17 and 18 (the degree-r bound is 16), each on
    the degree sequences of exactly 16 and 17 edges; the last certificate holds level 18's."""
    lines: list[str] = []
    result = prove_minimum(9, 3, 18, time_limit=120, split=True, climb=True,
                           progress=lines.append)
    assert result.minimum and result.document["proof"]["kind"] == "degree-split"
    assert [line.split(" certified")[0] for line in lines if "certified" in line] == [
        "level 17", "level 18"]
    refuted = [line for line in lines if "refuted" in line]
    at_17, at_18 = (list(mp.degree_sequences(9, 3, most, exactly=True)) for most in (32, 34))
    assert len(refuted) == len(at_17) + len(at_18) and not set(at_17) & set(at_18)
    assert [tuple(c["degrees"]) for c in result.document["proof"]["cases"]] == at_18
    assert mp.check_minimum(result.document, result.files.__getitem__).lower_bound == 18


def test_the_split_refuses_cubes_parts_and_known_clauses() -> None:
    with pytest.raises(ParameterError, match="degree-sequence split"):
        prove_minimum(N, R, 15, split=True, parts=1)


# ----------------------------------------------------------------------------- forgeries
@pytest.fixture(scope="module")
def split_proof():
    result = prove_minimum(N, R, minimum_edges(N)[R], time_limit=120, split=True)
    assert result.minimum and result.document["proof"]["kind"] == "degree-split"
    return result.document, result.files


def _copy(split_proof) -> tuple[dict, dict]:
    return copy.deepcopy(split_proof[0]), dict(split_proof[1])


def _drop(doc: dict, k: int) -> None:
    gone = doc["proof"]["cases"].pop(k)
    doc["proof"]["steps"] -= gone["steps"]
    doc["proof"]["pairs"] -= gone["pairs"]


def test_the_genuine_split_checks(split_proof) -> None:
    doc, files = split_proof
    found = mp.check_minimum(doc, files.__getitem__)
    cover = list(mp.degree_sequences(N, R, 2 * (minimum_edges(N)[R] - 1), exactly=True))
    assert (found.kind, found.lower_bound) == ("degree-split", minimum_edges(N)[R])
    assert doc["proof"]["cover"] == "exactly"
    assert [tuple(c["degrees"]) for c in doc["proof"]["cases"]] == cover
    assert f"all {len(cover)} degree-sequence cases" in found.text
    assert f"degree sums exactly {2 * (minimum_edges(N)[R] - 1)}" in found.text


def _at_most_proof(n: int, r: int, level: int) -> tuple[dict, dict]:
    """A certificate of the kind written before the exact cover (no ``cover`` field: every
    degree sum up to 2(L - 1)), refuted case by case with the split's own case functions."""
    cases, files = [], {}
    for degrees in mp.degree_sequences(n, r, 2 * (level - 1)):
        status, found = minimum_split._case_search(n, r, 1, degrees, 2_000_000, 1e12,
                                                   minimum_split.Split(n))
        assert status == "unsat"
        entry, more = minimum_split._case_refutation(n, degrees, *found, 1e12)
        cases.append(entry)
        files |= more
    proof = {"kind": "degree-split", "encoding": mp.SPLIT_ENCODING, "cases": cases,
             "steps": sum(c["steps"] for c in cases), "pairs": sum(c["pairs"] for c in cases)}
    doc = {"format": mp.FORMAT, "version": 1, "n": n, "r": r, "directed": False,
           "lower_bound": level, "statement": mp.statement(n, r, level), "proof": proof}
    return doc, files


def test_a_certificate_of_every_sum_up_to_the_level_still_checks(split_proof) -> None:
    """Certificates written before the exact cover (field ``cover`` absent) verify; one whose
    cases are those of the other cover is rejected either way."""
    fewest = minimum_edges(N)[R]
    doc, files = _at_most_proof(N, R, fewest)
    assert "cover" not in doc["proof"]
    found = mp.check_minimum(doc, files.__getitem__)
    assert found.lower_bound == fewest and "degree sums at most" in found.text
    exact = list(mp.degree_sequences(N, R, 2 * (fewest - 1), exactly=True))
    assert len(doc["proof"]["cases"]) > len(exact)
    doc["proof"]["cover"] = "exactly"  # more cases than the exact cover holds
    _rejected(doc, files, "cover")
    doc, files = _copy(split_proof)
    del doc["proof"]["cover"]  # the exact cases, read as the cover of every sum up to 2(L - 1)
    _rejected(doc, files, "cover")


@pytest.mark.parametrize("cover", ["at_most", "exact", "", 1, None, ["exactly"]])
def test_an_unknown_cover_is_rejected(split_proof, cover) -> None:
    doc, files = _copy(split_proof)
    doc["proof"]["cover"] = cover
    _rejected(doc, files, "field 'cover' is not one of exactly, at-most")


def test_an_exact_cover_past_every_edge_is_rejected() -> None:
    """No graph on 4 nodes has 7 edges, so the exact cover of L = 8 is empty; its certificate
    would claim that every 2-robust graph on 4 nodes (K4 is one, 6 edges) has at least 8."""
    proof = {"kind": "degree-split", "encoding": mp.SPLIT_ENCODING, "cover": "exactly",
             "cases": [], "steps": 0, "pairs": 0}
    doc = {"format": mp.FORMAT, "version": 1, "n": 4, "r": 2, "directed": False,
           "lower_bound": 8, "statement": mp.statement(4, 2, 8), "proof": proof}
    assert list(mp.degree_sequences(4, 2, 14, exactly=True)) == []
    _rejected(doc, {}, "no graph on 4 nodes has 7 edges")


@pytest.mark.parametrize("which", ["first", "middle", "last"])
def test_a_case_dropped_from_the_cover_is_rejected(split_proof, which: str) -> None:
    doc, files = _copy(split_proof)
    cases = doc["proof"]["cases"]
    _drop(doc, {"first": 0, "middle": len(cases) // 2, "last": len(cases) - 1}[which])
    _rejected(doc, files, "cover")


def test_a_case_degree_constraint_altered_is_rejected(split_proof) -> None:
    doc, files = _copy(split_proof)
    case = max(doc["proof"]["cases"], key=lambda c: c["pairs"])
    case["degrees"][0] += 1  # another sequence: not the cover's case in this place
    _rejected(doc, files, "cover")
    doc, files = _copy(split_proof)
    cases = doc["proof"]["cases"]
    cases[0], cases[1] = cases[1], cases[0]  # each case's refutation under another's degrees
    _rejected(doc, files, "cover")


def test_a_case_refuted_for_other_degrees_is_rejected(split_proof) -> None:
    doc, files = _copy(split_proof)
    cases = doc["proof"]["cases"]
    a, b = sorted(range(len(cases)), key=lambda k: cases[k]["pairs"])[-2:]
    degrees_a, degrees_b = cases[a]["degrees"], cases[b]["degrees"]
    cases[a]["degrees"], cases[b]["degrees"] = degrees_b, degrees_a
    cases[a], cases[b] = cases[b], cases[a]  # the cover's order, the proofs swapped
    _rejected(doc, files, "CNF|does not check|steps|not given by the definition")


def test_a_pair_clause_the_definition_does_not_give_is_rejected(split_proof) -> None:
    doc, files = _copy(split_proof)
    case = max(doc["proof"]["cases"], key=lambda c: c["pairs"])
    forge_pair_clause(case, files, N, R)
    _rejected(doc, files, "not given by the definition")


def forge_pair_clause(case: dict, files: dict, n: int, r: int, among: int | None = None) -> None:
    """Replace one of the first ``among`` (default: all) pair clauses of ``case`` by the same
    pair with one literal dropped, a clause the definition does not give under the case's
    degrees, and point the case at the forged file (its bytes and hash made to match, so only
    the re-derivation can catch it)."""
    pairs = mp.parse_pairs(files[case["pairs_file"]], "pairs")
    forgeries = ((k, mp.PairClause(pair.s1, pair.s2, pair.literals[:j] + pair.literals[j + 1:]))
                 for k, pair in enumerate(pairs[:among]) for j in range(len(pair.literals)))
    for k, forged in forgeries:
        if forged.literals and mp.pair_clause_problem(n, r, forged, degrees=case["degrees"]):
            pairs[k] = forged
            break
    else:
        pytest.fail("no pair clause could be forged")
    data = mp.write_pairs(pairs)
    files["forged.pairs.gz"] = data
    case |= {"pairs_file": "forged.pairs.gz", "pairs_bytes": len(data),
             "pairs_sha256": hashlib.sha256(data).hexdigest()}


@pytest.mark.parametrize("shift", [1, -1])
def test_an_edge_count_off_by_one_is_rejected(split_proof, shift: int) -> None:
    doc, files = _copy(split_proof)
    doc["lower_bound"] += shift
    doc["statement"] = mp.statement(N, R, doc["lower_bound"])
    _rejected(doc, files, "cover")


def test_steps_that_do_not_add_up_are_rejected(split_proof) -> None:
    doc, files = _copy(split_proof)
    doc["proof"]["steps"] += 1
    _rejected(doc, files, "do not add up")


def test_cli_verify_checks_a_split_certificate(tmp_path) -> None:
    out = tmp_path / "g.json"
    design = ["design", "--n", "7", "--r", "3", "--time-limit", "1", "-o", str(out), "--json"]
    edges = json.loads(CliRunner().invoke(main, design).stdout)["edges"]
    result = prove_minimum(7, 3, edges, time_limit=120, split=True)
    assert result.minimum and result.document["proof"]["kind"] == "degree-split"
    result.dump(tmp_path / "s.min.json")
    verified = CliRunner().invoke(main, ["verify", str(tmp_path / "s.min.json"), str(out)])
    assert verified.exit_code == 0, verified.output
    assert "degree-sequence cases checked" in verified.stdout
    assert f"the graph's {edges} edges are the fewest" in verified.stdout


@pytest.mark.parametrize("module", ["robustgraph.design.minimum_loop",
                                    "robustgraph.design.minimum_split"])
def test_docstring_examples_run(module: str) -> None:
    import doctest
    import importlib

    assert doctest.testmod(importlib.import_module(module)).failed == 0
