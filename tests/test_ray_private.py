"""Issue 41, row 14: the tests' Ray instance is private, whatever runs on the machine: not the
cluster at ``RAY_ADDRESS`` (nor one ``ray start`` left running, found the same way)."""

from __future__ import annotations

import os
import socket

import pytest


@pytest.fixture(scope="module", autouse=True)
def _a_cluster_address_that_answers_nothing():
    """``RAY_ADDRESS`` names a port nobody listens on, before the module's Ray instance starts:
    a fixture that attached to it would fail."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    saved = os.environ.get("RAY_ADDRESS")
    os.environ["RAY_ADDRESS"] = f"127.0.0.1:{port}"
    yield port
    if saved is None:
        os.environ.pop("RAY_ADDRESS", None)
    else:
        os.environ["RAY_ADDRESS"] = saved


def test_the_ray_fixture_starts_its_own_instance(_a_cluster_address_that_answers_nothing,
                                                 ray_instance):
    port = _a_cluster_address_that_answers_nothing
    gcs = ray_instance.get_runtime_context().gcs_address
    assert ray_instance.is_initialized() and not gcs.endswith(f":{port}")
    assert ray_instance.cluster_resources().get("CPU") == 2
    assert "RAY_ADDRESS" not in os.environ  # code under test finds the instance, not the address
