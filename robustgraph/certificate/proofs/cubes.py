"""Cube-and-conquer: refute the robustness CNF in independent parts, combined into one LRAT proof.

One module: the split, the conquer of each cube and the combine share one proof numbering (each
cube's id range and the tree's inner lemmas), which splitting would pass between modules.

The refutation of "a violating pair exists" (:mod:`.cnf`) is split by a decision tree
(:class:`Tree`) whose every split decides one node v three ways, ``(x_v, -y_v)``,
``(-x_v, y_v)`` or ``(-x_v, -y_v)`` (both true is refuted by clause 1, ``-x_v -y_v``); the
cubes are the paths to its leaves (Heule, Kullmann, Wieringa, Biere, "Cube and conquer: guiding
CDCL SAT solvers by lookaheads", HVC 2011). Two trees: :func:`fixed_tree` splits every path on
the same k nodes of highest in-degree (3^k cubes, :func:`cubes`); :func:`lookahead` grows the
tree one split at a time, splitting the open cube with the fewest members of S1 or S2 after unit
propagation (:func:`_trail`) on the node whose three branches propagate most (the product rule
of march, in Heule et al.), until it has the cubes asked for; cubes that propagation refutes
cost one step.

Conquer (:func:`solve_leaf`, one independent task per cube, on a process pool or on Ray through
:mod:`robustgraph.executors`, hardest cube first): unit-propagate the cube on the CNF ourselves
(the CNF and its occurrence lists made once per worker process), drop the satisfied clauses and
the false literals, and hand the rest to CaDiCaL (:mod:`.sat`). The reduced CNF has no unit and
no empty clause, so CaDiCaL numbers its clauses 1..C' as given (the pitfall named in
:mod:`.cnf`). Its proof is trimmed to the lemmas its empty clause depends on (a backward pass
over the hints), and each kept lemma ``L`` becomes ``L or not cube``, its hints the original
clauses behind the reduced ones. A reduced clause whose lost literals the cube itself makes
false hints as its original (under ``not (L or not cube)`` the cube literals are true). One that
lost a literal made false by a propagated literal ``l`` is written once, where first needed, as
``reduced or not cube`` from its original and the unit lemmas ``l or not cube``; each of those
is written once too, from its reason clause and the unit lemmas that reason rests on, in trail
order. (Before 2026-12-03 each lemma repeated the reason chain of every propagated literal its
hints rested on; on ER(40, 1/2) at r = 11 all hints to original clauses were 12% of the proof's
bytes, the hints to the cubes' own lemmas, 8-digit ids, 66%: :func:`renumber`;
docs/performance.md.) Each lemma is deleted after its last use (batched, :data:`DELETE_BATCH`),
so the checker holds one cube's live lemmas at a time. The cube's empty clause so becomes the
clause ``not cube``, the only one of its clauses left. A cube that propagation alone refutes
gives that clause in one step; a satisfiable cube gives a model, which decodes to a pair
(S1, S2) that violates the robustness (checked by the caller).

Combine (:func:`combine`): the cubes' proofs one after another, renumbered so that their ids
follow on from the CNF's (:func:`renumber`, each cube as soon as the cubes before it are done;
the solver's deletions of original clauses were dropped: other cubes use them), then for each
inner node of the tree, with P its path: ``not P or x_v`` from the children ``(-x_v, y_v)`` and
``(-x_v, -y_v)``, and ``not P`` from that, clause 1 of v and the child ``(x_v, -y_v)``; at the
root, the empty clause. The result is a plain LRAT refutation of the original CNF, which the
existing verifier (:mod:`.checker`) checks unchanged.

Incremental workers (``Split(incremental=True)``, :func:`solve_shared`): instead of one task per
cube, one task per worker, each with one CaDiCaL instance over the whole CNF that takes cube
after cube from a shared queue and solves it as assumptions, keeping its learned clauses. Its
log is an LRAT derivation over the CNF's own ids (no cube on its lemmas); the clause ``not
cube`` is added by a RUP step found by propagating the cube over the CNF and the worker's
lemmas (:func:`_not_cube`); the log is trimmed to what those steps use and renumbered
(:func:`_trim_log`), and the workers' parts and the tree's steps make the refutation. They are
the default of ``certify --cubes K`` (``--cube-workers``; docs/performance.md, "Issue 40, round
5", for the measurements behind that).
"""

from __future__ import annotations

import contextlib
import functools
import heapq
import itertools
import tempfile
import time
from collections.abc import Callable, Container, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from robustgraph.certificate.proofs import sat
from robustgraph.certificate.proofs.cnf import Cnf, encode
from robustgraph.errors import ParameterError
from solvers.extras import missing
from solvers.witness import refutes_r, refutes_rs

if TYPE_CHECKING:
    from robustgraph.executors import Executor, Outcome

__all__ = [
    "MAX_K",
    "WORKER_KINDS",
    "STRIDE",
    "CANDIDATES",
    "DELETE_BATCH",
    "Split",
    "Tree",
    "Leaf",
    "Conquered",
    "split_nodes",
    "cubes",
    "fixed_tree",
    "lookahead",
    "Conquest",
    "conquer",
    "solve_leaf",
    "combine",
    "renumber",
    "refute",
]


STRIDE = 10**7
"""Ids per cube while it is made: cube i numbers its clauses from ``C + i * STRIDE + 1`` (C the
CNF's clause count), so that every cube's proof is final where it is made;
:func:`combine` then renumbers them one after another (:func:`_compact`). A cube with this many
lemmas is over the verifier's step budget anyway."""


MAX_K = 6
"""Largest split asked for: 3^6 = 729 open cubes. Choosing the split costs about 4x per unit of
K (the lookahead on ER(45, 1/2), r = 12: 1.6, 4.2 and 16.6 CPU s for K = 3, 4, 5 on
2026-12-04), so K = 7 would spend minutes before the first cube runs, and 3^K grows past any
pool's task queue soon after."""

WORKER_KINDS = ("incremental", "independent")
"""How the cubes run (``certify --cube-workers``): one solver per worker that keeps what it
learned from cube to cube (``Split(incremental=True)``), or a fresh solve per cube."""


def _base(total: int, index: int) -> int:
    return total + index * STRIDE


@dataclass(frozen=True)
class Split:
    """How to split one refutation: into 3^k cubes, run on ``executor`` (None: here, one cube
    after another); ``progress`` draws the executor's bar on stderr.

    ``lookahead`` (the default): the tree of :func:`lookahead`, grown until it has 3^k cubes
    that propagation does not refute, its hardest cubes run first; otherwise the fixed split
    on the k nodes of highest in-degree (:func:`cubes`).

    ``incremental``: each worker keeps one solver for all the cubes it takes, dealt one at a
    time from a shared queue (:func:`solve_shared`); ``executor`` must then be a
    :class:`~robustgraph.executors.LocalExecutor`, a :class:`~robustgraph.executors.RayExecutor`
    (one worker per CPU of the cluster) or None (one worker here)."""

    k: int
    executor: Executor | None = field(default=None, compare=False)
    progress: bool = True
    lookahead: bool = True
    incremental: bool = False


@dataclass(frozen=True)
class Leaf:
    """One cube's answer.

    ``status``: False refuted, True satisfiable, None stopped at the time limit. When refuted,
    ``text`` is its LRAT proof of ``not cube`` over the original clause ids, its own clauses
    numbered from ``C + index * STRIDE + 1`` (C the original clause count, index the cube's
    place; :data:`STRIDE`), the last one ``not cube``, followed by the deletion of every other
    (``lemmas`` counts the additions), or, once :func:`renumber` ran, from ``first``; when
    satisfiable, ``pair``
    is (S1, S2) in canonical node order. ``seconds``: the wall time of the whole task;
    ``cpu_seconds``: the CPU time of its process in that time (the solver runs in-process), which
    a loaded machine does not inflate.
    """

    cube: tuple[int, ...]
    status: bool | None
    text: bytes = b""
    lemmas: int = 0
    pair: tuple[frozenset[int], frozenset[int]] | None = None
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    first: int = 0


@dataclass(frozen=True)
class Conquered:
    """The outcome of :func:`refute`: ``status`` as in :class:`Leaf`; the combined refutation
    ``text`` when False; a violating ``pair`` (canonical order) when True; every cube's
    :class:`Leaf` (in the order of ``tree``'s cubes); the seconds the combine step took; the
    decision tree; the seconds spent choosing it; and, with incremental workers
    (:func:`solve_shared`), each worker's CPU seconds (its solves and its proof's trimming)."""

    status: bool | None
    text: bytes | None
    pair: tuple[frozenset[int], frozenset[int]] | None
    leaves: tuple[Leaf, ...]
    combine_seconds: float
    tree: Tree | None = None
    split_seconds: float = 0.0
    workers: tuple[float, ...] = ()


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
    return fixed_tree(in_neighbors, k).cubes(len(in_neighbors))


@dataclass(frozen=True)
class Tree:
    """A decision tree over the x, y variables: a leaf (``node`` None), or a split on a node
    into three subtrees, in :func:`_options` order: in S1 (x and not y), in S2 (not x and y),
    in neither. Its cubes are the paths to its leaves, depth first."""

    node: int | None = None
    children: tuple[Tree, ...] = ()

    def cubes(self, n: int, path: tuple[int, ...] = ()) -> list[tuple[int, ...]]:
        """The leaves' cubes, depth first (``n`` the node count).

        Examples
        --------
        >>> Tree(0, (Tree(), Tree(), Tree())).cubes(2)
        [(1, -3), (-1, 3), (-1, -3)]
        """
        if self.node is None:
            return [path]
        out = []
        for option, child in zip(_options(self.node, n), self.children, strict=True):
            out += child.cubes(n, path + option)
        return out


def fixed_tree(in_neighbors: Sequence[frozenset[int]], k: int) -> Tree:
    """The tree whose cubes are :func:`cubes`: every path splits on the same ``k`` nodes."""
    tree = Tree()
    for v in reversed(split_nodes(in_neighbors, k)):
        tree = Tree(v, (tree, tree, tree))
    return tree


def _occurrences(clauses: Sequence[tuple[int, ...]]) -> dict[int, list[int]]:
    """For each literal l, the ids of the clauses that contain ``-l`` (visited when l is set)."""
    watch: dict[int, list[int]] = {}
    for cid, clause in enumerate(clauses, 1):
        for lit in clause:
            watch.setdefault(-lit, []).append(cid)
    return watch


_INDEXED: dict[int, tuple[Cnf, dict[int, list[int]]]] = {}


def _watch(cnf: Cnf) -> dict[int, list[int]]:
    """The occurrence index of ``cnf`` (:func:`_occurrences`), kept for the last two CNFs seen
    (by identity; the CNF is held too, so its id stays its own): a worker process that takes
    many cubes of one CNF indexes it once."""
    got = _INDEXED.get(id(cnf))
    if got is None or got[0] is not cnf:
        while len(_INDEXED) >= 2:
            _INDEXED.pop(next(iter(_INDEXED)))
        got = _INDEXED[id(cnf)] = (cnf, _occurrences(cnf.clauses))
    return got[1]


@dataclass(frozen=True)
class _Problem:
    """A CNF and its occurrence index (:func:`_occurrences`), made once per worker process."""

    cnf: Cnf
    watch: dict[int, list[int]]
    nodes: int


@functools.lru_cache(maxsize=2)
def _problem(in_neighbors: tuple[frozenset[int], ...], r: int, s: int) -> _Problem:
    """The CNF of :func:`.cnf.encode` with its index, cached: a worker that takes many cubes
    of one graph encodes it once."""
    cnf = encode(in_neighbors, r, s)
    return _Problem(cnf, _watch(cnf), len(in_neighbors))


class _Propagation:
    """Unit propagation of a cube on a CNF, remembering each derived literal's reason clause."""

    def __init__(
        self,
        clauses: Sequence[tuple[int, ...]],
        cube: Sequence[int],
        watch: dict[int, list[int]] | None = None,
        units: Sequence[tuple[int, int]] = (),
    ) -> None:
        """Propagate ``cube`` and the unit clauses ``units`` ((literal, clause id) pairs: a
        unit clause is never visited from the occurrence lists, so it is set at the start)."""
        self.clauses = clauses
        self.position: dict[int, int] = {}  # true literal -> its place on the trail
        self.reason: dict[int, int] = {}  # derived literal -> id of the clause that forced it
        self.conflict: int | None = None
        if watch is None:
            watch = _occurrences(clauses)
        queue = []
        for lit in cube:
            if -lit in self.position:
                raise ParameterError(f"the cube {tuple(cube)} contradicts itself")
            if lit not in self.position:
                self.position[lit] = len(self.position)
                queue.append(lit)
        for lit, cid in units:
            if -lit in self.position:
                self.conflict = cid
                return
            if lit not in self.position:
                self.position[lit] = len(self.position)
                self.reason[lit] = cid
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

    def falsified(self, cid: int) -> list[int]:
        """The derived (propagated, not cube) literals that make literals of clause ``cid``
        false."""
        return [-lit for lit in self.clauses[cid - 1] if -lit in self.reason]

    def chain(self, lits: Sequence[int], done: Container[int] = ()) -> list[int]:
        """The derived literals among ``lits`` and those their reason clauses rest on,
        transitively, stopping at (and leaving out) the literals in ``done``; in trail order,
        so that each one comes after the derived literals its reason clause needs.

        Iterative: propagation chains run as long as a counter."""
        stack = [lit for lit in lits if lit in self.reason and lit not in done]
        seen: set[int] = set()
        while stack:
            top = stack.pop()
            if top in seen:
                continue
            seen.add(top)
            stack += [lit for lit in self.falsified(self.reason[top]) if lit not in done]
        return sorted(seen, key=self.position.__getitem__)


CANDIDATES = 8
"""Nodes a lookahead tries at each split: the undecided ones of highest in-degree."""


def _trail(problem: _Problem, cube: Sequence[int]) -> tuple[int, int] | None:
    """Under ``cube``, after unit propagation: the nodes placed in S1 or S2 and the literals
    set (None: propagation finds a conflict). The first is the measure of hardness: every
    member forces most of its in-neighbours to its side, which CDCL search exploits but unit
    propagation of the counters does not show (ER(40, 1/2) at r = 11, split on one node: the
    cube with the node in neither set took 9.1 s, the two with it a member 2.9 and 3.4 s, while
    propagation set twice as many literals under the first)."""
    prop = _Propagation(problem.cnf.clauses, cube, problem.watch)
    if prop.conflict is not None:
        return None
    members = sum(1 for lit in prop.position if 0 < lit <= 2 * problem.nodes)
    return members, len(prop.position)


def _choose(
    problem: _Problem, order: list[int], path: tuple[int, ...], n: int, candidates: int
) -> tuple[int, list[tuple[int, int] | None]] | None:
    """The node to split ``path`` on and its three branches' trails (:func:`_trail`): of the
    first ``candidates`` nodes of ``order`` still open under ``path``, the one whose branches
    propagate most (the product of the literals each adds, a refuted branch counting as all
    variables: Heule et al. 2011's lookahead, with their product rule). None: no node open."""
    prop = _Propagation(problem.cnf.clauses, path, problem.watch)
    base = len(prop.position)
    best: tuple[int, int, list[tuple[int, int] | None]] | None = None
    tried = 0
    for v in order:
        if any(lit in prop.position for lit in (v + 1, -v - 1, n + v + 1, -n - v - 1)):
            continue  # decided under the path
        trails = [_trail(problem, path + option) for option in _options(v, n)]
        score = 1
        for got in trails:
            score *= problem.cnf.variables if got is None else max(1, got[1] - base)
        if best is None or score > best[0]:
            best = (score, v, trails)
        tried += 1
        if tried == candidates:
            break
    return None if best is None else (best[1], best[2])


def lookahead(
    in_neighbors: Sequence[frozenset[int]],
    r: int,
    s: int,
    leaves: int,
    candidates: int = CANDIDATES,
) -> Tree:
    """A decision tree for the CNF of (r, s)-robustness chosen by lookahead (module notes).

    Grown one split at a time: the open cube with the fewest members after unit propagation
    (the hardest, by :func:`_trail`'s measure) is split on the node :func:`_choose` picks, until
    ``leaves`` cubes are open (not refuted by propagation) or none can be split. Cubes that
    propagation refutes stay leaves and cost one step each.

    Parameters
    ----------
    in_neighbors : sequence of frozenset of int
        In canonical order.
    r, s : int
        The robustness.
    leaves : int
        Open cubes to reach (at least 1).
    candidates : int
        Nodes tried per split.

    Returns
    -------
    Tree

    Examples
    --------
    >>> triangle = [frozenset({1, 2}), frozenset({0, 2}), frozenset({0, 1})]
    >>> len(lookahead(triangle, 2, 1, 3).cubes(3)) >= 3
    True
    """
    n = len(in_neighbors)
    problem = _problem(tuple(frozenset(nb) for nb in in_neighbors), r, s)
    order = split_nodes(in_neighbors, n)
    splits: dict[tuple[int, ...], int] = {}
    tie = itertools.count()
    heap: list[tuple[tuple[int, int], int, tuple[int, ...]]] = [((0, 0), next(tie), ())]
    open_cubes = 1
    while heap and open_cubes < leaves:
        _, _, path = heapq.heappop(heap)
        chosen = _choose(problem, order, path, n, candidates)
        if chosen is None:
            continue  # every node decided: this cube stays a leaf
        v, trails = chosen
        splits[path] = v
        open_cubes -= 1
        for option, got in zip(_options(v, n), trails, strict=True):
            if got is not None:
                heapq.heappush(heap, (got, next(tie), path + option))
                open_cubes += 1

    def build(path: tuple[int, ...]) -> Tree:
        v = splits.get(path)
        if v is None:
            return Tree()
        return Tree(v, tuple(build(path + option) for option in _options(v, n)))

    return build(())


def _additions(text: bytes) -> list[bytes]:
    """The addition lines of an LRAT proof, up to its first empty clause (deletions and
    comments dropped)."""
    rows = []
    for raw in text.splitlines():
        head, _, rest = raw.partition(b" ")
        if not rest or head == b"c" or rest.startswith(b"d "):
            continue
        rows.append(raw)
        if rest.startswith(b"0 "):
            return rows
    raise ParameterError("the solver's proof derives no empty clause")


def _trim(rows: list[bytes]) -> list[tuple[list[bytes], int, list[bytes], list[bytes]]]:
    """The additions the last one (the empty clause) depends on, through the hints, in order:
    each as tokens, with the end of its literals, its hints, and the hints it is the last
    kept line to name (those can be deleted after it). The solver logs every lemma it learns;
    a refutation needs a part (about 40% on ER(40, 1/2) at r = 11), and only the lines kept
    are split into tokens."""
    heads = [raw[: raw.index(b" ")] for raw in rows]
    needed = {heads[-1]}
    kept = []
    for head, raw in zip(reversed(heads), reversed(rows), strict=True):
        if head not in needed:
            continue
        tokens = raw.split()
        end = tokens.index(b"0", 1)
        hints = tokens[end + 1 : -1]
        last = [h for h in dict.fromkeys(hints) if h not in needed]  # read backwards: first seen
        needed.update(last)
        kept.append((tokens, end, hints, last))
    kept.reverse()
    return kept


DELETE_BATCH = 4096
"""Lemmas a cube's proof collects before it writes them in one deletion line: one line per
lemma would cost 20 bytes a lemma instead of 8, while the checker still holds only a cube's
live lemmas and a few thousand dead ones."""


class _Writer:
    """One cube's proof lines over the original CNF (module notes): every clause ``C`` it adds
    is written as ``C or not cube``, numbered ``base + 1, ...``; a propagated literal the proof
    needs gets its unit lemma ``l or not cube`` once; lemmas are deleted in batches after
    their last use."""

    def __init__(self, prop: _Propagation, negated_cube: Sequence[int], base: int) -> None:
        self.prop = prop
        self.tail = [str(lit).encode() for lit in negated_cube]
        self.base = base
        self.count = 0
        self.rows: list[bytes] = []
        self.units: dict[int, bytes] = {}  # derived literal -> id of "l or not cube"
        self.dead: list[bytes] = []

    def add(self, lits: Sequence[bytes], hints: Sequence[bytes]) -> bytes:
        """Write ``lits or not cube`` with ``hints``; its id."""
        self.count += 1
        cid = str(self.base + self.count).encode()
        self.rows.append(b" ".join([cid, *lits, *self.tail, b"0", *hints, b"0"]))
        return cid

    def unit_hints(self, cid: int) -> list[bytes]:
        """The ids of the unit lemmas of the derived literals that make literals of original
        clause ``cid`` false, writing those not yet written (and those they rest on) first:
        under ``not (L or not cube)`` each is a unit, so ``cid`` then hints as its reduced
        form."""
        prop = self.prop
        for lit in prop.chain(prop.falsified(cid), self.units):
            reason = prop.reason[lit]
            hints = [self.units[o] for o in prop.falsified(reason)]
            self.units[lit] = self.add([str(lit).encode()], [*hints, str(reason).encode()])
        return [self.units[lit] for lit in prop.falsified(cid)]

    def delete(self, ids: Sequence[bytes], flush: bool = False) -> None:
        """Retire ``ids`` (written once :data:`DELETE_BATCH` collect, or on ``flush``)."""
        self.dead += ids
        if len(self.dead) >= DELETE_BATCH or (flush and self.dead):
            last = str(self.base + self.count).encode()
            self.rows.append(b" ".join([last, b"d", *self.dead, b"0"]))
            self.dead = []


def _translate(text: bytes, reduced: _Reduced, out: _Writer) -> tuple[bytes, int]:
    """The cube's LRAT proof over the reduced CNF, trimmed to what its empty clause needs
    (:func:`_trim`), as lines over the original CNF (module notes), up to its empty clause
    (``not cube``) and the deletion of every other lemma; and the lemma count.

    A reduced clause hints as its original when the literals it lost are false under the
    cube alone; one that lost a propagated literal is first written once as
    ``reduced or not cube`` from the unit lemmas of those literals (:meth:`_Writer.unit_hints`).
    Works on the proof's byte tokens (ids are looked up, not parsed)."""
    ids: dict[bytes, bytes] = {}  # solver id -> original id, for clauses that hint as such
    later: dict[bytes, int] = {}  # solver id -> reduced index, for those written when needed
    for i, origin in enumerate(reduced.origin, 1):
        if origin in reduced.derived:
            later[str(i).encode()] = i
        else:
            ids[str(i).encode()] = str(origin).encode()
    ours: dict[bytes, bytes] = {}  # solver id -> id of a lemma of ours (deleted after use)
    final = b""
    for tokens, end, hints, last in _trim(_additions(text)):
        mapped = []
        for h in hints:
            got = ids.get(h) or ours.get(h)
            if got is None:
                i = later[h]
                lits = [str(lit).encode() for lit in reduced.cnf.clauses[i - 1]]
                origin = reduced.origin[i - 1]
                hinted = [*out.unit_hints(origin), str(origin).encode()]
                got = ours[h] = out.add(lits, hinted)
            mapped.append(got)
        final = ours[tokens[0]] = out.add(tokens[1:end], mapped)
        out.delete([ours.pop(h) for h in last if h in ours])
    rest = [*out.units.values(), *(cid for cid in ours.values() if cid != final)]
    out.delete(rest, flush=True)
    return b"\n".join(out.rows) + b"\n", out.count


@dataclass(frozen=True)
class _Reduced:
    """The CNF left under a cube, each clause's original id, and the original ids of the
    clauses that lost a literal made false by a propagated (not a cube) literal: their reduced
    form needs the reasons of those literals."""

    cnf: Cnf
    origin: list[int]
    derived: frozenset[int]


def _reduce(clauses: Sequence[tuple[int, ...]], prop: _Propagation) -> _Reduced:
    """The clauses not satisfied by the trail, without their false literals. After full
    propagation none is a unit or empty."""
    kept, origin, derived = [], [], set()
    true = prop.position
    for cid, clause in enumerate(clauses, 1):
        if any(lit in true for lit in clause):
            continue
        left = tuple(lit for lit in clause if -lit not in true)
        if any(-lit in prop.reason for lit in clause):
            derived.add(cid)
        kept.append(left)
        origin.append(cid)
    variables = max((abs(lit) for clause in kept for lit in clause), default=0)
    return _Reduced(Cnf(variables, tuple(kept)), origin, frozenset(derived))


def _pair(n: int, true: set[int], model: Sequence[int]) -> tuple[frozenset[int], frozenset[int]]:
    assigned = {abs(lit) for lit in true}  # the solver may give these any value: it never saw them
    true = true | {lit for lit in model if lit > 0 and lit not in assigned}
    return (
        frozenset(i for i in range(n) if i + 1 in true),
        frozenset(i for i in range(n) if n + i + 1 in true),
    )


def _spent(start: float, cpu: float) -> dict[str, float]:
    return {"seconds": time.perf_counter() - start, "cpu_seconds": time.process_time() - cpu}


@dataclass(frozen=True)
class Conquest:
    """What :func:`conquer` says of one cube.

    ``status``: False refuted, True satisfiable, None stopped at the time limit. When refuted,
    ``text`` is the LRAT proof of the clause ``not cube`` over the CNF's own clause ids (its
    own clauses numbered from ``base + 1``, the last one ``not cube``, every other deleted
    after it) and ``lemmas`` counts its additions. When satisfiable, ``true`` holds the
    literals that propagation of the cube set and ``model`` the solver's model of the rest
    (the solver never saw the variables in ``true``: it may give them any value)."""

    status: bool | None
    text: bytes = b""
    lemmas: int = 0
    true: frozenset[int] = frozenset()
    model: tuple[int, ...] = ()


def conquer(cnf: Cnf, cube: Sequence[int], base: int, time_limit: float | None = None) -> Conquest:
    """Refute ``cnf`` under ``cube``: the conquer step of cube and conquer (module notes).

    The cube is unit-propagated on the CNF; a conflict gives ``not cube`` in one RUP step.
    Otherwise the clauses left, without their false literals, go to CaDiCaL (:mod:`.sat`), and
    its LRAT refutation, trimmed to what its empty clause uses, is written over ``cnf``'s
    clause ids as a proof of ``not cube`` (:class:`_Writer`, :func:`_translate`).

    Parameters
    ----------
    cnf : Cnf
        Any CNF without unit clauses (the robustness CNF of :mod:`.cnf`, the minimality CNF of
        :mod:`.minimality`): propagation starts from the cube's literals only, and CaDiCaL
        renumbers what a unit clause implies (:mod:`.cnf`). Its occurrence index is made once
        per process (:func:`_watch`).
    cube : sequence of int
        Literals over ``cnf``'s variables, not contradicting one another.
    base : int
        The proof's clauses are numbered from ``base + 1`` (at least ``cnf``'s clause count).
    time_limit : float, optional
        Seconds for the solver; 0 or less: not solved (status None).

    Returns
    -------
    Conquest

    Raises
    ------
    ParameterError
        When the cube contradicts itself.

    Examples
    --------
    >>> both = Cnf(2, ((1, 2), (1, -2), (-1, 2), (-1, -2)))
    >>> conquer(both, (1,), 4).text  # 1 propagates 2 by clause 3, which falsifies clause 4
    b'5 -1 0 3 4 0\\n'
    """
    prop = _Propagation(cnf.clauses, cube, _watch(cnf))
    negated = [-lit for lit in cube]
    if prop.conflict is not None:  # refuted by propagation alone: one RUP step
        chain = prop.chain(prop.falsified(prop.conflict))
        hints = [*(prop.reason[lit] for lit in chain), prop.conflict]
        line = " ".join(map(str, [base + 1, *negated, 0, *hints, 0]))
        return Conquest(False, line.encode() + b"\n", 1)
    if time_limit is not None and time_limit <= 0:
        return Conquest(None)
    reduced = _reduce(cnf.clauses, prop)
    status, text, model = sat.solve(reduced.cnf, time_limit)
    if status is True:
        return Conquest(True, true=frozenset(prop.position), model=tuple(model or ()))
    if status is None or text is None:
        return Conquest(None)
    body, lemmas = _translate(text, reduced, _Writer(prop, negated, base))
    return Conquest(False, body, lemmas)


def solve_leaf(
    in_neighbors: Sequence[frozenset[int]],
    r: int,
    s: int,
    cube: tuple[int, ...],
    deadline: float | None = None,
    index: int = 0,
) -> Leaf:
    """Refute (or satisfy) the CNF of (r, s)-robustness under ``cube``: one independent task
    (:func:`conquer`).

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
    The CNF is encoded here, not shipped: a task's arguments stay small for Ray; a worker
    process encodes it once for all the cubes of one graph it takes (:func:`_problem`).
    """
    start, cpu = time.perf_counter(), time.process_time()
    cnf = _problem(tuple(frozenset(nb) for nb in in_neighbors), r, s).cnf
    left = None if deadline is None else max(0.0, deadline - time.time())
    got = conquer(cnf, cube, _base(len(cnf.clauses), index), left)
    if got.status is True:
        pair = _pair(len(in_neighbors), set(got.true), got.model)
        return Leaf(cube, True, pair=pair, **_spent(start, cpu))
    return Leaf(cube, got.status, got.text, got.lemmas, **_spent(start, cpu))


def combine(
    in_neighbors: Sequence[frozenset[int]], k: int | Tree, leaves: Sequence[Leaf], total: int
) -> bytes:
    """One LRAT refutation of the original CNF (``total`` clauses) from the refuted cubes of a
    split, in its cubes' order (module notes).

    Parameters
    ----------
    in_neighbors : sequence of frozenset of int
        In canonical order, as given to :func:`solve_leaf`.
    k : int or Tree
        The nodes split on (the fixed split of :func:`cubes`), or the decision tree.
    leaves : sequence of Leaf
        One per cube, each made by :func:`solve_leaf` with its index.
    total : int
        The clauses of the original CNF.

    Returns
    -------
    bytes
        The leaves' proofs in order, renumbered one after another (:func:`_compact`), then two
        steps per inner node of the decision tree (the last one the empty clause). Not checked
        here.

    Raises
    ------
    ParameterError
        When a leaf is not refuted, or the leaves are not the split's cubes.

    Notes
    -----
    O(size of the leaves' proofs + leaves x depth).
    """
    n = len(in_neighbors)
    tree = k if isinstance(k, Tree) else fixed_tree(in_neighbors, k)
    if [leaf.cube for leaf in leaves] != tree.cubes(n):
        raise ParameterError("the leaves are not the cubes of this split, in order")
    if any(leaf.status is not False for leaf in leaves):
        raise ParameterError("only refuted cubes combine into a refutation")
    if any(leaf.lemmas >= STRIDE for leaf in leaves):
        raise ParameterError(f"a cube's proof has {STRIDE:,} lemmas or more: over the budget")
    leaves = _renumbered(leaves, total, n)
    starts = [leaf.first - 1 if leaf.first else _base(total, i) for i, leaf in enumerate(leaves)]
    spans = sorted((start, start + leaf.lemmas) for start, leaf in zip(starts, leaves, strict=True))
    if spans[0][0] < total or any(a[1] > b[0] for a, b in itertools.pairwise(spans)):
        raise ParameterError("the leaves' clause ids overlap: not numbered for this split")
    ends = [start + leaf.lemmas for start, leaf in zip(starts, leaves, strict=True)]  # not cube
    texts = [leaf.text for _, leaf in sorted(zip(starts, leaves, strict=True), key=lambda x: x[0])]
    return b"".join([*texts, *_tree_steps(tree, n, ends, spans[-1][1])])


def _line(tokens: Sequence[int]) -> bytes:
    return " ".join(map(str, tokens)).encode() + b"\n"


def _tree_steps(tree: Tree, n: int, ends: Sequence[int], last: int) -> list[bytes]:
    """The combine step's lines (module notes): for each inner node of ``tree``, ``not P or x_v``
    and ``not P``, numbered from ``last + 1``; the last line the empty clause. ``ends``: the
    ids of the clauses ``not cube``, in the order of ``tree``'s cubes."""
    steps: list[bytes] = []
    leaf_ids = iter(ends)

    def derive(node: Tree, path: list[int]) -> int:
        """The id of the clause ``not path``, derived from the subtree ``node`` under it."""
        nonlocal last
        if node.node is None:
            return next(leaf_ids)
        v = node.node
        (x, neg_y), (_, y), _ = _options(v, n)
        a = derive(node.children[0], [*path, x, neg_y])
        b = derive(node.children[1], [*path, -x, y])
        c = derive(node.children[2], [*path, -x, neg_y])
        negated = [-lit for lit in path]
        last += 1
        steps.append(_line([last, *negated, x, 0, b, c, 0]))
        last += 1
        steps.append(_line([last, *negated, 0, last - 1, v + 1, a, 0]))
        return last

    derive(tree, [])
    return steps


def _renumberable(total: int, n: int) -> bool:
    """Whether :func:`renumber` can tell a cube's own ids by their length: cube i >= 1 numbers
    them above ``STRIDE`` (8 digits or more), while the original ids and the variables, at most
    ``total + 6n``, stay below it (a CNF budget raised past 10^7 clauses would break this:
    its cubes keep their own ranges)."""
    return total + 6 * n < STRIDE


def renumber(leaf: Leaf, index: int, total: int, after: int) -> Leaf:
    """``leaf``, refuted as cube ``index`` of a CNF of ``total`` clauses, with its clauses
    renumbered to follow id ``after`` (``first`` = ``after + 1``).

    Numbering each cube in its own range lets it be final where it is made; renumbering the
    cubes one after another makes their ids as short as a single proof's: on ER(40, 1/2) at
    r = 11 from 8 digits to 6, and the proof 15% smaller (68.2 to 58.2 MiB), at 1.4 s of CPU
    (a pass over the text that parses only the tokens of 8 or more digits, :func:`_renumberable`).

    Examples
    --------
    >>> leaf = Leaf((1,), False, b"20000011 -1 0 5 0\\n", 1)
    >>> renumber(leaf, 2, 10, 12).text
    b'13 -1 0 5 0\\n'
    """
    delta = _base(total, index) - after
    rows = leaf.text.split(b"\n")
    if delta:
        for k, row in enumerate(rows):
            rows[k] = b" ".join(
                [
                    str(int(t) - delta).encode() if len(t) > 7 and t[:1] != b"-" else t
                    for t in row.split(b" ")
                ]
            )
    return replace(leaf, text=b"\n".join(rows), first=after + 1)


def _renumbered(leaves: Sequence[Leaf], total: int, n: int) -> list[Leaf]:
    """The leaves, those not yet renumbered renumbered after the others (:func:`renumber`)."""
    if not _renumberable(total, n):
        return list(leaves)
    after = max((leaf.first + leaf.lemmas - 1 for leaf in leaves if leaf.first), default=total)
    out = []
    for i, leaf in enumerate(leaves):
        if not leaf.first:
            leaf = renumber(leaf, i, total, after)
            after += leaf.lemmas
        out.append(leaf)
    return out


class _InOrder:
    """Renumbers refuted cubes (:func:`renumber`) while the others still run: cube i as soon as
    cubes 0..i-1 are refuted and renumbered, so that the proof is the same whatever order the
    cubes end in, and the combine step has less left to do."""

    def __init__(self, total: int, n: int, keys: Sequence[str]) -> None:
        self.total, self.on = total, _renumberable(total, n)
        self.index = {key: i for i, key in enumerate(keys)}
        self.waiting: dict[int, Leaf] = {}
        self.done: dict[int, Leaf] = {}
        self.after = total

    def __call__(self, outcome: Outcome) -> None:
        leaf = outcome.value if outcome.ok else None
        if not self.on or leaf is None or leaf.status is not False:
            return
        self.waiting[self.index[outcome.key]] = leaf
        while len(self.done) in self.waiting:
            i = len(self.done)
            self.done[i] = renumber(self.waiting.pop(i), i, self.total, self.after)
            self.after += self.done[i].lemmas


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
        When ``split.k`` is not between 0 and n, or above :data:`MAX_K`.
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
    nbrs = tuple(frozenset(nb) for nb in in_neighbors)
    split_nodes(nbrs, split.k)  # k out of range: the same error either way
    if split.k > MAX_K:
        raise ParameterError(f"a split of 3^{split.k} cubes is too large: K is at most {MAX_K}")
    start = time.perf_counter()
    if split.lookahead:
        tree = lookahead(nbrs, r, s, 3**split.k)
    else:
        tree = fixed_tree(nbrs, split.k)
    chosen = tree.cubes(len(nbrs))
    split_seconds = time.perf_counter() - start
    deadline = None if time_limit is None else time.time() + time_limit
    tasks = [
        Task(f"cube {i + 1}", solve_leaf, (nbrs, r, s, cube, deadline, i))
        for i, cube in enumerate(chosen)
    ]
    problem = _problem(nbrs, r, s)
    trails = [_trail(problem, cube) for cube in chosen]
    first = sorted(  # hardest first (fewest members), so that the last to end are short
        range(len(tasks)), key=lambda i: (trails[i] is None, trails[i] or (0, 0), i)
    )
    if split.incremental:
        return _refute_shared(nbrs, r, s, split, tree, first, deadline, split_seconds)
    queue = [tasks[i] for i in first]
    arrived = _InOrder(len(problem.cnf.clauses), len(nbrs), [task.key for task in tasks])
    if split.executor is None:
        ran = [run_task(task) for task in queue]
        for outcome in ran:
            arrived(outcome)
    else:
        ran = split.executor.run(
            queue, label="cubes", progress=split.progress, on_outcome=arrived
        )
    by_key = {outcome.key: outcome for outcome in ran}
    outcomes = [by_key[task.key] for task in tasks]
    failed = next((o for o in outcomes if not o.ok), None)
    if failed is not None:
        raise BackendError(f"{failed.key} failed: {failed.error}")
    leaves = tuple(arrived.done.get(i, o.value) for i, o in enumerate(outcomes))
    for leaf in leaves:
        if leaf.status is True:
            s1, s2 = leaf.pair
            holds = refutes_r(nbrs, s1, s2, r) if s == 1 else refutes_rs(nbrs, s1, s2, r, s)
            if not holds:
                raise BackendError(f"the model of cube {leaf.cube} is not a violating pair")
            return Conquered(True, None, leaf.pair, leaves, 0.0, tree, split_seconds)
    if any(leaf.status is None for leaf in leaves):
        return Conquered(None, None, None, leaves, 0.0, tree, split_seconds)
    start = time.perf_counter()
    text = combine(nbrs, tree, leaves, len(problem.cnf.clauses))
    return Conquered(False, text, None, leaves, time.perf_counter() - start, tree, split_seconds)


OURS = 10**15
"""Ids of the ``not cube`` steps in an incremental worker's raw log (:func:`solve_shared`):
above any id CaDiCaL gives, renumbered away by :func:`_trim_log`."""

RECENT = (1_000, 20_000)
"""The last lemmas of a cube's own solve that the search for its ``not cube`` step tries, in
turn, with the CNF and every unit lemma (:func:`_not_cube`); all lemmas when those do not do."""


@dataclass(frozen=True)
class Shared:
    """One incremental worker's answer (:func:`solve_shared`).

    ``text``: its LRAT lines over the original CNF, trimmed to what its ``not cube`` steps use,
    numbered from ``first`` on (``lemmas`` additions, ids claimed from the workers' shared
    counter, so the workers' parts follow one another without renumbering; no deletions);
    ``steps``: cube index -> id of its ``not cube`` clause in ``text``; ``open``: the cubes it
    took and did not settle (time limit); ``pair``: a violating pair when a cube was
    satisfiable (canonical order); ``cpu``: cube index -> CPU seconds of its solve; ``seconds``
    and ``cpu_seconds``: the whole task's, the trimming included."""

    index: int
    text: bytes
    lemmas: int
    first: int
    steps: dict[int, int]
    open: tuple[int, ...]
    pair: tuple[frozenset[int], frozenset[int]] | None
    cpu: dict[int, float]
    seconds: float
    cpu_seconds: float


class _Chained:
    """The occurrence lists of two clause sets, read as one (:class:`_Propagation`'s ``watch``)."""

    def __init__(self, *parts: dict[int, list[int]]) -> None:
        self.parts = parts

    def get(self, lit: int, default: Sequence[int] = ()) -> Sequence[int]:
        got = [cid for part in self.parts for cid in part.get(lit, ())]
        return got or default


def _lemmas(rows: Sequence[bytes]) -> list[tuple[int, tuple[int, ...]]]:
    """The (id, literals) of the addition lines among ``rows`` (LRAT)."""
    out = []
    for raw in rows:
        head, sep, _ = raw.partition(b" 0 ")
        first, _, rest = head.partition(b" ")
        if sep and first and first != b"c" and not rest.startswith(b"d"):
            out.append((int(first), tuple(map(int, rest.split()))))
    return out


def _rup(
    cnf: Cnf, cube: Sequence[int], lemmas: Sequence[tuple[int, tuple[int, ...]]]
) -> list[int] | None:
    """The hints of ``not cube`` as a RUP step over the CNF and ``lemmas`` (id, literals), in
    propagation order, the conflict last; None when propagation of the cube finds no conflict."""
    total = len(cnf.clauses)
    units = [(lits[0], total + j) for j, (_, lits) in enumerate(lemmas, 1) if len(lits) == 1]
    clauses = [*cnf.clauses, *(lits for _, lits in lemmas)]
    extra = _occurrences([lits for _, lits in lemmas])
    shifted = {lit: [total + cid for cid in ids] for lit, ids in extra.items()}
    watch = _Chained(_watch(cnf), shifted)
    prop = _Propagation(clauses, cube, watch, units)  # type: ignore[arg-type]
    if prop.conflict is None:
        return None

    def named(cid: int) -> int:
        return cid if cid <= total else lemmas[cid - total - 1][0]

    chain = prop.chain(prop.falsified(prop.conflict))
    return [*(named(prop.reason[lit]) for lit in chain), named(prop.conflict)]


class _Incremental:
    """One CaDiCaL 1.9.5 instance (python-sat) over the whole CNF, logging LRAT (as
    :func:`.sat.solve` sets it up) to a temporary file, that solves cube after cube as
    assumptions: what it learns under one cube it keeps for the next. Its lemmas are clauses
    implied by the CNF alone (assumptions are decisions), so its log is one LRAT derivation
    over the CNF's clause ids; CaDiCaL 1.9.5 does not log the clause ``not cube`` when it
    fails under a cube (:func:`_not_cube` adds it)."""

    def __init__(self, cnf: Cnf) -> None:
        import pysolvers
        from pysat.solvers import Cadical195

        self.solver = Cadical195()
        pysolvers.cadical195_set(self.solver.cadical, "lrat", 1)
        pysolvers.cadical195_set(self.solver.cadical, "binary", 0)
        self.solver.prfile = tempfile.TemporaryFile()
        self.solver.prfp = pysolvers.cadical195_tracepr(self.solver.cadical, self.solver.prfile)
        for clause in cnf.clauses:
            self.solver.add_clause(list(clause))
        self.read = 0

    def solve(self, cube: Sequence[int], deadline: float | None) -> bool | None:
        """Solve under ``cube`` until ``deadline`` (``time.time()``), in conflict-budget slices
        (:func:`.sat.next_budget`): True, False, or None at the deadline."""
        if deadline is None:
            return self.solver.solve(assumptions=list(cube))
        status, budget = None, sat.FIRST_SLICE
        while status is None and (now := time.time()) < deadline:
            self.solver.conf_budget(budget)
            status = self.solver.solve_limited(assumptions=list(cube))
            spent = time.time() - now
            budget = sat.next_budget(budget, spent, deadline - now - spent)
        return status

    def rows(self, start: int | None = None) -> list[bytes]:
        """The log's lines from byte ``start`` (default: where the last call stopped) to its
        end."""
        import pysolvers

        pysolvers.flushpr(self.solver.prfp)
        self.solver.prfile.seek(self.read if start is None else start)
        data = self.solver.prfile.read()
        self.read = self.solver.prfile.tell()
        return data.splitlines()

    def close(self) -> None:
        self.solver.delete()


def _not_cube(
    cnf: Cnf, cube: Sequence[int], recent: list[bytes], units: list[tuple[int, tuple[int, ...]]],
    solver: _Incremental,
) -> list[int]:
    """The hints of the clause ``not cube`` as a RUP step (:func:`_rup`) after CaDiCaL failed
    under ``cube``: over the CNF, the unit lemmas and the last lemmas of this cube's solve
    (:data:`RECENT`), else over every lemma of the log (the clauses CaDiCaL held when it failed
    are among them; deletions are dropped from the worker's proof, :func:`_trim_log`).

    Raises
    ------
    ParameterError
        When not even every lemma gives the step (CaDiCaL's log does not refute the cube).
    """
    hints = None
    for last in RECENT:
        hints = _rup(cnf, cube, [*units, *_lemmas(recent[-last:])])
        if hints is not None or last >= len(recent):
            break
    if hints is None:
        hints = _rup(cnf, cube, _lemmas(solver.rows(0)))
    if hints is None:
        raise ParameterError(f"the solver's lemmas do not refute the cube {tuple(cube)}")
    return hints


def _trim_log(
    rows: list[bytes], claim: Callable[[int], int]
) -> tuple[bytes, int, int, dict[int, int]]:
    """The additions of an incremental worker's log (``rows``, its ``not cube`` steps numbered
    from :data:`OURS` last) that those steps reach through hints, renumbered from ``base + 1``
    in order, where ``base = claim(count)`` once the count of those additions is known;
    deletions dropped (every lemma stays live, so a step may use any earlier lemma). Returns
    the text, the lemma count, ``base`` and the new ids of the steps (old id -> new id).

    Works on byte tokens (a lemma's id is a key of the lines read; CaDiCaL numbers its lemmas
    from ``total + 1``, so no original id is one): no token is parsed as a number."""
    order: list[bytes] = []
    lits: dict[bytes, bytes] = {}
    hints: dict[bytes, bytes] = {}
    for raw in rows:
        head, sep, tail = raw.partition(b" 0 ")
        first, _, rest = head.partition(b" ")
        if not sep or not first or first == b"c" or rest.startswith(b"d"):
            continue
        order.append(first)
        lits[first], hints[first] = rest, tail
    ours = len(str(OURS))
    keep = {cid for cid in order if len(cid) >= ours}
    stack = list(keep)
    while stack:
        for h in hints[stack.pop()].split()[:-1]:
            if h not in keep and h in lits:
                keep.add(h)
                stack.append(h)
    new: dict[bytes, bytes] = {}
    out = []
    base = claim(len(keep))
    for cid in order:
        if cid in keep:
            named = new[cid] = b"%d" % (base + len(new) + 1)
            head = b" ".join([named, lits[cid]]) if lits[cid] else named
            used = b" ".join([new.get(h, h) for h in hints[cid].split()[:-1]])
            out.append(b"%s 0 %s 0\n" % (head, used))
    steps = {int(cid): int(new[cid]) for cid in keep if len(cid) >= ours}
    return b"".join(out), len(new), base, steps


def solve_shared(
    in_neighbors: Sequence[frozenset[int]],
    r: int,
    s: int,
    chosen: tuple[tuple[int, ...], ...],
    queue: object,
    stop: object,
    ids: object,
    deadline: float | None,
    index: int,
) -> Shared:
    """An incremental worker: take cube indices from ``queue`` (a multiprocessing queue) until
    it is empty or ``stop`` (an event) is set, solve each on one CaDiCaL instance kept for all
    of them (:class:`_Incremental`), and return its proof of each refuted cube's ``not cube``
    (:class:`Shared`). A satisfiable cube sets ``stop``.

    Parameters
    ----------
    in_neighbors, r, s
        As :func:`solve_leaf`.
    chosen : tuple of cubes
        The split's cubes (:meth:`Tree.cubes`), which the indices name.
    queue, stop, ids
        A ``Manager().Queue()`` of indices, the hardest first, a ``Manager().Event()``, and a
        queue holding one token, the last clause id taken: a worker takes it, adds its trimmed
        proof's additions and puts it back, and numbers its proof after the id it took (the
        first to trim numbers its proof first).
    deadline : float, optional
        ``time.time()`` at which every solve stops.
    index : int
        The worker's place among the workers (its label).
    """
    import queue as queues

    start, cpu0 = time.perf_counter(), time.process_time()
    cnf = _problem(tuple(frozenset(nb) for nb in in_neighbors), r, s).cnf
    solver = _Incremental(cnf)
    steps: list[bytes] = []
    units: list[tuple[int, tuple[int, ...]]] = []
    cpu: dict[int, float] = {}
    left_open: list[int] = []
    pair = None
    try:
        while not stop.is_set():  # type: ignore[attr-defined]
            try:
                i = queue.get_nowait()  # type: ignore[attr-defined]
            except queues.Empty:
                break
            before = time.process_time()
            status = solver.solve(chosen[i], deadline)
            recent = solver.rows()
            if status is None:
                left_open.append(i)
            elif status:
                pair = _pair(len(in_neighbors), set(), solver.solver.get_model() or [])
                stop.set()  # type: ignore[attr-defined]
            else:
                units += _lemmas([row for row in recent if row.split(b" ", 3)[2:3] == [b"0"]])
                hints = _not_cube(cnf, chosen[i], recent, units, solver)
                negated = [-lit for lit in chosen[i]]
                steps.append(" ".join(map(str, [OURS + i, *negated, 0, *hints, 0])).encode())
            cpu[i] = time.process_time() - before
        def claim(count: int) -> int:
            after = ids.get()  # type: ignore[attr-defined]
            ids.put(after + count)  # type: ignore[attr-defined]
            return after

        text, lemmas, base, named = _trim_log([*solver.rows(0), *steps], claim)
    finally:
        solver.close()
    return Shared(
        index, text, lemmas, base + 1, {old - OURS: cid for old, cid in named.items()},
        tuple(left_open), pair, cpu, time.perf_counter() - start, time.process_time() - cpu0,
    )


class _RayFlag:
    """An event that Ray workers share: set by putting an item in a Ray queue."""

    def __init__(self, queue: object) -> None:
        self.queue = queue

    def set(self) -> None:
        self.queue.put(True)  # type: ignore[attr-defined]

    def is_set(self) -> bool:
        return not self.queue.empty()  # type: ignore[attr-defined]


@contextlib.contextmanager
def _channels(executor: Executor | None) -> Iterator[tuple[object, object, object, int]]:
    """A queue of cube indices, a stop event and a queue for the id token
    (:func:`solve_shared`) that the workers of ``executor`` share, and how many workers to
    start: a ``Manager`` (spawn) for a local pool or none, Ray's queue
    actor on Ray (a worker that Ray retries after a crash takes no cube its first run took:
    that cube stays open). Raises ParameterError for another executor."""
    from robustgraph.executors import LocalExecutor, RayExecutor

    if executor is None or isinstance(executor, LocalExecutor):
        import multiprocessing

        workers = 1 if executor is None else executor.workers
        with multiprocessing.get_context("spawn").Manager() as manager:
            yield manager.Queue(), manager.Event(), manager.Queue(), workers
    elif isinstance(executor, RayExecutor):
        import ray
        from ray.util.queue import Queue

        queue, stop, ids = (Queue(actor_options={"num_cpus": 0}) for _ in range(3))
        flag = _RayFlag(stop)
        try:
            yield queue, flag, ids, max(1, int(ray.cluster_resources().get("CPU", 1)))
        finally:
            for actor in (queue, stop, ids):
                actor.shutdown()
    else:
        raise ParameterError("incremental cubes run on a local pool or on Ray only")


def _refute_shared(
    nbrs: tuple[frozenset[int], ...],
    r: int,
    s: int,
    split: Split,
    tree: Tree,
    first: list[int],
    deadline: float | None,
    split_seconds: float,
) -> Conquered:
    """:func:`refute` with incremental workers (:func:`solve_shared`): as many as the local
    executor's workers (one, here, without an executor), the cubes dealt hardest first from one
    queue; then the workers' proofs, already numbered one after another, and the tree's steps
    (:func:`_tree_steps`). The leaves carry each cube's CPU seconds, not its text."""
    from robustgraph.errors import BackendError
    from robustgraph.executors import Task, run_task

    n = len(nbrs)
    chosen = tuple(tree.cubes(n))
    total = len(_problem(nbrs, r, s).cnf.clauses)
    with _channels(split.executor) as (queue, stop, ids, workers):
        for i in first:
            queue.put(i)
        ids.put(total)  # type: ignore[attr-defined]
        shared_args = (nbrs, r, s, chosen, queue, stop, ids, deadline)
        tasks = [
            Task(f"worker {w + 1}", solve_shared, (*shared_args, w))
            for w in range(min(workers, len(chosen)))
        ]
        if split.executor is None:
            ran = [run_task(task) for task in tasks]
        else:
            ran = split.executor.run(
                tasks, label="cubes (incremental workers)", progress=split.progress
            )
    failed = next((o for o in ran if not o.ok), None)
    if failed is not None:
        raise BackendError(f"{failed.key} failed: {failed.error}")
    shared = sorted((o.value for o in ran), key=lambda got: got.index)
    cpu = {i: c for got in shared for i, c in got.cpu.items()}
    leaves = tuple(
        Leaf(cube, None, seconds=cpu.get(i, 0.0), cpu_seconds=cpu.get(i, 0.0))
        for i, cube in enumerate(chosen)
    )
    pair = next((got.pair for got in shared if got.pair is not None), None)
    if pair is not None:
        holds = refutes_r(nbrs, *pair, r) if s == 1 else refutes_rs(nbrs, *pair, r, s)
        if not holds:
            raise BackendError("an incremental worker's model is not a violating pair")
        return Conquered(True, None, pair, leaves, 0.0, tree, split_seconds)
    if sum(len(got.steps) for got in shared) < len(chosen):  # a cube left open
        return Conquered(None, None, None, leaves, 0.0, tree, split_seconds)
    start = time.perf_counter()
    parts = sorted(shared, key=lambda got: got.first)  # numbered one after another already
    ends = {i: cid for got in parts for i, cid in got.steps.items()}
    last = total + sum(got.lemmas for got in parts)
    leaves = tuple(replace(leaf, status=False) for leaf in leaves)
    steps = _tree_steps(tree, n, [ends[i] for i in range(len(chosen))], last)
    text = b"".join([*(got.text for got in parts), *steps])
    spent = time.perf_counter() - start
    cpus = tuple(got.cpu_seconds for got in shared)
    return Conquered(False, text, None, leaves, spent, tree, split_seconds, cpus)
