"""Stop a blocking native solve from outside: Ctrl-C, or another thread (a race, solvers.race).

Python runs signal handlers only in the main thread, between bytecodes: while the main thread
sits inside a native ``solve`` call, a Ctrl-C waits until the solve returns, which without a time
limit can be hours. The solve therefore runs in a worker thread while the main thread waits in
short, interruptible joins; on ``KeyboardInterrupt`` the solver is told to stop, the worker is
joined and the interrupt is raised again, so the CLI reports it as one line with exit 130.

A :class:`StopSignal` is the other way in: a thread that no longer needs a running solve (a race
was won elsewhere) raises it, and every stop function the solve registered is called.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

__all__ = ["run_interruptibly", "StopSignal", "watching"]

T = TypeVar("T")


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
    box: dict[str, object] = {}
    done = threading.Event()

    def work() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # handed to the caller's thread below
            box["error"] = exc
        finally:
            done.set()

    worker = threading.Thread(target=work, name="solve", daemon=True)
    worker.start()
    try:
        while not done.wait(0.1):  # not Thread.join: on 3.11 an interrupted join marks the
            pass  # thread stopped while it runs, and the native solve outlives the interpreter
    except KeyboardInterrupt:
        stop()
        done.wait()
        worker.join()
        raise
    worker.join()
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["value"]  # type: ignore[return-value]


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
