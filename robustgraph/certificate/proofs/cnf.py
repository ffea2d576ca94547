"""The deterministic CNF whose refutation proves (r, s)-robustness: "a violating pair exists".

The certifier hands this CNF to a proof-logging SAT solver; the verifier regenerates it from the
graph, r and s alone and checks the solver's LRAT refutation against it (:mod:`.lrat`), so the
encoding below is part of the trust base and is spelled out in docs/certificate.md.

Nodes are numbered 0..n-1 in :func:`canonical_order` (labels sorted as text, as in the content
hash), so the CNF depends on the graph, not on the order a file lists it in. For (r, 1), which
is r-robustness (LeBlanc et al. 2013, Def. 6), the variables are ``x_i = i + 1`` (i in S1) and
``y_i = n + i + 1`` (i in S2), and the clauses, in this order:

1. ``-x_i -y_i`` for every i (S1, S2 disjoint);
2. ``x_0 ... x_{n-1}`` and ``y_0 ... y_{n-1}`` (both nonempty);
3. with ``o_0, o_1, ...`` the *symmetry order*: ``-y_{o_0} x_{o_0}`` and ``-y_{o_i} x_{o_0} ...
   x_{o_{i-1}}`` for i >= 1 (the first node of S1 u S2 in that order is in S1: the conditions
   are symmetric in S1 and S2, so this keeps every pair up to swapping). In encoding
   ``robustgraph-cnf-2`` (:data:`ENCODING`, issue 40 round 8) the order is by in-degree, highest
   first, ties by index (:func:`symmetry_order`: the core search's order, in which CaDiCaL's
   proofs were 14-46% cheaper on nine scratch graphs); in ``robustgraph-cnf-1`` (certificates
   before round 8, still checked) it is 0, 1, ..., n-1;
4. for S1, then S2, for every node i in order: ``x_i -> at most r-1 of (-x_j : j in N_i)``
   (i is not r-reachable: fewer than r in-neighbours outside S1), as a sequential counter
   (``robustgraph-cnf-1``, ``-2``) or a totalizer (``robustgraph-cnf-3``, :data:`ENCODING`
   since issue 40 round 11: on held-out scratch graphs CaDiCaL's proof path was cheaper with
   it; docs/performance.md, "Issue 40, round 11: proof cost (i41b)").

For (r, s) with s >= 2 (Def. 7) there are also ``a_i = 2n+i+1``, ``b_i = 3n+i+1`` (i counted in
X_S1^r, X_S2^r) and ``u_i = 4n+i+1``, ``w_i = 5n+i+1`` (i a member of S1, S2 that is not
r-reachable); after clauses 1-3, for S1 (then S2 with b, w): ``-u_i x_i``, ``-u_i -a_i`` for every
i, ``u_0 ... u_{n-1}`` (some member is not r-reachable), and for every i the counter
``(x_i and not a_i) -> at most r-1 of (-x_j : j in N_i)`` (a member left uncounted is not
r-reachable); last, ``at most s-1 of (a_0 .. a_{n-1}, b_0 .. b_{n-1})`` unguarded. Every
satisfying assignment gives a pair that violates (r, s)-robustness and every violating pair
gives one, so the CNF is unsatisfiable exactly when the graph is (r, s)-robust.

The counter for "at most k of l_1..l_d" (Sinz 2005) with guard g: nothing when d <= k; the
clauses ``g -l_p`` when k = 0; otherwise fresh registers s(p, c) ("at least c of l_1..l_p",
only for c <= min(p, k), numbered p-major), and ``-l_1 s(1,1)``; for p = 2..d-1: ``-l_p s(p,1)``,
``-s(p-1,1) s(p,1)``, for c = 2..min(p, k): ``-l_p -s(p-1,c-1) s(p,c)`` and, when
c <= p-1, ``-s(p-1,c) s(p,c)``; for p = 2..d with p-1 >= k the overflow ``g -l_p -s(p-1,k)``.
The totalizer (Bailleux and Boufkhad 2003; :meth:`ClauseBuilder.at_most_tree`) for the same
guarded constraint, k >= 1, d > k: split l_1..l_d at h = d // 2; each half of t >= 2 literals
has fresh outputs o_1..o_m, m = min(t, k + 1) ("at least c of its literals", a single literal
being its own output), made from its halves' outputs a_i, b_j by ``-a_i -b_j o_{i+j}`` for
1 <= i + j <= m (a_0, b_0 omitted); the top has ``g -a_i -b_j`` for i + j = k + 1. Registers
are numbered as made (left half first, depth first). In ``robustgraph-cnf-3`` every guarded
counter (s = 1: clause 4; s >= 2: the per-node counters) is a totalizer; the unguarded total
count of (r, s) stays a sequential counter. Either counter admits exactly the assignments where
the guard holds or at most k literals are true (extended by its registers), so the three
encodings are unsatisfiable for the same graphs.
No clause is a unit (CaDiCaL renumbers an original clause it simplifies on input, which would
break the LRAT numbering of original clauses as 1..C).

References
----------
C. Sinz, "Towards an optimal CNF encoding of Boolean cardinality constraints", CP 2005.
O. Bailleux and Y. Boufkhad, "Efficient CNF encoding of Boolean cardinality constraints", CP 2003.
H. J. LeBlanc et al., "Resilient asymptotic consensus in robust networks", IEEE JSAC 31(4), 2013.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from robustgraph.errors import ParameterError
from robustgraph.topology import Topology

__all__ = [
    "ENCODING", "ENCODINGS", "ClauseBuilder", "Cnf", "canonical_order", "canonical_in_neighbors",
    "encode", "size", "symmetry_order",
]

ENCODING = "robustgraph-cnf-3"
"""Name and version of the encoding that ``certify`` writes (a certificate names it; a change
renames it)."""

ENCODINGS = ("robustgraph-cnf-1", "robustgraph-cnf-2", ENCODING)
"""The encodings :func:`encode` makes and ``verify`` checks (cnf-1 and cnf-2 differ in clause 3's
order, cnf-2 and cnf-3 in the counters of clause 4)."""

TOTALIZER = "robustgraph-cnf-3"
"""The encoding whose guarded counters are totalizers (:meth:`ClauseBuilder.at_most_tree`)."""


@dataclass(frozen=True)
class Cnf:
    """A CNF: the number of variables and the clauses (tuples of nonzero DIMACS literals)."""

    variables: int
    clauses: tuple[tuple[int, ...], ...]

    def dimacs(self) -> str:
        """The DIMACS text (``p cnf V C`` header, one clause a line)."""
        lines = [f"p cnf {self.variables} {len(self.clauses)}"]
        lines += [" ".join(map(str, clause)) + " 0" for clause in self.clauses]
        return "\n".join(lines) + "\n"

    @property
    def sha256(self) -> str:
        """SHA-256 of :meth:`dimacs`, recorded in a certificate to tell encodings apart."""
        return hashlib.sha256(self.dimacs().encode()).hexdigest()


class ClauseBuilder:
    """Clauses over numbered variables, with fresh variables for the counters (the robustness CNF
    here, the minimality CNF of :mod:`.minimality`)."""

    def __init__(self, variables: int) -> None:
        self.top = variables
        self.clauses: list[tuple[int, ...]] = []

    def fresh(self) -> int:
        self.top += 1
        return self.top

    def add(self, *lits: int) -> None:
        self.clauses.append(lits)

    def at_most(self, lits: Sequence[int], k: int, guard: tuple[int, ...] = ()) -> None:
        """Clauses for: some literal of ``guard`` is true, or at most k of ``lits`` are."""
        d = len(lits)
        if d <= k:
            return
        if k < 0:
            self.add(*guard)
            return
        if k == 0:
            for lit in lits:
                self.add(*guard, -lit)
            return
        s = [[self.fresh() for _ in range(min(p + 1, k))] for p in range(d - 1)]
        self.add(-lits[0], s[0][0])
        for p in range(1, d):
            if p < d - 1:
                self.add(-lits[p], s[p][0])
                self.add(-s[p - 1][0], s[p][0])
                for c in range(1, min(p + 1, k)):
                    self.add(-lits[p], -s[p - 1][c - 1], s[p][c])
                    if c < len(s[p - 1]):
                        self.add(-s[p - 1][c], s[p][c])
            if len(s[p - 1]) == k:
                self.add(*guard, -lits[p], -s[p - 1][k - 1])

    def at_most_tree(self, lits: Sequence[int], k: int, guard: tuple[int, ...]) -> None:
        """As :meth:`at_most`, as a totalizer (Bailleux and Boufkhad 2003) whose counts stop at
        k + 1; ``guard`` must not be empty (no clause is then a unit). Halves split at
        ``len // 2``; a half's output c means "at least c of its literals" (a single literal is
        its own output); for outputs a_i, b_j of the two halves (a_0, b_0: true) the node has
        ``-a_i -b_j o_{i+j}`` for 1 <= i + j <= its outputs, min(size, k + 1); the top has
        ``guard -a_i -b_j`` for i + j = k + 1."""
        d = len(lits)
        if d <= k:
            return
        if k <= 0:
            self.at_most(lits, k, guard)
            return
        half = d // 2
        left, right = self._count(lits[:half], k + 1), self._count(lits[half:], k + 1)
        for i in range(max(0, k + 1 - len(right)), min(len(left), k + 1) + 1):
            j = k + 1 - i
            self.add(*guard, *([-left[i - 1]] if i else []), *([-right[j - 1]] if j else []))

    def _count(self, lits: Sequence[int], cap: int) -> list[int]:
        """The totalizer's outputs for ``lits`` (see :meth:`at_most_tree`), at most ``cap``."""
        if len(lits) == 1:
            return [lits[0]]
        half = len(lits) // 2
        left, right = self._count(lits[:half], cap), self._count(lits[half:], cap)
        out = [self.fresh() for _ in range(min(len(left) + len(right), cap))]
        for i in range(len(left) + 1):
            for j in range(max(0, 1 - i), min(len(right), len(out) - i) + 1):
                self.add(*([-left[i - 1]] if i else []), *([-right[j - 1]] if j else []),
                         out[i + j - 1])
        return out


def canonical_order(topology: Topology) -> list[int]:
    """Node indices sorted by label text (the order of the content hash)."""
    return sorted(range(topology.n), key=lambda i: str(topology.labels[i]))


def canonical_in_neighbors(topology: Topology) -> list[frozenset[int]]:
    """In-neighbour sets renumbered to :func:`canonical_order`."""
    order = canonical_order(topology)
    position = {node: k for k, node in enumerate(order)}
    return [frozenset(position[j] for j in topology.in_neighbors[i]) for i in order]


def symmetry_order(
    in_neighbors: Sequence[frozenset[int]], encoding: str | None = None
) -> list[int]:
    """The order of clause 3 in ``encoding`` (default :data:`ENCODING`): by in-degree, highest
    first, ties by index (``robustgraph-cnf-2``), or the indices in order (``robustgraph-cnf-1``).

    Examples
    --------
    >>> path = [frozenset({1}), frozenset({0, 2}), frozenset({1})]
    >>> symmetry_order(path), symmetry_order(path, "robustgraph-cnf-1")
    ([1, 0, 2], [0, 1, 2])
    """
    n = len(in_neighbors)
    if encoding == "robustgraph-cnf-1":  # cnf-2 and cnf-3 (the default) by in-degree
        return list(range(n))
    return sorted(range(n), key=lambda i: (-len(in_neighbors[i]), i))


def _pair(b: ClauseBuilder, order: Sequence[int]) -> None:
    n = len(order)
    for i in range(n):
        b.add(-(i + 1), -(n + i + 1))
    b.add(*range(1, n + 1))
    b.add(*range(n + 1, 2 * n + 1))
    for i, v in enumerate(order):
        b.add(-(n + v + 1), *(u + 1 for u in order[: max(i, 1)]))


def encode(
    in_neighbors: Sequence[frozenset[int]], r: int, s: int, encoding: str | None = None
) -> Cnf:
    """The CNF (see the module notes) that is unsatisfiable iff the graph is (r, s)-robust.

    Parameters
    ----------
    in_neighbors : sequence of frozenset of int
        In canonical order (:func:`canonical_in_neighbors`); at least two nodes.
    r, s : int
        At least 1 each (smaller values are trivially robust and need no CNF).
    encoding : str, optional
        One of :data:`ENCODINGS` (the order of clause 3); default :data:`ENCODING`.

    Returns
    -------
    Cnf

    Raises
    ------
    ParameterError
        When n < 2, r < 1 or s < 1, or the encoding is unknown.

    Examples
    --------
    >>> triangle = [frozenset({1, 2}), frozenset({0, 2}), frozenset({0, 1})]
    >>> old = encode(triangle, 2, 1, "robustgraph-cnf-2")
    >>> len(encode(triangle, 2, 1).clauses), len(old.clauses)
    (14, 20)

    Notes
    -----
    O(n + sum of in-degrees * r) clauses for s = 1; the (r, s) form adds O(n s) for the total
    count.
    """
    n = len(in_neighbors)
    if n < 2 or r < 1 or s < 1:
        raise ParameterError(f"the robustness CNF needs n >= 2, r >= 1, s >= 1 (n={n}, r={r})")
    encoding = encoding or ENCODING
    if encoding not in ENCODINGS:
        raise ParameterError(f"unknown CNF encoding {encoding!r}; expected one of {ENCODINGS}")
    nbrs = [sorted(nb) for nb in in_neighbors]
    order = symmetry_order(in_neighbors, encoding)
    b = ClauseBuilder(2 * n if s == 1 else 6 * n)
    counter = b.at_most_tree if encoding == TOTALIZER else b.at_most
    if s == 1:
        _pair(b, order)
        for side in (0, 1):
            for i in range(n):
                member = side * n + i + 1
                lits = [-(side * n + j + 1) for j in nbrs[i]]
                counter(lits, r - 1, guard=(-member,))
        return Cnf(b.top, tuple(b.clauses))
    _pair(b, order)
    for side in (0, 1):
        member = [side * n + i + 1 for i in range(n)]
        counted = [(2 + side) * n + i + 1 for i in range(n)]
        unreached = [(4 + side) * n + i + 1 for i in range(n)]
        for i in range(n):
            b.add(-unreached[i], member[i])
            b.add(-unreached[i], -counted[i])
        b.add(*unreached)
        for i in range(n):
            lits = [-member[j] for j in nbrs[i]]
            counter(lits, r - 1, guard=(-member[i], counted[i]))
    b.at_most(list(range(2 * n + 1, 4 * n + 1)), s - 1)
    return Cnf(b.top, tuple(b.clauses))


def _counter_size(d: int, k: int) -> tuple[int, int]:
    """(fresh variables, clauses) of ``ClauseBuilder.at_most`` on ``d`` literals with bound ``k``:
    with ``S(x) = sum_{t=1}^{x} min(t, k)``, the registers are ``S(d-1)`` and the clauses
    ``S(d-1) + S(d-2) + d - k`` (one opening clause, two or more per middle position, one
    overflow per position from k on)."""
    if d <= k:
        return 0, 0
    if k < 0:
        return 0, 1
    if k == 0:
        return 0, d

    def total(x: int) -> int:
        return x * (x + 1) // 2 if x <= k else k * (k + 1) // 2 + (x - k) * k

    return total(d - 1), total(d - 1) + total(d - 2) + d - k


@functools.lru_cache(maxsize=4096)
def _tree_count_size(d: int, cap: int) -> tuple[int, int]:
    """(fresh variables, clauses) of ``ClauseBuilder._count`` on ``d`` literals, at most ``cap``
    outputs (its output count is ``min(d, cap)``)."""
    if d == 1:
        return 0, 0
    a, b = d // 2, d - d // 2
    va, ca = _tree_count_size(a, cap)
    vb, cb = _tree_count_size(b, cap)
    la, lb = min(a, cap), min(b, cap)
    out = min(la + lb, cap)
    pairs = sum(max(0, min(lb, out - i) - max(0, 1 - i) + 1) for i in range(la + 1))
    return va + vb + out, ca + cb + pairs


def _tree_size(d: int, k: int) -> tuple[int, int]:
    """(fresh variables, clauses) of ``ClauseBuilder.at_most_tree`` on ``d`` literals, bound
    ``k``: the two halves' counts, then one top clause per split i + j = k + 1."""
    if d <= k or k <= 0:
        return _counter_size(d, k)
    a, b = d // 2, d - d // 2
    va, ca = _tree_count_size(a, k + 1)
    vb, cb = _tree_count_size(b, k + 1)
    la, lb = min(a, k + 1), min(b, k + 1)
    top = sum(1 for i in range(la + 1) if 0 <= k + 1 - i <= lb)
    return va + vb, ca + cb + top


def size(
    in_degrees: Sequence[int], r: int, s: int, encoding: str | None = None
) -> tuple[int, int]:
    """``(variables, len(clauses))`` of :func:`encode` for a graph with these in-degrees, in
    closed form: O(n), nothing built (the totalizer's sizes of ``robustgraph-cnf-3`` are
    remembered per in-degree). The verifier compares it with a proof's recorded sizes
    and the CNF budget before it encodes anything (issue 31: a certificate edited to an LRAT
    proof for n = 400 encoded millions of clauses before the proof file was opened).

    Examples
    --------
    >>> triangle = [frozenset({1, 2}), frozenset({0, 2}), frozenset({0, 1})]
    >>> size([2, 2, 2], 2, 1) == (encode(triangle, 2, 1).variables, 14)
    True
    """
    n = len(in_degrees)
    if n < 2 or r < 1 or s < 1:
        raise ParameterError(f"the robustness CNF needs n >= 2, r >= 1, s >= 1 (n={n}, r={r})")
    if (encoding or ENCODING) not in ENCODINGS:
        raise ParameterError(f"unknown CNF encoding {encoding!r}; expected one of {ENCODINGS}")
    counter = _tree_size if (encoding or ENCODING) == TOTALIZER else _counter_size
    fresh = clauses = 0
    for d in in_degrees:
        v, c = counter(d, r - 1)
        fresh, clauses = fresh + 2 * v, clauses + 2 * c
    clauses += 2 * n + 2  # the pair: disjoint, both nonempty, the lowest node in S1
    if s == 1:
        return 2 * n + fresh, clauses
    v, c = _counter_size(2 * n, s - 1)
    return 6 * n + fresh + v, clauses + 2 * (2 * n + 1) + c
