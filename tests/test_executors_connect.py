"""The ray executor's connect timeout: a port nobody answers on fails fast, in one line, exit 2.

Every address here is on the loopback interface. A fake ``ray`` module plays a cluster that
accepts the connection but never completes the handshake, so no test waits for Ray's retries.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import pytest

from robustgraph import executors
from robustgraph.errors import ParameterError
from robustgraph.executors import (
    CONNECT_TIMEOUT_ENV,
    DEFAULT_CONNECT_TIMEOUT_S,
    ExecutorUnavailable,
    RayExecutor,
    make_executor,
    ray_connect_timeout,
)

HAS_RAY = importlib.util.find_spec("ray") is not None


def closed_port() -> int:
    """A loopback port nothing listens on (bound, read, released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def listener(*, full: bool = False) -> Iterator[int]:
    """A loopback port that accepts connections and never says a word. With ``full``, its
    accept queue is filled first, so further connection attempts get no answer at all."""
    server = socket.socket()
    held: list[socket.socket] = []
    try:
        server.bind(("127.0.0.1", 0))
        server.listen(0 if full else 16)
        port = server.getsockname()[1]
        if full:
            held.append(socket.create_connection(("127.0.0.1", port), timeout=1))
        yield port
    finally:
        for sock in held:
            sock.close()
        server.close()


class FakeRay:
    """``ray`` as the executor uses it; ``init`` hangs until released, or raises ``error``."""

    def __init__(self, error: BaseException | None = None) -> None:
        self.error = error
        self.release = threading.Event()
        self.initialized = False
        self.calls: list[dict] = []

    def is_initialized(self) -> bool:
        return self.initialized

    def init(self, **options) -> None:
        self.calls.append(options)
        if self.error is not None:
            raise self.error
        self.release.wait(30)
        self.initialized = True

    def remote(self, function):
        return SimpleNamespace(options=lambda **_: None)

    def shutdown(self) -> None:
        self.initialized = False


@pytest.fixture
def fake_ray(monkeypatch):
    ray = FakeRay()
    monkeypatch.setattr(executors, "_import_ray", lambda: ray)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.delenv(CONNECT_TIMEOUT_ENV, raising=False)
    yield ray
    ray.release.set()


def test_timeout_comes_from_the_argument_the_environment_or_the_default(monkeypatch):
    monkeypatch.delenv(CONNECT_TIMEOUT_ENV, raising=False)
    assert ray_connect_timeout() == DEFAULT_CONNECT_TIMEOUT_S == 30.0
    monkeypatch.setenv(CONNECT_TIMEOUT_ENV, "2.5")
    assert ray_connect_timeout() == 2.5 and ray_connect_timeout(7) == 7.0
    for bad in ("soon", "0", "-1", "nan", "inf"):
        monkeypatch.setenv(CONNECT_TIMEOUT_ENV, bad)
        with pytest.raises(ParameterError, match=CONNECT_TIMEOUT_ENV):
            ray_connect_timeout()
    with pytest.raises(ParameterError, match="positive"):
        ray_connect_timeout(0)


def test_a_refused_port_fails_at_once_without_calling_ray(fake_ray):
    port = closed_port()
    start = time.monotonic()
    with pytest.raises(ExecutorUnavailable) as info:
        RayExecutor(f"127.0.0.1:{port}", connect_timeout=30)
    # a hang guard only, far above a refused connect on any machine and below the 30 s timeout
    # it must not wait for; "refused" below is what shows the timeout path was not taken
    assert time.monotonic() - start < 25
    message = str(info.value)
    assert "\n" not in message and f"127.0.0.1:{port}" in message and "refused" in message
    assert fake_ray.calls == []


def test_a_port_that_never_answers_fails_after_the_timeout(fake_ray):
    with listener(full=True) as port:
        start = time.monotonic()
        with pytest.raises(ExecutorUnavailable, match=r"no answer within 0\.5 s") as info:
            RayExecutor(f"ray://127.0.0.1:{port}", connect_timeout=0.5)
        # at least the timeout given; the upper bound is a hang guard far below the kernel's own
        # give-up on an unanswered SYN (about 127 s), which an ignored timeout would wait for
        assert 0.4 < time.monotonic() - start < 60
    assert CONNECT_TIMEOUT_ENV in str(info.value) and fake_ray.calls == []


def test_a_cluster_that_never_finishes_the_handshake_is_given_up(fake_ray, monkeypatch):
    monkeypatch.setenv(CONNECT_TIMEOUT_ENV, "0.5")
    with listener() as port:
        start = time.monotonic()
        with pytest.raises(ExecutorUnavailable, match="did not answer as a Ray cluster"):
            make_executor("ray", address=f"127.0.0.1:{port}")
        # at least the timeout (a lower bound load cannot break); an ignored timeout is caught
        # without a clock: the fake init returns after 30 s and nothing would be raised
        assert 0.4 < time.monotonic() - start
    assert fake_ray.calls and fake_ray.calls[0]["address"] == f"127.0.0.1:{port}"


def test_ray_errors_are_one_line_and_a_reached_cluster_is_used(fake_ray, monkeypatch):
    with listener() as port:
        fake_ray.error = ConnectionError("GCS said no\nsecond line")
        with pytest.raises(ExecutorUnavailable) as info:
            RayExecutor(f"127.0.0.1:{port}", connect_timeout=5)
        assert str(info.value).endswith("GCS said no second line")
        fake_ray.error = None
        fake_ray.release.set()
        monkeypatch.setenv("RAY_ADDRESS", f"127.0.0.1:{port}")
        with RayExecutor(connect_timeout=5):
            assert fake_ray.is_initialized()
        assert not fake_ray.is_initialized()  # the executor opened it, so it closed it


@pytest.mark.parametrize(
    ("address", "endpoint"),
    [
        ("10.0.0.5:6379", ("10.0.0.5", 6379)),
        ("ray://head:10001", ("head", 10001)),
        ("[::1]:6379", ("::1", 6379)),
        ("auto", None),
    ],
)
def test_addresses_are_parsed_without_connecting(address, endpoint):
    assert executors._endpoint(address) == endpoint


@pytest.mark.parametrize("address", ["head", "head:port", ":6379", "ray://head"])
def test_a_malformed_address_is_a_parameter_error(fake_ray, address):
    with pytest.raises(ParameterError, match="expected HOST:PORT"):
        RayExecutor(address)
    assert fake_ray.calls == []


def test_local_executor_takes_no_connect_timeout():
    with pytest.raises(ParameterError, match="ray executor"):
        make_executor("local", connect_timeout=5)


@pytest.mark.skipif(not HAS_RAY, reason="ray is not installed")
def test_cli_with_a_closed_loopback_port_exits_2_in_one_line(tmp_path):
    from robustgraph import io
    from robustgraph.generators import gamma_merg

    graphs = tmp_path / "graphs"
    graphs.mkdir()
    io.write(gamma_merg(5), graphs / "g.json")
    port = closed_port()
    exe = Path(sys.executable).with_name("robustgraph")
    done = subprocess.run(  # the timeout is a hang guard: the 30 s default is never waited for
        [str(exe), "certify", "--batch", str(graphs), "--executor", "ray",
         "--address", f"127.0.0.1:{port}", "-o", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=240,
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("robustgraph: error: cannot connect to a Ray")
    assert "refused" in lines[0]  # failed at once on the probe, not after the connect timeout
    assert f"127.0.0.1:{port}" in lines[0] and "Traceback" not in done.stderr


@pytest.mark.skipif(not HAS_RAY, reason="ray is not installed")
def test_cli_gives_up_on_a_silent_port_with_real_ray(tmp_path):
    """Ray itself gets the connection and waits for a handshake that never comes; the command
    still ends after the timeout, in one line, with exit 2 (127.0.0.2: loopback, and an address
    Ray does not rewrite to the machine's own IP as it does 127.0.0.1)."""
    from robustgraph import io
    from robustgraph.generators import gamma_merg

    graphs = tmp_path / "graphs"
    graphs.mkdir()
    io.write(gamma_merg(5), graphs / "g.json")
    server = socket.socket()
    try:
        server.bind(("127.0.0.2", 0))
    except OSError:
        server.close()
        pytest.skip("127.0.0.2 is not a loopback address here")
    with server:
        server.listen(16)
        address = f"127.0.0.2:{server.getsockname()[1]}"
        exe = Path(sys.executable).with_name("robustgraph")
        start = time.monotonic()
        done = subprocess.run(
            [str(exe), "certify", "--batch", str(graphs), "--executor", "ray",
             "--address", address, "-o", str(tmp_path / "out")],
            capture_output=True, text=True, timeout=240,  # a hang guard only
            env={**os.environ, CONNECT_TIMEOUT_ENV: "2"},
        )
        elapsed = time.monotonic() - start
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "did not answer as a Ray cluster within 2 s" in lines[0]
    # the message comes only from our own wait giving up (not from Ray's minutes of retries),
    # so no upper bound on the clock is needed; the lower one load cannot break
    assert address in lines[0] and 2 <= elapsed
