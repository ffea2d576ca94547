"""The Task value: one question with its reference answer."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from protocol_runner.tasks.errors import TaskFormatError
from protocol_runner.tasks.labels import CHOICE_STYLES, choice_label, parse_bool, parse_choice

__all__ = ["TASK_KINDS", "Task"]

TASK_KINDS = ("math", "choice", "bool", "text")
_STYLED = re.compile(rf"({'|'.join(CHOICE_STYLES)})\s*[_#-]?\s*\d+", re.IGNORECASE)


def _native_style(answer: str) -> str:
    """The label prefix an answer is given in (``option2`` -> ``option``), else ``answer``."""
    match = _STYLED.fullmatch(answer.strip())
    return match.group(1).lower() if match else "answer"


@dataclass(frozen=True)
class Task:
    """A question with its reference answer.

    ``kind`` decides how answers are extracted and compared: ``math`` (numbers and expressions),
    ``choice`` (a label among ``choices``, answered as ``answer1..N``-style or letter labels),
    ``bool`` (true/false), ``text`` (normalised string equality). ``distractors`` are plausible
    wrong answers; the simulated backend draws correlated errors from them.

    The reference answer is stored canonically: a choice answer given as ``B``, ``2``, ``answer2``
    or the option text becomes ``answer2`` (``ending2``, ``option2`` or ``solution2`` when given in
    that style, as HellaSwag and Commonsense170k label their options); a bool answer given as
    ``yes``/``True`` becomes ``true``. Choice distractors are canonicalised the same way.

    Raises
    ------
    TaskFormatError
        For an unknown kind, an empty id, a choice task without options or whose answer names none
        of them, or a bool answer that is not a truth word. (It is also a ``ValueError``.)

    Examples
    --------
    >>> t = Task("q1", "Capital of France?", "B", kind="choice", choices=("Rome", "Paris"))
    >>> t.answer, t.labels, t.answer_index
    ('answer2', ('answer1', 'answer2'), 1)
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
            raise TaskFormatError(
                f"task {self.id}: unknown kind {self.kind!r}; expected one of {TASK_KINDS}"
            )
        if not isinstance(self.id, str) or not self.id:
            raise TaskFormatError(f"task {self.id!r}: the id must be a non-empty string")
        object.__setattr__(self, "choices", tuple(self.choices))
        object.__setattr__(self, "distractors", tuple(self.distractors))
        if self.kind == "choice":
            self._canonicalise_choice()
        elif self.kind == "bool":
            value = parse_bool(str(self.answer))
            if value is None:
                raise TaskFormatError(
                    f"task {self.id}: bool answer {self.answer!r} is not true/false"
                )
            object.__setattr__(self, "answer", "true" if value else "false")
            object.__setattr__(self, "distractors", ("false" if value else "true",))

    def _canonicalise_choice(self) -> None:
        if not self.choices:
            raise TaskFormatError(f"task {self.id}: a choice task needs at least one option")
        style = _native_style(str(self.answer))
        index = parse_choice(str(self.answer), self.choices)
        if index is None:
            raise TaskFormatError(
                f"task {self.id}: answer {self.answer!r} names none of the "
                f"{len(self.choices)} options"
            )
        object.__setattr__(self, "answer", choice_label(index, style))
        wrong = []
        for d in self.distractors:
            k = parse_choice(d, self.choices)
            if k is None or k == index:
                raise TaskFormatError(f"task {self.id}: distractor {d!r} is not a wrong option")
            wrong.append(choice_label(k, style))
        object.__setattr__(self, "distractors", tuple(wrong))

    @property
    def style(self) -> str:
        """The label prefix of a choice task (one of ``CHOICE_STYLES``); ``""`` for other kinds."""
        if self.kind != "choice":
            return ""
        return next(s for s in CHOICE_STYLES if self.answer.startswith(s))

    @property
    def labels(self) -> tuple[str, ...]:
        """The option labels in order (``answer1..answerN``); empty for non-choice tasks."""
        return tuple(choice_label(i, self.style) for i in range(len(self.choices)))

    @property
    def answer_index(self) -> int | None:
        """The 0-based index of the right option of a choice task; ``None`` for other kinds."""
        return self.labels.index(self.answer) if self.kind == "choice" else None

    def presented(self) -> str:
        """The question as a prompt shows it: the text, then one ``label: option`` line per option.

        Examples
        --------
        >>> print(Task("q", "Pick one.", "answer1", kind="choice", choices=("x", "y")).presented())
        Pick one.
        answer1: x
        answer2: y
        """
        if self.kind != "choice":
            return self.question
        options = zip(self.labels, self.choices, strict=True)
        lines = [self.question] + [f"{label}: {text}" for label, text in options]
        return "\n".join(lines)
