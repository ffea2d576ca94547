"""Domain-separated Ed25519 signatures over canonical JSON statements.

Every signed statement of the commit gate (votes, registry endorsements, ledger entries) is
``domain tag + canonical JSON`` signed with Ed25519 (RFC 8032), so a signature made for one kind
of statement can never be read as another.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from protocol_runner.commit.canonical import canonical_json

__all__ = ["ENTRY", "PREPARE", "REGISTRY", "public_key_hex", "sign", "signature_valid",
           "statement"]

PREPARE = b"robustgraph/commit/PREPARE/v1\n"
"""Domain of a PREPARE vote."""
REGISTRY = b"robustgraph/commit/REGISTRY/v1\n"
"""Domain of a registry endorsement."""
ENTRY = b"robustgraph/commit/ENTRY/v1\n"
"""Domain of a ledger entry's signature."""


def public_key_hex(key: Ed25519PublicKey) -> str:
    """The raw 32-byte encoding of an Ed25519 public key, as 64 hex digits."""
    return key.public_bytes(Encoding.Raw, PublicFormat.Raw).hex()


def statement(domain: bytes, content: Any) -> bytes:
    """The exact bytes signed for ``content`` under ``domain``: the tag, then canonical JSON."""
    return domain + canonical_json(content)


def sign(key: Ed25519PrivateKey, domain: bytes, content: Any) -> str:
    """Ed25519 signature of :func:`statement` ``(domain, content)``, as 128 hex digits.

    Examples
    --------
    >>> key = Ed25519PrivateKey.generate()
    >>> sig = sign(key, ENTRY, {"a": 1})
    >>> signature_valid(public_key_hex(key.public_key()), sig, statement(ENTRY, {"a": 1}))
    True
    >>> signature_valid(public_key_hex(key.public_key()), sig, statement(REGISTRY, {"a": 1}))
    False
    """
    return key.sign(statement(domain, content)).hex()


@lru_cache(maxsize=1 << 14)
def signature_valid(public_key: str, signature: object, payload: bytes) -> bool:
    """Whether ``signature`` (hex) verifies over ``payload`` under ``public_key`` (hex).

    Anything malformed (not hex, wrong length, not a string) is simply invalid. Memoised: one
    vote is checked by several rules and again by ``ledger verify``.
    """
    if not isinstance(public_key, str) or not isinstance(signature, str):
        return False
    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_key)).verify(
            bytes.fromhex(signature), payload)
    except (InvalidSignature, ValueError):
        return False
    return True
