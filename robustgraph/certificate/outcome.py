"""The rules by which engine checks become verdicts: the question sequence of each claim, its
outcome, and what is wrong with a run on its own or with runs that contradict each other.

These functions are the single definition; ``certify`` applies them to fresh engine results and
``verify`` replays them on a stored certificate.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from robustgraph.certificate.claims import Claim
from robustgraph.certificate.records import Check, ClaimRecord, Run
from robustgraph.certificate.witness import witness_problem
from robustgraph.topology import Topology
from solvers.types import Question

__all__ = [
    "VERDICTS",
    "EXIT_CODES",
    "trivial_upper",
    "next_question",
    "claim_outcome",
    "overall_verdict",
    "UNCHECKED_EXIT",
    "unchecked_bounds",
    "run_problems",
    "conflict",
    "question_text",
]

VERDICTS = ("proven", "refuted", "undecided")
EXIT_CODES = {"proven": 0, "refuted": 1, "undecided": 3}
"""``robustgraph certify`` exit code per overall verdict (4: engines disagree; 2: bad input)."""

UNCHECKED_EXIT = 5
"""``robustgraph certify`` exit code for a ``proven`` verdict some lower bound of which has no
checkable proof (:func:`unchecked_bounds`): the engine's word is not a certificate, and
``verify`` rejects it (issue 44: a default install must never pass a CI gate on it)."""


def trivial_upper(topology: Topology, question: Question) -> int:
    """An upper bound on the question's quantity that needs no witness.

    For r*: 0 when n < 2, else ``min(ceil(n/2), max(1, min in-degree))`` (a pair of halves, or a
    node against the rest, is never that much reachable; LeBlanc et al. 2013). For s*_r: n, or
    0 when n < 2 or when r exceeds that bound on r* (a graph that is not r-robust has s*_r = 0,
    the convention of ``solvers.types``).
    """
    n = topology.n
    if n < 2:
        return 0
    top = min(-(-n // 2), max(1, min(topology.in_degrees)))
    if question.about_s:
        return 0 if question.r > top else n
    return top


def _total_search(topology: Topology, checks: Sequence[Check]) -> tuple[int, int, int | None]:
    """Replay the binary search for the F-total tolerance over ``checks[1:]``.

    Returns the proven bounds ``lo <= F_total <= hi`` and the next F to ask about (None when the
    search is over). Starts from ``lo = floor((r_lo - 1) / 2)``, ``hi = u - 1`` where u is the
    upper bound on r* capped by :func:`trivial_upper`; stops early on an undecided question.

    Raises
    ------
    ValueError
        When a check asks about another F than the search would (``verify`` reports it).
    """
    r_check = checks[0]
    r_lo = r_check.lower
    lo = (r_lo - 1) // 2 if r_lo >= 1 else -1
    hi = min(r_check.upper, trivial_upper(topology, r_check.question)) - 1
    for check in checks[1:]:
        f = (lo + hi + 1) // 2
        if lo >= hi or check.question != Question.is_rs_robust(f + 1, f + 1):
            raise ValueError("the F-total search asked another question")
        if check.holds is None:
            return lo, hi, None
        lo, hi = (f, hi) if check.holds else (lo, f - 1)
    return lo, hi, ((lo + hi + 1) // 2 if lo < hi else None)


def next_question(topology: Topology, claim: Claim, checks: Sequence[Check]) -> Question | None:
    """The next question to settle ``claim`` given the checks so far, or None when done.

    ``r``, ``rs`` and ``tolerance`` claims take one decision question. ``max`` asks ``max_r``,
    which settles r* and the tolerances that follow from it (``claims.FROM_R``); when its
    models hold ``wmsr-total`` it then binary-searches the F-total tolerance of W-MSR with
    ``is_rs_robust(F+1, F+1)``: (r, s)-robustness is monotone in r and s and implies
    r-robustness, so F_total <= r* - 1; and a (2F+1)-robust graph is (F+1, F+1)-robust (a
    violating pair, with its (F+1)-reachable nodes removed, would violate
    (2F+1)-robustness), so F_total >= floor((r* - 1) / 2) (LeBlanc et al. 2013). Returns
    None, too, when ``checks`` strays from this sequence.
    """
    if claim.kind != "max":
        return None if checks else claim.question()
    if not checks:
        return Question.max_r()
    if "wmsr-total" not in claim.models:
        return None
    try:
        _, _, f = _total_search(topology, checks)
    except ValueError:
        return None
    return None if f is None else Question.is_rs_robust(f + 1, f + 1)


def _max_values(
    topology: Topology, claim: Claim, checks: Sequence[Check]
) -> dict[str, tuple[int, int]]:
    r_lo, r_hi = checks[0].lower, checks[0].upper
    values = {
        "r": (r_lo, r_hi),
        "sac": (r_lo - 1, r_hi - 1),
        "wmsr-local": ((r_lo - 1) // 2, (r_hi - 1) // 2),
    }
    if "wmsr-total" in claim.models:
        total_lo, total_hi, _ = _total_search(topology, checks)
        values["wmsr-total"] = (total_lo, total_hi)
    return values


def claim_outcome(
    topology: Topology, claim: Claim, checks: Sequence[Check]
) -> tuple[str, dict[str, tuple[int, int]] | None]:
    """Verdict (and, for ``max``, the values with proven bounds) that ``checks`` establish.

    A decision claim is ``proven`` when every engine proved it, ``refuted`` when a witnessed
    upper bound falls below its target, else ``undecided``. A ``max`` claim is ``proven`` when
    every value it states is exact (r*, and the F-total tolerance when its models hold
    wmsr-total), else ``undecided``; tolerances are -1 when not even fault-free consensus is
    guaranteed (r* = 0).
    """
    if claim.kind != "max":
        holds = checks[0].holds
        return {True: "proven", False: "refuted", None: "undecided"}[holds], None
    values = _max_values(topology, claim, checks)
    exact = all(lo == hi for lo, hi in values.values())
    return ("proven" if exact else "undecided"), values


def overall_verdict(verdicts: Iterable[str]) -> str:
    """``refuted`` if any claim is, else ``undecided`` if any is, else ``proven``."""
    verdicts = set(verdicts)
    for verdict in ("refuted", "undecided"):
        if verdict in verdicts:
            return verdict
    return "proven"


def unchecked_bounds(records: Iterable[ClaimRecord]) -> tuple[str, ...]:
    """The lower bounds of ``records`` that rest on an engine's word, e.g. ``("r* >= 8",)``.

    A lower bound needs a proof when it asserts (r, s)-robustness with r, s >= 1
    (:attr:`Check.robustness`); r = 0 or s = 0 is trivial. A ``proven`` certificate with any
    such bound exits :data:`UNCHECKED_EXIT`, not 0.
    """
    return tuple(
        f"{check.bound_on} >= {check.lower}"
        for record in records
        for check in record.checks
        if check.proof is None and min(check.robustness) >= 1
    )


def run_problems(topology: Topology, question: Question, run: Run) -> list[str]:
    """Everything wrong with one engine run on its own: bounds, status, witness.

    A run's status is ``exact`` exactly when its bounds settle the question (meet, for max_r or
    max_s; pass the target either way, for a decision); a proven lower bound above the trivial
    upper bound is impossible; an upper bound below it needs a witness that verifies.
    """
    problems = []
    name = f"{run.engine} on {question_text(question)}"
    if not 0 <= run.lower <= run.upper:
        problems.append(f"{name}: bounds {run.lower} <= {run.upper} are not ordered and >= 0")
    trivial = trivial_upper(topology, question)
    if run.lower > trivial:
        problems.append(
            f"{name}: lower bound {run.lower} is impossible: {_trivial_text(topology, question)}"
        )
    target = question.target
    settled = (
        run.lower == run.upper if target is None else run.lower >= target or run.upper < target
    )
    if settled != (run.status == "exact"):
        problems.append(
            f"{name}: status {run.status} is inconsistent with bounds [{run.lower}, {run.upper}]"
        )
    if run.witness is not None:
        problem = witness_problem(topology, question, run.upper, run.witness)
        if problem:
            problems.append(f"{name}: witness invalid: {problem}")
    elif run.upper < trivial:
        problems.append(f"{name}: upper bound {run.upper} has no witness")
    return problems


def question_text(q: Question) -> str:
    """A question as text: ``max_r()``, ``is_r_robust(3)``, ``is_rs_robust(2, 2)``."""
    args = ", ".join(str(x) for x in (q.r, q.s) if x is not None)
    return f"{q.kind}({args})"


def _trivial_text(topology: Topology, question: Question) -> str:
    n = topology.n
    if question.about_s:
        return f"s* is at most n = {n}" if n >= 2 else "a graph with fewer than 2 nodes has s* = 0"
    if n < 2:
        return "a graph with fewer than 2 nodes has r* = 0"
    return (
        f"r* is at most ceil(n/2) = {-(-n // 2)} and at most max(1, min in-degree) = "
        f"{max(1, min(topology.in_degrees))}"
    )


def conflict(question: Question, runs: Sequence[Run]) -> str | None:
    """A description of how the runs contradict each other (one proves above another's witness)."""
    high = max(runs, key=lambda run: run.lower)
    low = min(runs, key=lambda run: run.upper)
    if high.lower <= low.upper:
        return None
    q = "s*" if question.about_s else "r*"
    return (
        f"engines disagree on {question_text(question)}: {high.engine} proved {q} >= {high.lower} "
        f"but {low.engine} proved {q} <= {low.upper}"
    )
