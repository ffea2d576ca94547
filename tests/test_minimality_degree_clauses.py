"""Issue 43: degree clauses in ``degree-split`` cases (module notes of
robustgraph/certificate/proofs/minimality.py, "Degree clauses"; docs/theory.md section 8).

Inside a case every node's degree is fixed, so a pair clause may also name edges present inside
a side (negative literals). The checker's rule is tested against the exhaustive engine on every
labelled graph of the case's degrees (a clause it accepts cuts off no (r, s)-robust graph), the
prover's clauses against that rule and the same brute force, the seeding pool's filter against
the rule, and the certificate checker against forgeries: a degree clause carried into a case
whose degrees do not give it, a negative literal across the sides, a negative literal outside
a degree-split proof. A proof of positive pair clauses only (as written before) still checks.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustgraph.certificate.proofs import minimality as mp
from robustgraph.design import minimum_loop as mm
from robustgraph.design import minimum_split
from robustgraph.design.minimum import prove_minimum
from robustgraph.design.minimum_seeds import Pool
from robustgraph.generators import max_robustness
from solvers.exhaustive import exact_s
from tests.exact_minima import minimum_edges
from tests.test_minimality import _refile, _rejected

N, R = 8, 3


@functools.cache
def _labelled(n: int) -> dict[tuple[int, ...], list[list[int]]]:
    """Every labelled graph on n nodes as neighbour bitmasks, by its degree vector."""
    pairs = list(itertools.combinations(range(n), 2))
    found: dict[tuple[int, ...], list[list[int]]] = {}
    for chosen in range(1 << len(pairs)):
        masks = [0] * n
        for k, (u, v) in enumerate(pairs):
            if chosen >> k & 1:
                masks[u] |= 1 << v
                masks[v] |= 1 << u
        found.setdefault(tuple(m.bit_count() for m in masks), []).append(masks)
    return found


def _violates(n: int, masks: list[int], literals: tuple[int, ...]) -> bool:
    """Whether the graph avoids the clause: each positive literal's pair absent, each negative
    literal's edge present."""
    present = {mp.edge_variable(n, u, v) for u in range(n) for v in range(u + 1, n)
               if masks[u] >> v & 1}
    return all((abs(x) in present) == (x < 0) for x in literals)


def _cut_off(n: int, degrees: list[int], literals: tuple[int, ...]) -> list[list[int]]:
    """The labelled graphs of these degrees that avoid the clause."""
    return [m for m in _labelled(n).get(tuple(degrees), []) if _violates(n, m, literals)]


def _graph(n: int, chosen: set[tuple[int, int]]) -> list[int]:
    masks = [0] * n
    for u, v in chosen:
        masks[u] |= 1 << v
        masks[v] |= 1 << u
    return masks


_GRAPHS = st.integers(4, 6).flatmap(lambda n: st.tuples(
    st.just(n), st.sets(st.sampled_from(list(itertools.combinations(range(n), 2)))),
    st.integers(2, max_robustness(n)), st.integers(1, 2), st.randoms(use_true_random=False)))


@settings(max_examples=120, deadline=None)
@given(_GRAPHS)
def test_a_degree_clause_the_checker_accepts_cuts_off_no_robust_graph(case) -> None:
    """The rule itself: from a graph G that is not (r, s)-robust and a violating pair, every
    missing outside pair and every inside edge, then literals dropped at random while the
    checker still accepts; every labelled graph of G's degrees avoiding the clause is then not
    (r, s)-robust (exhaustive engine), and G is one of them."""
    n, edges, r, s, rng = case
    masks = _graph(n, edges)
    most, pair = exact_s(masks, r)
    if pair is None or most >= s:
        return
    degrees = [m.bit_count() for m in masks]
    sides = {i: k for k, side in enumerate((pair.s1, pair.s2)) for i in side}
    literals = []
    for u, v in itertools.combinations(range(n), 2):
        a, b = sides.get(u), sides.get(v)
        if masks[u] >> v & 1 and a is not None and a == b:
            literals.append(-mp.edge_variable(n, u, v))
        elif not masks[u] >> v & 1 and a != b:
            literals.append(mp.edge_variable(n, u, v))
    clause = mp.PairClause(tuple(pair.s1), tuple(pair.s2), tuple(sorted(literals, key=abs)))
    assert mp.pair_clause_problem(n, r, clause, s, degrees) is None
    for x in rng.sample(literals, len(literals)):
        shorter = tuple(y for y in clause.literals if y != x)
        if shorter and mp.pair_clause_problem(
                n, r, mp.PairClause(clause.s1, clause.s2, shorter), s, degrees) is None:
            clause = mp.PairClause(clause.s1, clause.s2, shorter)
    cut = _cut_off(n, degrees, clause.literals)
    assert masks in cut
    assert all(exact_s(h, r)[0] < s for h in cut)


@settings(max_examples=120, deadline=None)
@given(_GRAPHS)
def test_the_provers_degree_clauses_are_given_and_cut_off_no_robust_graph(case) -> None:
    """:func:`degree_clauses` of a graph that is not r-robust: each clause is accepted by the
    checker under the graph's degrees, the graph avoids it, it is no longer than the shortest
    positive pair clause, and every labelled graph of those degrees avoiding it is not
    r-robust."""
    n, edges, r, _, _ = case
    masks = _graph(n, edges)
    most, pair = exact_s(masks, r)
    if pair is None or most >= 1:
        return
    degrees = [m.bit_count() for m in masks]
    witness = (sum(1 << i for i in pair.s1), sum(1 << i for i in pair.s2))
    found = mm.degree_clauses(n, r, degrees, masks, witness)
    positive = mm.pair_clauses(n, r, 1, masks, witness)
    assert found and len(found[0].literals) <= len(positive[0].literals)
    for clause in found:
        assert mp.pair_clause_problem(n, r, clause, 1, degrees) is None
        cut = _cut_off(n, degrees, clause.literals)
        assert masks in cut and all(exact_s(h, r)[0] < 1 for h in cut)


def test_negative_literals_need_a_case_and_must_lie_inside_a_side() -> None:
    inside = mp.PairClause((0, 1), (2, 3), (-1, -6))  # edges {0, 1}, {2, 3}
    assert "fixed degrees" in mp.pair_clause_problem(4, 2, inside)
    across = mp.PairClause((0, 1), (2, 3), (-1, -2))  # {0, 2} joins the sides
    assert "inside S1 or inside S2" in mp.pair_clause_problem(4, 2, across, degrees=[2] * 4)
    outside = mp.PairClause((0,), (1,), (2, -6))  # {2, 3} lies in neither side
    assert "inside S1 or inside S2" in mp.pair_clause_problem(4, 2, outside, degrees=[1] * 4)
    twice = mp.PairClause((0, 1), (2, 3), (-1, 1, -6))
    assert "distinct edge variables" in mp.pair_clause_problem(4, 2, twice, degrees=[2] * 4)
    assert mp.pair_clause_problem(4, 2, inside, degrees=[2, 2, 2, 2]) is None
    assert "node 3 keeps 2" in mp.pair_clause_problem(4, 2, inside, degrees=[2, 2, 2, 3])


# -------------------------------------------------------------------------------- pool
def test_the_pool_tests_negative_literals_as_edges_present() -> None:
    n = 12
    clauses = [mp.PairClause((0,), (1,), lits) for lits in [(-1, 66), (-64, -65), (2, -3)]]
    pool = Pool(n)
    pool.add(clauses)
    for present in [set(), {1}, {64, 65}, {3}, {1, 2, 3, 64, 65, 66}]:
        model = [v if v in present else -v for v in range(1, 67)]
        assert pool.violated(model) == [
            c for c in clauses if all((abs(x) in present) == (x < 0) for x in c.literals)]


@settings(max_examples=60, deadline=None)
@given(st.integers(5, 7).flatmap(lambda n: st.tuples(
    st.just(n), st.integers(2, max_robustness(n)), st.randoms(use_true_random=False))))
def test_the_pool_within_a_case_keeps_exactly_the_degree_clauses_given_there(case) -> None:
    """Degree clauses found in graphs of other degrees (each degree at least r, as in every
    case): :meth:`Pool.within` keeps those the checker accepts under the case's degrees (among
    those a graph of the case can violate)."""
    n, r, rng = case
    pairs = list(itertools.combinations(range(n), 2))
    clauses = []
    for _ in range(12):
        masks = _graph(n, set(rng.sample(pairs, rng.randrange(len(pairs)))))
        most, pair = exact_s(masks, r)
        if pair is not None and most < 1 and min(m.bit_count() for m in masks) >= r:
            witness = (sum(1 << i for i in pair.s1), sum(1 << i for i in pair.s2))
            clauses += mm.degree_clauses(n, r, [m.bit_count() for m in masks], masks, witness)
    pool = Pool(n)
    pool.add(clauses)
    degrees = [rng.randrange(r, n) for _ in range(n)]
    room = [n - 1 - d for d in degrees]
    nodes = [(u, v) for u in range(n) for v in range(u + 1, n)]
    violable = [c for c in clauses if all(
        sum(i in nodes[x - 1] for x in c.literals if x > 0) <= room[i] for i in range(n))]
    assert pool.within(degrees, r).clauses == [
        c for c in violable if mp.pair_clause_problem(n, r, c, 1, degrees) is None]


def test_the_pool_counts_only_outside_pairs_of_a_padded_degree_clause() -> None:
    """A degree clause padded with a missing pair inside a side (as :func:`degree_clause` may
    pad to two literals): :meth:`Pool.within` agrees with the checker for every degree vector
    of a small range."""
    n, r = 6, 3
    clause = mp.PairClause((0, 1, 2), (3, 4, 5), tuple(sorted(
        [-mp.edge_variable(n, 0, 1), mp.edge_variable(n, 1, 2), -mp.edge_variable(n, 3, 4),
         -mp.edge_variable(n, 4, 5), -mp.edge_variable(n, 3, 5)], key=abs)))
    pool = Pool(n)
    pool.add([clause])
    room = {1: 4, 2: 4}  # the padded pair {1, 2} absent leaves nodes 1 and 2 at most 4
    for degrees in itertools.product(range(3, 6), repeat=n):
        given = mp.pair_clause_problem(n, r, clause, 1, list(degrees)) is None
        violable = all(degrees[i] <= most for i, most in room.items())
        assert bool(pool.within(list(degrees), r).clauses) == (given and violable), degrees


# --------------------------------------------------------------------------- certificates
@pytest.fixture(scope="module")
def split_proof():
    result = prove_minimum(N, R, minimum_edges(N)[R], time_limit=120, split=True)
    assert result.minimum and result.document["proof"]["kind"] == "degree-split"
    return result.document, result.files


def _pairs(case: dict, files: dict) -> list[mp.PairClause]:
    return mp.parse_pairs(files[case["pairs_file"]], "pairs")


def _replace_pairs(doc: dict, case: dict, files: dict, pairs: list[mp.PairClause]) -> None:
    """Point ``case`` at a new pair file (hash, size and counts made to match, so only the
    re-derivation of the clauses can catch a forgery)."""
    data = mp.write_pairs(pairs)
    name = f"forged-{hashlib.sha256(data).hexdigest()[:8]}.pairs.gz"
    files[name] = data
    doc["proof"]["pairs"] += len(pairs) - case["pairs"]
    case |= {"pairs_file": name, "pairs_bytes": len(data), "pairs": len(pairs),
             "pairs_sha256": hashlib.sha256(data).hexdigest()}


def test_the_split_proof_uses_degree_clauses_and_checks(split_proof) -> None:
    doc, files = split_proof
    clauses = [c for case in doc["proof"]["cases"] for c in _pairs(case, files)]
    assert any(x < 0 for c in clauses for x in c.literals)
    assert mp.check_minimum(doc, files.__getitem__).lower_bound == minimum_edges(N)[R]


def test_a_degree_clause_carried_into_a_case_that_does_not_give_it_is_rejected(
        split_proof) -> None:
    doc, files = copy.deepcopy(split_proof[0]), dict(split_proof[1])
    cases = doc["proof"]["cases"]
    for source, target in itertools.permutations(cases, 2):
        carried = [c for c in _pairs(source, files) if any(x < 0 for x in c.literals)
                   and mp.pair_clause_problem(N, R, c, 1, target["degrees"])]
        if carried:
            _replace_pairs(doc, target, files, [*_pairs(target, files), carried[0]])
            _rejected(doc, files, "not given by the definition")
            return
    pytest.fail("every degree clause holds in every case")


def test_a_negative_literal_across_the_sides_is_rejected(split_proof) -> None:
    doc, files = copy.deepcopy(split_proof[0]), dict(split_proof[1])
    case = doc["proof"]["cases"][0]
    pairs = _pairs(case, files)
    for k, clause in enumerate(pairs):
        used = {abs(x) for x in clause.literals}
        across = [mp.edge_variable(N, u, v) for u in clause.s1 for v in clause.s2
                  if mp.edge_variable(N, u, v) not in used]
        if across:
            pairs[k] = mp.PairClause(clause.s1, clause.s2,
                                     tuple(sorted({*clause.literals, -across[0]}, key=abs)))
            _replace_pairs(doc, case, files, pairs)
            _rejected(doc, files, "inside S1 or inside S2")
            return
    pytest.fail("no clause leaves a pair across its sides unlisted")


def test_a_negative_literal_outside_a_degree_split_proof_is_rejected() -> None:
    """An ``lrat`` proof (one CNF for every degree) may not use degree clauses."""
    result = prove_minimum(7, 3, 14, time_limit=120)
    doc, files = copy.deepcopy(result.document), dict(result.files)
    assert doc["proof"]["kind"] == "lrat"
    pairs = mp.parse_pairs(files[doc["proof"]["pairs_file"]], "pairs")
    first = pairs[0]
    used = {abs(x) for x in first.literals}
    inside = next(mp.edge_variable(7, u, v) for side in (first.s1, first.s2)
                  for u, v in itertools.combinations(side, 2)
                  if mp.edge_variable(7, u, v) not in used)
    pairs[0] = mp.PairClause(first.s1, first.s2,
                             tuple(sorted({*first.literals, -inside}, key=abs)))
    _refile(doc, files, "pairs", mp.write_pairs(pairs))
    _rejected(doc, files, "fixed degrees")


def test_a_proof_of_positive_pair_clauses_only_still_checks(monkeypatch) -> None:
    """Certificates written before degree clauses (every literal positive) verify."""
    monkeypatch.setattr(mm, "degree_clauses",
                        lambda n, r, degrees, masks, pair: mm.pair_clauses(n, r, 1, masks, pair))
    result = prove_minimum(7, 3, minimum_edges(7)[3], time_limit=120, split=True)
    doc, files = result.document, result.files
    assert doc["proof"]["kind"] == "degree-split"
    clauses = [c for case in doc["proof"]["cases"] for c in _pairs(case, files)]
    assert clauses and all(x > 0 for c in clauses for x in c.literals)
    assert mp.check_minimum(doc, files.__getitem__).lower_bound == minimum_edges(7)[3]


def test_every_clause_of_a_case_search_is_given_under_its_degrees() -> None:
    """The middle case of (8, 3)'s cover, unseeded: every clause the search adds is accepted by
    the checker under the case's degrees, and some are degree clauses."""
    cover = list(mp.degree_sequences(N, R, 2 * (minimum_edges(N)[R] - 1), exactly=True))
    degrees = cover[len(cover) // 2]
    status, (pairs, seeds) = minimum_split._case_search(
        N, R, 1, degrees, 2_000_000, 1e12, minimum_split.Split(N))
    assert status == "unsat" and seeds == 0 and pairs
    assert any(x < 0 for c in pairs for x in c.literals)
    assert all(mp.pair_clause_problem(N, R, c, 1, list(degrees)) is None for c in pairs)
