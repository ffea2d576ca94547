"""An ordered, immutable set of tasks with lookup by id and by the question a prompt contains."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import overload

from protocol_runner.tasks.errors import TaskFormatError
from protocol_runner.tasks.model import Task
from robustgraph.limits import quote

__all__ = ["TaskSet"]


class TaskSet(Sequence[Task]):
    """Tasks in a fixed order, with unique ids.

    Parameters
    ----------
    tasks : iterable of Task
    name : str
        Where the set came from (a spec such as ``arith:100:seed=3`` or a file path).

    Raises
    ------
    TaskFormatError
        If two tasks share an id.

    Examples
    --------
    >>> ts = TaskSet([Task("a", "What is 2 + 3?", "5")], name="demo")
    >>> ts["a"].answer, len(ts), ts.find_in("Question: What is 2 + 3?\\nThink first.").id
    ('5', 1, 'a')
    """

    def __init__(self, tasks: Iterable[Task], *, name: str = "") -> None:
        self._tasks = tuple(tasks)
        self.name = name
        self._by_id: dict[str, Task] = {}
        self._by_first_line: dict[str, list[Task]] = {}
        for task in self._tasks:
            if task.id in self._by_id:
                raise TaskFormatError(f"{name or 'task set'}: duplicate task id {quote(task.id)}")
            self._by_id[task.id] = task
            self._by_first_line.setdefault(_first_line(task.question), []).append(task)

    @overload
    def __getitem__(self, key: int) -> Task: ...
    @overload
    def __getitem__(self, key: slice) -> TaskSet: ...
    @overload
    def __getitem__(self, key: str) -> Task: ...

    def __getitem__(self, key: int | slice | str) -> Task | TaskSet:
        """A task by position or by id; a slice gives a TaskSet."""
        if isinstance(key, str):
            return self._by_id[key]
        if isinstance(key, slice):
            return TaskSet(self._tasks[key], name=self.name)
        return self._tasks[key]

    def __len__(self) -> int:
        return len(self._tasks)

    def __iter__(self) -> Iterator[Task]:
        return iter(self._tasks)

    def __contains__(self, item: object) -> bool:
        if isinstance(item, str):
            return item in self._by_id
        return item in self._tasks

    def __repr__(self) -> str:
        return f"TaskSet(name={self.name!r}, n={len(self)})"

    def find_in(self, text: str) -> Task | None:
        """The task whose question appears verbatim in ``text`` (a prompt), or ``None``.

        When several questions appear, the longest wins (a question that contains another).
        Lines of ``text`` are looked up by a question's first line (also after a ``Label:``
        prefix such as ``Question:``), then every question is tried as a substring.

        Notes
        -----
        O(lines of text) dictionary look-ups in the common case; O(tasks) substring tests otherwise.
        """
        found: list[Task] = []
        for line in text.splitlines():
            line = line.strip()
            keys = {line}
            if ": " in line:
                keys.add(line.split(": ", 1)[1].strip())
            for key in keys:
                found.extend(t for t in self._by_first_line.get(key, ()) if t.question in text)
        if not found:
            found = [t for t in self._tasks if t.question and t.question in text]
        return max(found, key=lambda t: len(t.question), default=None)


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")
