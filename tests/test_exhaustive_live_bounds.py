"""Live bounds of the exhaustive engine (``Request.listener``, solvers/exhaustive.py): for an r
question, the bounds each probe of the binary search proves (an upper bound only with its checked
pair), then the value; for an s question, the value at the end. Every told interval contains the
final value, and listening never changes the answer."""

import networkx as nx
import pytest
from conftest import topologies
from hypothesis import given, settings
from hypothesis import strategies as st

from robustgraph.generators import random_k_in
from robustgraph.topology import Topology
from solvers import exhaustive, portfolio, registry
from solvers.types import Question, Request, Result


class _Heard:
    def __init__(self) -> None:
        self.calls: list[tuple[int, int, str]] = []

    def __call__(self, lower: int, upper: int, text: str) -> None:
        self.calls.append((lower, upper, text))


def _assert_honest(calls: list[tuple[int, int, str]], res: Result) -> None:
    """Monotone bounds, each interval containing the final value, the last call the result's."""
    assert calls, "the listener heard nothing"
    lowers = [c[0] for c in calls]
    uppers = [c[1] for c in calls]
    assert lowers == sorted(lowers) and uppers == sorted(uppers, reverse=True), calls
    assert all(lo <= res.lower and res.upper <= up for lo, up, _ in calls), (calls, res)
    assert calls[-1] == (res.lower, res.upper, "done"), calls


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
def test_every_probe_tells_only_proven_bounds_and_listening_changes_nothing(t, kind, r, s):
    """On random graphs and digraphs of up to 9 nodes, every question kind."""
    q = _question(kind, r, s)
    plain = exhaustive.solve(Request(t, q))
    heard = _Heard()
    res = exhaustive.solve(Request(t, q, listener=heard))
    assert (res.lower, res.upper, res.witness, res.status) == (
        plain.lower,
        plain.upper,
        plain.witness,
        plain.status,
    )
    _assert_honest(heard.calls, res)


def test_the_binary_search_moves_both_bounds_before_the_end():
    """A dense graph: probes below r* raise the lower bound, probes above it lower the upper
    bound, before the final call."""
    t = Topology.from_networkx(nx.gnp_random_graph(18, 0.5, seed=0))
    heard = _Heard()
    res = exhaustive.solve(Request(t, Question.max_r(), listener=heard))
    _assert_honest(heard.calls, res)
    during = heard.calls[:-1]
    assert any(0 < lo for lo, _, _ in during), heard.calls
    assert any(up < (t.n + 1) // 2 for _, up, _ in during), heard.calls


def test_a_raising_listener_is_dropped_and_changes_nothing():
    t = random_k_in(14, 3, seed=2)
    calls = []

    def broken(lower: int, upper: int, text: str) -> None:
        calls.append(text)
        raise RuntimeError("display bug")

    plain = exhaustive.solve(Request(t, Question.max_r()))
    res = exhaustive.solve(Request(t, Question.max_r(), listener=broken))
    assert len(calls) == 1
    assert (res.value, res.witness) == (plain.value, plain.witness)


@pytest.mark.parametrize(("cores_max_n", "text"), [(64, "core search"), (0, "subset DP")])
def test_the_portfolio_on_a_small_graph_passes_them_on_monotone_to_its_result(
    cores_max_n, text, monkeypatch
):
    """The portfolio answers small graphs with the core search (or, without it, the subset
    DP): its listener hears that engine's bounds, then the final call."""
    monkeypatch.setattr(portfolio, "CORES_MAX_N", cores_max_n)
    t = Topology.from_networkx(nx.gnp_random_graph(14, 0.3, seed=5, directed=True))
    heard = _Heard()
    res = registry.solve(Request(t, Question.max_r(), listener=heard), "portfolio")
    assert res.lower == res.upper
    lowers = [c[0] for c in heard.calls]
    uppers = [c[1] for c in heard.calls]
    assert lowers == sorted(lowers) and uppers == sorted(uppers, reverse=True), heard.calls
    assert all(lo <= res.value <= up for lo, up, _ in heard.calls)
    assert heard.calls[-1][:2] == (res.value, res.value)
    assert any(said == text for _, _, said in heard.calls)
