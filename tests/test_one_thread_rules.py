"""Issue 40, round 3: the rules behind the one-worker losses of the idle run of seed 7101.

- A graph whose in-degrees all equal (``portfolio._in_regular``) gets its published slice
  while the upper bound is at most LANE_MAX_UPPER, the lane's own limit; any other graph
  while it is at most PUBLISHED_MAX_UPPER (``portfolio._published_max_upper``).
- ``robustness`` asks numpy's BLAS for one thread before numpy is imported (``solvers.blas``),
  a user's own setting winning.

Nothing here is timed: the slices are recorded, not run, and the quick bounds are replaced by
the degree witness so that the upper bound is known."""

from __future__ import annotations

import os
import subprocess
import sys

import networkx as nx
import pytest
from click.testing import CliRunner

from robustgraph import io
from robustgraph.cli import main
from robustgraph.generators import erdos_renyi, random_k_in
from robustgraph.topology import Topology
from solvers import blas, bounds, portfolio, search
from solvers.types import Question, Request


def _degree_only(p) -> bool:
    """The quick bounds cut to the degree witness: the upper bound is the least in-degree."""
    p.prove_lower(1)
    p.offer(bounds.degree_pair(p.request.graph.in_neighbors)[1])
    return p.settled()


def _slices_seen(monkeypatch, topology: Topology) -> list[int]:
    """The upper bounds at which ``_published_slices`` was called, with one thread."""
    seen: list[int] = []
    monkeypatch.setattr(
        portfolio,
        "_published_slices",
        lambda p, lane=None, sample=None, highs_first=True: seen.append(p.upper),
    )
    monkeypatch.setattr(portfolio, "CORES_MAX_N", 0)  # no core search
    monkeypatch.setattr(search, "quick_r", _degree_only)
    monkeypatch.setattr(search, "heuristic_r", lambda p: None)
    monkeypatch.setattr(search, "more_r", lambda p, heuristic=True: None)
    monkeypatch.setattr(search, "strong_r_loop", lambda p, run, search_first=False: None)
    portfolio.solve(Request(topology, Question.max_r(), time_limit=100.0, threads=1))
    return seen


@pytest.mark.parametrize(
    "topology",
    [
        random_k_in(60, 10, seed=7211),  # generate k-in: every node hears 10
        Topology.from_networkx(nx.random_regular_graph(10, 60, seed=7211)),
        Topology.from_networkx(nx.random_regular_graph(12, 40, seed=7212)),
    ],
    ids=["k-in-10", "10-regular", "12-regular"],
)
def test_a_graph_whose_in_degrees_all_equal_gets_its_slice_up_to_the_lane_limit(
    monkeypatch, topology
):
    upper = len(topology.in_neighbors[0])
    assert portfolio.PUBLISHED_MAX_UPPER < upper <= portfolio.LANE_MAX_UPPER
    assert (
        portfolio._published_max_upper(Request(topology, Question.max_r()))
        == portfolio.LANE_MAX_UPPER
    )
    assert _slices_seen(monkeypatch, topology) == [upper]  # the old rule skipped it


def test_any_other_graph_keeps_the_published_limit(monkeypatch):
    irregular = erdos_renyi(40, 0.5, seed=7213)
    assert portfolio._published_max_upper(Request(irregular, Question.max_r())) == 8
    least = min(map(len, irregular.in_neighbors))
    assert least > portfolio.PUBLISHED_MAX_UPPER
    assert _slices_seen(monkeypatch, irregular) == []  # skipped, as before
    above = Topology.from_networkx(nx.random_regular_graph(14, 40, seed=7214))
    assert _slices_seen(monkeypatch, above) == []  # above the lane's limit too


def test_the_command_asks_for_one_blas_thread_before_numpy_loads(tmp_path, monkeypatch):
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from robustgraph.cli import main; print('numpy' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert loaded.stdout.strip() == "False"  # so one_thread() in the command is in time
    path = tmp_path / "g.json"
    io.write(erdos_renyi(30, 0.3, seed=7215), path)
    monkeypatch.delenv(blas.VARIABLE, raising=False)
    done = CliRunner().invoke(main, ["robustness", str(path), "--json", "--threads", "1"])
    assert done.exit_code == 0, done.output
    assert os.environ[blas.VARIABLE] == "1"
    monkeypatch.setenv(blas.VARIABLE, "3")  # the user's setting wins
    done = CliRunner().invoke(main, ["robustness", str(path), "--json", "--threads", "1"])
    assert done.exit_code == 0 and os.environ[blas.VARIABLE] == "3"
