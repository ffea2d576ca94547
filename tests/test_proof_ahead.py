"""A decision claim's proof started ahead of the answer in a child process (proofs/ahead.py)."""

from __future__ import annotations

import gzip
import math
import os
import time
from types import SimpleNamespace

import pytest
from conftest import naive_max_r, topologies
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from robustgraph import generators as gen
from robustgraph.certificate import proof_records
from robustgraph.certificate.certifier import certify
from robustgraph.certificate.claims import Claim
from robustgraph.certificate.proof_records import attach_proofs
from robustgraph.certificate.proofs import ahead as ahead_module
from robustgraph.certificate.proofs.ahead import MISSING, Ahead
from robustgraph.certificate.proofs.checker import ProofError, View, check_proof
from robustgraph.certificate.proofs.cnf import encode
from robustgraph.certificate.proofs.lrat import LratError, check_refutation
from robustgraph.certificate.proofs.sat import available
from robustgraph.topology import Topology
from solvers import registry
from solvers.deadline import Deadline
from solvers.exhaustive import exact_r

pytestmark = pytest.mark.skipif(not available(), reason="python-sat is not installed")

CHILDREN = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
"""Each example starts an interpreter: fewer examples than the in-process proof tests."""


def _r_star(t) -> int:
    """r* by the definition (n <= 7) or the exhaustive engine."""
    if t.n <= 7:
        return naive_max_r(t)
    return exact_r([sum(1 << j for j in nb) for nb in t.in_neighbors])[0]


def _started(ahead: Ahead) -> Ahead:
    """``ahead`` once its timer has started the child (waiting on the fact, not on a time)."""
    while not ahead.started:
        time.sleep(0.01)
    return ahead


def _past_start(ahead: Ahead) -> Ahead:
    """``ahead`` once its child has written ``STARTED`` (imported the prover), or ended."""
    _started(ahead)
    while not ahead.past_start() and ahead.alive:
        time.sleep(0.01)
    return ahead


def _lrat_lines(files: dict[str, bytes], proof: dict) -> list[str]:
    return gzip.decompress(files[proof["file"]]).decode().splitlines()


@CHILDREN
@given(topologies(max_n=8), st.integers(1, 4))
def test_a_proof_made_ahead_exists_exactly_for_robust_graphs_and_checks(t, r):
    if t.n < 2:
        return
    view = View.of(t)
    ahead = _started(Ahead(view, r, 1, "lrat", lambda: 20.0, delay=0.0))
    made, lines = ahead.take(None)
    assert not ahead.alive
    assert lines == []
    assert (made is not None) == (_r_star(t) >= r)
    if made is None:
        return
    proof, files = made
    assert proof["kind"] == "lrat"
    assert check_proof(view, r, 1, proof, files.__getitem__).steps >= 1
    clauses = encode(view.canonical(), r, 1).clauses
    lines = _lrat_lines(files, proof)
    assert check_refutation(clauses, lines) >= 1
    additions = [i for i, line in enumerate(lines) if line.split()[1] != "d"]
    last = lines[additions[-1]].split()
    if len(last) > 3:  # the empty clause with one hint dropped
        dropped_hint = lines[: additions[-1]] + [" ".join(last[:2] + last[3:])]
        with pytest.raises(LratError):
            check_refutation(clauses, dropped_hint)
    if len(additions) > 1:  # a step dropped: a later hint names no clause, or no empty clause
        dropped_step = [line for i, line in enumerate(lines) if i != additions[0]]
        with pytest.raises(LratError):
            check_refutation(clauses, dropped_step)
    changed = last[:2] + [str(int(last[2]) % len(clauses) + 1)] + last[3:]  # a hint changed
    if changed != last:
        with pytest.raises(LratError):
            check_refutation(clauses, lines[: additions[-1]] + [" ".join(changed)])


def test_a_child_that_dies_without_a_word_is_missing_and_one_never_started_too():
    view = View.of(gen.erdos_renyi(8, 0.6, seed=1))
    crashed = _started(Ahead(view, 2, 1, "no such mode", lambda: 5.0, delay=0.0))
    assert crashed.take(None) == MISSING  # prove raised in the child: exit code 1, no output
    assert not crashed.alive
    never = Ahead(view, 2, 1, "lrat", lambda: 5.0, delay=3600.0)
    assert never.take(None) == MISSING and not never.started


def test_a_child_still_at_work_when_the_wait_ends_gives_no_proof_and_is_stopped():
    view = View.of(gen.erdos_renyi(40, 0.5, seed=4372))  # its import alone outlasts the wait
    ahead = _started(Ahead(view, 8, 1, "lrat", lambda: 60.0, delay=0.0))
    assert ahead.take(0.0) == (None, [])
    assert not ahead.alive and not ahead.started


class _Recorded(Ahead):
    """An :class:`Ahead` that starts at once and remembers every instance (to see them end)."""

    made: list[Ahead] = []

    def __init__(self, *args, **kwargs) -> None:
        kwargs["delay"] = 0.0
        kwargs["busy"] = None  # whatever else runs on the machine (tested on its own below)
        super().__init__(*args, **kwargs)
        _Recorded.made.append(self)


@pytest.fixture
def recorded(monkeypatch):
    _Recorded.made = []
    monkeypatch.setattr(proof_records, "Ahead", _Recorded)
    return _Recorded.made


def _slow_solve(monkeypatch, children: list[Ahead]) -> None:
    """The engines answer only once the proof's child is past its start (no timing in the test)."""
    solve = registry.solve

    def waiting(request, *args, **kwargs):
        for child in children:
            _past_start(child)
        return solve(request, *args, **kwargs)

    monkeypatch.setattr(registry, "solve", waiting)


def test_certify_on_two_threads_takes_the_proof_made_ahead(monkeypatch, recorded):
    t = gen.erdos_renyi(12, 0.6, seed=4373)
    r = _r_star(t)
    _slow_solve(monkeypatch, recorded)

    def not_here(view, r, s, mode, limit, **kwargs):
        raise AssertionError("a proof was made in process beside a child past its start")

    monkeypatch.setattr(proof_records, "prove", not_here)
    cert = certify(t, Claim.r_robust(r), engines="exhaustive", proof="lrat", threads=2,
                   time_limit=60)
    assert cert.verdict == "proven"
    proof = cert.claims[0].checks[0].proof
    assert proof is not None and proof["kind"] == "lrat"
    assert cert.verify(t).valid
    assert len(recorded) == 1 and not recorded[0].alive


@pytest.mark.parametrize("found", [True, False])
def test_a_child_still_starting_is_stopped_and_the_proof_made_in_process(monkeypatch, found):
    t = gen.erdos_renyi(12, 0.6, seed=4373)
    view, r = View.of(t), _r_star(t)
    made = proof_records.prove(view, r, 1, "lrat", 30.0) if found else None
    monkeypatch.setattr(Ahead, "past_start", lambda self: False)  # still importing, throughout
    ahead = _started(Ahead(view, r, 1, "lrat", lambda: 60.0, delay=0.0))
    asked = []

    def here(seconds):
        assert not ahead.alive, "the child was not stopped before the proof in process"
        asked.append(seconds)
        return made

    if ahead.alive:  # the child may have finished already: then its own proof is taken
        assert ahead.race(here, None) == (made, [])  # with all its time; none found: none
        assert asked == [math.inf]
    else:
        proof, files = ahead.race(here, None)[0]
        assert check_proof(view, r, 1, proof, files.__getitem__).steps >= 1
    assert not ahead.alive and not ahead.started


def test_a_child_past_its_start_is_waited_for_and_its_proof_taken():
    t = gen.erdos_renyi(12, 0.6, seed=4373)
    view, r = View.of(t), _r_star(t)

    def here(seconds):
        raise AssertionError("a proof was made in process beside a child past its start")

    ahead = _past_start(Ahead(view, r, 1, "lrat", lambda: 60.0, delay=0.0))
    proof, files = ahead.race(here, None)[0]  # its STARTED byte read: the pickle still loads
    assert check_proof(view, r, 1, proof, files.__getitem__).steps >= 1
    assert not ahead.alive and not ahead.started


def test_a_false_claim_gets_no_proof_and_its_child_is_stopped(monkeypatch, recorded):
    t = gen.erdos_renyi(12, 0.6, seed=4373)
    r = _r_star(t)
    _slow_solve(monkeypatch, recorded)
    cert = certify(t, Claim.r_robust(r + 1), engines="exhaustive", proof="lrat", threads=2,
                   time_limit=60)
    assert cert.verdict == "refuted"
    for check in cert.claims[0].checks:  # a proof of r* itself may be attached, never of r* + 1
        assert check.robustness != (r + 1, 1)
        if check.proof is not None:
            assert check_proof(View.of(t), *check.robustness, check.proof,
                               cert.files.__getitem__).steps >= 1
    assert len(recorded) == 1 and not recorded[0].alive


class _Forged:
    """A stand-in child that offers a proof object for a bound no check asserts."""

    def __init__(self) -> None:
        self.taken = self.stopped = False

    def take(self, wait):
        self.taken = True
        return ({"kind": "lrat", "file": "forged"}, {"forged": b""}), []

    def stop(self) -> None:
        self.stopped = True


def test_a_proof_ahead_for_a_bound_no_check_asserts_is_never_reported():
    t = gen.erdos_renyi(12, 0.6, seed=4373)
    r = _r_star(t)
    plain = certify(t, Claim.r_robust(r + 1), engines="exhaustive", proof="none")
    forged = _Forged()
    records, files = attach_proofs(t, plain.claims, "lrat", Deadline.after(30.0),
                                   ahead={(r + 1, 1): forged})
    assert forged.stopped and not forged.taken
    assert "forged" not in files
    for check in records[0].checks:
        if check.proof is not None:
            with pytest.raises(ProofError):  # what it proves is r*, never r* + 1
                check_proof(View.of(t), r + 1, 1, check.proof, files.__getitem__)


def test_one_thread_or_a_split_or_no_proof_starts_nothing_ahead():
    t = gen.erdos_renyi(12, 0.6, seed=4373)
    claims = [Claim.r_robust(2), Claim.maximum()]
    deadline = Deadline.after(10.0)
    assert proof_records.start_ahead(t, claims, "lrat", deadline, 1) == {}
    assert proof_records.start_ahead(t, claims, "none", deadline, 2) == {}
    started = proof_records.start_ahead(t, claims, "lrat", deadline, 2)
    try:
        assert list(started) == [(2, 1)]  # the max claim's bound is not known ahead
    finally:
        proof_records.stop_ahead(started)
    assert not any(a.alive for a in started.values())


def test_no_child_when_the_machine_has_no_core_to_spare_and_the_proof_is_made_here():
    view = View.of(gen.erdos_renyi(8, 0.6, seed=1))
    asked = []

    def busy() -> bool:
        asked.append(True)
        return True

    ahead = Ahead(view, 2, 1, "lrat", lambda: 5.0, delay=0.0, busy=busy)
    while not asked:  # the timer has asked: the child was due and was not started
        time.sleep(0.01)
    assert ahead.take(None) == MISSING and not ahead.started


def test_a_busy_machine_starts_no_child_in_certify(monkeypatch):
    monkeypatch.setattr(proof_records, "BESIDE_LANE_BUSY", -1.0)  # any reading counts as busy
    monkeypatch.setattr(proof_records.CpuSample, "others_busy", lambda self: 0.0)
    t = gen.erdos_renyi(12, 0.6, seed=4373)
    r = _r_star(t)
    started = proof_records.start_ahead(t, [Claim.r_robust(r)], "lrat", Deadline.after(30.0), 2)
    (ahead,) = started.values()
    assert ahead._busy() is True
    proof_records.stop_ahead(started)
    cert = certify(t, Claim.r_robust(r), engines="exhaustive", proof="lrat", threads=2,
                   time_limit=60)
    assert cert.verdict == "proven" and cert.claims[0].checks[0].proof is not None
    assert cert.verify(t).valid


def test_no_proof_ahead_on_an_in_regular_graph():
    circulant = Topology.from_edges([(i, (i + k) % 12) for i in range(12) for k in (1, 2)])
    deadline = Deadline.after(10.0)
    assert proof_records.start_ahead(circulant, [Claim.r_robust(2)], "lrat", deadline, 2) == {}


def test_the_delay_is_read_when_a_proof_is_started(monkeypatch):
    monkeypatch.setattr(ahead_module, "DELAY", 3600.0)
    ahead = Ahead(View.of(gen.erdos_renyi(8, 0.6, seed=1)), 2, 1, "lrat", lambda: 5.0)
    ahead.stop()
    assert not ahead.started


@pytest.mark.skipif(not ahead_module.CAN_IDLE, reason="no SCHED_IDLE on this system")
def test_an_idle_child_runs_at_idle_priority_until_the_answer_is_claimed():
    view = View.of(gen.erdos_renyi(40, 0.5, seed=4372))  # its import alone outlasts the test
    ahead = _started(Ahead(view, 8, 1, "lrat", lambda: 60.0, delay=0.0, idle=True))
    try:
        pid = ahead._child.pid
        assert ahead.idle and os.sched_getscheduler(pid) == os.SCHED_IDLE
        ahead.claim()  # the answer is in: normal priority again (this test runs as root or not)
        assert os.sched_getscheduler(pid) in (os.SCHED_OTHER, os.SCHED_IDLE)
        if os.geteuid() == 0:
            assert os.sched_getscheduler(pid) == os.SCHED_OTHER
    finally:
        ahead.stop()
    assert not ahead.alive
    plain = _started(Ahead(view, 8, 1, "lrat", lambda: 60.0, delay=0.0))
    try:  # round 9's child: normal priority on a core of its own
        assert not plain.idle and os.sched_getscheduler(plain._child.pid) == os.SCHED_OTHER
    finally:
        plain.stop()


def test_the_engines_keep_every_thread_beside_idle_children_only():
    idle, own_core = SimpleNamespace(idle=True), SimpleNamespace(idle=False)
    assert proof_records.engine_threads(2, {}) == 2
    assert proof_records.engine_threads(2, {(3, 1): idle}) == 2
    assert proof_records.engine_threads(3, {(3, 1): idle, (2, 1): own_core}) == 2


@pytest.mark.parametrize("can_idle", [True, False])
def test_certify_gives_the_engines_their_threads_by_the_childs_priority(
    monkeypatch, recorded, can_idle
):
    monkeypatch.setattr(ahead_module, "CAN_IDLE", can_idle)  # False: round 9's rule
    t = gen.erdos_renyi(12, 0.6, seed=4373)
    r = _r_star(t)
    _slow_solve(monkeypatch, recorded)
    threads = []
    solve = registry.solve

    def counted(request, *args, **kwargs):
        threads.append(request.threads)
        return solve(request, *args, **kwargs)

    monkeypatch.setattr(registry, "solve", counted)
    cert = certify(t, Claim.r_robust(r), engines="exhaustive", proof="lrat", threads=2,
                   time_limit=60)
    assert cert.verdict == "proven" and cert.verify(t).valid
    assert threads and set(threads) == {2 if can_idle else 1}
    assert len(recorded) == 1 and recorded[0].idle is can_idle and not recorded[0].alive


def test_the_module_examples_pass():
    from conftest import assert_doctests_pass_in_fresh_process

    assert_doctests_pass_in_fresh_process("robustgraph.certificate.proofs.ahead")
