"""The Task value: one question with its reference answer."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["TASK_KINDS", "Task"]

TASK_KINDS = ("math", "choice", "bool", "text")


@dataclass(frozen=True)
class Task:
    """A question with its reference answer.

    ``kind`` decides how answers are extracted and compared: ``math`` (numbers and expressions),
    ``choice`` (a label among ``choices``, answered as ``answer1..N``-style or letter labels),
    ``bool`` (true/false), ``text`` (normalised string equality). ``distractors`` are plausible
    wrong answers; the simulated backend draws correlated errors from them.
    """

    id: str
    question: str
    answer: str
    kind: str = "math"
    choices: tuple[str, ...] = ()
    distractors: tuple[str, ...] = field(default=(), compare=False)
    source: str = ""

    def __post_init__(self) -> None:
        if self.kind not in TASK_KINDS:
            raise ValueError(f"task {self.id}: unknown kind {self.kind!r}; expected one of {TASK_KINDS}")
