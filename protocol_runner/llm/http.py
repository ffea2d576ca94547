"""The openai backend's HTTP transport: an aiohttp session to one endpoint, failures classified.

aiohttp (``ClientSession`` over a ``TCPConnector``) does keep-alive connections,
``Content-Length``, ``chunked`` and close-delimited bodies (HTTP/1.0), proxies and TLS. Three
things are done here, because a hostile endpoint turns aiohttp's defaults against the run
(docs/protocols.md, endpoint threats):

- bodies are read by :func:`protocol_runner.llm.body.read_body`: ``gzip``/``deflate`` decoded
  under :data:`MAX_BODY` (decoded and on the wire), whatever the framing; other codings refused;
- redirects (301/302/303/307/308, at most :data:`MAX_REDIRECTS`) are followed here, only within
  the origin named (:class:`protocol_runner.llm.origin.RedirectPolicy`); credentials only go to
  the trusted origins;
- aiohttp's exceptions become the shared client's classes (:mod:`protocol_runner.llm.errors`):

- connection failures, dropped connections and malformed replies raise :class:`TransportError`
  (a ``TransientError``: retried); no byte for ``read_timeout_s`` raises
  :class:`TransportTimeout` (also a ``TimeoutError``, so the client counts it as a timeout);
- a TLS certificate that does not verify, a redirect loop or a redirect outside the origin
  raises ``BackendError`` (retrying cannot help);
- non-2xx statuses are returned, not raised: the caller classifies them.

The environment is read when the client is made (for a run: when it starts):

- proxies from ``HTTPS_PROXY`` / ``HTTP_PROXY`` / ``NO_PROXY`` (either case), with credentials
  from the proxy URL or ``~/.netrc``, by aiohttp's own :func:`aiohttp.helpers.get_env_proxy_for_url`
  for the endpoint's URL. That is what ``trust_env=True`` does, but once per client instead of
  twice per request on a worker thread (``benchmarks/runner_http_client.py`` measures the
  difference);
- for an ``https`` endpoint, the TLS trust store, by :func:`ssl.create_default_context`, which
  honours ``SSL_CERT_FILE`` and ``SSL_CERT_DIR`` (aiohttp's own default context, used for an
  ``http`` endpoint redirecting to ``https``, is made when aiohttp is imported).

Timeouts follow the reply's progress: ``read_timeout_s`` bounds connecting (``sock_connect``,
and ``connect``: DNS and waiting for a pooled connection) and every wait for the next bytes
(``sock_read``), so a slow reply that keeps arriving is not cut; the overall cap on one call is
the shared client's (``ClientConfig.timeout_s``).

References
----------
aiohttp client reference: ``ClientSession``, ``TCPConnector``, ``ClientTimeout``; RFC 9110,
15.4 (redirection) and 8.4 (content codings).
"""

from __future__ import annotations

import asyncio
import math
import os
import ssl
from collections.abc import Mapping
from dataclasses import dataclass

import aiohttp
from aiohttp.helpers import get_env_proxy_for_url
from yarl import URL

from protocol_runner.llm.body import ACCEPT_ENCODING, BodyError, BodyTooLarge, read_body
from protocol_runner.llm.errors import TransientError
from protocol_runner.llm.origin import RedirectPolicy
from robustgraph.errors import BackendError, ParameterError

__all__ = [
    "MAX_BODY", "MAX_REDIRECTS", "HTTPClient", "HTTPResponse", "TransportError", "TransportTimeout",
]

MAX_BODY = 8 * 1024 * 1024
"""Cap on a reply's body, decoded and on the wire (a chat completion is a few KB; a ``/models``
listing of hundreds of models about 1 MB). With at most ``connections`` replies read at once,
a client holds at most ``connections * MAX_BODY`` bytes of bodies."""
MAX_REDIRECTS = 10
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_CREDENTIALS = frozenset({"authorization", "cookie", "proxy-authorization"})
_RETIRED_KEPT = 4

_REASON_LIMIT = 160


class TransportError(TransientError):
    """No usable reply: cannot connect, connection dropped or malformed reply.

    ``reason`` is the cause without the endpoint (e.g. ``Connection refused``).
    """

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


class TransportTimeout(TransportError, TimeoutError):
    """No connection, or no next bytes of the reply, within the read timeout."""


@dataclass(frozen=True, slots=True)
class HTTPResponse:
    """The final reply (after redirects): status, header fields (case-insensitive), body.

    The body is decoded from its content coding (``gzip``, ``deflate``).
    """

    status: int
    headers: Mapping[str, str]
    body: bytes


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return line[:_REASON_LIMIT] + ("..." if len(line) > _REASON_LIMIT else "")


def _os_reason(error: OSError) -> str:
    if error.errno and not isinstance(error, ssl.SSLError):
        return os.strerror(error.errno)
    return _one_line(error.strerror or str(error) or type(error).__name__)


class HTTPClient:
    """Requests below ``base_url`` over one aiohttp session per event loop.

    Parameters
    ----------
    base_url : str
        ``http://`` or ``https://`` URL; request paths are appended to it.
    headers : mapping, optional
        Header fields sent with every request (e.g. ``Authorization``).
    connections : int
        Size of the connection pool; give the number of requests in flight at most (the
        shared client's ``max_concurrency``), so no request waits for a connection.
    read_timeout_s : float or None
        Limit on connecting and on each wait for more of the reply; ``None`` (or infinity)
        for none.
    max_body : int
        Cap on a reply's body, decoded and on the wire; a ``Content-Length`` over it is
        refused unread.
    cross_origin_redirects : bool
        Follow redirects outside ``base_url``'s origin (default: refused,
        :class:`~protocol_runner.llm.origin.RedirectPolicy`).

    Raises
    ------
    ParameterError
        A URL that is not ``http(s)://host[:port]...``, or fewer than one connection.

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
    ...         return reply.status, reply.headers["Content-Type"]
    ...     finally:
    ...         await client.aclose()
    ...         await server.stop()
    >>> asyncio.run(models())
    (200, 'application/json')

    Notes
    -----
    A session belongs to the event loop it was opened on; a request from another loop (a later
    :func:`asyncio.run`) opens a new one, and :meth:`aclose` closes the current one.
    """

    def __init__(
        self,
        base_url: str,
        *,
        headers: Mapping[str, str] | None = None,
        connections: int = 16,
        read_timeout_s: float | None = 60.0,
        max_body: int = MAX_BODY,
        cross_origin_redirects: bool = False,
    ) -> None:
        try:
            url = URL(base_url.rstrip("/"))
            url.port  # noqa: B018 - raises ValueError for a port out of range
        except ValueError as exc:
            raise ParameterError(f"URL {base_url!r}: {exc}") from None
        if url.scheme not in ("http", "https") or not url.host:
            raise ParameterError(f"URL must be http:// or https:// with a host, got {base_url!r}")
        if connections < 1:
            raise ParameterError(f"connections must be >= 1, got {connections}")
        self.base_url = str(url)
        self.max_body = max_body
        # an infinite limit is none (aiohttp rounds its deadlines up with math.ceil)
        finite = read_timeout_s is not None and math.isfinite(read_timeout_s)
        self.read_timeout_s = read_timeout_s if finite else None
        try:
            self._proxy, self._proxy_auth = get_env_proxy_for_url(url)
        except LookupError:  # no proxy for this URL, or NO_PROXY excludes it
            self._proxy, self._proxy_auth = None, None
        # loading the trust store takes ~0.1 s: once here, not on the event loop per session
        self._ssl: ssl.SSLContext | bool = (
            ssl.create_default_context() if url.scheme == "https" else True
        )
        self._redirects = RedirectPolicy(url, cross_origin=cross_origin_redirects)
        self._headers = {
            "User-Agent": "robustgraph", "Accept": "application/json",
            "Accept-Encoding": ACCEPT_ENCODING,
        }
        self._headers.update(headers or {})
        self._connections = connections
        self._session: aiohttp.ClientSession | None = None
        self._retired: list[aiohttp.ClientSession] = []
        self._closing: set[asyncio.Task[None]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None

    def __repr__(self) -> str:
        return f"HTTPClient({self.base_url!r})"

    def _timeout(self, total: float | None) -> aiohttp.ClientTimeout:
        read = self.read_timeout_s
        return aiohttp.ClientTimeout(total=total, connect=read, sock_connect=read, sock_read=read)

    def _open(self) -> aiohttp.ClientSession:
        """The session of the running loop, opened on first use."""
        loop = asyncio.get_running_loop()
        if self._session is not None and not self._session.closed and self._loop is loop:
            return self._session
        connector = aiohttp.TCPConnector(limit=self._connections, limit_per_host=0, ssl=self._ssl)
        self._session = aiohttp.ClientSession(
            connector=connector,
            auto_decompress=False,  # decoded under the cap by read_body
            timeout=self._timeout(None),
            proxy=self._proxy,
            proxy_auth=self._proxy_auth,
        )
        self._loop = loop
        return self._session

    async def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        *,
        headers: Mapping[str, str] | None = None,
        timeout_s: float | None = None,
    ) -> HTTPResponse:
        """Send ``method base_url+path`` with ``body``; the final reply, whatever its status.

        Parameters
        ----------
        method, path : str
            e.g. ``"POST"``, ``"/chat/completions"``.
        body : bytes, optional
            Sent with a ``Content-Length``; ``None`` sends no body.
        headers : mapping, optional
            Extra header fields for this request.
        timeout_s : float, optional
            A limit on the whole request besides the read timeout (redirects and the body
            included); ``None`` for none.

        Raises
        ------
        TransportError
            Cannot connect, the connection dropped, the reply is not HTTP or not complete, or
            its body is over ``max_body`` bytes (decoded or on the wire).
        TransportTimeout
            The read timeout or ``timeout_s`` ran out.
        BackendError
            The server's TLS certificate does not verify, it redirects in a loop, or it
            redirects outside the origin named (unless ``cross_origin_redirects``).
        """
        session = self._open()
        try:
            async with asyncio.timeout(timeout_s):
                return await self._follow(session, method, path, body, headers or {})
        except aiohttp.ClientConnectorCertificateError as exc:
            reason = _os_reason(exc.certificate_error)
            if isinstance(exc.certificate_error, ssl.SSLCertVerificationError):
                reason = exc.certificate_error.verify_message or reason
            raise BackendError(
                f"TLS certificate of {self.base_url} not accepted: {reason}"
            ) from None
        except aiohttp.ClientProxyConnectionError as exc:
            raise self._error("cannot connect to the proxy for", _os_reason(exc.os_error)) from None
        except aiohttp.ClientHttpProxyError as exc:
            reason = _one_line(f"HTTP {exc.status} {exc.message}")
            raise self._error("the proxy refused a tunnel to", reason) from None
        except aiohttp.ClientConnectorError as exc:
            raise self._error("cannot connect to", _os_reason(exc.os_error)) from None
        except TimeoutError as exc:  # aiohttp's ServerTimeoutError is one too
            if isinstance(exc, aiohttp.ServerTimeoutError):
                reason = f"no data within {self.read_timeout_s:g} s"
            else:
                reason = f"no reply within {timeout_s:g} s"
            raise TransportTimeout(f"{reason} from {self.base_url}", reason) from None
        except aiohttp.ClientResponseError as exc:  # the reply's head is not valid HTTP
            raise self._error("malformed HTTP reply from", _one_line(exc.message)) from None
        except aiohttp.ClientPayloadError as exc:  # cut short or a bad chunk
            raise self._error("malformed reply body from", _one_line(str(exc))) from None
        except BodyTooLarge as exc:
            reason = str(exc) or f"a body over {self.max_body} bytes (counted after decoding)"
            raise self._error("reply too large from", reason) from None
        except BodyError as exc:
            raise self._error("malformed reply body from", _one_line(str(exc))) from None
        except aiohttp.ServerDisconnectedError:
            raise self._error("no reply from", "the connection was closed") from None
        except aiohttp.ClientError as exc:
            raise self._error("no reply from", _one_line(str(exc) or type(exc).__name__)) from None

    async def _follow(
        self,
        session: aiohttp.ClientSession,
        method: str,
        path: str,
        body: bytes | None,
        extra: Mapping[str, str],
    ) -> HTTPResponse:
        """The request and the redirects it leads to (RFC 9110, 15.4), within the policy."""
        url = URL(self.base_url + path)
        for _ in range(MAX_REDIRECTS + 1):
            headers = {**self._headers, **extra}
            if not self._redirects.keeps_credentials(url):
                headers = {k: v for k, v in headers.items() if k.lower() not in _CREDENTIALS}
            async with session.request(
                method, url, data=body, headers=headers, allow_redirects=False
            ) as reply:
                location = reply.headers.get("Location")
                if reply.status not in _REDIRECTS or location is None:
                    # aiohttp pools the connection when the wire body ends, which may be before
                    # the decoder finds it bad: hold it, to close it then
                    protocol = reply.connection.protocol if reply.connection else None
                    try:
                        self._room(reply)
                        data = await read_body(
                            reply.content.iter_any(), reply.headers.get("Content-Encoding"),
                            self.max_body,
                        )
                    except BodyError:
                        reply.close()
                        self._drop(protocol)
                        raise
                    return HTTPResponse(reply.status, reply.headers, data)
            try:
                target = url.join(URL(location))
                target.port  # noqa: B018 - raises ValueError for a port out of range
            except ValueError:
                raise self._error("malformed redirect from", _one_line(location)) from None
            self._redirects.check(url, target)
            if reply.status == 303 or (reply.status in (301, 302) and method == "POST"):
                method, body = ("HEAD" if method == "HEAD" else "GET"), None
                extra = {k: v for k, v in extra.items() if k.lower() != "content-type"}
            url = target
        raise BackendError(f"{self.base_url + path} redirects more than {MAX_REDIRECTS} times")

    def _drop(self, protocol: object) -> None:
        """Never reuse the connection of a bad body: close it if still held, else (aiohttp pooled
        it when the wire body ended) retire the session; requests in flight on it finish."""
        if protocol is not None:
            protocol.close()  # type: ignore[attr-defined]
        elif self._session is not None:
            self._retired.append(self._session)
            self._session = None
            if len(self._retired) > _RETIRED_KEPT:  # the oldest has long finished its requests
                oldest = self._retired.pop(0)
                self._closing.add(task := asyncio.get_running_loop().create_task(oldest.close()))
                task.add_done_callback(self._closing.discard)

    def _room(self, reply: aiohttp.ClientResponse) -> None:
        """Refuse unread a reply whose ``Content-Length`` is over ``max_body``."""
        if reply.content_length is not None and reply.content_length > self.max_body:
            raise BodyTooLarge(f"a body of {reply.content_length} bytes")

    def _error(self, what: str, reason: str) -> TransportError:
        return TransportError(f"{what} {self.base_url}: {reason}", reason)

    async def aclose(self) -> None:
        """Close the session and its connections (a later request opens a new one)."""
        sessions = [*self._retired, self._session]
        self._session, self._retired = None, []
        for session in sessions:
            if session is not None and not session.closed:
                await session.close()
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)
