"""YAML for the files users write (sweep specs, rosters): no repeated keys, no alias bombs.

PyYAML's ``safe_load`` keeps the last of two equal keys without a word, so a spec that lists
``seed:`` twice silently runs half the grid the user meant. :func:`load` refuses it. PyYAML also
puts no bound on aliases: ten levels of ``&a [*b, *b, ...]`` make a 700-byte file that reads as a
billion items (shared, so loading is cheap, but anything that walks or prints the value - an
error message quoting it - runs out of memory). :func:`load` refuses a document whose aliases,
each expanded in place, add more than :data:`robustgraph.limits.MAX_YAML_ALIAS_NODES` nodes, and
an anchor that contains its own alias (a value that would be infinite).

Own code rather than a library: PyYAML has no option for either (yaml/pyyaml#235), and
ruamel.yaml neither; the check runs on PyYAML's node graph before anything is constructed.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import yaml

from robustgraph import limits
from robustgraph.limits import quote

__all__ = ["load", "problem"]


def _children(node: yaml.Node) -> Iterator[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        yield from node.value
    elif isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            yield key
            yield value


def _check_aliases(root: yaml.Node, limit: int) -> None:
    """Raise ``ConstructorError`` when expanding every alias under ``root`` in place would add
    more than ``limit`` nodes, or when an anchor contains an alias to itself.

    PyYAML's composer returns an alias as the very node its anchor names, so the document is a
    graph whose shared nodes are the aliases. Its expanded size is counted bottom-up, each
    distinct node once (an iterative depth-first walk; a node met again while its own subtree
    is being walked is a recursive alias). O(distinct nodes + their links) time.
    """
    sizes: dict[int, int] = {}
    walking: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        if finished:
            walking.discard(key)
            sizes[key] = 1 + sum(sizes[id(child)] for child in _children(node))
        elif key in walking:
            raise yaml.constructor.ConstructorError(
                None, None, "an anchor contains an alias to itself (an infinite value)",
                node.start_mark,
            )
        elif key not in sizes:
            walking.add(key)
            stack.append((node, True))
            stack.extend((child, False) for child in _children(node))
    added = sizes[id(root)] - len(sizes)
    if added > limit:
        raise yaml.constructor.ConstructorError(
            None, None,
            f"aliases (*name) expand the document by {added:,} nodes, more than the "
            f"{limit:,} allowed ({limits.DOCS}); write the values out",
            root.start_mark,
        )


class _StrictLoader(yaml.SafeLoader):
    """``SafeLoader`` that refuses a repeated key and aliases that expand too far."""

    def construct_document(self, node: yaml.Node) -> Any:
        _check_aliases(node, limits.MAX_YAML_ALIAS_NODES)
        return super().construct_document(node)

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
                    f"found the key {quote(key)} twice", key_node.start_mark,
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def load(text: str) -> Any:
    """Parse YAML text like ``yaml.safe_load``, but refuse a mapping key given twice, and
    aliases that expand the document by more than ``MAX_YAML_ALIAS_NODES`` nodes.

    Raises
    ------
    yaml.YAMLError
        Invalid YAML, a repeated key (``problem`` names it, ``problem_mark`` its line), or
        aliases that expand too far or into themselves.

    Examples
    --------
    >>> load("seed: [1, 2]")
    {'seed': [1, 2]}
    >>> load("a: &x [1, 2]\\nb: *x")
    {'a': [1, 2], 'b': [1, 2]}
    >>> load("seed: 1\\nseed: 2")
    Traceback (most recent call last):
    ...
    yaml.constructor.ConstructorError: while constructing a mapping
    ...
    """
    return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass


def problem(exc: yaml.YAMLError) -> str:
    """One line for a YAML error: ``line N: <problem>`` (``YAML: <error>`` without a mark),
    the problem cut to a few hundred characters."""
    mark = getattr(exc, "problem_mark", None)
    where = f"line {mark.line + 1}" if mark is not None else "YAML"
    text = " ".join(str(getattr(exc, "problem", None) or exc).split())
    return f"{where}: {limits.clip(text, 2 * limits.MAX_QUOTE)}"
