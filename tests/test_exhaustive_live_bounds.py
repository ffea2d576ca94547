"""Live bounds of the exhaustive engine (``Request.listener``, solvers/exhaustive.py): upper bounds
from the pairs the subset-minimum transform holds between its passes, a lower bound only at the
end; every told interval contains the final value, and listening never changes the answer."""

import networkx as nx
import pytest
from conftest import topologies
from hypothesis import given, settings
from hypothesis import strategies as st

from robustgraph.generators import random_k_in
from robustgraph.topology import Topology
from solvers import exhaustive, registry
from solvers.types import Question, Request, Result


class _Heard:
    def __init__(self) -> None:
        self.calls: list[tuple[int, int, str]] = []

    def __call__(self, lower: int, upper: int, text: str) -> None:
        self.calls.append((lower, upper, text))


def _assert_honest(calls: list[tuple[int, int, str]], res: Result) -> None:
    """Monotone bounds, each interval containing the final value, the lower bound proven only
    at the end, and the last call the result's bounds."""
    assert calls, "the listener heard nothing"
    lowers = [c[0] for c in calls]
    uppers = [c[1] for c in calls]
    assert lowers == sorted(lowers) and uppers == sorted(uppers, reverse=True), calls
    assert all(lo <= res.lower and res.upper <= up for lo, up, _ in calls), (calls, res)
    assert calls[-1] == (res.lower, res.upper, "done"), calls
    assert all(lo == 0 for lo, _, _ in calls[:-1]), calls  # nothing ruled out before the end


def _question(draw_kind: str, r: int, s: int) -> Question:
    return {
        "max_r": Question.max_r(),
        "is_r_robust": Question.is_r_robust(r),
        "max_s": Question.max_s(r),
        "is_rs_robust": Question.is_rs_robust(r, s),
    }[draw_kind]


@settings(max_examples=60, deadline=None)
@given(
    topologies(max_n=9),
    st.sampled_from(["max_r", "is_r_robust", "max_s", "is_rs_robust"]),
    st.integers(0, 4),
    st.integers(0, 9),
)
def test_every_pass_tells_only_proven_bounds_and_listening_changes_nothing(t, kind, r, s):
    """With every pass reported (spacing 0), on random graphs and digraphs of up to 9 nodes."""
    q = _question(kind, r, s)
    plain = exhaustive.solve(Request(t, q))
    heard = _Heard()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(exhaustive, "_REPORT_SPACING", 0.0)
        res = exhaustive.solve(Request(t, q, listener=heard))
    assert (res.lower, res.upper, res.witness, res.status) == (
        plain.lower,
        plain.upper,
        plain.witness,
        plain.status,
    )
    _assert_honest(heard.calls, res)


def test_the_upper_bound_falls_pass_by_pass_to_the_value(monkeypatch):
    """A k-in digraph where the complement splits are far from s*_1: the passes bring the
    bound down in several steps, each from a checked pair."""
    monkeypatch.setattr(exhaustive, "_REPORT_SPACING", 0.0)
    t = random_k_in(16, 3, seed=1)
    heard = _Heard()
    res = exhaustive.solve(Request(t, Question.max_s(1), listener=heard))
    _assert_honest(heard.calls, res)
    uppers = [up for _, up, _ in heard.calls]
    assert heard.calls[0][2] == "complement splits"
    assert uppers[0] > res.value and len(set(uppers)) >= 3, heard.calls
    assert any(text.startswith("subset DP pass ") for _, _, text in heard.calls)


def test_with_the_default_spacing_a_dense_graph_hears_its_splits_then_the_value():
    t = Topology.from_networkx(nx.gnp_random_graph(18, 0.5, seed=0))
    heard = _Heard()
    res = exhaustive.solve(Request(t, Question.max_r(), listener=heard))
    _assert_honest(heard.calls, res)
    assert heard.calls[0][2] == "complement splits"


def test_a_raising_listener_is_dropped_and_changes_nothing():
    t = random_k_in(14, 3, seed=2)
    calls = []

    def broken(lower: int, upper: int, text: str) -> None:
        calls.append(text)
        raise RuntimeError("display bug")

    plain = exhaustive.solve(Request(t, Question.max_s(1)))
    res = exhaustive.solve(Request(t, Question.max_s(1), listener=broken))
    assert len(calls) == 1
    assert (res.value, res.witness) == (plain.value, plain.witness)


def test_the_portfolio_on_a_small_graph_passes_them_on_monotone_to_its_result():
    """The portfolio answers n <= 18 with the subset DP: its listener hears the DP's bounds,
    then the portfolio's own final call."""
    t = Topology.from_networkx(nx.gnp_random_graph(14, 0.3, seed=5, directed=True))
    heard = _Heard()
    res = registry.solve(Request(t, Question.max_s(1), listener=heard), "portfolio")
    assert res.lower == res.upper
    lowers = [c[0] for c in heard.calls]
    uppers = [c[1] for c in heard.calls]
    assert lowers == sorted(lowers) and uppers == sorted(uppers, reverse=True), heard.calls
    assert all(lo <= res.value <= up for lo, up, _ in heard.calls)
    assert heard.calls[-1][:2] == (res.value, res.value)
    assert heard.calls[0][2] == "complement splits"  # the DP's first bound reached it
