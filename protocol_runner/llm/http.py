"""A lean HTTP/1.1 client: a pool of keep-alive connections to one origin on asyncio protocols.

The openai backend makes thousands of small requests to one endpoint; this client costs a
fraction of a general-purpose one per request (``docs/performance.md``, "Runner throughput")
because it does only what that needs: the request head is built once per (method, path) and
sent with the body in one write; replies are parsed straight from the socket's data callback
(``Content-Length``, ``chunked``, or read until the server closes). Connections are kept alive
and reused (most recently used first) unless the server says ``Connection: close``; a reused
connection that turns out closed by the server before any byte of the reply (a stale keep-alive
connection) is retried once on a fresh connection. TLS uses :mod:`ssl` through the event loop
(``https://`` URLs; the default context verifies certificates against the system store, which
``SSL_CERT_FILE`` can point elsewhere).

Failures are classified for the shared client (:mod:`protocol_runner.llm.errors`): connection
failures, dropped connections, malformed replies and timeouts raise :class:`TransportError` (a
``TransientError``: retried); a TLS certificate that does not verify raises ``BackendError``
(retrying cannot help). Non-200 statuses are returned, not raised: the caller classifies them.

References
----------
RFC 9112, "HTTP/1.1": 9.3 (persistence), 9.3.1 (retrying requests), 9.6 (tear-down).
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast
from urllib.parse import urlsplit

from protocol_runner.llm.errors import TransientError
from protocol_runner.llm.http_wire import (
    CHUNKED,
    HEAD_LIMIT,
    LENGTH,
    UNTIL_CLOSE,
    ChunkedDecoder,
    body_framing,
    split_head,
)
from robustgraph.errors import BackendError, ParameterError

__all__ = ["HTTPClient", "HTTPResponse", "TransportError"]

MAX_BODY = 64 * 1024 * 1024
_CLOSE_WAIT_S = 1.0


class TransportError(TransientError):
    """No usable reply: cannot connect, connection dropped, malformed reply, or timeout.

    ``reason`` is the cause without the endpoint (e.g. ``Connection refused``).
    """

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


class _Stale(Exception):
    """A reused connection was closed before any byte of the reply: safe to send again."""


@dataclass(frozen=True, slots=True)
class HTTPResponse:
    """A reply: status code, header fields (lower-case names) and the decoded body."""

    status: int
    headers: dict[str, str]
    body: bytes


class HTTPClient:
    """Requests to the origin of ``base_url``, on a pool of keep-alive connections.

    Parameters
    ----------
    base_url : str
        ``http://`` or ``https://`` URL; request paths are appended to its path.
    headers : mapping, optional
        Header fields sent with every request (e.g. ``Authorization``).
    ssl_context : ssl.SSLContext, optional
        For ``https``; default :func:`ssl.create_default_context` (verifies certificates).
    max_body : int
        Largest reply body accepted, in bytes.

    Examples
    --------
    >>> import asyncio
    >>> from protocol_runner.sim.server import SimServer
    >>> from protocol_runner.sim.agents import Simulator
    >>> from protocol_runner.tasks import Task
    >>> async def models():
    ...     server = SimServer(Simulator([Task("t", "1+1?", "2")]))
    ...     client = HTTPClient(await server.start())
    ...     try:
    ...         reply = await client.request("GET", "/models")
    ...         return reply.status, reply.headers["content-type"]
    ...     finally:
    ...         await client.aclose()
    ...         await server.stop()
    >>> asyncio.run(models())
    (200, 'application/json')

    Notes
    -----
    The number of connections is not bounded here: the caller bounds the requests in flight
    (``LLMClient``'s semaphore), and each request in flight holds one connection.
    """

    def __init__(
        self,
        base_url: str,
        *,
        headers: Mapping[str, str] | None = None,
        ssl_context: ssl.SSLContext | None = None,
        max_body: int = MAX_BODY,
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ParameterError(f"URL must be http:// or https:// with a host, got {base_url!r}")
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError as exc:
            raise ParameterError(f"URL {base_url!r}: {exc}") from None
        self.base_url = base_url.rstrip("/")
        self.max_body = max_body
        self._host, self._port = parts.hostname, port
        self._tls = parts.scheme == "https"
        self._ssl_context = ssl_context
        self._prefix = parts.path.rstrip("/")
        authority = parts.netloc.rpartition("@")[2]
        fixed = {
            "Host": authority,
            "User-Agent": "robustgraph",
            "Accept": "application/json",
            "Accept-Encoding": "identity",  # no compressed replies (RFC 9110, 12.5.3)
        }
        fixed.update(headers or {})
        self._fixed = "".join(f"{name}: {value}\r\n" for name, value in fixed.items())
        self._heads: dict[tuple[str, str, tuple[tuple[str, str], ...]], bytes] = {}
        self._idle: list[_Connection] = []
        self._open: set[_Connection] = set()

    def __repr__(self) -> str:
        return f"HTTPClient({self.base_url!r})"

    async def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        *,
        headers: tuple[tuple[str, str], ...] = (),
        timeout_s: float | None = None,
    ) -> HTTPResponse:
        """Send ``method base_path+path`` with ``body`` and return the reply, whatever its status.

        Parameters
        ----------
        method, path : str
            e.g. ``"POST"``, ``"/chat/completions"``.
        body : bytes, optional
            Sent with a ``Content-Length``; ``None`` sends no body.
        headers : tuple of (name, value)
            Extra header fields (a tuple, so the request head is built once per value).
        timeout_s : float, optional
            Limit on the whole request (connecting included); ``None`` for none.

        Raises
        ------
        TransportError
            Cannot connect, the connection dropped, the reply is not HTTP, or the time ran out.
        BackendError
            The server's TLS certificate does not verify.
        """
        if timeout_s is None:
            return await self._request(method, path, body, headers)
        try:
            async with asyncio.timeout(timeout_s):
                return await self._request(method, path, body, headers)
        except TimeoutError:
            reason = f"no reply within {timeout_s:g} s"
            raise TransportError(f"{reason} from {self.base_url}", reason) from None

    async def _request(
        self, method: str, path: str, body: bytes | None, headers: tuple[tuple[str, str], ...]
    ) -> HTTPResponse:
        key = (method, path, headers)
        head = self._heads.get(key)
        if head is None:
            head = self._heads[key] = self._build_head(method, path, headers, body is not None)
        message = head if body is None else b"%s%d\r\n\r\n%s" % (head, len(body), body)
        fresh = False
        while True:
            connection = None if fresh else self._reusable()
            if connection is None:
                connection = await self._connect()
                fresh = True
            waiter = connection.send(message, head_only=method == "HEAD")
            try:
                return await waiter
            except _Stale:
                fresh = True  # once more, on a new connection
            except BaseException:
                if connection.awaits(waiter):  # cancelled mid-reply: its state is unknown
                    connection.abort()
                raise

    def _build_head(
        self, method: str, path: str, headers: tuple[tuple[str, str], ...], has_body: bool
    ) -> bytes:
        extra = "".join(f"{name}: {value}\r\n" for name, value in headers)
        head = f"{method} {self._prefix}{path} HTTP/1.1\r\n{self._fixed}{extra}"
        return (head + ("Content-Length: " if has_body else "\r\n")).encode("latin-1")

    def _reusable(self) -> _Connection | None:
        while self._idle:
            connection = self._idle.pop()
            if not connection.closed:
                return connection
        return None

    async def _connect(self) -> _Connection:
        loop = asyncio.get_running_loop()
        context = None
        if self._tls:
            if self._ssl_context is None:
                self._ssl_context = ssl.create_default_context()
            context = self._ssl_context
        try:
            _, connection = await loop.create_connection(
                lambda: _Connection(self),
                self._host,
                self._port,
                ssl=context,
                server_hostname=self._host if context else None,
            )
        except ssl.SSLCertVerificationError as exc:
            reason = exc.verify_message or str(exc)
            raise BackendError(
                f"TLS certificate of {self.base_url} not accepted: {reason}"
            ) from None
        except ssl.SSLError as exc:
            reason = f"TLS handshake failed: {exc.reason or exc}"
            raise TransportError(f"cannot connect to {self.base_url}: {reason}", reason) from None
        except OSError as exc:
            reason = exc.strerror or str(exc) or type(exc).__name__
            raise TransportError(f"cannot connect to {self.base_url}: {reason}", reason) from None
        return connection

    def _release(self, connection: _Connection) -> None:
        self._idle.append(connection)

    def _forget(self, connection: _Connection) -> None:
        self._open.discard(connection)

    async def aclose(self) -> None:
        """Close every connection (waiting up to a second for graceful TLS shutdowns)."""
        self._idle.clear()
        connections = list(self._open)
        for connection in connections:
            connection.close()
        gone = [c.gone for c in connections if not c.gone.done()]
        if gone:
            await asyncio.wait(gone, timeout=_CLOSE_WAIT_S)
        for connection in connections:
            connection.abort()


class _Connection(asyncio.Protocol):
    """One connection: sends a request, parses its reply from the data callbacks."""

    def __init__(self, client: HTTPClient) -> None:
        self._client = client
        self._transport: asyncio.Transport | None = None
        self._buffer = bytearray()
        self._waiter: asyncio.Future[HTTPResponse] | None = None
        self.gone: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.closed = False
        self._served = 0
        self._got_bytes = False
        self._head_only = False
        self._status = 0
        self._fields: dict[str, str] = {}
        self._framing = LENGTH
        self._left = 0
        self._chunks: ChunkedDecoder | None = None
        self._keep = True

    # ------------------------------------------------------------------ asyncio callbacks
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast(asyncio.Transport, transport)  # uvloop's is no subclass
        self._client._open.add(self)

    def data_received(self, data: bytes) -> None:
        if self._waiter is None:  # bytes nobody asked for: the connection is out of step
            self.abort()
            return
        self._got_bytes = True
        self._buffer += data
        try:
            body = self._parse()
        except ValueError as exc:
            self._fail(self._error("malformed HTTP reply", str(exc)))
            self.abort()
            return
        if body is not None:
            self._finish(body)

    def eof_received(self) -> bool:
        if self._waiter is not None and self._status and self._framing == UNTIL_CLOSE:
            self._keep = False
            self._finish(bytes(self._buffer))
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self._client._forget(self)
        if not self.gone.done():
            self.gone.set_result(None)
        if self._waiter is None:
            return
        if exc is None and self._status and self._framing == UNTIL_CLOSE:
            self._keep = False
            self._finish(bytes(self._buffer))
        elif not self._got_bytes and self._served:
            self._fail(_Stale())
        else:
            reason = "connection closed before the reply was complete"
            if exc is not None:
                reason += f" ({exc.strerror if isinstance(exc, OSError) else exc})"
            self._fail(self._error("no reply", reason))

    # ------------------------------------------------------------------ requests
    def send(self, message: bytes, *, head_only: bool = False) -> asyncio.Future[HTTPResponse]:
        """Write one request; the future resolves with its reply."""
        assert self._transport is not None and self._waiter is None
        self._waiter = waiter = asyncio.get_running_loop().create_future()
        self._got_bytes = False
        self._head_only = head_only
        self._transport.write(message)
        return waiter

    def awaits(self, waiter: asyncio.Future[HTTPResponse]) -> bool:
        """Whether the reply ``waiter`` stands for is still incomplete on this connection."""
        return self._waiter is waiter

    def close(self) -> None:
        self.closed = True
        if self._transport is not None:
            self._transport.close()

    def abort(self) -> None:
        self.closed = True
        if self._transport is not None:
            self._transport.abort()

    def _error(self, what: str, reason: str) -> TransportError:
        return TransportError(f"{what} from {self._client.base_url}: {reason}", reason)

    def _parse(self) -> bytes | None:
        """The reply body once complete, else None; parses the head when it is in."""
        buffer = self._buffer
        while not self._status:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                if len(buffer) > HEAD_LIMIT:
                    raise ValueError("reply head too long")
                return None
            line, fields = split_head(bytes(buffer[:end]))
            del buffer[: end + 4]
            version, _, rest = line.partition(" ")
            code = rest[:3]
            if (
                not version.startswith("HTTP/1.")
                or not (code.isascii() and code.isdigit())
                or rest[3:4] not in ("", " ")
            ):
                raise ValueError(f"bad status line {line[:60]!r}")
            status = int(code)
            if status < 200:
                continue  # an interim reply (100 Continue): the real one follows
            tokens = {t.strip() for t in fields.get("connection", "").lower().split(",")}
            self._keep = "close" not in tokens if version == "HTTP/1.1" else "keep-alive" in tokens
            coding = fields.get("content-encoding", "identity").strip().lower()
            if coding not in ("identity", ""):
                raise ValueError(f"content coding {coding!r} not supported")
            if self._head_only or status in (204, 304):
                self._framing, self._left = LENGTH, 0
            else:
                self._framing, self._left = body_framing(fields, response=True)
            if self._framing == CHUNKED:
                self._chunks = ChunkedDecoder(self._client.max_body)
            elif self._framing == UNTIL_CLOSE:
                self._keep = False
            elif self._left > self._client.max_body:
                raise ValueError(f"body of {self._left} bytes is over the limit")
            self._status, self._fields = status, fields
        if self._framing == LENGTH:
            if len(buffer) < self._left:
                return None
            body = bytes(buffer[: self._left])
            del buffer[: self._left]
            return body
        if self._framing == CHUNKED:
            assert self._chunks is not None
            return bytes(self._chunks.body) if self._chunks.feed(buffer) else None
        if len(buffer) > self._client.max_body:
            raise ValueError("body over the limit")
        return None

    def _finish(self, body: bytes) -> None:
        waiter, self._waiter = self._waiter, None
        response = HTTPResponse(self._status, self._fields, body)
        reusable = self._keep and not self._buffer and not self.closed
        self._served += 1
        self._status, self._fields, self._chunks = 0, {}, None
        if reusable:
            self._client._release(self)
        else:
            self.close()
        if waiter is not None and not waiter.done():
            waiter.set_result(response)

    def _fail(self, error: BaseException) -> None:
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_exception(error)
