"""The run's session log ``sessions.jsonl``: one line per invocation of the runner on a directory.

A run may take several sessions (an interrupted run resumes into the same directory). The
per-query records (``results.jsonl``) say what each query asked of the LLM layer; only the
client knows what reached the backend and how long the session took. So the runner appends,
at the end of every session, one JSON line::

    {"run_id": "...", "wall_s": 7.93, "ran": 500, "resumed": 0,
     "client": {"calls": 9852, "cache_hits": 18341, "shared": 3707, "prompt_tokens": ..., ...}}

``client`` is :class:`protocol_runner.llm.client.ClientStats` of the session. The cost summary
(:mod:`protocol_runner.analysis.cost`) sums the lines of the directory's run(s).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

__all__ = ["SESSIONS_FILE", "append_session", "read_sessions"]

SESSIONS_FILE = "sessions.jsonl"


def append_session(
    directory: str | Path,
    run_id: str,
    *,
    wall_s: float,
    ran: int,
    resumed: int,
    client: Mapping[str, int],
    outside_queries: Mapping[str, int] | None = None,
) -> Path:
    """Append this session's line to ``directory/sessions.jsonl`` (created if absent).

    Parameters
    ----------
    directory : str or Path
        The run's results directory.
    run_id : str
        The run's id (lines of another run are ignored by :func:`read_sessions`).
    wall_s : float
        Elapsed seconds of the session, from the first query to the last.
    ran, resumed : int
        Queries run in this session, and found done on disk.
    client : mapping of str to int
        The session's client counters (``ClientStats.as_dict()``).
    outside_queries : mapping of str to int, optional
        ``{"requests": R, "cache_hits": H}``: the requests the run sent outside any query (the
        ``fixed`` attack's out-of-distribution answers, asked once per run), which no query
        record counts.

    Returns
    -------
    Path
        The log file.
    """
    path = Path(directory) / SESSIONS_FILE
    line = {"run_id": run_id, "wall_s": round(wall_s, 6), "ran": ran, "resumed": resumed,
            "client": dict(client), "outside_queries": dict(outside_queries or {})}
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(line, sort_keys=True) + "\n")
    return path


def read_sessions(directory: str | Path, run_ids: Collection[str]) -> list[dict[str, Any]]:
    """The complete session lines of the runs ``run_ids`` under ``directory``.

    Read from ``directory/sessions.jsonl`` and, for a directory that holds one run per seed
    in subdirectories (``run --seeds``), from each ``directory/*/sessions.jsonl``; ``[]``
    without a log. A line that is not a JSON object with ``run_id``, ``wall_s`` and ``client``
    (e.g. the truncated last line of a killed write) is skipped.
    """
    root = Path(directory)
    paths = [root / SESSIONS_FILE, *sorted(root.glob(f"*/{SESSIONS_FILE}"))]
    sessions = []
    for path in (p for p in paths if p.is_file()):
        for text in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                line = json.loads(text)
            except ValueError:
                continue
            if (
                isinstance(line, dict)
                and line.get("run_id") in run_ids
                and isinstance(line.get("wall_s"), int | float)
                and isinstance(line.get("client"), dict)
            ):
                sessions.append(line)
    return sessions
