"""Writes that cannot leave a half file: a temporary file beside the target, then a rename.

One job: :func:`write_atomic`, used for everything the tools write that a later command reads
(certificates and their proof files, graphs); issue 41, row 11 (a full disk left 0-byte
certificates and proofs).
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["write_atomic"]


def write_atomic(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all: a temporary file beside it, flushed to
    disk, then renamed over it (``os.replace`` is atomic within a file system).

    A full disk, a read-only folder or a missing one leaves ``path`` as it was (no 0-byte or
    half file; the temporary file is removed) and raises ``OSError`` naming ``path``, which the
    CLI prints as one line (``PATH: No space left on device``). A ``path`` that exists and is
    not a regular file (``/dev/null``, ``/dev/full``, a FIFO) is written in place, never
    replaced.

    Examples
    --------
    >>> import tempfile
    >>> target = Path(tempfile.mkdtemp()) / "c.json"
    >>> write_atomic(target, b"{}")
    >>> target.read_bytes(), sorted(p.name for p in target.parent.iterdir())
    (b'{}', ['c.json'])
    """
    path = Path(path)
    try:
        special = path.exists() and not path.is_file()
    except OSError:
        special = False
    temp = path if special else path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(temp, "wb") as handle:
            handle.write(data)
            handle.flush()
            if not special:
                os.fsync(handle.fileno())
        if not special:
            os.replace(temp, path)
    except OSError as exc:
        if not special:
            try:
                temp.unlink()
            except OSError:
                pass
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None
