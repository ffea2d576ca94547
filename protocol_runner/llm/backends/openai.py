"""Backend for any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama, llama.cpp).

One attempt per :meth:`OpenAIBackend.complete`; the shared ``LLMClient`` retries. Failures are
classified here: HTTP 429 -> ``RateLimited`` (with ``Retry-After``); 408, 409, 5xx, connection
errors, read timeouts and malformed replies -> ``TransientError``; 404 (unknown model), 401/403
(key refused) and other 4xx -> ``BackendError``, one line naming the endpoint and model. The API
key is read from the environment variable whose *name* is configured; the key itself is never
printed, logged or stored in results or the cache.

The backend records what it talked to (:meth:`OpenAIBackend.provenance`): the endpoint, the
model ids ``/models`` listed and who owns the run's models, how many replies came back, and how
many declared themselves simulated: ``serve-sim`` lists its models as owned by
:data:`SIMULATED_OWNER` and sends :data:`SIMULATED_HEADER` on every reply
(``docs/endpoints.md``), so a run through HTTP on simulated agents is labelled as such.

Requests go through :class:`protocol_runner.llm.http.HTTPClient` (aiohttp): proxies from the
environment, gzip, redirects, and a read timeout that a slow but live reply does not trip. The
overall cap on one attempt is the shared client's ``ClientConfig.timeout_s``; the runner sets
it to :data:`CALL_TIMEOUT_FACTOR` times the read timeout (``docs/endpoints.md``).
"""

from __future__ import annotations

import email.utils
import json
import os
import time
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from protocol_runner.llm.errors import RateLimited, TransientError
from protocol_runner.llm.http import HTTPClient, TransportError, TransportTimeout
from protocol_runner.llm.types import Completion, CompletionRequest
from robustgraph.errors import BackendError, ParameterError
from robustgraph.limits import clip

__all__ = [
    "CALL_TIMEOUT_FACTOR",
    "DEFAULT_BASE_URL",
    "SIMULATED_HEADER",
    "SIMULATED_OWNER",
    "OpenAIBackend",
    "parse_retry_after",
]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
CALL_TIMEOUT_FACTOR = 10
"""One attempt is capped at this many read timeouts (60 s reads: 600 s, the openai SDK's cap)."""
PREFLIGHT_TIMEOUT_S = 30.0
SIMULATED_HEADER = "X-Robustgraph-Simulated"
"""Response header (value ``1``) by which an endpoint declares its replies simulated."""
SIMULATED_OWNER = "robustgraph-simulated"
"""``owned_by`` of the models of an endpoint that serves simulated agents (``/v1/models``)."""
MAX_RECORDED_MODELS = 50
"""At most this many served model ids are recorded (an API may list hundreds)."""
_RECORDED_CHARS = 200
ERROR_BODY_PARSED = 64 * 1024
"""An error body is parsed as JSON only up to this size; only its start is shown."""

_RETRY_STATUSES = frozenset({408, 409})
_JSON_BODY = {"Content-Type": "application/json"}


def parse_retry_after(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """Seconds to wait from ``Retry-After`` (seconds or HTTP date) or ``retry-after-ms``.

    Examples
    --------
    >>> parse_retry_after({"Retry-After": "2"})
    2.0
    >>> parse_retry_after({"retry-after-ms": "250"})
    0.25
    >>> parse_retry_after({}) is None
    True
    """
    lowered = {k.lower(): v for k, v in headers.items()}
    millis = lowered.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0.0, when - (time.time() if now is None else now))


def _error_text(raw: bytes, limit: int = 200) -> str:
    """The server's error message on one line (``error.message`` if JSON, else the body).

    Only the first :data:`ERROR_BODY_PARSED` bytes are read: a large error body (a bomb, or
    megabytes of whitespace) costs no more than a small one.
    """
    text = raw[:ERROR_BODY_PARSED].decode("utf-8", "replace")
    try:
        data = json.loads(text) if len(raw) <= ERROR_BODY_PARSED else None
        error = data.get("error") if isinstance(data, dict) else None
        if isinstance(error, dict) and error.get("message"):
            text = str(error["message"])[:ERROR_BODY_PARSED]
        elif isinstance(error, str):
            text = error[:ERROR_BODY_PARSED]
    except ValueError:
        pass
    one_line = " ".join(text.split())
    return one_line[:limit] + ("..." if len(one_line) > limit else "")


class OpenAIBackend:
    """Chat completions over HTTP at ``base_url`` (which ends in ``/v1``).

    Parameters
    ----------
    base_url : str
        e.g. ``https://api.openai.com/v1`` or ``http://127.0.0.1:8000/v1`` (vLLM, serve-sim).
    api_key_env : str or None
        Name of the environment variable holding the API key; ``None`` or an unset variable
        sends no ``Authorization`` header (local servers need none).
    read_timeout_s : float
        Limit on connecting and on each wait for more of a reply (not on the whole reply).
    connections : int
        Connection pool size: the calls in flight at most (``ClientConfig.max_concurrency``),
        hence the reply bodies in memory at once (each at most ``http.MAX_BODY``).
    cross_origin_redirects : bool
        Follow redirects to other origins than ``base_url``'s (default: refused, one line
        naming both hosts; :mod:`protocol_runner.llm.origin`).

    Examples
    --------
    >>> backend = OpenAIBackend("http://127.0.0.1:8000/v1", api_key_env="MY_KEY")
    >>> backend.namespace
    'openai'
    """

    namespace = "openai"

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        *,
        api_key_env: str | None = "OPENAI_API_KEY",
        read_timeout_s: float = 60.0,
        connections: int = 16,
        cross_origin_redirects: bool = False,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ParameterError(f"base URL must start with http:// or https://, got {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.api_key_env = api_key_env
        self._served: list[str] = []
        self._owners: dict[str, str] = {}
        self._replies = self._simulated_replies = 0
        self._client = HTTPClient(
            self.base_url,
            headers=self._headers(),
            connections=connections,
            read_timeout_s=read_timeout_s,
            cross_origin_redirects=cross_origin_redirects,
        )

    def __repr__(self) -> str:
        return f"OpenAIBackend({self.base_url!r}, api_key_env={self.api_key_env!r})"

    def describe(self, request: CompletionRequest) -> str:
        return f"openai backend at {self.base_url}, model {request.model!r}"

    def _headers(self) -> dict[str, str]:
        key = os.environ.get(self.api_key_env) if self.api_key_env else None
        return {"Authorization": f"Bearer {key}"} if key else {}

    def _auth_hint(self, status: int) -> str:
        if status in (401, 403) and self.api_key_env:
            return f" (check the API key in the environment variable {self.api_key_env})"
        return ""

    async def complete(self, request: CompletionRequest) -> Completion:
        """One attempt at ``POST {base_url}/chat/completions``."""
        body = orjson.dumps(request.to_openai_body())
        reply = await self._client.request("POST", "/chat/completions", body, headers=_JSON_BODY)
        status, raw = reply.status, reply.body
        if status == 200:
            try:
                completion = Completion.from_openai(orjson.loads(raw))
            except ValueError as exc:
                raise TransientError(f"malformed reply ({exc}): {_error_text(raw, 80)!r}") from exc
            self._replies += 1
            self._simulated_replies += reply.headers.get(SIMULATED_HEADER) == "1"
            return completion
        message = f"HTTP {status}: {_error_text(raw)}"
        if status == 429:
            raise RateLimited(message, parse_retry_after(reply.headers))
        if status >= 500 or status in _RETRY_STATUSES:
            raise TransientError(message)
        if status == 404:
            raise BackendError(f"{self.describe(request)}: model not found ({message})")
        hint = self._auth_hint(status)
        raise BackendError(f"{self.describe(request)}: request refused ({message}){hint}")

    async def check(self, models: Iterable[str]) -> None:
        """Fail fast: ``GET {base_url}/models`` once and check each of ``models`` is served.

        Raises
        ------
        BackendError
            The endpoint cannot be reached (within ``PREFLIGHT_TIMEOUT_S``), refuses the key,
            or does not list a model. An endpoint without a ``/models`` route (HTTP 404) is
            only checked for reachability.
        """
        url = f"{self.base_url}/models"
        try:
            reply = await self._client.request("GET", "/models", timeout_s=PREFLIGHT_TIMEOUT_S)
        except TransportTimeout as exc:
            raise BackendError(f"cannot reach {self.base_url}: {exc.reason}") from None
        except TransportError as exc:  # connected, but the reply is unusable
            if str(exc).startswith("cannot connect"):
                raise BackendError(f"cannot reach {self.base_url}: {exc.reason}") from None
            raise BackendError(f"{url}: {exc}") from None
        status, raw = reply.status, reply.body
        if status == 404:
            return
        if status != 200:
            raise BackendError(
                f"{url} answered HTTP {status}: {_error_text(raw)}{self._auth_hint(status)}"
            )
        try:
            listed = {str(item["id"]): str(item.get("owned_by", "")) for item in
                      json.loads(raw)["data"]}
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise BackendError(f"{url} sent a malformed model list") from exc
        served = set(listed)
        self._served = [clip(m, _RECORDED_CHARS) for m in sorted(served)[:MAX_RECORDED_MODELS]]
        for model in models:
            if model not in served:
                listing = ", ".join(sorted(served)[:10]) or "none"
                raise BackendError(
                    f"model {model!r} is not served at {self.base_url} (it serves: {listing})"
                )
            self._owners[model] = clip(listed[model], _RECORDED_CHARS)

    async def aclose(self) -> None:
        """Close the HTTP connections (a later call opens new ones)."""
        await self._client.aclose()

    @property
    def simulated(self) -> bool:
        """Whether the endpoint declared itself simulated: a reply carried
        :data:`SIMULATED_HEADER`, or ``/models`` gave a model of the run :data:`SIMULATED_OWNER`."""
        return bool(self._simulated_replies) or SIMULATED_OWNER in self._owners.values()

    def provenance(self) -> dict[str, Any]:
        """What results record about this backend and the endpoint it talked to so far.

        The endpoint, the key's variable name (never the key), the model ids ``/models`` listed
        (at most :data:`MAX_RECORDED_MODELS`) and the ``owned_by`` of the run's models, the
        replies received and how many carried :data:`SIMULATED_HEADER`, and :attr:`simulated`.
        """
        return {
            "backend": "openai",
            "base_url": self.base_url,
            "api_key_env": self.api_key_env,
            "served_models": list(self._served),
            "owned_by": dict(sorted(self._owners.items())),
            "replies": self._replies,
            "simulated_replies": self._simulated_replies,
            "simulated": self.simulated,
        }
