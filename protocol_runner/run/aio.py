"""How the runner's async work is hosted: uvloop's event loop where installed, a frozen heap.

A run makes thousands of small LLM calls, each a few hundred microseconds of Python on one
thread, so the per-call overhead of the event loop and of the garbage collector shows in the
wall time (``docs/performance.md``, "Runner throughput"):

- :func:`run` runs a coroutine on uvloop (a libuv loop; about 10% less CPU per call over
  HTTP), falling back to asyncio's own loop where uvloop is not installed (Windows);
- :func:`frozen_heap` moves every object alive before a run (imported modules, the graph,
  the simulator) out of the collector's sight for the run (:func:`gc.freeze`), so a full
  collection no longer walks them; about 15% less CPU per call. It also collects the youngest
  generation after 5,000 net allocations instead of 700: a call's short-lived objects (futures,
  requests, replies) mostly die before a collection sees them, which halves the collector's
  remaining share (7-8% of the runner's CPU at 64 calls in flight, 3-4% after) at pauses of
  about a millisecond.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

__all__ = ["frozen_heap", "loop_factory", "run"]

T = TypeVar("T")


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's loop constructor, or ``None`` (asyncio's default) when uvloop is missing."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def run(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)`` on the loop of :func:`loop_factory`.

    Examples
    --------
    >>> async def answer():
    ...     await asyncio.sleep(0)
    ...     return 42
    >>> run(answer())
    42
    """
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        return runner.run(main)


@contextmanager
def frozen_heap(*, young: int = 5000) -> Iterator[None]:
    """Freeze the objects alive on entry (:func:`gc.freeze`) and unfreeze them on exit; collect
    the youngest generation every ``young`` net allocations inside the block.

    Objects created inside the block are collected as usual (less often); the frozen ones are
    only skipped by the collector until the block ends, so nothing leaks. The collector's
    thresholds are restored on exit.

    Examples
    --------
    >>> import gc
    >>> with frozen_heap():
    ...     gc.get_freeze_count() > 0, gc.get_threshold()[0]
    (True, 5000)
    """
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(young, *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
