"""A solve for a core nobody else wants: run it in a thread at the lowest CPU priority.

Issue 40, round 6 (``portfolio.BESIDE_LANE_RULE``): with two threads, on a graph that skips the
core search, the first core runs a second configuration of the published model beside the
lane. On an idle second core that takes the smaller of the two configurations' times; on a busy
machine (scratch runs at load 3-3.5 on two cores, docs/performance.md) the second solve took
CPU from the lane, which would have proven r* alone, and the command got slower (random
10-regular, n = 60, seed 7315: 6.44 s against 3.35 s waiting idle). At nice 19 (Linux's
scheduler gives a nice-19 thread about 1.5% of a core that a nice-0 one also wants) it took
less, but still 0.26-0.64 CPU s from the lane at load 2-3.7, so the portfolio starts it only
after a free core was measured (:class:`CpuSample`); the nice value is kept for a machine that
gets busy after that.

On Linux a nice value belongs to a thread, and the threads it starts (CP-SAT's) inherit it, so
the caller's own thread keeps its priority; elsewhere the call runs at normal priority.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Iterable
from typing import TypeVar

from solvers.interrupt import StopSignal, in_thread

__all__ = ["IDLE_NICE", "CpuSample", "lower_priority", "run_idle"]

T = TypeVar("T")

IDLE_NICE = 19
"""The nice value of the thread :func:`run_idle` runs its call in: the lowest priority."""


class CpuSample:
    """The machine's CPU counters now (Linux's ``/proc/stat``) and those of this process and of
    ``pids`` (``/proc/PID/stat``); :meth:`others_busy` then says how many cores other processes
    kept busy, on average, since.

    Issue 40, round 6: a second solve beside the lane helps only on a free core; at nice 19 it
    still took 0.26-0.64 CPU s from a busy machine's lane (scratch, load 2.2-3.7: the command
    4-34% slower on the 5 hard rows both versions settled), so it starts only when the machine
    had a core to spare (``portfolio.BESIDE_LANE_BUSY``). Round 8: this process and its lane's
    child are subtracted, so the window may be one in which they work (the quick bounds, the
    child's start-up) instead of a second of waiting.

    Parameters
    ----------
    pids : iterable of int
        Other processes of ours (the lane's child) whose CPU time is not the others'.

    Examples
    --------
    >>> sample = CpuSample()
    >>> busy = sample.others_busy()
    >>> busy is None or 0.0 <= busy <= (os.cpu_count() or 1)
    True
    """

    PATH = "/proc/stat"
    OWN = "/proc/{}/stat"

    def __init__(self, pids: Iterable[int] = ()) -> None:
        self.pids = ("self", *pids)
        self.start = self._read()

    def _read(self) -> tuple[int, int, int] | None:
        """(busy, total) jiffies of all CPUs and our processes' jiffies, or None where there
        is no ``/proc/stat``. A process that has ended (or cannot be read) counts 0 from then
        on, so its CPU time is counted as the others': never more free cores than there were."""
        try:
            with open(self.PATH) as f:
                fields = f.readline().split()
        except OSError:
            return None
        if len(fields) < 6 or fields[0] != "cpu":
            return None
        ticks = [int(x) for x in fields[1:9]]  # user .. steal (guest is inside user)
        total = sum(ticks)
        return total - ticks[3] - ticks[4], total, sum(map(self._own, self.pids))

    def _own(self, pid: int | str) -> int:
        """User and system jiffies of one process (all its threads), 0 if unreadable."""
        try:
            with open(self.OWN.format(pid)) as f:
                text = f.read()
        except OSError:
            return 0
        fields = text[text.rfind(")") + 2 :].split()  # after "pid (comm) "
        return int(fields[11]) + int(fields[12]) if len(fields) > 12 else 0

    def others_busy(self) -> float | None:
        """Cores kept busy by processes other than ours, on average, since this sample was
        taken (never below 0); None when unknown."""
        end = self._read()
        if self.start is None or end is None or end[1] <= self.start[1]:
            return None
        busy = (end[0] - self.start[0]) - (end[2] - self.start[2])
        return max(0.0, busy / (end[1] - self.start[1]) * (os.cpu_count() or 1))


def lower_priority() -> bool:
    """Give the calling thread (and the threads it starts from now on) nice :data:`IDLE_NICE`.

    Returns
    -------
    bool
        True on Linux, where a nice value is per thread; False elsewhere (nothing changed, since
        the whole process would be lowered) or when the system refused.
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), IDLE_NICE)
    except OSError:
        return False
    return True


def run_idle(call: Callable[[StopSignal], T], ended: Callable[[], bool]) -> T:
    """Return ``call(stop)``, run in a new thread at the lowest priority (:func:`lower_priority`).

    Parameters
    ----------
    call : callable
        The solve; it watches the :class:`StopSignal` it is given (``cpsat.run(..., stop=...)``).
    ended : callable
        Polled every 0.05 s while ``call`` runs; once true (another core has the answer) the
        stop is raised, and resent until ``call`` returns.

    Returns
    -------
    Whatever ``call`` returns; an exception it raises is raised here.

    Raises
    ------
    KeyboardInterrupt
        Ctrl-C arrived while ``call`` ran: the stop is raised, ``call`` is waited for, and the
        interrupt is raised again (``interrupt.in_thread``).

    Examples
    --------
    >>> run_idle(lambda stop: 6 * 7, lambda: False)
    42
    """
    stop = StopSignal()

    def tick() -> None:
        if ended():
            stop.set()  # set() resends to every registered stop function

    return in_thread(
        lambda: call(stop), stop.set, name="idle-solve", setup=lower_priority, tick=tick
    )
