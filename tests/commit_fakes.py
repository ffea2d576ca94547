"""Test helpers for the commit-gate tests: a registry of agents with deterministic signing keys."""

from __future__ import annotations

from protocol_runner.commit import (
    AgentRecord,
    Infrastructure,
    Registry,
    keyring_from_seed,
    public_key_hex,
)


def world(infra: dict[str, Infrastructure], seed: int = 0):
    """Signing keys for the agents of ``infra`` and the registry of their public keys."""
    keys = keyring_from_seed(infra, seed)
    registry = Registry(tuple(AgentRecord(a, public_key_hex(keys[a].public_key()), i)
                              for a, i in infra.items()))
    return keys, registry


def distinct(names):
    """Agents sharing no checkpoint, lineage or corpus: one independence unit each."""
    return {a: Infrastructure(f"ck-{a}", f"lin-{a}") for a in names}
