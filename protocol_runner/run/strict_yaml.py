"""YAML for the files users write (sweep specs, rosters): a key given twice is an error.

PyYAML's ``safe_load`` keeps the last of two equal keys without a word, so a spec that lists
``seed:`` twice silently runs half the grid the user meant. :func:`load` refuses it.
"""

from __future__ import annotations

from typing import Any

import yaml

__all__ = ["load", "problem"]


class _UniqueKeyLoader(yaml.SafeLoader):
    """``SafeLoader`` whose mappings refuse a repeated key (a ``ConstructorError``)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            try:
                repeated = key in seen
            except TypeError:  # an unhashable key: the base class reports it
                break
            if repeated:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping", node.start_mark,
                    f"found the key {key!r} twice", key_node.start_mark,
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def load(text: str) -> Any:
    """Parse YAML text like ``yaml.safe_load``, but a mapping key given twice raises.

    Raises
    ------
    yaml.YAMLError
        Invalid YAML, or a repeated key (``problem`` names it, ``problem_mark`` its line).

    Examples
    --------
    >>> load("seed: [1, 2]")
    {'seed': [1, 2]}
    >>> load("seed: 1\\nseed: 2")
    Traceback (most recent call last):
    ...
    yaml.constructor.ConstructorError: while constructing a mapping
    ...
    """
    return yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass


def problem(exc: yaml.YAMLError) -> str:
    """One line for a YAML error: ``line N: <problem>`` (``YAML: <error>`` without a mark)."""
    mark = getattr(exc, "problem_mark", None)
    where = f"line {mark.line + 1}" if mark is not None else "YAML"
    return f"{where}: {' '.join(str(getattr(exc, 'problem', None) or exc).split())}"
