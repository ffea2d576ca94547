"""How a backend tells the shared client what went wrong: retry now, retry later, or give up.

Backends classify their own failures (inspect_ai style): :class:`TransientError` (5xx, timeouts,
dropped connections, malformed replies: retry with backoff), :class:`RateLimited` (HTTP 429: retry
after the server's ``Retry-After``), or ``robustgraph.errors.BackendError`` (fatal: unknown model,
bad request, authentication). Only ``BackendError`` ever reaches a user; the two retryable kinds
are signals to :class:`protocol_runner.llm.client.LLMClient`, which turns them into a
``BackendError`` once its retries are spent.
"""

from __future__ import annotations

from robustgraph.errors import BackendError

__all__ = ["BackendError", "RateLimited", "RetryableError", "TransientError"]


class RetryableError(Exception):
    """A failure that a later attempt may not repeat."""


class TransientError(RetryableError):
    """Retry with exponential backoff: server error, timeout, connection error, malformed reply."""


class RateLimited(RetryableError):
    """HTTP 429. ``retry_after`` is the server's requested wait in seconds, if it sent one."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after
