"""Cube and conquer for the refutation of a minimality CNF: one LRAT proof from 2^k parts.

The CNF of :func:`robustgraph.certificate.proofs.minimality.encode` (C clauses) is split on k of
its edge variables into the 2^k cubes of a full binary decision tree (Heule, Kullmann, Wieringa
& Biere, "Cube and conquer", HVC 2011). Each cube runs as an independent task, with the conquer
step of :mod:`robustgraph.certificate.proofs.cubes` (its public function
:func:`~robustgraph.certificate.proofs.cubes.conquer`): the cube is unit-propagated on the CNF,
the clauses left (none a unit: CaDiCaL renumbers an original unit's consequences, so appending
the cube as unit clauses breaks the numbering) go to CaDiCaL with LRAT logging, and its proof,
trimmed to what its empty clause uses, becomes a proof of the clause ``not cube`` over the
original CNF: each kept lemma ``L`` becomes ``L or not cube``, its hints the original clauses
behind the reduced ones, after the reasons of the propagated literals it relies on. Cube i
numbers its lemmas from ``C + i * STRIDE + 1``, so a worker's proof is final where it is made.

The combine step adds, for each inner node of the tree with path P and variable x, the clause
``not P`` by one RUP step from its children ``not P or not x`` and ``not P or x``; at the root,
the empty clause. The result is a plain LRAT refutation of the original CNF, checked by
:func:`robustgraph.certificate.proofs.minimality.check_minimum` like any other (nothing about the
split is trusted: a cube that a worker got wrong makes the combined proof fail to check).

Split variables (:func:`split_variables`): the edge variables that occur in the most pair
clauses, each of which is some edge a counterexample lacked.
"""

from __future__ import annotations

import functools
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from robustgraph.certificate.proofs import minimality as mp
from robustgraph.certificate.proofs.cnf import Cnf
from robustgraph.certificate.proofs.cubes import STRIDE, conquer

__all__ = ["STRIDE", "CubeProof", "combine", "cube_proof", "cubes", "refute", "split_variables"]

@dataclass(frozen=True)
class CubeProof:
    """One cube's answer: ``text`` its LRAT proof of ``not cube`` (lemmas numbered from
    ``C + index * STRIDE + 1``, the last one ``not cube``), ``lemmas`` their count; ``text``
    is None when the solver stopped at the deadline (or, impossible for an unsatisfiable CNF,
    found a model). ``cpu_seconds``: the worker's CPU time on it."""

    cube: tuple[int, ...]
    text: bytes | None
    lemmas: int
    cpu_seconds: float


def split_variables(pairs: Sequence[mp.PairClause], k: int) -> list[int]:
    """The ``k`` edge variables in the most pair clauses (ties: the lower variable first).

    Examples
    --------
    >>> pairs = [mp.PairClause((0,), (1,), (2, 3)), mp.PairClause((0,), (2,), (3, 5))]
    >>> split_variables(pairs, 2)
    [3, 2]
    """
    count = Counter(lit for pair in pairs for lit in pair.literals)
    return sorted(count, key=lambda v: (-count[v], v))[:k]


def cubes(variables: Sequence[int]) -> list[tuple[int, ...]]:
    """The leaves of the full binary tree on ``variables`` (first variable at the root, its
    true branch first), each as the literals of its path.

    Examples
    --------
    >>> cubes([4, 7])
    [(4, 7), (4, -7), (-4, 7), (-4, -7)]
    """
    paths: list[tuple[int, ...]] = [()]
    for v in variables:
        paths = [(*p, lit) for p in paths for lit in (v, -v)]
    return paths


@functools.lru_cache(maxsize=1)
def _problem(n: int, r: int, bound: int, pair_data: bytes) -> Cnf:
    """The CNF, made once per worker process for all its cubes (and so indexed once by
    :func:`robustgraph.certificate.proofs.cubes.conquer`)."""
    return mp.encode(n, r, bound, mp.parse_pairs(pair_data, "pair clauses"))


def cube_proof(n: int, r: int, bound: int, pair_data: bytes, cube: tuple[int, ...],
               index: int, deadline: float | None) -> CubeProof:
    """Refute the minimality CNF under ``cube``: one independent task (module notes).

    Parameters
    ----------
    n, r, bound : int
        The CNF of :func:`robustgraph.certificate.proofs.minimality.encode` ...
    pair_data : bytes
        ... over these pair clauses (:func:`robustgraph.certificate.proofs.minimality.write_pairs`).
    cube : tuple of int
        Edge-variable literals.
    index : int
        The cube's place: its lemmas are numbered from ``C + index * STRIDE + 1``.
    deadline : float, optional
        ``time.time()`` at which the solver stops.
    """
    cpu = time.process_time()
    cnf = _problem(n, r, bound, pair_data)
    left = None if deadline is None else max(0.01, deadline - time.time())
    got = conquer(cnf, cube, len(cnf.clauses) + index * STRIDE, left)
    if got.status is not False:
        return CubeProof(cube, None, 0, time.process_time() - cpu)
    return CubeProof(cube, got.text, got.lemmas, time.process_time() - cpu)


def combine(variables: Sequence[int], proofs: Sequence[CubeProof], total: int) -> bytes:
    """One LRAT refutation of the CNF (``total`` clauses) from the proofs of every cube of
    ``cubes(variables)``, in that order: their lines, then one step per inner node of the tree
    (the last the empty clause). Not checked here.

    Examples
    --------
    >>> # CNF (1 2) (1 -2) (-1 2) (-1 -2); cube (1,) refuted by "not 1", cube (-1,) by "1"
    >>> one = STRIDE + 5
    >>> parts = [CubeProof((1,), b"5 -1 0 3 4 0\\n", 1, 0.0),
    ...          CubeProof((-1,), f"{one} 1 0 1 2 0\\n".encode(), 1, 0.0)]
    >>> combine([1], parts, 4).splitlines()[-1] == f"{2 * STRIDE + 5} 0 5 {one} 0".encode()
    True
    """
    leaves = cubes(variables)
    if [p.cube for p in proofs] != leaves or any(p.text is None for p in proofs):
        raise ValueError("every cube of the split must be refuted, in order")
    ends = iter(total + i * STRIDE + p.lemmas for i, p in enumerate(proofs))
    last = total + len(proofs) * STRIDE
    steps: list[str] = []

    def derive(depth: int, path: tuple[int, ...]) -> int:
        nonlocal last
        if depth == len(variables):
            return next(ends)
        v = variables[depth]
        positive = derive(depth + 1, (*path, v))  # not P or not v
        negative = derive(depth + 1, (*path, -v))  # not P or v
        last += 1
        steps.append(" ".join(map(str, [last, *(-lit for lit in path), 0, positive, negative,
                                        0])))
        return last

    derive(0, ())
    return b"".join([p.text or b"" for p in proofs] + [f"{s}\n".encode() for s in steps])


def refute(n: int, r: int, bound: int, pairs: Sequence[mp.PairClause], k: int,
           deadline: float, workers: int = 2) -> tuple[bytes, list[CubeProof]] | None:
    """Refute the minimality CNF by 2^k cubes on ``workers`` processes: the combined LRAT
    proof (not yet checked) and the cubes' proofs, or None when a cube ran out of time.

    ``deadline`` is ``time.monotonic()``'s; every cube stops at it.
    """
    from robustgraph.executors import LocalExecutor, Task

    variables = split_variables(pairs, k)
    pair_data = mp.write_pairs(pairs)
    wall = time.time() + (deadline - time.monotonic())
    tasks = [Task(f"cube {i + 1}", cube_proof, (n, r, bound, pair_data, cube, i, wall))
             for i, cube in enumerate(cubes(variables))]
    with LocalExecutor(workers) as executor:
        outcomes = executor.run(tasks, label="cubes", progress=False)
    if any(not o.ok or o.value.text is None for o in outcomes):
        return None
    proofs = [o.value for o in outcomes]
    total = len(mp.encode(n, r, bound, pairs).clauses)
    return combine(variables, proofs, total), proofs
