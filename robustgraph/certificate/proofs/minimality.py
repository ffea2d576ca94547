"""Check a minimality certificate: no r-robust graph on n nodes has fewer than L edges.

One module: every proof kind of one certificate format (formula, lrat, lrat-parts) is checked
against the same CNF, which this module alone regenerates; split apart, the encoding and its
checkers could drift. (The ``degree-split`` kind refutes one CNF per degree sequence, built from
the same edge variables, pair clauses and symmetry clauses.)

A minimality certificate (``format: robustgraph-minimum``) is a JSON document about n, r and a
lower bound L on the edges of every undirected r-robust graph on n nodes (LeBlanc et al. 2013,
Def. 6), or, with a field ``s`` >= 2, of every (r, s)-robust graph (Def. 7; ``s`` absent or 1
is r-robustness). Its proof is one of these kinds, each re-checked here without trusting any
solver:

- ``formula``: L is one of the closed-form bounds of docs/theory.md, section 4 ("Edge counts of
  r-robust graphs"), recomputed from n and r (:func:`formula_bounds`).
- ``lrat``: an LRAT refutation (checked by :mod:`.lrat`) of the CNF "some graph on n nodes with
  at most L - 1 edges is r-robust", which this module regenerates from n, r, L and the pair
  clauses the certificate lists, after checking every pair clause against the definition.
- ``lrat-parts``: the same CNF refuted in 2^k parts, each its own file within the input budgets:
  ``split`` names k distinct edge variables, and part i is an LRAT refutation of the CNF with
  the i-th cube of the full binary tree on them (:func:`part_cube`) appended (:func:`part_cnf`:
  each literal l of the cube as the two clauses ``l y`` and ``l -y`` with a fresh y, which
  together say l; CaDiCaL numbers appended unit clauses out of step with their order). The 2^k
  cubes cover every assignment of the k variables, so a graph satisfying the CNF would satisfy
  one cube and the CNF, which its part refutes: the parts together refute the CNF.
- ``degree-split``: one LRAT refutation per degree sequence of the cover, each of its own CNF
  (exact degrees instead of the edge counter and sb*_l) with its own pair clauses, the cover
  re-enumerated here (below, "Degree-split proofs").

The CNF (encoding ``robustgraph-minimum-cnf-1``). Edge variable ``e(u, v)`` for nodes
u < v is the position of (u, v) among all pairs in lexicographic order, from 1 to
N = n(n-1)/2. Clauses, in this order:

1. at most L - 1 of e(1) .. e(N), as the sequential counter of :mod:`.cnf` (fresh registers
   numbered from N + 1);
2. for r >= 2, for each node i = 0 .. n-1: at least r of its n - 1 edge variables, as "at most
   n - 1 - r of their negations" (registers continue): every node of an r-robust graph has
   degree at least r (docs/theory.md, section 4: the pair ({i}, V - {i}));
3. symmetry breaking, for each pair of nodes i < j (lexicographic order): row i of the
   adjacency matrix is lexicographically at most row j, both without columns i and j (false
   before true; columns ascending), as the clauses of :func:`lex_at_most`;
4. the pair clauses in the order listed: clause (e_1 .. e_k) with its pair (S1, S2).

Part 3 keeps a graph of every isomorphism class (Codish, Miller, Prosser & Stuckey, "Constraints
for symmetry breaking in graph representation", Constraints 24, 2019, sb*_l): write the upper
triangle of the adjacency matrix row by row as a bit string and take the relabelling whose
string is least. Swapping the labels i < j changes only the entries (k, i) and (k, j) for
k outside {i, j}; in the string, the first of them to differ is at the smallest such k, where
the entry of i comes first, so the swap's string is at least as large exactly when row i is
lexicographically at most row j (without columns i, j). The least string is at most every
swap's, so it satisfies every constraint of part 3; robustness and the edge count do not
depend on labels.

A pair clause is *given by the definition* when S1 and S2 are disjoint and nonempty, its
literals are distinct, ascending, positive edge variables (at least one), and for each side S
and each node i of S, at most r - 1 pairs {i, j} with j outside S are missing from the clause.
Then every graph H avoiding all of the clause's edges has S1 and S2 both not r-reachable (each
member keeps at most r - 1 neighbours outside its set), so H is not r-robust: every r-robust
graph contains an edge of the clause. Parts 1, 2 and 4 hold for every r-robust graph with at
most L - 1 edges (the counter's registers set to the running counts), part 3 for one
relabelling of each, so a refutation proves that none exists.

For (r, s), s >= 2, the CNF is the same (an (r, s)-robust graph is r-robust: condition 3 of
Def. 7 with s >= 1 makes some member of S1 or S2 r-reachable, so parts 1-3 hold for it), and a
pair clause is given by the definition when, calling a member *held* if at most r - 1 of its
outside pairs are missing from the clause, S1 and S2 each have a held member and at most s - 1
members of S1 and S2 together are not held. A graph H avoiding the clause then has no held
member r-reachable: S1 and S2 are not wholly r-reachable and |X_S1^r| + |X_S2^r| <= s - 1,
so (S1, S2) violates all three conditions of Def. 7 and H is not (r, s)-robust.

*Degree-split proofs.* A ``degree-split`` proof (r >= 2; proofs in docs/theory.md, section 8,
"The degree-sequence split of a minimality proof") lists *cases*, one per degree sequence
d_0 >= d_1 >= ... >= d_{n-1} of the cover (:func:`degree_sequences`), each with its own pair
clauses and its own LRAT refutation of its case CNF (encoding
``robustgraph-minimum-degree-cnf-1``, :func:`encode_case`; the edge variables above). Its
clauses, in this order:

1. for each node i = 0 .. n-1: at most d_i of its n - 1 edge variables, then at most
   n - 1 - d_i of their negations (the sequential counter of :mod:`.cnf`; registers numbered
   from N + 1 on, in this order): node i has degree exactly d_i. When d_i = n - 1 the second
   counter would be n - 1 unit clauses; instead a fresh variable y and, for each edge variable
   x of node i, the clauses ``x y`` and ``x -y``, which together say x (CaDiCaL numbers unit
   clauses out of step with their order, as for :func:`part_cnf`);
2. symmetry breaking within equal degrees: for each pair i < j with d_i = d_j, row i of the
   adjacency matrix is lexicographically at most row j, both without columns i and j (the
   clauses of sb*_l, Codish et al. 2019, for these pairs only);
3. the case's pair clauses in the order listed, each given by the definition
   (:func:`pair_clause_problem`), or a degree clause given by the definition under the case's
   degrees (below).

*Degree clauses.* Inside a case, node i has degree exactly d_i, so a member i of a side S that
has k neighbours inside S has exactly d_i - k outside it. A case's pair clause may therefore
also list negative literals -e(i, j), each a pair inside S1 or inside S2 (the edge present),
besides its positive ones (pairs missing). A graph of the case avoiding the clause has every
negative literal's edge and lacks every positive literal's, so a member i keeps at most
min(u_i, d_i - f_i) neighbours outside its set, u_i its outside pairs missing from the clause's
positive literals and f_i its negative literals inside its set. Calling i *held* when that
minimum is at most r - 1, the rules above (every member held for r-robustness; for (r, s) a held
member on each side and at most s - 1 not held) make the witness hold in every graph of the case
avoiding the clause, so every (r, s)-robust graph of the case satisfies it: the case CNF with it
is still satisfied by the labelling of "The cover" below. Literals are listed by ascending
variable, each variable once; outside a degree-split case a negative literal is refused
(docs/theory.md, section 8, "Degree clauses"). A clause with positive literals only reads as
before (its members' minimum is at most u_i), so every earlier certificate still checks.

*The cover.* The proof's ``cover`` field says which: ``exactly`` (what the prover writes) or
``at-most`` (the field absent: certificates written before 2026-12-06). Edge monotonicity
(docs/theory.md, section 8): adding an edge never makes an (r, s)-robust graph lose the
property, since each set's r-reachable members can only gain outside neighbours (LeBlanc et
al. 2013, Defs. 6-7). So if some r-robust graph G has at most L - 1 edges and L - 1 <= N,
adding edges to G gives one with exactly L - 1; the ``exactly`` cover holds the sequences of
sum 2(L - 1) only (and is refused when L - 1 > N, where no graph has L - 1 edges), the
``at-most`` cover those of sum at most 2(L - 1). Every r-robust graph G with the cover's edge
count has every degree >= r (the degree lemma, docs/theory.md section 4) and the cover's degree
sum; its degree sequence, sorted non-increasingly, is graphical (G realises it), so it passes
the Erdos-Gallai test (Erdos & Gallai 1960). Relabel G so that node i has the i-th degree:
parts 1 and 3 hold. Among the labellings that do so, the one whose upper-triangle bit string
is least satisfies part 2: swapping two labels of equal degree keeps the degree order, and the
swap's string is at least as large exactly when row i <= row j without columns i, j (the
argument for part 3 above). So some case's CNF is satisfied; a refutation of every case in the
cover proves that no such G exists. The checker enumerates the cover itself and demands the
cases in exactly its order.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import math
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from robustgraph.certificate.proofs.cnf import ClauseBuilder, Cnf
from robustgraph.certificate.proofs.lrat import LratError, check_refutation
from robustgraph.errors import CertificateError
from robustgraph.generators import gamma_merg_edge_count, max_robustness
from robustgraph.limits import CNF_CLAUSES, FILE_BYTES, PROOF_STEPS, text_lines

__all__ = [
    "COVERS",
    "ENCODING",
    "SPLIT_ENCODING",
    "FORMAT",
    "MAX_N",
    "MinimalityError",
    "MinimumCheck",
    "PairClause",
    "check_minimum",
    "degree_r_bound",
    "degree_sequences",
    "edge_variable",
    "encode",
    "encode_case",
    "forest_bound",
    "formula_bounds",
    "graphical",
    "lex_at_most",
    "pair_clause_problem",
    "parse_pairs",
    "part_cnf",
    "part_cube",
    "proof_file",
    "refutation_steps",
    "shape",
    "write_pairs",
]

FORMAT = "robustgraph-minimum"
ENCODING = "robustgraph-minimum-cnf-1"
MAX_N = 24
"""Most nodes an ``lrat`` minimality proof may speak of (276 edge variables)."""
SPLIT_ENCODING = "robustgraph-minimum-degree-cnf-1"
"""The encoding of a ``degree-split`` proof's case CNFs (:func:`encode_case`)."""
COVERS = ("exactly", "at-most")
"""A ``degree-split`` proof's covers (module notes, "The cover"): degree sum exactly 2(L - 1),
or at most 2(L - 1) (the field ``cover`` absent)."""
_CASE_FIELDS = {"degrees": list, "variables": int, "clauses": int, "steps": int, "pairs": int,
                "pairs_file": str, "pairs_sha256": str, "pairs_bytes": int,
                "lrat_file": str, "lrat_sha256": str, "lrat_bytes": int}
MAX_SPLIT = 10
"""Most split variables of an ``lrat-parts`` proof (1,024 parts)."""

Reader = Callable[[str], bytes]


class MinimalityError(CertificateError):
    """A minimality certificate does not prove its bound; the message says why."""

    exit_code = 1


@dataclass(frozen=True)
class PairClause:
    """One pair clause: the witness pair (S1, S2) and the clause's edge variables."""

    s1: tuple[int, ...]
    s2: tuple[int, ...]
    literals: tuple[int, ...]


@dataclass(frozen=True)
class MinimumCheck:
    """What a checked minimality certificate proves: every r-robust graph on n nodes has at
    least ``lower_bound`` edges; ``text`` says how, ``steps`` its size."""

    n: int
    r: int
    lower_bound: int
    kind: str
    steps: int
    text: str
    seconds: float
    s: int = 1


def degree_r_bound(n: int, r: int) -> int:
    """The bound from the nodes of degree exactly r, for 2 <= r < ceil(n/2) (n >= 4).

    r = 2: ``ceil((6n - 1) / 5)``; r = 3: ``ceil(7 n / 4)``; r >= 4:
    ``ceil(n r (r + 2) / (2 (r + 1)))`` (docs/theory.md, section 4).

    Examples
    --------
    >>> degree_r_bound(20, 2), degree_r_bound(20, 3), degree_r_bound(20, 5)
    (24, 35, 59)
    """
    if r == 2:
        return -(-(6 * n - 1) // 5)
    average = Fraction(7, 2) if r == 3 else Fraction(r * (r + 2), r + 1)
    return math.ceil(average * n / 2)


def forest_bound(n: int, r: int) -> int:
    """The low-degree-forest bound for r >= 2:
    ``ceil((r (r+3) n - (r^2 + 10 r - 2)) / (2r + 3))`` for r >= 3 and ``ceil((10 n - 23) / 7)``
    for r = 2 (0 when that is negative).

    Proof: docs/theory.md, section 4 ("The low-degree forest"); the discharging's charges are
    :func:`robustgraph.design.bounds.forest_charges`.

    Examples
    --------
    >>> forest_bound(100, 2), forest_bound(100, 3), forest_bound(100, 5)
    (140, 196, 303)
    """
    q = 2 * r + 3
    constant = r * r + 10 * r - 2 + (1 if r == 2 else 0)
    return max(0, -(-(r * (r + 3) * n - constant) // q))


def formula_bounds(n: int, r: int) -> dict[str, int]:
    """Every closed-form lower bound of docs/theory.md, section 4, that applies to (n, r).

    ``connectivity`` (n - 1), ``degree`` (ceil(n r / 2), r >= 2), ``degree-r``
    (:func:`degree_r_bound`, 2 <= r < ceil(n/2)), ``forest`` (:func:`forest_bound`, r >= 2),
    ``gamma-merg`` (r = ceil(n/2): the gamma-MERG count, minimal by Lee & Panagou,
    arXiv:2507.00415).

    Examples
    --------
    >>> formula_bounds(9, 3)
    {'connectivity': 8, 'degree': 14, 'degree-r': 16, 'forest': 14}
    """
    found = {"connectivity": n - 1}
    if r >= 2:
        found["degree"] = -(-n * r // 2)
    if 2 <= r < max_robustness(n) and n >= 4:
        found["degree-r"] = degree_r_bound(n, r)
    if r >= 2:
        found["forest"] = forest_bound(n, r)
    if r == max_robustness(n):
        found["gamma-merg"] = gamma_merg_edge_count(n)
    return found


def edge_variable(n: int, u: int, v: int) -> int:
    """The CNF variable of edge {u, v} on n nodes: its 1-based lexicographic position.

    Examples
    --------
    >>> edge_variable(4, 0, 1), edge_variable(4, 2, 3), edge_variable(4, 3, 1)
    (1, 6, 5)
    """
    u, v = min(u, v), max(u, v)
    return u * (2 * n - u - 1) // 2 + (v - u - 1) + 1


def pair_clause_problem(n: int, r: int, clause: PairClause, s: int = 1,
                        degrees: Sequence[int] | None = None) -> str | None:
    """Why ``clause`` is not given by the definition for (n, r, s) (module notes), or None;
    with ``degrees`` (a degree-split case: node i has degree exactly ``degrees[i]``), whether it
    is a *degree clause* given by the definition (module notes, "Degree clauses").

    Examples
    --------
    >>> path = PairClause((0, 1), (2, 3), (2, 3, 4, 5))  # on 4 nodes: cut pairs (0,2)..(1,3)
    >>> pair_clause_problem(4, 2, path) is None
    True
    >>> pair_clause_problem(4, 2, PairClause((0, 1), (2, 3), (2, 3)))
    'node 1 keeps 2 pairs to nodes outside its set, more than r - 1 = 1'
    >>> pair_clause_problem(4, 2, PairClause((0, 1), (2, 3), (2, 3)), s=2) is None  # 1 not held
    True
    >>> inside = PairClause((0, 1), (2, 3), (-1, -6))  # edges {0, 1} and {2, 3} both present
    >>> pair_clause_problem(4, 2, inside, degrees=[2, 2, 2, 2]) is None  # one outside each
    True
    >>> pair_clause_problem(4, 2, inside, degrees=[3, 2, 2, 2])
    'node 0 keeps 2 pairs to nodes outside its set, more than r - 1 = 1'
    """
    s1, s2, lits = clause.s1, clause.s2, clause.literals
    nodes = [*s1, *s2]
    if not s1 or not s2 or any(not 0 <= i < n for i in nodes) or len(set(nodes)) != len(nodes):
        return "S1 and S2 must be disjoint, nonempty sets of nodes 0..n-1"
    if list(s1) != sorted(s1) or list(s2) != sorted(s2):
        return "S1 and S2 must be listed in ascending order"
    top = n * (n - 1) // 2
    variables = [abs(x) for x in lits]
    if not lits or variables != sorted(set(variables)) or variables[0] < 1 or variables[-1] > top:
        return f"the clause must list distinct edge variables 1..{top}, ascending"
    absent = {x for x in lits if x > 0}
    present = {-x for x in lits if x < 0}
    if present and degrees is None:
        return "a negative literal (a pair present) needs the fixed degrees of a degree-split case"
    loose = []  # members not held: more than r - 1 outside neighbours possible
    inside_pairs = 0
    for side in (s1, s2):
        inside = set(side)
        kept = {i: sum(edge_variable(n, i, j) not in absent for j in range(n) if j not in inside)
                for i in side}
        if degrees is not None:
            for i in side:
                forced = sum(edge_variable(n, i, j) in present for j in side if j != i)
                inside_pairs += forced
                kept[i] = min(kept[i], degrees[i] - forced)
        loose += [(i, k) for i, k in kept.items() if k > r - 1]
        if s > 1 and all(k > r - 1 for k in kept.values()):
            return (f"no member of {'S1' if side is s1 else 'S2'} keeps at most r - 1 = {r - 1} "
                    "pairs to nodes outside its set")
    if inside_pairs != 2 * len(present):
        return "a negative literal must be a pair inside S1 or inside S2"
    if len(loose) > s - 1:
        i, k = loose[s - 1]
        return (f"node {i} keeps {k} pairs to nodes outside its set, more than r - 1 = {r - 1}"
                + (f", and {s - 1} other member(s) already do (s - 1 = {s - 1})" if s > 1 else ""))
    return None


def encode(n: int, r: int, bound: int, pairs: Sequence[PairClause]) -> Cnf:
    """The CNF of the module notes: "a graph on n nodes with at most bound - 1 edges whose
    every pair clause holds" (the pairs are not checked here: :func:`pair_clause_problem`).

    Examples
    --------
    >>> cnf = encode(4, 2, 5, [PairClause((0, 1), (2, 3), (2, 3, 4, 5))])
    >>> cnf.clauses[-1], cnf.variables > 6
    ((2, 3, 4, 5), True)

    Notes
    -----
    O(N (bound + n)) clauses, N = n(n-1)/2.
    """
    edges = n * (n - 1) // 2
    b = ClauseBuilder(edges)
    b.at_most(list(range(1, edges + 1)), bound - 1)
    if r >= 2:
        for i in range(n):
            lits = [-edge_variable(n, i, j) for j in range(n) if j != i]
            b.at_most(lits, n - 1 - r)
    return _ordered_rows(b, n, lambda i, j: True, pairs)


def _ordered_rows(b: ClauseBuilder, n: int, which: Callable[[int, int], bool],
                  pairs: Sequence[PairClause]) -> Cnf:
    """Add, for each i < j with ``which(i, j)``, "row i <= row j without columns i and j"
    (:func:`lex_at_most`), then the pair clauses; the CNF."""
    for i in range(n):
        for j in range(i + 1, n):
            if which(i, j):
                rest = [k for k in range(n) if k not in (i, j)]
                lex_at_most(b, [edge_variable(n, i, k) for k in rest],
                            [edge_variable(n, j, k) for k in rest])
    for pair in pairs:
        b.add(*pair.literals)
    return Cnf(b.top, tuple(b.clauses))


def lex_at_most(b: ClauseBuilder, xs: Sequence[int], ys: Sequence[int]) -> None:
    """Clauses for ``xs <= ys`` lexicographically (false < true): with q_k the fresh variable
    "the first k entries are equal" (q_0 true, left out), for k = 1..L: ``-q_{k-1} -x_k y_k``,
    and for k < L: ``-q_{k-1} -x_k -y_k q_k`` and ``-q_{k-1} x_k y_k q_k``."""
    equal: tuple[int, ...] = ()
    for k, (x, y) in enumerate(zip(xs, ys, strict=True)):
        b.add(*equal, -x, y)
        if k == len(xs) - 1:
            break
        q = b.fresh()
        b.add(*equal, -x, -y, q)
        b.add(*equal, x, y, q)
        equal = (-q,)


def write_pairs(pairs: Iterable[PairClause]) -> bytes:
    """The pair-clause file: one line ``S1 | S2 | literals`` per clause (space-separated),
    gzip-compressed with a zero timestamp."""
    lines = [
        " ".join(map(str, p.s1)) + " | " + " ".join(map(str, p.s2)) + " | "
        + " ".join(map(str, p.literals))
        for p in pairs
    ]
    return gzip.compress(("\n".join(lines) + "\n").encode(), compresslevel=1, mtime=0)


def parse_pairs(data: bytes, label: str) -> list[PairClause]:
    """Read a pair-clause file written by :func:`write_pairs` (bounded as an LRAT proof is).

    Raises
    ------
    MinimalityError
        Not gzip, or a line that is not ``S1 | S2 | literals``.
    """
    pairs = []
    try:
        with gzip.open(io.BytesIO(data), "rb") as stream:
            for number, line in enumerate(text_lines(stream, error=MinimalityError, label=label),
                                          1):
                parts = line.split("|")
                try:
                    s1, s2, lits = (tuple(int(x) for x in part.split()) for part in parts)
                except ValueError:
                    raise MinimalityError(
                        f"{label}: line {number}: expected 'S1 | S2 | literals' of integers"
                    ) from None
                pairs.append(PairClause(s1, s2, lits))
    except (OSError, EOFError) as exc:
        raise MinimalityError(f"{label} is not gzip-compressed text: {exc}") from None
    return pairs


def proof_file(proof: dict[str, Any], key: str, read: Reader) -> bytes:
    """The bytes of the file ``proof[key + "_file"]``, once its recorded size is within the
    byte budget and its SHA-256 and size match the record (else MinimalityError)."""
    name = proof[f"{key}_file"]
    FILE_BYTES.check(proof[f"{key}_bytes"], f"the bytes {name} records")
    data = read(name)
    digest = hashlib.sha256(data).hexdigest()
    if digest != proof[f"{key}_sha256"] or len(data) != proof[f"{key}_bytes"]:
        raise MinimalityError(f"file {name} does not have the sha256 and size recorded")
    return data


def _cnf(n: int, r: int, s: int, bound: int, proof: dict[str, Any],
         read: Reader) -> tuple[Cnf, int]:
    """The CNF an ``lrat`` or ``lrat-parts`` proof refutes, regenerated from n, r, L and its pair
    clauses once each is re-derived from the definition; and the number of pair clauses."""
    if proof.get("encoding") != ENCODING:
        raise MinimalityError(f"unknown encoding {proof.get('encoding')!r}; expected {ENCODING}")
    if n > MAX_N:
        raise MinimalityError(f"an lrat minimality proof covers n <= {MAX_N}, not n = {n}")
    if bound < 2 or (r >= 2 and n - 1 - r < 1):
        raise MinimalityError("an lrat minimality proof needs L >= 2 and r <= n - 2")
    PROOF_STEPS.check(proof["pairs"], "the pair clauses the proof records")
    PROOF_STEPS.check(proof["steps"], "the steps the LRAT proof records")
    for key in _proof_files(proof):  # refused before the pair clauses are re-derived
        FILE_BYTES.check(proof[f"{key}_bytes"], f"the bytes {proof[f'{key}_file']} records")
    pairs = parse_pairs(proof_file(proof, "pairs", read), proof["pairs_file"])
    if len(pairs) != proof["pairs"]:
        raise MinimalityError(f"{len(pairs)} pair clauses, not the {proof['pairs']} recorded")
    for k, pair in enumerate(pairs, 1):
        problem = pair_clause_problem(n, r, pair, s)
        if problem:
            raise MinimalityError(f"pair clause {k} is not given by the definition: {problem}")
    cnf = encode(n, r, bound, pairs)
    CNF_CLAUSES.check(len(cnf.clauses), "the clauses of the minimality CNF")
    if (cnf.variables, len(cnf.clauses)) != (proof["variables"], proof["clauses"]):
        raise MinimalityError(
            f"the proof is for a CNF of {proof['variables']} variables and {proof['clauses']} "
            f"clauses; the one regenerated has {cnf.variables} and {len(cnf.clauses)}"
        )
    return cnf, len(pairs)


def _proof_files(proof: dict[str, Any]) -> list[str]:
    """The keys of a proof's files: ``pairs``, then ``lrat`` or ``part1`` .. ``partK``."""
    if proof["kind"] == "lrat":
        return ["pairs", "lrat"]
    return ["pairs", *(f"part{i}" for i in range(1, len(proof["parts"]) + 1))]


def refutation_steps(clauses: Sequence[tuple[int, ...]], data: bytes, name: str,
                      steps: int) -> int:
    """Check that the gzip-compressed LRAT ``data`` refutes ``clauses`` in ``steps`` steps."""
    try:
        with gzip.open(io.BytesIO(data), "rb") as stream:
            lines = text_lines(stream, error=LratError, label=name)
            found = check_refutation(clauses, lines, max_steps=steps)
    except (OSError, EOFError) as exc:
        raise MinimalityError(f"{name} is not gzip-compressed LRAT: {exc}") from None
    except LratError as exc:
        raise MinimalityError(f"the LRAT proof does not check: {exc}") from None
    if found != steps:
        raise MinimalityError(f"the LRAT proof {name} has {found} steps, not the {steps} "
                              "recorded")
    return found


def _lrat(n: int, r: int, s: int, bound: int, proof: dict[str, Any],
          read: Reader) -> tuple[int, str]:
    cnf, pairs = _cnf(n, r, s, bound, proof, read)
    steps = refutation_steps(cnf.clauses, proof_file(proof, "lrat", read), proof["lrat_file"],
                              proof["steps"])
    text = (f"LRAT refutation checked, {steps:,} steps, over {pairs:,} pair clauses each "
            "re-derived from the definition")
    return steps + pairs, text


def part_cube(split: Sequence[int], index: int) -> tuple[int, ...]:
    """The cube of part ``index`` (0-based) of a split on ``split``: the path to the index-th
    leaf of the full binary tree on the variables (the first at the root, its true branch
    first), so that the 2^k parts cover every assignment of them.

    Examples
    --------
    >>> [part_cube([4, 7], i) for i in range(4)]
    [(4, 7), (4, -7), (-4, 7), (-4, -7)]
    """
    k = len(split)
    return tuple(-v if index >> (k - 1 - d) & 1 else v for d, v in enumerate(split))


def part_cnf(cnf: Cnf, split: Sequence[int], index: int) -> Cnf:
    """The CNF part ``index`` of an ``lrat-parts`` proof refutes: ``cnf`` and, for the d-th
    literal l of :func:`part_cube`, the clauses ``l y_d`` and ``l -y_d`` (y_d fresh).

    Examples
    --------
    >>> part_cnf(Cnf(2, ((1, 2),)), [2], 1).clauses
    ((1, 2), (-2, 3), (-2, -3))
    """
    fresh = cnf.variables
    extra = tuple(clause for d, lit in enumerate(part_cube(split, index))
                  for clause in ((lit, fresh + d + 1), (lit, -(fresh + d + 1))))
    return Cnf(fresh + len(split), cnf.clauses + extra)


def _lrat_parts(n: int, r: int, s: int, bound: int, proof: dict[str, Any],
                read: Reader) -> tuple[int, str]:
    split, parts = proof["split"], proof["parts"]
    edges = n * (n - 1) // 2
    if not (1 <= len(split) <= MAX_SPLIT and len(set(split)) == len(split)
            and all(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= edges
                    for v in split)):
        raise MinimalityError(f"the split must list 1 to {MAX_SPLIT} distinct edge variables "
                              f"1..{edges}")
    if len(parts) != 2 ** len(split):
        raise MinimalityError(f"a split on {len(split)} variables has {2 ** len(split)} parts, "
                              f"not {len(parts)}: the cubes must cover every assignment")
    for i, part in enumerate(parts, 1):
        problem = shape(part, _PART_FIELDS)
        if problem:
            raise MinimalityError(f"part {i}: {problem}")
        proof = proof | {f"part{i}_{key}": part[key] for key in ("file", "sha256", "bytes")}
    if sum(part["steps"] for part in parts) != proof["steps"]:
        raise MinimalityError("the parts' steps do not add up to the steps recorded")
    cnf, pairs = _cnf(n, r, s, bound, proof, read)
    for i, part in enumerate(parts):
        refutation_steps(part_cnf(cnf, split, i).clauses, proof_file(proof, f"part{i + 1}", read),
                          part["file"], part["steps"])
    variables = f"{len(split)} edge variable{'s' * (len(split) > 1)}"
    text = (f"LRAT refutations of all {len(parts)} cubes on {variables} checked, "
            f"{proof['steps']:,} steps, over {pairs:,} pair clauses each re-derived from the "
            "definition")
    return proof["steps"] + pairs, text


def graphical(degrees: Sequence[int]) -> bool:
    """Whether a non-increasing sequence of non-negative integers is the degree sequence of a
    simple graph: an even sum and, for every k, the Erdos-Gallai inequality
    sum_{i <= k} d_i <= k (k - 1) + sum_{i > k} min(d_i, k).

    Examples
    --------
    >>> graphical([3, 3, 3, 3]), graphical([3, 3, 1, 1]), graphical([2, 2, 1])
    (True, False, False)

    Notes
    -----
    O(n^2). References: P. Erdos and T. Gallai, "Graphs with prescribed degrees of vertices"
    (Mat. Lapok 11, 1960).
    """
    if sum(degrees) % 2:
        return False
    total = 0
    for k in range(1, len(degrees) + 1):
        total += degrees[k - 1]
        if total > k * (k - 1) + sum(min(d, k) for d in degrees[k:]):
            return False
    return True


def degree_sequences(n: int, r: int, most: int, exactly: bool = False
                     ) -> Iterator[tuple[int, ...]]:
    """The cover: every graphical non-increasing sequence of n degrees from r to n - 1 whose sum
    is at most ``most`` (``exactly``: equal to ``most``), in descending lexicographic order.

    Examples
    --------
    >>> list(degree_sequences(5, 2, 12))
    [(4, 2, 2, 2, 2), (3, 3, 2, 2, 2), (2, 2, 2, 2, 2)]
    >>> list(degree_sequences(5, 2, 12, exactly=True))
    [(4, 2, 2, 2, 2), (3, 3, 2, 2, 2)]
    """

    def extend(prefix: list[int], left: int) -> Iterator[tuple[int, ...]]:
        if len(prefix) == n:
            if graphical(prefix) and not (exactly and left):
                yield tuple(prefix)
            return
        rest = n - len(prefix) - 1
        top = prefix[-1] if prefix else n - 1
        for d in range(min(top, left - r * rest), r - 1, -1):
            if exactly and d * (rest + 1) < left:  # the rest, each at most d, fall short
                return
            yield from extend([*prefix, d], left - d)

    return extend([], most)


def encode_case(n: int, degrees: Sequence[int], pairs: Sequence[PairClause]) -> Cnf:
    """The CNF of one case (module notes): exact degrees, sb*_l within equal degrees, the pair
    clauses (not checked here).

    Examples
    --------
    >>> cnf = encode_case(4, [2, 2, 2, 2], [PairClause((0, 1), (2, 3), (2, 3, 4, 5))])
    >>> cnf.clauses[-1], cnf.variables > 6
    ((2, 3, 4, 5), True)
    """
    b = ClauseBuilder(n * (n - 1) // 2)
    for i in range(n):
        lits = [edge_variable(n, i, j) for j in range(n) if j != i]
        b.at_most(lits, degrees[i])
        if degrees[i] < n - 1:
            b.at_most([-x for x in lits], n - 1 - degrees[i])
        else:  # every edge present, as two clauses each: no unit clause (module notes)
            y = b.fresh()
            for x in lits:
                b.add(x, y)
                b.add(x, -y)
    return _ordered_rows(b, n, lambda i, j: degrees[i] == degrees[j], pairs)


def _cover_problem(n: int, r: int, bound: int, cases: list[dict[str, Any]],
                   kind: str) -> str | None:
    """Why the cases' degree sequences are not the cover of this kind (:data:`COVERS`), in its
    order, or None."""
    if kind == "exactly" and bound - 1 > n * (n - 1) // 2:
        return (f"no graph on {n} nodes has {bound - 1} edges: the cover 'exactly' needs "
                f"L - 1 <= {n * (n - 1) // 2}")
    cover = degree_sequences(n, r, 2 * (bound - 1), exactly=kind == "exactly")
    for k, case in enumerate(cases, 1):
        expected = next(cover, None)
        if expected is None:
            return f"case {k} is not in the cover, which has {k - 1} degree sequences"
        if case["degrees"] != list(expected):
            return (f"case {k} has degrees {case['degrees']}, where the cover's case {k} is "
                    f"{list(expected)}")
    missing = next(cover, None)
    if missing is not None:
        return (f"the cover's case {len(cases) + 1}, degrees {list(missing)}, has no case: the "
                "cases must cover every degree sequence")
    return None


def _degree_split(n: int, r: int, s: int, bound: int, proof: dict[str, Any],
                read: Callable[[str], bytes]) -> tuple[int, str]:
    """Check a ``degree-split`` proof of ``bound`` for (n, r, s): its steps and what it proves.

    Parameters
    ----------
    n, r, s, bound : int
        The certificate's nodes, robustness, s and lower bound L.
    proof : dict
        The proof object (``kind``, ``encoding``, ``cases``, ``steps``, ``pairs``).
    read : callable
        The bytes of a file the proof names.

    Returns
    -------
    (int, str)
        Steps checked (LRAT steps and pair clauses) and the text of the verdict.

    Raises
    ------
    MinimalityError
        An unknown cover, a case missing, added, out of order or altered, a pair clause the
        definition does not give, a refutation that does not check.

    Notes
    -----
    The cover costs O(cases n^2); each case as an ``lrat`` proof (:mod:`.minimality`).
    """
    if proof["encoding"] != SPLIT_ENCODING:
        raise MinimalityError(f"unknown encoding {proof['encoding']!r}; expected {SPLIT_ENCODING}")
    if n > MAX_N or r < 2 or bound < 2:
        raise MinimalityError(f"a degree-split proof covers r >= 2, L >= 2 and n <= "
                                 f"{MAX_N}")
    cases = proof["cases"]
    PROOF_STEPS.check(len(cases), "the cases the degree-split proof records")
    for k, case in enumerate(cases, 1):
        problem = shape(case, _CASE_FIELDS)
        if problem is None and not all(type(d) is int for d in case["degrees"]):
            problem = "field 'degrees' not a list of integers"
        if problem:
            raise MinimalityError(f"case {k}: {problem}")
        for key in ("pairs", "lrat"):
            FILE_BYTES.check(case[f"{key}_bytes"], f"the bytes {case[f'{key}_file']} records")
    kind = proof.get("cover", "at-most")
    if type(kind) is not str or kind not in COVERS:
        raise MinimalityError(f"field 'cover' is not one of {', '.join(COVERS)}")
    problem = _cover_problem(n, r, bound, cases, kind)
    if problem:
        raise MinimalityError(problem)
    if sum(case["steps"] for case in cases) != proof["steps"] \
            or sum(case["pairs"] for case in cases) != proof["pairs"]:
        raise MinimalityError("the cases' steps or pair clauses do not add up to those "
                                 "recorded")
    PROOF_STEPS.check(proof["pairs"], "the pair clauses the proof records")
    for k, case in enumerate(cases, 1):
        pairs = parse_pairs(proof_file(case, "pairs", read), case["pairs_file"])
        if len(pairs) != case["pairs"]:
            raise MinimalityError(f"case {k}: {len(pairs)} pair clauses, not the "
                                     f"{case['pairs']} recorded")
        for i, pair in enumerate(pairs, 1):
            problem = pair_clause_problem(n, r, pair, s, case["degrees"])
            if problem:
                raise MinimalityError(f"case {k}: pair clause {i} is not given by the "
                                         f"definition: {problem}")
        cnf = encode_case(n, case["degrees"], pairs)
        CNF_CLAUSES.check(len(cnf.clauses), f"the clauses of case {k}'s CNF")
        if (cnf.variables, len(cnf.clauses)) != (case["variables"], case["clauses"]):
            raise MinimalityError(
                f"case {k} is for a CNF of {case['variables']} variables and {case['clauses']} "
                f"clauses; the one regenerated has {cnf.variables} and {len(cnf.clauses)}")
        refutation_steps(cnf.clauses, proof_file(case, "lrat", read), case["lrat_file"],
                            case["steps"])
    text = (f"LRAT refutations of all {len(cases)} degree-sequence cases checked (the cover "
            f"re-enumerated: degree sums {kind.replace('-', ' ')} {2 * (bound - 1)}), "
            f"{proof['steps']:,} steps, over {proof['pairs']:,} pair clauses each re-derived "
            "from the definition")
    return proof["steps"] + proof["pairs"], text


_FIELDS = {"format": str, "version": int, "n": int, "r": int, "directed": bool,
           "lower_bound": int, "statement": str, "proof": dict}
_PROOF_FIELDS = {
    "formula": {"formula": str},
    "lrat": {"encoding": str, "variables": int, "clauses": int, "steps": int, "pairs": int,
             "pairs_file": str, "pairs_sha256": str, "pairs_bytes": int,
             "lrat_file": str, "lrat_sha256": str, "lrat_bytes": int},
    "lrat-parts": {"encoding": str, "variables": int, "clauses": int, "steps": int,
                   "pairs": int, "pairs_file": str, "pairs_sha256": str, "pairs_bytes": int,
                   "split": list, "parts": list},
    "degree-split": {"encoding": str, "steps": int, "pairs": int, "cases": list},
}
_PART_FIELDS = {"file": str, "sha256": str, "bytes": int, "steps": int}


def statement(n: int, r: int, bound: int, s: int = 1) -> str:
    """The claim in words, as a certificate states it.

    Examples
    --------
    >>> statement(9, 3, 16)
    'every 3-robust graph on 9 nodes has at least 16 edges'
    >>> statement(7, 2, 12, s=3)
    'every (2, 3)-robust graph on 7 nodes has at least 12 edges'
    """
    kind = f"{r}-robust" if s == 1 else f"({r}, {s})-robust"
    return f"every {kind} graph on {n} nodes has at least {bound} edges"


def _shape_problem(doc: Any) -> str | None:
    if not isinstance(doc, dict):
        return "not a JSON object"
    for key, kind in _FIELDS.items():
        value = doc.get(key)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            return f"field {key!r} missing or not a {kind.__name__}"
    s = doc.get("s", 1)
    if not isinstance(s, int) or isinstance(s, bool) or not 1 <= s <= doc["n"]:
        return "field 's' not an integer from 1 to n"
    if doc["format"] != FORMAT or doc["version"] != 1:
        return f"not a {FORMAT} version 1 document"
    fields = _PROOF_FIELDS.get(doc["proof"].get("kind"))
    if fields is None:
        return (f"unknown proof kind {doc['proof'].get('kind')!r}; expected one of "
                f"{', '.join(_PROOF_FIELDS)}")
    problem = shape(doc["proof"], fields)
    return None if problem is None else f"proof {problem}"


def shape(obj: Any, fields: dict[str, type]) -> str | None:
    """Why ``obj`` is not an object with these fields (non-negative integers), or None."""
    if not isinstance(obj, dict):
        return "not a JSON object"
    for key, kind in fields.items():
        value = obj.get(key)
        if not isinstance(value, kind) or (kind is int and (isinstance(value, bool) or value < 0)):
            return f"field {key!r} missing or not a {kind.__name__}"
    return None


def check_minimum(doc: Any, read: Reader) -> MinimumCheck:
    """Check a minimality certificate (already parsed from JSON); return what it proves.

    Parameters
    ----------
    doc : dict
        The document (module notes).
    read : callable
        Returns the bytes of a file the proof names (raises CertificateError).

    Raises
    ------
    MinimalityError
        The document is malformed or its proof does not prove its bound.

    Examples
    --------
    >>> doc = {"format": FORMAT, "version": 1, "n": 9, "r": 3, "directed": False,
    ...        "lower_bound": 16, "statement": statement(9, 3, 16),
    ...        "proof": {"kind": "formula", "formula": "degree-r"}}
    >>> check_minimum(doc, {}.__getitem__).text
    "formula checked: 'degree-r' gives 16 (docs/theory.md, section 4)"

    Notes
    -----
    Formula: O(1). LRAT: O(N (L + n)) to regenerate the CNF (N = n(n-1)/2), O(pairs n^2) for
    the pair clauses, then linear in the proof's size.
    """
    start = time.perf_counter()
    problem = _shape_problem(doc)
    if problem:
        raise MinimalityError(f"minimality certificate: {problem}")
    n, r, s, bound = doc["n"], doc["r"], doc.get("s", 1), doc["lower_bound"]
    if doc["directed"]:
        raise MinimalityError("minimality certificates cover undirected graphs only")
    if not (n >= 2 and 1 <= r <= max_robustness(n)):
        raise MinimalityError(f"no graph on n = {n} nodes is {r}-robust (1 <= r <= ceil(n/2))")
    if doc["statement"] != statement(n, r, bound, s):
        raise MinimalityError(f"the statement {doc['statement']!r} does not describe n, r, s "
                              f"and the lower bound, which read {statement(n, r, bound, s)!r}")
    proof = doc["proof"]
    if proof["kind"] == "formula":
        formulas = formula_bounds(n, r)
        name = proof["formula"]
        if name not in formulas:
            raise MinimalityError(f"formula {name!r} does not apply to n = {n}, r = {r} "
                                  f"(these do: {', '.join(formulas)})")
        if formulas[name] < bound:
            raise MinimalityError(f"formula {name!r} gives {formulas[name]}, not {bound}")
        steps, text = 1, f"formula checked: {name!r} gives {formulas[name]} (docs/theory.md, " \
                         "section 4)"
    elif proof["kind"] == "lrat":
        steps, text = _lrat(n, r, s, bound, proof, read)
    elif proof["kind"] == "degree-split":
        steps, text = _degree_split(n, r, s, bound, proof, read)
    else:
        steps, text = _lrat_parts(n, r, s, bound, dict(proof), read)
    return MinimumCheck(n, r, bound, proof["kind"], steps, text, time.perf_counter() - start, s)
