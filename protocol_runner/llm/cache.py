"""A content-addressed response cache in SQLite (WAL mode), so a killed run repeats no call.

The key is a SHA-256 over everything that changes a completion: the backend's namespace, the
model, the messages, the sampling parameters, the seed, the ``user`` tag and the sample index.
Timeouts and retry settings are not part of it. Only successful completions are stored; errors
never are. ``put`` commits one entry and ``put_many`` a batch in one transaction (the client
commits every call that completed in the same event-loop turn together, before it hands any of
them out); WAL with ``synchronous=NORMAL`` keeps committed entries across a killed process, so a
restarted run finds every call that had completed.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import orjson

from protocol_runner.llm.types import CompletionRequest
from robustgraph.errors import ParameterError

__all__ = ["CACHE_SCHEMA", "ResponseCache", "cache_key"]

CACHE_SCHEMA = 1

# json.dumps would build a new encoder on every call.
_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_INSERT = "INSERT OR IGNORE INTO responses (key, record, created) VALUES (?, ?, ?)"


def cache_key(namespace: str, request: CompletionRequest) -> str:
    """SHA-256 hex digest identifying ``request`` at the backend named by ``namespace``.

    The digest is over the UTF-8 bytes of ``json.dumps([CACHE_SCHEMA, namespace, model,
    [[role, content], ...], temperature, top_p, max_tokens, seed, user, sample],
    ensure_ascii=False, separators=(",", ":"))``. The message list, nearly all of those bytes,
    is written by orjson, whose strings are byte-identical to json's (the tests check every code
    point) and 20 times faster to write; the scalar parts stay with json, whose float format
    orjson does not share, and are memoised. Keys are therefore the same as in every earlier
    version of the cache.

    Examples
    --------
    >>> from protocol_runner.llm.types import CompletionRequest
    >>> r = CompletionRequest.chat("sim-strong", [("user", "2+2?")], seed=1)
    >>> cache_key("simulated", r) == cache_key("simulated", r)
    True
    >>> cache_key("simulated", r) == cache_key("openai", r)
    False
    """
    messages = [[m.role, m.content] for m in request.messages]
    head = _scalars(CACHE_SCHEMA, namespace, request.model)
    tail = _scalars(request.temperature, request.top_p, request.max_tokens, request.seed,
                    request.user, request.sample)
    try:
        body = orjson.dumps(messages)
    except TypeError:  # a lone surrogate: let json handle (and reject) it as it always did
        body = _ENCODE(messages).encode("utf-8")
    return hashlib.sha256(b"".join((head[:-1], b",", body, b",", tail[1:]))).hexdigest()


@lru_cache(maxsize=4096, typed=True)
def _scalars(*values: Any) -> bytes:
    """``json.dumps(list(values))`` in UTF-8, memoised: a run repeats a few models, seeds and
    agent tags. (``typed``: 1 and 1.0 are written differently, so they are kept apart.)"""
    return _ENCODE(list(values)).encode("utf-8")


class ResponseCache:
    """SQLite store of completion records by :func:`cache_key`.

    Parameters
    ----------
    path : str or Path
        The database file (created with its parent directory if missing). Several processes
        may share it: WAL mode lets readers proceed while one writer commits.

    Notes
    -----
    Lookups and inserts are single-row primary-key operations (tens of microseconds); they run
    on the event loop thread rather than a worker thread, which would cost more than the query.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA busy_timeout=10000")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS responses ("
                "key TEXT PRIMARY KEY, record TEXT NOT NULL, created REAL NOT NULL)"
            )
        except sqlite3.DatabaseError as exc:
            raise ParameterError(f"response cache {self.path}: {exc}") from exc

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored record for ``key``, or ``None``."""
        row = self._db.execute("SELECT record FROM responses WHERE key = ?", (key,)).fetchone()
        return None if row is None else orjson.loads(row[0])

    def put(self, key: str, record: Mapping[str, Any]) -> None:
        """Store ``record`` under ``key`` and commit (an existing entry is kept)."""
        self.put_many([(key, record)])

    def put_many(self, items: Iterable[tuple[str, Mapping[str, Any]]]) -> None:
        """Store ``(key, record)`` pairs in one transaction: all are committed, or none (an
        existing entry is kept).

        One commit for a batch costs about half as much per entry as one commit per entry.
        """
        now = time.time()
        rows = [(key, orjson.dumps(record).decode("utf-8"), now) for key, record in items]
        self._db.execute("BEGIN IMMEDIATE")  # take the write lock now, waiting busy_timeout
        try:
            self._db.executemany(_INSERT, rows)
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def __len__(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        """Close the database connection."""
        self._db.close()
