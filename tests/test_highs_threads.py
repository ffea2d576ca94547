"""HiGHS's worker threads are stopped and joined before ``solvers.highs.run`` returns
(``highs._run_and_release``): a process that exits right after a solve (Ctrl-C) never tears down
while they still run. Counted in the thread that solved, from /proc (Linux), so the count does
not depend on when another thread's exit is seen: nothing here is timed."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from robustgraph.generators import erdos_renyi
from solvers import highs, milp_model

pytestmark = pytest.mark.skipif(
    not (highs.available() and Path("/proc/self/task").is_dir()),
    reason="needs highspy and Linux's /proc",
)


def _threads() -> int:
    return len(os.listdir("/proc/self/task"))


def test_a_two_thread_solve_leaves_no_highs_worker_running():
    t = erdos_renyi(16, 0.5, seed=1)
    model = milp_model.published_r(t.in_neighbors)
    seen = {}

    def solve() -> None:  # outside the main thread, highs.run solves in this very thread
        seen["before"] = _threads()
        seen["outcome"] = highs.run(model, 2.0, 2)
        seen["after"] = _threads()

    worker = threading.Thread(target=solve, name="highs-test")
    worker.start()
    worker.join()
    assert seen["outcome"].status in {"optimal", "feasible", "unknown"}
    assert seen["after"] == seen["before"]
