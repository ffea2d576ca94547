"""Core-tree certificates (kind ``coretree``: ``proofs/tree_make.py`` makes them,
``proofs/tree_check.py`` replays them): made exactly when the exhaustive engine says r-robust,
accepted then, and forged or hostile files rejected with one reason."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from cli_checks import assert_error
from click.testing import CliRunner
from conftest import topologies
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from robustgraph import generators as gen
from robustgraph import io
from robustgraph.certificate.proofs import prover, tree_check, tree_make
from robustgraph.certificate.proofs.checker import ProofError, View, check_proof
from robustgraph.certificate.proofs.tree_check import MAGIC, TreeRejected, check
from robustgraph.cli import main
from robustgraph.limits import PROOF_STEPS, OverBudget, budgets_set
from solvers.cores import OutOfTime
from solvers.exhaustive import exact_r

SMALL = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def r_star(nb: list[frozenset[int]]) -> int:
    return exact_r([sum(1 << j for j in x) for x in nb])[0]


@SMALL
@given(topologies(max_n=10))
def test_made_exactly_when_the_exhaustive_engine_says_r_robust_and_accepted(t):
    if t.n < 2:
        return
    nb = View.of(t).canonical()
    best = r_star(nb)
    for r in range(1, -(-t.n // 2) + 1):
        made = tree_make.make(nb, r)
        assert (made is not None) == (r <= best)
        if made is not None:
            assert check(nb, r, made.data, made.nodes) == made.nodes
            if r + 1 > best:  # the same trees never prove one more
                with pytest.raises(TreeRejected):
                    check(nb, r + 1, made.data, made.nodes)


def _forge(nb: list[frozenset[int]], r: int, seed: int) -> tuple[bytes, int]:
    """A tree in the identity order walked by the checker's own rules with random splits (0
    where they close a node): raises TreeRejected at a leaf whose cores are disjoint."""
    rng, said = random.Random(seed), []

    def number(state, seen, names):
        if state is None or not state[4] & state[5]:
            said.append(0)
        else:
            both = state[4] & state[5]
            said.append(1 + 2 * rng.choice([v for v in range(len(nb)) if both >> v & 1])
                        + rng.randrange(2))
        return said[-1]

    nodes = tree_check.walk([sum(1 << j for j in x) for x in nb], r, number)
    return gzip.compress(MAGIC + bytes(range(len(nb))) + bytes(said), mtime=0), nodes


@SMALL
@given(topologies(max_n=9), st.integers(0, 2**16))
def test_any_splits_prove_exactly_the_r_the_exhaustive_engine_gives(t, seed):
    """The rules are sound and complete for any split choice: a tree walked with random splits
    closes every leaf at r <= r* (exhaustive engine) and its file is accepted; above r* some
    leaf is a real pair, and the walk rejects it."""
    if t.n < 2:
        return
    nb = View.of(t).canonical()
    best = r_star(nb)
    for r in range(1, -(-t.n // 2) + 2):
        if r <= best:
            data, nodes = _forge(nb, r, seed)
            assert check(nb, r, data, nodes) == nodes
        else:
            with pytest.raises(TreeRejected, match="disjoint members of F_k"):
                _forge(nb, r, seed)


def _decode(data: bytes, n: int) -> tuple[list[int], list[int]]:
    body = gzip.decompress(data)[len(MAGIC) :]
    assert max(body) < 0x80  # one byte a number at these sizes
    return list(body[:n]), list(body[n:])


def _encode(order: list[int], said: list[int]) -> bytes:
    return gzip.compress(MAGIC + bytes(order) + bytes(said), mtime=0)


def _end(said: list[int], at: int) -> int:
    """Index just past the subtree that starts at ``at`` (pre-order, 0 = a leaf)."""
    open_ = 1
    while open_:
        open_ += 1 if said[at] else -1
        at += 1
    return at


@pytest.fixture(scope="module", params=[(16, 1, False), (20, 5, True)], ids=["graph", "digraph"])
def proved(request):
    n, seed, directed = request.param  # trees with 5 and 23 splits
    nb = View.of(gen.erdos_renyi(n, 0.5, seed=seed, directed=directed)).canonical()
    r = r_star(nb)
    made = tree_make.make(nb, r)
    assert made is not None and r >= 2
    order, said = _decode(made.data, len(nb))
    assert check(nb, r, _encode(order, said), len(said)) == len(said)
    splits = [i for i, v in enumerate(said) if v]
    assert len(splits) >= 3
    return nb, r, order, said, splits


def _rejected(nb, r, order, said, nodes=None):
    with pytest.raises(TreeRejected):
        check(nb, r, _encode(order, said), len(said) if nodes is None else nodes)


def test_a_dropped_branch_anywhere_is_rejected(proved):
    nb, r, order, said, splits = proved
    for at in splits:
        first = _end(said, at + 1)  # the second case's subtree dropped: a case skipped
        _rejected(nb, r, order, said[:first] + said[_end(said, at) :])
        _rejected(nb, r, order, said[:at] + [0] + said[_end(said, at) :])  # said to close


def test_swapped_subtrees_are_rejected(proved):
    nb, r, order, said, splits = proved
    swapped = 0
    for at in splits:
        middle, last = _end(said, at + 1), _end(said, at)
        one, two = said[at + 1 : middle], said[middle:last]
        if one != two:
            swapped += 1
            _rejected(nb, r, order, said[: at + 1] + two + one + said[last:])
    assert swapped


def test_a_split_on_a_node_not_in_both_cores_is_rejected(proved):
    nb, r, order, said, splits = proved
    for at in splits:  # position 0 is before every root's b, in X or in neither set: never free
        for wrong in (1, 2):
            with pytest.raises(TreeRejected, match="not in both cores"):
                check(nb, r, _encode(order, said[:at] + [wrong] + said[at + 1 :]), len(said))


def test_another_order_is_rejected(proved):
    nb, r, order, said, _ = proved
    _rejected(nb, r, order[1:] + order[:1], said)
    _rejected(nb, r, [(v + 1) % len(nb) for v in order], said)  # every index off by one
    with pytest.raises(TreeRejected, match="not a permutation"):
        check(nb, r, _encode([order[0]] + order[:-1], said), len(said))


def test_wrong_r_is_rejected(proved):
    nb, r, order, said, _ = proved
    _rejected(nb, r + 1, order, said)
    _rejected(nb, r - 1, order, said)


def test_truncated_or_extended_files_are_rejected(proved):
    nb, r, order, said, _ = proved
    data = _encode(order, said)
    for cut in (1, 8, len(data) // 2):
        with pytest.raises(TreeRejected):
            check(nb, r, data[:-cut], len(said))
    _rejected(nb, r, order, said[:-1], nodes=len(said))  # the last tree cut short
    _rejected(nb, r, order, said + [0], nodes=len(said) + 1)  # a tree no root has
    _rejected(nb, r, order, said, nodes=len(said) + 1)  # fewer nodes than recorded
    _rejected(nb, r, order, said, nodes=len(said) - 1)
    with pytest.raises(TreeRejected):
        check(nb, r, gzip.compress(b"robustgraph-coretree-0\n" + bytes(order + said)), len(said))


def test_hostile_numbers_lengths_and_bombs_are_rejected_with_bounded_work(proved):
    nb, r, order, said, _ = proved
    huge = gzip.compress(MAGIC + bytes(order) + b"\xff" * 10_000 + b"\x01")
    with pytest.raises(TreeRejected, match="decompresses to more than"):
        check(nb, r, huge, len(said))  # more bytes than the recorded nodes can take
    padded = gzip.compress(MAGIC + bytes(order) + b"\x80\x00" + bytes(said[1:]))
    with pytest.raises(TreeRejected, match="longer than any number"):
        check(nb, r, padded, len(said) + 1)
    with pytest.raises(TreeRejected, match="over its largest legal value"):
        check(nb, r, _encode(order, [2 * len(nb) + 1] + said[1:]), len(said))
    bomb = gzip.compress(MAGIC + bytes(order) + bytes(len(said)) + bytes(50 * 2**20))
    with pytest.raises(TreeRejected, match="decompresses to more than"):
        check(nb, r, bomb, len(said))  # inflated no further than the recorded nodes allow
    deep = [1] * (10 * len(nb)) + said  # splits on node 0 for ever: never on a node both hold
    with pytest.raises(TreeRejected):
        check(nb, r, _encode(order, deep), len(deep))


def test_a_leaf_whose_cores_are_disjoint_is_a_real_pair_and_rejected():
    two = [frozenset(), frozenset()]  # no edges: {0} and {1} are disjoint members of F_0
    with pytest.raises(TreeRejected, match="disjoint members of F_k"):
        check(two, 1, _encode([0, 1], [0]), 1)
    assert tree_make.make(two, 1) is None


def _proof(view: View, r: int):
    made = prover.prove(view, r, 1, "coretree")
    assert made is not None
    return made


def test_check_proof_checks_record_hash_size_and_budget():
    view = View.of(gen.erdos_renyi(16, 0.5, seed=3))
    r = r_star(view.canonical())
    proof, files = _proof(view, r)
    assert proof["kind"] == "coretree" and proof["nodes"] >= 1
    assert check_proof(view, r, 1, proof, files.__getitem__).steps == proof["nodes"]
    with pytest.raises(ProofError, match="r-robustness"):
        check_proof(view, r, 2, proof, files.__getitem__)
    for key, value in (("sha256", "0" * 64), ("bytes", proof["bytes"] + 1),
                       ("format", "robustgraph-coretree-9"), ("nodes", proof["nodes"] + 1)):
        with pytest.raises(ProofError):
            check_proof(view, r, 1, {**proof, key: value}, files.__getitem__)
    with budgets_set({PROOF_STEPS: proof["nodes"] - 1}), pytest.raises(OverBudget):
        check_proof(view, r, 1, proof, files.__getitem__)
    assert prover.prove(view, r + 1, 1, "coretree") is None  # not (r + 1)-robust
    assert prover.prove(view, r, 2, "coretree") is None  # (r, s) is not its claim


def test_auto_takes_the_tree_for_r_robustness_and_lrat_when_the_tree_runs_out(monkeypatch):
    view = View.of(gen.erdos_renyi(24, 0.5, seed=2, directed=True))  # no theorem, n > 20
    r = r_star(view.canonical())
    proof, _ = prover.prove(view, r, 1, "auto", 30.0)
    assert proof["kind"] == "coretree"
    pytest.importorskip("pysat")
    limits = []

    def out_of_time(nb, r, stop=None):
        limits.append(stop)
        raise OutOfTime

    monkeypatch.setattr(tree_make, "make", out_of_time)
    proof, _ = prover.prove(view, r, 1, "auto", 30.0)
    assert proof["kind"] == "lrat" and limits and limits[0] is not None
    assert prover.prove(view, r, 1, "coretree", 30.0) is None


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_certify_and_verify_a_core_tree_and_reject_a_forged_one(tmp_path):
    graph, cert = tmp_path / "er.json", tmp_path / "er.cert.json"
    io.write(gen.erdos_renyi(24, 0.5, seed=2, directed=True), graph)
    r = r_star(View.of(io.read(graph)).canonical())
    assert run("certify", graph, "--r", r, "--proof", "coretree", "-o", cert).exit_code == 0
    files = list(tmp_path.glob("coretree-*.tree.gz"))
    assert len(files) == 1
    done = run("verify", cert, graph)
    assert done.exit_code == 0 and "core-tree certificate checked" in done.stdout
    order, said = _decode(files[0].read_bytes(), 24)
    at = next(i for i, v in enumerate(said) if v)
    forged = _encode(order, said[:at] + [0] + said[_end(said, at) :])
    files[0].write_bytes(forged)
    doc = json.loads(cert.read_text())
    for record in doc["claims"]:
        for check_ in record["checks"]:
            if (check_.get("proof") or {}).get("kind") == "coretree":
                check_["proof"].update(sha256=hashlib.sha256(forged).hexdigest(),
                                       bytes=len(forged), nodes=len(said) - _end(said, at) + at + 1)
    cert.write_text(json.dumps(doc))
    rejected = run("verify", cert, graph)
    assert rejected.exit_code == 1 and "does not check" in rejected.stdout
    assert "Traceback" not in rejected.output
    assert_error(run("certify", graph, "--r", r, "--proof", "treecore", "-o", cert))


def test_the_checker_imports_neither_the_search_nor_the_maker():
    code = (
        "import sys, robustgraph.certificate.proofs.tree_check\n"
        "print(sorted(m for m in sys.modules if m.endswith(('.cores', '.coretree', '.tree_make'))))"
    )
    root = str(Path(__file__).resolve().parents[1])  # this tree's code, not an installed copy
    env = {**os.environ, "PYTHONPATH": root}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert done.stdout.strip() == "[]"


def test_a_tree_whose_file_does_not_read_back_is_never_shipped(monkeypatch):
    """The maker reads its file back with the checker's reader (TREE_CHECKED_AS_MADE): a file
    that does not hold the numbers the walk took is refused, and ``prove`` ships no tree."""
    view = View.of(gen.erdos_renyi(16, 0.5, seed=3))
    nb, real, calls = view.canonical(), tree_make._numbers, []

    def one_more_leaf(values):  # the second call writes the tree numbers: add a stray 0
        calls.append(1)
        return real(list(values) + [0] if len(calls) == 2 else values)

    monkeypatch.setattr(tree_make, "_numbers", one_more_leaf)
    with pytest.raises(TreeRejected, match="does not read back"):
        tree_make.make(nb, r_star(nb))
    calls.clear()
    assert prover.prove(view, r_star(nb), 1, "coretree") is None
