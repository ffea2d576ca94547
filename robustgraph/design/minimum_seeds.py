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
"""

from __future__ import annotations

import numpy as np

from robustgraph.certificate.proofs import minimality as mp

__all__ = ["SEEDS", "Pool"]

SEEDS = ("off", "all", "violated")
"""The ways a case may be seeded from the pool: not at all, with every clause, with the
clauses its models violate."""


class Pool:
    """The pair clauses found so far, in the order found, with each clause's literals as a bit
    row (bit v - 1 for edge variable v) for a vectorised test against a model.

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
        self.clauses: list[mp.PairClause] = []
        self._words = (n * (n - 1) // 2 + 63) // 64
        self._rows = np.zeros((0, self._words), dtype=np.uint64)
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
        if need > len(self._rows):
            grown = np.zeros((max(need, 2 * len(self._rows), 1024), self._words), dtype=np.uint64)
            grown[:self._size] = self._rows[:self._size]
            self._rows = grown
        for clause in clauses:
            self._rows[self._size] = self._row(clause.literals)
            self._size += 1
        self.clauses.extend(clauses)

    def violated(self, model: list[int]) -> list[mp.PairClause]:
        """The pool's clauses that ``model`` (a SAT model over the edge variables) violates:
        those with none of their edges in it, in pool order. O(pool) vectorised."""
        present = np.array(self._row([v for v in model
                                      if 0 < v <= 64 * self._words]), dtype=np.uint64)
        hit = (self._rows[:self._size] & present).any(axis=1)
        return [self.clauses[k] for k in np.flatnonzero(~hit)]
