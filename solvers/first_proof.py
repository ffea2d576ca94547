"""Two configurations of one model at once, one per core: the first proof wins, the other stops.

Issue 40, round 7 (``portfolio.BOTH_S_RULE``): CP-SAT's time on the published (r, s) model
(Usevitch & Panagou, Automatica 2020) told ``s <= upper`` differs from graph to graph between
its least-first configuration (``milp_model.least_first``) and the model as printed: the whole
command 4.62 s against 0.22 s one way and 0.24 s against 0.97 s the other (docs/performance.md,
"Issue 40, round 6: the registered runs"), the model alone up to 8x one way and 15x the other on
round 7's scratch rows. With two threads the portfolio runs least-first for the slice and the
printed model beside it for a short window, one CP-SAT worker each, each in a thread of its own
(CP-SAT releases the GIL while it searches, so two threads use two cores); the first to prove
its answer (``optimal`` or ``infeasible``) raises the other's :class:`StopSignal` at once, so
the CPU time past the win is not doubled. Both outcomes are kept: each incumbent is checked and
each proven bound is a bound (``search.absorb_published``), as for one solve.

The waiting thread never blocks in ``Thread.join`` (``solvers.interrupt``: an interrupted join
leaves a native solve running); on Ctrl-C every solve is stopped, waited for, and the interrupt
is raised again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from solvers.interrupt import StopSignal
from solvers.milp_model import Model, Outcome

if TYPE_CHECKING:
    from solvers.search import Progress, Runner

__all__ = ["PROVEN", "first_proof", "published_s_both"]

PROVEN = frozenset({"optimal", "infeasible"})
"""Outcomes that settle a model's question: the one that arrives first stops the others."""

_POLL = 0.05
"""Seconds between the waiting thread's checks (an outside stop, a stop sent too early)."""

Solve = Callable[[StopSignal], Outcome]


def first_proof(calls: Sequence[Solve], stop: StopSignal | None = None) -> list[Outcome]:
    """Run every ``call(signal)`` at once, each in its own thread; the first to return a proof
    (:data:`PROVEN`) stops the others.

    Parameters
    ----------
    calls : sequence of callable
        Each a solve that watches the :class:`StopSignal` it is given (``cpsat.run(...,
        stop=signal)``) and returns an :class:`Outcome`.
    stop : StopSignal, optional
        The caller's own stop (another core won: ``search.Progress.stop``): once raised, every
        call is stopped.

    Returns
    -------
    list of Outcome
        In the order of ``calls``. A call that raises gives an ``invalid`` outcome (never a
        proof) and stops no other.

    Raises
    ------
    KeyboardInterrupt
        Ctrl-C arrived while they ran: every call is stopped and waited for first.

    Examples
    --------
    >>> won = lambda signal: Outcome("optimal", [1.0], 1.0, 0.0, "OPTIMAL")
    >>> def loser(signal):
    ...     signal.wait(60)  # a long solve: it returns once stopped
    ...     return Outcome("unknown", None, None, 0.0, "STOPPED")
    >>> [out.status for out in first_proof([won, loser])]
    ['optimal', 'unknown']
    """
    signals = [StopSignal() for _ in calls]
    outs: list[Outcome | None] = [None] * len(calls)
    lock = threading.Lock()
    running = [len(calls)]
    done = threading.Event()

    def work(i: int) -> None:
        try:
            out = calls[i](signals[i])
        except Exception as exc:  # a crash drops this configuration, never a proof
            out = Outcome("invalid", None, None, 0.0, f"{type(exc).__name__}: {exc}")
        outs[i] = out
        if out.status in PROVEN:
            for j, other in enumerate(signals):
                if j != i:
                    other.set()
        with lock:
            running[0] -= 1
            if running[0] == 0:
                done.set()

    def stop_all() -> None:
        for signal in signals:
            signal.set()

    if not calls:
        return []
    for i in range(len(calls)):
        threading.Thread(target=work, args=(i,), name=f"first-proof-{i}", daemon=True).start()
    try:
        while not done.wait(_POLL):
            if stop is not None and stop.is_set():
                stop_all()
            for signal in signals:
                signal.poke()  # a stop sent before its solver started is resent
    except KeyboardInterrupt:
        stop_all()
        _wait_stopped(done, stop_all)
        raise
    return [out for out in outs if out is not None]


def _wait_stopped(done: threading.Event, stop_all: Callable[[], None]) -> None:
    """Wait until every stopped call has returned, resending the stops; a further Ctrl-C does
    not cut the wait short (as ``interrupt.in_thread``)."""
    while True:
        try:
            while not done.wait(_POLL):
                stop_all()
            return
        except KeyboardInterrupt:
            stop_all()


CONFIGS = (("least-first", True), ("as-printed", False))
"""The published (r, s) model's two configurations: its swap symmetry broken, and as printed."""


def published_s_both(
    p: Progress,
    run: Runner,
    seconds: float,
    window: float,
    delay: float = 0.0,
    upper: int | None = None,
) -> None:
    """The published (r, s) slice (``search.published_s_model``: told ``s <= upper``, each solve
    ending at a pair that meets the proven lower bound, ``stop_at``) least-first for up to
    ``seconds`` and, beside it, as printed from ``delay`` seconds after it for up to ``window`` more
    (:data:`CONFIGS`), one CP-SAT worker each (``run(model, limit, 1, seed, stop=...)``), the first
    proof winning (:func:`first_proof`; ``p.stop`` stops both). A printed solve whose start comes
    after least-first's proof (or an outside stop) is never started: it costs no CPU time (its step
    says ``NOT-STARTED``). Each solve's step names its ``config``; a ``published-s-both`` step says
    which one proved the answer, if any (a pair that meets the lower bound is a proof: ``cpsat.run``
    reports it optimal); what both proved is kept (``search.absorb_published``: checked incumbents,
    proven bounds). ``upper``: the proven upper bound the models are told instead of ``p``'s.
    """
    from solvers import search

    left = p.remaining()
    budget = seconds if left is None else min(left, seconds)
    limits = (budget, min(budget - delay, window))
    models: list[Model] = [
        search.published_s_model(p, least=least, upper=upper) for _, least in CONFIGS
    ]
    p.tell("published (r, s) model, two configurations")
    seed, lower = p.request.seed, p.lower

    def least_first(signal: StopSignal) -> Outcome:
        return run(models[0], limits[0], 1, seed, stop=signal, stop_at=lower)

    def printed(signal: StopSignal) -> Outcome:
        if limits[1] <= 0 or (delay > 0 and signal.wait(delay)):
            return Outcome("unknown", None, None, 0.0, "NOT-STARTED")
        return run(models[1], limits[1], 1, seed, stop=signal, stop_at=lower)

    outs = first_proof([least_first, printed], p.stop)
    proofs = []
    for (name, _), model, out in zip(CONFIGS, models, outs, strict=True):
        search.record(p, model, None, out, config=name)
        search.absorb_published(p, model, out)
        if out.status in PROVEN:
            proofs.append((out.seconds, name))
    p.note("published-s-both", proved_by=min(proofs)[1] if proofs else None, delay=delay)
