"""Run a blocking native solve so that Ctrl-C (SIGINT) stops it and reaches the caller.

Python runs signal handlers only in the main thread, between bytecodes: while the main thread
sits inside a native ``solve`` call, a Ctrl-C waits until the solve returns, which without a time
limit can be hours. The solve therefore runs in a worker thread while the main thread waits in
short, interruptible joins; on ``KeyboardInterrupt`` the solver is told to stop, the worker is
joined and the interrupt is raised again, so the CLI reports it as one line with exit 130.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

__all__ = ["run_interruptibly"]

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
