"""``load_tasks(spec)``: one string names a task set, generated or read from a local file.

Specs::

    arith:N[:seed=S][:terms=T][:max=M][:form=F][:options=K]
                                             the built-in arithmetic set; F math (default),
                                             choice (K options, default 4) or bool
    commonsense30[:LIMIT][:offset=K]         the SAC paper's 30 Commonsense170k instances
                                             (App. C Table 8; built in, no file)
    placeholder-BENCH[:LIMIT][:offset=K]     50 synthetic tasks shaped like one of the paper's
                                             open-weight benchmarks (arc_challenge, hellaswag,
                                             openbookqa, boolq, rte), for simulated agents only
    jsonl:PATH[:LIMIT][:offset=K]            robustgraph's own task JSONL
    FORMAT:PATH[:LIMIT][:offset=K]           a local dataset file or folder, FORMAT one of
                                             gsm8k, math, arc, openbookqa, commonsenseqa,
                                             hellaswag, boolq, rte (aliases: math500, obqa, csqa)
    PATH.jsonl                               shorthand for jsonl:PATH.jsonl (a PATH with a
                                             ``:`` in it must exist to be read this way)

Options are read from the right, so a PATH may itself contain ``:``. Nothing is downloaded.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from protocol_runner.tasks.arith import generate_arith
from protocol_runner.tasks.bool_sets import boolq_task, rte_task
from protocol_runner.tasks.choice_sets import hellaswag_task, multiple_choice_task
from protocol_runner.tasks.commonsense30 import COMMONSENSE30, commonsense30
from protocol_runner.tasks.errors import TaskFormatError
from protocol_runner.tasks.jsonl import task_from_record
from protocol_runner.tasks.math_sets import gsm8k_task, math_task
from protocol_runner.tasks.model import Task
from protocol_runner.tasks.placeholders import PLACEHOLDERS
from protocol_runner.tasks.records import iter_records
from protocol_runner.tasks.taskset import TaskSet
from robustgraph import limits
from robustgraph.errors import ParameterError

__all__ = ["FORMATS", "load_tasks", "read_dataset", "stated_count"]

Adapter = Callable[[dict[str, Any], str, int], Task]

FORMATS: dict[str, Adapter] = {
    "jsonl": lambda record, where, index: task_from_record(record, where),
    "gsm8k": gsm8k_task,
    "math": math_task,
    "arc": functools.partial(multiple_choice_task, source="arc"),
    "openbookqa": functools.partial(multiple_choice_task, source="openbookqa"),
    "commonsenseqa": functools.partial(multiple_choice_task, source="commonsenseqa"),
    "hellaswag": hellaswag_task,
    "boolq": boolq_task,
    "rte": rte_task,
}
_ALIASES = {
    "math500": "math",
    "obqa": "openbookqa",
    "csqa": "commonsenseqa",
    "arc-challenge": "arc",
}
_ARITH_KEYS = {"seed": "seed", "terms": "terms", "max": "max_operand", "options": "options"}
_BUILT_IN = {COMMONSENSE30: commonsense30, **PLACEHOLDERS}
"""Fixed built-in task sets, by the name a spec gives them."""


def read_dataset(
    fmt: str, path: str | Path, *, limit: int | None = None, offset: int = 0
) -> TaskSet:
    """Read a local dataset file or folder in the public format ``fmt``.

    Parameters
    ----------
    fmt : str
        A key of ``FORMATS`` (or an alias).
    path : str or Path
        A JSON, JSONL or Parquet file, or a folder of them.
    limit : int, optional
        Keep at most this many tasks (after ``offset``); records past them are not read.
    offset : int
        Skip this many records first.

    Raises
    ------
    ParameterError
        For an unknown format, a negative limit/offset, or more than
        :data:`robustgraph.limits.MAX_TASKS` tasks.
    TaskFormatError
        For an unreadable file or a malformed record (one line naming file and line), or a
        duplicate id.
    """
    name = _ALIASES.get(fmt.lower(), fmt.lower())
    if name not in FORMATS:
        raise ParameterError(f"unknown task format {fmt!r}; expected one of {sorted(FORMATS)}")
    if (limit is not None and limit < 0) or offset < 0:
        raise ParameterError("limit and offset must be >= 0")
    if limit is not None:
        limits.at_most("limit", limit, limits.MAX_TASKS, " tasks")
    adapter = FORMATS[name]
    tasks: list[Task] = []
    seen: dict[str, str] = {}
    for index, (where, record) in enumerate(iter_records(path)):
        if index < offset:
            continue
        if limit is not None and len(tasks) >= limit:
            break
        if len(tasks) == limits.MAX_TASKS:
            raise ParameterError(
                f"{path}: holds more than {limits.MAX_TASKS:,} tasks, the ceiling of a run "
                f"({limits.DOCS}); give a LIMIT ({fmt}:{path}:LIMIT)"
            )
        task = adapter(record, where, index)
        if task.id in seen:
            raise TaskFormatError(
                f"{where}: duplicate id {limits.quote(task.id)} (first at {seen[task.id]})"
            )
        seen[task.id] = where
        tasks.append(task)
    return TaskSet(tasks, name=f"{name}:{path}")


def _int(value: str, what: str, spec: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise ParameterError(
            f"task spec {spec!r}: {what} must be an integer, got {value!r}"
        ) from None


def _split_options(
    parts: list[str], allowed: set[str], spec: str
) -> tuple[list[str], dict[str, str]]:
    """Peel ``key=value`` and bare-integer options off the right end of ``parts``."""
    options: dict[str, str] = {}
    while len(parts) > 1:
        last = parts[-1]
        key, eq, value = last.partition("=")
        if eq and key in allowed:
            if key in options:
                raise ParameterError(f"task spec {spec!r}: option {key!r} given twice")
            options[key] = value
        elif eq and key.isidentifier():
            raise ParameterError(
                f"task spec {spec!r}: unknown option {key!r}; expected one of {sorted(allowed)}"
            )
        elif last.isdigit() and "limit" in allowed and "limit" not in options:
            options["limit"] = last
        else:
            break
        parts.pop()
    return parts, options


def _built_in(name: str, rest: str, spec: str) -> TaskSet:
    """A built-in set, optionally cut to ``[:LIMIT][:offset=K]``."""
    parts, options = _split_options([name, *rest.split(":")] if rest else [name],
                                    {"limit", "offset"}, spec)
    if len(parts) != 1:
        raise ParameterError(f"task spec {spec!r}: expected {name}[:LIMIT][:offset=K]")
    offset = _int(options.get("offset", "0"), "offset", spec)
    limit = _int(options["limit"], "limit", spec) if "limit" in options else None
    if offset < 0 or (limit is not None and limit < 0):
        raise ParameterError(f"task spec {spec!r}: limit and offset must be >= 0")
    tasks = list(_BUILT_IN[name]())[offset: None if limit is None else offset + limit]
    return TaskSet(tasks, name=spec)


_STATED_COUNT = re.compile(
    r"(?i)^\s*arith:(\d+)(?::|\s*$)|:(?:limit=)?(\d+)(?=:offset=\d+\s*$|\s*$)"
)


def stated_count(spec: str) -> int | None:
    """How many tasks ``spec`` asks for when it says so (``arith:N``, a ``LIMIT``), without
    building or reading them (``arith:100000`` takes seconds to build); ``None`` when only the
    file can tell. A malformed spec is left to :func:`load_tasks`.

    Examples
    --------
    >>> stated_count("arith:100000:seed=3"), stated_count("gsm8k:test.jsonl:50")
    (100000, 50)
    >>> stated_count("arc:a.jsonl:limit=20:offset=10"), stated_count("jsonl:t.jsonl") is None
    (20, True)
    """
    found = _STATED_COUNT.search(spec)
    if found is None:
        return None
    return int(found.group(1) or found.group(2))


def load_tasks(spec: str) -> TaskSet:
    """The task set a spec names (see the module docstring for the grammar).

    Parameters
    ----------
    spec : str
        E.g. ``arith:100``, ``arith:100:seed=3``, ``commonsense30``, ``gsm8k:data/test.jsonl:50``,
        ``arc:ARC-Challenge-Test.jsonl:limit=20:offset=10``, ``jsonl:tasks.jsonl``.

    Returns
    -------
    TaskSet
        Named by the spec.

    Raises
    ------
    ParameterError
        A malformed spec: unknown source, missing path or count, bad option.
    TaskFormatError
        A malformed file (one line naming the file and the line).

    Examples
    --------
    >>> ts = load_tasks("arith:3:seed=5")
    >>> len(ts), ts.name
    (3, 'arith:3:seed=5')
    """
    spec = spec.strip()
    head, sep, rest = spec.partition(":")
    source = _ALIASES.get(head.lower(), head.lower())
    if source in _BUILT_IN:
        return _built_in(source, rest, spec)
    if not sep or (source not in FORMATS and source != "arith"):
        if spec.lower().endswith((".jsonl", ".ndjson")) and (not sep or Path(spec).exists()):
            source, rest = "jsonl", spec
        else:
            known = ", ".join(["arith", *_BUILT_IN, *sorted(FORMATS)])
            raise ParameterError(f"task spec {spec!r}: unknown source {head!r}; expected {known}")
    if source == "arith":
        parts, options = _split_options(rest.split(":"), {*_ARITH_KEYS, "form"}, spec)
        if len(parts) != 1 or not parts[0]:
            raise ParameterError(f"task spec {spec!r}: expected "
                                 "arith:N[:seed=S][:terms=T][:max=M][:form=F][:options=K]")
        form = options.pop("form", "math")
        kwargs: dict[str, Any] = {_ARITH_KEYS[k]: _int(v, k, spec) for k, v in options.items()}
        limits.at_most("max", kwargs.get("max_operand", 0), limits.MAX_OPERAND)
        count = limits.at_most("arith: N", _int(parts[0], "N", spec), limits.MAX_TASKS, " tasks")
        tasks = generate_arith(count, form=form, **kwargs)
        return TaskSet(tasks, name=spec)
    parts, options = _split_options(rest.split(":"), {"limit", "offset"}, spec)
    path = ":".join(parts)
    if not path:
        raise ParameterError(f"task spec {spec!r}: missing the file path after '{head}:'")
    limit = _int(options["limit"], "limit", spec) if "limit" in options else None
    offset = _int(options.get("offset", "0"), "offset", spec)
    tasks = read_dataset(source, path, limit=limit, offset=offset)
    return TaskSet(tasks, name=spec)
