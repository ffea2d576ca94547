"""Issue 43 (tag 43n): minimality proofs trimmed before they are written, and the final
refutation split into cubes whose proofs combine into one LRAT refutation of the same CNF.

Nothing about a split is trusted: the combined proof is checked by the same checker as any
other minimality proof, and a missing or swapped cube makes it fail."""

from __future__ import annotations

import gzip

import pytest

from robustgraph.certificate.proofs import minimality as mp
from robustgraph.certificate.proofs.trim import trim
from robustgraph.design import minimum_cubes as mc
from robustgraph.design.minimum import _lrat_proof, prove_minimum
from tests.exact_minima import minimum_edges


@pytest.fixture(scope="module")
def certificate():
    fewest = minimum_edges(7)[3]
    result = prove_minimum(7, 3, fewest, time_limit=120)
    assert result.minimum and result.document["proof"]["kind"] == "lrat"
    return result


def _text(result) -> bytes:
    return gzip.decompress(result.files[result.document["proof"]["lrat_file"]])


def test_the_written_proof_is_trimmed_to_what_its_empty_clause_uses(certificate) -> None:
    text = _text(certificate)
    assert b" d " not in text  # CaDiCaL's deletions are dropped
    assert trim(text) == text  # every lemma kept is used
    assert mp.check_minimum(certificate.document, certificate.files.__getitem__).steps > 0


def _pairs(result) -> list[mp.PairClause]:
    return mp.parse_pairs(result.files[result.document["proof"]["pairs_file"]], "pairs")


def _document(result, text: bytes, steps: int) -> tuple[dict, dict]:
    n, r, bound = result.n, result.r, result.lower_bound
    proof, files = _lrat_proof(n, r, bound, _pairs(result), gzip.compress(text), steps)
    doc = {**result.document, "proof": proof}
    return doc, files


@pytest.mark.parametrize("k", [1, 3])
def test_cube_proofs_combine_into_one_refutation_the_checker_accepts(certificate, k) -> None:
    pairs = _pairs(certificate)
    found = mc.refute(7, 3, certificate.lower_bound, pairs, k, deadline=_far(), workers=1)
    assert found is not None
    text, proofs = found
    assert [p.cube for p in proofs] == mc.cubes(mc.split_variables(pairs, k))
    assert len(proofs) == 2**k
    steps = sum(p.lemmas for p in proofs) + 2**k - 1  # one step per inner node of the tree
    doc, files = _document(certificate, text, steps)
    checked = mp.check_minimum(doc, files.__getitem__)
    assert checked.lower_bound == certificate.lower_bound == minimum_edges(7)[3]


def test_a_combined_proof_missing_a_cube_is_rejected(certificate) -> None:
    pairs = _pairs(certificate)
    text, proofs = mc.refute(7, 3, certificate.lower_bound, pairs, 2, deadline=_far(),
                             workers=1)
    dropped = proofs[1].text
    assert dropped and dropped in text
    forged = text.replace(dropped, b"")
    steps = sum(p.lemmas for p in proofs) - proofs[1].lemmas + 3
    doc, files = _document(certificate, forged, steps)
    with pytest.raises(mp.MinimalityError, match="does not check"):
        mp.check_minimum(doc, files.__getitem__)


def test_a_cube_proof_of_another_cube_is_rejected(certificate) -> None:
    pairs = _pairs(certificate)
    variables = mc.split_variables(pairs, 1)
    cnf = mp.encode(7, 3, certificate.lower_bound, pairs)
    right = [mc.cube_proof(7, 3, certificate.lower_bound, mp.write_pairs(pairs), cube, i, None)
             for i, cube in enumerate(mc.cubes(variables))]
    # the true branch's proof numbered as the false branch's: it refutes the wrong cube
    wrong = mc.cube_proof(7, 3, certificate.lower_bound, mp.write_pairs(pairs), right[0].cube,
                          1, None)
    forged = mc.combine(variables, [right[0], mc.CubeProof(right[1].cube, wrong.text,
                                                           wrong.lemmas, 0.0)],
                        len(cnf.clauses))
    doc, files = _document(certificate, forged, right[0].lemmas + wrong.lemmas + 1)
    with pytest.raises(mp.MinimalityError, match="does not check"):
        mp.check_minimum(doc, files.__getitem__)


def test_combine_refuses_a_split_that_does_not_cover_every_cube() -> None:
    proof = mc.CubeProof((1,), b"5 -1 0 3 4 0\n", 1, 0.0)
    with pytest.raises(ValueError, match="every cube"):
        mc.combine([1], [proof], 4)


def _far() -> float:
    import time

    return time.monotonic() + 600


def test_docstring_examples_run() -> None:
    import doctest

    assert doctest.testmod(mc).failed == 0


def test_a_proof_over_the_step_budget_is_refused_and_checks_when_it_is_raised(
        certificate, monkeypatch) -> None:
    """How n = 11, r = 4 is checked (docs/design.md): over a budget the proof is refused
    unread; with the budget raised for the process it is checked in full."""
    from robustgraph.limits import PROOF_STEPS, OverBudget

    steps = certificate.document["proof"]["steps"]
    monkeypatch.setenv(PROOF_STEPS.env, str(steps - 1))
    with pytest.raises(OverBudget, match=PROOF_STEPS.env):
        mp.check_minimum(certificate.document, certificate.files.__getitem__)
    monkeypatch.setenv(PROOF_STEPS.env, str(steps))
    checked = mp.check_minimum(certificate.document, certificate.files.__getitem__)
    assert checked.steps == steps + certificate.document["proof"]["pairs"]


def test_a_proof_file_over_the_byte_budget_is_refused_before_the_pairs_are_read(
        certificate, monkeypatch) -> None:
    from robustgraph.limits import FILE_BYTES, OverBudget

    proof = certificate.document["proof"]
    monkeypatch.setenv(FILE_BYTES.env, str(proof["lrat_bytes"] - 1))
    read = []
    with pytest.raises(OverBudget, match=proof["lrat_file"]):
        mp.check_minimum(certificate.document, lambda name: read.append(name) or b"")
    assert read == []
