"""Run a library's graph reader on bytes we have already read, bounded and checked.

Our readers first take the file's bytes through :func:`robustgraph.io._common.read_bytes`
(regular files only, size capped, streamed decompression), then hand them to igraph or networkx.
igraph's and Graphviz's C readers need a real file descriptor, so the bytes go into an anonymous
in-memory file (``memfd_create``; a temporary file where that is missing); no second read of the
path happens. Graphviz prints its parse errors on the process's standard error instead of
returning them: :func:`c_stderr` catches them there, so they become our one-line error.

Native parsers never see control bytes: :func:`plain_text` refuses NUL and the other C0 control
bytes (all but tab, line feed and carriage return) and DEL before igraph, Graphviz or scipy get
the data. A single NUL in a Matrix Market body made ``scipy.io.mmread`` (fast_matrix_market)
segfault (issue 30); none of these text formats allows such bytes (XML 1.0 forbids them), so the
check costs one regex scan in C and refuses nothing a writer makes. ``benchmarks/fuzz_native.py``
fuzzes every native reader in child processes, where a crash is a finding, not a dead process.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from robustgraph.io._common import format_error

__all__ = ["c_stderr", "igraph_read", "in_memory_file", "plain_text"]

_IGRAPH_ERROR = re.compile(r"^Error at [^:]+:\d+: (?P<what>.*?)(?: -- .*)?$", re.DOTALL)
_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def plain_text(path: str | Path, data: bytes) -> bytes:
    """``data`` when it is UTF-8 text without control bytes (but tab, line feed and carriage
    return); else a one-line error naming the line. Called on every input of a native parser:
    igraph aborted the process (a failed assertion in ``strvector.c``) on a name that is not
    UTF-8.

    Examples
    --------
    >>> plain_text("g.mtx", b"1 2\\n")
    b'1 2\\n'
    >>> plain_text("g.mtx", b"1 2\\n3\\x004\\n")
    Traceback (most recent call last):
    ...
    robustgraph.errors.GraphFormatError: g.mtx: line 2: holds the control byte 0x00 (not a \
text file?); not read
    """
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise format_error(path, "not UTF-8 text (binary file?)", f"line {line}") from None
    found = _CONTROL.search(data)
    if found is None:
        return data
    line = data.count(b"\n", 0, found.start()) + 1
    raise format_error(
        path,
        f"holds the control byte 0x{found.group()[0]:02x} (not a text file?); not read",
        f"line {line}",
    )


@contextmanager
def in_memory_file(data: bytes) -> Iterator[IO[bytes]]:
    """A binary file object with a real descriptor holding ``data``, positioned at the start."""
    if hasattr(os, "memfd_create"):
        handle: IO[bytes] = os.fdopen(os.memfd_create("robustgraph-graph"), "w+b")
    else:  # pragma: no cover - platforms without memfd
        handle = tempfile.TemporaryFile()
    with handle:
        handle.write(data)
        handle.seek(0)
        yield handle


@contextmanager
def c_stderr() -> Iterator[Callable[[], str]]:
    """Send file descriptor 2 (where C libraries print) to an in-memory file meanwhile.

    Yields a function that returns what was printed so far, as text; descriptor 2 is restored on
    exit, whatever happens.
    """
    saved = os.dup(2)
    with in_memory_file(b"") as sink:
        os.dup2(sink.fileno(), 2)

        def printed() -> str:
            os.lseek(sink.fileno(), 0, os.SEEK_SET)
            return os.read(sink.fileno(), 1 << 16).decode("utf-8", "replace")

        try:
            yield printed
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def igraph_read(path: str | Path, data: bytes, reader: Callable[..., Any], **options: Any) -> Any:
    """``reader(file, **options)`` (an ``igraph.Graph.Read_*``) on ``data``; errors as one line.

    Raises
    ------
    GraphFormatError
        With igraph's own words (its C source location dropped), naming the file.
    """
    import igraph as ig

    with in_memory_file(plain_text(path, data)) as handle:
        try:
            return reader(handle, **options)
        except (ig.InternalError, ValueError, MemoryError) as exc:
            text = " ".join(str(exc).split())
            match = _IGRAPH_ERROR.match(text)
            raise format_error(path, match.group("what") if match else text) from None
