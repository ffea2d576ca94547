"""serve-sim is a correct HTTP/1.1 server for real clients: keep-alive, 100-continue, chunked
request bodies, pipelining, HTTP/1.0, error statuses; and curl and http.client talk to it."""

from __future__ import annotations

import http.client
import json
import shutil
import socket
import subprocess
import time

import orjson
import pytest

from protocol_runner.llm import AgentIdentity, CompletionRequest
from protocol_runner.llm.http_wire import split_head
from protocol_runner.protocols.prompts import answer_messages
from protocol_runner.sim.agents import Simulator
from protocol_runner.sim.server import MAX_BODY, running_server
from protocol_runner.tasks import load_tasks

TASKS = load_tasks("arith:4:seed=2")


def chat_body(k: int = 0) -> bytes:
    request = CompletionRequest(
        "sim-strong", answer_messages(TASKS[k]), seed=1, user=AgentIdentity("a1").to_user()
    )
    return orjson.dumps(request.to_openai_body())


@pytest.fixture(scope="module")
def server():
    with running_server(Simulator(TASKS)) as running:
        yield running


def read_reply(sock: socket.socket, buffer: bytearray) -> tuple[str, dict[str, str], bytes]:
    """One reply from ``sock`` (Content-Length framing), leaving later bytes in ``buffer``."""
    while b"\r\n\r\n" not in buffer:
        data = sock.recv(65536)
        assert data, "connection closed before a reply"
        buffer += data
    end = buffer.index(b"\r\n\r\n")
    line, fields = split_head(bytes(buffer[:end]))
    del buffer[: end + 4]
    length = int(fields["content-length"])
    while len(buffer) < length:
        data = sock.recv(65536)
        assert data, "connection closed inside a body"
        buffer += data
    body = bytes(buffer[:length])
    del buffer[:length]
    return line, fields, body


def connect(server) -> socket.socket:
    sock = socket.create_connection((server.host, server.port), timeout=10)
    return sock


def closed_by_peer(sock: socket.socket) -> bool:
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True


def test_keep_alive_with_http_client(server):
    connection = http.client.HTTPConnection(server.host, server.port, timeout=10)
    try:
        for k in range(3):
            connection.request(
                "POST", "/v1/chat/completions", body=chat_body(k),
                headers={"Content-Type": "application/json"},
            )
            reply = connection.getresponse()
            data = json.loads(reply.read())
            assert reply.status == 200 and data["choices"][0]["message"]["content"]
            assert reply.getheader("Content-Type") == "application/json"
            assert reply.getheader("Date", "").endswith("GMT")
        first_socket = connection.sock
        connection.request("GET", "/v1/models")
        assert connection.getresponse().status == 200
        assert connection.sock is first_socket  # one connection throughout
    finally:
        connection.close()


def test_expect_100_continue_then_body(server):
    body = chat_body()
    with connect(server) as sock:
        sock.sendall(
            b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
            b"Content-Length: %d\r\n\r\n" % len(body)
        )
        interim = sock.recv(64)
        assert interim == b"HTTP/1.1 100 Continue\r\n\r\n"
        sock.sendall(body)
        line, _, reply = read_reply(sock, bytearray())
    assert line == "HTTP/1.1 200 OK" and orjson.loads(reply)["usage"]["prompt_tokens"] > 0


def test_chunked_request_body_and_pipelined_requests_in_order(server):
    body = chat_body(1)
    chunked = b"".join(
        b"%x\r\n%s\r\n" % (len(part), part) for part in (body[:100], body[100:])
    ) + b"0\r\n\r\n"
    pipeline = (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        + chunked
        + b"GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n"
        + b"GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n"
    )
    with connect(server) as sock:
        sock.sendall(pipeline)
        buffer = bytearray()
        replies = [read_reply(sock, buffer) for _ in range(3)]
    assert [line for line, _, _ in replies] == [
        "HTTP/1.1 200 OK", "HTTP/1.1 200 OK", "HTTP/1.1 404 Not Found"
    ]
    assert orjson.loads(replies[0][2])["choices"]
    assert [m["id"] for m in orjson.loads(replies[1][2])["data"]] == ["sim-strong", "sim-weak"]
    assert "no route /nowhere" in orjson.loads(replies[2][2])["error"]["message"]


def test_http_1_0_and_connection_close_end_the_connection(server):
    for request in (
        b"GET /v1/models HTTP/1.0\r\n\r\n",
        b"GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    ):
        with connect(server) as sock:
            sock.sendall(request)
            line, fields, _ = read_reply(sock, bytearray())
            assert line == "HTTP/1.1 200 OK" and fields["connection"] == "close"
            assert closed_by_peer(sock)


@pytest.mark.parametrize(
    "request_bytes, status, reason",
    [
        (b"GET /v1/models HTTP/1.1\r\n\r\n", 400, "without Host"),
        (b"NONSENSE\r\n\r\n", 400, "malformed request line"),
        (b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\n{x}",
         400, "malformed JSON body"),
        (b"GET /v1/chat/completions HTTP/1.1\r\nHost: x\r\n\r\n", 405, "not allowed"),
        (b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n"
         % (MAX_BODY + 1), 413, "over"),
        (b"POST /sim/faults HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}", 400, "faults"),
    ],
)
def test_bad_requests_get_error_statuses(server, request_bytes, status, reason):
    with connect(server) as sock:
        sock.sendall(request_bytes)
        line, fields, body = read_reply(sock, bytearray())
    assert line.startswith(f"HTTP/1.1 {status} ")
    assert reason in orjson.loads(body)["error"]["message"]
    if status == 405:
        assert fields["allow"] == "POST"


def test_query_strings_are_ignored_and_half_closed_clients_get_their_reply(server):
    with connect(server) as sock:
        sock.sendall(b"GET /v1/models?x=1 HTTP/1.1\r\nHost: x\r\n\r\n")
        sock.shutdown(socket.SHUT_WR)
        line, _, _ = read_reply(sock, bytearray())
        assert line == "HTTP/1.1 200 OK" and closed_by_peer(sock)


def test_absolute_form_targets_are_served(server):
    with connect(server) as sock:
        sock.sendall(b"GET http://x:1/v1/models?y HTTP/1.1\r\nHost: x\r\n\r\n")
        line, _, body = read_reply(sock, bytearray())
    assert line == "HTTP/1.1 200 OK" and orjson.loads(body)["object"] == "list"


def test_latency_is_applied_per_request_concurrently():
    with running_server(Simulator(TASKS), latency_s=0.2) as slow:
        socks = [connect(slow) for _ in range(4)]
        started = time.perf_counter()
        for sock in socks:
            sock.sendall(
                b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s"
                % (len(chat_body()), chat_body())
            )
        lines = [read_reply(sock, bytearray())[0] for sock in socks]
        elapsed = time.perf_counter() - started
        for sock in socks:
            sock.close()
        stats = slow.stats.as_dict()
    assert lines == ["HTTP/1.1 200 OK"] * 4
    assert 0.19 <= elapsed < 0.6  # four at once, not one after another
    assert stats["completions"] == 4 and stats["repeated"] == 3


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_curl_posts_a_large_body_and_reuses_the_connection(server):
    url = server.base_url + "/chat/completions"
    big = orjson.loads(chat_body())
    big["messages"][0]["content"] += " " * 3000  # a body over 1 kB (older curls send Expect)
    done = subprocess.run(
        ["curl", "-sS", "-v", "--max-time", "10", "-H", "Content-Type: application/json",
         "--data-binary", orjson.dumps(big).decode(), url, "--next", server.base_url + "/models"],
        capture_output=True, text=True, timeout=30,
    )
    assert done.returncode == 0, done.stderr
    first, _, second = done.stdout.partition("}{")
    assert "choices" in first and "sim-strong" in second
    assert "Re-using existing connection" in done.stderr or "Reusing existing" in done.stderr
