"""The pair clauses that the cases of one degree-split run share: a pool that seeds each new
case with the clauses earlier cases found.

A pair clause holds for every r-robust (or (r, s)-robust) graph on n nodes, whatever its edge
count or degree sequence (module notes of :mod:`robustgraph.certificate.proofs.minimality`), so
any case may start from the clauses of any other. A seeded case lists its seeds among its own
pair clauses; the checker re-derives each from the definition, so its certificate stays
self-contained and seeding adds nothing to trust. Two ways (measured in docs/design.md, "The
degree-sequence split"):

- ``all``: the case's solver starts with every clause in the pool;
- ``violated``: the case's solver starts with none; each model is first checked against the
  pool, and the pool clauses it violates are added (no oracle call) before the oracle is asked
  for a new one. A case then holds only pool clauses that some of its own models violated.
  Only the clauses a model of the case can violate are checked (:meth:`Pool.within`): a clause
  with k of its edges at node i is satisfied by every graph in which i has degree above
  n - 1 - k.
"""

from __future__ import annotations

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
    """The pair clauses found so far, in the order found, with each clause's literals as a bit
    row (bit v - 1 for edge variable v, stored a 64-bit column per word) for a vectorised test
    against a model, and its number of edges at each node.

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
        self._cols = [np.zeros(0, dtype=np.uint64) for _ in range(self._words)]  # by word
        self._ends = np.zeros((0, n), dtype=np.uint8)  # a clause's edges at each node
        self._size = 0

    def __len__(self) -> int:
        return len(self.clauses)

    def _row(self, literals: tuple[int, ...] | list[int]) -> list[int]:
        words = [0] * self._words
        for v in literals:
            words[(v - 1) // 64] |= 1 << ((v - 1) % 64)
        return words

    def add(self, clauses: list[mp.PairClause]) -> None:
        """Append ``clauses`` to the pool (capacity doubled as it fills)."""
        need = self._size + len(clauses)
        if need > len(self._ends):
            size = max(need, 2 * len(self._ends), 1024)
            for k, col in enumerate(self._cols):
                self._cols[k] = np.zeros(size, dtype=np.uint64)
                self._cols[k][:self._size] = col[:self._size]
            ends = np.zeros((size, self.n), dtype=np.uint8)
            ends[:self._size] = self._ends[:self._size]
            self._ends = ends
        nodes = _edge_nodes(self.n)
        for clause in clauses:
            for k, word in enumerate(self._row(clause.literals)):
                self._cols[k][self._size] = word
            for v in clause.literals:
                for i in nodes[v - 1]:
                    self._ends[self._size, i] += 1
            self._size += 1
        self.clauses.extend(clauses)

    def within(self, degrees: tuple[int, ...] | list[int]) -> Pool:
        """The pool's clauses that a graph in which node i has degree ``degrees[i]`` can
        violate: those with at most n - 1 - d_i edges at each node i (all of a clause's edges
        missing leaves node i at most n - 1 - k neighbours). In pool order.

        Examples
        --------
        >>> pool = Pool(4)
        >>> pool.add([mp.PairClause((0, 1), (2, 3), (2, 5)),
        ...           mp.PairClause((0,), (1, 2, 3), (1, 2, 3))])  # e1 e2 e3: node 0's edges
        >>> len(pool.within([2, 2, 2, 2])), len(pool.within([0, 0, 0, 0]))
        (1, 2)
        """
        room = np.array([self.n - 1 - d for d in degrees], dtype=np.int16)
        keep = (self._ends[:self._size] <= room).all(axis=1)
        part = Pool(self.n)
        part._cols = [col[:self._size][keep] for col in self._cols]
        part._ends = self._ends[:self._size][keep]
        part._size = len(part._ends)
        part.clauses = [self.clauses[k] for k in np.flatnonzero(keep)]
        return part

    def violated(self, model: list[int]) -> list[mp.PairClause]:
        """The pool's clauses that ``model`` (a SAT model over the edge variables) violates:
        those with none of their edges in it, in pool order. O(pool) vectorised; the model
        lists variable v at place v - 1, as SAT solvers return it."""
        edges = self.n * (self.n - 1) // 2
        present = self._row([v for v in model[:edges] if v > 0])
        hit = np.zeros(self._size, dtype=np.uint64)
        for col, word in zip(self._cols, present, strict=True):  # one column per word: fast
            hit |= col[:self._size] & np.uint64(word)
        return [self.clauses[k] for k in np.flatnonzero(hit == 0)]
