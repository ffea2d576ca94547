"""Certificates: certify, JSON round trip, verification, tampering, dual-engine conflicts."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import networkx as nx
import pytest
from conftest import naive_max_r, naive_max_s, slow_engine, topologies
from hypothesis import HealthCheck, given, settings

from robustgraph import generators as gen
from robustgraph.certificate.certifier import EngineConflict, certify
from robustgraph.certificate.claims import MODELS, Claim
from robustgraph.certificate.document import Certificate, InvalidCertificate, schema
from robustgraph.certificate.outcome import trivial_upper
from robustgraph.certificate.verifier import verify
from robustgraph.certificate.witness import witness_problem
from robustgraph.errors import CertificateError, ParameterError
from robustgraph.robustness import tolerances
from robustgraph.topology import Topology
from solvers import registry
from solvers.types import Result, Status, Witness

ROOT = Path(__file__).resolve().parents[1]
REF = "exhaustive"  # the reference engine: exact and fast at these sizes


def merg7() -> Topology:
    return gen.gamma_merg(7)


def path(n: int) -> Topology:
    return Topology.from_networkx(nx.path_graph(n))


def prism() -> Topology:
    """The triangular prism: min degree 3 = ceil(6/2), yet only 1-robust (two triangles)."""
    return Topology.from_networkx(nx.circular_ladder_graph(3))


def reload(doc: dict) -> Certificate:
    return Certificate.from_dict(json.loads(json.dumps(doc)))


# ----------------------------------------------------------------------------- claims
def test_claim_questions_follow_the_models():
    assert Claim.tolerance(3, "sac").question().r == 4
    assert Claim.tolerance(3, "wmsr-local").question().r == 7
    q = Claim.tolerance(3, "wmsr-total").question()
    assert (q.kind, q.r, q.s) == ("is_rs_robust", 4, 4)
    assert Claim.maximum().question() is None


@pytest.mark.parametrize(
    "make",
    [
        lambda: Claim("r"),
        lambda: Claim("r", r=-1),
        lambda: Claim("rs", r=2, s=0),
        lambda: Claim("tolerance", F=1, model="msr"),
        lambda: Claim("max", r=2),
        lambda: Claim("max", models=("wmsr-total",)),  # sac and wmsr-local are always stated
        lambda: Claim("max", models=("sac", "wmsr-local", "sac")),
        lambda: Claim("max", models=("sac", "wmsr-local", "msr")),
        lambda: Claim("r", r=2, models=MODELS),
        lambda: Claim("nope"),
    ],
)
def test_bad_claims_are_parameter_errors(make):
    with pytest.raises(ParameterError):
        make()


def test_certify_needs_a_claim_and_sane_parameters():
    t = merg7()
    with pytest.raises(ParameterError):
        certify(t, engines=REF)
    with pytest.raises(ParameterError):
        certify(t, Claim.r_robust(1), engines=[REF, REF])
    with pytest.raises(ParameterError):
        certify(t, Claim.r_robust(1), engines=REF, time_limit=0)
    with pytest.raises(ParameterError):
        certify(t, Claim.r_robust(1), engines="no-such-engine")


# ----------------------------------------------------------------------------- certify
def test_merg7_tolerates_three_under_sac_and_not_four():
    t = merg7()
    cert = certify(t, Claim.tolerance(3, "sac"), Claim.tolerance(4, "sac"), engines=REF)
    proven, refuted = cert.claims
    assert proven.verdict == "proven" and refuted.verdict == "refuted"
    assert cert.verdict == "refuted" and cert.exit_code == 1
    check = refuted.checks[0]
    assert check.upper == 4
    assert witness_problem(t, check.question, check.upper, check.witness) is None
    assert cert.graph.hash == t.content_hash and (cert.graph.n, cert.graph.m) == (7, t.m)


def test_max_claim_on_merg7():
    cert = certify(merg7(), Claim.maximum(MODELS), engines=REF)
    (record,) = cert.claims
    assert record.verdict == "proven"
    assert record.values["r"] == (4, 4)
    assert record.values["sac"] == (3, 3)
    assert record.values["wmsr-local"] == (1, 1)
    total = max(f for f in range(-1, 4) if f < 0 or naive_max_s(merg7(), f + 1) >= f + 1)
    assert record.values["wmsr-total"] == (total, total)


def test_the_default_max_claim_asks_r_alone_and_states_what_follows_from_it():
    (record,) = certify(merg7(), Claim.maximum(), engines=REF).claims
    assert [check.question.kind for check in record.checks] == ["max_r"]
    assert record.verdict == "proven"
    assert record.values == {"r": (4, 4), "sac": (3, 3), "wmsr-local": (1, 1)}
    assert Claim.maximum(["wmsr-total", "sac", "wmsr-local"]).models == MODELS  # model order


def test_a_version_2_max_claim_states_every_tolerance_and_still_verifies():
    """A max claim without ``models`` (versions 1 and 2) is the F-total search too."""
    t = merg7()
    doc = certify(t, Claim.maximum(MODELS), engines=REF).to_dict()
    doc["schema_version"] = 2
    del doc["claims"][0]["claim"]["models"]
    old = reload(doc)
    assert old.claims[0].claim == Claim.maximum(MODELS) and old.verify(t).valid
    short = certify(t, Claim.maximum(), engines=REF).to_dict()
    short["schema_version"] = 2
    del short["claims"][0]["claim"]["models"]  # now it claims wmsr-total but never asked
    short["claims"][0]["statement"] = Claim.maximum(MODELS).describe()
    reasons = reload(short).verify(t).reasons  # the F-total search never ran: undecided
    assert any("verdict proven does not follow from its checks" in r for r in reasons), reasons


def test_a_local_max_claim_with_f_total_questions_is_caught():
    t = merg7()
    doc = certify(t, Claim.maximum(MODELS), engines=REF).to_dict()
    doc["claims"][0]["claim"]["models"] = ["sac", "wmsr-local"]
    doc["claims"][0]["statement"] = Claim.maximum().describe()
    reasons = reload(doc).verify(t).reasons
    assert any("the claim needs nothing more" in r for r in reasons), reasons


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(topologies(max_n=6))
def test_max_claim_matches_the_definitions(t):
    (record,) = certify(t, Claim.maximum(MODELS), engines=REF).claims
    r = naive_max_r(t)
    total = max(f for f in range(-1, r) if f < 0 or naive_max_s(t, f + 1) >= f + 1)
    assert record.verdict == "proven"
    assert record.values == {
        "r": (r, r),
        "sac": (r - 1, r - 1),
        "wmsr-local": ((r - 1) // 2, (r - 1) // 2),
        "wmsr-total": (total, total),
    }


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(topologies(max_n=7))
def test_max_claim_agrees_with_the_robustness_module(t):
    tol = tolerances(t, engine=REF)
    (record,) = certify(t, Claim.maximum(MODELS), engines=REF).claims
    for model in ("sac", "wmsr-local", "wmsr-total"):
        assert record.values[model] == (tol[model].lower, tol[model].upper)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(topologies(max_n=6))
def test_every_certificate_of_a_random_graph_verifies(t):
    claims = (Claim.r_robust(2), Claim.rs_robust(1, 2))
    if t.n >= 3:
        claims += (Claim.tolerance(1, "wmsr-total"),)
    cert = certify(t, *claims, engines=REF)
    assert cert.claims[0].verdict == ("proven" if naive_max_r(t) >= 2 else "refuted")
    assert cert.claims[1].verdict == ("proven" if naive_max_s(t, 1) >= 2 else "refuted")
    report = reload(cert.to_dict()).verify(t)
    assert report.valid, report.reasons


def test_directed_graph_is_certified_on_in_neighbours():
    star = Topology.from_edges([(0, i) for i in range(1, 5)], directed=True)
    cert = certify(star, Claim.r_robust(1), Claim.r_robust(2), engines=REF)
    assert [c.verdict for c in cert.claims] == ["proven", "refuted"]
    assert cert.graph.directed and verify(cert, star).valid


# ----------------------------------------------------------------------------- JSON
def test_round_trip_and_stable_key_order(tmp_path):
    t = merg7()
    first = certify(t, Claim.maximum(), Claim.rs_robust(2, 2), engines=REF)
    target = tmp_path / "c.json"
    first.dump(target)
    loaded = Certificate.load(target)
    assert loaded == first
    assert target.read_text() == first.dumps()
    second = certify(t, Claim.maximum(), Claim.rs_robust(2, 2), engines=REF)

    def stable(text: str) -> list[str]:
        volatile = ('"seconds"', '"created"', '"check_seconds"')
        return [line for line in text.splitlines() if not line.strip().startswith(volatile)]

    assert stable(first.dumps()) == stable(second.dumps())
    assert list(json.loads(first.dumps())) == [
        "format", "schema_version", "verdict", "graph", "claims", "provenance"
    ]


def test_provenance_records_versions_parameters_and_time():
    prov = certify(path(3), Claim.r_robust(1), engines=REF, threads=1, seed=7).provenance
    assert prov["tool_version"] and prov["created"].endswith("Z")
    assert prov["parameters"] == {
        "engines": [REF], "formulation": "strong", "time_limit": None, "threads": 1, "seed": 7,
        "proof": "auto",
    }
    assert set(prov["packages"]) == {"numpy", "ortools", "highspy", "pulp"}
    assert prov["packages"]["numpy"]
    assert prov["git"] is None or set(prov["git"]) == {"revision", "dirty"}


def test_published_schema_is_the_packaged_one():
    published = json.loads((ROOT / "docs" / "certificate.schema.json").read_text())
    assert published == schema()


def test_labels_are_kept_in_witnesses():
    t = Topology.from_edges([("a", "b"), ("b", "c"), ("c", "d")])
    cert = certify(t, Claim.r_robust(2), engines=REF)
    witness = cert.claims[0].checks[0].witness
    assert set(witness.s1) | set(witness.s2) <= {"a", "b", "c", "d"}
    assert reload(cert.to_dict()).verify(t).valid


# ----------------------------------------------------------------------------- tampering
@pytest.fixture
def merg_doc() -> dict:
    cert = certify(merg7(), Claim.tolerance(3, "sac"), Claim.tolerance(4, "sac"), engines=REF)
    return cert.to_dict()


def reasons_after(doc: dict, edit, topology: Topology | None = None) -> tuple[str, ...]:
    doc = copy.deepcopy(doc)
    edit(doc)
    return reload(doc).verify(topology or merg7()).reasons


def test_untampered_certificate_is_valid(merg_doc):
    report = reload(merg_doc).verify(merg7())
    assert report.valid and report.exit_code == 0 and report.verdict == "refuted"


@pytest.mark.parametrize("change", ["add", "remove"])
def test_edge_added_or_removed_is_caught(merg_doc, change):
    g = merg7().to_networkx()
    if change == "add":
        g.add_edge(*next(iter(nx.non_edges(g))))
    else:
        g.remove_edge(*next(iter(g.edges())))
    reasons = reload(merg_doc).verify(Topology.from_networkx(g)).reasons
    assert len(reasons) == 1 and "another graph" in reasons[0]


def test_certificate_for_a_different_graph_is_caught(merg_doc):
    report = reload(merg_doc).verify(gen.complete(7))
    assert not report.valid and report.exit_code == 1


def test_claim_edited_upward_is_caught(merg_doc):
    def raise_f(doc):
        doc["claims"][0]["claim"]["F"] = 4
        doc["claims"][0]["statement"] = "tolerates F = 4 under sac: 5-robust"

    reasons = reasons_after(merg_doc, raise_f)
    assert any("claim needs is_r_robust(r=5" in r for r in reasons)


def test_claim_and_bounds_edited_upward_consistently_are_impossible(merg_doc):
    def raise_everything(doc):
        record = doc["claims"][0]
        record["claim"]["F"] = 4
        record["statement"] = "tolerates F = 4 under sac: 5-robust"
        check = record["checks"][0]
        check["question"]["r"] = 5
        check["lower"] = check["upper"] = check["runs"][0]["lower"] = check["runs"][0]["upper"] = 5

    reasons = reasons_after(merg_doc, raise_everything)
    assert any("lower bound 5 is impossible" in r and "ceil(n/2) = 4" in r for r in reasons)


def test_witness_edited_is_caught(merg_doc):
    def move_node(doc):
        witness = doc["claims"][1]["checks"][0]["runs"][0]["witness"]
        witness["s2"].append(witness["s1"].pop())
        if not witness["s1"]:
            witness["s1"].append(witness["s2"].pop(0))

    reasons = reasons_after(merg_doc, move_node)
    assert any("witness invalid" in r for r in reasons)


def test_witness_naming_an_unknown_node_is_caught(merg_doc):
    def unknown(doc):
        doc["claims"][1]["checks"][0]["witness"]["s1"] = ["nobody"]

    assert any("'nobody' is not in the graph" in r for r in reasons_after(merg_doc, unknown))


def test_max_claim_with_a_question_dropped_or_a_value_raised_is_caught():
    t = merg7()
    doc = certify(t, Claim.maximum(MODELS), engines=REF).to_dict()
    asked = [c["question"] for c in doc["claims"][0]["checks"]]
    assert [(q["kind"], q["r"], q["s"]) for q in asked] == [
        ("max_r", None, None), ("is_rs_robust", 3, 3), ("is_rs_robust", 4, 4)
    ]
    dropped = copy.deepcopy(doc)
    dropped["claims"][0]["checks"].pop()
    reasons = reload(dropped).verify(t).reasons
    assert any("verdict proven does not follow from its checks" in r for r in reasons), reasons
    raised = copy.deepcopy(doc)
    raised["claims"][0]["values"]["wmsr-total"] = {"lower": 3, "upper": 3}
    assert any("do not follow from its checks" in r for r in reload(raised).verify(t).reasons)


def test_verdict_edited_is_caught(merg_doc):
    def flip(doc):
        doc["claims"][1]["verdict"] = "proven"
        doc["verdict"] = "proven"

    assert any("does not follow from its checks" in r for r in reasons_after(merg_doc, flip))


def test_proven_verdict_with_a_bounded_run_is_inconsistent(merg_doc):
    def bounded(doc):
        doc["claims"][0]["checks"][0]["runs"][0]["status"] = "bounded"

    assert any("status bounded is inconsistent" in r for r in reasons_after(merg_doc, bounded))


def test_bounds_out_of_order_are_caught(merg_doc):
    def disorder(doc):
        check = doc["claims"][0]["checks"][0]
        check["runs"][0]["lower"], check["runs"][0]["upper"] = 4, 3
        check["lower"], check["upper"] = 4, 3

    assert any("not ordered" in r for r in reasons_after(merg_doc, disorder))


@pytest.mark.parametrize(
    "edit",
    [
        lambda doc: doc.pop("graph"),
        lambda doc: doc.update(schema_version=4),
        lambda doc: doc["claims"][0].update(verdict="maybe"),
        lambda doc: doc["claims"][0]["checks"][0].update(lower="4"),
        lambda doc: doc["claims"][0].update(statement="tolerates F = 9 under sac: 10-robust"),
        lambda doc: doc.update(extra=1),
    ],
)
def test_schema_invalid_documents_are_rejected(merg_doc, edit):
    doc = copy.deepcopy(merg_doc)
    edit(doc)
    with pytest.raises(InvalidCertificate) as info:
        Certificate.from_dict(doc)
    assert info.value.exit_code == 1


def test_text_that_is_not_json_is_an_input_error():
    with pytest.raises(CertificateError) as info:
        Certificate.loads("{not json")
    assert info.value.exit_code == 2


def test_resolving_catches_a_lower_bound_no_witness_can_refute():
    t = prism()
    cert = certify(t, Claim.tolerance(2, "sac"), engines=REF)
    assert cert.verdict == "refuted"
    doc = cert.to_dict()
    check = doc["claims"][0]["checks"][0]
    for holder in (check, check["runs"][0]):
        holder.update(lower=3, upper=3, witness=None)
    doc["claims"][0]["verdict"] = doc["verdict"] = "proven"
    check["proof"] = None  # the honest certificate's proof is of r* >= 2, not 3
    forged = reload(doc)
    # Consistency checks alone cannot see it: 3 <= ceil(6/2) and 3 <= the minimum degree;
    # but the lower bound has no proof, so plain verify rejects it
    report = forged.verify(t, require_proof=True)
    assert report.valid and not report.fully_checked and report.exit_code == 1
    assert any("engine's word only, no proof" in r for r in report.rejections)
    report = forged.verify(t, resolve_with=REF)
    assert not report.valid and any("contradicts" in r for r in report.reasons)


def test_resolving_an_honest_certificate_confirms_it():
    t = merg7()
    cert = certify(t, Claim.maximum(), Claim.tolerance(4, "sac"), engines=REF)
    report = cert.verify(t, resolve_with=REF)
    assert report.valid and any("re-solved" in line for line in report.checked)


# ----------------------------------------------------------------------------- dual engine
def _engine(name: str, answer) -> registry.Engine:
    return registry.Engine(name, answer, lambda: True, "test engine")


def _liar(request) -> Result:
    """Claims every graph is as robust as the trivial bound allows: a plausible, wrong answer."""
    high = trivial_upper(request.graph, request.question)
    return Result(request.question, Status.EXACT, high, high, None, "liar", None, 0.0)


def _echo(request) -> Result:
    honest = registry.solve(request, REF)
    return Result(
        honest.question, honest.status, honest.lower, honest.upper, honest.witness,
        "echo", "strong", honest.wall_time, "echo 1",
    )


def test_dual_engine_agreement_records_both_runs(monkeypatch):
    monkeypatch.setitem(registry.ENGINES, "echo", _engine("echo", _echo))
    t = merg7()
    cert = certify(t, Claim.maximum(), engines=[REF, "echo"])
    assert cert.verdict == "proven"
    for check in cert.claims[0].checks:
        assert [run.engine for run in check.runs] == [REF, "echo"]
    assert cert.verify(t).valid


def test_dual_engine_disagreement_is_a_loud_error(monkeypatch):
    monkeypatch.setitem(registry.ENGINES, "liar", _engine("liar", _liar))
    with pytest.raises(EngineConflict) as info:
        certify(prism(), Claim.r_robust(2), engines=[REF, "liar"])
    assert info.value.exit_code == 4
    assert "engines disagree on is_r_robust(2): liar proved r* >= 3" in str(info.value)
    assert "exhaustive proved r* <= 1" in str(info.value)


def test_engine_with_a_bad_witness_is_refused(monkeypatch):
    def bad_witness(request) -> Result:
        honest = registry.solve(request, REF)
        return Result(
            honest.question, honest.status, honest.lower, honest.upper,
            Witness(frozenset({0}), frozenset({1})), "bad", None, 0.0,
        )

    monkeypatch.setitem(registry.ENGINES, "bad", _engine("bad", bad_witness))
    with pytest.raises(EngineConflict, match="witness invalid"):
        certify(gen.complete(6), Claim.r_robust(4), engines="bad")


def test_dropping_one_engine_from_a_dual_certificate_is_caught(monkeypatch):
    monkeypatch.setitem(registry.ENGINES, "echo", _engine("echo", _echo))
    t = merg7()
    doc = certify(t, Claim.tolerance(3, "sac"), engines=[REF, "echo"]).to_dict()
    doc["claims"][0]["checks"][0]["runs"].pop()
    reasons = reload(doc).verify(t).reasons
    assert any("every engine must answer every question" in r for r in reasons)


# ----------------------------------------------------------------------------- real engines
def test_default_engine_is_the_portfolio():
    cert = certify(merg7(), Claim.tolerance(3, "sac"))
    assert cert.verdict == "proven"
    assert cert.provenance["parameters"]["engines"] == ["portfolio"]


def test_cpsat_and_highs_dual_certificate_of_merg7():
    t = merg7()
    cert = certify(t, Claim.maximum(), Claim.tolerance(4, "sac"), engines=("cpsat", "highs"))
    best, refuted = cert.claims
    assert best.verdict == "proven" and best.values["r"] == (4, 4)
    assert refuted.verdict == "refuted"
    assert all(len(check.runs) == 2 for record in cert.claims for check in record.checks)
    assert reload(cert.to_dict()).verify(t, resolve_with=REF).valid


def test_time_limit_leaves_a_true_claim_undecided_with_proven_bounds():
    # gamma-MERG(40) is 20-robust (a theorem), so no engine can refute the claim; HiGHS cannot
    # prove it in 10 ms either, so the verdict must be undecided with bounds around 20.
    t = gen.gamma_merg(40)
    cert = certify(t, Claim.r_robust(20), engines="highs", time_limit=0.01)
    (record,) = cert.claims
    check = record.checks[0]
    assert record.verdict == "undecided" and cert.exit_code == 3
    assert check.lower < 20 <= check.upper
    assert check.runs[0].status in ("bounded", "timeout")
    assert cert.verify(t).valid


def _spending(monkeypatch, limits: list, seconds: float, r_bounds: tuple[int, int]):
    """``slow_engine`` on a fake clock: the deadline's clock (``solvers.deadline``) moves only by
    the ``seconds`` each question spends, so the shares below are the same at any load."""
    from types import SimpleNamespace

    from solvers import deadline

    clock = [0.0]
    monkeypatch.setattr(deadline, "time", SimpleNamespace(perf_counter=lambda: clock[0]))
    solve = slow_engine(limits, 0.0, r_bounds)

    def spend(request, engine="portfolio"):
        out = solve(request, engine)
        clock[0] += seconds
        return out

    return spend


def test_time_limit_is_one_deadline_for_the_whole_call(monkeypatch):
    """Questions and proof searches share one deadline: a fake engine that spends 0.3 s per
    question under a 1 s limit gets less time each question, and the proof what is left."""
    from robustgraph.certificate import certifier, proof_records

    limits, proof_limits = [], []

    def prove(view, r, s, mode, time_limit, split=None, progress=None, kinds=None):
        proof_limits.append(time_limit)
        return None

    monkeypatch.setattr(certifier.registry, "solve", _spending(monkeypatch, limits, 0.3, (2, 4)))
    monkeypatch.setattr(proof_records, "prove", prove)
    t = Topology.from_networkx(nx.complete_graph(8))
    cert = certify(t, Claim.maximum(MODELS), engines="portfolio", time_limit=1.0)
    assert cert.verdict == "undecided"  # the shrinking limits below show the one deadline
    assert len(limits) == 2  # max_r, then is_rs_robust(2, 2), which stops the F-total search
    assert limits == pytest.approx([1.0, 1.0 - 0.3])
    assert proof_limits and all(limit == pytest.approx(1.0 - 2 * 0.3) for limit in proof_limits)


def test_no_f_total_question_starts_after_the_deadline_and_the_certificate_verifies(monkeypatch):
    """The search stops after r* once the deadline has passed: undecided, the F-total bounds
    those that r* alone proves, and ``verify`` accepts the shorter search."""
    from robustgraph.certificate import certifier

    limits = []
    monkeypatch.setattr(certifier.registry, "solve", _spending(monkeypatch, limits, 0.3, (2, 4)))
    t = Topology.from_networkx(nx.complete_graph(8))
    cert = certify(t, Claim.maximum(MODELS), engines="portfolio", time_limit=0.2, proof="none")
    (record,) = cert.claims
    assert len(limits) == 1 and [c.question.kind for c in record.checks] == ["max_r"]
    assert record.verdict == "undecided" and record.values["wmsr-total"] == (0, 3)
    monkeypatch.undo()
    report = reload(cert.to_dict()).verify(t)
    assert report.valid, report.reasons
