"""The LLM access layer: request/response values, one shared async client, a response cache.

Protocols build :class:`CompletionRequest` values with ``protocol_runner.protocols.prompts`` and
send them
through :class:`LLMClient`, which owns caching, concurrency, timeouts and retries for every
backend (``protocol_runner.llm.backends``).
"""

from protocol_runner.llm.cache import ResponseCache, cache_key
from protocol_runner.llm.client import Backend, ClientConfig, ClientStats, LLMClient
from protocol_runner.llm.types import (
    AgentIdentity,
    ChatMessage,
    Completion,
    CompletionRequest,
    Usage,
)

__all__ = [
    "AgentIdentity",
    "Backend",
    "ChatMessage",
    "ClientConfig",
    "ClientStats",
    "Completion",
    "CompletionRequest",
    "LLMClient",
    "ResponseCache",
    "Usage",
    "cache_key",
]
