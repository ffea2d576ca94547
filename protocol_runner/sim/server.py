"""``serve-sim``: an OpenAI-compatible HTTP server backed by the simulated agents, with faults.

Routes: ``GET /v1/models``, ``POST /v1/chat/completions`` (the standard ones), and two for tests
and dry runs: ``GET /sim/stats`` (requests, completions, repeated request bodies, faults, tokens)
and ``POST /sim/faults`` (queue faults for the next requests). A single request can also ask for a
fault with the header ``X-Sim-Fault``. Fault grammar, items separated by commas, each optionally
repeated with ``xN``:

- ``429[:S]``: HTTP 429 with ``Retry-After: S`` (default 1 second);
- ``500``: HTTP 500;
- ``slow:S``: wait S seconds, then answer normally (for client timeouts);
- ``malformed``: HTTP 200 whose body is truncated JSON.

Example: ``429:0.2x2,500,malformed`` fails the next four requests in that order.

The server is a small HTTP/1.1 server on an :class:`asyncio.Protocol` (one per connection;
framing in :mod:`protocol_runner.llm.http_wire`): persistent connections, ``Content-Length`` and
``chunked`` request bodies, ``Expect: 100-continue``, pipelined requests answered in order,
``Connection: close``. A completion is computed when its request arrives and its reply written
after the latency by a timer, with no task per request: serve-sim spends about 40% less CPU per
completion than it did on aiohttp (0.26 -> 0.16 ms, about 0.09 ms of it the simulated agents;
``docs/performance.md``, "Runner throughput"), so the endpoint weighs less on the runner it
measures when both share a machine.

One module: the server's connection protocol, fault grammar and statistics are one HTTP endpoint
(to be replaced by aiohttp.web, issue 17).
"""

from __future__ import annotations

import asyncio
import email.utils
import hashlib
import math
import re
import socket
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any, cast

import orjson

from protocol_runner.llm.http_wire import (
    CHUNKED,
    HEAD_LIMIT,
    ChunkedDecoder,
    body_framing,
    split_head,
)
from protocol_runner.sim.agents import SimRequestError, Simulator
from robustgraph.errors import ParameterError

__all__ = [
    "FAULT_HEADER",
    "Fault",
    "Request",
    "ServerStats",
    "SimServer",
    "parse_faults",
    "running_server",
]

FAULT_HEADER = "X-Sim-Fault"
MAX_BODY = 16 * 1024 * 1024
_FAULT_ITEM = re.compile(
    r"(?P<kind>429|500|slow|malformed)(?::(?P<arg>\d+(?:\.\d*)?))?(?:x(?P<n>\d+))?"
)


@dataclass(frozen=True)
class Fault:
    """One injected failure: ``kind`` in ``429``, ``500``, ``slow``, ``malformed``."""

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
        For an item outside the grammar, or ``slow`` without a duration.
    """
    faults: list[Fault] = []
    for item in filter(None, (part.strip() for part in spec.split(","))):
        match = _FAULT_ITEM.fullmatch(item)
        if match is None:
            raise ParameterError(
                f"fault {item!r}: expected 429[:seconds], 500, slow:seconds or malformed, "
                "each optionally followed by xN"
            )
        kind, arg = match["kind"], match["arg"]
        if kind == "slow" and arg is None:
            raise ParameterError(f"fault {item!r}: slow needs a duration, e.g. slow:2.5")
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


@dataclass(frozen=True, slots=True)
class Request:
    """A request as the routes see it: method, path (without the query), fields, body."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass(frozen=True, slots=True)
class _Reply:
    status: int
    body: bytes
    headers: tuple[tuple[str, str], ...] = ()


def _json(data: Any, status: int = 200, headers: tuple[tuple[str, str], ...] = ()) -> _Reply:
    return _Reply(status, orjson.dumps(data), headers)


def _error(
    status: int, message: str, kind: str, headers: tuple[tuple[str, str], ...] = ()
) -> _Reply:
    return _json({"error": {"message": message, "type": kind, "code": status}}, status, headers)


_REASONS = {status.value: status.phrase for status in HTTPStatus}


class _Clock:
    """The ``Date`` field value, formatted once per second."""

    def __init__(self) -> None:
        self._second = -1
        self._text = ""

    def now(self) -> str:
        second = int(time.time())
        if second != self._second:
            self._second, self._text = second, email.utils.formatdate(second, usegmt=True)
        return self._text


class _Connection(asyncio.Protocol):
    """One client connection: parses requests in order and writes one reply per request."""

    def __init__(self, server: SimServer) -> None:
        self._server = server
        self._loop = asyncio.get_running_loop()
        self._transport: asyncio.Transport | None = None
        self._buffer = bytearray()
        self._busy = False  # a request is being answered; later bytes wait in the buffer
        self._eof = False
        self._head: tuple[str, str, str, dict[str, str]] | None = None
        self._length = 0
        self._chunks: ChunkedDecoder | None = None
        self._continued = False
        self._keep_alive = True
        self._timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast(asyncio.Transport, transport)  # uvloop's is no subclass
        self._server._connections.add(self)

    def data_received(self, data: bytes) -> None:
        self._buffer += data
        if not self._busy:
            self._advance()

    def eof_received(self) -> bool:
        self._eof = True
        if not self._busy and not self._buffer:
            self.close()
        return True  # keep the write side open for a reply still due

    def connection_lost(self, exc: Exception | None) -> None:
        self._server._connections.discard(self)
        self._transport = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()

    def _advance(self) -> None:
        """Read the next request from the buffer and dispatch it once its body is complete."""
        if self._transport is None or self._busy:
            return
        try:
            request = self._read()
        except ValueError as exc:
            self._keep_alive = False
            self._busy = True
            self.reply(_error(400, f"bad request: {exc}", "invalid_request_error"))
            return
        except OverflowError as exc:
            self._keep_alive = False
            self._busy = True
            self.reply(_error(413, str(exc), "invalid_request_error"))
            return
        if request is None:
            if self._eof:
                self.close()
            return
        self._busy = True
        self._server._dispatch(self, request)

    def _read(self) -> Request | None:
        buffer = self._buffer
        if self._head is None:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                if len(buffer) > HEAD_LIMIT:
                    raise ValueError("request head too long")
                return None
            line, fields = split_head(bytes(buffer[:end]))
            del buffer[: end + 4]
            method, target, version = _request_line(line)
            if version == "HTTP/1.1" and "host" not in fields:
                raise ValueError("HTTP/1.1 request without Host")
            tokens = {t.strip() for t in fields.get("connection", "").lower().split(",")}
            self._keep_alive = (
                "close" not in tokens if version == "HTTP/1.1" else "keep-alive" in tokens
            )
            framing, self._length = body_framing(fields, response=False)
            if framing == CHUNKED:
                self._chunks = ChunkedDecoder(MAX_BODY)
            elif self._length > MAX_BODY:
                raise OverflowError(f"request body over {MAX_BODY} bytes")
            self._head = (method, target, version, fields)
            self._continued = False
        method, target, version, fields = self._head
        if self._chunks is not None:
            done = self._chunks.feed(buffer)
            body = bytes(self._chunks.body) if done else b""
        else:
            done = len(buffer) >= self._length
            body = bytes(buffer[: self._length]) if done else b""
            if done:
                del buffer[: self._length]
        if not done:
            expect = fields.get("expect", "").lower() == "100-continue"
            if expect and version == "HTTP/1.1" and not self._continued:
                self._continued = True
                self._write(b"HTTP/1.1 100 Continue\r\n\r\n")
            return None
        self._head, self._chunks = None, None
        if target.startswith(("http://", "https://")):  # absolute form (RFC 9112, 3.2.2)
            target = "/" + target.split("://", 1)[1].partition("/")[2]
        return Request(method, target.split("?", 1)[0], fields, body)

    def _write(self, data: bytes) -> None:
        if self._transport is not None:
            self._transport.write(data)

    def reply(self, reply: _Reply) -> None:
        """Write the reply to the request being answered, then read the next one."""
        keep = self._keep_alive
        lines = [
            f"HTTP/1.1 {reply.status} {_REASONS.get(reply.status, 'Unknown')}",
            f"Date: {self._server._clock.now()}",
            "Server: robustgraph-serve-sim",
            "Content-Type: application/json",
            f"Content-Length: {len(reply.body)}",
            *(f"{name}: {value}" for name, value in reply.headers),
        ]
        if not keep:
            lines.append("Connection: close")
        head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        self._write(head + reply.body)
        self._busy = False
        if not keep:
            self.close()
        elif self._buffer:
            self._loop.call_soon(self._advance)
        elif self._eof:
            self.close()

    def reply_later(self, delay: float, make: Callable[[], _Reply | None]) -> None:
        """Reply with ``make()`` after ``delay`` seconds (``make`` returns None to reply later
        still: it scheduled another call)."""

        def fire() -> None:
            self._timer = None
            reply = make()
            if reply is not None:
                self.reply(reply)

        self._timer = self._loop.call_later(delay, fire)


def _request_line(line: str) -> tuple[str, str, str]:
    parts = line.split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1.") or not parts[1]:
        raise ValueError(f"malformed request line {line[:60]!r}")
    return parts[0], parts[1], parts[2]


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
        self._server: asyncio.Server | None = None
        self._connections: set[_Connection] = set()
        self._clock = _Clock()
        self._routes: dict[str, dict[str, Callable[[_Connection, Request], _Reply | None]]] = {
            "/v1/models": {"GET": self._models},
            "/v1/chat/completions": {"POST": self._chat},
            "/sim/stats": {"GET": self._stats},
            "/sim/faults": {"POST": self._queue_faults},
        }

    @property
    def base_url(self) -> str:
        """The OpenAI base URL clients use (ends in ``/v1``)."""
        return f"http://{self.host}:{self.port}/v1"

    def add_faults(self, faults: Iterable[Fault]) -> None:
        """Queue faults for the next chat requests (thread-safe)."""
        self._faults.extend(faults)

    async def start(self) -> str:
        """Start listening; return :attr:`base_url`.

        Raises
        ------
        ParameterError
            When the address cannot be bound (port in use, bad host).
        """
        try:
            sock = socket.create_server((self.host, self.port), reuse_port=False)
        except OSError as exc:
            reason = exc.strerror or exc
            raise ParameterError(f"cannot listen on {self.host}:{self.port}: {reason}") from exc
        self.port = sock.getsockname()[1]
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(lambda: _Connection(self), sock=sock)
        return self.base_url

    async def stop(self) -> None:
        """Stop listening and close connections (replies still due are not sent)."""
        if self._server is None:
            return
        self._server.close()
        for connection in list(self._connections):
            connection.close()
        await self._server.wait_closed()
        self._server = None

    def _dispatch(self, connection: _Connection, request: Request) -> None:
        methods = self._routes.get(request.path)
        if methods is None:
            reply: _Reply | None = _error(404, f"no route {request.path}", "not_found_error")
        elif request.method not in methods:
            allow = (("Allow", ", ".join(methods)),)
            reply = _error(405, f"{request.method} not allowed", "invalid_request_error", allow)
        else:
            reply = methods[request.method](connection, request)
        if reply is not None:
            connection.reply(reply)

    def _models(self, connection: _Connection, request: Request) -> _Reply:
        data = [
            {"id": m, "object": "model", "created": 0, "owned_by": "robustgraph-sim"}
            for m in self.simulator.models
        ]
        return _json({"object": "list", "data": data})

    def _stats(self, connection: _Connection, request: Request) -> _Reply:
        return _json(self.stats.as_dict())

    def _queue_faults(self, connection: _Connection, request: Request) -> _Reply:
        try:
            spec = orjson.loads(request.body)["faults"]
            faults = parse_faults(str(spec))
        except (ValueError, KeyError, TypeError, ParameterError) as exc:
            return _error(400, f'expected {{"faults": "<plan>"}}: {exc}', "invalid_request_error")
        self.add_faults(faults)
        return _json({"queued": len(faults), "pending": len(self._faults)})

    def _next_fault(self, request: Request) -> Fault | None:
        header = request.headers.get(FAULT_HEADER.lower())
        if header:
            try:
                planned = parse_faults(header)
            except ParameterError:
                planned = []
            return planned[0] if planned else None
        return self._faults.popleft() if self._faults else None

    def _chat(self, connection: _Connection, request: Request) -> _Reply | None:
        self.stats.requests += 1
        fault = self._next_fault(request)
        if fault is not None:
            self.stats.faults[fault.kind] += 1
            if fault.kind == "429":
                headers = (("Retry-After", f"{fault.seconds:g}"),)
                return _error(429, "rate limit reached (injected)", "rate_limit_error", headers)
            if fault.kind == "500":
                return _error(500, "internal server error (injected)", "server_error")
            if fault.kind == "malformed":
                return _Reply(200, b'{"id": "x", "choices": [{"mess')
            connection.reply_later(fault.seconds, lambda: self._complete(connection, request))
            return None
        return self._complete(connection, request)

    def _complete(self, connection: _Connection, request: Request) -> _Reply | None:
        """Answer a chat request now, or after the latency (then None: a timer replies)."""
        try:
            body = orjson.loads(request.body)
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

        def served() -> _Reply:
            stats = self.stats
            stats.completions += 1
            stats.prompt_tokens += reply["usage"]["prompt_tokens"]
            stats.completion_tokens += reply["usage"]["completion_tokens"]
            stats.bodies[hashlib.sha256(request.body).hexdigest()] += 1
            return _Reply(200, orjson.dumps(reply))

        if not self.latency_s:
            return served()
        connection.reply_later(self.latency_s, served)
        return None


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
