"""Proof objects and their checkers: each checker against the exhaustive engine on random graphs
and digraphs, corrupted proofs of every kind rejected, and the forgeries of issue 20 rejected by
plain verify."""

from __future__ import annotations

import gzip
import json

import pytest
from conftest import naive_max_r, naive_max_s, topologies
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from robustgraph import generators as gen
from robustgraph.certificate.certifier import certify
from robustgraph.certificate.claims import Claim
from robustgraph.certificate.document import Certificate
from robustgraph.certificate.proofs import construction, exhaustive, theorem
from robustgraph.certificate.proofs.checker import ProofError, View, check_proof
from robustgraph.certificate.proofs.cnf import encode
from robustgraph.certificate.proofs.lrat import LratError, check_refutation
from robustgraph.certificate.proofs.prover import prove
from robustgraph.certificate.proofs.sat import refute
from robustgraph.certificate.proofs.trim import trim
from robustgraph.design.api import design
from robustgraph.topology import Topology
from solvers.exhaustive import exact_s

SLOW = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def cliques_joined() -> Topology:
    """Two 5-cliques joined by one edge: r* = 1 (the issue's forgery target)."""
    edges = [(u, v) for u in range(5) for v in range(u + 1, 5)]
    edges += [(u + 5, v + 5) for u, v in edges] + [(0, 5)]
    return Topology.from_edges(edges)


def robust(t: Topology, r: int, s: int) -> bool:
    """(r, s)-robust by the definition (small n) or the exhaustive engine (larger n)."""
    if t.n <= 7:
        return naive_max_s(t, r) >= s if s > 1 else naive_max_r(t) >= r
    return exact_s([sum(1 << j for j in nb) for nb in t.in_neighbors], r)[0] >= s


# ----------------------------------------------------------------------------- CNF + LRAT
@SLOW
@given(topologies(max_n=7), st.integers(1, 4), st.integers(1, 7))
def test_cnf_is_unsatisfiable_exactly_when_robust_and_its_lrat_proof_checks(t, r, s):
    s = min(s, t.n)
    if t.n < 2:
        return
    cnf = encode(View.of(t).canonical(), r, s)
    status, proof = refute(cnf)
    assert (status is False) == robust(t, r, s)
    if status is False:
        assert check_refutation(cnf.clauses, proof.decode().splitlines()) >= 1


def test_a_time_limited_refutation_stops_at_its_limit_and_a_sliced_one_still_checks(monkeypatch):
    """python-sat cannot interrupt CaDiCaL (its timer thread raised NotImplementedError and the
    solve ran on); the limit is kept by conflict-budget slices, which resume one search.

    The limit is read on a fake clock that moves 50 ms at every reading, so the slices run out
    of time after a few hundred conflicts on any machine; a limit that is not kept runs
    PHP(11, 10) to its end (past pytest-timeout) or proves it (False, not None)."""
    from types import SimpleNamespace

    from robustgraph.certificate.proofs import sat
    from robustgraph.certificate.proofs.cnf import Cnf

    readings = []

    def clock() -> float:
        readings.append(0.05 * len(readings))
        return readings[-1]

    pigeons = 11  # PHP(11, 10): unsatisfiable, and far beyond a tenth of a second for CDCL
    var = {(p, h): p * (pigeons - 1) + h + 1 for p in range(pigeons) for h in range(pigeons - 1)}
    clauses = [tuple(var[p, h] for h in range(pigeons - 1)) for p in range(pigeons)]
    clauses += [(-var[p, h], -var[q, h]) for h in range(pigeons - 1)
                for p in range(pigeons) for q in range(p + 1, pigeons)]
    with monkeypatch.context() as patch:
        patch.setattr(sat, "time", SimpleNamespace(monotonic=clock))
        assert refute(Cnf(len(var), tuple(clauses)), time_limit=0.2) == (None, None)
    assert 3 <= len(readings) <= 6  # the deadline, then two readings per slice until it passed
    t = gen.gamma_merg(9)
    cnf = encode(View.of(t).canonical(), 5, 1)
    status, proof = refute(cnf, time_limit=60)
    assert status is False and check_refutation(cnf.clauses, proof.decode().splitlines()) >= 1


def _proof_lines() -> tuple[tuple, list[str]]:
    t = gen.gamma_merg(8)
    cnf = encode(View.of(t).canonical(), 3, 1)
    status, proof = refute(cnf)
    assert status is False
    return cnf.clauses, trim(proof).decode().splitlines()  # every step but the last is used


def test_lrat_corruptions_are_rejected():
    clauses, lines = _proof_lines()
    assert check_refutation(clauses, lines) > 10
    additions = [i for i, line in enumerate(lines) if line.split()[1] != "d"]
    # a dropped step: a later hint then names no clause
    dropped = [line for i, line in enumerate(lines) if i != additions[0]]
    with pytest.raises(LratError):
        check_refutation(clauses, dropped)
    # a wrong hint: the first hint of a step replaced by another clause's id
    wrong = list(lines)
    tokens = wrong[additions[3]].split()
    zero = tokens.index("0", 1)
    tokens[zero + 1] = "1" if tokens[zero + 1] != "1" else "2"
    wrong[additions[3]] = " ".join(tokens)
    with pytest.raises(LratError):
        check_refutation(clauses, wrong)
    # reordered steps, a truncated proof, a flipped literal, a RAT hint
    swapped = list(lines)
    swapped[additions[0]], swapped[additions[1]] = swapped[additions[1]], swapped[additions[0]]
    with pytest.raises(LratError):
        check_refutation(clauses, swapped)
    with pytest.raises(LratError, match="empty clause"):
        check_refutation(clauses, lines[: additions[-1]])
    with pytest.raises(LratError):
        check_refutation(clauses, [f"{len(clauses) + 1} 0 -1 0"])
    # the proof of another CNF (one more clause renumbers everything) fails
    with pytest.raises(LratError):
        check_refutation(((1, 2),) + tuple(clauses), lines)


def test_lrat_of_a_satisfiable_formula_cannot_be_forged():
    clauses = [(1, 2), (-1, 2)]
    with pytest.raises(LratError):
        check_refutation(clauses, ["3 2 0 1 2 0", "4 0 3 0"])


# ----------------------------------------------------------------------------- checkers
@SLOW
@given(topologies(max_n=8), st.integers(1, 4), st.integers(1, 4))
def test_exhaustive_checker_agrees_with_the_engine(t, r, s):
    s = min(s, t.n)
    if t.n < 2:
        return
    assert (exhaustive.check(t.in_neighbors, r, s) is None) == robust(t, r, s)


@SLOW
@given(topologies(max_n=8), st.integers(1, 4), st.integers(1, 4))
def test_min_in_degree_theorem_is_sound(t, r, s):
    s = min(s, t.n)
    if t.n >= 2 and theorem.check(t.in_neighbors, r, s, "min-in-degree", None, None) is None:
        assert robust(t, r, s)


@SLOW
@given(topologies(max_n=8), st.integers(1, 3), st.integers(1, 3), st.randoms())
def test_construction_checker_is_sound(t, r, s, rng):
    s = min(s, t.n)
    if t.n < 2:
        return
    nodes = list(range(t.n))
    rng.shuffle(nodes)
    cut = rng.randint(1, t.n)
    base, order = nodes[:cut], nodes[cut:]
    if construction.check(t.in_neighbors, r, s, base, order) is not None:
        return
    sub = construction.induced(t.in_neighbors, base)
    if len(base) >= 2 and exhaustive.check(sub, r, s) is None:
        assert robust(t, r, s)


@SLOW
@given(topologies(max_n=8, directed=False), st.integers(1, 3))
def test_common_neighbour_theorem_is_sound(t, r):
    if t.n >= 2 and theorem.check(t.in_neighbors, r, 1, "common-neighbour", None, None) is None:
        assert robust(t, r, 1)


@pytest.mark.parametrize(("n", "r", "k"), [(8, 2, 3), (10, 3, 4), (12, 3, 5), (14, 2, 4)])
def test_hub_designs_meet_the_common_neighbour_lemma(n, r, k):
    from robustgraph.design.starts import hub_design

    masks = hub_design(n, r, k)
    t = Topology.from_edges(
        [(j, i) for i, m in enumerate(masks) for j in range(n) if m >> j & 1 and j < i],
        nodes=range(n),
    )
    if theorem.check(t.in_neighbors, r, 1, "common-neighbour", None, None) is None:
        assert robust(t, r, 1)


@pytest.mark.parametrize("n", range(2, 13))
def test_named_families_meet_their_theorems(n):
    merg = gen.gamma_merg(n)
    top = -(-n // 2)
    assert theorem.check(merg.in_neighbors, top, 1, "gamma-merg", list(range(n)), None) is None
    assert robust(merg, top, 1)
    for k in range(1, (n - 2) // 2 + 1):
        ring = gen.k_circulant(n, k)
        assert theorem.check(ring.in_neighbors, k, 1, "circulant", list(range(n)), k) is None
        assert robust(ring, k, 1)


def test_theorem_on_a_wrong_order_or_missing_edge_is_rejected():
    t = gen.gamma_merg(9)
    order = list(range(9))
    order[0], order[4] = order[4], order[0]
    problem = theorem.check(t.in_neighbors, 5, 1, "gamma-merg", order, None)
    assert problem is not None or naive_max_r(t) >= 5  # an automorphism may keep it valid
    thin = Topology.from_edges([e for e in t.edges()][1:], nodes=range(9))
    assert theorem.check(thin.in_neighbors, 5, 1, "gamma-merg", list(range(9)), None)


@SLOW
@given(topologies(max_n=7), st.integers(1, 3), st.integers(1, 3))
def test_auto_proofs_exist_exactly_for_robust_graphs_and_check(t, r, s):
    s = min(s, t.n)
    if t.n < 2:
        return
    made = prove(View.of(t), r, s, "auto", 10.0)
    assert (made is not None) == robust(t, r, s)
    if made is not None:
        proof, files = made
        assert check_proof(View.of(t), r, s, proof, files.__getitem__).steps >= 1


# ----------------------------------------------------------------------------- construction
def test_construction_edits_are_rejected():
    t = gen.preferential_attachment(20, 3)
    view = View.of(t)
    proof, _ = prove(view, 3, 1, "construction")
    assert proof["kind"] == "construction"
    check_proof(view, 3, 1, proof, {}.__getitem__)
    reordered = dict(proof, order=proof["order"][::-1])
    dropped = dict(proof, order=proof["order"][:-1])
    moved = dict(proof, base=proof["base"][:-1], order=[proof["base"][-1], *proof["order"]])
    weak_base = dict(proof, base=[0, 1], order=[n for n in range(20) if n not in (0, 1)])
    for bad in (reordered, dropped, weak_base):
        with pytest.raises(ProofError):
            check_proof(view, 3, 1, bad, {}.__getitem__)
    try:  # moving a base node into the order may still be a valid construction
        check_proof(view, 3, 1, moved, {}.__getitem__)
    except ProofError:
        pass
    else:
        assert robust(t, 3, 1)


def test_construction_with_an_unproven_base_is_rejected():
    ring = gen.k_circulant(12, 1)  # 1-robust only
    with pytest.raises(ProofError):
        check_proof(
            View.of(ring),
            2,
            1,
            {
                "kind": "construction",
                "base": list(range(12)),
                "order": [],
                "base_proof": {"kind": "exhaustive"},
            },
            {}.__getitem__,
        )


# ----------------------------------------------------------------------------- verify
def _doc(cert: Certificate) -> dict:
    return json.loads(cert.dumps())


def test_forged_four_robust_claim_is_rejected_by_plain_verify(tmp_path):
    t = cliques_joined()
    cert = certify(t, Claim.r_robust(1), engines="exhaustive")
    assert cert.verify(t).fully_checked
    doc = _doc(cert)
    record = doc["claims"][0]
    record["claim"] = {"kind": "r", "r": 4}
    record["statement"] = "4-robust"
    check = record["checks"][0]
    check["question"] = {"kind": "is_r_robust", "r": 4, "s": None}
    for holder in (check, check["runs"][0]):
        holder.update(lower=4, upper=4, witness=None)
    forged = Certificate.from_dict(doc)
    report = forged.verify(t, require_proof=True)
    assert report.exit_code == 1
    check["proof"] = {"kind": "exhaustive"}
    report = Certificate.from_dict(doc).verify(t)
    assert not report.valid and any("recomputation" in r for r in report.reasons)
    check["proof"] = {
        "kind": "theorem",
        "family": "min-in-degree",
        "order": None,
        "k": None,
        "reference": theorem.REFERENCES["min-in-degree"],
    }
    assert not Certificate.from_dict(doc).verify(t).valid


def test_forged_claim_appended_and_unknown_engine_are_rejected():
    t = cliques_joined()
    cert = certify(t, Claim.r_robust(1), engines="exhaustive")
    doc = _doc(cert)
    extra = json.loads(json.dumps(doc["claims"][0]))
    extra["claim"], extra["statement"] = {"kind": "r", "r": 3}, "3-robust"
    check = extra["checks"][0]
    check["question"]["r"] = 3
    for holder in (check, check["runs"][0]):
        holder.update(lower=3, upper=3, witness=None)
    doc["claims"].append(extra)
    assert Certificate.from_dict(doc).verify(t).exit_code == 1
    doc = _doc(cert)
    doc["claims"][0]["checks"][0]["runs"][0]["engine"] = "oracle"
    doc["provenance"]["parameters"]["engines"] = ["oracle"]
    report = Certificate.from_dict(doc).verify(t)
    assert not report.valid and any("unknown engine" in r for r in report.reasons)


def test_lrat_certificate_round_trip_and_tampered_file(tmp_path):
    t = gen.erdos_renyi_robust(24, 2, seed=3).topology
    cert = certify(t, Claim.r_robust(2), engines="portfolio", proof="lrat")
    proof = cert.claims[0].checks[0].proof
    assert proof["kind"] == "lrat" and proof["steps"] >= 1
    target = tmp_path / "g.cert.json"
    cert.dump(target)
    loaded = Certificate.load(target)
    report = loaded.verify(t)
    assert report.fully_checked and report.exit_code == 0
    assert "LRAT proof checked" in report.bounds[0].lower_text
    lrat = tmp_path / proof["file"]
    text = gzip.decompress(lrat.read_bytes()).decode().splitlines()
    lrat.write_bytes(gzip.compress("\n".join(text[1:]).encode()))
    report = Certificate.load(target).verify(t)
    assert not report.valid and any("sha256" in r for r in report.reasons)
    lrat.unlink()
    assert not Certificate.load(target).verify(t).valid


def test_version_1_files_verify_as_no_proof():
    t = gen.gamma_merg(7)
    doc = _doc(certify(t, Claim.tolerance(2, "sac"), engines="exhaustive"))
    doc["schema_version"] = 1
    del doc["provenance"]["parameters"]["proof"]
    for record in doc["claims"]:
        for check in record["checks"]:
            del check["proof"]
    cert = Certificate.from_dict(doc)
    report = cert.verify(t)
    assert report.valid and not report.fully_checked and report.exit_code == 0
    assert "engine's word only, no proof" in report.bounds[0].lower_text
    assert cert.verify(t, require_proof=True).exit_code == 1


@pytest.mark.parametrize(
    ("required", "ok"),
    [
        ("tolerance sac F=3", True),
        ("r 4", True),
        ("tolerance sac F=4", False),
        ("tolerance wmsr-total F=1", True),
        ("rs 2 2", True),
    ],
)
def test_require_a_claim(required, ok):
    t = gen.gamma_merg(8)
    cert = certify(t, Claim.tolerance(3, "sac"), engines="exhaustive")
    report = cert.verify(t, require=Claim.parse(required))
    assert (report.exit_code == 0) == ok


def test_impossible_claims_are_refuted_and_a_forged_proof_of_one_is_rejected():
    """A claim no graph on n nodes satisfies (r > ceil(n/2), s > n) is refuted like any other
    (issue 30: one answer per claim); a certificate edited to prove one is rejected by the
    bound checks."""
    t = gen.gamma_merg(10)
    for claim in (Claim.rs_robust(100, 1), Claim.rs_robust(2, 11), Claim.r_robust(6)):
        cert = certify(t, claim, engines="exhaustive")
        assert cert.verdict == "refuted" and cert.verify(t).valid
    doc = _doc(certify(t, Claim.rs_robust(5, 1), engines="exhaustive"))
    record = doc["claims"][0]
    record["claim"]["r"] = 100
    record["statement"] = "(100, 1)-robust"
    record["checks"][0]["question"]["r"] = 100
    record["checks"][0]["bound_on"] = "s*_100"
    report = Certificate.from_dict(doc).verify(t)
    assert not report.valid and any("lower bound 1 is impossible" in r for r in report.reasons)


def test_nan_duplicate_keys_and_bound_on_are_rejected():
    t = gen.gamma_merg(7)
    text = certify(t, Claim.r_robust(2), engines="exhaustive").dumps()
    with pytest.raises(Exception, match="NaN"):
        Certificate.loads(text.replace('"seconds": ', '"seconds": NaN, "x": ', 1))
    with pytest.raises(Exception, match="twice"):
        Certificate.loads(text.replace('"verdict": ', '"verdict": "refuted", "verdict": ', 1))
    doc = json.loads(text)
    doc["claims"][0]["checks"][0]["bound_on"] = "s*_2"
    with pytest.raises(Exception, match="bound_on"):
        Certificate.from_dict(doc)


def test_float_labels_give_a_certificate_its_schema_accepts():
    t = Topology.from_edges([(0.5, 1.5), (1.5, 2.5), (2.5, 3.5), (3.5, 4.5)])
    cert = certify(t, Claim.r_robust(1), Claim.r_robust(2), engines="exhaustive")
    assert cert.claims[1].checks[0].witness is not None  # float labels in a witness
    assert Certificate.loads(cert.dumps()).verify(t).fully_checked


@pytest.mark.parametrize(
    ("make", "r", "kind"),
    [
        (lambda: gen.gamma_merg(200), 100, "theorem"),
        (lambda: gen.preferential_attachment(200, 4), 4, "construction"),
        (lambda: gen.k_circulant(200, 5), 5, "theorem"),
        (lambda: design(200, 3, time_limit=5.0, certify_result=False).topology, 3, "theorem"),
    ],
)
def test_generator_outputs_get_theorem_or_construction_proofs_at_n_200(make, r, kind):
    made = prove(View.of(make()), r, 1, "auto")
    assert made is not None and made[0]["kind"] == kind


def test_runner_gate_opens_only_on_a_checked_proof_and_names_it():
    from protocol_runner.run.cert_gate import NotCertified, check_gate

    t = gen.gamma_merg(8)
    cert = certify(t, Claim.tolerance(3, "sac"), engines="exhaustive")
    report = check_gate(cert, t, 3)
    assert report.certified and report.proof == "theorem"
    assert "theorem proof checked" in report.reason
    bare = certify(t, Claim.tolerance(3, "sac"), engines="exhaustive", proof="none")
    with pytest.raises(NotCertified, match="engine's word only"):
        check_gate(bare, t, 3)
    trivial = certify(t, Claim.r_robust(1), engines="exhaustive", proof="none")
    assert not check_gate(trivial, t, 3, allow_uncertified=True).certified


def test_sat_slices_fit_the_time_left():
    """The conflict budget follows the measured cost per conflict (a fixed 5,000-conflict slice
    ran 6.9 s past a 0.3 s limit on ER(60, 1/2)), never below the first slice."""
    from robustgraph.certificate.proofs.sat import FIRST_SLICE, SLICE_SECONDS, next_budget

    assert next_budget(100, 0.1, 10.0) == int(SLICE_SECONDS / 0.001)  # 1 ms per conflict
    assert next_budget(100, 0.1, 0.05) == FIRST_SLICE  # 50 conflicts would fit: the floor
    assert next_budget(1000, 0.01, 0.1) == 10_000  # 10 us per conflict, 0.1 s left
    assert next_budget(100, 0.0, 1.0) > 100_000  # an instant slice: a much larger next one
