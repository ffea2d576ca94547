"""Certifier side: find the cheapest proof object for a lower bound (``certify --proof``).

``auto`` tries, cheapest to check first: a theorem family (:mod:`.theorem`), a construction
found by peeling whose base a theorem or recomputation proves (:mod:`.construction`), exhaustive
recomputation (n <= 20), then for r-robustness (s = 1, no ``--cubes``) a core-tree certificate
(:mod:`.tree_make`, checked by :mod:`.tree_check`) within :data:`AUTO_TREE_SHARE` of the time
limit, then an LRAT refutation with the time left: written from the core search's own tree when
that tree is small and r large (:mod:`.coretree`, r-robustness only), else by CaDiCaL
(:mod:`.sat`, within the time left, its log trimmed to the lemmas the refutation uses,
:mod:`.trim`; or by cube and conquer, :mod:`.cubes`). Every proof made is checked before it is
returned, so a certificate never carries a proof its own verifier rejects: a core tree by the
checker's own walk that made it (``tree_make.TREE_CHECKED_AS_MADE``), every other kind by
:func:`.checker.check_proof`.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import time
from collections.abc import Callable, Collection
from typing import Any

from robustgraph.certificate.proofs import (
    construction,
    coretree,
    cubes,
    exhaustive,
    sat,
    theorem,
    tree_make,
)
from robustgraph.certificate.proofs.checker import ProofError, View, check_proof
from robustgraph.certificate.proofs.cnf import ENCODING, encode, size
from robustgraph.certificate.proofs.tree_check import TreeRejected
from robustgraph.certificate.proofs.trim import trim
from robustgraph.errors import ParameterError
from robustgraph.limits import (
    FILE_BYTES,
    INFLATED_BYTES,
    PROOF_STEPS,
    Budget,
    budgets_set,
)
from solvers.cores import OutOfTime
from solvers.extras import missing

__all__ = [
    "FIRST_KINDS", "MODES", "Made", "cadical_options", "core_tree_nodes", "lrat_additions", "prove",
]

MODES = ("auto", "theorem", "construction", "exhaustive", "lrat", "coretree", "none")

FIRST_KINDS = ("theorem", "construction", "exhaustive", "coretree")
"""The kinds ``certify`` tries before any engine answers an r-robustness claim
(``proof_records.TREE_DECIDES_RULE``); the rest of a mode (an LRAT proof) comes after."""

Made = tuple[dict[str, Any], dict[str, bytes]]
"""A proof object and the proof files it names (file name -> gzip bytes)."""


def _theorem(view: View, r: int, s: int) -> Made | None:
    found = theorem.recognise(list(view.in_neighbors), r, s)
    if found is None:
        return None
    order = found["order"]
    proof = {
        "kind": "theorem",
        "family": found["family"],
        "reference": theorem.REFERENCES[found["family"]],
        "order": None if order is None else [view.labels[i] for i in order],
        "k": found["k"],
    }
    return proof, {}


def _exhaustive(view: View, r: int, s: int) -> Made | None:
    if len(view.labels) > exhaustive.MAX_N:
        return None
    return {"kind": "exhaustive"}, {}


def own_budgets(proof: dict[str, Any], files: dict[str, bytes]) -> dict[Budget, int]:
    """The input budgets the in-process check of a proof this process has just made needs
    raised: for an LRAT proof (a core-tree one), its file's bytes, its text's bytes and its
    recorded steps (tree nodes), where
    they exceed the budgets in force. The budgets guard ``verify`` against hostile files; a
    proof made here is not one, and refusing to check it would lose a finished proof (the
    certificate then says which budgets its ``verify`` needs: :func:`verify_budgets`).

    Examples
    --------
    >>> own_budgets({"kind": "theorem"}, {})
    {}
    """
    if proof.get("kind") not in ("lrat", "coretree"):
        return {}
    data = files[proof["file"]]
    with gzip.open(io.BytesIO(data), "rb") as stream:
        text = sum(len(chunk) for chunk in iter(lambda: stream.read(1 << 20), b""))
    steps = proof["steps"] if proof["kind"] == "lrat" else proof["nodes"]
    needs = {FILE_BYTES: len(data), INFLATED_BYTES: text, PROOF_STEPS: steps}
    return {budget: value for budget, value in needs.items() if value > budget.value()}


def verify_budgets(proof: dict[str, Any], files: dict[str, bytes]) -> str | None:
    """The options ``robustgraph verify`` needs to check ``proof`` where it exceeds the input
    budgets in force (:mod:`robustgraph.limits`), as one line for the user; None when it fits.

    Examples
    --------
    >>> verify_budgets({"kind": "exhaustive"}, {}) is None
    True
    """
    return _budget_note(proof["kind"], own_budgets(proof, files))


def _budget_note(kind: str, needs: dict[Budget, int]) -> str | None:
    """:func:`verify_budgets`'s line for the budgets ``needs`` raised (None: none)."""
    if not needs:
        return None
    options = {FILE_BYTES: "--max-bytes", INFLATED_BYTES: "--max-inflated"}
    said = [f"{options[b]} {v}" if b in options else f"{b.env}={v}" for b, v in needs.items()]
    return (f"the {kind.upper()} proof is over the input budgets in force; "
            f"robustgraph verify needs {' '.join(said)} to check it")


_EXHAUSTIVE_BASE = 16
"""Largest base the peeling search proves by recomputation (2^16 subsets per try)."""


def _base_proof(view: View, r: int, s: int, recompute: bool) -> dict[str, Any] | None:
    if theorem.min_in_degree_r(view.in_neighbors) >= r:
        return {
            "kind": "theorem",
            "family": "min-in-degree",
            "reference": theorem.REFERENCES["min-in-degree"],
            "order": None,
            "k": None,
        }
    small = len(view.labels) <= _EXHAUSTIVE_BASE
    if recompute and small and exhaustive.check(view.in_neighbors, r, s) is None:
        return {"kind": "exhaustive"}
    return None


def _construction(view: View, r: int, s: int) -> Made | None:
    """Peel to a base proven by a theorem, else (a second search) by recomputation."""
    return _peel(view, r, s, False) or _peel(view, r, s, True)


def _peel(view: View, r: int, s: int, recompute: bool) -> Made | None:
    nb = view.in_neighbors
    remaining = set(range(len(nb)))
    peeled: list[int] = []
    while len(remaining) >= 2:
        if peeled:
            base = sorted(remaining)
            base_proof = _base_proof(view.induced(base), r, s, recompute)
            if base_proof is not None:
                proof = {
                    "kind": "construction",
                    "base": [view.labels[i] for i in base],
                    "order": [view.labels[i] for i in reversed(peeled)],
                    "base_proof": base_proof,
                }
                return proof, {}
        found = construction.next_peel(nb, remaining, r + s - 1)
        if found is None:
            return None
        remaining.discard(found)
        peeled.append(found)
    return None


def lrat_additions(text: bytes) -> int:
    """LRAT additions up to and including the first empty clause (what the checker counts)."""
    count = 0
    for line in text.splitlines():
        tokens = line.split()
        if len(tokens) < 2 or tokens[1] == b"d" or tokens[0] == b"c":
            continue
        count += 1
        if tokens[1] == b"0":
            break
    return count


CORE_TREE_NODES = 64
"""Largest core-search dry run (nodes at k = r - 1, counted in its polls of 64) after which
``auto`` and ``lrat`` leave the proof to CaDiCaL (:mod:`.sat`) rather than write the tree
(:mod:`.coretree`), when r is at least :data:`CORE_TREE_MIN_R`. Set from a curve on scratch
graphs (ER and digraph G(n, p), n = 25-40, p = 0.35 and 0.5, seeds 1 and 4311-4317; tree against
trimmed CaDiCaL, each made, gzipped at :data:`GZIP_LEVEL` and checked; 2026-12-03, load about
1): with a dry run of 0 or 64 nodes the tree was faster on 5 of 21 graphs (0.49 s against 0.79
s on ER(30, 1/2) seed 1, r = 8; 0.23 s against 0.60 s on a digraph G(30, 1/2), r = 8) and slower
by 0.01-0.3 s on the rest; at 192-448 nodes CaDiCaL won on 7 of 9 (the tree up to 5x slower)
and tied on 2; at 576-120,000 nodes CaDiCaL won on all 10, by 1.6-26x (digraph G(40, 0.35) seed
4312: 102.7 s against 3.9 s). Round 2's 500 was set against CaDiCaL's untrimmed log at gzip
level 9."""

CORE_TREE_WIDE_R = 8
"""Least r at which the tree is written up to :data:`CORE_TREE_WIDE` dry-run nodes."""

CORE_TREE_WIDE = 448
"""The dry-run bound at r >= :data:`CORE_TREE_WIDE_R` (issue 40, round 6; a curve on scratch
seeds 4341-4350 only: ER and digraph G(n, p), n = 30-50, p = 0.35-0.6, tree against trimmed
CaDiCaL, each made, gzipped and checked, CPU seconds, one run each, load 1-3;
docs/performance.md). At r = 8-10 with 128-511 dry-run nodes the tree was faster on 15 of 17
graphs (by 1.08-3.7x; slower by 0.61x and 0.83x on two at 421-447 nodes), 8.95 s against 15.16 s
in all; with 512-1,237 nodes on 4 of 11 (12.47 s against 10.93 s in all), and from 1,829 on on
none. At r = 7 it lost on all 7 with 128-511 nodes, so :data:`CORE_TREE_NODES` stays there.
Never below :data:`CORE_TREE_NODES` (a baseline that raises that one raises both). The dense
rows at r = 10-11, where certify costs most, are far past this bound (dry runs of
7,000-950,000 nodes): there the tree writes 35-85 lemmas a search node, twice (once per
orientation), against CaDiCaL's 0.2-10 proof steps a node, and took 3-4x CaDiCaL's whole path
(round 6's profile)."""

CORE_TREE_MIN_R = 7
"""Least r at which the tree is written when CaDiCaL is there: four of the five graphs the tree
won above had r = 7 or 8 (the fifth, r = 6, by 0.01 s; CaDiCaL's work grows with the counters,
r - 1 registers a position); of the sixteen it lost, fifteen had r <= 6, one r = 7 (0.16 s
against 0.15 s)."""

CORE_TREE_NODES_ALONE = 500
"""Without python-sat the tree is the only LRAT proof: it is tried whatever r when the dry run
stays within this many nodes (round 2's bound)."""

GZIP_LEVEL = 1
"""zlib level of the stored LRAT file. On the 15 MB trimmed proof of digraph G(50, 0.35) seed
4312 (r = 8; 2026-12-03, idle machine) level 9, gzip's default, took 4.32 s and made 4.07 MB;
level 6 2.70 s, 4.12 MB; level 3 0.85 s, 4.72 MB; level 1 0.45 s, 5.29 MB, and decompressed in
0.25 s against 0.15 s. In ``certify --proof lrat`` gzip at level 9 was a fifth to a third of the
proof's time (``benchmarks/proof_cost.py --phases``); the minimality proofs already use level 1."""

CORE_TREE_LEMMAS = 1_000_000
"""Lemmas after which the tree gives up and CaDiCaL takes over (a safety net: the node
estimate above keeps well below it)."""


UNSTABLE_MIN_R = 10
"""Least r at which CaDiCaL runs with :data:`UNSTABLE` (issue 40, round 4; scratch graphs only,
2026-12-04, load 1-5, CPU seconds of one solve, its trim and the checker, ``benchmarks/
proof_cost.py``'s docstring names the seeds): at r = 10-13 (ER(40, 1/2) seeds 4301 and 4321,
digraph G(40, 1/2) seed 4321, ER(50, 1/2) seed 4323) the search without stabilising phases was
faster on all four (solve, trim and check 10.53 -> 8.82, 5.00 -> 4.49, 6.41 -> 5.03, 47.79 ->
37.23 s) and its trimmed proof had 13-25% fewer steps; at r = 8 (ER(50, 0.35) seed 4322) it was
1.0 s slower (2.40 -> 3.37 s). Four graphs above the line and one below: a thin basis, kept
because the two worst certify/robustness ratios of round 3's registered run (answers over 0.3
s: 11.0x and 6.4x, docs/certificate.md) were at r = 11 and 13."""

UNSTABLE = {"stabilize": 0}
"""CaDiCaL's options at r >= :data:`UNSTABLE_MIN_R`: no stabilising phases (CaDiCaL's
``--unsat`` preset without its ``walk=0``, which was slower on ER(40, 1/2) seed 4301: 10.05
against 8.82 s). Options
change the search, not what is checked: the proof is still an LRAT refutation of the CNF."""


def cadical_options(r: int) -> dict[str, int]:
    """CaDiCaL's options for the robustness CNF at ``r`` (:data:`UNSTABLE_MIN_R`).

    Examples
    --------
    >>> cadical_options(9), cadical_options(11)
    ({}, {'stabilize': 0})
    """
    return dict(UNSTABLE) if r >= UNSTABLE_MIN_R else {}


def core_tree_nodes(r: int) -> int:
    """The largest dry run (core-search nodes at k = r - 1) after which the proof at ``r`` is
    left to CaDiCaL: :data:`CORE_TREE_NODES`, or :data:`CORE_TREE_WIDE` from
    :data:`CORE_TREE_WIDE_R` on.

    Examples
    --------
    >>> core_tree_nodes(7), core_tree_nodes(9)
    (64, 448)
    """
    return max(CORE_TREE_NODES, CORE_TREE_WIDE) if r >= CORE_TREE_WIDE_R else CORE_TREE_NODES


def _from_core_tree(
    in_neighbors: list[frozenset[int]],
    r: int,
    s: int,
    time_limit: float | None,
    split: cubes.Split | None,
) -> bytes | None:
    """The LRAT text from the core search's tree, or None (not r-robustness, a split asked
    for, r below :data:`CORE_TREE_MIN_R` or a tree over :func:`core_tree_nodes` while CaDiCaL
    is there, out of time or lemmas: the caller falls back to CaDiCaL)."""
    if s != 1 or split is not None or len(in_neighbors) < 2:
        return None
    nodes = core_tree_nodes(r) if sat.available() else CORE_TREE_NODES_ALONE
    if sat.available() and r < CORE_TREE_MIN_R:
        return None
    if not coretree.small_tree(in_neighbors, r, nodes):
        return None
    deadline = None if time_limit is None else time.monotonic() + time_limit
    stop = None if deadline is None else (lambda: time.monotonic() >= deadline)
    try:
        made = coretree.refute(in_neighbors, r, stop=stop, max_lemmas=CORE_TREE_LEMMAS)
    except OutOfTime:
        return None
    return None if made is None else made.text


def _lrat(
    view: View, r: int, s: int, time_limit: float | None, split: cubes.Split | None = None
) -> Made | None:
    if time_limit is not None and time_limit <= 0:
        return None  # no time left: not even the encoding (0.4 s on ER(60, 1/2), r = 10)
    start = time.monotonic()
    in_neighbors = view.canonical()
    encoding = coretree.ENCODING
    text = _from_core_tree(in_neighbors, r, s, time_limit, split)
    if text is None:
        encoding = ENCODING
        left = None if time_limit is None else time_limit - (time.monotonic() - start)
        if not sat.available() or (left is not None and left <= 0):
            return None
        if split is None:
            status, text = sat.refute(encode(in_neighbors, r, s), left, options=cadical_options(r))
            text = None if text is None else trim(text)
        else:
            conquered = cubes.refute(in_neighbors, r, s, split, left)
            status, text = conquered.status, conquered.text
        if status is not False or text is None:
            return None
    data = gzip.compress(text, compresslevel=GZIP_LEVEL, mtime=0)
    digest = hashlib.sha256(data).hexdigest()
    name = f"lrat-{digest[:20]}.lrat.gz"
    variables, clauses = size([len(nb) for nb in in_neighbors], r, s, encoding)
    proof = {
        "kind": "lrat",
        "encoding": encoding,
        "variables": variables,
        "clauses": clauses,
        "file": name,
        "sha256": digest,
        "bytes": len(data),
        "steps": lrat_additions(text),
    }
    return proof, {name: data}


AUTO_TREE_SHARE = 0.5
"""Share of the time limit ``auto`` gives the core-tree certificate before it turns to an LRAT
proof with what is left (issue 40, round 7; docs/performance.md, "a core-tree certificate"):
on the scratch rows measured the tree was the cheaper proof; where the core search stalls (it
hands such graphs to the models when it answers them), the LRAT proof still gets half."""


def _coretree(view: View, r: int, s: int, time_limit: float | None) -> Made | None:
    """A core-tree certificate (:mod:`.tree_make`) within ``time_limit``, or None (not
    r-robustness, not r-robust, out of time). The checker's own walk made it, so it is
    checked: its ``check_seconds`` is the walk's time (``tree_make.TREE_CHECKED_AS_MADE``)."""
    if s != 1 or len(view.labels) < 2 or (time_limit is not None and time_limit <= 0):
        return None
    began = time.monotonic()
    deadline = None if time_limit is None else began + time_limit
    stop = None if deadline is None else (lambda: time.monotonic() >= deadline)
    try:
        made = tree_make.make(view.canonical(), r, stop)
    except (OutOfTime, TreeRejected):  # never ship a tree the checker's walk refused
        return None
    if made is None:
        return None
    digest = hashlib.sha256(made.data).hexdigest()
    name = f"coretree-{digest[:20]}.tree.gz"
    proof = {
        "kind": "coretree",
        "format": tree_make.FORMAT,
        "file": name,
        "sha256": digest,
        "bytes": len(made.data),
        "nodes": made.nodes,
        "check_seconds": round(time.monotonic() - began, 4),
    }
    return proof, {name: made.data}


def prove(
    view: View,
    r: int,
    s: int,
    mode: str,
    time_limit: float | None = None,
    *,
    split: cubes.Split | None = None,
    progress: Callable[[str], None] | None = None,
    kinds: Collection[str] | None = None,
) -> Made | None:
    """A checked proof that ``view`` is (r, s)-robust, made the way ``mode`` says, or None.

    Parameters
    ----------
    view : View
        The graph.
    r, s : int
        At least 1 each.
    mode : str
        One of :data:`MODES` (``none`` always gives None).
    time_limit : float, optional
        Seconds for the SAT solver or the core tree (``lrat``, ``coretree`` and the last two
        steps of ``auto``, which share it: :data:`AUTO_TREE_SHARE`).
    split : cubes.Split, optional
        Make an LRAT refutation by cube and conquer (:mod:`.cubes`) instead of in one solve;
        the combined proof is the same kind of record and is checked the same way.
    progress : callable, optional
        Hears :func:`verify_budgets`'s line when the proof is over the input budgets.
    kinds : collection of str, optional
        Only these kinds of ``mode``'s tries (e.g. :data:`FIRST_KINDS`); all when None.

    Returns
    -------
    (dict, dict) or None
        The proof object, with ``check_seconds`` and ``steps`` as measured by the checker, and
        its files; None when no proof of that kind was found. Every proof is checked before it
        is returned: a core tree by the checker's walk that made it
        (``tree_make.TREE_CHECKED_AS_MADE``), every other kind by :func:`.checker.check_proof`.

    Raises
    ------
    ParameterError
        Unknown mode.
    MissingExtra
        ``lrat`` without python-sat (the ``proofs`` extra).
    """
    if mode not in MODES:
        raise ParameterError(f"unknown proof mode {mode!r}; expected one of {', '.join(MODES)}")
    if mode == "lrat" and not sat.available():  # asked for by name: say which extra it needs
        raise missing("pysat", "--proof lrat")
    began = time.monotonic()

    def left() -> float | None:  # auto's LRAT gets what the core tree left of the limit
        return None if time_limit is None else time_limit - (time.monotonic() - began)

    share = None if time_limit is None else time_limit * AUTO_TREE_SHARE
    own = {
        "theorem": lambda: _theorem(view, r, s),
        "construction": lambda: _construction(view, r, s),
        "exhaustive": lambda: _exhaustive(view, r, s),
        "lrat": lambda: _lrat(view, r, s, time_limit, split),
        "coretree": lambda: _coretree(view, r, s, time_limit),
    }
    makers = {kind: [(kind, make)] for kind, make in own.items()} | {"none": []}
    makers["auto"] = [(kind, own[kind]) for kind in ("theorem", "construction", "exhaustive")]
    if split is None:  # a split asks for cube and conquer's LRAT proof
        makers["auto"] += [("coretree", lambda: _coretree(view, r, s, share))]
        makers["auto"] += [("lrat", lambda: _lrat(view, r, s, left(), split))]
    else:
        makers["auto"] += makers["lrat"]
    for kind, make in makers[mode]:
        if kinds is not None and kind not in kinds:
            continue
        made = make()
        if made is None:
            continue
        proof, files = made
        needs = own_budgets(proof, files)  # its text is inflated once, here
        if proof["kind"] != "coretree":  # a core tree was checked as it was made
            try:
                with budgets_set(needs):
                    checked = check_proof(view, r, s, proof, files.__getitem__)
            except ProofError:
                continue  # e.g. a solver proof our checker refuses: never ship it
            proof["check_seconds"] = round(checked.seconds, 4)
            if proof["kind"] == "lrat":
                proof["steps"] = checked.steps
        note = _budget_note(proof["kind"], needs)
        if note and progress:
            progress(note)
        return proof, files
    return None
