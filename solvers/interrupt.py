"""Stop a blocking native solve from outside: Ctrl-C, or another thread (a race, solvers.race).

Python runs signal handlers only in the main thread, between bytecodes: while the main thread
sits inside a native ``solve`` call, a Ctrl-C waits until the solve returns, which without a time
limit can be hours. The solve therefore runs in a worker thread while the main thread waits in
short, interruptible joins; on ``KeyboardInterrupt`` the solver is told to stop, the worker is
joined and the interrupt is raised again, so the CLI reports it as one line with exit 130.

A :class:`StopSignal` is the other way in: a thread that no longer needs a running solve (a race
was won elsewhere) raises it, and every stop function the solve registered is called.

A solver that runs as a separate program (CBC behind PuLP) is not stopped by a SIGINT sent to
the Python process alone (``kill -INT <pid>``; a terminal's Ctrl-C reaches the whole process
group): :class:`ChildProcess` runs it so that its stop function forwards the interrupt to the
program, and kills it if it does not exit in time, so no solver process outlives its call.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TypeVar

__all__ = ["run_interruptibly", "in_thread", "StopSignal", "watching", "ChildProcess", "STOP_GRACE"]

T = TypeVar("T")

STOP_GRACE = 2.0
"""Seconds a stopped solver program has to write what it found and exit before it is killed
(CBC took 0.2-0.7 s after SIGINT on ER(40, 1/2), published model, one thread)."""

_POLL = 0.05
"""Seconds between checks of a running program (stop requested, grace over) and between
resent stops while a stopped call winds down."""


def run_interruptibly(call: Callable[[], T], stop: Callable[[], None]) -> T:
    """Return ``call()``; on Ctrl-C call ``stop()``, wait for ``call`` to return, re-raise.

    Parameters
    ----------
    call : callable
        The blocking solve, e.g. ``lambda: solver.solve(model)``.
    stop : callable
        Asks the running ``call`` to return soon, from another thread (CP-SAT's
        ``CpSolver.stop_search``).

    Returns
    -------
    Whatever ``call`` returns; an exception it raises is raised here.

    Raises
    ------
    KeyboardInterrupt
        Ctrl-C arrived while ``call`` ran (after ``call`` has stopped).

    Notes
    -----
    Outside the main thread (a worker of an executor) signals never arrive, so ``call`` runs
    directly.

    Examples
    --------
    >>> run_interruptibly(lambda: 6 * 7, lambda: None)
    42
    """
    if threading.current_thread() is not threading.main_thread():
        return call()
    return in_thread(call, stop)


def in_thread(
    call: Callable[[], T],
    stop: Callable[[], None],
    *,
    name: str = "solve",
    setup: Callable[[], object] | None = None,
    tick: Callable[[], None] | None = None,
) -> T:
    """Return ``call()``, run in a new thread while this one waits in short waits; on Ctrl-C
    call ``stop()``, wait for ``call`` to return, re-raise (:func:`run_interruptibly`).

    ``setup``, if given, runs first in the new thread (``solvers.idle``: its priority);
    ``tick``, if given, runs in this thread every :data:`_POLL` seconds while ``call`` runs.

    Examples
    --------
    >>> in_thread(lambda: 6 * 7, lambda: None, name="example")
    42
    """
    box: dict[str, object] = {}
    done = threading.Event()

    def work() -> None:
        try:
            if setup is not None:
                setup()
            box["value"] = call()
        except BaseException as exc:  # handed to the caller's thread below
            box["error"] = exc
        finally:
            done.set()

    worker = threading.Thread(target=work, name=name, daemon=True)
    worker.start()
    try:
        while not done.wait(_POLL):  # not Thread.join: on 3.11 an interrupted join marks the
            if tick is not None:  # thread stopped while it runs, and the native solve
                tick()  # outlives the interpreter
    except KeyboardInterrupt:
        stop()
        _wait_stopped(done, stop)
        worker.join()
        raise
    worker.join()
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["value"]  # type: ignore[return-value]


def _wait_stopped(done: threading.Event, stop: Callable[[], None]) -> None:
    """Wait until a stopped call has returned, resending ``stop`` (a stop that arrives before
    the solver has started can be lost); a further Ctrl-C does not cut the wait short."""
    while True:
        try:
            while not done.wait(_POLL):
                stop()
            return
        except KeyboardInterrupt:
            stop()


class StopSignal:
    """A one-way flag that asks a running solve, from another thread, to return soon.

    A solve registers its native stop function (CP-SAT's ``CpSolver.stop_search``, HiGHS's
    ``cancelSolve``) with :meth:`watch` for as long as it runs; :meth:`set` raises the flag and
    calls every registered function. A native stop that arrives before the solver has started
    can be lost (CP-SAT creates its stop target inside ``solve``), so whoever waits for the solve
    calls :meth:`poke` until it has returned: it calls the functions again once the flag is up.

    Examples
    --------
    >>> signal = StopSignal()
    >>> seen = []
    >>> with signal.watch(lambda: seen.append("stop")):
    ...     signal.set()
    >>> signal.is_set(), seen
    (True, ['stop'])
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._event = threading.Event()
        self._stops: list[Callable[[], None]] = []

    def is_set(self) -> bool:
        """True once :meth:`set` was called."""
        return self._event.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the flag is up or ``timeout`` seconds passed; returns the flag."""
        return self._event.wait(timeout)

    def set(self) -> None:
        """Raise the flag and call every registered stop function."""
        self._event.set()
        self.poke()

    def poke(self) -> None:
        """Call the registered stop functions again if the flag is up (a lost stop is resent)."""
        if not self._event.is_set():
            return
        with self._lock:
            stops = list(self._stops)
        for stop in stops:
            stop()

    @contextmanager
    def watch(self, stop: Callable[[], None]) -> Iterator[None]:
        """Register ``stop`` while the block runs (called at once if the flag is already up)."""
        with self._lock:
            self._stops.append(stop)
        try:
            self.poke()
            yield
        finally:
            with self._lock:
                self._stops.remove(stop)


@contextmanager
def watching(signal: StopSignal | None, stop: Callable[[], None]) -> Iterator[None]:
    """``signal.watch(stop)``, or nothing when there is no signal (a solve nobody races)."""
    if signal is None:
        yield
        return
    with signal.watch(stop):
        yield


class ChildProcess:
    """A solver program run as a child process that another thread, or Ctrl-C, can stop.

    :meth:`run` starts the program, its stdout and stderr going to ``output``, and waits for it.
    :meth:`stop` interrupts it as a Ctrl-C at its own terminal would (SIGINT; on Windows, where
    no such signal can be sent, it is terminated): CBC then ends its search and writes its
    incumbent and status as on a time limit. A program still running ``grace`` seconds after
    the stop is killed. :meth:`run` never returns or raises while the program runs.

    Parameters
    ----------
    args : sequence of str
        The command line, program first.
    output : str or path
        File for the program's stdout and stderr (its log).
    grace : float
        Seconds between the stop and the kill.

    Examples
    --------
    >>> import os, sys, tempfile
    >>> log = os.path.join(tempfile.mkdtemp(), "log")
    >>> ChildProcess([sys.executable, "-c", "print(42)"], output=log).run()
    0
    >>> open(log).read()
    '42\\n'
    >>> child = ChildProcess([sys.executable, "-c", "import time; time.sleep(60)"], output=log)
    >>> child.stop()  # before it started: it never starts
    >>> child.run() is None, child.stopped
    (True, True)
    """

    def __init__(
        self, args: Sequence[str], *, output: str | os.PathLike[str], grace: float = STOP_GRACE
    ) -> None:
        self.args = [str(a) for a in args]
        self.output = output
        self.grace = grace
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._stopped_at: float | None = None

    @property
    def stopped(self) -> bool:
        """True once :meth:`stop` was called."""
        return self._stopped_at is not None

    def run(self) -> int | None:
        """Run the program to its end; its exit code (negative: killed by that signal), or None
        when :meth:`stop` came before it started (it is then never started).

        Raises
        ------
        OSError
            The program cannot be started.
        """
        with self._lock:
            if self._stopped_at is not None:
                return None
            with open(self.output, "wb") as out:
                proc = subprocess.Popen(
                    self.args, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
                )
            self._proc = proc
        try:
            while True:
                try:
                    return proc.wait(timeout=_POLL)
                except subprocess.TimeoutExpired:
                    stopped_at = self._stopped_at
                    if stopped_at is not None and time.monotonic() - stopped_at > self.grace:
                        proc.kill()
        finally:
            if proc.poll() is None:  # an exception (KeyboardInterrupt in the main thread)
                proc.kill()
                proc.wait()

    def stop(self) -> None:
        """Interrupt the program (once; later calls do nothing), or keep it from starting."""
        with self._lock:
            if self._stopped_at is not None:
                return
            self._stopped_at = time.monotonic()
            proc = self._proc
        if proc is not None and proc.poll() is None:
            if os.name == "nt":
                proc.terminate()
            else:
                proc.send_signal(signal.SIGINT)
