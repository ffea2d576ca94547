"""The openai backend's aiohttp transport against scripted loopback servers, a forwarding proxy
and TLS: framings, content codings, redirects, read timeouts, failures and their classes."""

from __future__ import annotations

import asyncio
import doctest
import gzip
import importlib
import json
import socket
import time
import zlib

import pytest
from http_fakes import ForwardProxy, Scripted, self_signed, tls_server_context

from protocol_runner.llm.http import HTTPClient, TransportError, TransportTimeout
from robustgraph.errors import BackendError, ParameterError

OK = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"


def reply(body: bytes, *fields: str, status: str = "200 OK", version: str = "1.1") -> bytes:
    head = "".join(f"{field}\r\n" for field in fields)
    return f"HTTP/{version} {status}\r\n{head}Content-Length: {len(body)}\r\n\r\n".encode() + body


def run(coro):
    return asyncio.run(coro)


async def exchange(server: Scripted, calls, **options):
    """Send ``calls`` (``(method, path, body)``) one after another; the replies."""
    async with server as url:
        client = HTTPClient(url, **options)
        try:
            return [await client.request(method, path, body) for method, path, body in calls]
        finally:
            await client.aclose()


POST = ("POST", "/chat/completions", b'{"a":1}')
GET = ("GET", "/models", None)


def test_keep_alive_reuse_and_what_is_sent():
    server = Scripted([OK, OK, OK])
    replies = run(exchange(server, [POST, POST, GET], headers={"Authorization": "Bearer k"}))
    assert [r.body for r in replies] == [b"hello"] * 3 and replies[0].status == 200
    assert server.connections == 1 and [n for n, *_ in server.requests] == [1, 1, 1]
    _, head, fields, body = server.requests[0]
    assert head.startswith(b"POST /v1/chat/completions HTTP/1.1\r\n") and body == b'{"a":1}'
    assert fields["host"] == f"127.0.0.1:{server.port}" and fields["authorization"] == "Bearer k"
    assert fields["content-length"] == "7" and fields["user-agent"] == "robustgraph"
    assert {"gzip", "deflate"} <= {c.strip() for c in fields["accept-encoding"].split(",")}
    assert server.requests[2][1].startswith(b"GET /v1/models HTTP/1.1\r\n")


@pytest.mark.parametrize("coding, pack", [("gzip", gzip.compress), ("deflate", zlib.compress)])
def test_compressed_replies_are_decoded(coding, pack):
    data = json.dumps({"choices": ["x" * 500]}).encode()
    server = Scripted([reply(pack(data), f"Content-Encoding: {coding}")])
    (got,) = run(exchange(server, [POST]))
    assert got.status == 200 and got.body == data


def test_chunked_reply_in_pieces_with_extensions_and_trailers():
    pieces = [
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Id: 7\r\n\r\n",
        b"5;name=value\r\nhell",
        b"o\r\n",
        b"6\r\n world\r\n0\r\n",
        b"Trailer-Field: x\r\n\r\n",
    ]
    server = Scripted([("pieces", pieces, 0.005), OK])
    first, second = run(exchange(server, [POST, POST]))
    assert first.body == b"hello world" and first.headers["x-id"] == "7"
    assert second.body == b"hello" and server.connections == 1


def test_http_1_0_close_delimited_bodies_and_connection_close():
    close_delimited = ("close", b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n"
                       + b'{"k": 1}' * 2000)
    close = reply(b"ok", "Connection: close")
    server = Scripted([close_delimited, close_delimited, ("close", close), OK])
    replies = run(exchange(server, [POST, POST, POST, POST]))
    assert [len(r.body) for r in replies] == [16000, 16000, 2, 5]
    assert server.connections == 4  # none of the first three could be reused


def test_a_trickling_reply_outlasts_the_read_timeout():
    # 12 pieces 0.15 s apart: 1.8 s in all, 3.6 times the read timeout of 0.5 s
    data = b'{"text": "' + b"x" * 20 + b'"}'
    head = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(data)
    pieces = [head] + [data[k : k + 3] for k in range(0, len(data), 3)]
    server = Scripted([("pieces", pieces, 0.15)])
    started = time.perf_counter()
    (got,) = run(exchange(server, [POST], read_timeout_s=0.5))
    assert got.body == data and time.perf_counter() - started > 1.5


def test_silence_longer_than_the_read_timeout_is_a_timeout_and_drops_the_connection():
    server = Scripted(["hang", OK])

    async def scenario():
        async with server as url:
            client = HTTPClient(url, read_timeout_s=0.3)
            try:
                with pytest.raises(TransportTimeout) as info:
                    await client.request(*POST)
                for _ in range(100):  # the client closed the connection it gave up on
                    if server.closed:
                        break
                    await asyncio.sleep(0.02)
                return info.value, await client.request(*POST)
            finally:
                await client.aclose()

    error, after = run(scenario())
    assert isinstance(error, TimeoutError) and "no data within 0.3 s" in str(error)
    assert server.closed >= 1 and after.body == b"hello" and server.connections == 2


def test_a_total_limit_cuts_even_a_live_reply():
    pieces = [b"HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n"] + [b"xx"] * 10
    server = Scripted([("pieces", pieces, 0.1)])

    async def scenario():
        async with server as url:
            client = HTTPClient(url, read_timeout_s=5)
            try:
                await client.request("GET", "/models", timeout_s=0.4)
            finally:
                await client.aclose()

    with pytest.raises(TransportTimeout, match=r"no reply within 0\.4 s"):
        run(scenario())


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_redirects_are_followed(status):
    moved = reply(b"", "Location: /v2/models", status=f"{status} Moved")
    server = Scripted([moved, reply(b'{"data": []}')])
    (got,) = run(exchange(server, [GET], headers={"Authorization": "Bearer k"}))
    assert got.status == 200 and got.body == b'{"data": []}'
    assert server.requests[1][1].startswith(b"GET /v2/models HTTP/1.1\r\n")
    assert server.requests[1][2]["authorization"] == "Bearer k"  # same origin: kept


def test_a_redirect_to_another_origin_is_refused_naming_both_origins():
    other = Scripted([OK])
    with pytest.raises(BackendError) as error:
        asyncio.run(_redirected(other))
    message = str(error.value)
    assert "\n" not in message and "--allow-cross-origin-redirects" in message
    assert f"http://127.0.0.1:{other.port}" in message and "outside the origin named" in message
    assert other.requests == []  # nothing reached the other origin


def test_an_opted_in_redirect_to_another_origin_does_not_carry_the_key():
    other = Scripted([OK])
    (got,), asked, redirected = asyncio.run(_redirected(other, cross_origin_redirects=True))
    assert got.body == b"hello" and asked[0][2]["authorization"] == "Bearer k"
    assert "authorization" not in redirected[0][2]


async def _redirected(other: Scripted, **options):
    async with other as elsewhere:
        moved = reply(b"", f"Location: {elsewhere}/models", status="307 Temporary Redirect")
        first = Scripted([moved])
        replies = await exchange(first, [GET], headers={"Authorization": "Bearer k"}, **options)
        return replies, first.requests, other.requests


def test_307_keeps_the_method_and_the_body():
    moved = reply(b"", "Location: /v2/chat/completions", status="307 Temporary Redirect")
    server = Scripted([moved, OK])
    (got,) = run(exchange(server, [POST]))
    assert got.body == b"hello"
    _, head, _, body = server.requests[1]
    assert head.startswith(b"POST /v2/chat/completions HTTP/1.1\r\n") and body == b'{"a":1}'


def test_a_redirect_loop_is_a_backend_error():
    loop = reply(b"", "Location: /v1/models", status="302 Found")
    server = Scripted([loop] * 12)
    with pytest.raises(BackendError, match="redirects more than 10 times"):
        run(exchange(server, [GET]))


@pytest.mark.parametrize("status", [404, 429, 500, 503])
def test_error_statuses_are_returned_with_headers_and_body(status):
    server = Scripted([reply(b'{"x": 11}', "Retry-After: 2", status=f"{status} Whatever"), OK])
    first, second = run(exchange(server, [POST, POST]))
    assert first.status == status and first.headers["Retry-After"] == "2"
    assert json.loads(first.body) == {"x": 11} and second.status == 200
    assert server.connections == 1  # an error status does not cost the connection


@pytest.mark.parametrize(
    "garbage, what",
    [
        (b"SSH-2.0-OpenSSH_9.6\r\n\r\n", "malformed HTTP reply"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: ten\r\n\r\n", "malformed HTTP reply"),
        (b"HTTP/1.1 200 OK\r\nBad Header : 1\r\nContent-Length: 1\r\n\r\nx", "malformed"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "malformed"),
        (b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 3\r\n\r\nabc",
         "malformed reply body"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", "malformed reply body"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n", "reply too large"),
    ],
)
def test_garbage_is_a_transport_error_on_one_line(garbage, what):
    server = Scripted([("close", garbage), OK])

    async def scenario():
        async with server as url:
            client = HTTPClient(url)
            try:
                with pytest.raises(TransportError) as info:
                    await client.request(*POST)
                return str(info.value), await client.request(*POST)  # a fresh connection works
            finally:
                await client.aclose()

    message, after = run(scenario())
    assert message.startswith(what) and "\n" not in message and after.body == b"hello"


def test_a_connection_dropped_before_the_reply_is_a_transport_error():
    server = Scripted([("close", b"")])
    with pytest.raises(TransportError, match="connection was closed") as info:
        run(exchange(server, [POST]))
    assert not isinstance(info.value, TimeoutError)


def test_a_cancelled_request_does_not_leave_its_connection_in_the_pool():
    server = Scripted(["hang", OK])

    async def scenario():
        async with server as url:
            client = HTTPClient(url)
            try:
                task = asyncio.create_task(client.request(*POST))
                await asyncio.sleep(0.1)
                task.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await task
                return await client.request(*POST)
            finally:
                await client.aclose()

    assert run(scenario()).body == b"hello" and server.connections == 2


def test_concurrent_requests_each_get_their_own_reply_on_a_pool_of_that_size():
    replies = [reply(f"{k:02d}".encode()) for k in range(20)]
    server = Scripted(replies)

    async def scenario():
        async with server as url:
            client = HTTPClient(url, connections=20)
            try:
                got = await asyncio.gather(*(client.request(*POST) for _ in range(20)))
                return sorted(r.body for r in got)
            finally:
                await client.aclose()

    assert run(scenario()) == [f"{k:02d}".encode() for k in range(20)]
    assert server.connections == 20


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_unreachable_endpoint_and_bad_urls():
    port = free_port()

    async def scenario():
        client = HTTPClient(f"http://127.0.0.1:{port}/v1")
        try:
            with pytest.raises(TransportError) as info:
                await client.request(*GET)
            return info.value
        finally:
            await client.aclose()

    error = run(scenario())
    assert str(error) == f"cannot connect to http://127.0.0.1:{port}/v1: Connection refused"
    assert error.reason == "Connection refused"
    for bad in ("ftp://host/v1", "http:///v1", "http://host:99999/v1"):
        with pytest.raises(ParameterError):
            HTTPClient(bad)
    with pytest.raises(ParameterError, match="connections"):
        HTTPClient("http://127.0.0.1/v1", connections=0)


def test_one_client_serves_two_event_loops_in_turn():
    async def scenario():
        async with Scripted([OK, OK]) as url:
            client = HTTPClient(url)
            first = await client.request(*POST)
            # a request from another loop (another thread's asyncio.run) opens its own session
            other = await asyncio.to_thread(asyncio.run, client.request(*POST))
            await client.aclose()
            return first, other

    first, other = run(scenario())
    assert first.body == other.body == b"hello"


# ---------------------------------------------------------------------------------- proxies
ORIGIN = "origin.invalid"  # RFC 6761: resolves nowhere, so only the proxy can reach it


async def _through_proxy(monkeypatch, variable, *, tls, scheme="http", names=()):
    """Requests to ``origin.invalid`` with ``variable`` pointing at a forwarding proxy."""
    async with Scripted([OK, OK], tls=tls) as url:
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        proxy = ForwardProxy({ORIGIN: ("127.0.0.1", port)})
        async with proxy as proxy_url:
            monkeypatch.setenv(variable, proxy_url)
            client = HTTPClient(f"{scheme}://{ORIGIN}:{port}/v1")
            try:
                return port, [await client.request(*p) for p in (GET, POST)], proxy.seen
            finally:
                await client.aclose()


def test_requests_go_through_the_http_proxy(monkeypatch):
    port, replies, seen = run(_through_proxy(monkeypatch, "HTTP_PROXY", tls=None))
    assert [r.body for r in replies] == [b"hello", b"hello"]
    assert seen[:2] == [
        ("GET", f"http://{ORIGIN}:{port}/v1/models"),
        ("POST", f"http://{ORIGIN}:{port}/v1/chat/completions"),
    ]


def test_https_goes_through_a_connect_tunnel_and_trusts_ssl_cert_file(monkeypatch, tmp_path):
    cert_file, key_file = self_signed(tmp_path, names=(ORIGIN,))
    monkeypatch.setenv("SSL_CERT_FILE", str(cert_file))
    tls = tls_server_context(cert_file, key_file)
    port, replies, seen = run(
        _through_proxy(monkeypatch, "HTTPS_PROXY", tls=tls, scheme="https")
    )
    assert [r.body for r in replies] == [b"hello", b"hello"]
    assert seen[0] == ("CONNECT", f"{ORIGIN}:{port}")  # the proxy saw only the tunnel


def test_no_proxy_sends_requests_direct(monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{free_port()}")  # nobody listens
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    (got,) = run(exchange(Scripted([OK]), [GET]))
    assert got.body == b"hello"


def test_a_proxy_that_is_down_is_named_in_the_error(monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{free_port()}")
    with pytest.raises(TransportError, match="cannot connect to the proxy for http://") as info:
        run(exchange(Scripted([OK]), [GET]))
    assert info.value.reason == "Connection refused"


# ---------------------------------------------------------------------------------- TLS
def test_tls_with_a_self_signed_certificate_trusted_through_ssl_cert_file(tmp_path, monkeypatch):
    cert_file, key_file = self_signed(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert_file))
    chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
    server = Scripted([OK, chunked], tls=tls_server_context(cert_file, key_file))
    replies = run(exchange(server, [POST, POST]))
    assert [r.body for r in replies] == [b"hello", b"abc"] and server.connections == 1


def test_an_untrusted_certificate_is_a_backend_error(tmp_path):
    cert_file, key_file = self_signed(tmp_path)
    server = Scripted([OK], tls=tls_server_context(cert_file, key_file))
    with pytest.raises(BackendError, match=r"TLS certificate of https://127\.0\.0\.1:\d+/v1 "
                                           "not accepted: self-signed certificate"):
        run(exchange(server, [GET]))


def test_docstring_examples_run():
    result = doctest.testmod(importlib.import_module("protocol_runner.llm.http"))
    assert result.attempted > 0 and result.failed == 0
