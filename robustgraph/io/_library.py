"""Run a library's graph reader on bytes we have already read, bounded and checked.

Our readers first take the file's bytes through :func:`robustgraph.io._common.read_bytes`
(regular files only, size capped, streamed decompression), then hand them to igraph or networkx.
igraph's and Graphviz's C readers need a real file descriptor, so the bytes go into an anonymous
in-memory file (``memfd_create``; a temporary file where that is missing); no second read of the
path happens. Graphviz prints its parse errors on the process's standard error instead of
returning them: :func:`c_stderr` catches them there, so they become our one-line error.
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

__all__ = ["c_stderr", "igraph_read", "in_memory_file"]

_IGRAPH_ERROR = re.compile(r"^Error at [^:]+:\d+: (?P<what>.*?)(?: -- .*)?$", re.DOTALL)


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

    with in_memory_file(data) as handle:
        try:
            return reader(handle, **options)
        except (ig.InternalError, ValueError, MemoryError) as exc:
            text = " ".join(str(exc).split())
            match = _IGRAPH_ERROR.match(text)
            raise format_error(path, match.group("what") if match else text) from None
