"""Issue 43: ``degree-split`` minimality proofs, one refutation per degree sequence. The cover
(every graphical non-increasing degree sequence with degrees >= r and sum <= 2(L - 1)) is
checked against all graphs on up to 6 nodes, the symmetry breaking kept inside a case against
every labelling of every such graph, and every exact cell up to n = 8 against the independent
enumerator; a case dropped from the cover, a case's degrees altered, a pair clause the
definition does not give and an edge count off by one are rejected."""

from __future__ import annotations

import copy
import hashlib
import itertools
import json

import networkx as nx
import pytest
from click.testing import CliRunner

from robustgraph.certificate.proofs import minimality as mp
from robustgraph.cli import main
from robustgraph.design.minimum import prove_minimum
from robustgraph.errors import ParameterError
from robustgraph.generators import max_robustness
from tests.exact_minima import minimum_edges
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


@pytest.mark.parametrize(("n", "r", "most"), [(6, 2, 14), (6, 3, 18), (6, 2, 30), (5, 2, 12)])
def test_the_cover_is_every_degree_sequence_of_a_graph_in_range(n: int, r: int,
                                                                 most: int) -> None:
    cover = list(mp.degree_sequences(n, r, most))
    assert cover == sorted(cover, reverse=True) and len(set(cover)) == len(cover)
    assert set(cover) == {d for d in _degree_sets(n) if min(d) >= r and sum(d) <= most}


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


def test_a_climb_refutes_each_degree_sequence_once() -> None:
    """n = 9, r = 3: the climb certifies levels 17 and 18 (the degree-r bound is 16); the cover
    of 18 holds that of 17, whose cases are reused, not refuted again."""
    lines: list[str] = []
    result = prove_minimum(9, 3, 18, time_limit=120, split=True, climb=True,
                           progress=lines.append)
    assert result.minimum and result.document["proof"]["kind"] == "degree-split"
    assert [line.split(" certified")[0] for line in lines if "certified" in line] == [
        "level 17", "level 18"]
    refuted = [line for line in lines if "refuted" in line]
    assert len(refuted) == len(result.document["proof"]["cases"]) == len(
        list(mp.degree_sequences(9, 3, 34)))
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
    cover = list(mp.degree_sequences(N, R, 2 * (minimum_edges(N)[R] - 1)))
    assert (found.kind, found.lower_bound) == ("degree-split", minimum_edges(N)[R])
    assert [tuple(c["degrees"]) for c in doc["proof"]["cases"]] == cover
    assert f"all {len(cover)} degree-sequence cases" in found.text


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
    _rejected(doc, files, "CNF|does not check|steps")


def test_a_pair_clause_the_definition_does_not_give_is_rejected(split_proof) -> None:
    doc, files = _copy(split_proof)
    case = max(doc["proof"]["cases"], key=lambda c: c["pairs"])
    forge_pair_clause(case, files, N, R)
    _rejected(doc, files, "not given by the definition")


def forge_pair_clause(case: dict, files: dict, n: int, r: int, among: int | None = None) -> None:
    """Replace one of the first ``among`` (default: all) pair clauses of ``case`` by the same
    pair with its first literal dropped, a clause the definition does not give, and point the
    case at the forged file (its bytes and hash made to match, so only the re-derivation can
    catch it)."""
    pairs = mp.parse_pairs(files[case["pairs_file"]], "pairs")
    for k, pair in enumerate(pairs[:among]):
        forged = mp.PairClause(pair.s1, pair.s2, pair.literals[1:])
        if forged.literals and mp.pair_clause_problem(n, r, forged):
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
