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


def _proc_stat(pid: int, utime: int, stime: int) -> str:
    """A ``/proc/PID/stat`` line (its command name with a space and a parenthesis in it)."""
    rest = ["S", "1", "1", "1", "0", "-1", "0", "0", "0", "0", "0", str(utime), str(stime)]
    return f"{pid} (a b) c) " + " ".join(rest + ["0"] * 30) + "\n"


def test_others_busy_is_the_busy_share_less_our_own_processes(tmp_path, monkeypatch):
    """``/proc/stat``'s first line before and after: 100 of 400 new jiffies busy on a machine
    of 2 cores is 0.5 cores busy; of those, this process used 30 and its child 50, so other
    processes kept 0.1 cores busy. A child that has ended counts as another process (never more
    free cores than there were); an unreadable ``/proc/stat`` says nothing."""
    stat = tmp_path / "stat"
    me, child = tmp_path / "self", tmp_path / "77"
    stat.write_text("cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 1 2 3\n")
    me.write_text(_proc_stat(1, 10, 5))
    child.write_text(_proc_stat(77, 0, 0))
    monkeypatch.setattr(idle.CpuSample, "PATH", str(stat))
    monkeypatch.setattr(idle.CpuSample, "OWN", str(tmp_path / "{}"))
    monkeypatch.setattr(idle.os, "cpu_count", lambda: 2)
    sample = idle.CpuSample((77,))
    stat.write_text("cpu  150 0 100 1050 100 0 0 0 0 0\n")
    me.write_text(_proc_stat(1, 30, 15))
    child.write_text(_proc_stat(77, 40, 10))
    assert sample.others_busy() == pytest.approx(0.1)
    child.unlink()
    assert sample.others_busy() == pytest.approx(0.35)
    monkeypatch.setattr(idle.CpuSample, "PATH", str(tmp_path / "missing"))
    assert idle.CpuSample().others_busy() is None


def test_others_busy_on_this_machine_is_a_share_of_its_cores():
    busy = idle.CpuSample((os.getpid(),)).others_busy()
    assert busy is None or 0.0 <= busy <= (os.cpu_count() or 1)
