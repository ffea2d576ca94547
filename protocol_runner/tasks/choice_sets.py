"""Adapters for local multiple-choice datasets: ARC, OpenBookQA, CommonsenseQA and HellaSwag.

Options are presented in file order as ``answer1..answerN`` (``ending1..ending4`` for HellaSwag),
the labelling of the SAC experiments (Lee et al., 2026); the dataset's own letter or digit key
(``answerKey`` ``C`` or ``3``) is mapped to the position of the option that carries it.

Layouts read:

- ARC (Clark et al., 2018), OpenBookQA (Mihaylov et al., 2018), CommonsenseQA (Talmor et al.,
  2019) as released: ``question: {stem, choices: [{label, text}, ...]}`` and ``answerKey``;
  as on the Hugging Face hub: ``question`` (or OpenBookQA's ``question_stem``) as a string,
  ``choices: {label: [...], text: [...]}`` and ``answerKey``.
- HellaSwag (Zellers et al., 2019): ``ctx`` (or ``ctx_a`` + ``ctx_b``), ``activity_label``,
  ``endings`` (four) and ``label`` (an int, or a digit string on the hub).
"""

from __future__ import annotations

from typing import Any

from protocol_runner.tasks.errors import TaskFormatError
from protocol_runner.tasks.fields import native_id, require, require_text
from protocol_runner.tasks.labels import choice_label
from protocol_runner.tasks.model import Task

__all__ = ["hellaswag_task", "multiple_choice_task"]


def _options(record: dict[str, Any], where: str) -> tuple[list[str], list[str]]:
    question = record.get("question")
    raw = record.get("choices")
    if raw is None and isinstance(question, dict):
        raw = question.get("choices")
    if isinstance(raw, dict):  # hub layout: {label: [...], text: [...]}
        labels, texts = raw.get("label"), raw.get("text")
        if not isinstance(labels, list) or not isinstance(texts, list) or len(labels) != len(texts):
            raise TaskFormatError(f"{where}: 'choices' needs equal-length 'label' and 'text' lists")
    elif isinstance(raw, list):  # released layout: [{label, text}, ...]
        if not all(isinstance(c, dict) and "label" in c and "text" in c for c in raw):
            raise TaskFormatError(f"{where}: every choice needs 'label' and 'text'")
        labels, texts = [c["label"] for c in raw], [c["text"] for c in raw]
    else:
        raise TaskFormatError(f"{where}: missing field 'choices'")
    if len(texts) < 2:
        raise TaskFormatError(f"{where}: a multiple-choice question needs at least two choices")
    return [str(x).strip() for x in labels], [str(x).strip() for x in texts]


def multiple_choice_task(record: dict[str, Any], where: str, index: int, source: str) -> Task:
    """A choice Task from an ARC, OpenBookQA or CommonsenseQA record (either layout).

    Raises
    ------
    TaskFormatError
        For a missing stem or choices, or an ``answerKey`` that is empty (an unlabelled test
        split) or names no choice.

    Examples
    --------
    >>> r = {"id": "q7", "question": {"stem": "Sky?", "choices": [
    ...     {"label": "A", "text": "green"}, {"label": "B", "text": "blue"}]}, "answerKey": "B"}
    >>> t = multiple_choice_task(r, "f:1", 0, "arc")
    >>> t.id, t.answer, t.choices, t.distractors
    ('q7', 'answer2', ('green', 'blue'), ('answer1',))
    """
    question = record.get("question")
    if isinstance(question, dict):
        stem = require_text(question, ("stem",), where)
    else:
        stem = require_text(record, ("question", "question_stem"), where)
    labels, texts = _options(record, where)
    key = str(record.get("answerKey") or "").strip()
    if not key:
        raise TaskFormatError(f"{where}: empty 'answerKey' (an unlabelled test split?)")
    if key not in labels:
        raise TaskFormatError(f"{where}: answerKey {key!r} is not one of the labels {labels}")
    right = labels.index(key)
    return Task(
        id=native_id(record, ("id",), source, index),
        question=stem,
        answer=choice_label(right),
        kind="choice",
        choices=tuple(texts),
        distractors=tuple(choice_label(i) for i in range(len(texts)) if i != right),
        source=source,
    )


def hellaswag_task(record: dict[str, Any], where: str, index: int) -> Task:
    """A choice Task from a HellaSwag record: the context, options ``ending1..ending4``.

    Examples
    --------
    >>> r = {"ind": 4, "activity_label": "Cooking", "ctx": "He cracks an egg and",
    ...      "endings": ["sings.", "whisks it.", "flies.", "sleeps."], "label": "1"}
    >>> t = hellaswag_task(r, "f:1", 0)
    >>> t.id, t.answer, t.question
    ('4', 'ending2', 'Cooking: He cracks an egg and')
    """
    context = record.get("ctx")
    if not isinstance(context, str) or not context.strip():
        a = require_text(record, ("ctx_a",), where)
        context = f"{a} {str(record.get('ctx_b') or '').strip()}".strip()
    activity = str(record.get("activity_label") or "").strip()
    question = f"{activity}: {context.strip()}" if activity else context.strip()
    endings = require(record, ("endings",), where)
    if not isinstance(endings, list) or len(endings) < 2:
        raise TaskFormatError(f"{where}: 'endings' must be a list of at least two strings")
    label = record.get("label")
    if label is None or (isinstance(label, str) and not label.strip()):
        raise TaskFormatError(f"{where}: empty 'label' (an unlabelled test split?)")
    try:
        right = int(label)
    except (TypeError, ValueError):
        raise TaskFormatError(f"{where}: 'label' must be an ending index, got {label!r}") from None
    if not 0 <= right < len(endings):
        raise TaskFormatError(f"{where}: 'label' {right} is outside 0..{len(endings) - 1}")
    return Task(
        id=native_id(record, ("ind", "id"), "hellaswag", index),
        question=question,
        answer=choice_label(right, "ending"),
        kind="choice",
        choices=tuple(str(e).strip() for e in endings),
        distractors=tuple(choice_label(i, "ending") for i in range(len(endings)) if i != right),
        source="hellaswag",
    )
