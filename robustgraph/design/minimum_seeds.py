"""The pair clauses that the cases of one degree-split run share: a pool that seeds each new
case with the clauses earlier cases found.

A pair clause with positive literals only holds for every r-robust (or (r, s)-robust) graph on
n nodes, whatever its edge count or degree sequence (module notes of
:mod:`robustgraph.certificate.proofs.minimality`), so any case may start from the clauses of any
other. A degree clause (negative literals: edges present inside a side, same notes) rests on
the degrees of the case that found it and is taken into another case only where it is given by
the definition under that case's degrees (:meth:`Pool.within`). A seeded case lists its seeds
among its own pair clauses; the checker re-derives each from the definition under the case's
degrees, so its certificate stays self-contained and seeding adds nothing to trust. Two ways
(measured in docs/design.md, "The degree-sequence split"):

- ``all``: the case's solver starts with every clause of the pool that holds in the case and a
  graph of the case can violate (:meth:`Pool.within`);
- ``violated``: the case's solver starts with none; each model is first checked against those
  clauses, and the ones it violates are added (no oracle call) before the oracle is asked for a
  new one. A case then holds only pool clauses that some of its own models violated.

A clause with k missing pairs at node i is satisfied by every graph in which i has degree above
n - 1 - k, so :meth:`Pool.within` leaves it out of a case with such a degree.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from robustgraph.certificate.proofs import minimality as mp

__all__ = ["SEEDS", "Pool"]


def _edge_nodes(n: int) -> list[tuple[int, int]]:
    """The two nodes of each edge variable, at place v - 1."""
    return [(u, v) for u in range(n) for v in range(u + 1, n)]

SEEDS = ("off", "all", "violated")
"""The ways a case may be seeded from the pool: not at all, with every clause, with the
clauses its models violate."""


class Pool:
    """The pair clauses found so far, in the order found, with each clause's positive and
    negative literals as bit rows (bit v - 1 for edge variable v, stored a 64-bit column per
    word) for a vectorised test against a model, its number of missing pairs at each node, and,
    for a degree clause, what each member's hold rests on (u_i and f_i).

    Examples
    --------
    >>> pool = Pool(4)
    >>> pool.add([mp.PairClause((0, 1), (2, 3), (2, 5))])
    >>> [p.literals for p in pool.violated([1, -2, 3, 4, -5, 6])]  # the model lacks e2 and e5
    [(2, 5)]
    >>> pool.violated([1, 2, 3, 4, -5, 6])
    []
    """

    def __init__(self, n: int) -> None:
        self.n, self.clauses = n, []
        self._words = (n * (n - 1) // 2 + 63) // 64
        # Per clause, one array each (rows in pool order): its missing pairs ("pos0", ...) and
        # present edges ("neg0", ...) as bits, a 64-bit column per word (one column per word:
        # fast); its missing pairs at each node; a degree clause's u_i and f_i (module notes of
        # robustgraph.certificate.proofs.minimality, "Degree clauses"; f_i = 0 everywhere for a
        # clause of positive literals only).
        self._arrays = {f"{kind}{k}": np.zeros(0, dtype=np.uint64)
                        for kind in ("pos", "neg") for k in range(self._words)}
        self._arrays |= {key: np.zeros((0, n), dtype=np.uint8)
                         for key in ("ends", "unlisted", "forced")}
        self._size = 0

    def __len__(self) -> int:
        return len(self.clauses)

    def _row(self, literals: Iterable[int]) -> list[int]:
        words = [0] * self._words
        for v in literals:
            words[(v - 1) // 64] |= 1 << ((v - 1) % 64)
        return words

    def _grow(self, need: int) -> None:
        size = max(need, 2 * len(self._arrays["ends"]), 1024)
        for key, old in self._arrays.items():
            new = np.zeros((size, *old.shape[1:]), dtype=old.dtype)
            new[:self._size] = old[:self._size]
            self._arrays[key] = new

    def add(self, clauses: list[mp.PairClause]) -> None:
        """Append ``clauses`` to the pool (capacity doubled as it fills)."""
        if self._size + len(clauses) > len(self._arrays["ends"]):
            self._grow(self._size + len(clauses))
        ends, unlisted, forced = (self._arrays[key] for key in ("ends", "unlisted", "forced"))
        nodes = _edge_nodes(self.n)
        for clause in clauses:
            row = self._size
            absent = [v for v in clause.literals if v > 0]
            present = [-v for v in clause.literals if v < 0]
            for kind, literals in (("pos", absent), ("neg", present)):
                for k, word in enumerate(self._row(literals)):
                    self._arrays[f"{kind}{k}"][row] = word
            for v in absent:
                for i in nodes[v - 1]:
                    ends[row, i] += 1
            if present:
                side_of = {i: k for k, side in enumerate((clause.s1, clause.s2)) for i in side}
                leaving = dict.fromkeys(side_of, 0)  # listed pairs leaving i's side (padding
                for v in absent:  # may also list a pair inside a side: not counted)
                    a, b = nodes[v - 1]
                    for i, j in ((a, b), (b, a)):
                        if i in side_of and side_of.get(j) != side_of[i]:
                            leaving[i] += 1
                for side in (clause.s1, clause.s2):
                    for i in side:
                        unlisted[row, i] = self.n - len(side) - leaving[i]
                for v in present:
                    for i in nodes[v - 1]:
                        forced[row, i] += 1
            self._size += 1
        self.clauses.extend(clauses)

    def within(self, degrees: tuple[int, ...] | list[int], r: int) -> Pool:
        """The pool's clauses that a graph in which node i has degree ``degrees[i]`` can
        violate and that hold for every r-robust one: those with at most n - 1 - d_i missing
        pairs at each node i (all of a clause's missing pairs absent leaves node i at most
        n - 1 - k neighbours), and, of the degree clauses (found for other degrees), those
        given by the definition under these degrees: each member holds min(u_i, d_i - f_i)
        <= r - 1 (module notes of :mod:`robustgraph.certificate.proofs.minimality`, "Degree
        clauses"; a clause of positive literals found in a case, whose degrees are all at
        least r, has every member held by its unlisted pairs alone, so it holds whatever the
        degrees). In pool order.

        Examples
        --------
        >>> pool = Pool(4)
        >>> pool.add([mp.PairClause((0, 1), (2, 3), (2, 5)),
        ...           mp.PairClause((0,), (1, 2, 3), (1, 2, 3))])  # e1 e2 e3: node 0's edges
        >>> len(pool.within([2, 2, 2, 2], 2)), len(pool.within([0, 0, 0, 0], 2))
        (1, 2)
        >>> inside = Pool(4)
        >>> inside.add([mp.PairClause((0, 1), (2, 3), (-1, -6))])  # edges {0, 1}, {2, 3} present
        >>> len(inside.within([2, 2, 2, 2], 2)), len(inside.within([3, 2, 2, 2], 2))  # 0: 2 out
        (1, 0)
        """
        table = {key: array[:self._size] for key, array in self._arrays.items()}
        room = np.array([self.n - 1 - d for d in degrees], dtype=np.int16)
        keep = (table["ends"] <= room).all(axis=1)
        outside = np.minimum(table["unlisted"].astype(np.int16),
                             np.array(degrees, dtype=np.int16) - table["forced"])
        keep &= ~table["forced"].any(axis=1) | (outside <= r - 1).all(axis=1)
        part = Pool(self.n)
        part._arrays = {key: array[keep] for key, array in table.items()}
        part._size = int(keep.sum())
        part.clauses = [self.clauses[k] for k in np.flatnonzero(keep)]
        return part

    def violated(self, model: list[int]) -> list[mp.PairClause]:
        """The pool's clauses that ``model`` (a SAT model over the edge variables) violates:
        those with none of their missing pairs and all of their present ones in it, in pool
        order. O(pool) vectorised; the model lists variable v at place v - 1, as SAT solvers
        return it."""
        edges = self.n * (self.n - 1) // 2
        present = self._row([v for v in model[:edges] if v > 0])
        hit = np.zeros(self._size, dtype=np.uint64)
        for k, word in enumerate(present):
            have = np.uint64(word)
            hit |= ((self._arrays[f"pos{k}"][:self._size] & have)
                    | (self._arrays[f"neg{k}"][:self._size] & ~have))
        return [self.clauses[k] for k in np.flatnonzero(hit == 0)]
