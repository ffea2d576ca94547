"""Run many independent tasks on a local process pool or on a Ray cluster, one outcome per task.

A batch of :class:`Task` values (a module-level function and its picklable arguments, under a
stable key) goes to an :class:`Executor`; every task ends as an :class:`Outcome`, a value or a
one-line error, and one task's failure never stops the others. Outcomes come back in task order
whatever the order of completion, so the same batch gives the same list on every executor.
Progress over the whole batch is drawn on stderr.

Two executors:

- ``local`` (the default): a :class:`concurrent.futures.ProcessPoolExecutor` of ``spawn``-ed
  workers on this machine; needs nothing beyond the package.
- ``ray``: one Ray task per :class:`Task` on a Ray cluster (``pip install
  'robustgraph[distributed]'``). It connects to ``address``, else to ``RAY_ADDRESS``, else to the
  latest instance ``ray start`` left on this machine, else starts a local instance for the
  batch. Connecting to an address gives up after ``connect_timeout`` seconds (30 by default, or
  ``ROBUSTGRAPH_RAY_CONNECT_TIMEOUT``) instead of Ray's minutes of retries.
  ``docs/scale-out.md`` tells how to start a cluster.

One module: the local pool and Ray executors implement one interface with one progress display
and one error form; apart, each would need the other's outcome rules.
"""

from __future__ import annotations

import importlib
import logging
import math
import multiprocessing
import os
import socket
import threading
import time
import traceback
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from types import ModuleType, TracebackType
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from robustgraph.errors import ParameterError, RobustgraphError

__all__ = [
    "EXECUTORS",
    "WATCHDOG_INTERVAL_S",
    "MANAGER_JOIN_S",
    "CONNECT_TIMEOUT_ENV",
    "DEFAULT_CONNECT_TIMEOUT_S",
    "DISTRIBUTED_HINT",
    "ExecutorUnavailable",
    "Task",
    "Outcome",
    "Executor",
    "LocalExecutor",
    "RayExecutor",
    "make_executor",
    "ray_connect_timeout",
    "run_task",
]

EXECUTORS = ("local", "ray")
DISTRIBUTED_HINT = "pip install 'robustgraph[distributed]'"
CONNECT_TIMEOUT_ENV = "ROBUSTGRAPH_RAY_CONNECT_TIMEOUT"
DEFAULT_CONNECT_TIMEOUT_S = 30.0


class ExecutorUnavailable(RobustgraphError):
    """An executor cannot run here: Ray is not installed, or its cluster cannot be reached."""


@dataclass(frozen=True)
class Task:
    """One unit of work: ``function(*args)`` under a key unique in its batch.

    ``function`` must be importable by name (a module-level function), and ``args`` picklable:
    both travel to another process or another machine.
    """

    key: str
    function: Callable[..., Any]
    args: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Outcome:
    """How a task ended: its ``value``, or ``error`` (one line) and ``detail`` (the traceback).

    ``seconds`` is the wall time of the call where it ran (0 when the task never ran, e.g. its
    worker process died).
    """

    key: str
    value: Any = None
    error: str | None = None
    detail: str | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.error is None


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _error_text(exc: BaseException) -> str:
    message = _one_line(str(exc))
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def run_task(task: Task) -> Outcome:
    """Call ``task.function(*task.args)`` and turn any exception into a failed :class:`Outcome`.

    This is what every executor runs in its workers, so a failure looks the same everywhere.

    Examples
    --------
    >>> run_task(Task("ok", abs, (-2,))).value
    2
    >>> run_task(Task("bad", int, ("x",))).error
    "ValueError: invalid literal for int() with base 10: 'x'"
    """
    start = time.perf_counter()
    try:
        value = task.function(*task.args)
    except Exception as exc:  # noqa: BLE001 - every task failure is reported, never raised
        return Outcome(
            task.key,
            error=_error_text(exc),
            detail=traceback.format_exc(),
            seconds=time.perf_counter() - start,
        )
    return Outcome(task.key, value=value, seconds=time.perf_counter() - start)


class _Display:
    """One rich progress bar on stderr over a whole batch, plus one line per failed task."""

    def __init__(self, label: str, total: int, enabled: bool) -> None:
        self._console = Console(stderr=True)
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("failed {task.fields[failed]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=self._console,
            disable=not enabled,
            transient=False,
        )
        self._label = label
        self._failed = 0
        self._id = self._progress.add_task(label, total=total, failed=0)
        self._enabled = enabled

    def __enter__(self) -> _Display:
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    def update(self, outcome: Outcome) -> None:
        if not outcome.ok:
            self._failed += 1
            if self._enabled:
                self._progress.console.print(
                    f"robustgraph: {self._label}: {outcome.key} failed: {outcome.error}",
                    markup=False,
                    highlight=False,
                    soft_wrap=True,
                )
        self._progress.update(self._id, advance=1, failed=self._failed)


class Executor(ABC):
    """Runs a batch of tasks, each to an :class:`Outcome`; use it as a context manager.

    Subclasses implement :meth:`_stream` (yield outcomes as tasks finish) and :meth:`close`.
    """

    name: str = ""

    def run(
        self,
        tasks: Sequence[Task],
        *,
        label: str = "tasks",
        progress: bool = True,
        on_outcome: Callable[[Outcome], None] | None = None,
    ) -> list[Outcome]:
        """Run every task; return their outcomes in the order of ``tasks``.

        Parameters
        ----------
        tasks : sequence of Task
            Keys must be unique.
        label : str
            Names the batch in the progress bar and in failure lines on stderr.
        progress : bool
            Draw the progress bar (stderr).
        on_outcome : callable, optional
            Called in this process with each outcome as soon as its task ends (e.g. to write
            a status file), in completion order.

        Raises
        ------
        ParameterError
            Two tasks share a key.

        Examples
        --------
        >>> with LocalExecutor(workers=1) as ex:
        ...     [o.value for o in ex.run([Task("a", abs, (-1,))], progress=False)]
        [1]
        """
        keys = [task.key for task in tasks]
        if len(set(keys)) != len(keys):
            repeated = sorted({k for k in keys if keys.count(k) > 1})
            raise ParameterError(f"task keys must be unique; repeated: {', '.join(repeated)}")
        done: dict[str, Outcome] = {}
        if tasks:
            with _Display(label, len(tasks), progress) as display:
                for outcome in self._stream(list(tasks)):
                    done[outcome.key] = outcome
                    display.update(outcome)
                    if on_outcome is not None:
                        on_outcome(outcome)
        return [done[key] for key in keys]

    @abstractmethod
    def _stream(self, tasks: list[Task]) -> Iterator[Outcome]:
        """Yield one outcome per task, in any order, as the tasks finish."""

    @abstractmethod
    def close(self) -> None:
        """Release workers or the cluster connection this executor opened."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


WATCHDOG_INTERVAL_S = 0.5
"""How often a pool worker checks that the process that started it is still alive."""


_watched_parent: int | None = None


def _run_watched(parent: int, task: Task) -> Outcome:
    """:func:`run_task` in a pool worker that first makes sure it ends with its parent: the
    first call starts a daemon thread that ends this worker (``os._exit``) as soon as process
    ``parent`` is gone.

    A worker waits for tasks on a pipe it holds both ends of, so when the parent is killed
    (``kill -9``, the OOM killer) nothing wakes it: the workers and, through them, the
    ``multiprocessing`` resource tracker lived on for minutes. The parent's death shows as a new
    parent id (the orphan is adopted by init or a subreaper); polling ``os.getppid`` works on
    every platform, unlike Linux's ``PR_SET_PDEATHSIG``, which also fires when the *thread*
    that started the worker ends. The tracker exits by itself once the workers, which hold its
    pipe, are gone. The watch starts with the first task rather than in a pool initializer: an
    initializer is unpickled, importing this module, while the worker starts up, which widened
    the window in which a Ctrl-C to the process group printed a worker's traceback.
    """
    global _watched_parent
    if _watched_parent is None:
        _watched_parent = parent

        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(WATCHDOG_INTERVAL_S)
            os._exit(1)

        threading.Thread(target=watch, name="robustgraph-parent-watchdog", daemon=True).start()
    return run_task(task)


MANAGER_JOIN_S = 5.0
"""Seconds :func:`_stop_workers` waits for the pool's manager thread to end."""


def _stop_workers(pool: ProcessPoolExecutor) -> None:
    """Terminate ``pool``'s worker processes at once (Ctrl-C while tasks run), shut the pool
    down, and wait (at most :data:`MANAGER_JOIN_S`) for its manager thread to end.

    ``shutdown(wait=False)`` alone leaves the workers to finish their tasks, and the exit
    handlers of ``concurrent.futures`` and ``multiprocessing`` then join them: a second Ctrl-C
    in that join (a terminal's, or ``timeout -s INT``, which signals the process and its group)
    left the pool's manager thread and its idle workers waiting on each other for ever. The
    manager thread is joined here because, left running, it made the exit take the
    interpreter's ordinary path (``cli.main.exit_now``), whose ``concurrent.futures`` exit hook
    can write to the wake-up pipe the ending thread has just closed (Python 3.11: "Exception
    ignored ... OSError: [Errno 9] Bad file descriptor" after "interrupted", 2 of 6 runs of
    tests/test_cli_bad_input_audit.py's double Ctrl-C on a loaded machine).
    """
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.terminate()
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    if manager is not None:
        manager.join(MANAGER_JOIN_S)


class LocalExecutor(Executor):
    """A pool of ``workers`` processes on this machine (default: one per CPU).

    Workers are started with ``spawn`` (safe next to the threads of the caller, and the same on
    every platform). At most ``workers`` tasks are in flight at once, so when a worker process
    dies (a crash in native code, the OOM killer), only those tasks are suspects: each is
    re-run alone in a fresh pool, the one that kills its worker again is reported as failed, the
    others complete, and the tasks not yet started go on in a fresh pool. A worker that has
    received a task exits within :data:`WATCHDOG_INTERVAL_S` seconds of the death of this
    process, however it died (``kill -9`` included).

    Notes
    -----
    Time is that of the slowest worker's share; a worker death costs one re-run of each task in
    flight at that moment.
    """

    name = "local"

    def __init__(self, workers: int | None = None) -> None:
        if workers is not None and workers < 1:
            raise ParameterError(f"workers must be >= 1, got {workers}")
        self.workers = workers or os.cpu_count() or 1
        self._context = multiprocessing.get_context("spawn")

    def _pool(self, size: int) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=size, mp_context=self._context)

    def _stream(self, tasks: list[Task]) -> Iterator[Outcome]:
        queue = deque(tasks)
        while queue:
            suspects: list[Task] = []
            yield from self._window(queue, suspects)
            for task in suspects:
                yield self._alone(task)

    def _window(self, queue: deque[Task], suspects: list[Task]) -> Iterator[Outcome]:
        """Run ``queue`` with ``workers`` tasks in flight until it is empty or a worker dies."""
        pool = self._pool(min(self.workers, len(queue)))
        running: dict[Future[Outcome], Task] = {}
        drained = False
        try:
            while queue or running:
                while queue and len(running) < self.workers:
                    task = queue.popleft()
                    running[pool.submit(_run_watched, os.getpid(), task)] = task
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in finished:
                    task = running.pop(future)
                    try:
                        yield future.result()
                    except BrokenProcessPool:
                        suspects.append(task)
                if suspects:
                    suspects.extend(running.values())
                    running.clear()
                    return
            drained = True
        except KeyboardInterrupt:
            _stop_workers(pool)
            raise
        finally:
            pool.shutdown(wait=drained, cancel_futures=True)

    def close(self) -> None:
        """Nothing to release: each batch's pools are shut down when the batch ends."""

    def _alone(self, task: Task) -> Outcome:
        pool = self._pool(1)
        try:
            return pool.submit(_run_watched, os.getpid(), task).result()
        except BrokenProcessPool:
            return Outcome(task.key, error="the worker process running this task died")
        except KeyboardInterrupt:
            _stop_workers(pool)
            raise
        finally:
            pool.shutdown(wait=False, cancel_futures=True)


def _import_ray() -> ModuleType:
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise ExecutorUnavailable(
            f"the ray executor needs Ray, which is not installed: {DISTRIBUTED_HINT}"
        ) from None


def ray_connect_timeout(seconds: float | None = None) -> float:
    """Seconds the ray executor waits for a cluster: ``seconds``, else the environment variable
    ``ROBUSTGRAPH_RAY_CONNECT_TIMEOUT``, else :data:`DEFAULT_CONNECT_TIMEOUT_S` (30).

    Examples
    --------
    >>> ray_connect_timeout(5)
    5.0

    Raises
    ------
    ParameterError
        Not a positive finite number of seconds.
    """
    source = "connect timeout"
    value: float | str | None = seconds
    if value is None:
        value = os.environ.get(CONNECT_TIMEOUT_ENV)
        source = CONNECT_TIMEOUT_ENV
        if value is None:
            return DEFAULT_CONNECT_TIMEOUT_S
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not (math.isfinite(number) and number > 0):
        raise ParameterError(f"{source} must be a positive number of seconds, got {value!r}")
    return number


def _endpoint(address: str) -> tuple[str, int] | None:
    """Host and port to probe for a Ray address (``HOST:PORT`` or ``ray://HOST:PORT``); ``None``
    for ``auto`` and ``local``, which Ray resolves itself."""
    target = address.split("://", 1)[1] if "://" in address else address
    if target in ("auto", "local"):
        return None
    host, sep, port = target.rstrip("/").rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ParameterError(
            f"Ray address {address!r}: expected HOST:PORT, ray://HOST:PORT or auto"
        )
    return host.strip("[]"), int(port)


def _probe(address: str, host: str, port: int, seconds: float) -> None:
    """Open (and close) a TCP connection to the cluster's port, so that an address nobody
    answers on fails at once (refused) or after ``seconds`` (no reply), not after Ray's
    minutes of retries."""
    try:
        with socket.create_connection((host, port), timeout=seconds):
            pass
    except TimeoutError:
        raise ExecutorUnavailable(
            f"cannot connect to a Ray cluster at {address}: no answer within {seconds:g} s "
            f"(set {CONNECT_TIMEOUT_ENV} to wait longer)"
        ) from None
    except OSError as exc:
        reason = exc.strerror or _one_line(str(exc)) or type(exc).__name__
        raise ExecutorUnavailable(
            f"cannot connect to a Ray cluster at {address}: {reason.lower()} "
            "(is the head node running? `ray start --head` prints its address)"
        ) from None


class _NoHandshake(Exception):
    """``ray.init`` did not return within the connect timeout."""


class _NotMainThread(logging.Filter):
    """Drop Ray's warning that a driver connected from a worker thread has no SIGTERM hook."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("SIGTERM handler is not set")


def _init_within(ray: ModuleType, seconds: float, **options: Any) -> None:
    """``ray.init(**options)``, given up after ``seconds``: the call runs in a daemon thread, so
    a cluster that accepts the connection but never completes Ray's handshake cannot hold the
    caller for Ray's own minutes of retries.

    Raises
    ------
    _NoHandshake
        ``ray.init`` had not returned after ``seconds`` (it is left to fail in the background).
    """
    done = threading.Event()
    failure: list[BaseException] = []
    quiet = _NotMainThread()
    worker_log = logging.getLogger("ray._private.worker")
    worker_log.addFilter(quiet)

    def connect() -> None:
        try:
            ray.init(**options)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            failure.append(exc)
        finally:
            worker_log.removeFilter(quiet)
            done.set()

    threading.Thread(target=connect, name="ray-connect", daemon=True).start()
    if not done.wait(seconds):
        raise _NoHandshake
    if failure:
        raise failure[0]


class RayExecutor(Executor):
    """One Ray task per :class:`Task`, on the cluster at ``address``.

    ``address`` may be ``host:port`` of a head node (``ray start --head`` prints it), ``auto``,
    or ``ray://host:10001`` (Ray Client). Without it, ``RAY_ADDRESS`` is used, else the latest
    ``ray start`` instance on this machine, else a local instance is started for this batch and
    shut down by :meth:`close`. When Ray is already initialised in this process (a notebook, a
    test), that connection is used as it is and left open.

    Every node must be able to import ``robustgraph`` (install the same version everywhere) and
    read the paths a task names (a shared file system, or run the driver on the head node and
    write outputs there). A task whose worker or node dies is retried by Ray (``max_retries``,
    system failures only); a task that raises is not retried and is reported as failed.

    Connecting to an address (given, or in ``RAY_ADDRESS``) is bounded by ``connect_timeout``
    seconds (:func:`ray_connect_timeout`: 30 by default, or ``ROBUSTGRAPH_RAY_CONNECT_TIMEOUT``):
    the head node's port is probed first, so a port nobody listens on fails at once, and Ray's
    own handshake must finish within what is left. Starting a local instance is not bounded.

    Raises
    ------
    ExecutorUnavailable
        Ray is not installed (``pip install 'robustgraph[distributed]'``), or the cluster cannot
        be reached (within ``connect_timeout`` for an address).
    ParameterError
        A malformed address or timeout.
    """

    name = "ray"

    def __init__(
        self,
        address: str | None = None,
        *,
        max_retries: int = 3,
        connect_timeout: float | None = None,
    ) -> None:
        seconds = ray_connect_timeout(connect_timeout)
        self._ray = _import_ray()
        self._owned = False
        if not self._ray.is_initialized():
            target = address or os.environ.get("RAY_ADDRESS") or None
            options = {"address": target, "include_dashboard": False,
                       "logging_level": "warning", "log_to_driver": True}
            where = f"at {target}" if target else "on this machine"
            if target is not None:
                deadline = time.monotonic() + seconds
                endpoint = _endpoint(target)
                if endpoint is not None:
                    _probe(target, *endpoint, seconds)
            try:
                if target is None:
                    self._ray.init(**options)
                else:
                    _init_within(self._ray, max(deadline - time.monotonic(), 0.001), **options)
            except _NoHandshake:
                raise ExecutorUnavailable(
                    f"cannot connect to a Ray cluster {where}: it accepted the connection but "
                    f"did not answer as a Ray cluster within {seconds:g} s (set "
                    f"{CONNECT_TIMEOUT_ENV} to wait longer)"
                ) from None
            except (ConnectionError, RuntimeError, ValueError) as exc:
                raise ExecutorUnavailable(
                    f"cannot connect to a Ray cluster {where}: {_one_line(str(exc))}"
                ) from None
            self._owned = True
        self._remote = self._ray.remote(run_task).options(num_cpus=1, max_retries=max_retries)

    def _stream(self, tasks: list[Task]) -> Iterator[Outcome]:
        ray = self._ray
        pending = {self._remote.remote(task): task for task in tasks}
        try:
            while pending:
                ready, _ = ray.wait(list(pending), num_returns=1)
                for ref in ready:
                    task = pending.pop(ref)
                    try:
                        yield ray.get(ref)
                    except ray.exceptions.RayError as exc:
                        yield Outcome(task.key, error=f"ray: {_error_text(exc)[:500]}")
        finally:
            for ref in pending:
                ray.cancel(ref)

    def close(self) -> None:
        if self._owned and self._ray.is_initialized():
            self._ray.shutdown()
        self._owned = False


def make_executor(
    name: str = "local",
    *,
    address: str | None = None,
    workers: int | None = None,
    connect_timeout: float | None = None,
) -> Executor:
    """The executor called ``name`` (``local`` or ``ray``).

    ``address`` and ``connect_timeout`` (seconds, see :class:`RayExecutor`) are for ``ray``
    only, ``workers`` (processes) for ``local`` only.

    Raises
    ------
    ParameterError
        Unknown name, or an option the executor does not take.
    ExecutorUnavailable
        ``ray`` without Ray installed, or its cluster unreachable.
    """
    if name == "local":
        if address is not None:
            raise ParameterError("--address is for the ray executor (add --executor ray)")
        if connect_timeout is not None:
            raise ParameterError("a connect timeout is for the ray executor")
        return LocalExecutor(workers)
    if name == "ray":
        if workers is not None:
            raise ParameterError(
                "--workers is for the local executor; Ray runs as many tasks as the cluster "
                "has CPUs"
            )
        return RayExecutor(address, connect_timeout=connect_timeout)
    raise ParameterError(f"unknown executor {name!r}; expected one of {', '.join(EXECUTORS)}")
