"""serve-sim on aiohttp.web for real clients: keep-alive, 100-continue, chunked request bodies,
pipelining, HTTP/1.0, JSON error statuses, latency, dropped clients, trickled replies; curl and
http.client talk to it; the serve-sim command's one-line ready message."""

from __future__ import annotations

import http.client
import json
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import orjson
import pytest

from protocol_runner.llm import AgentIdentity, CompletionRequest
from protocol_runner.llm.backends.openai import SIMULATED_HEADER, SIMULATED_OWNER
from protocol_runner.protocols.prompts import answer_messages
from protocol_runner.sim.agents import Simulator
from protocol_runner.sim.server import MAX_BODY, parse_faults, running_server
from protocol_runner.tasks import load_tasks
from robustgraph.errors import ParameterError

TASKS = load_tasks("arith:4:seed=2")


def chat_body(k: int = 0) -> bytes:
    request = CompletionRequest(
        "sim-strong", answer_messages(TASKS[k]), seed=1, user=AgentIdentity("a1").to_user()
    )
    return orjson.dumps(request.to_openai_body())


def post(body: bytes, *fields: str) -> bytes:
    head = "".join(f"{field}\r\n" for field in fields)
    return (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n%s"
        b"Content-Length: %d\r\n\r\n%s" % (head.encode(), len(body), body)
    )


@pytest.fixture(scope="module")
def server():
    with running_server(Simulator(TASKS)) as running:
        yield running


def read_reply(sock: socket.socket, buffer: bytearray) -> tuple[str, dict[str, str], bytes]:
    """One ``Content-Length`` reply from ``sock``, leaving later bytes in ``buffer``."""
    while b"\r\n\r\n" not in buffer:
        data = sock.recv(65536)
        assert data, "connection closed before a reply"
        buffer += data
    end = buffer.index(b"\r\n\r\n")
    line, *lines = bytes(buffer[:end]).decode("latin-1").split("\r\n")
    fields = {name.lower(): value.strip() for name, _, value in (x.partition(":") for x in lines)}
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
    return socket.create_connection((server.host, server.port), timeout=10)


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


def test_serve_sim_declares_itself_simulated_on_every_response(server):
    """owned_by in /v1/models and the header on replies, errors and fault replies alike
    (docs/endpoints.md), so the openai backend can label what it got."""
    connection = http.client.HTTPConnection(server.host, server.port, timeout=10)
    try:
        connection.request("GET", "/v1/models")
        reply = connection.getresponse()
        owners = {m["owned_by"] for m in json.loads(reply.read())["data"]}
        assert owners == {SIMULATED_OWNER}
        seen = [reply.getheader(SIMULATED_HEADER)]
        for method, path, body, fault in [
            ("POST", "/v1/chat/completions", chat_body(), ""),
            ("POST", "/v1/chat/completions", b"{", ""),  # 400
            ("GET", "/nowhere", None, ""),  # 404
            ("POST", "/v1/chat/completions", chat_body(), "500"),
            ("POST", "/v1/chat/completions", chat_body(), "trickle:0.01"),
        ]:
            headers = {"X-Sim-Fault": fault} if fault else {}
            connection.request(method, path, body=body, headers=headers)
            reply = connection.getresponse()
            reply.read()
            seen.append(reply.getheader(SIMULATED_HEADER))
        assert seen == ["1"] * 6
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
    assert orjson.loads(replies[2][2])["error"] == {
        "message": "no route /nowhere", "type": "not_found_error", "code": 404
    }


def test_http_1_0_and_connection_close_end_the_connection(server):
    for request in (
        b"GET /v1/models HTTP/1.0\r\n\r\n",
        b"GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    ):
        with connect(server) as sock:
            sock.sendall(request)
            line, _, body = read_reply(sock, bytearray())
            assert line.endswith(" 200 OK") and orjson.loads(body)["object"] == "list"
            assert closed_by_peer(sock)


@pytest.mark.parametrize(
    "request_bytes, status, reason",
    [
        (post(b"{x}"), 400, "malformed JSON body"),
        (post(b"[1, 2]"), 400, "not a JSON object"),
        (post(b'{"model": "sim-strong", "messages": [], "stream": true}'), 400, "streaming"),
        (post(b'{"model": "gpt-nope", "messages": [{"role": "user", "content": "x"}]}'),
         404, "gpt-nope"),
        (b"GET /v1/chat/completions HTTP/1.1\r\nHost: x\r\n\r\n", 405, "GET not allowed"),
        (b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n"
         % (MAX_BODY + 1), 413, "body size"),
        (b"POST /sim/faults HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}", 400, "faults"),
    ],
)
def test_bad_requests_get_json_error_statuses(server, request_bytes, status, reason):
    with connect(server) as sock:
        sock.sendall(request_bytes)
        line, fields, body = read_reply(sock, bytearray())
    assert line.startswith(f"HTTP/1.1 {status} ")
    error = orjson.loads(body)["error"]
    assert reason in error["message"] and error["code"] == status
    if status == 405:
        assert fields["allow"] == "POST"


def test_a_request_that_is_not_http_gets_400(server):
    with connect(server) as sock:
        sock.sendall(b"NONSENSE\r\n\r\n")
        line, _, _ = read_reply(sock, bytearray())
    assert line.startswith("HTTP/1.") and " 400 " in line


def test_query_strings_are_ignored(server):
    with connect(server) as sock:
        sock.sendall(b"GET /v1/models?x=1 HTTP/1.1\r\nHost: x\r\n\r\n")
        line, _, body = read_reply(sock, bytearray())
    assert line == "HTTP/1.1 200 OK" and orjson.loads(body)["object"] == "list"


def test_absolute_form_targets_are_served(server):
    with connect(server) as sock:
        sock.sendall(b"GET http://x:1/v1/models?y HTTP/1.1\r\nHost: x\r\n\r\n")
        line, _, body = read_reply(sock, bytearray())
    assert line == "HTTP/1.1 200 OK" and orjson.loads(body)["object"] == "list"


def test_latency_is_applied_per_request_concurrently():
    """Four requests at once take one latency, not four: one after another cannot end before
    4 x 1.5 = 6 s on any machine, and the 4.5 s between that and one latency is slack for a
    loaded machine (four small replies), not a measurement."""
    with running_server(Simulator(TASKS), latency_s=1.5) as slow:
        socks = [connect(slow) for _ in range(4)]
        started = time.perf_counter()
        for sock in socks:
            sock.sendall(post(chat_body()))
        lines = [read_reply(sock, bytearray())[0] for sock in socks]
        elapsed = time.perf_counter() - started
        for sock in socks:
            sock.close()
        stats = slow.stats.as_dict()
    assert lines == ["HTTP/1.1 200 OK"] * 4
    assert 1.5 <= elapsed < 4 * 1.5  # four at once, not one after another
    assert stats["completions"] == 4 and stats["repeated"] == 3


def test_a_client_that_leaves_before_its_reply_is_not_counted_as_served():
    with running_server(Simulator(TASKS), latency_s=0.3) as slow:
        with connect(slow) as sock:
            sock.sendall(post(chat_body()))
            _wait_until(lambda: slow.stats.requests == 1)  # it arrived, however slow the server
        time.sleep(0.5)
        stats = slow.stats.as_dict()
    assert stats["requests"] == 1 and stats["completions"] == 0


def _wait_until(condition, guard: float = 60.0) -> None:
    """Poll ``condition``; ``guard`` seconds is a hang guard only, never a measurement."""
    deadline = time.monotonic() + guard
    while not condition():
        assert time.monotonic() < deadline, "condition never held"
        time.sleep(0.01)


def test_trickle_fault_sends_the_reply_in_pieces_over_its_duration():
    with running_server(Simulator(TASKS), faults=parse_faults("trickle:1")) as server:
        with connect(server) as sock:
            sock.sendall(post(chat_body()))
            started = time.perf_counter()
            arrivals = []
            buffer = bytearray()
            while b"\r\n\r\n" not in buffer or len(buffer) < _expected_size(buffer):
                data = sock.recv(65536)
                assert data
                buffer += data
                arrivals.append(time.perf_counter() - started)
        stats = server.stats.as_dict()
    body = bytes(buffer[buffer.index(b"\r\n\r\n") + 4 :])
    assert orjson.loads(body)["choices"][0]["message"]["content"]
    # pieces, spread out: the last is sent after 0.9 s of the server's pauses (a lower bound
    # load cannot break); more than one read even if a starved client lets pieces pile up
    assert len(arrivals) >= 2 and arrivals[-1] >= 0.8
    assert stats["faults"] == {"trickle": 1} and stats["completions"] == 1


def _expected_size(buffer: bytearray) -> int:
    end = buffer.index(b"\r\n\r\n")
    for line in bytes(buffer[:end]).decode("latin-1").split("\r\n")[1:]:
        name, _, value = line.partition(":")
        if name.lower() == "content-length":
            return end + 4 + int(value)
    raise AssertionError("no Content-Length")


def test_fault_plan_errors_are_parameter_errors():
    for bad in ("404", "slow", "trickle", "429:x", "500x"):
        with pytest.raises(ParameterError, match="fault"):
            parse_faults(bad)
    assert [f.kind for f in parse_faults("trickle:2x2, slow:1")] == ["trickle"] * 2 + ["slow"]


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


def test_serve_sim_json_ready_message_is_one_line_and_sigterm_stops_it():
    exe = Path(sys.executable).with_name("robustgraph")
    proc = subprocess.Popen(
        [str(exe), "serve-sim", "--port", "0", "--tasks", "arith:3", "--json",
         "--faults", "500"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        line = proc.stdout.readline()
        info = json.loads(line)
        assert line.endswith("}\n") and set(info) == {"base_url", "models", "tasks", "profile"}
        assert info["profile"] == "profile fitted to the SAC paper's Table 2, MATH"  # issue 42
        assert info["tasks"] == 3 and info["base_url"].startswith("http://127.0.0.1:")
        request = urllib.request.Request(
            info["base_url"] + "/chat/completions", data=chat_body(),
            headers={"Content-Type": "application/json"},
        )
        with pytest.raises(urllib.error.HTTPError) as failed:
            urllib.request.urlopen(request, timeout=10)
        assert failed.value.code == 500  # the --faults plan
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
        assert proc.stdout.read() == ""  # nothing more on stdout
        assert "stopped after 0 completions (1 requests)" in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
