"""Adapters for local math datasets: GSM8K and Hendrycks MATH / MATH-500.

- GSM8K (Cobbe et al., 2021, "Training Verifiers to Solve Math Word Problems"): records with
  ``question`` and ``answer``, the answer's worked solution ending in ``#### <number>``.
- MATH (Hendrycks et al., 2021): records with ``problem`` and ``solution`` whose last
  ``\\boxed{...}`` is the answer; MATH-500 (Lightman et al., 2023) adds an ``answer`` field,
  which takes precedence, and a ``unique_id``.
"""

from __future__ import annotations

import re
from typing import Any

from protocol_runner.tasks.distractors import math_distractors
from protocol_runner.tasks.errors import TaskFormatError
from protocol_runner.tasks.fields import native_id, require_text
from protocol_runner.tasks.latex import last_boxed
from protocol_runner.tasks.model import Task

__all__ = ["gsm8k_task", "math_task"]

_FINAL = re.compile(r"####\s*(.+?)\s*$", re.DOTALL)


def gsm8k_task(record: dict[str, Any], where: str, index: int) -> Task:
    """A math Task from a GSM8K record; the answer is the number after ``####`` without commas.

    Examples
    --------
    >>> gsm8k_task({"question": "Q?", "answer": "3 + 4 = 7\\n#### 1,007"}, "f:1", 0).answer
    '1007'
    """
    question = require_text(record, ("question",), where)
    solution = require_text(record, ("answer",), where)
    match = _FINAL.search(solution)
    if not match:
        raise TaskFormatError(f"{where}: GSM8K answer has no '#### <number>' line")
    answer = match.group(1).replace(",", "").replace("$", "").strip()
    return Task(
        id=native_id(record, ("id",), "gsm8k", index),
        question=question,
        answer=answer,
        kind="math",
        distractors=math_distractors(answer),
        source="gsm8k",
    )


def math_task(record: dict[str, Any], where: str, index: int) -> Task:
    """A math Task from a MATH / MATH-500 record: ``answer`` if given, else the last box.

    Examples
    --------
    >>> math_task({"problem": "P", "solution": "so $\\\\boxed{\\\\frac12}$."}, "f", 0).answer
    '\\\\frac12'
    """
    problem = require_text(record, ("problem",), where)
    answer = record.get("answer")
    if not isinstance(answer, str) or not answer.strip():
        solution = require_text(record, ("solution", "answer"), where)
        answer = last_boxed(solution)
        if answer is None:
            raise TaskFormatError(f"{where}: MATH solution has no \\boxed{{...}} answer")
    answer = answer.strip()
    return Task(
        id=native_id(record, ("unique_id", "id"), "math", index),
        question=problem,
        answer=answer,
        kind="math",
        distractors=math_distractors(answer),
        source="math",
    )
