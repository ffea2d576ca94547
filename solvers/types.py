"""The backend-neutral request and result of every robustness engine.

Every engine answers one :class:`Question` about a graph and returns a :class:`Result` holding
*proven* bounds on one integer: ``r*`` (the largest r for which the graph is r-robust) for
``max_r`` and ``is_r_robust``, or ``s*_r`` (the largest s for which it is (r,s)-robust, 0 if it is
not r-robust, at most n) for ``max_s`` and ``is_rs_robust``. Definitions follow LeBlanc, Zhang,
Koutsoukos & Sundaram, "Resilient asymptotic consensus in robust networks", IEEE JSAC 31(4), 2013,
on in-neighbours. By convention a graph with fewer than two nodes has r* = s* = 0 (no pair of
disjoint nonempty sets exists, and its lone node hears no one).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from solvers.errors import ParameterError

__all__ = [
    "GraphLike",
    "Listener",
    "Question",
    "Request",
    "Result",
    "Status",
    "Witness",
    "QUESTION_KINDS",
]

QUESTION_KINDS = ("max_r", "is_r_robust", "max_s", "is_rs_robust")


class GraphLike(Protocol):
    """What an engine needs of a graph: in-neighbour index sets and the directed flag.

    ``robustgraph.Topology`` satisfies it; engines never import ``robustgraph``.
    """

    directed: bool
    in_neighbors: Sequence[frozenset[int]]


class Status(StrEnum):
    """How much of the question a result proves.

    ``exact``: the answer is proven (bounds meet, or the decision is settled). ``bounded``: the
    engine stopped (time limit) with proven but unequal bounds. ``timeout``: stopped with no
    bound beyond the trivial ones. ``error``: the engine failed; bounds are the trivial ones.
    """

    EXACT = "exact"
    BOUNDED = "bounded"
    TIMEOUT = "timeout"
    ERROR = "error"

    @classmethod
    def of(
        cls, question: Question, lower: int, upper: int, trivial: int, failed: bool = False
    ) -> Status:
        """The status proven bounds justify: exact only when they meet or settle a decision;
        ``trivial`` is the bound that needs no proof, ``failed`` that an engine failed."""
        target = question.target
        if lower >= upper or (target is not None and (lower >= target or upper < target)):
            return cls.EXACT
        if failed and lower == 0 and upper == trivial:
            return cls.ERROR
        return cls.BOUNDED if lower > 0 or upper < trivial else cls.TIMEOUT


@dataclass(frozen=True)
class Question:
    """One of ``max_r``, ``is_r_robust(r)``, ``max_s(r)``, ``is_rs_robust(r, s)``.

    Examples
    --------
    >>> Question.is_rs_robust(2, 3)
    Question(kind='is_rs_robust', r=2, s=3)
    """

    kind: str
    r: int | None = None
    s: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in QUESTION_KINDS:
            raise ParameterError(
                f"unknown question {self.kind!r}; expected one of {QUESTION_KINDS}"
            )
        needs_r = self.kind != "max_r"
        needs_s = self.kind == "is_rs_robust"
        if needs_r != (self.r is not None) or needs_s != (self.s is not None):
            raise ParameterError(f"question {self.kind} takes r={needs_r}, s={needs_s}")
        if self.r is not None and self.r < 0:
            raise ParameterError(f"r must be >= 0, got {self.r}")
        if self.s is not None and self.s < 0:
            raise ParameterError(f"s must be >= 0, got {self.s}")

    @classmethod
    def max_r(cls) -> Question:
        return cls("max_r")

    @classmethod
    def is_r_robust(cls, r: int) -> Question:
        return cls("is_r_robust", r=r)

    @classmethod
    def max_s(cls, r: int) -> Question:
        return cls("max_s", r=r)

    @classmethod
    def is_rs_robust(cls, r: int, s: int) -> Question:
        return cls("is_rs_robust", r=r, s=s)

    @property
    def about_s(self) -> bool:
        """True when the bounds are on s*_r rather than on r*."""
        return self.kind in ("max_s", "is_rs_robust")

    @property
    def target(self) -> int | None:
        """The threshold a decision compares the bounded quantity with (None for max questions)."""
        if self.kind == "is_r_robust":
            return self.r
        if self.kind == "is_rs_robust":
            return self.s
        return None


Listener = Callable[[int, int, str], None]
"""Called with ``(lower, upper, text)`` as a search proves bounds or starts a probe
(``solvers.search.Progress.tell``)."""


@dataclass(frozen=True)
class Request:
    """A backend-neutral robustness question about one graph.

    ``listener``, when set, hears the proven bounds while the engine works (see
    :class:`Listener`); it may be called from a racer's thread (``solvers.race``), so it should
    only record or format what it is given. It is not part of the question: equality, hashing
    and ``repr`` ignore it, and nothing that pickles or serialises a request may carry one
    (only the CLI sets it, for a solve in its own process).

    ``known_lower``: a lower bound on the question's quantity that the caller has already
    proven, e.g. s*_R >= 1 once a solve proved r* >= R ((R, 1)-robustness is R-robustness,
    LeBlanc et al. 2013, Def. 7; ``solvers.after_r``). The portfolio starts from it and skips
    the work that would prove it again; other engines may ignore it. Never a guess: every
    exact answer built on it is only as sound as the solve that proved it.
    """

    graph: GraphLike
    question: Question
    time_limit: float | None = None
    threads: int = 1
    formulation: str = "strong"
    seed: int = 0
    listener: Listener | None = field(default=None, compare=False, repr=False)
    known_lower: int = 0

    @property
    def n(self) -> int:
        return len(self.graph.in_neighbors)


@dataclass(frozen=True)
class Witness:
    """Two disjoint nonempty node-index sets that refute robustness above the result's upper bound.

    For r*: neither set is (upper+1)-reachable. For s*_r: neither set is entirely r-reachable and
    the sets hold ``upper`` r-reachable nodes together, so the pair violates (r, upper+1).
    """

    s1: frozenset[int]
    s2: frozenset[int]


@dataclass(frozen=True)
class Result:
    """Proven bounds ``lower <= q <= upper`` on the question's quantity q (r* or s*_r).

    ``witness`` proves ``upper`` whenever ``upper`` is below the trivial bound. ``value`` is q
    when the bounds meet; ``holds`` settles a decision question, or is None when undecided.
    """

    question: Question
    status: Status
    lower: int
    upper: int
    witness: Witness | None
    engine: str
    formulation: str | None
    wall_time: float
    engine_version: str = ""
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def value(self) -> int | None:
        return self.lower if self.lower == self.upper else None

    @property
    def holds(self) -> bool | None:
        target = self.question.target
        if target is None:
            return None
        if self.lower >= target:
            return True
        if self.upper < target:
            return False
        return None
