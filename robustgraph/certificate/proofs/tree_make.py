"""Make a core-tree certificate (kind ``coretree``): the core search's tree, written compactly.

The core search of ``solvers/cores.py`` is run at k = r - 1 with one change: its "pulled"
deduction (a maximality argument, not one of the checker's rules) is left out, and the search
branches instead. Each search node is recorded in pre-order as ``0`` (closed) or
``1 + 2 v + side`` (split on v: in A or not, side 0; in B or not, side 1), where v is a
position in the search order; the file is :data:`.tree_check.MAGIC`, the order (canonical node
indices) and the numbers, unsigned LEB128, gzip'd. Its checker is :mod:`.tree_check`.

The roots are searched in one pass, in order (the search's two-pass root budget finds pairs
sooner; a proof needs every root in full anyway).
"""

from __future__ import annotations

import gzip
from collections.abc import Callable, Sequence

from robustgraph.certificate.proofs.tree_check import FORMAT, MAGIC
from solvers.cores import _relabel, _Search, needs_at, order_by_in_degree

__all__ = ["FORMAT", "Made", "make"]

GZIP_LEVEL = 6
"""zlib level of the stored file (the numbers are one byte each up to n = 63: cheap to pack)."""


class Made:
    """A core-tree file (gzip bytes) and its tree nodes."""

    def __init__(self, data: bytes, nodes: int) -> None:
        self.data, self.nodes = data, nodes


class _Recorder(_Search):
    """The core search without "pulled", recording each node's split in pre-order."""

    def __init__(self, in_masks: Sequence[int], k: int, stop: Callable[[], bool] | None):
        need = needs_at(in_masks, k)
        super().__init__(in_masks, need, need, stop)
        self.said: list[int] = []
        self.frames: list[tuple[int, list[tuple[int, int]]]] = []

    def pulled(self, forced: int, elsewhere: int, need: Sequence[int]) -> int:
        return 0  # not a checker rule: branch instead

    def _branch(self, x: int, y: int, no_a: int, no_b: int, a: int, b: int):
        if self.frames:
            self.frames[-1][1].append((x, y))
        at = len(self.said)
        self.said.append(0)
        self.frames.append((at, []))
        try:
            found = super()._branch(x, y, no_a, no_b, a, b)
        finally:
            children = self.frames.pop()[1]
        if found is None and children:  # a split: the children differ in v on one side
            (x1, y1), (x2, y2) = children
            side, v = (0, x1 ^ x2) if x1 != x2 else (1, y1 ^ y2)
            self.said[at] = 1 + 2 * (v.bit_length() - 1) + side
        return found


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
        Polled by the search; raises :class:`solvers.cores.OutOfTime` once it is true.

    Examples
    --------
    >>> k4 = [frozenset(set(range(4)) - {i}) for i in range(4)]
    >>> make(k4, 2) is not None, make(k4, 3) is None
    (True, True)
    """
    masks = [sum(1 << j for j in nb) for nb in in_neighbors]
    order = order_by_in_degree(masks)
    search = _Recorder(_relabel(masks, order), r - 1, stop)
    n = len(masks)
    tails = search._tails(search.need_a)
    starts = [i for i in range(n) if tails[i] >> i & 1]
    for s, a in enumerate(starts):
        for b in starts[s + 1 :]:
            before = (1 << a) - 1
            between = ((1 << b) - 1) & ~before & ~(1 << a)
            no_a, no_b = before | 1 << b, before | 1 << a | between
            if search._branch(1 << a, 1 << b, no_a, no_b, tails[a], tails[b]) is not None:
                return None
    text = MAGIC + _numbers(order) + _numbers(search.said)
    return Made(gzip.compress(text, compresslevel=GZIP_LEVEL, mtime=0), len(search.said))
