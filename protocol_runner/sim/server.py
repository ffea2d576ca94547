"""``serve-sim``: an OpenAI-compatible HTTP server backed by the simulated agents, with faults.

Routes: ``GET /v1/models``, ``POST /v1/chat/completions`` (the standard ones), and two for tests
and dry runs: ``GET /sim/stats`` (requests, completions, repeated request bodies, faults, tokens)
and ``POST /sim/faults`` (queue faults for the next requests). A single request can also ask for a
fault with the header ``X-Sim-Fault``. Fault grammar, items separated by commas, each optionally
repeated with ``xN``:

- ``429[:S]``: HTTP 429 with ``Retry-After: S`` (default 1 second);
- ``500``: HTTP 500;
- ``slow:S``: wait S seconds, then answer normally (for client timeouts);
- ``trickle:S``: answer normally, the body sent in 10 pieces spread over S seconds (a slow but
  live reply, for read timeouts);
- ``malformed``: HTTP 200 whose body is truncated JSON.

Example: ``429:0.2x2,500,malformed`` fails the next four requests in that order.

The server says what it is, so results obtained through it are never taken for LLM results:
``/v1/models`` lists every model as owned by ``robustgraph-simulated``
(:data:`~protocol_runner.llm.backends.openai.SIMULATED_OWNER`), and every response, errors
included, carries the header ``X-Robustgraph-Simulated: 1``
(:data:`~protocol_runner.llm.backends.openai.SIMULATED_HEADER`). The openai backend records
both (docs/endpoints.md).

The HTTP server is aiohttp's (:mod:`aiohttp.web`): keep-alive, chunked request bodies,
``Expect: 100-continue``, pipelining and HTTP/1.0 are its job. Errors of every kind, aiohttp's
own (404, 405, 413) included, have OpenAI-style JSON bodies (``{"error": {"message", "type",
"code"}}``). A completion is computed when its request arrives and sent after the latency; a
request whose client disconnects before that is dropped (its handler cancelled) and not
counted as a completion.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import re
import socket
import threading
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import orjson
from aiohttp import web

from protocol_runner.llm.backends.openai import SIMULATED_HEADER, SIMULATED_OWNER
from protocol_runner.sim.agents import SimRequestError, Simulator
from robustgraph.errors import ParameterError

__all__ = [
    "FAULT_HEADER",
    "MAX_BODY",
    "Fault",
    "ServerStats",
    "SimServer",
    "parse_faults",
    "running_server",
]

FAULT_HEADER = "X-Sim-Fault"
MAX_BODY = 16 * 1024 * 1024
"""Largest request body accepted, in bytes (larger: HTTP 413)."""

_SHUTDOWN_S = 0.5
_FAULT_ITEM = re.compile(
    r"(?P<kind>429|500|slow|trickle|malformed)(?::(?P<arg>\d+(?:\.\d*)?))?(?:x(?P<n>\d+))?"
)


@dataclass(frozen=True)
class Fault:
    """One injected failure: ``kind`` in ``429``, ``500``, ``slow``, ``trickle``, ``malformed``."""

    kind: str
    seconds: float = 0.0


def parse_faults(spec: str) -> list[Fault]:
    """Parse a fault plan such as ``"429:0.5x2,500,slow:3,malformed"`` (see the module docstring).

    Examples
    --------
    >>> [(f.kind, f.seconds) for f in parse_faults("429:0.5x2,malformed")]
    [('429', 0.5), ('429', 0.5), ('malformed', 0.0)]

    Raises
    ------
    ParameterError
        For an item outside the grammar, or ``slow`` or ``trickle`` without a duration.
    """
    faults: list[Fault] = []
    for item in filter(None, (part.strip() for part in spec.split(","))):
        match = _FAULT_ITEM.fullmatch(item)
        if match is None:
            raise ParameterError(
                f"fault {item!r}: expected 429[:seconds], 500, slow:seconds, trickle:seconds or "
                "malformed, each optionally followed by xN"
            )
        kind, arg = match["kind"], match["arg"]
        if kind in ("slow", "trickle") and arg is None:
            raise ParameterError(f"fault {item!r}: {kind} needs a duration, e.g. {kind}:2.5")
        seconds = float(arg) if arg is not None else (1.0 if kind == "429" else 0.0)
        faults += [Fault(kind, seconds)] * int(match["n"] or 1)
    return faults


@dataclass
class ServerStats:
    """What the server saw: chat requests, successful completions, faults, tokens served.

    ``bodies`` counts completions per request-body digest; ``repeated`` (in :meth:`as_dict`)
    is how many completions answered a body already answered before, i.e. repeated calls.
    """

    requests: int = 0
    completions: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    faults: Counter[str] = field(default_factory=Counter)
    bodies: Counter[str] = field(default_factory=Counter)

    def as_dict(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "completions": self.completions,
            "distinct": len(self.bodies),
            "repeated": sum(c - 1 for c in self.bodies.values()),
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "faults": dict(self.faults),
        }


def _json(data: Any, status: int = 200, headers: Mapping[str, str] | None = None) -> web.Response:
    return web.Response(
        body=orjson.dumps(data), status=status, headers=headers, content_type="application/json"
    )


def _error(
    status: int, message: str, kind: str, headers: Mapping[str, str] | None = None
) -> web.Response:
    return _json({"error": {"message": message, "type": kind, "code": status}}, status, headers)


_Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


async def _body(request: web.Request) -> bytes:
    """The request body; HTTP 413 at once when its ``Content-Length`` is over ``MAX_BODY``
    (aiohttp's own check comes only after reading that much)."""
    length = request.content_length
    if length is not None and length > MAX_BODY:
        raise web.HTTPRequestEntityTooLarge(max_size=MAX_BODY, actual_size=length)
    return await request.read()


@web.middleware
async def _json_errors(request: web.Request, handler: _Handler) -> web.StreamResponse:
    """aiohttp's own error replies (no route 404, 405, 413) with OpenAI-style JSON bodies."""
    try:
        return await handler(request)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        kind = "invalid_request_error"
        if exc.status == 404:
            message, kind = f"no route {request.path}", "not_found_error"
        elif exc.status == 405:
            message = f"{request.method} not allowed"
        else:
            message = exc.text or exc.reason
        allow = {"Allow": exc.headers["Allow"]} if "Allow" in exc.headers else None
        return _error(exc.status, message, kind, allow)


async def _declare_simulated(request: web.Request, response: web.StreamResponse) -> None:
    """Mark every response as coming from simulated agents (see the module docstring)."""
    response.headers[SIMULATED_HEADER] = "1"


class SimServer:
    """The ``serve-sim`` HTTP server (see the module docstring).

    Parameters
    ----------
    simulator : Simulator
        Answers the completions.
    host, port : str, int
        Where to listen; port 0 picks a free port (read :attr:`port` after :meth:`start`).
    latency_s : float
        Artificial latency added to every completion.
    faults : iterable of Fault
        Faults queued for the first requests.

    Raises
    ------
    ParameterError
        A latency that is negative or not finite.
    """

    def __init__(
        self,
        simulator: Simulator,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        latency_s: float = 0.0,
        faults: Iterable[Fault] = (),
    ) -> None:
        if not (math.isfinite(latency_s) and latency_s >= 0):
            raise ParameterError(f"latency must be a finite number >= 0, got {latency_s} s")
        self.simulator = simulator
        self.host = host
        self.port = port
        self.latency_s = latency_s
        self.stats = ServerStats()
        self._faults: deque[Fault] = deque(faults)
        self._runner: web.AppRunner | None = None

    @property
    def base_url(self) -> str:
        """The OpenAI base URL clients use (ends in ``/v1``)."""
        return f"http://{self.host}:{self.port}/v1"

    def add_faults(self, faults: Iterable[Fault]) -> None:
        """Queue faults for the next chat requests (thread-safe)."""
        self._faults.extend(faults)

    def _app(self) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY, middlewares=[_json_errors])
        app.on_response_prepare.append(_declare_simulated)
        app.router.add_get("/v1/models", self._models)
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_get("/sim/stats", self._stats)
        app.router.add_post("/sim/faults", self._queue_faults)
        return app

    async def start(self) -> str:
        """Start listening; return :attr:`base_url`.

        Raises
        ------
        ParameterError
            When the address cannot be bound (port in use, bad host).
        """
        try:
            sock = socket.create_server((self.host, self.port))
        except OSError as exc:
            reason = exc.strerror or exc
            raise ParameterError(f"cannot listen on {self.host}:{self.port}: {reason}") from exc
        self.port = sock.getsockname()[1]
        runner = web.AppRunner(
            self._app(),
            handle_signals=False,
            access_log=None,
            handler_cancellation=True,
            shutdown_timeout=_SHUTDOWN_S,
        )
        await runner.setup()
        await web.SockSite(runner, sock).start()
        self._runner = runner
        return self.base_url

    async def stop(self) -> None:
        """Stop listening and close connections (replies still due are not sent)."""
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    async def _models(self, request: web.Request) -> web.Response:
        data = [
            {"id": m, "object": "model", "created": 0, "owned_by": SIMULATED_OWNER}
            for m in self.simulator.models
        ]
        return _json({"object": "list", "data": data})

    async def _stats(self, request: web.Request) -> web.Response:
        return _json(self.stats.as_dict())

    async def _queue_faults(self, request: web.Request) -> web.Response:
        try:
            spec = orjson.loads(await _body(request))["faults"]
            faults = parse_faults(str(spec))
        except (ValueError, KeyError, TypeError, ParameterError) as exc:
            return _error(400, f'expected {{"faults": "<plan>"}}: {exc}', "invalid_request_error")
        self.add_faults(faults)
        return _json({"queued": len(faults), "pending": len(self._faults)})

    def _next_fault(self, request: web.Request) -> Fault | None:
        header = request.headers.get(FAULT_HEADER)
        if header:
            try:
                planned = parse_faults(header)
            except ParameterError:
                planned = []
            return planned[0] if planned else None
        return self._faults.popleft() if self._faults else None

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        raw = await _body(request)
        self.stats.requests += 1
        fault = self._next_fault(request)
        if fault is not None:
            self.stats.faults[fault.kind] += 1
            if fault.kind == "429":
                headers = {"Retry-After": f"{fault.seconds:g}"}
                return _error(429, "rate limit reached (injected)", "rate_limit_error", headers)
            if fault.kind == "500":
                return _error(500, "internal server error (injected)", "server_error")
            if fault.kind == "malformed":
                body = b'{"id": "x", "choices": [{"mess'
                return web.Response(body=body, content_type="application/json")
            if fault.kind == "slow":
                await asyncio.sleep(fault.seconds)
        response = await self._complete(raw)
        if fault is not None and fault.kind == "trickle" and response.status == 200:
            return await _trickle(request, response, fault.seconds)
        return response

    async def _complete(self, raw: bytes) -> web.Response:
        """Answer a chat request body after the latency."""
        try:
            body = orjson.loads(raw)
            if not isinstance(body, dict):
                raise ValueError("the body is not a JSON object")
        except ValueError as exc:
            return _error(400, f"malformed JSON body: {exc}", "invalid_request_error")
        if body.get("stream"):
            return _error(400, "streaming is not supported by serve-sim", "invalid_request_error")
        try:
            reply = self.simulator.respond(body)
        except SimRequestError as exc:
            kind = "not_found_error" if exc.status == 404 else "invalid_request_error"
            return _error(exc.status, str(exc), kind)
        if self.latency_s:
            await asyncio.sleep(self.latency_s)
        stats = self.stats
        stats.completions += 1
        stats.prompt_tokens += reply["usage"]["prompt_tokens"]
        stats.completion_tokens += reply["usage"]["completion_tokens"]
        stats.bodies[hashlib.sha256(raw).hexdigest()] += 1
        return web.Response(body=orjson.dumps(reply), content_type="application/json")


async def _trickle(
    request: web.Request, response: web.Response, seconds: float, pieces: int = 10
) -> web.StreamResponse:
    """Send ``response`` in ``pieces`` parts, one every ``seconds / pieces``."""
    body = bytes(response.body)  # type: ignore[arg-type] - a bytes body
    stream = web.StreamResponse(status=response.status, headers=response.headers)
    stream.content_length = len(body)
    await stream.prepare(request)
    step = -(-len(body) // pieces)
    for start in range(0, len(body), step):
        await asyncio.sleep(seconds / pieces)
        await stream.write(body[start : start + step])
    await stream.write_eof()
    return stream


@contextmanager
def running_server(simulator: Simulator, **options: Any) -> Iterator[SimServer]:
    """Run a :class:`SimServer` on its own event loop in a background thread.

    For tests and benchmarks that drive clients from another loop or another process. The
    server listens when the block starts and is stopped when it ends, even on error.

    Examples
    --------
    >>> import urllib.request, json
    >>> from protocol_runner.tasks import Task
    >>> with running_server(Simulator([Task("t", "1+1?", "2")])) as server:
    ...     with urllib.request.urlopen(server.base_url + "/models") as reply:
    ...         [m["id"] for m in json.load(reply)["data"]]
    ['sim-strong', 'sim-weak']
    """
    server = SimServer(simulator, **options)
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    failure: list[BaseException] = []

    def serve() -> None:
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(server.start())
        except BaseException as exc:  # reported to the caller's thread below
            failure.append(exc)
            ready.set()
            return
        ready.set()
        loop.run_forever()
        loop.run_until_complete(server.stop())

    thread = threading.Thread(target=serve, name="serve-sim", daemon=True)
    thread.start()
    ready.wait()
    if failure:
        thread.join()
        loop.close()
        raise failure[0]
    try:
        yield server
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()
