"""A content-addressed response cache in SQLite (WAL mode), so a killed run repeats no call.

The key is a SHA-256 over everything that changes a completion: the backend's namespace, the
model, the messages, the sampling parameters, the seed, the ``user`` tag and the sample index.
Timeouts and retry settings are not part of it. Only successful completions are stored; errors
never are. Each ``put`` commits at once, and WAL with ``synchronous=NORMAL`` keeps committed
entries across a killed process, so a restarted run finds every call that had completed.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from protocol_runner.llm.types import CompletionRequest
from robustgraph.errors import ParameterError

__all__ = ["CACHE_SCHEMA", "ResponseCache", "cache_key"]

CACHE_SCHEMA = 1


def cache_key(namespace: str, request: CompletionRequest) -> str:
    """SHA-256 hex digest identifying ``request`` at the backend named by ``namespace``.

    Examples
    --------
    >>> from protocol_runner.llm.types import CompletionRequest
    >>> r = CompletionRequest.chat("sim-strong", [("user", "2+2?")], seed=1)
    >>> cache_key("simulated", r) == cache_key("simulated", r)
    True
    >>> cache_key("simulated", r) == cache_key("openai", r)
    False
    """
    payload = [
        CACHE_SCHEMA,
        namespace,
        request.model,
        [[m.role, m.content] for m in request.messages],
        request.temperature,
        request.top_p,
        request.max_tokens,
        request.seed,
        request.user,
        request.sample,
    ]
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


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
        return None if row is None else json.loads(row[0])

    def put(self, key: str, record: Mapping[str, Any]) -> None:
        """Store ``record`` under ``key`` and commit (an existing entry is kept)."""
        self._db.execute(
            "INSERT OR IGNORE INTO responses (key, record, created) VALUES (?, ?, ?)",
            (key, json.dumps(record, ensure_ascii=False, separators=(",", ":")), time.time()),
        )

    def __len__(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        """Close the database connection."""
        self._db.close()
