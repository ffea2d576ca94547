"""An LRAT refutation of the r-robustness CNF split at the core search's roots (issue 40, round 8).

The core search (``solvers/cores.py``) and its tree certificate (docs/theory.md §7, Rule R)
split the question "a pair exists" by the first node a of ``A | B`` in the search's order
(in-degree, highest first) and the first node b of B. This module cuts that tree at its roots and
hands each root to one incremental CaDiCaL instance as a cube (:class:`.cubes._Incremental`, which
keeps what it learns from one cube for the next), then joins the cubes' clauses by RUP steps of
its own into one LRAT refutation of the CNF of :mod:`.cnf`, which :mod:`.lrat` checks unchanged:
nothing is added to the trust base.

With ``o_0, o_1, ...`` the search order, ``x_v``/``y_v`` the CNF's variables of "v in A"/"v in B"
and ``E_t`` the cube "none of ``o_0 .. o_{t-1}`` is in A or B", the steps are:

- for each t and each side, the cube ``E_t and x_a`` (a = o_t; the mirror ``E_t and y_a``): its
  clause ``not E_t or -x_a`` comes from CaDiCaL under the cube as assumptions, as a RUP step
  over the CNF and CaDiCaL's lemmas (:func:`.cubes._not_cube`). The CNF's clause 3 breaks the
  (A, B) swap in the canonical order, not in this one, so both sides are refuted (the mirror is
  the root ``(b, a)`` of the tree with A and B exchanged);
- ``not E_t`` from ``not E_{t+1}`` (which reads ``not E_t or x_a or y_a``) and the two sides'
  clauses: one RUP step with three hints; ``not E_n`` is clause 2 of x (A is nonempty), and
  ``not E_0`` is the empty clause.

Every clause is implied by the CNF (CaDiCaL's lemmas are, and the cube steps are RUP over them),
so the proof says only what the CNF says; a satisfiable cube gives a model, which decodes to a
pair (the caller re-checks it and gets None).

References
----------
M. J. H. Heule et al., "Cube and conquer: guiding CDCL SAT solvers by lookaheads", HVC 2011.
H. J. LeBlanc et al., "Resilient asymptotic consensus in robust networks", IEEE JSAC 31(4), 2013.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

from robustgraph.certificate.proofs.cnf import Cnf, encode
from robustgraph.certificate.proofs.cubes import (
    OURS,
    _Incremental,
    _lemmas,
    _not_cube,
    _trim_log,
)
from robustgraph.certificate.proofs.trim import trim
from solvers.cores import order_by_in_degree

__all__ = ["Made", "refute"]


class Made:
    """The LRAT text of a refutation and the cubes CaDiCaL was asked."""

    def __init__(self, text: bytes, cubes: int) -> None:
        self.text, self.cubes = text, cubes


class _Stop(Exception):
    """A cube is satisfiable, or the deadline passed: no refutation."""


class _Roots:
    """One incremental CaDiCaL over the CNF and the RUP steps that join its cubes' clauses."""

    def __init__(
        self,
        cnf: Cnf,
        nodes: int,
        deadline: float | None,
        options: Mapping[str, int] | None,
        budget: int,
    ) -> None:
        self.cnf, self.deadline, self.budget = cnf, deadline, budget
        self.nodes = nodes
        self.solver = _Incremental(cnf, options)
        self.steps: list[bytes] = []
        self.units: list[tuple[int, tuple[int, ...]]] = []
        self.step = OURS
        self.cubes = 0
        self.empty: int | None = None  # CaDiCaL's own empty clause, when it refuted the CNF

    def add(self, lits: Sequence[int], hints: Sequence[int]) -> int:
        """Write the RUP step ``lits`` with ``hints``; its (raw) id."""
        self.step += 1
        self.steps.append(" ".join(map(str, [self.step, *lits, 0, *hints, 0])).encode())
        return self.step

    def settle(self, cube: list[int], split: bool) -> int | None:
        """The id of the clause ``not cube``; None when ``split`` and CaDiCaL did not settle
        the cube within :attr:`budget` conflicts (what it learned stays)."""
        self.cubes += 1
        if split:
            self.solver.solver.conf_budget(self.budget)
            status = self.solver.solver.solve_limited(assumptions=cube)
            if status is None and (self.deadline is None or time.time() < self.deadline):
                return None
        else:
            status = self.solver.solve(cube, self.deadline)
        recent = self.solver.rows()
        if status is not False:
            raise _Stop
        self.empty = _empty(recent)
        if self.empty is not None:
            raise _Stop
        self.units += _lemmas([row for row in recent if row.split(b" ", 3)[2:3] == [b"0"]])
        hints = _not_cube(self.cnf, cube, recent, self.units, self.solver)
        return self.add([-lit for lit in cube], hints)

    def side(self, prefix: list[int], first: int, later: list[int], other: int) -> int:
        """The clause ``not (prefix and first)``: CaDiCaL on that cube, or, when it does not
        settle it within the budget, the chain over the first member ``b`` of the other set
        among ``later`` (``other`` maps a node to its literal there): the roots ``(a, b)``."""
        cube = [*prefix, first]
        got = self.settle(cube, split=True)
        if got is not None:
            return got
        roots = []
        for i, b in enumerate(later):
            gap = [-(other + v) for v in later[:i]]
            roots.append(self.settle([*cube, *gap, other + b], split=False))
        # "no member of the other set among later[:i]": refuted for i = len(later) by the
        # nonempty clause of the other set (the earlier nodes are out by the prefix, first's
        # own by clause 1), then down to i = 0 by each root.
        n = self.nodes
        gaps = [other + v for v in later]
        disjoint = (first - 1) % n + 1  # clause 1 of the node of ``first``
        nonempty = n + 1 if other == 1 else n + 2  # clause 2 of the other set
        last = self.add([-lit for lit in cube] + gaps, [disjoint, nonempty])
        for i in range(len(later) - 1, -1, -1):
            last = self.add([-lit for lit in cube] + gaps[:i], [roots[i], last])
        return last


BUDGET = 2_000
"""Conflicts CaDiCaL gets on a cube ``E_t and x_a`` before it is split into its roots (a, b)."""


def _empty(rows: Sequence[bytes]) -> int | None:
    """The id of an empty clause among the log's ``rows`` (CaDiCaL refuted the CNF itself)."""
    for cid, lits in _lemmas(rows):
        if not lits:
            return cid
    return None


def refute(
    in_neighbors: Sequence[frozenset[int]],
    r: int,
    deadline: float | None = None,
    options: Mapping[str, int] | None = None,
    budget: int = BUDGET,
) -> Made | None:
    """An LRAT refutation of ``encode(in_neighbors, r, 1)`` by the root cubes, or None (a cube
    is satisfiable: the graph is not r-robust; or ``deadline``, ``time.time()``, passed).

    Parameters
    ----------
    in_neighbors : sequence of frozenset of int
        In canonical order (:func:`.cnf.canonical_in_neighbors`), n >= 2.
    r : int
        At least 1.
    deadline : float, optional
        ``time.time()`` at which the solves stop.
    options : mapping, optional
        CaDiCaL's options (:func:`.prover.cadical_options`).
    budget : int
        :data:`BUDGET`.

    Examples
    --------
    >>> from robustgraph.certificate.proofs.lrat import check_refutation
    >>> k4 = [frozenset(set(range(4)) - {i}) for i in range(4)]
    >>> made = refute(k4, 2)
    >>> check_refutation(encode(k4, 2, 1).clauses, made.text.decode().splitlines()) > 0
    True
    >>> refute(k4, 3) is None
    True

    Notes
    -----
    At most 2n cubes ``E_t and x_a`` / ``E_t and y_a``, and n - t - 1 roots for each one split;
    one CaDiCaL instance for all of them.
    """
    n = len(in_neighbors)
    cnf = encode(in_neighbors, r, 1)
    order = order_by_in_degree([sum(1 << j for j in nb) for nb in in_neighbors])
    roots = _Roots(cnf, n, deadline, options, budget)
    try:
        try:
            prefix: list[int] = []  # E_t as literals; its clause is their negation
            sides = []
            for t, a in enumerate(order):
                later = order[t + 1 :]
                x_side = roots.side(prefix, a + 1, later, n + 1)
                y_side = roots.side(prefix, n + a + 1, later, 1)
                sides.append((x_side, y_side))
                prefix += [-(a + 1), -(n + a + 1)]
            last = roots.add([-lit for lit in prefix], [n + 1])  # not E_n: clause 2 of x
            for t in range(n - 1, -1, -1):
                last = roots.add([-lit for lit in prefix[: 2 * t]], [*sides[t], last])
        except _Stop:
            if roots.empty is None:
                return None
            return Made(trim(b"\n".join(roots.solver.rows(0)) + b"\n"), roots.cubes)
        text = _trim_log([*roots.solver.rows(0), *roots.steps], lambda count: len(cnf.clauses))[0]
    finally:
        roots.solver.close()
    return Made(text, roots.cubes)
