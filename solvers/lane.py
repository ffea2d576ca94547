"""The published model on CP-SAT in a child process, beside the portfolio: the second core.

Usevitch & Panagou's MILP for r* (Automatica 111, 2020; ``milp_model.published_r``) solved by
CP-SAT with one worker settles some symmetric and mid-density graphs of 50-60 nodes in a few
seconds where the portfolio's own sequence (core search, bounds, strong model) takes several
times longer: the random 8-regular graph on 60 nodes of issue 32 (networkx seed 8105), ER(50,
0.35) (docs/performance.md). :class:`PublishedLane` runs it from the start of a solve, for the
whole time limit, on a second core, while the portfolio's sequence runs on the first; whichever
proves r* first wins and the other is stopped.

A child process, not a thread: its model building and decoding are Python code that holds the
GIL and would slow the first core's pure-Python core search; a child is stopped at once
(``SIGKILL``) however far its import or solve has got, so a graph the first core settles in a
tenth of a second is not kept waiting; and its memory is returned when it ends. Its start is
short: on a random 8-regular graph on 45 nodes the child answers in 0.28-0.29 s from its start
(0.47-0.49 s while ``solvers.cpsat`` went through ``cp_model``, which imports pandas), where the
published script (``benchmarks/published_milp.py``) takes 0.51-0.52 s (2026-12-02).

The child (``python -m solvers.lane PARENT_PID``; it exits once that parent has gone, even a
parent killed with SIGKILL) reads the graph and the time limit as JSON on stdin and
writes the solver's outcome (status, solution vector, dual bound) as JSON on stdout. Nothing it
says is trusted: :meth:`PublishedLane.absorb` decodes the solution into a pair, which
``Progress.offer`` checks before it becomes an upper bound, and only the solver's proven dual
bound becomes a lower bound (``search.absorb_published``), so a lane that crashes, is killed or
lies proves nothing.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from solvers.interrupt import StopSignal

if TYPE_CHECKING:
    from solvers.milp_model import Outcome
    from solvers.search import Progress
    from solvers.types import Request

__all__ = ["PublishedLane", "available", "spawn", "discard", "solve_payload", "main"]

_POKE = 0.05
"""Seconds between resent stops to the first core's solve once the lane has won (a stop that
arrives while a CP-SAT model is still being built is lost; ``interrupt.StopSignal``)."""


def available() -> bool:
    """True when OR-Tools is installed (found, not imported: the child imports it)."""
    return importlib.util.find_spec("ortools") is not None


class PublishedLane:
    """The published r model on CP-SAT (one worker) in a child process, stoppable at any time.

    Parameters
    ----------
    request : Request
        An r question (``max_r`` or ``is_r_robust``) on a graph of at least two nodes; its
        time limit, if any, is the child's, counted from :meth:`start`.
    signal : StopSignal
        Raised when the child has proven r* (an ``optimal`` outcome), so that the first core's
        running solve stops (and resent every :data:`_POKE` seconds until :meth:`stop`).
    upper, hint, least : optional
        What :func:`solve_payload` tells the model: a proven upper bound, its pair, and whether
        the swap symmetry is broken (``milp_model.least_first``).
    child : subprocess.Popen, optional
        A child started before the payload was known (:func:`spawn`), adopted by :meth:`start`
        instead of starting one there; stopped with the lane.

    Notes
    -----
    :meth:`won` turns true only with an ``optimal`` outcome in hand; the caller then ends its
    own work (``Progress.halt``), calls :meth:`stop` (which returns that outcome) and
    :meth:`absorb` s it. :meth:`stop` always ends the child and the thread that waits for it,
    so no process or thread outlives the solve.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from solvers.search import Progress
    >>> from solvers.types import Question, Request
    >>> path = SimpleNamespace(directed=False, in_neighbors=[
    ...     frozenset({1}), frozenset({0, 2}), frozenset({1})])
    >>> request = Request(path, Question.max_r())
    >>> lane = PublishedLane(request, StopSignal())
    >>> lane.start()
    >>> lane.wait(), lane.won()
    (True, True)
    >>> _ = lane.stop()
    >>> p = Progress(request, "portfolio", "strong", "")
    >>> lane.absorb(p)
    >>> (p.lower, p.upper, p.witness is not None)
    (1, 1, True)
    """

    def __init__(
        self,
        request: Request,
        signal: StopSignal,
        upper: int | None = None,
        hint: tuple[frozenset[int], frozenset[int]] | None = None,
        least: bool = False,
        child: subprocess.Popen[bytes] | None = None,
    ) -> None:
        self.request = request
        self.least = least
        self.signal = signal
        self.upper = upper
        self.hint = hint
        self.outcome: Outcome | None = None
        self._answer: Any = None  # the child's JSON answer, decoded by stop()
        self._won = threading.Event()
        self._closing = threading.Event()
        self._proc = child
        self._thread: threading.Thread | None = None
        self._timer: threading.Timer | None = None
        self._dropped = threading.Event()

    def start(self) -> None:
        """Start the child (unless one was given) and the thread that waits for its answer."""
        payload = {
            "in_neighbors": [sorted(s) for s in self.request.graph.in_neighbors],
            "time_limit": self.request.time_limit,
            "seed": self.request.seed,
            "least": self.least,
        }
        if self.upper is not None:
            payload["upper"] = self.upper
            payload["hint"] = None if self.hint is None else [sorted(x) for x in self.hint]
        if self._proc is None:
            self._proc = spawn()
        data = json.dumps(payload).encode()
        self._thread = threading.Thread(
            target=self._wait_child, args=(data,), name="published-lane", daemon=True
        )
        self._thread.start()

    def _wait_child(self, data: bytes) -> None:
        """Wait for the child's answer; on a proven optimum, raise :attr:`signal` until
        :meth:`stop`. The answer stays raw JSON here: decoding it imports numpy
        (``milp_model``), which took 0.3 s in this thread while the first core's core search
        held the GIL (digraph G(50, 0.2) seed 1001), so :meth:`stop` decodes it."""
        proc = self._proc
        assert proc is not None
        try:
            out, _ = proc.communicate(data)  # blocks without the GIL until the child ends
            self._answer = json.loads(out) if proc.returncode == 0 else None
        except (OSError, ValueError):  # killed mid-write, or garbage
            self._answer = None
        if isinstance(self._answer, dict) and self._answer.get("status") == "optimal":
            self._won.set()
            while not self._closing.is_set():  # until stop(): resend lost stops
                self.signal.set()
                self._closing.wait(_POKE)

    def pid(self) -> int | None:
        """The child's process id, once there is a child."""
        return None if self._proc is None else self._proc.pid

    def drop_after(self, seconds: float, due: Callable[[], bool]) -> None:
        """After ``seconds``, stop the lane (:meth:`stop`) unless it has won or was stopped, if
        ``due()`` then says so (``portfolio.LANE_BUSY_RULE``: no core to spare for it);
        :meth:`dropped` then turns true. :meth:`stop` cancels a drop not yet due."""

        def check() -> None:
            if not self._closing.is_set() and not self.won() and due():
                self._dropped.set()
                self.stop()

        self._timer = threading.Timer(seconds, check)
        self._timer.name = "published-lane-drop"
        self._timer.daemon = True
        self._timer.start()

    def dropped(self) -> bool:
        """True once :meth:`drop_after` has stopped the lane before it answered."""
        return self._dropped.is_set()

    def won(self) -> bool:
        """True once the child has returned a proven optimum (checked later, by :meth:`absorb`)."""
        return self._won.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the child has answered or ``timeout`` seconds passed; True if it has."""
        thread = self._thread
        assert thread is not None
        end = None if timeout is None else time.perf_counter() + timeout
        while thread.is_alive() and not self._won.wait(_POKE):
            if end is not None and time.perf_counter() >= end:
                return False
        return True

    def stop(self) -> Outcome | None:
        """End the child (killed if still running) and the waiting thread; its outcome, if any
        (None for a child that was killed, crashed or wrote garbage)."""
        self._closing.set()
        timer = self._timer
        if timer is not None and timer is not threading.current_thread():
            timer.cancel()
        if self._thread is None and self._proc is not None:  # spawned, never started
            discard(self._proc)
        elif self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
        if self._thread is not None:
            self._thread.join()
        if self.outcome is None and self._answer is not None:
            try:
                self.outcome = _outcome(self._answer)
            except (KeyError, TypeError, ValueError):  # garbage: proves nothing
                self.outcome = None
        return self.outcome

    def absorb(self, p: Progress) -> None:
        """Keep what the child's outcome proves (call after :meth:`stop`): its pair, checked by
        ``p.offer``, and its dual bound; note a ``published-lane`` step."""
        from solvers.milp_model import published_r
        from solvers.search import absorb_published

        out = self.outcome
        if out is not None:
            absorb_published(p, published_r(p.request.graph.in_neighbors), out)
        status = None if out is None else out.status
        seconds = None if out is None else round(out.seconds, 4)
        p.note("published-lane", engine="cpsat", outcome=status, solve_seconds=seconds)


def spawn() -> subprocess.Popen[bytes]:
    """The lane's child process, started before its payload is known: it imports CP-SAT at
    once (about 0.2 s of CPU, 0.17-0.19 s measured in issue 40's round 5; 0.11 s since round 7,
    which took numpy out of the published models, ``milp_model.laplacian_row``) and then waits for
    the payload on stdin (:meth:`PublishedLane.start` sends it). Started while the
    first core computes the bounds that the payload carries, so that the start-up runs beside
    them (a graph that skips the core search: ``portfolio.LANE_WARM_RULE``). End it
    with :func:`discard` if it is never given a payload."""
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parent.parent)  # this copy of ``solvers``
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
    return subprocess.Popen(
        [sys.executable, "-m", "solvers.lane", str(os.getpid())],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )


def discard(child: subprocess.Popen[bytes]) -> None:
    """End a child of :func:`spawn` that got no payload (killed, reaped, its pipes closed)."""
    if child.poll() is None:
        child.kill()
    child.communicate()


def _outcome(doc: dict[str, Any]) -> Outcome:
    from solvers.milp_model import Outcome

    values = doc["values"]
    return Outcome(
        str(doc["status"]),
        None if values is None else [float(v) for v in values],
        None if doc["bound"] is None else float(doc["bound"]),
        float(doc["seconds"]),
        str(doc["native"]),
    )


def solve_payload(payload: dict[str, Any]) -> dict[str, Any]:
    """The child's work: solve the published r model of ``payload``'s graph on CP-SAT.

    Parameters
    ----------
    payload : dict
        ``in_neighbors`` (a list of index lists), ``time_limit`` (seconds or None), ``seed``;
        optionally ``upper`` (a proven upper bound on r*) and ``hint`` (two index lists, a pair
        of value ``upper``, or None): the model is then ``milp_model.published_r_below``, told
        the bound and hinted with the pair, as the first core's published slice is; ``least``
        (true or false, default false): the swap symmetry broken (``milp_model.least_first``).

    Returns
    -------
    dict
        The outcome's ``status``, ``values``, ``bound``, ``seconds`` and ``native`` status.
    """
    from solvers import cpsat
    from solvers.milp_model import least_first, published_r, published_r_below

    nb = [frozenset(s) for s in payload["in_neighbors"]]
    model = published_r(nb)
    if payload.get("upper") is not None:
        hint = payload.get("hint")
        pair = None if hint is None else (frozenset(hint[0]), frozenset(hint[1]))
        model = published_r_below(nb, payload["upper"], pair)
    if payload.get("least"):
        least_first(model)
    out = cpsat.run(model, payload["time_limit"], 1, payload["seed"])
    return {
        "status": out.status,
        "values": out.values,
        "bound": out.bound,
        "seconds": out.seconds,
        "native": out.native,
    }


_ORPHAN_POLL = 0.25
"""Seconds between the child's checks that its parent is still alive."""


def _exit_when_orphaned(parent: int) -> None:
    """End this process once ``parent`` has gone (it is re-parented): a parent killed with
    SIGKILL cannot stop its lane, which would otherwise solve on, without a time limit, for
    as long as CP-SAT takes. CP-SAT releases the GIL, so this thread runs during the solve."""
    while os.getppid() == parent:
        time.sleep(_ORPHAN_POLL)
    os._exit(3)


def main(argv: list[str] | None = None) -> int:
    """Read a payload on stdin, write :func:`solve_payload`'s answer on stdout; exit at once
    if the parent process (its pid the first argument: a parent that died before this process
    got here is caught too) dies first."""
    args = sys.argv[1:] if argv is None else argv
    parent = int(args[0]) if args else os.getppid()
    threading.Thread(target=_exit_when_orphaned, args=(parent,), daemon=True).start()
    from solvers import cpsat

    cpsat.load()  # before the payload: a child from spawn() is started before it is known
    print(json.dumps(solve_payload(json.load(sys.stdin))))
    return 0


if __name__ == "__main__":
    status = main()
    sys.stdout.flush()
    os._exit(status)  # no interpreter teardown: freeing OR-Tools took 0.1-0.2 s the parent waited
