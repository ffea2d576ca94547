"""Cube-and-conquer LRAT proofs (``certify --cubes``): answers, combined proofs, tampering."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import topologies
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from robustgraph import generators as gen
from robustgraph import io
from robustgraph.certificate.proofs import cubes
from robustgraph.certificate.proofs.checker import View, check_proof
from robustgraph.certificate.proofs.cnf import encode
from robustgraph.certificate.proofs.lrat import LratError, check_refutation
from robustgraph.certificate.proofs.prover import prove
from robustgraph.cli import main
from robustgraph.errors import ParameterError
from robustgraph.topology import Topology
from solvers.exhaustive import exact_r, exact_s
from solvers.witness import refutes_r, refutes_rs

pytest.importorskip("pysat")

SMALL = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def r_star(nb: list[frozenset[int]]) -> int:
    return exact_r([sum(1 << j for j in x) for x in nb])[0]


def lines(text: bytes) -> list[str]:
    return text.decode().splitlines()


@SMALL
@given(topologies(max_n=9), st.integers(0, 3), st.booleans(), st.data())
def test_the_split_answer_agrees_with_the_exhaustive_engine_and_its_proof_checks(
    t, k, lookahead, data
):
    if t.n < 2:
        return
    view = View.of(t)
    nb = view.canonical()
    k = min(k, t.n)
    best = r_star(nb)
    for r in range(1, best + 2):
        conquered = cubes.refute(nb, r, 1, cubes.Split(k, lookahead=lookahead))
        assert [leaf.cube for leaf in conquered.leaves] == conquered.tree.cubes(t.n)
        if not lookahead:
            assert len(conquered.leaves) == 3**k
        if r <= best:
            assert conquered.status is False
            cnf = encode(nb, r, 1)
            assert check_refutation(cnf.clauses, lines(conquered.text)) >= 1
        else:
            assert conquered.status is True
            for leaf in conquered.leaves:  # every satisfiable cube decodes to a violating pair
                if leaf.status is True:
                    assert refutes_r(nb, *leaf.pair, r)
    r = data.draw(st.integers(1, best), label="r") if best >= 1 else None
    if r is not None:  # the same proof through the prover, as the existing verifier reads it
        proof, files = prove(view, r, 1, "lrat", split=cubes.Split(k, lookahead=lookahead))
        assert proof["kind"] == "lrat"
        assert check_proof(view, r, 1, proof, files.__getitem__).steps == proof["steps"]


@pytest.mark.parametrize("directed", [False, True])
def test_graphs_and_digraphs_at_r_star_split_three_ways(directed):
    t = gen.erdos_renyi(9, 0.6, seed=4, directed=directed)
    nb = View.of(t).canonical()
    best = r_star(nb)
    assert best >= 1
    cnf = encode(nb, best, 1)
    for k in (1, 2, 3):
        conquered = cubes.refute(nb, best, 1, cubes.Split(k))
        assert check_refutation(cnf.clauses, lines(conquered.text)) >= 1
        assert cubes.refute(nb, best + 1, 1, cubes.Split(k)).status is True


def test_r_s_robustness_splits_too():
    t = gen.erdos_renyi(8, 0.5, seed=2)
    nb = View.of(t).canonical()
    r = 2
    s_star = exact_s([sum(1 << j for j in x) for x in nb], r)[0]
    for s in range(1, min(s_star + 1, t.n) + 1):
        conquered = cubes.refute(nb, r, s, cubes.Split(2))
        assert (conquered.status is False) == (s <= s_star)
        if conquered.status is False:
            check_refutation(encode(nb, r, s).clauses, lines(conquered.text))
        else:
            assert refutes_rs(nb, *conquered.pair, r, s)


def test_split_nodes_are_the_highest_in_degrees_and_k_is_bounded():
    star = [frozenset({1, 2, 3}), frozenset({0}), frozenset({0}), frozenset({0, 1})]
    assert cubes.split_nodes(star, 2) == [0, 3]
    assert cubes.cubes(star, 0) == [()]
    with pytest.raises(ParameterError, match="0 <= k <= n = 4"):
        cubes.split_nodes(star, 5)


@pytest.fixture(scope="module")
def refuted() -> tuple[list[frozenset[int]], tuple[cubes.Leaf, ...], tuple]:
    """A graph at its r* = 3 split on 2 nodes: every cube refuted, some by CaDiCaL."""
    nb = View.of(gen.erdos_renyi(14, 0.5, seed=1)).canonical()
    assert r_star(nb) == 3
    leaves = cubes.refute(nb, 3, 1, cubes.Split(2, lookahead=False)).leaves
    return nb, leaves, encode(nb, 3, 1).clauses


def _tamper(leaf: cubes.Leaf, change) -> cubes.Leaf:
    rows = lines(leaf.text)
    additions = [i for i, row in enumerate(rows) if row.split()[1] != "d"]
    middle = additions[len(additions) // 2]
    rows[middle] = change(rows[middle].split())
    return replace(leaf, text=("\n".join(rows) + "\n").encode())


def _flip_literal(tokens: list[str]) -> str:
    tokens[1] = str(-int(tokens[1]))
    return " ".join(tokens)


def _unknown_hint(tokens: list[str]) -> str:
    tokens[-2] = "999999999"
    return " ".join(tokens)


def _earlier_hint(tokens: list[str]) -> str:
    end = tokens.index("0", 1)
    tokens[end + 1] = "1"  # clause 1 (-x_0 -y_0) instead of the first hint
    return " ".join(tokens)


@pytest.mark.parametrize("change", [_flip_literal, _unknown_hint, _earlier_hint])
def test_a_tampered_cube_proof_is_rejected(refuted, change):
    nb, leaves, clauses = refuted
    total = len(clauses)
    check_refutation(clauses, lines(cubes.combine(nb, 2, leaves, total)))  # untouched: checks
    target = max(range(len(leaves)), key=lambda i: leaves[i].lemmas)  # a CaDiCaL proof
    assert leaves[target].lemmas > 2
    bad = list(leaves)
    bad[target] = _tamper(leaves[target], change)
    with pytest.raises(LratError):
        check_refutation(clauses, lines(cubes.combine(nb, 2, bad, total)))


def _flip_unit(leaf: cubes.Leaf) -> cubes.Leaf:
    """The first lemma ``l or not cube`` of a propagated literal, l negated."""
    rows = lines(leaf.text)
    for i, row in enumerate(rows):
        tokens = row.split()
        if tokens[1] != "d" and tokens.index("0", 1) == len(leaf.cube) + 2:
            tokens[1] = str(-int(tokens[1]))
            rows[i] = " ".join(tokens)
            return replace(leaf, text=("\n".join(rows) + "\n").encode())
    raise AssertionError("no unit lemma")


def _early_deletion(leaf: cubes.Leaf) -> cubes.Leaf:
    """The cube's first deletion line moved up to just after the last lemma it deletes is
    added, before some of them are used."""
    rows = lines(leaf.text)
    first = next(i for i, row in enumerate(rows) if row.split()[1] == "d")
    newest = max(int(t) for t in rows[first].split()[2:-1])
    made = next(i for i, row in enumerate(rows) if int(row.split()[0]) == newest)
    assert made + 1 < first
    rows.insert(made + 1, rows.pop(first))
    return replace(leaf, text=("\n".join(rows) + "\n").encode())


@pytest.mark.parametrize("change", [_flip_unit, _early_deletion])
def test_a_forged_unit_lemma_or_an_early_deletion_is_rejected(refuted, change):
    nb, leaves, clauses = refuted
    target = max(range(len(leaves)), key=lambda i: leaves[i].lemmas)
    bad = list(leaves)
    bad[target] = change(leaves[target])
    with pytest.raises(LratError, match="hint"):
        check_refutation(clauses, lines(cubes.combine(nb, 2, bad, len(clauses))))


def test_cubes_renumbered_as_they_end_give_the_proof_renumbered_at_combine(refuted):
    nb, _, clauses = refuted
    total = len(clauses)
    raw = [cubes.solve_leaf(nb, 3, 1, cube, index=i) for i, cube in enumerate(cubes.cubes(nb, 2))]
    assert all(leaf.first == 0 for leaf in raw)
    at_once = cubes.combine(nb, 2, raw, total)
    early, after = list(raw), total
    for i in range(3):  # cubes 0-2 ended first and were renumbered while the others ran
        early[i] = cubes.renumber(raw[i], i, total, after)
        after += raw[i].lemmas
    assert cubes.combine(nb, 2, early, total) == at_once
    assert check_refutation(clauses, lines(at_once)) >= len(raw)
    assert max(int(row.split()[0]) for row in lines(at_once)) < 10**7  # short ids
    clash = [cubes.renumber(leaf, i, total, total) for i, leaf in enumerate(raw)]
    with pytest.raises(ParameterError, match="overlap"):
        cubes.combine(nb, 2, clash, total)


def test_a_split_gives_the_same_proof_on_one_worker_or_two(refuted):
    from robustgraph.executors import LocalExecutor

    nb, leaves, clauses = refuted
    with LocalExecutor(2) as pool:
        two = cubes.refute(nb, 3, 1, cubes.Split(2, pool, progress=False, lookahead=False))
    assert two.text == cubes.combine(nb, 2, leaves, len(clauses))


def test_combine_refuses_leaves_that_are_not_the_refuted_split(refuted):
    nb, leaves, clauses = refuted
    with pytest.raises(ParameterError, match="not the cubes of this split"):
        cubes.combine(nb, 2, leaves[:-1], len(clauses))
    open_leaf = cubes.Leaf(leaves[0].cube, None)
    with pytest.raises(ParameterError, match="only refuted cubes"):
        cubes.combine(nb, 2, (open_leaf, *leaves[1:]), len(clauses))


def test_a_satisfiable_cube_gives_a_violating_pair():
    t = gen.erdos_renyi(12, 0.5, seed=3, directed=True)
    nb = View.of(t).canonical()
    r = r_star(nb) + 1
    found = [cubes.solve_leaf(nb, r, 1, cube) for cube in cubes.cubes(nb, 2)]
    satisfied = [leaf for leaf in found if leaf.status is True]
    assert satisfied
    assert all(refutes_r(nb, *leaf.pair, r) for leaf in satisfied)


def test_a_cube_past_its_deadline_is_open_and_the_refutation_undecided(refuted):
    nb, leaves, _ = refuted
    solved = next(leaf for leaf in leaves if leaf.lemmas > 1)  # needs CaDiCaL, not propagation
    assert cubes.solve_leaf(nb, 3, 1, solved.cube, deadline=0.0).status is None
    conquered = cubes.refute(nb, 3, 1, cubes.Split(2, lookahead=False), time_limit=-1.0)
    assert conquered.status is None and conquered.text is None


def _rows(text: bytes) -> tuple[list[tuple[int, list[int], list[int]]], list[list[int]]]:
    """The additions (id, literals, hints) and the deletions (ids) of an LRAT text."""
    added, deleted = [], []
    for row in lines(text):
        tokens = row.split()
        if tokens[1] == "d":
            deleted.append([int(t) for t in tokens[2:-1]])
            continue
        values = [int(t) for t in tokens]
        end = values.index(0, 1)
        added.append((values[0], values[1:end], values[end + 1 : -1]))
    return added, deleted


def test_a_cube_proof_keeps_only_what_its_empty_clause_needs(refuted):
    nb, leaves, clauses = refuted
    leaf = max(leaves, key=lambda one: one.lemmas)  # a CaDiCaL proof, not one propagation step
    assert leaf.lemmas > 2
    added, _ = _rows(leaf.text)
    used = {hint for _, _, hints in added for hint in hints}
    assert {cid for cid, _, _ in added[:-1]} <= used  # each lemma but "not cube" is a hint
    assert leaf.lemmas == len(added)


def _written_once(nb: list[frozenset[int]], r: int, leaf: cubes.Leaf) -> int:
    """Assert the form of a refuted cube's proof (module notes of cubes.py): every lemma but
    its last, ``not cube``, is deleted in it (the checker holds one cube's lemmas at a time),
    and no reason clause of a propagated literal is a hint twice (each such literal is derived
    once as ``l or not cube``, not again in every lemma that needs it). Returns how many
    reason clauses it hints."""
    clauses = encode(nb, r, 1).clauses
    added, deleted = _rows(leaf.text)
    final = added[-1][0]
    assert added[-1][1] == [-lit for lit in leaf.cube]  # "not cube"
    gone = [cid for ids in deleted for cid in ids]
    assert len(gone) == len(set(gone)) and set(gone) == {cid for cid, _, _ in added} - {final}
    reasons = set(cubes._Propagation(clauses, leaf.cube).reason.values())
    hinted = Counter(h for _, _, hints in added for h in hints if h in reasons)
    assert all(count == 1 for count in hinted.values()), hinted.most_common(3)
    return len(hinted)


def test_a_cube_writes_each_propagated_literal_once_and_deletes_its_lemmas(refuted):
    nb, leaves, clauses = refuted
    reasons = [_written_once(nb, 3, leaf) for leaf in leaves if leaf.lemmas > 1]
    assert max(reasons) > 1  # the cubes' proofs do rest on propagated literals
    check_refutation(clauses, lines(cubes.combine(nb, 2, leaves, len(clauses))))


@SMALL
@given(topologies(max_n=10), st.integers(1, 2))
def test_combined_proofs_of_graphs_and_digraphs_check_and_use_every_step(t, k):
    nb = View.of(t).canonical()
    best = r_star(nb) if t.n >= 2 else 0
    if best < 1:
        return
    conquered = cubes.refute(nb, best, 1, cubes.Split(min(k, t.n)))
    assert conquered.status is False  # r* from the exhaustive engine: the CNF is refuted
    cnf = encode(nb, best, 1)
    assert check_refutation(cnf.clauses, lines(conquered.text)) >= len(conquered.leaves)
    for leaf in conquered.leaves:
        _written_once(nb, best, leaf)
    added, _ = _rows(conquered.text)
    used = {hint for _, _, hints in added for hint in hints}
    assert {cid for cid, _, _ in added[:-1]} <= used  # trimmed after combining too
    assert cubes.refute(nb, best + 1, 1, cubes.Split(min(k, t.n))).status is True


def test_the_lookahead_tree_grows_until_its_open_cubes_or_none_is_left():
    nb = View.of(gen.erdos_renyi(14, 0.5, seed=1)).canonical()
    for leaves in (1, 3, 9):
        tree = cubes.lookahead(nb, 3, 1, leaves)
        problem = cubes._problem(tuple(nb), 3, 1)
        trails = [cubes._trail(problem, cube) for cube in tree.cubes(len(nb))]
        opened = sum(t is not None for t in trails)  # r = r*: an open cube can be split
        assert opened >= leaves or opened == 0
        assert len(trails) == 1 + 2 * _inner(tree)  # three children per split
    assert cubes.lookahead(nb, 3, 1, 1) == cubes.Tree()  # one open cube: no split


def _inner(tree: cubes.Tree) -> int:
    return 0 if tree.node is None else 1 + sum(_inner(child) for child in tree.children)


def test_combine_takes_a_tree_and_the_fixed_tree_is_the_old_split():
    nb = View.of(gen.erdos_renyi(10, 0.6, seed=2)).canonical()
    assert cubes.fixed_tree(nb, 2).cubes(len(nb)) == cubes.cubes(nb, 2)
    r = r_star(nb)
    tree = cubes.lookahead(nb, r, 1, 5)
    leaves = [cubes.solve_leaf(nb, r, 1, cube, index=i) for i, cube in enumerate(tree.cubes(10))]
    clauses = encode(nb, r, 1).clauses
    text = cubes.combine(nb, tree, leaves, len(clauses))
    assert check_refutation(clauses, lines(text)) >= len(leaves)


# ----------------------------------------------------------------------------- the CLI


def run(*args) -> object:
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def er14(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("cubes") / "er14.txt"
    io.write(gen.erdos_renyi(14, 0.5, seed=1), out)
    return out


def test_certify_with_cubes_writes_a_certificate_the_verifier_accepts(er14, tmp_path):
    cert = tmp_path / "er14.cert.json"
    result = run(
        "certify",
        er14,
        "--r",
        3,
        "--engines",
        "exhaustive",
        "--proof",
        "lrat",
        "--cubes",
        2,
        "--workers",
        1,
        "-o",
        cert,
    )
    assert result.exit_code == 0, result.stderr
    assert "lrat (" in result.stdout and "cubes" in result.stderr
    verified = run("verify", cert, er14)
    assert verified.exit_code == 0, verified.stdout
    assert "LRAT proof checked" in verified.stdout
    # the same proof file, one hint changed: the existing verifier rejects the certificate
    proof = json.loads(cert.read_text())["claims"][0]["checks"][0]["proof"]
    path = tmp_path / proof["file"]
    rows = gzip.decompress(path.read_bytes()).decode().splitlines()
    rows[-1] = rows[-1].replace(" 0 ", " 0 999999999 ", 1)
    data = gzip.compress(("\n".join(rows) + "\n").encode(), mtime=0)
    path.write_bytes(data)
    document = json.loads(cert.read_text())
    import hashlib

    proof.update(sha256=hashlib.sha256(data).hexdigest(), bytes=len(data))
    document["claims"][0]["checks"][0]["proof"] = proof
    cert.write_text(json.dumps(document))
    rejected = run("verify", cert, er14)
    assert rejected.exit_code == 1
    assert "does not check" in rejected.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--cubes", "0"], "0 is not in the range x>=1"),
        (["--cubes", "15"], "--cubes 15: the graph has only n = 14 nodes"),
        (["--cubes", "1", "--proof", "theorem"], "--cubes makes LRAT proofs"),
        (["--workers", "1"], "go with --batch or --cubes"),
        (["--executor", "ray"], "go with --batch or --cubes"),
        (["--cubes", "1", "--executor", "ray", "--workers", "2"], "--workers is for the local"),
        (["--cubes", "1", "--address", "127.0.0.1:1"], "--address is for the ray executor"),
    ],
)
def test_bad_cube_options_are_one_line_with_exit_2(er14, tmp_path, args, message):
    result = run("certify", er14, "--r", 3, *args, "-o", tmp_path / "c.json")
    assert result.exit_code == 2, result.output
    assert message in result.stderr and "Traceback" not in result.stderr


def test_cubes_do_not_go_with_batch(er14, tmp_path):
    result = run("certify", "--batch", er14.parent, "--cubes", 1, "-o", tmp_path / "certs")
    assert result.exit_code == 2
    assert "--cubes splits the proof for one FILE" in result.stderr


@pytest.mark.parametrize("lookahead", [False, True])
def test_a_graph_too_small_for_a_split_is_refused_by_the_library(lookahead):
    t = Topology.from_edges([(0, 1)])
    with pytest.raises(ParameterError):
        cubes.refute(View.of(t).canonical(), 1, 1, cubes.Split(3, lookahead=lookahead))


def test_cubes_on_ray_give_the_proof_the_local_pool_gives(refuted, ray_instance):
    from robustgraph.executors import LocalExecutor, RayExecutor

    nb, _, clauses = refuted
    with RayExecutor() as ray_pool, LocalExecutor(1) as local_pool:
        on_ray = cubes.refute(nb, 3, 1, cubes.Split(1, ray_pool, progress=False))
        local = cubes.refute(nb, 3, 1, cubes.Split(1, local_pool, progress=False))
    assert on_ray.text == local.text
    assert check_refutation(clauses, lines(on_ray.text)) >= 1
