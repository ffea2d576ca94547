"""Field access for dataset records, with one-line errors naming the record's location."""

from __future__ import annotations

from typing import Any

from protocol_runner.tasks.errors import TaskFormatError

__all__ = ["native_id", "require", "require_text"]


def require(record: dict[str, Any], names: tuple[str, ...], where: str) -> Any:
    """The value of the first of ``names`` present (and not None) in ``record``.

    Raises
    ------
    TaskFormatError
        ``<where>: missing field 'a' (or 'b')`` when none is present.
    """
    for name in names:
        if record.get(name) is not None:
            return record[name]
    alternatives = " (or " + ", ".join(repr(n) for n in names[1:]) + ")" if len(names) > 1 else ""
    raise TaskFormatError(f"{where}: missing field {names[0]!r}{alternatives}")


def require_text(record: dict[str, Any], names: tuple[str, ...], where: str) -> str:
    """Like :func:`require`, for a non-empty string field."""
    value = require(record, names, where)
    if not isinstance(value, str) or not value.strip():
        raise TaskFormatError(f"{where}: field {names[0]!r} must be a non-empty string")
    return value.strip()


def native_id(record: dict[str, Any], names: tuple[str, ...], prefix: str, index: int) -> str:
    """The dataset's own id (first of ``names`` present), else ``<prefix>-<index>``."""
    for name in names:
        value = record.get(name)
        if value is not None and str(value).strip():
            return str(value).strip()
    return f"{prefix}-{index:05d}"
