"""Run a library's graph reader on bytes we have already read, bounded and checked.

Our readers first take the file's bytes through :func:`robustgraph.io._common.read_bytes`
(regular files only, size capped, streamed decompression), then hand them to igraph or networkx.
igraph's C readers need a real file descriptor, so the bytes go into an anonymous in-memory file
(``memfd_create``; a temporary file where that is missing); no second read of the path happens.
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

__all__ = ["igraph_read", "in_memory_file"]

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
