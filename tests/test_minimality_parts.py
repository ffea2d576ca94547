"""Issue 43, item 3: ``lrat-parts`` minimality proofs, the CNF refuted in the 2^k parts of a
cube split, each part its own file within the input budgets. The checker re-derives the cover
(every cube of the full binary tree on the split, in order) and checks each part against the
CNF it regenerates; a missing, swapped or foreign part, a split variable repeated or changed,
steps that do not add up or a dropped pair clause are rejected."""

from __future__ import annotations

import copy
import gzip
import hashlib
import json

import pytest
from click.testing import CliRunner

from robustgraph.certificate.proofs import minimality as mp
from robustgraph.cli import main
from robustgraph.design.minimum import overflow, prove_minimum
from robustgraph.design.minimum_cubes import cubes
from robustgraph.errors import ParameterError
from robustgraph.limits import OverBudget
from tests.exact_minima import minimum_edges
from tests.test_minimality import _pairs, _refile, _rejected

N, R = 8, 3


@pytest.fixture(scope="module")
def parts_proof():
    result = prove_minimum(N, R, minimum_edges(N)[R], time_limit=120, parts=2)
    assert result.minimum and result.document["proof"]["kind"] == "lrat-parts"
    return result.document, result.files


def _copy(parts_proof) -> tuple[dict, dict]:
    return copy.deepcopy(parts_proof[0]), dict(parts_proof[1])


def test_the_genuine_parts_check_and_prove_the_minimum(parts_proof) -> None:
    doc, files = parts_proof
    found = mp.check_minimum(doc, files.__getitem__)
    assert (found.n, found.r, found.lower_bound, found.kind) == (N, R, minimum_edges(N)[R],
                                                                  "lrat-parts")
    assert "all 4 cubes on 2 edge variables" in found.text


def test_part_cubes_are_the_leaves_of_the_full_tree() -> None:
    split = [5, 9, 2]
    assert [mp.part_cube(split, i) for i in range(8)] == cubes(split)


def test_a_missing_part_is_rejected(parts_proof) -> None:
    doc, files = _copy(parts_proof)
    gone = doc["proof"]["parts"].pop(1)
    doc["proof"]["steps"] -= gone["steps"]
    _rejected(doc, files, "has 4 parts, not 3: the cubes must cover")


def test_a_part_in_another_cubes_place_is_rejected(parts_proof) -> None:
    doc, files = _copy(parts_proof)
    parts = doc["proof"]["parts"]
    parts[0], parts[1] = parts[1], parts[0]
    _rejected(doc, files, "does not check|steps")


@pytest.mark.parametrize("forge", ["repeat", "change", "drop"])
def test_a_forged_split_is_rejected(parts_proof, forge: str) -> None:
    doc, files = _copy(parts_proof)
    split = doc["proof"]["split"]
    if forge == "repeat":
        split[1] = split[0]
    elif forge == "change":
        split[1] = next(v for v in range(1, N * (N - 1) // 2 + 1) if v not in split)
    else:  # one variable fewer: the first two parts cover its cubes
        del split[1]
        parts = doc["proof"]["parts"]
        del parts[2:]
        doc["proof"]["steps"] = sum(part["steps"] for part in parts)
    _rejected(doc, files, "distinct edge variables|does not check|steps")


def test_steps_that_do_not_add_up_are_rejected(parts_proof) -> None:
    doc, files = _copy(parts_proof)
    doc["proof"]["steps"] += 1
    _rejected(doc, files, "do not add up")


def test_a_dropped_pair_clause_is_rejected(parts_proof) -> None:
    doc, files = _copy(parts_proof)
    pairs = _pairs(doc, files)
    del pairs[len(pairs) // 2]
    _refile(doc, files, "pairs", mp.write_pairs(pairs))
    doc["proof"] |= {"pairs": len(pairs),
                     "clauses": len(mp.encode(N, R, doc["lower_bound"], pairs).clauses)}
    _rejected(doc, files, "does not check")


def test_a_dropped_line_of_a_part_is_rejected(parts_proof) -> None:
    doc, files = _copy(parts_proof)
    part = max(doc["proof"]["parts"], key=lambda p: p["steps"])
    lines = gzip.decompress(files[part["file"]]).splitlines()
    del lines[len(lines) // 2]
    data = gzip.compress(b"\n".join(lines) + b"\n")
    files["forged.lrat.gz"] = data
    part |= {"file": "forged.lrat.gz", "bytes": len(data)}
    _rejected(doc, files, "sha256")
    part["sha256"] = hashlib.sha256(data).hexdigest()
    _rejected(doc, files, "does not check|steps")


def test_parts_fit_a_byte_budget_one_file_does_not(parts_proof, monkeypatch) -> None:
    # the point of the split: each part is read and bounded alone
    doc, files = parts_proof
    single = prove_minimum(N, R, minimum_edges(N)[R], time_limit=120)
    largest = max(max(part["bytes"] for part in doc["proof"]["parts"]),
                  doc["proof"]["pairs_bytes"])
    assert largest < single.document["proof"]["lrat_bytes"]
    monkeypatch.setenv("ROBUSTGRAPH_MAX_BYTES", str(largest))
    assert mp.check_minimum(doc, files.__getitem__).kind == "lrat-parts"
    with pytest.raises(OverBudget, match="bytes budget"):
        mp.check_minimum(single.document, single.files.__getitem__)


def test_parts_and_cubes_together_are_refused() -> None:
    with pytest.raises(ParameterError, match="choose one"):
        prove_minimum(N, R, minimum_edges(N)[R], parts=1, cubes=1)


def test_cli_verify_checks_a_parts_certificate(tmp_path) -> None:
    out = tmp_path / "g.json"
    design = ["design", "--n", "7", "--r", "2", "--time-limit", "1", "-o", str(out), "--json"]
    edges = json.loads(CliRunner().invoke(main, design).stdout)["edges"]
    result = prove_minimum(7, 2, edges, time_limit=120, parts=1)
    assert result.minimum and result.document["proof"]["kind"] == "lrat-parts"
    result.dump(tmp_path / "p.min.json")
    verified = CliRunner().invoke(main, ["verify", str(tmp_path / "p.min.json"), str(out)])
    assert verified.exit_code == 0, verified.output
    assert "all 2 cubes on 1 edge variable checked" in verified.stdout
    assert f"the graph's {edges} edges are the fewest" in verified.stdout


def test_a_one_file_proof_over_the_budget_is_split_until_it_fits(monkeypatch) -> None:
    single = prove_minimum(N, R, minimum_edges(N)[R], time_limit=120)
    size = single.document["proof"]["lrat_bytes"]
    monkeypatch.setenv("ROBUSTGRAPH_MAX_BYTES", str(size * 2 // 3))
    result = prove_minimum(N, R, minimum_edges(N)[R], time_limit=120)
    proof = result.document["proof"]
    assert result.minimum and proof["kind"] == "lrat-parts", result.note
    assert max(part["bytes"] for part in proof["parts"]) <= size * 2 // 3
    assert overflow(single.files[single.document["proof"]["lrat_file"]]) > 1
