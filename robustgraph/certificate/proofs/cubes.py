"""Cube-and-conquer: refute the robustness CNF in independent parts, combined into one LRAT proof.

The refutation of "a violating pair exists" (:mod:`.cnf`) is split on the k nodes of highest
in-degree: for each such node v the cube decides ``x_v`` and ``y_v`` as ``(x_v, -y_v)``,
``(-x_v, y_v)`` or ``(-x_v, -y_v)`` (both true is refuted by clause 1, ``-x_v -y_v``), so there
are 3^k cubes, the leaves of a decision tree (Heule, Kullmann, Wieringa, Biere, "Cube and
conquer: guiding CDCL SAT solvers by lookaheads", HVC 2011, for the scheme; here the split is
a fixed rule, not a lookahead).

Conquer (:func:`solve_leaf`, one independent task per cube, on a process pool or on Ray through
:mod:`robustgraph.executors`): unit-propagate the cube on the CNF ourselves, drop the satisfied
clauses and the false literals, and hand the rest to CaDiCaL (:mod:`.sat`). The reduced CNF has
no unit and no empty clause, so CaDiCaL numbers its clauses 1..C' as given (the pitfall named
in :mod:`.cnf`). Each lemma ``L`` of the cube's LRAT proof becomes ``L or not cube``, its hints
the original clauses behind the reduced ones, preceded by the reasons of the propagated units
they rely on (in trail order; a cube literal needs none: under ``not (L or not cube)`` it is
already true). The cube's empty clause so becomes the clause ``not cube``. A cube that
propagation alone refutes gives that clause in one step; a satisfiable cube gives a model,
which decodes to a pair (S1, S2) that violates the robustness (checked by the caller).

Combine (:func:`combine`): the cubes' proofs, each numbered in its own id range (so that they
only need concatenating; the deletions of original clauses dropped: other cubes use them), then
for each inner node of the tree, with P its path: ``not P or x_v`` from the children
``(-x_v, y_v)`` and ``(-x_v, -y_v)``, and ``not P`` from that, clause 1 of v and the child
``(x_v, -y_v)``; at the root, the empty clause. The result is a plain LRAT refutation of the
original CNF, which the existing verifier (:mod:`.checker`) checks unchanged.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from robustgraph.certificate.proofs import sat
from robustgraph.certificate.proofs.cnf import Cnf, encode, size
from robustgraph.errors import ParameterError
from robustgraph.limits import PROOF_STEPS
from solvers.extras import missing
from solvers.witness import refutes_r, refutes_rs

if TYPE_CHECKING:
    from robustgraph.executors import Executor

__all__ = [
    "STRIDE",
    "Split",
    "Leaf",
    "Conquered",
    "split_nodes",
    "cubes",
    "solve_leaf",
    "combine",
    "refute",
]


STRIDE = PROOF_STEPS.default
"""Ids per cube: cube i numbers its clauses from ``C + i * STRIDE + 1`` (C the CNF's clause
count), so that every cube's proof is final where it is made and the combine step only
concatenates; a cube with this many lemmas is over the verifier's step budget anyway."""


def _base(total: int, index: int) -> int:
    return total + index * STRIDE


@dataclass(frozen=True)
class Split:
    """How to split one refutation: ``k`` nodes (3^k cubes), run on ``executor`` (None: here,
    one cube after another); ``progress`` draws the executor's bar on stderr."""

    k: int
    executor: Executor | None = field(default=None, compare=False)
    progress: bool = True


@dataclass(frozen=True)
class Leaf:
    """One cube's answer.

    ``status``: False refuted, True satisfiable, None stopped at the time limit. When refuted,
    ``text`` is its LRAT proof of ``not cube`` over the original clause ids, its own clauses
    numbered from ``C + index * STRIDE + 1`` (C the original clause count, index the cube's
    place; :data:`STRIDE`), the last one ``not cube``; when satisfiable, ``pair``
    is (S1, S2) in canonical node order. ``seconds``: the wall time of the whole task.
    """

    cube: tuple[int, ...]
    status: bool | None
    text: bytes = b""
    lemmas: int = 0
    pair: tuple[frozenset[int], frozenset[int]] | None = None
    seconds: float = 0.0


@dataclass(frozen=True)
class Conquered:
    """The outcome of :func:`refute`: ``status`` as in :class:`Leaf`; the combined refutation
    ``text`` when False; a violating ``pair`` (canonical order) when True; every cube's
    :class:`Leaf`; and the seconds the combine step took."""

    status: bool | None
    text: bytes | None
    pair: tuple[frozenset[int], frozenset[int]] | None
    leaves: tuple[Leaf, ...]
    combine_seconds: float


def split_nodes(in_neighbors: Sequence[frozenset[int]], k: int) -> list[int]:
    """The ``k`` nodes of highest in-degree (ties: the lower index first), in that order.

    Raises
    ------
    ParameterError
        When k < 0 or k > n.

    Examples
    --------
    >>> split_nodes([frozenset({1}), frozenset({0, 2}), frozenset({1})], 2)
    [1, 0]
    """
    n = len(in_neighbors)
    if not 0 <= k <= n:
        raise ParameterError(f"a split needs 0 <= k <= n = {n} nodes to split on, got k = {k}")
    return sorted(range(n), key=lambda i: (-len(in_neighbors[i]), i))[:k]


def _options(v: int, n: int) -> tuple[tuple[int, int], ...]:
    x, y = v + 1, n + v + 1
    return (x, -y), (-x, y), (-x, -y)


def cubes(in_neighbors: Sequence[frozenset[int]], k: int) -> list[tuple[int, ...]]:
    """The 3^k cubes of the split on :func:`split_nodes`, in the decision tree's leaf order.

    Examples
    --------
    >>> cubes([frozenset({1}), frozenset({0})], 1)
    [(1, -3), (-1, 3), (-1, -3)]
    """
    n = len(in_neighbors)
    per_node = [_options(v, n) for v in split_nodes(in_neighbors, k)]
    return [sum(choice, ()) for choice in itertools.product(*per_node)]


class _Propagation:
    """Unit propagation of a cube on a CNF, remembering each derived literal's reason clause."""

    def __init__(self, clauses: Sequence[tuple[int, ...]], cube: Sequence[int]) -> None:
        self.clauses = clauses
        self.position: dict[int, int] = {}  # true literal -> its place on the trail
        self.reason: dict[int, int] = {}  # derived literal -> id of the clause that forced it
        self.conflict: int | None = None
        watch: dict[int, list[int]] = {}
        for cid, clause in enumerate(clauses, 1):
            for lit in clause:
                watch.setdefault(-lit, []).append(cid)
        queue = []
        for lit in cube:
            if -lit in self.position:
                raise ParameterError(f"the cube {tuple(cube)} contradicts itself")
            if lit not in self.position:
                self.position[lit] = len(self.position)
                queue.append(lit)
        while queue and self.conflict is None:
            for cid in watch.get(queue.pop(), ()):
                self._visit(cid, queue)
                if self.conflict is not None:
                    break

    def _visit(self, cid: int, queue: list[int]) -> None:
        open_lit = None
        for lit in self.clauses[cid - 1]:
            if lit in self.position:
                return  # satisfied
            if -lit not in self.position:
                if open_lit is not None:
                    return  # two open literals
                open_lit = lit
        if open_lit is None:
            self.conflict = cid
            return
        self.position[open_lit] = len(self.position)
        self.reason[open_lit] = cid
        queue.append(open_lit)

    def reasons(self, cids: Sequence[int], memo: dict[int, frozenset[int]]) -> list[int]:
        """The reason clauses (trail order) that make the false literals of ``cids`` false."""
        needed: set[int] = set()
        for cid in cids:
            for lit in self.clauses[cid - 1]:
                if -lit in self.reason:
                    needed |= self._closure(-lit, memo)
        return [self.reason[lit] for lit in sorted(needed, key=self.position.__getitem__)]

    def _closure(self, lit: int, memo: dict[int, frozenset[int]]) -> frozenset[int]:
        stack, seen = [lit], {lit}
        while stack:  # iterative: propagation chains run as long as a counter
            top = stack.pop()
            for o in self.clauses[self.reason[top] - 1]:
                if -o in self.reason and -o not in memo and -o not in seen:
                    seen.add(-o)
                    stack.append(-o)
        for top in sorted(seen, key=self.position.__getitem__):  # reasons come first
            parts = [memo[-o] for o in self.clauses[self.reason[top] - 1] if -o in self.reason]
            memo[top] = frozenset({top}).union(*parts)
        return memo[lit]


def _translate(
    text: bytes, reduced: _Reduced, prop: _Propagation, negated_cube: list[int], base: int
) -> tuple[bytes, int]:
    """The cube's LRAT proof over the reduced CNF as lines over the original one (module notes),
    its lemmas numbered ``base + 1, ...``, up to its empty clause; and the lemma count.

    Works on the proof's byte tokens (ids are looked up, not parsed): still about half as long
    as CaDiCaL's own run (ER(40, 1/2), r = 11, one cube), in every cube's task."""
    ids = {str(i).encode(): str(o).encode() for i, o in enumerate(reduced.origin, 1)}
    shrunk = {str(i).encode(): o for i, o in enumerate(reduced.origin, 1) if o in reduced.shrunk}
    tail = [str(lit).encode() for lit in negated_cube]
    lemmas: set[bytes] = set()  # CaDiCaL's ids of its active lemmas
    memo: dict[int, frozenset[int]] = {}
    out: list[bytes] = []
    count = 0
    for raw in text.splitlines():
        tokens = raw.split()
        if len(tokens) < 2 or tokens[0] == b"c":
            continue
        if tokens[1] == b"d":  # deletions of original clauses are dropped: other cubes use them
            gone = [ids[t] for t in tokens[2:-1] if t in lemmas]
            lemmas.difference_update(tokens[2:-1])
            if gone:
                out.append(b" ".join([str(base + count).encode(), b"d", *gone, b"0"]))
            continue
        end = tokens.index(b"0", 1)
        hints = tokens[end + 1 : -1]
        needs = [shrunk[h] for h in hints if h in shrunk]
        chain = [str(c).encode() for c in prop.reasons(needs, memo)] if needs else []
        count += 1
        ids[tokens[0]] = new_id = str(base + count).encode()
        lemmas.add(tokens[0])
        out.append(
            b" ".join([new_id, *tokens[1:end], *tail, b"0", *chain, *map(ids.get, hints), b"0"])
        )
        if end == 1:  # the empty clause: the cube is refuted
            break
    return b"\n".join(out) + b"\n", count


@dataclass(frozen=True)
class _Reduced:
    """The CNF left under a cube, each clause's original id, and the original ids of the clauses
    that lost literals (their hints need the reasons of those literals)."""

    cnf: Cnf
    origin: list[int]
    shrunk: frozenset[int]


def _reduce(clauses: Sequence[tuple[int, ...]], prop: _Propagation) -> _Reduced:
    """The clauses not satisfied by the trail, without their false literals. After full
    propagation none is a unit or empty."""
    kept, origin, shrunk = [], [], set()
    true = prop.position
    for cid, clause in enumerate(clauses, 1):
        if any(lit in true for lit in clause):
            continue
        left = tuple(lit for lit in clause if -lit not in true)
        if len(left) < len(clause):
            shrunk.add(cid)
        kept.append(left)
        origin.append(cid)
    variables = max((abs(lit) for clause in kept for lit in clause), default=0)
    return _Reduced(Cnf(variables, tuple(kept)), origin, frozenset(shrunk))


def _pair(n: int, true: set[int], model: Sequence[int]) -> tuple[frozenset[int], frozenset[int]]:
    assigned = {abs(lit) for lit in true}  # the solver may give these any value: it never saw them
    true = true | {lit for lit in model if lit > 0 and lit not in assigned}
    return (
        frozenset(i for i in range(n) if i + 1 in true),
        frozenset(i for i in range(n) if n + i + 1 in true),
    )


def solve_leaf(
    in_neighbors: Sequence[frozenset[int]],
    r: int,
    s: int,
    cube: tuple[int, ...],
    deadline: float | None = None,
    index: int = 0,
) -> Leaf:
    """Refute (or satisfy) the CNF of (r, s)-robustness under ``cube``: one independent task.

    Parameters
    ----------
    in_neighbors : sequence of frozenset of int
        In canonical order (:func:`.cnf.canonical_in_neighbors`).
    r, s : int
        The robustness (the CNF of :func:`.cnf.encode`).
    cube : tuple of int
        Literals over the x, y variables (:func:`cubes`).
    deadline : float, optional
        ``time.time()`` after which the solver stops (wall clock: a task may start late, on
        another machine).
    index : int
        The cube's place in :func:`cubes`: its clauses are numbered from
        ``C + index * STRIDE + 1``.

    Returns
    -------
    Leaf

    Notes
    -----
    The CNF is encoded here, not shipped: a task's arguments stay small for Ray.
    """
    start = time.perf_counter()
    cnf = encode(in_neighbors, r, s)
    n, base = len(in_neighbors), _base(len(cnf.clauses), index)
    negated = [-lit for lit in cube]
    prop = _Propagation(cnf.clauses, cube)
    if prop.conflict is not None:  # refuted by propagation alone: one RUP step
        hints = [*prop.reasons([prop.conflict], {}), prop.conflict]
        line = " ".join(map(str, [base + 1, *negated, 0, *hints, 0]))
        return Leaf(cube, False, line.encode() + b"\n", 1, seconds=time.perf_counter() - start)
    reduced = _reduce(cnf.clauses, prop)
    left = None if deadline is None else max(0.0, deadline - time.time())
    if left == 0.0:
        return Leaf(cube, None, seconds=time.perf_counter() - start)
    status, text, model = sat.solve(reduced.cnf, left)
    if status is True:
        pair = _pair(n, set(prop.position), model or [])
        return Leaf(cube, True, pair=pair, seconds=time.perf_counter() - start)
    if status is None or text is None:
        return Leaf(cube, None, seconds=time.perf_counter() - start)
    body, lemmas = _translate(text, reduced, prop, negated, base)
    return Leaf(cube, False, body, lemmas, seconds=time.perf_counter() - start)


def combine(
    in_neighbors: Sequence[frozenset[int]], k: int, leaves: Sequence[Leaf], total: int
) -> bytes:
    """One LRAT refutation of the original CNF (``total`` clauses) from the refuted cubes of the
    split on ``k`` nodes, in :func:`cubes` order (module notes).

    Parameters
    ----------
    in_neighbors : sequence of frozenset of int
        In canonical order, as given to :func:`solve_leaf`.
    k : int
        The nodes split on.
    leaves : sequence of Leaf
        One per cube, each made by :func:`solve_leaf` with its index.
    total : int
        The clauses of the original CNF.

    Returns
    -------
    bytes
        The leaves' proofs in order, then two steps per inner node of the decision tree (the
        last one the empty clause). Not checked here.

    Raises
    ------
    ParameterError
        When a leaf is not refuted, or the leaves are not the split's cubes.

    Notes
    -----
    O(size of the leaves' proofs + 3^k k).
    """
    n = len(in_neighbors)
    if [leaf.cube for leaf in leaves] != cubes(in_neighbors, k):
        raise ParameterError("the leaves are not the cubes of this split, in order")
    if any(leaf.status is not False for leaf in leaves):
        raise ParameterError("only refuted cubes combine into a refutation")
    if any(leaf.lemmas >= STRIDE for leaf in leaves):
        raise ParameterError(f"a cube's proof has {STRIDE:,} lemmas or more: over the budget")
    ends = [_base(total, i) + leaf.lemmas for i, leaf in enumerate(leaves)]  # "not cube" ids
    last = _base(total, len(leaves))
    steps: list[str] = []
    leaf_ids = iter(ends)
    chosen = split_nodes(in_neighbors, k)

    def derive(depth: int, path: list[int]) -> int:
        """The id of the clause ``not path``, derived from the subtree under ``path``."""
        nonlocal last
        if depth == k:
            return next(leaf_ids)
        v = chosen[depth]
        (x, neg_y), (_, y), _ = _options(v, n)
        a = derive(depth + 1, [*path, x, neg_y])
        b = derive(depth + 1, [*path, -x, y])
        c = derive(depth + 1, [*path, -x, neg_y])
        negated = [-lit for lit in path]
        last += 1
        steps.append(" ".join(map(str, [last, *negated, x, 0, b, c, 0])))
        last += 1
        steps.append(" ".join(map(str, [last, *negated, 0, last - 1, v + 1, a, 0])))
        return last

    derive(0, [])
    return b"".join([leaf.text for leaf in leaves] + [f"{step}\n".encode() for step in steps])


def refute(
    in_neighbors: Sequence[frozenset[int]],
    r: int,
    s: int,
    split: Split,
    time_limit: float | None = None,
) -> Conquered:
    """Decide the CNF of (r, s)-robustness by cube and conquer (module notes).

    Parameters
    ----------
    in_neighbors : sequence of frozenset of int
        In canonical order (:func:`.cnf.canonical_in_neighbors`).
    r, s : int
        At least 1 each.
    split : Split
        The cube count and where the cubes run.
    time_limit : float, optional
        Seconds for the whole refutation (every cube stops at the same wall-clock deadline).

    Returns
    -------
    Conquered
        False with one LRAT refutation of the original CNF (not yet checked: the caller checks
        it, e.g. :func:`.lrat.check_refutation`); True with the first satisfiable cube's pair
        (checked here with ``solvers.witness``); None when a cube ran out of time.

    Raises
    ------
    ParameterError
        When ``split.k`` is not between 0 and n.
    BackendError
        When a cube's task failed (its one-line error).
    MissingExtra
        Without python-sat.

    Examples
    --------
    >>> triangle = [frozenset({1, 2}), frozenset({0, 2}), frozenset({0, 1})]
    >>> refute(triangle, 2, 1, Split(1)).status
    False
    """
    from robustgraph.errors import BackendError
    from robustgraph.executors import Task, run_task

    if not sat.available():
        raise missing("pysat", "cube-and-conquer LRAT proofs")
    chosen = cubes(in_neighbors, split.k)
    deadline = None if time_limit is None else time.time() + time_limit
    nbrs = tuple(frozenset(nb) for nb in in_neighbors)
    tasks = [
        Task(f"cube {i + 1}", solve_leaf, (nbrs, r, s, cube, deadline, i))
        for i, cube in enumerate(chosen)
    ]
    if split.executor is None:
        outcomes = [run_task(task) for task in tasks]
    else:
        outcomes = split.executor.run(tasks, label="cubes", progress=split.progress)
    failed = next((o for o in outcomes if not o.ok), None)
    if failed is not None:
        raise BackendError(f"{failed.key} failed: {failed.error}")
    leaves = tuple(o.value for o in outcomes)
    for leaf in leaves:
        if leaf.status is True:
            s1, s2 = leaf.pair
            holds = refutes_r(nbrs, s1, s2, r) if s == 1 else refutes_rs(nbrs, s1, s2, r, s)
            if not holds:
                raise BackendError(f"the model of cube {leaf.cube} is not a violating pair")
            return Conquered(True, None, leaf.pair, leaves, 0.0)
    if any(leaf.status is None for leaf in leaves):
        return Conquered(None, None, None, leaves, 0.0)
    start = time.perf_counter()
    total = size([len(nb) for nb in nbrs], r, s)[1]
    text = combine(nbrs, split.k, leaves, total)
    return Conquered(False, text, None, leaves, time.perf_counter() - start)
