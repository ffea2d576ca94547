"""Loopback HTTP fakes for the transport tests: a scripted server, a forwarding proxy, TLS files.

Each is an async context manager that listens on 127.0.0.1 (port 0) while its block runs and
closes every connection when it ends.
"""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

__all__ = ["ForwardProxy", "Scripted", "in_thread", "self_signed", "tls_server_context"]


async def _read_request(reader: asyncio.StreamReader) -> tuple[bytes, dict[str, str], bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    fields: dict[str, str] = {}
    for line in head[:-4].decode("latin-1").split("\r\n")[1:]:
        name, _, value = line.partition(":")
        fields[name.strip().lower()] = value.strip()
    body = await reader.readexactly(int(fields.get("content-length", "0")))
    return head, fields, body


class Scripted:
    """A server that answers each request with the next scripted action, in order.

    An action is ``bytes`` (written as the reply, the connection kept), ``("close", bytes)``
    (written, then the connection closed: a close-delimited body ends there), ``("pieces",
    [bytes, ...], seconds)`` (written one piece every ``seconds``), or ``"hang"`` (no reply
    until the client goes away). A request with ``Connection: close`` has its connection closed
    after the reply. Each request is recorded as ``(connection number, head, fields, body)``.
    """

    def __init__(self, actions, *, tls: ssl.SSLContext | None = None) -> None:
        self.actions = list(actions)
        self.tls = tls
        self.requests: list[tuple[int, bytes, dict[str, str], bytes]] = []
        self.connections = 0
        self.closed = 0
        self.port = 0
        self._server: asyncio.Server | None = None
        self._writers: list[asyncio.StreamWriter] = []

    async def __aenter__(self) -> str:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self.tls)
        self.port = self._server.sockets[0].getsockname()[1]
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}/v1"

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        for writer in self._writers:
            writer.close()
        await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        number = self.connections
        self._writers.append(writer)
        try:
            while True:
                try:
                    head, fields, body = await _read_request(reader)
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                self.requests.append((number, head, fields, body))
                action = self.actions.pop(0)
                if action == "hang":
                    await reader.read()  # until the client closes
                    return
                if isinstance(action, tuple) and action[0] == "close":
                    writer.write(action[1])
                    await writer.drain()
                    return
                if isinstance(action, tuple) and action[0] == "pieces":
                    for piece in action[1]:
                        writer.write(piece)
                        await writer.drain()
                        await asyncio.sleep(action[2])
                    continue
                writer.write(action)
                await writer.drain()
                if fields.get("connection", "").lower() == "close":
                    return
        except (ConnectionError, asyncio.CancelledError):
            pass  # the client went away, or the server is stopping
        finally:
            self.closed += 1
            writer.close()


class ForwardProxy:
    """An HTTP proxy: absolute-form requests forwarded, ``CONNECT`` tunnels piped (RFC 9110, 9.3.6).

    ``routes`` maps host names to ``(host, port)``, so an origin named ``origin.invalid``
    (a name that resolves nowhere, RFC 6761) is reachable through the proxy and no other way.
    ``seen`` records ``(method, target)`` of every request the proxy received.
    """

    def __init__(self, routes: dict[str, tuple[str, int]]) -> None:
        self.routes = routes
        self.seen: list[tuple[str, str]] = []
        self._server: asyncio.Server | None = None
        self._writers: list[asyncio.StreamWriter] = []

    async def __aenter__(self) -> str:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        for writer in self._writers:
            writer.close()
        await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.append(writer)
        try:
            while True:
                head, fields, body = await _read_request(reader)
                method, target, version = head.decode("latin-1").split("\r\n", 1)[0].split(" ")
                self.seen.append((method, target))
                if method == "CONNECT":
                    await self._tunnel(target, reader, writer)
                    return
                await self._forward(method, target, version, fields, body, writer)
        except (OSError, asyncio.IncompleteReadError, ValueError, asyncio.CancelledError):
            pass  # a client or origin that went away, or the proxy stopping
        finally:
            writer.close()

    def _route(self, host: str, port: int) -> tuple[str, int]:
        return self.routes.get(host, (host, port))

    async def _tunnel(self, target: str, reader, writer) -> None:
        host, _, port = target.rpartition(":")
        up_reader, up_writer = await asyncio.open_connection(*self._route(host, int(port)))
        self._writers.append(up_writer)
        writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer, eof=True))

    async def _forward(self, method, target, version, fields, body, writer) -> None:
        """One request to the origin on a new connection (``Connection: close``); its reply is
        relayed until the origin closes, and the client's connection stays open."""
        parts = urlsplit(target)
        up_reader, up_writer = await asyncio.open_connection(
            *self._route(parts.hostname or "", parts.port or 80)
        )
        self._writers.append(up_writer)
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        kept = "".join(
            f"{name}: {value}\r\n"
            for name, value in fields.items()
            if not name.startswith("proxy-") and name != "connection"
        )
        up_writer.write(
            f"{method} {path} {version}\r\n{kept}Connection: close\r\n\r\n".encode() + body
        )
        await _pipe(up_reader, writer)
        up_writer.close()


async def _pipe(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *, eof: bool = False
) -> None:
    """Copy until ``reader`` ends; with ``eof``, then half-close ``writer``."""
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
        if eof and writer.can_write_eof():
            writer.write_eof()
    except OSError:
        pass


@contextmanager
def in_thread(fake: Any) -> Iterator[str]:
    """Run ``fake`` (one of the above) on an event loop in a background thread; its URL.

    For code under test that runs its own event loop (a CLI command).
    """
    loop = asyncio.new_event_loop()
    stop = asyncio.Event()
    ready = threading.Event()
    url: list[str] = []

    async def serve() -> None:
        async with fake as address:
            url.append(address)
            ready.set()
            await stop.wait()

    thread = threading.Thread(target=loop.run_until_complete, args=(serve(),), daemon=True)
    thread.start()
    try:
        assert ready.wait(10), "the fake did not start"
        yield url[0]
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join()
        loop.close()


def self_signed(directory: Path, *, names: tuple[str, ...] = ()) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (and DNS ``names``) and its key, as PEM files."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "robustgraph test")])
    now = datetime.datetime.now(datetime.UTC)
    alternatives = [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    alternatives += [x509.DNSName(name) for name in names]
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName(alternatives), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = directory / "cert.pem", directory / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_file, key_file


def tls_server_context(cert_file: Path, key_file: Path) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    return context
