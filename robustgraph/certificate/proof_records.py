"""Attach proof objects to the checks of freshly certified claims (``certify --proof``).

Each check whose lower bound asserts (r, s)-robustness with r, s >= 1 gets the proof that
:func:`robustgraph.certificate.proofs.prover.prove` finds for the mode, or none; one proof per
distinct (r, s) is searched for and shared by the checks that assert it. A decision claim's
(r, s) is known before the engines answer: :func:`start_ahead` starts its proof then, in a child
process on the second core (:mod:`robustgraph.certificate.proofs.ahead`), and
:func:`attach_proofs` takes that proof for a check asserting the same (r, s).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

from robustgraph import __version__
from robustgraph.certificate.claims import Claim
from robustgraph.certificate.outcome import trivial_upper
from robustgraph.certificate.proofs.ahead import MISSING, Ahead
from robustgraph.certificate.proofs.checker import View
from robustgraph.certificate.proofs.cubes import Split
from robustgraph.certificate.proofs.prover import FIRST_KINDS, prove
from robustgraph.certificate.records import Check, ClaimRecord, Run
from robustgraph.topology import Topology
from solvers.deadline import Deadline
from solvers.idle import CpuSample
from solvers.portfolio import BESIDE_LANE_BUSY

__all__ = [
    "AHEAD_IDLE_RULE", "AHEAD_RULE", "LRAT_TIME_LIMIT", "TREE_DECIDES_RULE", "attach_proofs",
    "decide_first", "engine_threads", "first_bound", "start_ahead", "stop_ahead",
]

LRAT_TIME_LIMIT = 60.0
"""Seconds the SAT solver gets per lower bound when ``certify`` has no time limit."""


AHEAD_RULE = "two threads or more: a decision claim's proof ahead, but not on in-regular graphs"
"""Issue 40, round 9 (scratch seeds 4371-4373 only; docs/performance.md, "Issue 40, round 9:
proof cost (i40z)"). The proof ahead takes a thread from the engines; on a graph whose
in-degrees all equal, the portfolio spends its second core on the published model (its lane,
``solvers.portfolio``), and the proof is cheap beside the answer (certify/robustness 1.0-1.6x
before at those seeds), so there is little to win and the lane to lose: certify was slower with
the proof ahead on four of five random 6- and 8-regular rows (0.96 -> 1.17 s, 1.58 -> 2.17 s,
1.63 -> 2.38 s, 0.85 -> 1.39 s; 0.78 -> 0.65 s the fifth; load 6-9)."""


AHEAD_IDLE_RULE = "the proof's child at idle priority until the answer; engines keep every thread"
"""Issue 40, round 10 (i40b): the child of a proof started ahead runs at idle priority
(``ahead.Ahead``'s ``idle``, Linux's ``SCHED_IDLE``) until the engines answer, and the engines
keep every thread (:func:`engine_threads`): where they use the second core (the published model's
lane, ``solvers.portfolio``, or the strong model's race) the proof waits; where they leave it free
(the core search alone on the first core) the proof takes it. Round 9 took a thread from the
engines for the child instead: on seed 4308's digraph(40, 0.35) (r* = 8; the bare answer 21.7 s
wall, 41.2 s CPU with two threads: the lane carried it) certify took 159.2 s where the proof after
the answer took 43.9 s. Where the system has no ``SCHED_IDLE`` (:data:`.proofs.ahead.CAN_IDLE`) the
child runs at normal priority and the engines get one thread fewer, as in round 9. Measured in
docs/performance.md, "Issue 40, round 10: proof cost (i40b)"."""


TREE_DECIDES_RULE = "one thread, the portfolio alone: a proof made first decides an r-robust claim"
"""Issue 40, round 35 (docs/performance.md, "round 35"). A one-thread ``certify --proof auto``
(or ``coretree``) of a true r-robustness claim cost about three answers (round 34's scratch look,
seed 8211: ER(40, 1/2) answer 0.27 s, certify 0.81 s = 0.32 s solving the claim + 0.22 s making
the core tree + 0.27 s checking it): the tree the proof is made of is itself the core search's
refutation of every pair that would break r-robustness. So :func:`decide_first` tries the cheap
kinds of the mode and the core tree (:data:`.proofs.prover.FIRST_KINDS`; ``auto`` gives the tree
:data:`.proofs.prover.AUTO_TREE_SHARE` of the time left, ``coretree`` all of it, never less than
either had after the engines) before any engine answers; a proof that
is made and passes its checker (``prove`` checks every proof it returns) decides the claim, and
the engines are not asked. The certificate carries that proof as the check's, so ``verify``
checks the very thing that decided it; the run names it (``solved_by`` ``proof (coretree)``).
When no proof comes (the claim is false, or the tree ran out of its share) the engines answer as
before and :func:`attach_proofs` tries only the rest of the mode (``auto``: an LRAT proof with
what is left; ``coretree``: nothing). Costs: a false claim first spends the tree's search for a
breaking pair (the core search, which the portfolio also runs first; 0.1 s on ER(40, 1/2) at
r* + 1, scratch seed 8212); under a time limit the engines get what the first try left, so a
claim whose tree runs out of time may end undecided where the engines alone would have decided
it without a proof (exit 5, which ``verify`` rejects). Only at one thread with the ``portfolio``
engine alone: at two threads the proof starts ahead in a child (:data:`AHEAD_IDLE_RULE`), not
measured with this rule, and a named engine other than the portfolio must answer for itself.
The claim's check then bounds r* by r and the trivial bound, not r* itself: a caller that shows
r* (the protocol runner's gate, ``protocol_runner/run/cert_gate.py``) passes ``certify``'s
``proof_first=False``."""


def first_bound(
    topology: Topology,
    claim: Claim,
    engines: Sequence[str],
    mode: str,
    threads: int,
    split: Split | None,
) -> int | None:
    """The r that :data:`TREE_DECIDES_RULE` proves first for ``claim``, or None where it does
    not apply (not an r-robustness question, r out of 1..:func:`.outcome.trivial_upper`, more
    than one thread, an engine list other than the portfolio alone, a split, a mode without the
    core tree)."""
    question = claim.question()
    if question is None or question.about_s or mode not in ("auto", "coretree"):
        return None
    if tuple(engines) != ("portfolio",) or threads != 1 or split is not None:
        return None
    return question.r if 1 <= question.r <= trivial_upper(topology, question) else None


def decide_first(
    topology: Topology,
    claim: Claim,
    r: int,
    mode: str,
    deadline: Deadline,
    progress: Callable[[str], None] | None = None,
) -> tuple[Check, dict[str, bytes]] | None:
    """The check that a proof of r-robustness made before any engine answers gives ``claim``
    (:data:`TREE_DECIDES_RULE`), with the proof's files; None when no proof was made.

    The check has one run, by ``portfolio``: status ``exact``, lower bound r, upper bound
    :func:`.outcome.trivial_upper` (no witness needed), its seconds those of the proof's
    making and checking; the check's ``proof`` is the proof, checked by ``prove``.
    """
    question = claim.question()
    left = deadline.left()
    limit = LRAT_TIME_LIMIT if left is None else left
    if progress:
        progress(f"proof ({mode}) first: {r}-robustness, before any engine")
    began = time.monotonic()
    made = prove(View.of(topology), r, 1, mode, limit, progress=progress, kinds=FIRST_KINDS)
    if made is None:
        return None
    proof, files = made
    run = Run(
        engine="portfolio",
        solved_by=f"proof ({proof['kind']})",
        formulation=None,
        status="exact",
        lower=r,
        upper=trivial_upper(topology, question),
        seconds=round(time.monotonic() - began, 4),
        engine_version=f"robustgraph {__version__}: the proof's own checker",
        witness=None,
        params={"rule": TREE_DECIDES_RULE, "threads": 1, "time_limit": round(limit, 4)},
    )
    return replace(Check.of(question, [run]), proof=proof), files


_AFTER_FIRST = {"auto": ("lrat",), "coretree": ()}
"""The kinds :func:`attach_proofs` tries for a bound :func:`decide_first` tried in vain."""


def start_ahead(
    topology: Topology,
    claims: Sequence[Claim],
    mode: str,
    deadline: Deadline,
    threads: int,
    split: Split | None = None,
) -> dict[tuple[int, int], Ahead]:
    """The proofs started ahead of the answers: one per distinct (r, s) that a decision claim
    asserts, when ``threads >= 2`` (the second core is the call's to use), a proof is asked for,
    no split (cube and conquer runs its own workers) and the graph is not in-regular
    (:data:`AHEAD_RULE`). Each child starts at its due time (``ahead.DELAY``) only if other
    processes kept at most ``portfolio.BESIDE_LANE_BUSY`` cores busy since the call's start
    (``solvers.idle.CpuSample``; the portfolio's lane rule, ``LANE_BUSY_RULE``, one constant for
    both): round 9, scratch seeds 4371-4374 at load 3-9, with no core to spare the child only
    shared this process's share (certify's wall 0.60-3.03x, median 1.13x, of the path without
    it on 14 rows; CPU median 1.08x). Each runs at idle priority (:data:`AHEAD_IDLE_RULE`) and is
    stopped by :func:`attach_proofs` or, on any way out, by :func:`stop_ahead`."""
    degrees = {len(nb) for nb in topology.in_neighbors}
    if mode == "none" or threads < 2 or split is not None or len(degrees) <= 1:
        return {}
    view = View.of(topology)
    sample = CpuSample()

    def busy() -> bool:  # asked once per proof, when its child is due (ahead.DELAY)
        others = sample.others_busy()
        return others is not None and others > BESIDE_LANE_BUSY  # as the portfolio's lane

    started: dict[tuple[int, int], Ahead] = {}
    for claim in claims:
        question = claim.question()
        if question is None:
            continue
        bound = (question.r, question.s if question.about_s else 1)
        if bound not in started and min(bound) >= 1:
            started[bound] = Ahead(view, *bound, mode, deadline.left, busy=busy, idle=True)
    return started


def engine_threads(threads: int, started: Mapping[tuple[int, int], Ahead]) -> int:
    """The engines' threads beside :func:`start_ahead`'s proofs: every one of ``threads`` when
    each child yields to them (idle priority, :data:`AHEAD_IDLE_RULE`), else one fewer (a child
    at normal priority takes a core of its own)."""
    return threads - 1 if any(not ahead.idle for ahead in started.values()) else threads


def stop_ahead(started: Mapping[tuple[int, int], Ahead]) -> None:
    """Stop every child of :func:`start_ahead` that still runs."""
    for ahead in started.values():
        ahead.stop()


def attach_proofs(
    topology: Topology,
    records: Sequence[ClaimRecord],
    mode: str,
    deadline: Deadline,
    progress: Callable[[str], None] | None = None,
    split: Split | None = None,
    ahead: Mapping[tuple[int, int], Ahead] | None = None,
    tried: Collection[tuple[int, int]] = (),
) -> tuple[list[ClaimRecord], dict[str, bytes]]:
    """The records with a proof on every check one was found for, and the proof files.

    Parameters
    ----------
    topology : Topology
        The certified graph.
    records : sequence of ClaimRecord
        As certified (no proofs yet).
    mode : str
        A proof mode (``robustgraph.certificate.proofs.prover.MODES``).
    deadline : Deadline
        The call's deadline: each SAT refutation gets what is left of it (without a limit,
        :data:`LRAT_TIME_LIMIT` seconds each).
    progress : callable, optional
        Hears one line per proof search.
    split : Split, optional
        Make LRAT proofs by cube and conquer (``certify --cubes``; :mod:`.proofs.cubes`).
    ahead : mapping, optional
        :func:`start_ahead`'s proofs: a check asserting one's (r, s) takes its result (its
        child ran the same ``prove``, with the time the deadline left at its start); one that
        never started or died without a word is proven here instead. All are stopped on return.
    tried : collection of (int, int)
        Bounds :func:`decide_first` tried in vain: only the rest of the mode is tried for them.
        A check that has its proof already keeps it.

    Returns
    -------
    (list of ClaimRecord, dict)
    """
    try:
        return _attach(topology, records, mode, deadline, progress, split, ahead or {}, tried)
    finally:
        stop_ahead(ahead or {})


def _within(
    view: View,
    r: int,
    s: int,
    mode: str,
    limit: float,
    progress: Callable[[str], None] | None,
    seconds: float,
) -> Any:
    """``prove`` in process within ``seconds`` (and ``limit``): :meth:`Ahead.race`'s try."""
    return prove(view, r, s, mode, min(limit, seconds), progress=progress)


def _attach(
    topology: Topology,
    records: Sequence[ClaimRecord],
    mode: str,
    deadline: Deadline,
    progress: Callable[[str], None] | None,
    split: Split | None,
    ahead: Mapping[tuple[int, int], Ahead],
    tried: Collection[tuple[int, int]],
) -> tuple[list[ClaimRecord], dict[str, bytes]]:
    view = View.of(topology)
    asserted = {check.robustness for record in records for check in record.checks}
    stop_ahead({b: a for b, a in ahead.items() if b not in asserted})  # no use for these
    found: dict[tuple[int, int], Any] = {}
    files: dict[str, bytes] = {}
    out = []
    for record in records:
        checks = []
        for check in record.checks:
            r, s = check.robustness
            if mode == "none" or r < 1 or s < 1 or check.proof is not None:
                checks.append(check)
                continue
            if (r, s) not in found:
                if progress:
                    progress(f"proof ({mode}): ({r}, {s})-robustness")
                left = deadline.left()
                limit = LRAT_TIME_LIMIT if left is None else left
                got = MISSING
                if (r, s) in ahead:  # its child had no limit without a deadline: wait that long
                    here = partial(_within, view, r, s, mode, limit, progress)
                    got = ahead[(r, s)].race(here, None if left is not None else limit)
                if got is MISSING:
                    kinds = _AFTER_FIRST[mode] if (r, s) in tried else None
                    got = prove(view, r, s, mode, limit, split=split, progress=progress,
                                kinds=kinds), []
                found[(r, s)], lines = got
                for line in lines if progress else ():
                    progress(line)
            made = found[(r, s)]
            if made is None:
                checks.append(check)
                continue
            files.update(made[1])
            checks.append(replace(check, proof=made[0]))
        out.append(replace(record, checks=tuple(checks)))
    return out, files
