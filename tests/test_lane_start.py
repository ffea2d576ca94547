"""Issue 40, round 7: the published models' in-Laplacian rows without numpy
(``milp_model.laplacian_row``), so that the lane's child process (``solvers.lane``) starts
without importing numpy (its start-up CPU 0.19 -> 0.11 s, docs/performance.md). Nothing here
is timed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import topologies
from hypothesis import given

from solvers.arrays import in_laplacian
from solvers.milp_model import laplacian_row

ROOT = Path(__file__).resolve().parent.parent


@given(topologies(max_n=9))
def test_laplacian_rows_are_the_in_laplacians(t):
    lap = in_laplacian(t.in_neighbors)
    for i in range(t.n):
        expected = [(j, int(lap[i, j])) for j in range(t.n) if lap[i, j] != 0]
        assert laplacian_row(t.in_neighbors, i) == expected


def test_a_self_loop_counts_as_the_matrix_does():
    heard = [frozenset({0, 1}), frozenset({0})]
    lap = in_laplacian(heard)
    assert laplacian_row(heard, 0) == [(j, int(lap[0, j])) for j in range(2) if lap[0, j] != 0]


def test_the_lanes_child_builds_and_solves_without_numpy():
    pytest.importorskip("ortools")
    code = (
        "import sys, solvers.lane as lane\n"
        "from solvers import cpsat\n"
        "cpsat.load()\n"
        "out = lane.solve_payload({'in_neighbors': [[1, 2], [0, 2], [0, 1]], 'time_limit': 10,"
        " 'seed': 0, 'upper': 2, 'hint': None, 'least': True})\n"
        "print(out['status'], round(out['bound']), 'numpy' in sys.modules)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["optimal", "2", "False"]  # K_3: r* = 2
