"""Issue 43: degree-split cases seeded with the pair clauses of earlier cases, and a split run
resumed from the cases it stored. Seeded proofs are checked against the independent enumerator
(every exact cell up to n = 7, hypothesis on counts above the minimum up to n = 8); a seeded
certificate whose seed the definition does not give is rejected; a run stopped between two
cases resumes from the cases on disk and proves what a fresh run proves; two runs, one reversed,
share one store's cases; a stored case altered
on disk is refused in one line, or, rehashed, fails the final check."""

from __future__ import annotations

import copy
import hashlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustgraph.certificate.proofs import minimality as mp
from robustgraph.design import minimum_split
from robustgraph.design.minimum import prove_minimum
from robustgraph.design.minimum_seeds import SEEDS, Pool
from robustgraph.design.minimum_store import CaseStore
from robustgraph.errors import ParameterError
from robustgraph.generators import max_robustness
from tests.exact_minima import minimum_edges
from tests.test_minimality import _rejected
from tests.test_minimality_split import forge_pair_clause

N, R, FEWEST = 9, 3, 18  # 18: the fewest edges of a 3-robust graph on 9 nodes (docs/design.md)


def _cells(top: int) -> list[tuple[int, int]]:
    return [(n, r) for n in range(4, top + 1) for r in range(2, max_robustness(n) + 1)
            if minimum_edges(n)[r] > max(mp.formula_bounds(n, r).values())]


@pytest.mark.parametrize("seed", ["all", "violated"])
@pytest.mark.parametrize(("n", "r"), _cells(7))
def test_seeded_split_meets_every_exact_cell_up_to_7(n: int, r: int, seed: str) -> None:
    fewest = minimum_edges(n)[r]
    result = prove_minimum(n, r, fewest, time_limit=120, split=True, seed=seed)
    assert result.minimum and result.lower_bound == result.edges == fewest
    found = mp.check_minimum(result.document, result.files.__getitem__)
    assert (found.kind, found.lower_bound) == ("degree-split", fewest)


@settings(max_examples=8)
@given(st.sampled_from(_cells(8)), st.integers(1, 3), st.sampled_from(["all", "violated"]))
def test_a_seeded_split_finds_the_minimum_below_a_larger_count(cell, extra: int,
                                                               seed: str) -> None:
    n, r = cell
    fewest = minimum_edges(n)[r]
    result = prove_minimum(n, r, fewest + extra, time_limit=120, split=True, seed=seed)
    assert result.minimum and result.edges == fewest and result.better is not None


@pytest.fixture(scope="module", params=["all", "violated"])
def seeded(request):
    result = prove_minimum(N, R, FEWEST, time_limit=120, split=True,
                           seed=request.param)
    assert result.minimum and result.document["proof"]["kind"] == "degree-split"
    return result.document, result.files


def test_seeded_cases_list_their_seeds_among_their_own_pair_clauses(seeded) -> None:
    doc, files = seeded
    cases = doc["proof"]["cases"]
    assert cases[0]["seeds"] == 0 and sum(case["seeds"] for case in cases) > 0
    earlier: set[mp.PairClause] = set()
    for case in cases:
        pairs = mp.parse_pairs(files[case["pairs_file"]], "pairs")
        assert len(pairs) == case["pairs"] and set(pairs[:case["seeds"]]) <= earlier
        earlier |= set(pairs[case["seeds"]:])
    assert mp.check_minimum(doc, files.__getitem__).lower_bound == FEWEST


def test_seeding_asks_the_oracle_less_than_no_seeding(seeded) -> None:
    doc, _ = seeded
    plain = prove_minimum(N, R, FEWEST, time_limit=120, split=True)
    new = sum(case["pairs"] - case["seeds"] for case in doc["proof"]["cases"])
    assert plain.minimum and new < plain.document["proof"]["pairs"]


def test_a_forged_seed_is_rejected(seeded) -> None:
    """A seed (a pair clause taken from the pool) the definition does not give: the checker
    re-derives seeds like every other pair clause."""
    doc, files = copy.deepcopy(seeded[0]), dict(seeded[1])
    case = next(c for c in doc["proof"]["cases"] if c["seeds"])
    forge_pair_clause(case, files, N, R, among=case["seeds"])  # the seeds come first
    _rejected(doc, files, "not given by the definition")


def test_the_pool_returns_exactly_the_clauses_a_model_violates() -> None:
    n = 12  # 66 edge variables: two words a row
    clauses = [mp.PairClause((0,), (1,), lits) for lits in [(1, 66), (64, 65), (2, 3), (66,)]]
    pool = Pool(n)
    pool.add(clauses[:2])
    pool.add(clauses[2:])
    for present in [set(), {1}, {66}, {64, 2}, {1, 2, 3, 64, 65, 66}]:
        model = [v if v in present else -v for v in range(1, 67)] + [70, -71]
        assert pool.violated(model) == [c for c in clauses if not set(c.literals) & present]


@settings(max_examples=40)
@given(st.integers(4, 12).flatmap(lambda n: st.tuples(
    st.just(n),
    st.lists(st.lists(st.integers(1, n * (n - 1) // 2), min_size=1, max_size=12, unique=True),
             max_size=30),
    st.sets(st.integers(1, n * (n - 1) // 2)))))
def test_the_pool_within_a_degree_sequence_loses_no_clause_a_graph_of_it_violates(case) -> None:
    """Pool.within keeps every clause that some graph of the given degrees violates: for a
    random graph, the clauses it violates are the same with and without the restriction."""
    n, literal_sets, present = case
    pool = Pool(n)
    pool.add([mp.PairClause((0,), (1,), tuple(sorted(lits))) for lits in literal_sets])
    degrees = [0] * n
    for u in range(n):
        for v in range(u + 1, n):
            degrees[u] += mp.edge_variable(n, u, v) in present
            degrees[v] += mp.edge_variable(n, u, v) in present
    model = [v if v in present else -v for v in range(1, n * (n - 1) // 2 + 1)]
    assert pool.within(degrees, 2).violated(model) == pool.violated(model)
    assert len(pool.within(degrees, 2)) <= len(pool)


# ------------------------------------------------------------------------------- resume
class _Stop(Exception):
    """Stands for ^C or a restart between two cases."""


def _stopping_after(cases: int, monkeypatch) -> None:
    real, calls = minimum_split._case_search, [0]

    def search(*args, **kwargs):
        calls[0] += 1
        if calls[0] > cases:
            raise _Stop
        return real(*args, **kwargs)

    monkeypatch.setattr(minimum_split, "_case_search", search)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_stopped_split_resumes_from_its_stored_cases(tmp_path, monkeypatch, seed) -> None:
    fewest = FEWEST
    _stopping_after(10, monkeypatch)
    with pytest.raises(_Stop):
        prove_minimum(N, R, fewest, time_limit=120, split=True, seed=seed, store=tmp_path)
    assert len(CaseStore(tmp_path, N, R).load()) == 10
    monkeypatch.undo()
    lines: list[str] = []
    resumed = prove_minimum(N, R, fewest, time_limit=120, split=True, seed=seed,
                            store=tmp_path, progress=lines.append)
    fresh = prove_minimum(N, R, fewest, time_limit=120, split=True, seed=seed)
    assert lines[0].startswith("10 refuted cases taken from")
    assert sum("refuted," in line for line in lines) == len(resumed.document["proof"]["cases"]) - 10
    for key in ("statement", "lower_bound", "n", "r"):
        assert resumed.document[key] == fresh.document[key]
    degrees = [c["degrees"] for c in resumed.document["proof"]["cases"]]
    assert degrees == [c["degrees"] for c in fresh.document["proof"]["cases"]]
    assert mp.check_minimum(resumed.document, resumed.files.__getitem__).lower_bound == fewest
    again: list[str] = []  # everything stored now: nothing refuted a second time
    prove_minimum(N, R, fewest, time_limit=120, split=True, store=tmp_path, progress=again.append)
    assert not any("refuted," in line for line in again)


def test_a_climb_resumes_at_the_level_it_stopped_in(tmp_path, monkeypatch) -> None:
    _stopping_after(len(list(mp.degree_sequences(N, R, 32, exactly=True))) + 3, monkeypatch)
    with pytest.raises(_Stop):  # level 17 certified, then 3 cases of level 18
        prove_minimum(N, R, 18, time_limit=120, split=True, climb=True, store=tmp_path)
    monkeypatch.undo()
    result = prove_minimum(N, R, 18, time_limit=120, split=True, climb=True, store=tmp_path)
    assert result.minimum and result.lower_bound == 18


def test_two_runs_on_one_store_share_a_level(tmp_path, monkeypatch) -> None:
    """A reversed run refutes the level's cases from the last; a run takes up, instead of
    searching, each case another run stored after it started, and its proof still checks."""
    cover = list(mp.degree_sequences(N, R, 2 * (FEWEST - 1), exactly=True))
    _stopping_after(4, monkeypatch)
    with pytest.raises(_Stop):
        prove_minimum(N, R, FEWEST, time_limit=120, split=True, store=tmp_path, reverse=True)
    monkeypatch.undo()
    other = CaseStore(tmp_path, N, R).load()
    assert set(other) == set(cover[-4:])
    shared, real, searched = tmp_path / "shared", minimum_split._case_search, []

    def search(n, r, s, degrees, *args, **kwargs):
        if not searched:  # the other run stores its four cases once this run has started
            for degrees_done, case in other.items():
                CaseStore(shared, N, R).save(degrees_done, case)
        searched.append(degrees)
        return real(n, r, s, degrees, *args, **kwargs)

    monkeypatch.setattr(minimum_split, "_case_search", search)
    result = prove_minimum(N, R, FEWEST, time_limit=120, split=True, store=shared)
    assert searched == cover[:-4]
    assert [tuple(c["degrees"]) for c in result.document["proof"]["cases"]] == cover
    assert mp.check_minimum(result.document, result.files.__getitem__).lower_bound == FEWEST


@pytest.fixture()
def stored(tmp_path):
    result = prove_minimum(7, 3, minimum_edges(7)[3], time_limit=120, split=True,
                           store=tmp_path)
    assert result.minimum
    return tmp_path / "n7_r3.cases"


def test_a_stored_file_altered_is_refused_in_one_line(stored) -> None:
    lrat = next(stored.glob("*.lrat.gz"))
    lrat.write_bytes(lrat.read_bytes()[:-1])
    with pytest.raises(ParameterError, match="sha256 and size"):
        prove_minimum(7, 3, minimum_edges(7)[3], split=True, store=stored.parent)


def test_a_stored_case_of_another_cell_is_refused(stored) -> None:
    entry = next(stored.glob("*.case.json"))
    doc = json.loads(entry.read_text())
    entry.write_text(json.dumps(doc | {"r": 2}))
    with pytest.raises(ParameterError, match="not of"):
        prove_minimum(7, 3, minimum_edges(7)[3], split=True, store=stored.parent)


def test_a_stored_case_forged_and_rehashed_fails_the_final_check(stored) -> None:
    """A stored case is not trusted: a pair clause the definition does not give, with hashes
    to match, leaves the proof unchecked and the bound at the formula's."""
    entry = max(stored.glob("*.case.json"),
                key=lambda p: json.loads(p.read_text())["case"]["pairs"])
    doc = json.loads(entry.read_text())
    case = doc["case"]
    pairs = mp.parse_pairs((stored / case["pairs_file"]).read_bytes(), "pairs")
    pairs[0] = mp.PairClause(pairs[0].s1, pairs[0].s2, pairs[0].literals[:1])
    assert mp.pair_clause_problem(7, 3, pairs[0], degrees=case["degrees"])
    data = mp.write_pairs(pairs)
    (stored / "forged.pairs.gz").write_bytes(data)
    case |= {"pairs_file": "forged.pairs.gz", "pairs_bytes": len(data),
             "pairs_sha256": hashlib.sha256(data).hexdigest()}
    entry.write_text(json.dumps(doc))
    result = prove_minimum(7, 3, minimum_edges(7)[3], split=True, store=stored.parent)
    assert not result.minimum and "did not check" in result.note
    assert result.document["proof"]["kind"] == "formula"


def test_seeding_and_a_store_need_the_split(tmp_path) -> None:
    with pytest.raises(ParameterError, match="seed"):
        prove_minimum(N, R, 18, split=True, seed="some")
    with pytest.raises(ParameterError, match="degree-sequence split"):
        prove_minimum(N, R, 18, split=False, store=tmp_path)


def test_docstring_examples_run() -> None:
    import doctest

    from robustgraph.design import minimum_seeds, minimum_store

    for module in (minimum_seeds, minimum_store):
        assert doctest.testmod(module).failed == 0
