"""Check a core-tree certificate: a search tree that refutes "two disjoint members of F_k".

For k = r - 1 let ``F_k = {S nonempty : reach(S) <= k}`` (LeBlanc et al. 2013, Def. 6); the
graph is r-robust iff no two disjoint members of F_k exist (Def. 7). ``S`` is in F_k iff every
``i`` in S has at least ``need_i = d_i - k`` in-neighbours inside S. A core-tree certificate
(kind ``coretree``) lists, for a fixed node order, one binary tree per root and per tree node
only what it did: ``0`` (the node is closed) or ``1 + 2 v + side`` (it splits on node v: v in
A or not, side 0; v in B or not, side 1), in pre-order. This module replays every tree and
re-derives every deduction itself from the graph, with the rules of docs/theory.md, section 7
("Core-tree certificates"), each proven there:

- *roots*: for a pair (A, B), name a = the first node of ``A | B`` in the order (in A, by the
  swap symmetry) and b = the first node of B; nodes before a are in neither set, nodes between
  a and b are not in B. Every pair has one such root (a, b), a < b;
- *peeling* (rule 1): a member of F_k inside U lies in ``core(U)``, what is left of U after
  repeatedly dropping a node with fewer than ``need`` in-neighbours in what is left; a root
  whose a (or b) is not in the core of the nodes from a (from b) on has no pair, and no tree;
- *forcing* (rule 2): x in A, A inside C and ``|N_x & C| = need_x`` put all of ``N_x & C`` in A;
- *Hall* (rule 3): x in A and y in B with A in C_A and B in C_B need ``|(N_x & C_A) | (N_y &
  C_B)| >= need_x+ + need_y+``; at equality the nodes only x may use are in A, those only y
  may use in B;
- a node closes when a forced node leaves its core, Hall fails, or a node is forced into both
  sets or into one it may not be in; a split node's two children are its two cases.

A tree is accepted only if every node it says is closed closes, every split is on a node both
cores still hold (a node neither forced nor excluded: so every child decides one more node and
a tree is at most 2n deep), no node the rules close is split, the roots are those the order
gives, in order, and the file ends with the last tree. A node where the cores are disjoint is a
real pair: the certificate is rejected. The "pulled" deduction of the core search (a maximality
argument) is not a rule here: the maker branches instead.

Why our own code: the certificate is a proof by the definitions, so the checker must not rest on
the code that searched for it (``solvers/cores.py``, :mod:`.coretree`); it imports none of them,
nor the maker. The maker drives this module's :func:`walk` with its own split choices (issue 40,
round 36, ``TREE_CHECKED_AS_MADE``), never the reverse: a tree is checked by these rules as it
is made, and ``verify`` replays it from the file. It trusts Python's integers (bitmasks), the
graph it is given and the three rules.

Hostile files: the file is inflated to at most the bytes its recorded node count allows (and the
inflated-bytes budget); a number is at most the bytes its largest legal value takes; the walk is
a loop over an explicit stack of at most 2n + 1 states, and reads at most the recorded nodes.

References
----------
H. J. LeBlanc et al., "Resilient asymptotic consensus in robust networks", IEEE JSAC 31(4), 2013.
"""

from __future__ import annotations

import gzip
from collections.abc import Callable, Iterator, Sequence

from robustgraph.errors import CertificateError
from robustgraph.limits import INFLATED_BYTES, inflate

__all__ = [
    "FORMAT", "MAGIC", "Number", "State", "TreeRejected", "check", "number_bytes", "read_numbers",
    "walk",
]

FORMAT = "robustgraph-coretree-1"
"""The proof object's ``format``: the file layout below."""

MAGIC = b"robustgraph-coretree-1\n"
"""The first bytes of the inflated file; then the order (n numbers: the canonical index of the
node at each position), then the trees' numbers; every number is unsigned LEB128."""


class TreeRejected(CertificateError):
    """The tree does not prove what it claims; the message says where and why."""

    exit_code = 1


def number_bytes(top: int) -> int:
    """Bytes of the LEB128 form of ``top`` (the longest any number up to it may take).

    Examples
    --------
    >>> number_bytes(127), number_bytes(128)
    (1, 2)
    """
    return max(1, -(-top.bit_length() // 7))


class _Numbers:
    """The numbers of the inflated file, read one at a time, each checked against a ceiling."""

    def __init__(self, data: bytes, start: int) -> None:
        self.data, self.at = data, start

    def read(self, top: int, what: str, *args: object) -> int:
        """The next number, at most ``top``; ``what.format(*args)`` names it in a rejection
        (formatted only then: this runs once per tree node)."""
        data, at, value, shift = self.data, self.at, 0, 0
        for _ in range(number_bytes(top)):
            if at >= len(data):
                raise TreeRejected(f"the core-tree file ends inside {what.format(*args)}: "
                                   "truncated")
            byte = data[at]
            at += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
        else:
            raise TreeRejected(f"{what.format(*args)} is longer than any number up to {top} takes")
        if value > top:
            raise TreeRejected(f"{what.format(*args)} is {value}, over its largest legal value "
                               f"{top}")
        self.at = at
        return value

    def done(self) -> bool:
        return self.at >= len(self.data)


class _Rules:
    """The three rules on the graph relabelled to the certificate's order."""

    def __init__(self, masks: list[int], k: int) -> None:
        n = len(masks)
        self.masks, self.need = masks, [m.bit_count() - k for m in masks]
        self.hears = [0] * n  # hears[j]: the nodes that have j as an in-neighbour
        for i, m in enumerate(masks):
            for j in _members(m):
                self.hears[j] |= 1 << i

    def short(self, u: int, among: int) -> int:
        """The nodes of ``among`` with fewer than ``need`` in-neighbours in U."""
        masks, need, found = self.masks, self.need, 0
        while among:  # the bits of ``among``, lowest first (inlined: the checker's hot loop)
            low = among & -among
            among ^= low
            i = low.bit_length() - 1
            if (masks[i] & u).bit_count() < need[i]:
                found |= low
        return found

    def peel(self, core: int, drop: int) -> int:
        """``core(C \\ drop)`` for a core C (every node of C has its ``need`` in C): after a
        node leaves, only the nodes that hear it can fall short (rule 1)."""
        hears = self.hears
        u = core & ~drop
        drop &= core
        while drop:
            touched = 0
            while drop:
                low = drop & -drop
                drop ^= low
                touched |= hears[low.bit_length() - 1]
            drop = self.short(u, touched & u)
            u &= ~drop
        return u

    def _used(self, forced: int, core: int) -> tuple[int, list[tuple[int, int]]]:
        """For each node f of ``forced``: ``N_f & core`` and ``need_f+`` (for rule 3), and the
        union of those sets ``N_f & core`` that f needs all of (rule 2)."""
        masks, need, add, used = self.masks, self.need, 0, []
        while forced:
            low = forced & -forced
            forced ^= low
            i = low.bit_length() - 1
            inside = masks[i] & core
            if inside.bit_count() == need[i]:
                add |= inside
            used.append((inside, max(need[i], 0)))
        return add, used

    def settle(
        self, x: int, y: int, no_a: int, no_b: int, ca: int, cb: int
    ) -> tuple[int, int, int, int, int, int] | None:
        """The deductions at one tree node to a fixed point, or None when the node closes.

        X in A, Y in B, A avoids ``no_a``, B avoids ``no_b``; ``ca`` and ``cb`` are cores that
        hold A and B (the parent's)."""
        while True:
            ca = self.peel(ca, no_a)
            if x & ~ca:
                return None
            cb = self.peel(cb, no_b)
            if y & ~cb:
                return None
            add_a, used_a = self._used(x, ca)  # rule 2
            add_b, used_b = self._used(y, cb)
            for ax, nx in used_a:  # rule 3
                for by, ny in used_b:
                    room = (ax | by).bit_count() - nx - ny
                    if room < 0:
                        return None
                    if room == 0:
                        add_a |= ax & ~by
                        add_b |= by & ~ax
            add_a &= ~x
            add_b &= ~y
            if add_a & (add_b | no_a) or add_b & no_b:
                return None
            if not add_a | add_b:
                return x, y, no_a, no_b, ca, cb
            x, no_b = x | add_a, no_b | add_a
            y, no_a = y | add_b, no_a | add_b


def _members(mask: int):
    while mask:
        low = mask & -mask
        mask ^= low
        yield low.bit_length() - 1


State = tuple[int, int, int, int, int, int]
"""A tree node's state (X, Y, P, Q, C_A, C_B) as bitmasks: docs/theory.md, section 7."""

Number = Callable[[State | None, int, tuple[int, int]], int]
"""``number(state, seen, names)``: the number of the ``seen``-th tree node (of root ``names``,
i.e. (a, b)) whose settled state is ``state`` (None when the rules close it): ``0`` closed,
``1 + 2 v + side`` a split."""

WHERE = "tree node {:,} (root a = {}, b = {})"
"""How a rejection names a tree node: ``WHERE.format(seen, a, b)``."""


def check(in_neighbors: Sequence[frozenset[int]], r: int, data: bytes, nodes: int) -> int:
    """Check a gzip'd core-tree file: that the graph is r-robust, with ``nodes`` tree nodes.

    Parameters
    ----------
    in_neighbors : sequence of frozenset of int
        The graph in canonical order (:meth:`.checker.View.canonical`), n >= 2.
    r : int
        The robustness the trees prove (k = r - 1), at least 1.
    data : bytes
        The file's bytes (gzip).
    nodes : int
        The tree nodes recorded in the proof object (checked against the budgets first).

    Returns
    -------
    int
        The tree nodes checked (equal to ``nodes``).

    Raises
    ------
    TreeRejected
        With the first reason the file does not prove it.

    Notes
    -----
    Each tree node costs O(n) popcounts of n-bit words per deduction round, plus Hall's
    O(|X| |Y|); memory O(n^2) bits beside the inflated file.
    """
    n = len(in_neighbors)
    top = 2 * n
    cap = len(MAGIC) + n * number_bytes(n - 1) + nodes * number_bytes(top)
    text = inflate(data, gzip, error=TreeRejected, label="the core-tree file",
                   limit=min(cap, INFLATED_BYTES.value()))
    if not text.startswith(MAGIC):
        raise TreeRejected(f"the core-tree file does not start with {MAGIC[:-1].decode()!r}")
    numbers = _Numbers(text, len(MAGIC))
    order = _read_order(numbers, n)
    place = {v: p for p, v in enumerate(order)}
    masks = [sum(1 << place[j] for j in in_neighbors[v]) for v in order]

    def from_file(state: State | None, seen: int, names: tuple[int, int]) -> int:
        return numbers.read(top, WHERE, seen, *names)

    seen = walk(masks, r, from_file, nodes)
    if not numbers.done():
        raise TreeRejected("the core-tree file goes on after the last root's tree")
    if seen != nodes:
        raise TreeRejected(f"the trees have {seen:,} nodes, not the {nodes:,} recorded")
    return seen


def _read_order(numbers: _Numbers, n: int) -> list[int]:
    """The file's node order (its first n numbers), which must be a permutation."""
    order = [numbers.read(n - 1, "position {} of the order", p) for p in range(n)]
    if len(set(order)) != n:
        raise TreeRejected("the core-tree order names a node twice: it is not a permutation")
    return order


def read_numbers(text: bytes, n: int) -> tuple[list[int], list[int]]:
    """The order and the tree numbers of an inflated file, read as :func:`check` reads them
    (the maker reads back what it wrote: ``TREE_CHECKED_AS_MADE``)."""
    if not text.startswith(MAGIC):
        raise TreeRejected(f"the core-tree file does not start with {MAGIC[:-1].decode()!r}")
    numbers = _Numbers(text, len(MAGIC))
    order, said = _read_order(numbers, n), []
    while not numbers.done():
        said.append(numbers.read(2 * n, "tree number {:,}", len(said) + 1))
    return order, said


def walk(masks: list[int], r: int, number: Number, nodes: int | None = None) -> int:
    """Walk every root's tree at k = r - 1, in order, and return the tree nodes walked.

    ``masks`` are the in-neighbour bitmasks in the tree's order. Each tree node's state is
    settled by the rules, then ``number`` gives its number (:data:`Number`), which must prove
    it: :class:`TreeRejected` at the first that does not, or past ``nodes`` nodes. :func:`check`
    reads the numbers from a file; the maker (``tree_make.py``) chooses them as the walk goes,
    so its tree is checked by these very rules as it is made (issue 40, round 36,
    ``TREE_CHECKED_AS_MADE``).
    """
    rules = _Rules(masks, r - 1)
    seen = 0
    for names, root in _roots(rules, len(masks)):
        seen = _tree(rules, number, root, seen, nodes, names)
    return seen


def _roots(rules: _Rules, n: int) -> Iterator[tuple[tuple[int, int], State]]:
    """The roots (a, b) of the order, in order, each with its state: every a < b whose a and b
    survive peeling of the nodes from a and from b on."""
    tails, core = [], rules.peel((1 << n) - 1, rules.short((1 << n) - 1, (1 << n) - 1))
    for i in range(n):
        tails.append(core)
        core = rules.peel(core, 1 << i)
    starts = [i for i in range(n) if tails[i] >> i & 1]
    for s, a in enumerate(starts):
        for b in starts[s + 1 :]:
            before = (1 << a) - 1
            between = ((1 << b) - 1) & ~before & ~(1 << a)
            yield (a, b), (1 << a, 1 << b, before | 1 << b, before | 1 << a | between, tails[a],
                           tails[b])


def _tree(
    rules: _Rules,
    number: Number,
    root: State,
    seen: int,
    nodes: int | None,
    names: tuple[int, int],
) -> int:
    """Walk one root's tree (pre-order, an explicit stack); the nodes seen so far after it."""
    stack = [root]
    while stack:
        state = stack.pop()
        seen += 1
        if nodes is not None and seen > nodes:
            raise TreeRejected(f"the trees have more than the {nodes:,} nodes recorded")
        settled = rules.settle(*state)
        said = number(settled, seen, names)
        if said == 0:
            if settled is None:
                continue
            where = WHERE.format(seen, *names)
            if not settled[4] & settled[5]:
                raise TreeRejected(f"{where}: its two cores are disjoint members of F_k, a "
                                   "pair: the graph is not r-robust")
            raise TreeRejected(f"{where} is said to close, but the rules do not close it")
        if settled is None:
            raise TreeRejected(f"{WHERE.format(seen, *names)} splits, but the rules already "
                               "close it")
        x, y, no_a, no_b, ca, cb = settled
        v, side = divmod(said - 1, 2)
        bit = 1 << v
        if not bit & ca & cb:
            raise TreeRejected(f"{WHERE.format(seen, *names)} splits on node {v}, which is not "
                               "in both cores")
        if side == 0:  # v in A, or v not in A
            stack.append((x, y, no_a | bit, no_b, ca, cb))
            stack.append((x | bit, y, no_a, no_b | bit, ca, cb))
        else:  # v in B, or v not in B
            stack.append((x, y, no_a, no_b | bit, ca, cb))
            stack.append((x, y | bit, no_a | bit, no_b, ca, cb))
    return seen
