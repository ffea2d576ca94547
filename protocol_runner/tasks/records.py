"""Read the records of a local dataset file (JSON, JSONL or Parquet) or a folder of them.

Each record comes with its location (``file:line`` for JSONL, ``file[i]`` for a JSON list,
``file row i`` for Parquet) so that a bad record is reported as one line naming where it is.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from protocol_runner.tasks.errors import TaskFormatError
from robustgraph.limits import FILE_BYTES, INFLATED_BYTES, read_text, regular_file
from solvers.extras import require

__all__ = ["SUFFIXES", "iter_records", "jsonl_objects"]

SUFFIXES = (".jsonl", ".ndjson", ".json", ".parquet")


def _lines(path: Path, error: type[Exception], label: str) -> Iterator[tuple[int, str]]:
    with io.StringIO(read_text(path, error=error, label=label)) as handle:  # type: ignore[arg-type]
        yield from enumerate(handle, start=1)


def jsonl_objects(
    path: Path, *, error: type[Exception] = TaskFormatError, label: str | None = None
) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """Each JSON object of a JSONL file, with its line number and location ``label:line``.

    Blank lines are skipped. Text that is not UTF-8, a line that is not JSON (a 4300+ digit
    number and deep nesting included) or not an object raises ``error`` with one line naming
    where; ``label`` defaults to the path.
    """
    label = str(path) if label is None else label
    for number, line in _lines(path, error, label):
        if not line.strip():
            continue
        where = f"{label}:{number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise error(f"{where}: invalid JSON ({exc.msg})") from None
        except (ValueError, RecursionError) as exc:  # a 4300+ digit number, deep nesting
            raise error(f"{where}: invalid JSON ({str(exc).split(';')[0]})") from None
        if not isinstance(record, dict):
            raise error(f"{where}: expected a JSON object, got {type(record).__name__}")
        yield number, where, record


def _jsonl(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    for _, where, record in jsonl_objects(path):
        yield where, record


def _json(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    try:
        data = json.loads(read_text(path, error=TaskFormatError))
    except json.JSONDecodeError as exc:
        raise TaskFormatError(f"{path}:{exc.lineno}: invalid JSON ({exc.msg})") from None
    except (ValueError, RecursionError) as exc:  # a 4300+ digit number, deep nesting
        raise TaskFormatError(f"{path}: invalid JSON ({str(exc).split(';')[0]})") from None
    if isinstance(data, dict):
        yield str(path), data
        return
    if not isinstance(data, list):
        raise TaskFormatError(f"{path}: expected a JSON object or a list of objects")
    for i, record in enumerate(data):
        if not isinstance(record, dict):
            raise TaskFormatError(
                f"{path}[{i}]: expected a JSON object, got {type(record).__name__}"
            )
        yield f"{path}[{i}]", record


def _parquet(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    pa = require("pyarrow", f"{path}: Parquet task files")
    import pyarrow.parquet as pq

    FILE_BYTES.check(path.stat().st_size, f"{path}: the Parquet file's bytes")
    try:
        reader = pq.ParquetFile(path)
    except (pa.ArrowException, OSError) as exc:
        raise TaskFormatError(f"{path}: not a readable Parquet file ({exc})") from None
    meta = reader.metadata  # row groups' uncompressed sizes, checked before any is decoded
    inflated = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    INFLATED_BYTES.check(inflated, f"{path}: the Parquet file's uncompressed bytes")
    row = 0
    for batch in reader.iter_batches(batch_size=1024):
        for record in batch.to_pylist():
            yield f"{path} row {row}", record
            row += 1


def iter_records(path: str | Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield ``(location, record)`` for every record of ``path``, in file order.

    Parameters
    ----------
    path : str or Path
        A ``.jsonl``/``.ndjson`` file (one object per line; blank lines skipped), a ``.json``
        file (one object, or a list of objects), a ``.parquet`` file, or a folder: every such file
        below it, in sorted path order (the layout of the Hendrycks MATH release).

    Raises
    ------
    TaskFormatError
        For a missing path, an unknown suffix, invalid JSON (naming the line) or a non-object.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.jsonl"
    >>> _ = p.write_text('{"x": 1}\\n\\n{"x": 2}\\n')
    >>> [(w.rsplit(":", 1)[1], r["x"]) for w, r in iter_records(p)]
    [('1', 1), ('3', 2)]
    """
    path = Path(path)
    if not path.exists():
        raise TaskFormatError(f"{path}: no such file or folder")
    if not path.is_dir():
        regular_file(path, error=TaskFormatError)
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in SUFFIXES)
        if not files:
            raise TaskFormatError(f"{path}: folder holds no {'/'.join(SUFFIXES)} files")
        for file in files:
            yield from iter_records(file)
        return
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        yield from _jsonl(path)
    elif suffix == ".json":
        yield from _json(path)
    elif suffix == ".parquet":
        yield from _parquet(path)
    else:
        raise TaskFormatError(f"{path}: unknown file type {suffix!r}; expected one of {SUFFIXES}")
