"""CaDiCaL's time-limited solve in growing slices (issue 40, round 5): the budget rule, and the
proofs made across many slices, which exist exactly for robust graphs and digraphs (the
exhaustive engine or the definition decides), check, and are rejected when forged. A fake
clock drives the slices, so no test depends on how fast the machine is."""

from __future__ import annotations

import gzip
import hashlib
from itertools import pairwise
from unittest import mock

import pytest
from conftest import topologies
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_proofs import robust

from robustgraph import generators as gen
from robustgraph.certificate.proofs import prover, sat
from robustgraph.certificate.proofs.checker import ProofError, View, check_proof
from robustgraph.certificate.proofs.cnf import ENCODING, Cnf, encode
from robustgraph.certificate.proofs.lrat import check_refutation
from robustgraph.certificate.proofs.trim import trim

pytestmark = pytest.mark.skipif(not sat.available(), reason="python-sat is not installed")

SLOW = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class FakeClock:
    """``time`` for :mod:`.sat`: each reading is ``tick`` seconds after the one before."""

    def __init__(self, tick: float) -> None:
        self.now, self.tick = 0.0, tick

    def monotonic(self) -> float:
        self.now += self.tick
        return self.now


def _recording(seen: list[tuple[int, float, float, float]]):
    """``sat.next_budget`` that records its arguments (conflicts, seconds, left, spent)."""
    real = sat.next_budget

    def next_budget(conflicts, seconds, left, spent=0.0):
        seen.append((conflicts, seconds, left, spent))
        return real(conflicts, seconds, left, spent)

    return next_budget


def _pigeons(holes: int) -> list[tuple[int, ...]]:
    """holes + 1 pigeons in ``holes`` holes (unsatisfiable; thousands of conflicts at 7)."""
    var = lambda p, h: p * holes + h + 1  # noqa: E731
    clauses = [tuple(var(p, h) for h in range(holes)) for p in range(holes + 1)]
    for h in range(holes):
        for p in range(holes + 1):
            clauses += [(-var(p, h), -var(q, h)) for q in range(p + 1, holes + 1)]
    return clauses


def test_a_later_slice_aims_at_half_the_time_spent_within_the_time_left():
    per = 0.001  # 100 conflicts in 0.1 s
    assert sat.next_budget(100, 0.1, 10.0) == int(sat.SLICE_SECONDS / per)  # nothing spent yet
    assert sat.next_budget(100, 0.1, 10.0, spent=0.3) == int(sat.SLICE_SECONDS / per)
    assert sat.next_budget(100, 0.1, 100.0, spent=8.0) == int(8.0 * sat.SLICE_SHARE / per)
    assert sat.next_budget(100, 0.1, 3.0, spent=40.0) == int(3.0 * sat.SLICE_SHARE / per)
    assert sat.next_budget(100, 0.1, 0.15, spent=40.0) == int(0.15 / per)  # the time left
    assert sat.next_budget(100, 0.1, 0.01, spent=40.0) == sat.FIRST_SLICE  # the floor
    with mock.patch.object(sat, "SLICE_SHARE", 0.0):  # round 4: fixed slices
        assert sat.next_budget(100, 0.1, 100.0, spent=8.0) == int(sat.SLICE_SECONDS / per)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 10**6),
    st.floats(0.0, 10.0),
    st.floats(0.0, 1e3),
    st.floats(0.0, 1e3),
)
def test_a_slice_never_aims_past_the_time_left_nor_below_the_fixed_slice(
    conflicts, seconds, left, spent
):
    per = max(seconds, 1e-6) / conflicts
    budget = sat.next_budget(conflicts, seconds, left, spent)
    assert budget >= sat.FIRST_SLICE
    assert budget == sat.FIRST_SLICE or budget * per <= left * (1 + 1e-9)
    assert budget >= sat.next_budget(conflicts, seconds, left)  # never smaller than round 4's


def test_the_solve_passes_the_time_spent_and_its_slices_grow():
    cnf = Cnf(7 * 8, tuple(_pigeons(7)))
    seen: list[tuple[int, float, float, float]] = []
    with mock.patch.object(sat, "time", FakeClock(0.5)), \
            mock.patch.object(sat, "next_budget", _recording(seen)):
        status, text = sat.refute(cnf, 1e6)
    assert status is False
    assert check_refutation(cnf.clauses, text.decode().splitlines()) >= 1
    assert len(seen) >= 3
    spent = [s for *_, s in seen]
    assert spent[0] > 0 and all(a < b for a, b in pairwise(spent))
    # the seconds each next slice aims at, at the cost per conflict just measured, grow
    aims = [sat.next_budget(*args) * args[1] / args[0] for args in seen]
    assert all(a < b for a, b in pairwise(aims))


def test_growing_slices_still_stop_at_the_deadline():
    cnf = Cnf(10 * 11, tuple(_pigeons(10)))  # far more conflicts than the slices allow
    seen: list[tuple[int, float, float, float]] = []
    clock = FakeClock(0.5)
    with mock.patch.object(sat, "time", clock), \
            mock.patch.object(sat, "next_budget", _recording(seen)):
        assert sat.refute(cnf, 5.0) == (None, None)
    assert clock.now <= 0.5 + 5.0 + 0.5  # began, then no slice starts at or past the deadline
    assert all(left > 0 for _, _, left, _ in seen[:-1])


@SLOW
@given(topologies(max_n=8), st.integers(1, 4), st.integers(1, 3))
def test_proofs_made_in_many_slices_exist_exactly_for_robust_graphs_and_check(t, r, s):
    s = min(s, t.n)
    if t.n < 2:
        return
    with mock.patch.object(sat, "time", FakeClock(0.05)), \
            mock.patch.object(sat, "FIRST_SLICE", 1), \
            mock.patch.object(prover, "_from_core_tree", lambda *args: None):
        made = prover.prove(View.of(t), r, s, "lrat", 1e6)
    assert (made is not None) == robust(t, r, s)
    if made is not None:
        proof, files = made
        assert proof["kind"] == "lrat"
        assert check_proof(View.of(t), r, s, proof, files.__getitem__).steps >= 1


def test_a_forged_proof_made_in_slices_is_rejected():
    t = gen.erdos_renyi(14, 0.8, seed=4331)
    r = max(k for k in range(1, 8) if robust(t, k, 1))
    view = View.of(t)
    cnf = encode(view.canonical(), r, 1)
    with mock.patch.object(sat, "time", FakeClock(0.05)), mock.patch.object(sat, "FIRST_SLICE", 1):
        status, text = sat.refute(cnf, 1e6)
    assert status is False
    lines = trim(text).decode().splitlines()
    assert check_refutation(cnf.clauses, lines) == len(lines)

    def record(lrat_lines: list[str]) -> tuple[dict, dict[str, bytes]]:
        data = gzip.compress("\n".join(lrat_lines).encode() + b"\n")
        digest = hashlib.sha256(data).hexdigest()
        name = f"lrat-{digest[:20]}.lrat.gz"
        proof = {
            "kind": "lrat", "encoding": ENCODING, "variables": cnf.variables,
            "clauses": len(cnf.clauses), "file": name, "sha256": digest, "bytes": len(data),
            "steps": len(lrat_lines),
        }
        return proof, {name: data}

    proof, files = record(lines)
    assert check_proof(view, r, 1, proof, files.__getitem__).steps == len(lines)
    # the last hint of the empty clause dropped: the hints reach no conflict
    tokens = lines[-1].split()
    proof, files = record([*lines[:-1], " ".join([*tokens[:-2], "0"])])
    with pytest.raises(ProofError):
        check_proof(view, r, 1, proof, files.__getitem__)
