"""A lower bound's proof started before the answer, on the second core (``certify``).

For a decision claim (``certify --r R``, ``--rs R S``, a tolerance) the bound a proof must
establish is known before the engines answer: if they prove the claim, their check asserts
exactly the claim's (r, s) (:attr:`ClaimRecord` checks' ``robustness``). :class:`Ahead` runs
:func:`.prover.prove` for that (r, s) in a child process while the engines work, so that
certify's wall time approaches ``max(answer, proof)`` rather than their sum when a core is free
(issue 40, round 9; docs/certificate.md, "What proofs cost", rounds 9 and 10). Since round 10 the
child runs at idle priority (``idle``: Linux's ``SCHED_IDLE``) until the answer is in, so the
engines keep every thread and the proof gets only the CPU they leave; :meth:`Ahead.claim` gives
it normal priority back once they are done.

It is speculative and never trusted more than the in-process call: the child runs the very
:func:`.prover.prove`, which checks every proof it makes with :func:`.checker.check_proof` before
returning it, for the claim's (r, s); the caller takes the result only for a check that asserts
that same (r, s) (:meth:`Ahead.take`) and stops the child otherwise (a refuted or undecided
claim, another bound). A claim that is false has no proof (its CNF is satisfiable, and the
checker accepts nothing else), so a wrong candidate costs CPU time, never a wrong certificate.

The child starts :data:`DELAY` seconds into the engines' run (a threading timer), so an answer
that comes sooner never pays for its start (an interpreter importing the prover: 0.8-0.9 s of
wall, 0.25 s of CPU at load 6). It is ``python -m robustgraph.certificate.proofs.ahead
PARENT_PID`` (as ``solvers.lane``: no fork of a process that may run threads, and no re-import
of the caller's main module, which ``multiprocessing``'s spawn would do); it reads its arguments
pickled on stdin, writes :data:`STARTED` on stdout once it has imported the prover and read
them, then ``prove``'s result pickled (its own child's words, not input from outside), exits
once its parent has gone (its watcher thread looks between CaDiCaL's time slices: a child
without a time limit, whose solve is one call, outlives a parent killed with SIGKILL until that
solve ends), and is stopped with SIGKILL and reaped by :meth:`Ahead.stop`, which every caller
reaches (``finally``).
"""

from __future__ import annotations

import math
import os
import pickle
import select
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from typing import Any

from robustgraph.certificate.proofs.checker import View

__all__ = ["CAN_IDLE", "DELAY", "MISSING", "STARTED", "Ahead", "main"]

DELAY = 0.3
"""Seconds into the engines' run at which the child starts (issue 40's target counts answers
of more than 0.3 s; below that the in-process proof after the answer is the one made)."""

STARTED = b"+"
"""The child's first byte on stdout, written once it has imported the prover and read its
arguments, before it proves (a pickle begins with another byte). :meth:`Ahead.race` proves in
process when the answer comes before it: a child still importing (0.8-0.9 s of wall at load 6)
has no proof work done, while the first core, idle once the answer is in, can prove at once.
Round 11's race (``QUICK``) guessed that from the child's age instead: it tried the proof in
process for what was left of 1 s since the child's start and, when that was too short, dropped
the work and waited for the child (issue 40, round 12: 0.8-1.0 s of wall dropped on scratch
seeds 4405-4406, where answers came 0.02-0.23 s after the child's start)."""

MISSING = "missing"
"""What :meth:`Ahead.take` returns when the child has no answer to give (never started, or
ended without one, e.g. killed): the caller then proves in process with the time left."""


CAN_IDLE = hasattr(os, "sched_setscheduler") and hasattr(os, "SCHED_IDLE")
"""True where a child can be put at idle priority (Linux's ``SCHED_IDLE``: the scheduler runs it
only on a core that no other thread wants; a thread at nice 19 still gets about 1.5% of a core
that a nice-0 one wants, 12% of one that a nice-10 one wants)."""

_PARENT_POLL = 0.5
"""Seconds between the child's looks at whether its parent is still there."""


def _watch(parent: int) -> None:
    """Exit the child once ``parent`` has gone (the child is then reparented)."""
    while os.getppid() == parent:
        time.sleep(_PARENT_POLL)
    os._exit(1)


def _set_policy(pid: int, policy: int) -> bool:
    """Give every thread of process ``pid`` the scheduling ``policy``; False if one could not
    be changed (it ended, or a process without ``CAP_SYS_NICE`` and with ``RLIMIT_NICE`` 0 may
    not leave ``SCHED_IDLE``: its child then stays at idle priority, which costs nothing while
    the machine has a free core)."""
    try:
        tids = [int(tid) for tid in os.listdir(f"/proc/{pid}/task")]
    except OSError:
        tids = [pid]
    done = True
    for tid in tids:
        try:
            os.sched_setscheduler(tid, policy, os.sched_param(0))
        except OSError:
            done = False
    return done


def main() -> None:
    """The child: ``prove`` on the pickled ``(view, r, s, mode, limit)`` from stdin; its
    ``(made, progress lines)`` pickled on stdout."""
    from robustgraph.certificate.proofs.prover import prove

    threading.Thread(target=_watch, args=(int(sys.argv[1]),), daemon=True).start()
    view, r, s, mode, limit = pickle.load(sys.stdin.buffer)
    sys.stdout.buffer.write(STARTED)
    sys.stdout.buffer.flush()
    lines: list[str] = []
    made = prove(view, r, s, mode, limit, progress=lines.append)
    sys.stdout.buffer.write(pickle.dumps((made, lines), protocol=pickle.HIGHEST_PROTOCOL))
    sys.stdout.buffer.flush()


class Ahead:
    """``prove(view, r, s, mode, left())`` in a child process from :data:`DELAY` seconds on.

    Parameters
    ----------
    view : View
        The graph.
    r, s : int
        The bound the claim asserts.
    mode : str
        A proof mode other than ``none`` (``prover.MODES``).
    left : callable
        Seconds the proof may take, asked when the child starts (None: no limit), as the
        in-process call would be given them.
    delay : float, optional
        Seconds before the child starts (default :data:`DELAY`).
    busy : callable, optional
        Asked when the child is due: True leaves it unstarted (no core to spare; the caller
        then proves in process after the answer, :meth:`take` giving :data:`MISSING`).
    idle : bool, optional
        Run the child at idle priority (``SCHED_IDLE``, where :data:`CAN_IDLE`) until the
        answer is in (:meth:`claim`, which :meth:`race` and :meth:`take` call first), so that
        the engines, which then keep every thread, lose no CPU to it; the child gets only what
        they leave (``proof_records.AHEAD_IDLE_RULE``). Default False: normal priority.

    Examples
    --------
    >>> from robustgraph.certificate.proofs.checker import View
    >>> ahead = Ahead(View(("a", "b"), (frozenset({1}), frozenset({0}))), 1, 1, "auto",
    ...               lambda: None, delay=60.0)
    >>> ahead.take(0.0)  # asked for before it started: the caller proves in process
    'missing'
    """

    def __init__(
        self,
        view: View,
        r: int,
        s: int,
        mode: str,
        left: Callable[[], float | None],
        *,
        delay: float | None = None,
        busy: Callable[[], bool] | None = None,
        idle: bool = False,
    ) -> None:
        self.bound = (r, s)
        self.idle = idle and CAN_IDLE
        self._busy = busy
        self._args = (view, r, s, mode)
        self._left = left
        self._lock = threading.Lock()
        self._child: subprocess.Popen[bytes] | None = None
        self._past_start = False  # STARTED read from the child's stdout
        self._closed = False
        self._timer = threading.Timer(DELAY if delay is None else delay, self._start)
        self._timer.daemon = True
        self._timer.start()

    def _start(self) -> None:
        with self._lock:
            if self._closed or (self._busy is not None and self._busy()):
                return
            command = [sys.executable, "-m", __name__, str(os.getpid())]
            with tempfile.TemporaryFile() as payload:  # no pipe to block on while locked
                pickle.dump((*self._args, self._left()), payload)
                payload.seek(0)
                self._child = subprocess.Popen(
                    command, stdin=payload, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
                )
                if self.idle:  # before its import ends: the threads it starts inherit it
                    _set_policy(self._child.pid, os.SCHED_IDLE)

    @property
    def started(self) -> bool:
        """True once the child has been started (and not yet stopped)."""
        with self._lock:
            return self._child is not None

    @property
    def alive(self) -> bool:
        """True while a child of this proof runs."""
        with self._lock:
            return self._child is not None and self._child.poll() is None

    def claim(self) -> None:
        """The answer is in and the engines are done: an idle child (``idle``) gets normal
        priority back (``SCHED_OTHER``), as the in-process proof would have; if the system
        refuses (no ``CAP_SYS_NICE``), it goes on at idle priority."""
        with self._lock:
            child = self._child if self.idle else None
        if child is not None and child.poll() is None:
            _set_policy(child.pid, os.SCHED_OTHER)

    def race(self, here: Callable[[float], Any], wait: float | None) -> Any:
        """As :meth:`take` for a child past its start (:data:`STARTED`) or ended; for a child
        still starting, the child is stopped and ``here(math.inf)``, the proof made in process
        with all its time (None: none), is returned (with no progress lines)."""
        self.claim()
        if self.alive and not self.past_start():
            self.stop()
            return here(math.inf), []
        return self.take(wait)

    def past_start(self) -> bool:
        """True once the child has written :data:`STARTED` (read here without waiting)."""
        with self._lock:
            child, seen = self._child, self._past_start
        if seen or child is None:
            return seen
        fd = child.stdout.fileno()  # type: ignore[union-attr]
        if select.select([fd], [], [], 0)[0] and os.read(fd, 1) == STARTED:  # b"": it ended
            with self._lock:
                self._past_start = True
        return self._past_start

    def take(self, wait: float | None) -> Any:
        """The child's ``(proof, files)`` or None (it found no proof), with its progress lines
        as a second item; :data:`MISSING` when it never started or ended without a word.
        Waits up to ``wait`` seconds (None: until the child ends), then stops the child: a
        child still at work by then gives ``(None, [])``, as the in-process call out of time
        would."""
        with self._lock:
            self._closed = True
            self._timer.cancel()
            child = self._child
        if child is None:
            return MISSING
        self.claim()
        try:
            out, _ = child.communicate(timeout=wait)
        except subprocess.TimeoutExpired:
            return None, []
        finally:
            self.stop()
        out = out.removeprefix(STARTED)  # unless past_start read it
        if child.returncode != 0 or not out:
            return MISSING
        return pickle.loads(out)

    def stop(self) -> None:
        """Stop the child (SIGKILL) if it runs, and reap it; the timer starts none after."""
        with self._lock:
            self._closed = True
            self._timer.cancel()
            child, self._child = self._child, None
        if child is not None:
            if child.poll() is None:
                child.kill()
            child.wait()
            child.stdout.close()  # type: ignore[union-attr]


if __name__ == "__main__":
    main()
