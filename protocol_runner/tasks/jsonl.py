"""Read and write task sets in robustgraph's own JSONL format (one task per line).

Each line is an object with ``id``, ``question``, ``answer`` and optionally ``kind`` (``math``,
``choice``, ``bool``, ``text``; default ``math``), ``choices`` (a list of option texts, for
``choice``), ``distractors`` (a list of plausible wrong answers) and ``source``.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from protocol_runner.tasks.errors import TaskFormatError
from protocol_runner.tasks.model import Task
from protocol_runner.tasks.records import iter_records
from protocol_runner.tasks.taskset import TaskSet
from robustgraph.limits import quote

__all__ = ["read_jsonl", "task_from_record", "task_to_record", "write_jsonl"]

_FIELDS = ("id", "question", "answer", "kind", "choices", "distractors", "source")


def _text(value: Any, name: str, where: str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        raise TaskFormatError(f"{where}: field {name!r} is {value} (not a finite number)")
    if isinstance(value, int | float) or isinstance(value, str):
        return str(value)
    raise TaskFormatError(f"{where}: field {name!r} must be a string, got {type(value).__name__}")


def _texts(value: Any, name: str, where: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise TaskFormatError(f"{where}: field {name!r} must be a list, got {type(value).__name__}")
    return tuple(_text(v, name, where) for v in value)


def task_from_record(record: dict[str, Any], where: str) -> Task:
    """A Task from one JSONL object; ``where`` (``file:line``) prefixes any error.

    Raises
    ------
    TaskFormatError
        For a missing required field, an unknown field, a wrong type or an invalid task.

    Examples
    --------
    >>> task_from_record({"id": 7, "question": "1+1?", "answer": 2}, "t.jsonl:1").answer
    '2'
    """
    missing = [f for f in ("id", "question", "answer") if f not in record]
    if missing:
        raise TaskFormatError(f"{where}: missing field {quote(missing[0])}")
    unknown = sorted(set(record) - set(_FIELDS))
    if unknown:
        raise TaskFormatError(f"{where}: unknown field {quote(unknown[0])}; expected {_FIELDS}")
    try:
        return Task(
            id=_text(record["id"], "id", where),
            question=_text(record["question"], "question", where),
            answer=_text(record["answer"], "answer", where),
            kind=_text(record.get("kind", "math"), "kind", where),
            choices=_texts(record.get("choices", []), "choices", where),
            distractors=_texts(record.get("distractors", []), "distractors", where),
            source=_text(record.get("source", ""), "source", where),
        )
    except TaskFormatError as exc:
        if str(exc).startswith(where):
            raise
        raise TaskFormatError(f"{where}: {exc}") from None


def task_to_record(task: Task) -> dict[str, Any]:
    """The JSONL object of a task; empty optional fields are left out."""
    record: dict[str, Any] = {
        "id": task.id,
        "question": task.question,
        "answer": task.answer,
        "kind": task.kind,
    }
    if task.choices:
        record["choices"] = list(task.choices)
    if task.distractors:
        record["distractors"] = list(task.distractors)
    if task.source:
        record["source"] = task.source
    return record


def read_jsonl(path: str | Path) -> TaskSet:
    """Read a task-set JSONL file.

    Raises
    ------
    TaskFormatError
        One line naming the file and line: invalid JSON, a missing or unknown field, a bad kind,
        a choice answer that names no option, or a duplicate id.
    """
    tasks, seen = [], {}
    for where, record in iter_records(path):
        task = task_from_record(record, where)
        if task.id in seen:
            raise TaskFormatError(
                f"{where}: duplicate id {quote(task.id)} (first at {seen[task.id]})"
            )
        seen[task.id] = where
        tasks.append(task)
    return TaskSet(tasks, name=str(path))


def write_jsonl(tasks: Iterable[Task], path: str | Path) -> int:
    """Write tasks as JSONL (atomically: a temporary file renamed into place); returns the count.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.jsonl"
    >>> write_jsonl([Task("a", "1+1?", "2")], p), read_jsonl(p)[0].answer
    (1, '2')
    """
    path = Path(path)
    temporary = path.with_name(path.name + ".tmp")
    count = 0
    with temporary.open("w", encoding="utf-8") as handle:
        for task in tasks:
            handle.write(json.dumps(task_to_record(task), ensure_ascii=False) + "\n")
            count += 1
    os.replace(temporary, path)
    return count
