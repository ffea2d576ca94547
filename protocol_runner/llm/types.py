"""Values that cross the LLM boundary: chat messages, a completion request, its result and usage.

A :class:`CompletionRequest` is backend-neutral. :meth:`CompletionRequest.to_openai_body` turns it
into the JSON body of an OpenAI chat-completions call; every backend (the in-process simulator,
``serve-sim`` over HTTP, a real endpoint) consumes exactly that body, so they all see the same
fields. Agent identity travels in the standard ``user`` field (see :class:`AgentIdentity`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from robustgraph.errors import ParameterError

__all__ = [
    "ROLES",
    "AgentIdentity",
    "ChatMessage",
    "Completion",
    "CompletionRequest",
    "Usage",
    "split_wire_user",
]

ROLES = ("system", "user", "assistant")

_SAMPLE_MARK = "#"


@dataclass(frozen=True)
class ChatMessage:
    """One chat message: ``role`` is ``system``, ``user`` or ``assistant``."""

    role: str
    content: str

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ParameterError(f"chat message role {self.role!r}; expected one of {ROLES}")


@dataclass(frozen=True)
class AgentIdentity:
    """Who is asking: an agent id plus the infrastructure it shares with other agents.

    Agents with the same ``checkpoint`` (base model weights) or ``corpus`` (retrieval corpus)
    make correlated errors in the simulator. The identity is encoded in the OpenAI ``user`` field
    as ``agent=<id>;ckpt=<checkpoint>;corpus=<corpus>`` (empty parts left out), which a real
    endpoint treats as an opaque end-user tag.

    Examples
    --------
    >>> tag = AgentIdentity("a3", checkpoint="base-1").to_user()
    >>> tag
    'agent=a3;ckpt=base-1'
    >>> AgentIdentity.from_user(tag)
    AgentIdentity(agent_id='a3', checkpoint='base-1', corpus='')
    """

    agent_id: str
    checkpoint: str = ""
    corpus: str = ""

    def __post_init__(self) -> None:
        for name in ("agent_id", "checkpoint", "corpus"):
            value = getattr(self, name)
            if any(ch in value for ch in ";=" + _SAMPLE_MARK) or value != value.strip():
                raise ParameterError(
                    f"agent {name} {value!r} may not contain ';', '=', '#' or edge spaces"
                )
        if not self.agent_id:
            raise ParameterError("agent id must be non-empty")

    def to_user(self) -> str:
        """The ``user`` tag that carries this identity."""
        parts = [f"agent={self.agent_id}"]
        if self.checkpoint:
            parts.append(f"ckpt={self.checkpoint}")
        if self.corpus:
            parts.append(f"corpus={self.corpus}")
        return ";".join(parts)

    @classmethod
    def from_user(cls, user: str | None) -> AgentIdentity:
        """Parse a ``user`` tag; a tag without ``key=value`` parts is taken as a bare agent id."""
        if not user:
            return cls("anonymous")
        fields: dict[str, str] = {}
        for part in user.split(";"):
            key, sep, value = part.partition("=")
            if sep:
                fields[key.strip()] = value.strip()
        if not fields:
            return cls(user.strip() or "anonymous")
        return cls(
            fields.get("agent", "anonymous") or "anonymous",
            checkpoint=fields.get("ckpt", ""),
            corpus=fields.get("corpus", ""),
        )


@dataclass(frozen=True)
class CompletionRequest:
    """A backend-neutral chat-completion request.

    Parameters
    ----------
    model : str
        Model name at the backend (``sim-strong`` / ``sim-weak`` for simulated agents).
    messages : tuple of ChatMessage
        The conversation.
    temperature, top_p, max_tokens : sampling parameters; ``None`` leaves the backend default.
    seed : int or None
        Sampling seed; the simulator reads it as the seed of its whole simulated world.
    user : str or None
        The OpenAI ``user`` field; :meth:`AgentIdentity.to_user` builds it.
    sample : int
        Sample index: asking the same agent the same prompt with another index gives an
        independent draw. Sent as a ``#<sample>`` suffix on ``user`` when nonzero.

    Notes
    -----
    Timeouts and retry policy are deliberately not part of a request: they do not change the
    output, so they stay out of the cache key (``protocol_runner.llm.cache.cache_key``).
    """

    model: str
    messages: tuple[ChatMessage, ...]
    temperature: float | None = 0.0
    top_p: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    user: str | None = None
    sample: int = 0

    def __post_init__(self) -> None:
        if not self.model:
            raise ParameterError("completion request needs a model name")
        if not self.messages:
            raise ParameterError("completion request needs at least one message")
        if not isinstance(self.messages, tuple):
            object.__setattr__(self, "messages", tuple(self.messages))
        if self.sample < 0:
            raise ParameterError(f"sample index must be >= 0, got {self.sample}")
        if self.max_tokens is not None and self.max_tokens < 1:
            raise ParameterError(f"max_tokens must be >= 1, got {self.max_tokens}")
        if self.user is not None and _SAMPLE_MARK in self.user:
            raise ParameterError(f"user tag {self.user!r} may not contain '#'")

    @classmethod
    def chat(
        cls, model: str, messages: Iterable[tuple[str, str]], **params: Any
    ) -> CompletionRequest:
        """Build a request from ``(role, content)`` pairs."""
        return cls(model, tuple(ChatMessage(r, c) for r, c in messages), **params)

    def wire_user(self) -> str | None:
        """The ``user`` field as sent: the tag, plus ``#<sample>`` for a nonzero sample index."""
        if self.sample == 0:
            return self.user
        return f"{self.user or ''}{_SAMPLE_MARK}{self.sample}"

    def to_openai_body(self) -> dict[str, Any]:
        """The JSON body of the OpenAI ``/v1/chat/completions`` call for this request."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in self.messages],
        }
        for name in ("temperature", "top_p", "max_tokens", "seed"):
            value = getattr(self, name)
            if value is not None:
                body[name] = value
        user = self.wire_user()
        if user is not None:
            body["user"] = user
        return body


def split_wire_user(user: str | None) -> tuple[str | None, int]:
    """Inverse of :meth:`CompletionRequest.wire_user`: ``(user tag, sample index)``."""
    if not user or _SAMPLE_MARK not in user:
        return user, 0
    tag, _, index = user.rpartition(_SAMPLE_MARK)
    return (tag or None), (int(index) if index.isdigit() else 0)


@dataclass(frozen=True)
class Usage:
    """Token counts reported by the backend (0 when it reported none)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @classmethod
    def from_openai(cls, usage: Mapping[str, Any] | None) -> Usage:
        """Read an OpenAI ``usage`` object; missing or malformed counts become 0."""
        if not isinstance(usage, Mapping):
            return cls()

        def count(name: str) -> int:
            value = usage.get(name)
            return value if isinstance(value, int) and value >= 0 else 0

        return cls(count("prompt_tokens"), count("completion_tokens"))


@dataclass(frozen=True)
class Completion:
    """A completion's text and usage; ``cached`` is true when it came from the response cache."""

    text: str
    usage: Usage = Usage()
    model: str = ""
    finish_reason: str = ""
    cached: bool = False

    def to_record(self) -> dict[str, Any]:
        """The JSON-able form stored in the cache (without the ``cached`` flag)."""
        return {
            "text": self.text,
            "prompt_tokens": self.usage.prompt_tokens,
            "completion_tokens": self.usage.completion_tokens,
            "model": self.model,
            "finish_reason": self.finish_reason,
        }

    @classmethod
    def from_openai(cls, data: Any) -> Completion:
        """Read an OpenAI chat-completion response body.

        Raises
        ------
        ValueError
            When the body is not a chat completion with a text message in ``choices[0]``.
        """
        try:
            choice = data["choices"][0]
            text = choice["message"]["content"]
        except (KeyError, IndexError, TypeError) as exc:
            raise ValueError("reply has no choices[0].message.content") from exc
        if text is None:
            text = ""
        if not isinstance(text, str):
            raise ValueError("choices[0].message.content is not a string")
        return cls(
            text=text,
            usage=Usage.from_openai(data.get("usage")),
            model=str(data.get("model", "")),
            finish_reason=str(choice.get("finish_reason") or ""),
        )

    @classmethod
    def from_record(cls, record: Mapping[str, Any], *, cached: bool) -> Completion:
        """Rebuild a completion from :meth:`to_record` output."""
        return cls(
            text=record["text"],
            usage=Usage(record.get("prompt_tokens", 0), record.get("completion_tokens", 0)),
            model=record.get("model", ""),
            finish_reason=record.get("finish_reason", ""),
            cached=cached,
        )
