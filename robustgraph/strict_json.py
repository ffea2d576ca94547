"""Strict JSON for the documents robustgraph trusts: certificates and edge-list sidecars.

Python's ``json`` accepts ``NaN`` and ``Infinity`` (not JSON) and lets the last of two equal keys
in one object win silently; a certificate or sidecar edited that way could say two things at
once. :func:`loads` refuses both, with one line.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["loads"]


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {key!r} is given twice in one object")
        out[key] = value
    return out


def loads(text: str | bytes) -> Any:
    """``json.loads`` refusing NaN/Infinity and a key given twice in one object.

    Raises
    ------
    ValueError
        On invalid or non-strict JSON (``json.JSONDecodeError`` is one), a number of 4,300+
        digits; ``RecursionError`` on deep nesting.

    Examples
    --------
    >>> loads('{"a": 1}')
    {'a': 1}
    >>> loads('{"a": 1, "a": 2}')
    Traceback (most recent call last):
    ...
    ValueError: the key 'a' is given twice in one object
    """
    return json.loads(text, parse_constant=_no_constant, object_pairs_hook=_unique_keys)
