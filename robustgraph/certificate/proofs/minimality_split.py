"""Check a ``degree-split`` minimality proof: the refutation split into one case per degree
sequence, the cover of the cases re-enumerated here.

A ``degree-split`` proof of "every r-robust graph on n nodes has at least L edges" (r >= 2;
proofs in docs/theory.md, section 7, "The degree-sequence split of a minimality proof") lists
*cases*, one per degree sequence d_0 >= d_1 >= ... >= d_{n-1} in the cover
(:func:`degree_sequences`), each with its own pair
clauses and its own LRAT refutation of the case CNF (encoding
``robustgraph-minimum-degree-cnf-1``; :func:`encode_case`). Edge variables are those of
:func:`robustgraph.certificate.proofs.minimality.edge_variable`. Clauses, in this order:

1. for each node i = 0 .. n-1: at most d_i of its n - 1 edge variables, then at most
   n - 1 - d_i of their negations (the sequential counter of :mod:`.cnf`; registers numbered
   from N + 1 on, in this order): node i has degree exactly d_i. When d_i = n - 1 the second
   counter would be n - 1 unit clauses; instead a fresh variable y and, for each edge variable
   x of node i, the clauses ``x y`` and ``x -y``, which together say x (CaDiCaL numbers unit
   clauses out of step with their order, as for :func:`.minimality.part_cnf`);
2. symmetry breaking within equal degrees: for each pair i < j with d_i = d_j, row i of the
   adjacency matrix is lexicographically at most row j, both without columns i and j (the
   clauses of sb*_l, Codish et al. 2019, for these pairs only);
3. the case's pair clauses in the order listed, each given by the definition
   (:func:`robustgraph.certificate.proofs.minimality.pair_clause_problem`).

*The cover.* Every r-robust graph G with at most L - 1 edges has every degree >= r (the degree
lemma, docs/theory.md section 4) and degree sum 2|E| <= 2(L - 1); its degree sequence, sorted
non-increasingly, is graphical (G realises it), so it passes the Erdos-Gallai test
(Erdos & Gallai 1960). Relabel G so that node i has the i-th degree: parts 1 and 3 hold.
Among the labellings that do so, the one whose upper-triangle bit string is least satisfies
part 2: swapping two labels of equal degree keeps the degree order, and the swap's string is
at least as large exactly when row i <= row j without columns i, j (the argument of
:mod:`.minimality`'s module notes). So some case's CNF is satisfied; a refutation of every case
in the cover proves that no such G exists. The checker enumerates the cover itself and demands
the cases in exactly its order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from robustgraph.certificate.proofs import minimality as mp
from robustgraph.certificate.proofs.cnf import ClauseBuilder, Cnf
from robustgraph.limits import CNF_CLAUSES, FILE_BYTES, PROOF_STEPS

__all__ = ["ENCODING", "KIND", "check_split", "degree_sequences", "encode_case", "graphical"]

KIND = "degree-split"
ENCODING = "robustgraph-minimum-degree-cnf-1"
CASE_FIELDS = {"degrees": list, "variables": int, "clauses": int, "steps": int, "pairs": int,
               "pairs_file": str, "pairs_sha256": str, "pairs_bytes": int,
               "lrat_file": str, "lrat_sha256": str, "lrat_bytes": int}
"""The fields of one case of a ``degree-split`` proof."""


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


def degree_sequences(n: int, r: int, most: int) -> Iterator[tuple[int, ...]]:
    """The cover: every graphical non-increasing sequence of n degrees from r to n - 1 whose sum
    is at most ``most``, in descending lexicographic order.

    Examples
    --------
    >>> list(degree_sequences(5, 2, 12))
    [(4, 2, 2, 2, 2), (3, 3, 2, 2, 2), (2, 2, 2, 2, 2)]
    """

    def extend(prefix: list[int], left: int) -> Iterator[tuple[int, ...]]:
        if len(prefix) == n:
            if graphical(prefix):
                yield tuple(prefix)
            return
        rest = n - len(prefix) - 1
        top = prefix[-1] if prefix else n - 1
        for d in range(min(top, left - r * rest), r - 1, -1):
            yield from extend([*prefix, d], left - d)

    return extend([], most)


def encode_case(n: int, degrees: Sequence[int], pairs: Sequence[mp.PairClause]) -> Cnf:
    """The CNF of one case (module notes): exact degrees, sb*_l within equal degrees, the pair
    clauses (not checked here).

    Examples
    --------
    >>> cnf = encode_case(4, [2, 2, 2, 2], [mp.PairClause((0, 1), (2, 3), (2, 3, 4, 5))])
    >>> cnf.clauses[-1], cnf.variables > 6
    ((2, 3, 4, 5), True)
    """
    b = ClauseBuilder(n * (n - 1) // 2)
    for i in range(n):
        lits = [mp.edge_variable(n, i, j) for j in range(n) if j != i]
        b.at_most(lits, degrees[i])
        if degrees[i] < n - 1:
            b.at_most([-x for x in lits], n - 1 - degrees[i])
        else:  # every edge present, as two clauses each: no unit clause (module notes)
            y = b.fresh()
            for x in lits:
                b.add(x, y)
                b.add(x, -y)
    for i in range(n):
        for j in range(i + 1, n):
            if degrees[i] == degrees[j]:
                rest = [k for k in range(n) if k not in (i, j)]
                mp.lex_at_most(b, [mp.edge_variable(n, i, k) for k in rest],
                               [mp.edge_variable(n, j, k) for k in rest])
    for pair in pairs:
        b.add(*pair.literals)
    return Cnf(b.top, tuple(b.clauses))


def _cover_problem(n: int, r: int, bound: int, cases: list[dict[str, Any]]) -> str | None:
    """Why the cases' degree sequences are not the cover, in its order, or None."""
    cover = degree_sequences(n, r, 2 * (bound - 1))
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


def check_split(n: int, r: int, s: int, bound: int, proof: dict[str, Any],
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
        A case missing, added, out of order or altered, a pair clause the definition does not
        give, a refutation that does not check.

    Notes
    -----
    The cover costs O(cases n^2); each case as an ``lrat`` proof (:mod:`.minimality`).
    """
    if proof["encoding"] != ENCODING:
        raise mp.MinimalityError(f"unknown encoding {proof['encoding']!r}; expected {ENCODING}")
    if n > mp.MAX_N or r < 2 or bound < 2:
        raise mp.MinimalityError(f"a degree-split proof covers r >= 2, L >= 2 and n <= "
                                 f"{mp.MAX_N}")
    cases = proof["cases"]
    PROOF_STEPS.check(len(cases), "the cases the degree-split proof records")
    for k, case in enumerate(cases, 1):
        problem = mp.shape(case, CASE_FIELDS)
        if problem is None and not all(type(d) is int for d in case["degrees"]):
            problem = "field 'degrees' not a list of integers"
        if problem:
            raise mp.MinimalityError(f"case {k}: {problem}")
        for key in ("pairs", "lrat"):
            FILE_BYTES.check(case[f"{key}_bytes"], f"the bytes {case[f'{key}_file']} records")
    problem = _cover_problem(n, r, bound, cases)
    if problem:
        raise mp.MinimalityError(problem)
    if sum(case["steps"] for case in cases) != proof["steps"] \
            or sum(case["pairs"] for case in cases) != proof["pairs"]:
        raise mp.MinimalityError("the cases' steps or pair clauses do not add up to those "
                                 "recorded")
    PROOF_STEPS.check(proof["pairs"], "the pair clauses the proof records")
    for k, case in enumerate(cases, 1):
        pairs = mp.parse_pairs(mp.proof_file(case, "pairs", read), case["pairs_file"])
        if len(pairs) != case["pairs"]:
            raise mp.MinimalityError(f"case {k}: {len(pairs)} pair clauses, not the "
                                     f"{case['pairs']} recorded")
        for i, pair in enumerate(pairs, 1):
            problem = mp.pair_clause_problem(n, r, pair, s)
            if problem:
                raise mp.MinimalityError(f"case {k}: pair clause {i} is not given by the "
                                         f"definition: {problem}")
        cnf = encode_case(n, case["degrees"], pairs)
        CNF_CLAUSES.check(len(cnf.clauses), f"the clauses of case {k}'s CNF")
        if (cnf.variables, len(cnf.clauses)) != (case["variables"], case["clauses"]):
            raise mp.MinimalityError(
                f"case {k} is for a CNF of {case['variables']} variables and {case['clauses']} "
                f"clauses; the one regenerated has {cnf.variables} and {len(cnf.clauses)}")
        mp.refutation_steps(cnf.clauses, mp.proof_file(case, "lrat", read), case["lrat_file"],
                            case["steps"])
    text = (f"LRAT refutations of all {len(cases)} degree-sequence cases checked (the cover "
            f"re-enumerated), {proof['steps']:,} steps, over {proof['pairs']:,} pair clauses "
            "each re-derived from the definition")
    return proof["steps"] + proof["pairs"], text
