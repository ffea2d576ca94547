"""Make a core-tree certificate (kind ``coretree``): the core search's tree, checked as it is made.

The tree is walked by the checker itself (:func:`.tree_check.walk`: its roots, rules and closing
conditions at k = r - 1); at each tree node the checker settles, this module chooses the split
the core search of ``solvers/cores.py`` would make there (:meth:`_Chooser.number`), and the
numbers chosen are written out: ``0`` (closed) or ``1 + 2 v + side`` (split on v: in A or not,
side 0; in B or not, side 1), v a position in the search order (:func:`order_by_in_degree`).
The file is :data:`.tree_check.MAGIC`, the order (canonical node indices) and the numbers,
unsigned LEB128, gzip'd; it is read back with the checker's own reader and must hold exactly the
numbers the walk took. The checker is deterministic in those numbers, so ``check`` accepts the
file exactly as the walk accepted it (``TREE_CHECKED_AS_MADE``): a tree made here needs no second
replay before it is shipped; ``verify`` replays it from the file.

The core search's "pulled" deduction (a maximality argument) is not a checker rule: where the
search would use it, the tree splits instead (docs/theory.md, section 7).
"""

from __future__ import annotations

import gzip
from collections.abc import Callable, Sequence

from robustgraph.certificate.proofs.tree_check import (
    FORMAT,
    MAGIC,
    State,
    TreeRejected,
    read_numbers,
    walk,
)
from solvers.cores import OutOfTime, _Search, needs_at, order_by_in_degree

__all__ = ["FORMAT", "TREE_CHECKED_AS_MADE", "Made", "make"]

GZIP_LEVEL = 6
"""zlib level of the stored file (the numbers are one byte each up to n = 63: cheap to pack)."""

POLL_EVERY = 64
"""Tree nodes between two polls of ``stop``."""

TREE_CHECKED_AS_MADE = "the core tree is made by the checker's own walk, so it is checked once"
"""Issue 40, round 36 (docs/performance.md, "round 36"). Up to round 35 the maker ran the core
search (``solvers/cores.py``) and ``prove`` then replayed the file with the checker: a core-tree
certify cost about two searches (ER(48, 1/2), scratch seed 8237: making 5.1 s, checking 6.1 s).
Here the checker's walk makes the tree, so the one walk is both."""


class Made:
    """A core-tree file (gzip bytes) and its tree nodes, checked as it was made."""

    def __init__(self, data: bytes, nodes: int) -> None:
        self.data, self.nodes = data, nodes


class _NotRobust(Exception):
    """The walk reached two disjoint cores: a pair, so the graph is not r-robust."""


class _Chooser:
    """The split of the core search at each settled tree node, and the numbers chosen so far."""

    def __init__(self, masks: Sequence[int], k: int, stop: Callable[[], bool] | None) -> None:
        self.need = needs_at(masks, k)
        self.search = _Search(masks, self.need, self.need, None)  # for its ``tight`` only
        self.stop, self.said = stop, []

    def number(self, state: State | None, seen: int, names: tuple[int, int]) -> int:
        """0 where the rules close the node; else the core search's split: on B's side at the
        free in-neighbours of the forced member of Y with the least slack, unless A's has no
        more slack (then A's); the first node both cores hold when neither has one."""
        if self.stop is not None and seen % POLL_EVERY == 0 and self.stop():
            raise OutOfTime
        if state is None:
            self.said.append(0)
            return 0
        x, y, _, _, ca, cb = state
        both = ca & cb
        if not both:
            raise _NotRobust
        _, free_x, slack_x = self.search.tight(x, ca, self.need)  # nothing to add: settled
        _, free_y, slack_y = self.search.tight(y, cb, self.need)
        on_a, on_b = free_x & both, free_y & both
        if on_b and not (on_a and slack_x <= slack_y):
            side, pick = 1, on_b
        else:
            side, pick = 0, on_a or both
        said = 1 + 2 * ((pick & -pick).bit_length() - 1) + side
        self.said.append(said)
        return said


def _numbers(values: Sequence[int]) -> bytes:
    """The values in unsigned LEB128 (one byte each when all are below 128)."""
    if all(v < 0x80 for v in values):
        return bytes(values)
    return b"".join(map(_number, values))


def _number(value: int) -> bytes:
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)


def make(
    in_neighbors: Sequence[frozenset[int]], r: int, stop: Callable[[], bool] | None = None
) -> Made | None:
    """The core-tree certificate that the graph is r-robust, or None when it is not.

    Parameters
    ----------
    in_neighbors : sequence of frozenset of int
        The graph in canonical order (:meth:`.checker.View.canonical`), n >= 2.
    r : int
        At least 1.
    stop : callable, optional
        Polled every :data:`POLL_EVERY` tree nodes; raises :class:`solvers.cores.OutOfTime`
        once it is true.

    Examples
    --------
    >>> k4 = [frozenset(set(range(4)) - {i}) for i in range(4)]
    >>> make(k4, 2) is not None, make(k4, 3) is None
    (True, True)
    """
    masks = [sum(1 << j for j in nb) for nb in in_neighbors]
    order = order_by_in_degree(masks)
    place = {v: p for p, v in enumerate(order)}
    ordered = [sum(1 << place[j] for j in in_neighbors[v]) for v in order]
    chooser = _Chooser(ordered, r - 1, stop)
    try:
        nodes = walk(ordered, r, chooser.number)
    except _NotRobust:
        return None
    text = MAGIC + _numbers(order) + _numbers(chooser.said)
    if read_numbers(text, len(order)) != (order, chooser.said):
        raise TreeRejected("the core-tree file does not read back as the numbers walked")
    return Made(gzip.compress(text, compresslevel=GZIP_LEVEL, mtime=0), nodes)
