"""s*_R from the r* answer (solvers/after_r.py, Request.known_lower): every value it settles is
the definition's, and a solve told s*_R >= 1 does not decide R-robustness again (issue 40)."""

import json
from unittest.mock import patch

import pytest
from click.testing import CliRunner
from conftest import naive_max_s, topologies
from hypothesis import given, settings
from hypothesis import strategies as st

from robustgraph import generators, io
from robustgraph.cli import main
from solvers import exhaustive, lane, portfolio
from solvers.after_r import s_from_r, s_lower_from_r
from solvers.types import Question, Request, Status
from solvers.witness import refutes_rs


@settings(max_examples=60)
@given(topologies(max_n=7).filter(lambda g: g.n >= 2), st.integers(1, 4))
def test_what_the_r_answer_settles_is_the_definitions_s(t, r):
    r_res = exhaustive.solve(Request(t, Question.max_r()))
    expected = naive_max_s(t, r)
    assert s_lower_from_r(r, r_res) <= expected
    found = s_from_r(t.in_neighbors, r, r_res)
    if found is not None:
        assert found.status == Status.EXACT and found.value == expected
        w = found.witness
        assert refutes_rs(t.in_neighbors, w.s1, w.s2, r, found.value + 1)
    if r_res.upper < r:  # above r*: always settled, s*_r = 0
        assert found is not None and found.value == 0


@settings(max_examples=15)
@given(topologies(max_n=7).filter(lambda g: g.n >= 3))
def test_a_solve_told_r_robustness_skips_deciding_it_and_stays_exact(t):
    """With the subset DP's range moved to 1 node, the model path answers; told s*_R >= 1 at
    R = r* it starts from it and never runs the core search's r-robustness decision."""
    r = exhaustive.solve(Request(t, Question.max_r())).value
    if r < 1:
        return
    with patch.object(portfolio, "EXHAUSTIVE_S_N", 1):
        res = portfolio.solve(Request(t, Question.max_s(r), known_lower=1))
    assert res.status == Status.EXACT and res.value == naive_max_s(t, r)
    names = [s.get("step") for s in res.params["steps"]]
    assert "known-lower" in names and "cores-r-robust" not in names


@pytest.mark.skipif(not lane.available(), reason="needs ortools")
def test_robustness_rs_uses_the_r_answer(tmp_path):
    """``robustness --rs R``: above r* the r witness answers s* = 0 at once (step ``from-r``);
    at R = r* on a 30-node graph (above the s subset DP) the s solve starts from s* >= 1."""
    g = generators.erdos_renyi(30, 0.35, seed=3)
    path = tmp_path / "g.json"
    io.write(g, path)
    r_star = exhaustive_free_r(path)
    runner = CliRunner()
    above = json.loads(
        runner.invoke(main, ["robustness", str(path), "--json", "--rs", str(r_star + 1)]).output
    )
    assert above["s"]["value"] == 0 and above["s"]["status"] == "exact"
    assert [s["step"] for s in above["s"]["steps"]] == ["from-r"]
    at = json.loads(
        runner.invoke(main, ["robustness", str(path), "--json", "--rs", str(r_star)]).output
    )
    s = at["s"]
    assert s["status"] == "exact" and s["value"] >= 1
    names = [step.get("step") for step in s["steps"]]
    assert "known-lower" in names and "cores-r-robust" not in names
    read = io.read(path)
    w = [frozenset(map(read.index, s["witness"][k])) for k in ("s1", "s2")]
    assert refutes_rs(read.in_neighbors, w[0], w[1], r_star, s["value"] + 1)


def exhaustive_free_r(path) -> int:
    out = CliRunner().invoke(main, ["robustness", str(path), "--json"]).output
    r = json.loads(out)["r"]
    assert r["status"] == "exact"
    return r["value"]


def test_docstring_examples_run():
    import doctest

    import solvers.after_r

    result = doctest.testmod(solvers.after_r)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.skipif(not lane.available(), reason="needs ortools")
def test_the_published_s_slice_runs_one_worker_whatever_the_threads(monkeypatch):
    """The published (r, s) slice takes PUBLISHED_S_WORKERS (1) CP-SAT workers even with
    ``--threads 2`` (issue 40, round 2: two workers took 1.07 s where one took 0.6 s); since
    round 7 (``portfolio.BOTH_S_RULE``) two solves of one worker each, two configurations."""
    from solvers import cpsat
    from solvers.search import Progress

    seen = []
    real_run = cpsat.run

    def recorded(model, time_limit, threads, *args, **kwargs):
        seen.append((model.name, threads))
        return real_run(model, time_limit, threads, *args, **kwargs)

    monkeypatch.setattr(cpsat, "run", recorded)
    t = generators.erdos_renyi(12, 0.5, seed=3)
    r = exhaustive.solve(Request(t, Question.max_r())).value
    request = Request(t, Question.max_s(r), threads=2)
    p = Progress(request, "portfolio", "strong", "test")
    portfolio._published_s_slice(p)
    # the printed one starts only if least-first has not proven s* within BOTH_S_DELAY (round 9)
    assert set(seen) == {("published-s", portfolio.PUBLISHED_S_WORKERS)} and len(seen) <= 2
    assert portfolio.PUBLISHED_S_WORKERS == 1
    res = p.result()
    assert res.status == Status.EXACT and res.value == naive_max_s(t, r)
