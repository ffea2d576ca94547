"""Canonical bytes and SHA-256 digests shared by votes, the gate and the ledger.

Everything that is signed or hash-chained is first turned into canonical JSON: keys sorted,
no insignificant whitespace, UTF-8, no NaN or infinity. Two parties that hold the same value
therefore hash the same bytes (the approach of RFC 8785, restricted to the strings, integers,
lists and objects this package writes).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from typing import Any

from robustgraph.errors import ParameterError

__all__ = ["canonical_json", "sha256_hex", "value_hash", "evidence_hash", "check_digest"]

_DIGEST = re.compile(r"[0-9a-f]{64}")


def canonical_json(obj: Any) -> bytes:
    """Serialise ``obj`` to canonical JSON bytes (sorted keys, compact separators, UTF-8).

    Parameters
    ----------
    obj : JSON-compatible value
        Strings, integers, booleans, None, lists/tuples and string-keyed mappings.

    Returns
    -------
    bytes

    Raises
    ------
    ParameterError
        If ``obj`` holds a value JSON cannot represent exactly (a non-finite float, an object).

    Examples
    --------
    >>> canonical_json({"b": 1, "a": [True, None]})
    b'{"a":[true,null],"b":1}'
    """
    try:
        text = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                          allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ParameterError(f"value cannot be written as canonical JSON: {exc}") from exc
    return text.encode("utf-8")


def sha256_hex(data: bytes) -> str:
    """Hex SHA-256 of ``data``.

    Examples
    --------
    >>> sha256_hex(b"")[:16]
    'e3b0c44298fc1c14'
    """
    return hashlib.sha256(data).hexdigest()


def value_hash(value: str) -> str:
    """Hash of a proposed value (an answer already normalised by the caller).

    Domain-separated from evidence hashes so a value can never pass for evidence.

    Examples
    --------
    >>> value_hash("42") == value_hash("42") != value_hash("43")
    True
    """
    return sha256_hex(canonical_json(["value", value]))


def evidence_hash(items: Iterable[str]) -> str:
    """Hash committing to the set of inputs a value was derived from.

    Parameters
    ----------
    items : iterable of str
        Documents, neighbour messages or snapshot identifiers the agent conditioned on. Order and
        repetition do not matter: the hash covers the sorted set of the items' digests.

    Returns
    -------
    str
        64 hex digits.

    Examples
    --------
    >>> evidence_hash(["doc A", "msg b"]) == evidence_hash(["msg b", "doc A", "doc A"])
    True
    """
    digests = sorted({sha256_hex(item.encode("utf-8")) for item in items})
    return sha256_hex(canonical_json(["evidence", digests]))


def check_digest(name: str, digest: str) -> str:
    """Return ``digest`` if it is 64 lowercase hex digits, else raise ``ParameterError``."""
    if not isinstance(digest, str) or not _DIGEST.fullmatch(digest):
        raise ParameterError(f"{name} must be 64 lowercase hex digits, got {digest!r}")
    return digest
