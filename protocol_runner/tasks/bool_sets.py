"""Adapters for local true/false datasets: BoolQ and RTE, answers ``true``/``false``.

- BoolQ (Clark et al., 2019): ``question``, ``passage`` and ``answer`` (a JSON bool) as released;
  SuperGLUE and the hub use ``label`` (a bool, or 1 = true / 0 = false).
- RTE (Dagan et al., 2005; as in GLUE and SuperGLUE): ``premise``/``hypothesis`` (SuperGLUE) or
  ``sentence1``/``sentence2`` (GLUE), ``label`` ``entailment``/``not_entailment`` or, on the hub,
  0 = entailment, 1 = not entailment. ``true`` means the premise entails the hypothesis.
"""

from __future__ import annotations

from typing import Any

from protocol_runner.tasks.errors import TaskFormatError
from protocol_runner.tasks.fields import native_id, require, require_text
from protocol_runner.tasks.model import Task

__all__ = ["boolq_task", "rte_task"]


def boolq_task(record: dict[str, Any], where: str, index: int) -> Task:
    """A bool Task from a BoolQ record: the passage, then the question.

    Examples
    --------
    >>> t = boolq_task({"question": "is water wet", "passage": "Water is wet.", "label": 1}, "f", 0)
    >>> t.answer, t.question.splitlines()[1]
    ('true', 'Question: is water wet?')
    """
    question = require_text(record, ("question",), where)
    passage = require_text(record, ("passage",), where)
    value = require(record, ("answer", "label"), where)
    if isinstance(value, bool):
        truth = value
    elif value in (0, 1):
        truth = value == 1
    elif isinstance(value, str) and value.strip().lower() in ("true", "false"):
        truth = value.strip().lower() == "true"
    else:
        raise TaskFormatError(f"{where}: BoolQ answer must be true/false or 1/0, got {value!r}")
    question = question if question.endswith("?") else f"{question}?"
    title = str(record.get("title") or "").strip()
    head = f"Passage ({title}): {passage}" if title else f"Passage: {passage}"
    return Task(
        id=native_id(record, ("idx", "id"), "boolq", index),
        question=f"{head}\nQuestion: {question}",
        answer="true" if truth else "false",
        kind="bool",
        source="boolq",
    )


def rte_task(record: dict[str, Any], where: str, index: int) -> Task:
    """A bool Task from an RTE record: does the premise entail the hypothesis?

    Examples
    --------
    >>> r = {"premise": "A dog runs.", "hypothesis": "An animal moves.", "label": "entailment"}
    >>> rte_task(r, "f", 0).answer
    'true'
    """
    premise = require_text(record, ("premise", "sentence1"), where)
    hypothesis = require_text(record, ("hypothesis", "sentence2"), where)
    label = require(record, ("label",), where)
    if label in ("entailment", 0) and not isinstance(label, bool):
        truth = True
    elif label in ("not_entailment", 1) and not isinstance(label, bool):
        truth = False
    elif label == -1:
        raise TaskFormatError(f"{where}: label -1 (an unlabelled test split?)")
    else:
        raise TaskFormatError(
            f"{where}: RTE label must be entailment/not_entailment or 0/1, got {label!r}"
        )
    return Task(
        id=native_id(record, ("idx", "id"), "rte", index),
        question=(
            f"Premise: {premise}\nHypothesis: {hypothesis}\nDoes the premise entail the hypothesis?"
        ),
        answer="true" if truth else "false",
        kind="bool",
        source="rte",
    )
