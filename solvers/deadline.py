"""One wall-clock deadline for a whole command or call, shared by every step in it.

DESIGN.md: a time limit is a deadline for the whole command or call, never per step. A caller
makes one :class:`Deadline` from the limit it was given and hands each solve what is left
(``Deadline.left``); a step that would start after the deadline is not started. A command of
the CLI counts its limit from the start of its process (:func:`process_start`), so interpreter
start-up and imports count too, and keeps :data:`EXIT_MARGIN` of it for what follows the last
solve (:meth:`Deadline.for_command`).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

__all__ = ["EXIT_MARGIN", "Deadline", "process_start"]

_LOADED = time.perf_counter()  # the fallback origin: this module is imported at the CLI's start

EXIT_MARGIN = 0.5
"""Seconds of a command's ``--time-limit`` kept back for what comes after the deadline: a
stopped solver's return (CP-SAT and HiGHS stop within 0.1-0.3 s on a loaded 2-core machine),
the report or certificate written, and the process exit (0.02-0.05 s with the CLI's fast exit,
:func:`robustgraph.cli.main.run`; interpreter teardown after OR-Tools took 1.0-1.2 s)."""


def _process_age() -> float | None:
    """Seconds since this process started, from ``/proc/self/stat`` (Linux), else None.

    Field 22 of ``/proc/self/stat`` is the start time in clock ticks after boot (proc(5)); the
    boot-time clock (``CLOCK_BOOTTIME``) counts from the same origin. Resolution: one tick
    (10 ms at the usual 100 ticks per second).
    """
    try:
        with open("/proc/self/stat", "rb") as stat:
            text = stat.read()
        ticks = int(text[text.rindex(b")") + 2 :].split()[19])  # fields after the (comm)
        now = time.clock_gettime(time.CLOCK_BOOTTIME)
        return max(0.0, now - ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def process_start() -> float:
    """The ``time.perf_counter`` reading at which this process started.

    From the kernel's record of the process start where there is one (Linux), so that a
    command's deadline covers the interpreter's start-up and every import; elsewhere the moment
    this module was first imported (early: the CLI's entry module imports it).

    Examples
    --------
    >>> process_start() <= time.perf_counter()
    True
    """
    age = _process_age()
    return _LOADED if age is None else min(_LOADED, time.perf_counter() - age)


@dataclass(frozen=True)
class Deadline:
    """The moment (``time.perf_counter``) by which the work must end, or None for no limit.

    Examples
    --------
    >>> Deadline.after(None).left() is None
    True
    >>> 0 < Deadline.after(5.0).left() <= 5.0
    True
    """

    at: float | None

    @classmethod
    def after(cls, seconds: float | None, *, since: float | None = None) -> Deadline:
        """The deadline ``seconds`` after ``since`` (a ``time.perf_counter`` reading; default
        now), or no limit when ``seconds`` is None."""
        if seconds is None:
            return cls(None)
        return cls((time.perf_counter() if since is None else since) + seconds)

    @classmethod
    def for_command(cls, seconds: float | None, *, since: float | None = None) -> Deadline:
        """A command's deadline: ``seconds`` after ``since`` (default :func:`process_start`),
        less :data:`EXIT_MARGIN` (or a tenth of ``seconds``, if less), so that the whole
        process, from interpreter start to exit, ends within ``seconds``.

        Examples
        --------
        >>> Deadline.for_command(20.0, since=100.0).at
        119.5
        >>> Deadline.for_command(1.0, since=100.0).at
        100.9
        """
        if seconds is None:
            return cls(None)
        start = process_start() if since is None else since
        return cls.after(seconds - min(EXIT_MARGIN, seconds / 10), since=start)

    def left(self) -> float | None:
        """Seconds left (at least 0), or None without a limit."""
        if self.at is None:
            return None
        return max(0.0, self.at - time.perf_counter())

    def passed(self) -> bool:
        """True once the deadline is reached."""
        return self.at is not None and time.perf_counter() >= self.at
