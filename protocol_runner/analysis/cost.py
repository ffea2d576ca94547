"""The one cost summary of a run, printed the same way by ``run`` and ``report``.

Five quantities, each defined once (and in docs/report.md, "Cost"):

- **LLM requests**: completion requests the protocols sent to the LLM client (one per message
  an agent, the judge or the re-executor asked a model for), summed over the run's records,
  plus the few the run sends outside any query (the ``fixed`` attack's out-of-distribution
  answers, asked once per run; in the session log);
- **cache hits**: of those, the requests answered from the run's response cache
  (``cache.sqlite``) without a backend call;
- **backend calls**: calls the client made to the backend that returned a completion; the
  rest of the requests, ``shared``, joined an identical call already in flight (so
  ``requests = cache hits + shared + backend calls`` when no call failed);
- **tokens**: prompt and completion tokens the backend reported for its backend calls (what
  a paid endpoint bills);
- **wall time**: elapsed seconds of the run, summed over its sessions (a resumed run has
  several).

Requests and cache hits come from the records (``results.jsonl``); backend calls, shared
requests, tokens and wall time from the session log (:mod:`protocol_runner.run.sessions`),
which only the client sees. A directory without a session log (written by an older version)
has them as None, printed "not recorded".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from protocol_runner.run.records import QueryRecord

__all__ = ["RunCost", "cost_line"]


@dataclass(frozen=True)
class RunCost:
    """The run's cost (definitions in the module docstring); None where not recorded."""

    requests: int
    cache_hits: int
    backend_calls: int | None
    shared: int | None
    prompt_tokens: int | None
    completion_tokens: int | None
    wall_s: float | None
    sessions: int

    @classmethod
    def of(
        cls, records: Iterable[QueryRecord], sessions: Sequence[Mapping[str, Any]]
    ) -> RunCost:
        """From the run's records (their ``cost``) and its session lines.

        Examples
        --------
        >>> from types import SimpleNamespace as R
        >>> records = [R(cost=R(llm_calls=6, cache_hits=2)), R(cost=R(llm_calls=4, cache_hits=0))]
        >>> session = {"wall_s": 1.5, "client": {"calls": 7, "shared": 1, "prompt_tokens": 90,
        ...            "completion_tokens": 9}}
        >>> cost = RunCost.of(records, [session])
        >>> cost.requests, cost.cache_hits, cost.backend_calls, cost.shared, cost.total_tokens
        (10, 2, 7, 1, 99)
        >>> RunCost.of(records, []).backend_calls is None
        True
        """
        requests = hits = 0
        for record in records:
            requests += record.cost.llm_calls
            hits += record.cost.cache_hits
        if not sessions:
            return cls(requests, hits, None, None, None, None, None, 0)
        for session in sessions:  # requests no query record counts (the fixed attack's)
            requests += int(session.get("outside_queries", {}).get("requests", 0))
            hits += int(session.get("outside_queries", {}).get("cache_hits", 0))

        def total(key: str) -> int:
            return sum(int(s["client"].get(key, 0)) for s in sessions)

        return cls(
            requests=requests,
            cache_hits=hits,
            backend_calls=total("calls"),
            shared=total("shared"),
            prompt_tokens=total("prompt_tokens"),
            completion_tokens=total("completion_tokens"),
            wall_s=sum(float(s["wall_s"]) for s in sessions),
            sessions=len(sessions),
        )

    @property
    def total_tokens(self) -> int | None:
        """Prompt plus completion tokens (None when not recorded)."""
        if self.prompt_tokens is None or self.completion_tokens is None:
            return None
        return self.prompt_tokens + self.completion_tokens

    def to_json(self) -> dict[str, Any]:
        """``summary.json``'s ``cost``: every quantity, None where not recorded."""
        return {
            "llm_requests": self.requests,
            "cache_hits": self.cache_hits,
            "shared": self.shared,
            "backend_calls": self.backend_calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
            "wall_s": None if self.wall_s is None else round(self.wall_s, 3),
            "sessions": self.sessions,
        }


def _count(value: int | None) -> str:
    return "not recorded" if value is None else f"{value:,}"


def cost_line(cost: Mapping[str, Any]) -> str:
    """The cost as one line, from ``summary.json``'s ``cost``; ``run`` and ``report`` print it.

    Examples
    --------
    >>> line = cost_line({"llm_requests": 31900, "cache_hits": 18341, "shared": 3707,
    ...     "backend_calls": 9852, "prompt_tokens": 10, "completion_tokens": 2,
    ...     "total_tokens": 12, "wall_s": 7.93, "sessions": 1})
    >>> print(line.replace("; ", ";\\n"))
    cost: 31,900 LLM requests = 18,341 cache hits + 3,707 shared + 9,852 backend calls;
    12 tokens (10 prompt + 2 completion);
    wall time 7.9 s
    >>> print(cost_line({"llm_requests": 5, "cache_hits": 1, "shared": None,
    ...     "backend_calls": None, "prompt_tokens": None, "completion_tokens": None,
    ...     "total_tokens": None, "wall_s": None, "sessions": 0}).replace("; ", ";\\n"))
    cost: 5 LLM requests, 1 cache hits;
    backend calls, tokens and wall time not recorded (no sessions.jsonl)
    """
    requests, hits = f"{cost['llm_requests']:,}", f"{cost['cache_hits']:,}"
    if cost["backend_calls"] is None:
        return (
            f"cost: {requests} LLM requests, {hits} cache hits; backend calls, tokens and "
            "wall time not recorded (no sessions.jsonl)"
        )
    sessions = f" over {cost['sessions']} sessions" if cost["sessions"] > 1 else ""
    return (
        f"cost: {requests} LLM requests = {hits} cache hits + {_count(cost['shared'])} shared + "
        f"{_count(cost['backend_calls'])} backend calls; {_count(cost['total_tokens'])} tokens "
        f"({_count(cost['prompt_tokens'])} prompt + {_count(cost['completion_tokens'])} "
        f"completion); wall time {cost['wall_s']:.1f} s{sessions}"
    )
