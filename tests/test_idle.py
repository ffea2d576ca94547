"""``solvers.idle``: a call run in a thread of the lowest priority, stopped when the caller says
another core has the answer, its errors and Ctrl-C handed back. No timing decides a pass."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from solvers import idle
from solvers.interrupt import StopSignal


def _nice() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice: Linux")
def test_the_call_runs_at_the_lowest_priority_and_the_caller_keeps_its_own():
    before = _nice()
    seen = idle.run_idle(lambda stop: _nice(), lambda: False)
    assert seen == idle.IDLE_NICE and _nice() == before


def test_the_call_is_stopped_once_ended_turns_true():
    """The call blocks until its stop is raised (its registered stop function called), as a
    CP-SAT solve does; ``ended`` turns true on its third poll."""
    polls = []

    def ended() -> bool:
        polls.append(None)
        return len(polls) >= 3

    def call(stop: StopSignal) -> str:
        stopped = threading.Event()
        with stop.watch(stopped.set):
            stopped.wait()
        return "stopped"

    assert idle.run_idle(call, ended) == "stopped"
    assert len(polls) >= 3


def test_an_error_of_the_call_is_raised_in_the_caller():
    def call(stop: StopSignal) -> None:
        raise ValueError("solver broke")

    with pytest.raises(ValueError, match="solver broke"):
        idle.run_idle(call, lambda: False)


def test_free_cores_reads_the_idle_share_of_the_cpu_counters(tmp_path, monkeypatch):
    """``/proc/stat``'s first line before and after: 300 of 400 new jiffies idle or iowait on
    a machine of 2 cores is 1.5 free cores; an unreadable file says nothing."""
    stat = tmp_path / "stat"
    stat.write_text("cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 1 2 3\n")
    monkeypatch.setattr(idle.CpuSample, "PATH", str(stat))
    monkeypatch.setattr(idle.os, "cpu_count", lambda: 2)
    sample = idle.CpuSample()
    stat.write_text("cpu  150 0 100 1050 100 0 0 0 0 0\n")
    assert sample.free_cores() == pytest.approx(1.5)
    monkeypatch.setattr(idle.CpuSample, "PATH", str(tmp_path / "missing"))
    assert idle.CpuSample().free_cores() is None
