"""The one shared async LLM client: cache, bounded concurrency, timeouts, retries, counters.

Every LLM call of a run goes through :meth:`LLMClient.complete`. Backends only translate a
request into a reply and classify their failures (``protocol_runner.llm.errors``); this module
owns the policy, once for all backends (the inspect_ai split, STYLE.md item 6):

1. look the request up in the response cache (a hit costs no call);
2. join an identical request already in flight instead of sending it twice;
3. otherwise call the backend under a semaphore of ``max_concurrency`` slots, each attempt
   capped at ``timeout_s`` (the openai backend also limits each read of a reply);
4. retry transient failures with exponential backoff and jitter, and rate limits after the
   server's ``Retry-After``; give up with one ``BackendError`` line after ``max_retries``;
5. store the completion (never an error) and count calls, tokens, hits and misses.

Completions are stored in batches: every call that returns in one turn of the event loop is
committed in one transaction at the start of the next turn, before any call waiting for a free
slot starts, and a call returns only once its batch is committed. So a completion is in the
cache before anyone sees it, and a killed run repeats only the calls in flight (at most
``max_concurrency`` while calls are queued for slots), as with one commit per call.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any, Protocol

from protocol_runner.llm.cache import ResponseCache, cache_key
from protocol_runner.llm.errors import RateLimited, RetryableError, TransientError
from protocol_runner.llm.types import Completion, CompletionRequest
from robustgraph.errors import BackendError, ParameterError

__all__ = ["Backend", "ClientConfig", "ClientStats", "LLMClient"]


class Backend(Protocol):
    """What the client needs of a backend.

    ``namespace`` names the backend in cache keys (everything about the backend that changes
    replies and is not in the request). ``describe(request)`` names the endpoint and model in
    error messages. ``complete`` makes one attempt and raises ``TransientError``,
    ``RateLimited`` or ``BackendError``. ``check(models)`` is a quick preflight that raises
    ``BackendError`` when the endpoint is unreachable or a model is unknown. ``provenance()``
    is what a results file records about the backend (never a secret).
    """

    namespace: str

    def provenance(self) -> dict[str, Any]: ...

    def describe(self, request: CompletionRequest) -> str: ...

    async def complete(self, request: CompletionRequest) -> Completion: ...

    async def check(self, models: Iterable[str]) -> None: ...

    async def aclose(self) -> None: ...


@dataclass(frozen=True)
class ClientConfig:
    """Call policy. None of these fields changes a reply, so none is part of the cache key.

    Parameters
    ----------
    max_concurrency : int
        Backend calls in flight at most.
    timeout_s : float
        Overall cap on one attempt, in seconds; a timeout is retried. A backend may time out
        sooner by its own limit (the openai backend's read timeout), counted the same way.
    max_retries : int
        Retries after the first attempt (so ``max_retries + 1`` attempts at most).
    backoff_base_s, backoff_max_s : float
        Attempt ``k`` (0-based) waits ``d/2 + U(0, d/2)`` with ``d = min(max, base * 2**k)``.
    max_retry_after_s : float
        A 429 asking for a longer wait than this is an error rather than a stall.
    jitter_seed : int
        Seed of the jitter generator (no global random state).
    """

    max_concurrency: int = 16
    timeout_s: float = 60.0
    max_retries: int = 6
    backoff_base_s: float = 0.5
    backoff_max_s: float = 30.0
    max_retry_after_s: float = 120.0
    jitter_seed: int = 0

    def __post_init__(self) -> None:
        if self.max_concurrency < 1:
            raise ParameterError(f"max_concurrency must be >= 1, got {self.max_concurrency}")
        if self.timeout_s <= 0:
            raise ParameterError(f"timeout must be > 0 seconds, got {self.timeout_s}")
        if self.max_retries < 0:
            raise ParameterError(f"max_retries must be >= 0, got {self.max_retries}")
        if self.backoff_base_s < 0 or self.backoff_max_s < self.backoff_base_s:
            raise ParameterError("backoff needs 0 <= backoff_base_s <= backoff_max_s")


@dataclass
class ClientStats:
    """Counters of one client, for the run's cost report.

    ``calls``: backend calls that returned a completion; ``attempts``: backend attempts
    including failed ones; ``retries``; ``timeouts``; ``rate_limited`` (429 replies);
    ``cache_hits`` / ``cache_misses``: cache lookups; ``shared``: requests answered by an
    identical call already in flight; tokens as reported by the backend for ``calls``.
    """

    calls: int = 0
    attempts: int = 0
    retries: int = 0
    timeouts: int = 0
    rate_limited: int = 0
    cache_hits: int = 0
    cache_misses: int = 0
    shared: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


class LLMClient:
    """Send completion requests to one backend through the cache and the retry policy.

    Parameters
    ----------
    backend : Backend
        ``SimulatedBackend`` or ``OpenAIBackend``.
    cache : ResponseCache or None
        Where completions are stored and looked up; ``None`` disables caching.
    config : ClientConfig
        Concurrency, timeout and retry policy.

    Examples
    --------
    >>> import asyncio
    >>> from protocol_runner.llm.backends.simulated import SimulatedBackend
    >>> from protocol_runner.sim.agents import Simulator
    >>> from protocol_runner.tasks import Task
    >>> from protocol_runner.protocols.prompts import answer_messages
    >>> task = Task("t1", "What is 2 + 3?", "5")
    >>> async def ask():
    ...     async with LLMClient(SimulatedBackend(Simulator([task]))) as client:
    ...         reply = await client.complete(
    ...             CompletionRequest("sim-strong", answer_messages(task), seed=1))
    ...         return reply.text.splitlines()[-1].startswith("Answer:"), client.stats.calls
    >>> asyncio.run(ask())
    (True, 1)
    """

    def __init__(
        self,
        backend: Backend,
        *,
        cache: ResponseCache | None = None,
        config: ClientConfig | None = None,
    ) -> None:
        self.backend = backend
        self.cache = cache
        self.config = config or ClientConfig()
        self.stats = ClientStats()
        self._slots = asyncio.Semaphore(self.config.max_concurrency)
        self._inflight: dict[str, asyncio.Future[Completion]] = {}
        self._rng = random.Random(self.config.jitter_seed)
        # completions waiting for the next batch commit, each with the future its call awaits
        self._unsaved: list[tuple[str, dict[str, Any], asyncio.Future[None]]] = []

    async def __aenter__(self) -> LLMClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the backend's connections (the cache stays open; its owner closes it)."""
        self._commit()
        await self.backend.aclose()

    async def check(self, models: Iterable[str]) -> None:
        """Preflight: raise ``BackendError`` at once if the endpoint or a model is unusable."""
        await self.backend.check(models)

    async def complete(self, request: CompletionRequest, *, use_cache: bool = True) -> Completion:
        """Return the completion of ``request`` from the cache, a call in flight, or the backend.

        ``use_cache=False`` neither reads nor writes the response cache and joins no call that
        does: the reply is always a fresh backend call (counted in :attr:`stats` as usual).

        Raises
        ------
        BackendError
            The backend refused the request, or every attempt failed.
        """
        key = cache_key(self.backend.namespace, request)
        cache = self.cache if use_cache else None
        if not use_cache:
            key = "uncached/" + key  # in-flight calls are keyed apart from cached ones
        while True:
            if cache is not None:
                record = cache.get(key)
                if record is not None:
                    self.stats.cache_hits += 1
                    return Completion.from_record(record, cached=True)
            pending = self._inflight.get(key)
            if pending is None:
                break
            try:
                completion = await asyncio.shield(pending)
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if pending.cancelled() and task is not None and not task.cancelling():
                    continue  # the caller that owned the call was cancelled, not us: take over
                raise
            self.stats.shared += 1
            return completion
        if cache is not None:
            self.stats.cache_misses += 1
        future: asyncio.Future[Completion] = asyncio.get_running_loop().create_future()
        self._inflight[key] = future
        try:
            completion = await self._call(request, key, store=cache is not None)
            future.set_result(completion)
            return completion
        except asyncio.CancelledError:
            future.cancel()
            raise
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # mark retrieved: waiters re-raise it, nobody else must
            raise
        finally:
            del self._inflight[key]

    async def _call(self, request: CompletionRequest, key: str, *, store: bool) -> Completion:
        cfg = self.config
        last: RetryableError | None = None
        for attempt in range(cfg.max_retries + 1):
            async with self._slots:
                self.stats.attempts += 1
                try:
                    async with asyncio.timeout(cfg.timeout_s):
                        completion = await self.backend.complete(request)
                except TimeoutError as exc:  # the attempt's cap, or the backend's own limit
                    self.stats.timeouts += 1
                    last = TransientError(str(exc) or f"no reply within {cfg.timeout_s:g} s")
                    delay = self._backoff(attempt)
                except RateLimited as exc:
                    self.stats.rate_limited += 1
                    last = exc
                    if exc.retry_after is None:
                        delay = self._backoff(attempt)
                    elif exc.retry_after > cfg.max_retry_after_s:
                        raise BackendError(
                            f"{self.backend.describe(request)}: rate limited; the server asks to "
                            f"retry after {exc.retry_after:g} s, more than the "
                            f"{cfg.max_retry_after_s:g} s allowed"
                        ) from exc
                    else:
                        delay = exc.retry_after * (1.0 + 0.1 * self._rng.random())
                except TransientError as exc:
                    last = exc
                    delay = self._backoff(attempt)
                else:
                    self.stats.calls += 1
                    self.stats.prompt_tokens += completion.usage.prompt_tokens
                    self.stats.completion_tokens += completion.usage.completion_tokens
                    # queued before the slot is released, so the commit runs before a call
                    # waiting for the slot can start
                    saved = self._store(key, completion) if store else None
                    break
            if attempt < cfg.max_retries:
                self.stats.retries += 1
                await asyncio.sleep(delay)
        else:
            raise BackendError(
                f"{self.backend.describe(request)}: gave up after {cfg.max_retries + 1} "
                f"attempts; last error: {last}"
            )
        if saved is not None:
            await saved
        return completion

    def _store(self, key: str, completion: Completion) -> asyncio.Future[None]:
        """Queue ``completion`` for the next batch commit; the future resolves once committed."""
        loop = asyncio.get_running_loop()
        saved: asyncio.Future[None] = loop.create_future()
        if not self._unsaved:
            loop.call_soon(self._commit)
        self._unsaved.append((key, completion.to_record(), saved))
        return saved

    def _commit(self) -> None:
        """Commit the queued completions in one transaction and release their calls (a failed
        commit is raised in each of them). Calls cancelled meanwhile are committed too."""
        batch, self._unsaved = self._unsaved, []
        if not batch or self.cache is None:
            return
        error: Exception | None = None
        try:
            self.cache.put_many((key, record) for key, record, _ in batch)
        except Exception as exc:  # noqa: BLE001 - raised in every call of the batch below
            error = exc
        for *_, saved in batch:
            if saved.done():
                continue
            if error is None:
                saved.set_result(None)
            else:
                saved.set_exception(error)

    def _backoff(self, attempt: int) -> float:
        cap = min(self.config.backoff_max_s, self.config.backoff_base_s * 2.0**attempt)
        return cap / 2.0 + self._rng.uniform(0.0, cap / 2.0)
