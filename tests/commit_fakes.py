"""Test helpers for the commit-gate tests: fresh signing keys and the registry of their agents."""

from __future__ import annotations

from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol_runner.commit import AgentRecord, Infrastructure, Keyring, Registry, public_key_hex


def world(infra: dict[str, Infrastructure]):
    """Fresh signing keys for the agents of ``infra`` and the registry of their public keys."""
    keys = {a: Ed25519PrivateKey.generate() for a in infra}
    registry = Registry(tuple(AgentRecord(a, public_key_hex(keys[a].public_key()), i)
                              for a, i in infra.items()))
    return keys, registry


def keyring(keys) -> Keyring:
    """An in-memory keyring holding ``keys`` and a fresh gate and reviewer key."""
    return Keyring(Path("in-memory-keyring.json"), Ed25519PrivateKey.generate(),
                   Ed25519PrivateKey.generate(), dict(keys))


def distinct(names):
    """Agents sharing no checkpoint, lineage or corpus: one independence unit each."""
    return {a: Infrastructure(f"ck-{a}", f"lin-{a}") for a in names}
