"""Race exact engines on separate cores over one shared set of proven bounds: first proof wins.

Each racer is one engine (one worker, one core) running its own probe loop on the strong
decision model (``solvers.search``): at probe = the shared upper bound for a max question, at
the asked threshold for a decision. Everything a racer learns goes to the shared
:class:`~solvers.search.Progress` under one lock, through the same code the sequential loop
uses (``search.absorb_probe``, ``search.absorb_published``):

- a witness is checked (``solvers.witness``) before it lowers the shared upper bound; a racer
  whose running probe is now above that bound is stopped and restarts at the new probe, with
  the new witness as its hint;
- an infeasible probe proves a lower bound for everyone;
- the update that settles the question ends the race: every other racer is stopped at once
  (``StopSignal``: ``CpSolver.stop_search``, HiGHS ``cancelSolve``), and :func:`race` returns
  only after every racer thread has ended.

A racer may first spend a short slice on the published model (Usevitch & Panagou, Automatica
2020), whose optimisation settles sparse digraphs (k-in) in a fraction of a second where the
strong model's infeasibility proof takes seconds. A racer that raises, or returns an invalid
outcome or a pair that fails the witness check, drops out with a step saying so; the others go
on, and nothing it returned becomes a bound. On the time limit the result holds what every
racer proved, merged, and is ``bounded`` unless the bounds meet.

A max question under a time limit with a gap of more than one runs in two phases, as the
one-thread loop does (``search._probe_loop``): every racer probes at the shared upper bound until
:data:`~solvers.search.TOP_SHARE` of the time left at the race's start is spent. A racer whose
top probe stalls (``unknown``) then climbs from below (``search.climb_probe``: halfway between
the lower bound and the lowest stalled probe or the lowest probe another racer is running, half
the time left each); the second racer first spends :data:`~solvers.search.IMPROVE_SHARE` of the
time left on the long witness search (``search.long_search``, for r only) and then climbs too.
When no probe is left below, a racer takes the lowest open probe (the lower bound + 1) with all
the time left. A racer whose probe is at or below the lower bound, or above the upper bound, is
stopped. A race that settles in the first phase never climbs; a stalled probe never proves
anything. As with one thread, a top probe that would need more than that share of the time is
cut off: such a race now ends ``bounded`` instead of ``exact`` near its limit.

The racers are threads: CP-SAT and HiGHS release the GIL while they search (measured:
docs/performance.md), so two racers use two cores.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from solvers.interrupt import StopSignal
from solvers.milp_model import Model, Outcome
from solvers.search import (
    IMPROVE_SHARE,
    TOP_SHARE,
    Progress,
    absorb_probe,
    absorb_published,
    climb_probe,
    keep_long_search,
    long_search,
    published_model,
    strong_r_model,
    strong_s_model,
)
from solvers.types import Witness

__all__ = ["Racer", "PUBLISHED_SLICE", "racers", "race"]

PUBLISHED_SLICE = 2.0
"""Seconds the CP-SAT racer gives the published model before its strong loop."""

_TICK = 0.05
"""Seconds between the referee's checks (time limit, lost stop requests)."""


@dataclass(frozen=True)
class Racer:
    """One engine in a race.

    ``run(model, time_limit, threads, seed, *, stop)`` is an adapter's solve (``cpsat.run``,
    ``highs.run``) that honours a :class:`~solvers.interrupt.StopSignal`; ``published`` is the
    time slice, in seconds, of the published model before the strong loop (0: none);
    ``version`` names the engine's package and version for the result.
    """

    name: str
    run: Callable[..., Outcome]
    published: float = 0.0
    version: str = ""


def racers(published: float | None = None) -> list[Racer]:
    """The installed engines that race, each stoppable from another thread: CP-SAT, then HiGHS.

    CP-SAT starts with ``published`` seconds (default :data:`PUBLISHED_SLICE`) of the
    published model. CBC does not race: it can be stopped (SIGINT to its program,
    ``solvers.interrupt.ChildProcess``), but it has not been measured in a race.
    """
    from solvers import cpsat, highs

    if published is None:
        published = PUBLISHED_SLICE
    found = []
    if cpsat.available():
        found.append(Racer(cpsat.NAME, cpsat.run, published, cpsat.version()))
    if highs.available():
        found.append(Racer(highs.NAME, highs.run, 0.0, highs.version()))
    return found


class _Lane:
    """A racer's thread and what it is doing: the probe it runs and the stop for that solve."""

    def __init__(self, racer: Racer) -> None:
        self.racer = racer
        self.probe: int | None = None
        self.climbing = False  # past its top probe: probes from below (second phase)
        self.signal = StopSignal()
        self.cpu = 0.0  # CPU seconds of this thread in its last solve (one worker: the solve's)
        self.thread: threading.Thread | None = None


class _Board:
    """The shared bounds, under one lock, and the rules every racer follows."""

    def __init__(self, p: Progress, lanes: list[_Lane]) -> None:
        self.p = p
        self.lanes = lanes
        self.lock = threading.Lock()
        self.over = False
        self.winner: str | None = None
        self.over_at: float | None = None
        self.done_at: float | None = None
        self.running = len(lanes)
        self.all_done = threading.Event()
        self.target = p.request.question.target
        self.build = strong_s_model if p.request.question.about_s else strong_r_model
        left = p.remaining()
        self.top_until: float | None = None  # when top probes stop (None: no second phase)
        if self.target is None and left is not None and p.upper - p.lower > 1:
            self.top_until = time.perf_counter() + TOP_SHARE * left
        self.stalled = p.upper  # the lowest probe that stalled (no climb probe reaches it)
        self.improve = not p.request.question.about_s and len(lanes) >= 2  # a long search due

    def _open(self) -> bool:
        return not self.over and not self.p.settled() and not self.p.out_of_time()

    def is_over(self) -> bool:
        """True once the race has ended (settled, time limit, Ctrl-C): a long search stops."""
        return self.over

    def begin(
        self, lane: _Lane, strong: bool
    ) -> tuple[int | None, StopSignal, float | None] | None:
        """The probe a lane runs next (None for the published model), its fresh stop and its
        time budget (None: all the time left)."""
        with self.lock:
            if not self._open():
                return None
            lane.probe, budget = None, lane.racer.published
            if strong:
                lane.probe, budget = self._next_probe(lane)
            what = "published model" if lane.probe is None else f"probing {lane.probe}"
            self.p.tell(f"{what} ({lane.racer.name})")
            lane.signal = StopSignal()
            return lane.probe, lane.signal, budget

    def _next_probe(self, lane: _Lane) -> tuple[int, float | None]:
        """The top probe until the first phase ends, then the climb's (see the module notes)."""
        p = self.p
        if self.target is not None:
            return self.target, None
        if not lane.climbing:
            if self.top_until is None or p.upper - p.lower <= 1:
                return p.upper, None
            budget = self.top_until - time.perf_counter()
            if budget > 0:
                return p.upper, budget
            lane.climbing = True  # restarted after a stop, with the first phase over
        running = [other.probe for other in self.lanes if other.probe is not None]
        probe = climb_probe(p.lower, p.upper, min([self.stalled, *running]))
        if probe is None:
            return p.lower + 1, None
        left = p.remaining()
        return probe, None if left is None else left / 2

    def long_search_due(self, lane: _Lane) -> float | None:
        """Seconds for the race's one long witness search if ``lane`` is to run it now: a
        climbing lane other than the first, for an r question (None otherwise)."""
        with self.lock:
            if not (self.improve and lane.climbing and lane is not self.lanes[0] and self._open()):
                return None
            self.improve = False
            left = self.p.remaining()
            return None if left is None else IMPROVE_SHARE * left

    def keep_long_search(self, lane: _Lane, found: tuple[int, Witness] | None) -> None:
        """Offer the long search's pair (checked by ``Progress.offer``) under the lock."""
        with self.lock:
            keep_long_search(self.p, found, engine=lane.racer.name, cpu=round(lane.cpu, 4))
            self._after_update(lane)

    def solve(self, lane: _Lane, model: Model, signal: StopSignal, budget: float | None) -> Outcome:
        """One solve on the lane's engine, outside the lock; a crash is an ``invalid`` outcome."""
        left = self.p.remaining()
        limit = left if budget is None else (budget if left is None else min(budget, left))
        start, cpu = time.perf_counter(), time.thread_time()
        try:
            out = lane.racer.run(model, limit, 1, self.p.request.seed, stop=signal)
        except Exception as exc:  # a racer's crash is reported, never a proof
            seconds = time.perf_counter() - start
            out = Outcome("invalid", None, None, seconds, f"{type(exc).__name__}: {exc}")
        lane.cpu = time.thread_time() - cpu
        return out

    def absorb(
        self, lane: _Lane, model: Model, probe: int | None, out: Outcome, signal: StopSignal
    ) -> bool:
        """Record and keep what one solve proved; True when the lane goes on."""
        with self.lock:
            p = self.p
            step = {
                "engine": lane.racer.name,
                "model": model.name,
                "probe": probe,
                "outcome": out.status,
                "native": out.native,
                "seconds": round(out.seconds, 4),
                "cpu": round(lane.cpu, 4),
            }
            if signal.is_set():
                step["stopped"] = True
            if lane.climbing:
                step["climb"] = True
            p.steps.append(step)
            if out.status == "invalid":
                p.failed = True
                go_on = probe is None  # a failed published slice still leaves the strong loop
            elif probe is None:
                absorb_published(p, model, out)
                go_on = True
            else:
                go_on = absorb_probe(p, model, probe, out)
                if not go_on and out.values is None:
                    if signal.is_set():
                        go_on = True  # stopped because another racer moved a bound: re-probe
                    elif out.status == "unknown" and self.top_until is not None:
                        go_on = lane.climbing = True  # stalled: climb from below
                        self.stalled = min(self.stalled, probe)
            lane.probe = None
            self._after_update(lane)
            return go_on and self._open()

    def crashed(self, lane: _Lane, exc: Exception) -> None:
        """A racer's own code raised outside a solve: note it, leave the bounds alone."""
        with self.lock:
            self.p.failed = True
            self.p.steps.append(
                {
                    "engine": lane.racer.name,
                    "outcome": "invalid",
                    "native": f"{type(exc).__name__}: {exc}",
                }
            )

    def _after_update(self, lane: _Lane) -> None:
        if self.p.settled():
            if not self.over:
                self.winner = lane.racer.name
                self._stop_all()
            return
        if self.target is None:
            for other in self.lanes:
                probe = other.probe
                if probe is not None and not self.p.lower < probe <= self.p.upper:
                    other.signal.set()  # its model asks about a bound already proven or beaten

    def _stop_all(self) -> None:
        self.over = True
        self.over_at = time.perf_counter()
        for lane in self.lanes:
            lane.signal.set()

    def stop_all(self) -> None:
        """End the race (time limit, Ctrl-C): every racer's solve is asked to stop."""
        with self.lock:
            if not self.over:
                self._stop_all()

    def poke(self) -> None:
        """Resend raised stops (a stop that arrived before its solve started is lost)."""
        for lane in self.lanes:
            lane.signal.poke()

    def lane_done(self) -> None:
        with self.lock:
            self.running -= 1
            if self.running == 0:
                self.done_at = time.perf_counter()
                self.all_done.set()


def _lane_main(board: _Board, lane: _Lane) -> None:
    try:
        if lane.racer.published > 0:
            begun = board.begin(lane, strong=False)
            if begun is None:
                return
            model = published_model(board.p)
            out = board.solve(lane, model, begun[1], begun[2])
            if not board.absorb(lane, model, None, out, begun[1]):
                return
        while True:
            seconds = board.long_search_due(lane)
            if seconds is not None:
                cpu = time.thread_time()
                found = long_search(board.p, seconds, stop=board.is_over)
                lane.cpu = time.thread_time() - cpu
                board.keep_long_search(lane, found)
            begun = board.begin(lane, strong=True)
            if begun is None:
                return
            probe, signal, budget = begun
            model = board.build(board.p, probe)
            out = board.solve(lane, model, signal, budget)
            if not board.absorb(lane, model, probe, out, signal):
                return
    except Exception as exc:  # model building or bookkeeping failed: this racer drops out
        board.crashed(lane, exc)
    finally:
        board.lane_done()


def race(p: Progress, entrants: Sequence[Racer]) -> str | None:
    """Race ``entrants`` on ``p`` until it is settled, out of time, or every racer gave up.

    Parameters
    ----------
    p : Progress
        The shared proven bounds (cheap bounds already in); updated in place. Every solve's
        step is appended to ``p.steps`` with its ``engine`` and its ``cpu`` seconds (the
        racer thread's CPU time: a one-worker solve runs in that thread), and one ``race`` step
        at the end names the winner, when the race ``started`` and how long the others took to
        stop (``stopped_in``). Solves of the second phase carry ``climb: True``; the long
        witness search leaves a ``long-heuristic`` step with its racer and checked value.
    entrants : sequence of Racer
        One thread each; each solve uses one worker.

    Returns
    -------
    str or None
        The name of the racer whose result settled the question, or None (time limit, or no
        racer could settle it).

    Raises
    ------
    KeyboardInterrupt
        Ctrl-C during the race, after every racer has stopped.

    Notes
    -----
    Returns only when every racer thread has ended; the wait for them is not cut short by a
    second Ctrl-C, so no native solve outlives the call. A long witness search running in a
    racer ends with its best pair within a tabu move (under a millisecond at n = 60) of the
    race's end, a Ctrl-C included.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from solvers.types import Question, Request
    >>> ring = SimpleNamespace(directed=False, in_neighbors=[
    ...     frozenset({(i - 1) % 8, (i + 1) % 8}) for i in range(8)])
    >>> p = Progress(Request(ring, Question.max_r()), "race", None, "")
    >>> winner = race(p, racers())
    >>> (p.lower, p.upper, winner in ("cpsat", "highs"))
    (1, 1, True)
    """
    lanes = [_Lane(r) for r in entrants]
    board = _Board(p, lanes)
    if not lanes:
        return None
    started = time.perf_counter() - p.start
    for lane in lanes:
        lane.thread = threading.Thread(
            target=_lane_main, args=(board, lane), name=f"race-{lane.racer.name}", daemon=True
        )
        lane.thread.start()
    try:
        while not board.all_done.wait(_TICK):
            if p.out_of_time():
                board.stop_all()
            board.poke()
    except BaseException:
        board.stop_all()
        _drain(board)
        raise
    _drain(board)
    stopped_in = None
    if board.over_at is not None and board.done_at is not None:
        stopped_in = max(0.0, board.done_at - board.over_at)
    p.note(
        "race",
        racers=[lane.racer.name for lane in lanes],
        started=round(started, 4),
        winner=board.winner,
        stopped_in=None if stopped_in is None else round(stopped_in, 4),
    )
    return board.winner


def _drain(board: _Board) -> None:
    """Wait until every racer thread has ended, resending stops; a Ctrl-C does not cut it short."""
    while True:
        try:
            while not board.all_done.wait(_TICK):
                board.poke()
            break
        except KeyboardInterrupt:
            board.stop_all()
    for lane in board.lanes:
        if lane.thread is not None:
            lane.thread.join()
