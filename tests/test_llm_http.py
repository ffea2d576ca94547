"""The lean HTTP/1.1 client against scripted loopback servers (plain and TLS), and its framing."""

from __future__ import annotations

import asyncio
import datetime
import doctest
import importlib
import ipaddress
import json
import socket
import ssl

import orjson
import pytest

from protocol_runner.llm import CompletionRequest, LLMClient
from protocol_runner.llm.backends import OpenAIBackend
from protocol_runner.llm.http import HTTPClient, TransportError
from protocol_runner.llm.http_wire import (
    CHUNKED,
    LENGTH,
    UNTIL_CLOSE,
    ChunkedDecoder,
    body_framing,
    split_head,
)
from robustgraph.errors import BackendError, ParameterError

OK = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"


class Scripted:
    """A loopback server that answers each request with the next scripted action.

    An action is ``bytes`` (written as the reply), ``("pieces", [bytes...])`` (written one
    piece per loop turn with a short pause), ``"close"`` (close without replying), ``"hang"``
    (never reply) or ``("then-close", bytes)`` (reply, then close the connection). Every
    request is recorded as ``(connection number, head, body)``.
    """

    def __init__(self, actions, *, tls: ssl.SSLContext | None = None):
        self.actions = list(actions)
        self.tls = tls
        self.requests: list[tuple[int, bytes, bytes]] = []
        self.connections = 0
        self.closed = asyncio.Event()
        self._server: asyncio.Server | None = None
        self._writers: list[asyncio.StreamWriter] = []

    async def __aenter__(self) -> str:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self.tls)
        port = self._server.sockets[0].getsockname()[1]
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{port}/v1"

    async def __aexit__(self, *exc):
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
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                _, fields = split_head(head[:-4])
                body = await reader.readexactly(int(fields.get("content-length", "0")))
                self.requests.append((number, head, body))
                action = self.actions.pop(0)
                if action == "close":
                    return
                if action == "hang":
                    await reader.read()  # until the client gives up and closes
                    return
                if isinstance(action, tuple) and action[0] == "pieces":
                    for piece in action[1]:
                        writer.write(piece)
                        await writer.drain()
                        await asyncio.sleep(0.005)
                    continue
                if isinstance(action, tuple) and action[0] == "then-close":
                    writer.write(action[1])
                    await writer.drain()
                    return
                writer.write(action)
                await writer.drain()
        finally:
            writer.close()
            self.closed.set()


def run(coro):
    return asyncio.run(coro)


async def ask(client: HTTPClient, body: bytes | None = b"{}", **kw):
    return await client.request("POST" if body is not None else "GET", "/chat", body, **kw)


def test_content_length_reply_and_keep_alive_reuse():
    server = Scripted([OK, OK, OK])
    replies, _ = run(
        _with(
            server,
            lambda client: [ask(client, b'{"a":1}') for _ in range(3)],
            headers={"Authorization": "Bearer k"},
        )
    )
    assert [r.body for r in replies] == [b"hello"] * 3 and replies[0].status == 200
    assert server.connections == 1 and [n for n, *_ in server.requests] == [1, 1, 1]
    head = server.requests[0][1].decode()
    assert head.startswith("POST /v1/chat HTTP/1.1\r\n")
    assert "Host: 127.0.0.1:" in head and "Authorization: Bearer k\r\n" in head
    assert "Content-Length: 7\r\n" in head and server.requests[0][2] == b'{"a":1}'
    assert "Accept-Encoding: identity\r\n" in head


async def _with(server: Scripted, make_calls, **client_options):
    """Run the awaitables ``make_calls(client)`` returns, one after another."""
    async with server as url:
        client = HTTPClient(url, **client_options)
        try:
            out = []
            for call in make_calls(client):
                out.append(await call)
            return out, client
        finally:
            await client.aclose()


def test_chunked_reply_in_pieces_with_extensions_and_trailers():
    reply = [
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Id: 7\r\n\r\n",
        b"5;name=value\r\nhell",
        b"o\r\n",
        b"6\r\n world\r\n0\r\n",
        b"Trailer-Field: x\r\n\r\n",
    ]
    server = Scripted([("pieces", reply), OK])
    (first, second), _ = run(_with(server, lambda c: [ask(c), ask(c)]))
    assert first.body == b"hello world" and first.headers["x-id"] == "7"
    assert second.body == b"hello" and server.connections == 1


def test_reply_read_until_close_and_connection_close_are_not_reused():
    until_close = ("then-close", b"HTTP/1.1 200 OK\r\n\r\nall of it")
    close = b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok"
    server = Scripted([until_close, close, OK])
    replies, _ = run(_with(server, lambda c: [ask(c), ask(c), ask(c)]))
    assert [r.body for r in replies] == [b"all of it", b"ok", b"hello"]
    assert server.connections == 3


def test_stale_keep_alive_connection_is_retried_once_on_a_fresh_one():
    # the server answers, keeps the connection, then drops it when the next request comes
    server = Scripted([OK, "close", OK])
    replies, _ = run(_with(server, lambda c: [ask(c), ask(c)]))
    assert [r.body for r in replies] == [b"hello", b"hello"]
    assert [n for n, *_ in server.requests] == [1, 1, 2]


def test_idle_connection_closed_by_the_server_is_not_used():
    server = Scripted([("then-close", OK), OK])

    async def scenario():
        async with server as url:
            client = HTTPClient(url)
            try:
                first = await ask(client)
                await server.closed.wait()
                await asyncio.sleep(0.01)
                return first, await ask(client)
            finally:
                await client.aclose()

    first, second = run(scenario())
    assert first.body == second.body == b"hello" and server.connections == 2


def test_fresh_connection_dropped_before_a_reply_is_an_error_not_a_retry():
    server = Scripted(["close", OK])
    with pytest.raises(TransportError, match="closed before the reply was complete"):
        run(_with(server, lambda c: [ask(c)]))
    assert len(server.requests) == 1


@pytest.mark.parametrize("status", [404, 429, 500, 503])
def test_non_200_statuses_are_returned_with_headers_and_body(status):
    reply = (
        f"HTTP/1.1 {status} Whatever\r\nRetry-After: 2\r\nContent-Length: 9\r\n\r\n"
        '{"x": 11}'
    ).encode()
    server = Scripted([reply, OK])
    (first, second), _ = run(_with(server, lambda c: [ask(c), ask(c)]))
    assert first.status == status and first.headers["retry-after"] == "2"
    assert json.loads(first.body) == {"x": 11} and second.status == 200
    assert server.connections == 1  # an error status does not cost the connection


def test_interim_100_continue_is_skipped():
    server = Scripted([b"HTTP/1.1 100 Continue\r\n\r\n" + OK])
    (reply,), _ = run(_with(server, lambda c: [ask(c)]))
    assert reply.status == 200 and reply.body == b"hello"


def test_head_only_replies_and_204_have_no_body():
    server = Scripted([b"HTTP/1.1 204 No Content\r\n\r\n", OK])
    (empty, after), _ = run(_with(server, lambda c: [ask(c), ask(c)]))
    assert empty.status == 204 and empty.body == b"" and after.body == b"hello"


@pytest.mark.parametrize(
    "garbage, reason",
    [
        (b"SSH-2.0-OpenSSH_9.6\r\n\r\n", "bad status line"),
        (b"HTTP/1.1 2x0 OK\r\nContent-Length: 1\r\n\r\nx", "bad status line"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: ten\r\n\r\n", "invalid Content-Length"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nx", "Content-Length"),
        (b"HTTP/1.1 200 OK\r\nBad Header: 1\r\n\r\n", "malformed header line"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "chunk size"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabXX", "CRLF"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n", "over the limit"),
        (b"HTTP/1.1 200 OK\r\nContent-Encoding: br\r\nContent-Length: 1\r\n\r\nx", "'br'"),
    ],
)
def test_garbage_replies_are_transport_errors(garbage, reason):
    server = Scripted([garbage, OK])

    async def scenario():
        async with server as url:
            client = HTTPClient(url)
            try:
                with pytest.raises(TransportError, match="malformed HTTP reply") as info:
                    await ask(client)
                return str(info.value), await ask(client)  # a fresh connection works
            finally:
                await client.aclose()

    message, after = run(scenario())
    assert reason in message and "\n" not in message and after.body == b"hello"
    assert server.connections == 2


def test_reply_cut_short_is_a_transport_error():
    server = Scripted([("then-close", b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")])
    with pytest.raises(TransportError, match="closed before the reply was complete"):
        run(_with(server, lambda c: [ask(c)]))


def test_timeout_gives_up_and_drops_the_connection():
    server = Scripted(["hang", OK])

    async def scenario():
        async with server as url:
            client = HTTPClient(url)
            try:
                with pytest.raises(TransportError, match=r"no reply within 0\.2 s"):
                    await ask(client, timeout_s=0.2)
                await asyncio.wait_for(server.closed.wait(), 5)  # the client closed it
                return await ask(client)
            finally:
                await client.aclose()

    reply = run(scenario())
    assert reply.body == b"hello" and server.connections == 2


def test_cancelled_request_does_not_return_its_connection_to_the_pool():
    server = Scripted(["hang", OK])

    async def scenario():
        async with server as url:
            client = HTTPClient(url)
            try:
                task = asyncio.create_task(ask(client))
                await asyncio.sleep(0.05)
                task.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await task
                return await ask(client)
            finally:
                await client.aclose()

    assert run(scenario()).body == b"hello" and server.connections == 2


def test_unreachable_port_and_bad_urls():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    async def scenario():
        client = HTTPClient(f"http://127.0.0.1:{port}/v1")
        with pytest.raises(TransportError) as info:
            await ask(client)
        return info.value

    error = run(scenario())
    assert str(error).startswith(f"cannot connect to http://127.0.0.1:{port}/v1: ")
    assert error.reason and "\n" not in str(error)
    for bad in ("ftp://host/v1", "http:///v1", "http://host:99999/v1"):
        with pytest.raises(ParameterError):
            HTTPClient(bad)


def test_concurrent_requests_each_get_their_own_reply():
    replies = [f"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{k:02d}".encode() for k in range(20)]
    server = Scripted(replies)

    async def scenario():
        async with server as url:
            client = HTTPClient(url)
            try:
                got = await asyncio.gather(*(ask(client) for _ in range(20)))
                return sorted(r.body for r in got)
            finally:
                await client.aclose()

    assert run(scenario()) == [f"{k:02d}".encode() for k in range(20)]
    assert server.connections == 20


# ---------------------------------------------------------------------------------- TLS
def self_signed(tmp_path):
    """A certificate for 127.0.0.1 and its key, written as PEM files."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "robustgraph test")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_file, key_file


def tls_server_context(cert_file, key_file) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    return context


def test_tls_with_a_trusted_self_signed_certificate(tmp_path):
    cert_file, key_file = self_signed(tmp_path)
    chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
    server = Scripted([OK, chunked], tls=tls_server_context(cert_file, key_file))
    trusted = ssl.create_default_context(cafile=str(cert_file))
    replies, _ = run(_with(server, lambda c: [ask(c), ask(c)], ssl_context=trusted))
    assert [r.body for r in replies] == [b"hello", b"abc"] and server.connections == 1


def test_tls_certificate_not_trusted_is_a_backend_error(tmp_path):
    cert_file, key_file = self_signed(tmp_path)
    server = Scripted([OK], tls=tls_server_context(cert_file, key_file))
    with pytest.raises(BackendError, match="TLS certificate of https://127.0.0.1:.* not accepted"):
        run(_with(server, lambda c: [ask(c)]))


def test_openai_backend_over_https_trusts_ssl_cert_file(tmp_path, monkeypatch):
    cert_file, key_file = self_signed(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert_file))
    completion = orjson.dumps(
        {"choices": [{"message": {"content": "Answer: 4"}, "finish_reason": "stop"}],
         "usage": {"prompt_tokens": 3, "completion_tokens": 2}, "model": "m"}
    )
    reply = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(completion), completion)
    server = Scripted([reply], tls=tls_server_context(cert_file, key_file))

    async def scenario():
        async with server as url:
            async with LLMClient(OpenAIBackend(url, api_key_env=None)) as client:
                return await client.complete(CompletionRequest.chat("m", [("user", "2+2?")]))

    result = run(scenario())
    assert result.text == "Answer: 4" and result.usage.prompt_tokens == 3
    _, head, body = server.requests[0]
    assert head.startswith(b"POST /v1/chat/completions HTTP/1.1\r\n")
    assert orjson.loads(body)["messages"] == [{"role": "user", "content": "2+2?"}]


# ---------------------------------------------------------------------------------- framing
def test_chunked_decoder_byte_by_byte_equals_all_at_once():
    wire = b"3\r\nabc\r\n10;x=y\r\n0123456789abcdef\r\n0\r\nT: 1\r\n\r\nrest"
    whole = ChunkedDecoder()
    data = bytearray(wire)
    assert whole.feed(data) and bytes(whole.body) == b"abc0123456789abcdef"
    assert bytes(data) == b"rest"
    trickle, buffer, done = ChunkedDecoder(), bytearray(), False
    for k in range(len(wire) - 4):
        buffer.append(wire[k])
        done = trickle.feed(buffer)
    assert done and trickle.body == whole.body and not buffer


def test_chunked_decoder_limit_and_framing_rules():
    with pytest.raises(ValueError, match="larger than"):
        ChunkedDecoder(limit=4).feed(bytearray(b"5\r\nhello\r\n0\r\n\r\n"))
    assert body_framing({"content-length": "3, 3"}, response=True) == (LENGTH, 3)
    assert body_framing({"transfer-encoding": "gzip, chunked"}, response=False) == (CHUNKED, 0)
    assert body_framing({"transfer-encoding": "gzip"}, response=True) == (UNTIL_CLOSE, 0)
    with pytest.raises(ValueError, match="transfer coding"):
        body_framing({"transfer-encoding": "gzip"}, response=False)
    with pytest.raises(ValueError, match="Content-Length"):
        body_framing({"content-length": "-1"}, response=True)
    with pytest.raises(ValueError, match="malformed header line"):
        split_head(b"GET / HTTP/1.1\r\n folded: continuation")


@pytest.mark.parametrize("module", ["protocol_runner.llm.http_wire", "protocol_runner.llm.http"])
def test_docstring_examples_run(module):
    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0
