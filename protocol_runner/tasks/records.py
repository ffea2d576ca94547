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


PARQUET_BATCH = 64
"""Rows of a Parquet file decoded at a time (its decoded size is checked before its records)."""
CELL_BYTES = 64
"""What one value costs as a Python object at least, counted in a Parquet file's decoded bytes."""


def _decoded_bytes(batch: Any) -> int:
    """What ``batch`` (an Arrow record batch) decodes to: each dictionary-encoded value counted
    once per row that refers to it (a 1 MB string in 200,000 rows is 200 GB, not 1 MB), other
    columns by their Arrow buffers, plus :data:`CELL_BYTES` per value."""
    import pyarrow as pa
    import pyarrow.compute as pc

    total = CELL_BYTES * batch.num_rows * batch.num_columns
    for column in batch.columns:
        if not pa.types.is_dictionary(column.type):
            total += column.nbytes
            continue
        values = column.dictionary
        if pa.types.is_string(values.type) or pa.types.is_binary(values.type) or (
            pa.types.is_large_string(values.type) or pa.types.is_large_binary(values.type)
        ):
            sizes = pc.binary_length(values)
        else:  # the widest value's bytes, for each row
            sizes = pa.array([values.nbytes // max(len(values), 1) + 1] * len(values))
        total += (pc.sum(pc.take(sizes, column.indices)).as_py() or 0) + column.indices.nbytes
    return total


def _parquet(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """The rows of a Parquet file, bounded by the file's bytes, its uncompressed bytes (from the
    metadata, before anything is decoded) and its decoded bytes (:func:`_decoded_bytes`, against
    the ``bytes`` budget as a JSON file's text is, checked per :data:`PARQUET_BATCH` rows before
    they become records): string columns are read dictionary-encoded, so a file of a few KB
    that repeats one large string in every row never inflates in memory."""
    pa = require("pyarrow", f"{path}: Parquet task files")
    import pyarrow.parquet as pq

    FILE_BYTES.check(path.stat().st_size, f"{path}: the Parquet file's bytes")
    try:
        schema = pq.read_schema(path)
        text = [f.name for f in schema if pa.types.is_string(f.type) or pa.types.is_binary(f.type)
                or pa.types.is_large_string(f.type) or pa.types.is_large_binary(f.type)]
        reader = pq.ParquetFile(path, read_dictionary=text)
    except (pa.ArrowException, OSError) as exc:
        raise TaskFormatError(f"{path}: not a readable Parquet file ({exc})") from None
    meta = reader.metadata  # row groups' uncompressed sizes, checked before any is decoded
    inflated = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    INFLATED_BYTES.check(inflated, f"{path}: the Parquet file's uncompressed bytes")
    row = decoded = 0
    for batch in reader.iter_batches(batch_size=PARQUET_BATCH):
        decoded += _decoded_bytes(batch)
        FILE_BYTES.check(decoded, f"{path}: the Parquet file's decoded bytes by row {row}")
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
