"""Check the proof object behind one lower bound, trusting no solver.

A proof object (a JSON dict) proves that the certified graph is (r, s)-robust, where a bound L
on r* means (L, 1) and a bound L on s*_r means (r, L) (LeBlanc et al. 2013: (r, 1)-robustness is
r-robustness). Its ``kind`` picks the checker: ``exhaustive`` (:mod:`.exhaustive`), ``theorem``
(:mod:`.theorem`), ``construction`` (:mod:`.construction`, with a nested proof of its base) or
``lrat`` (:mod:`.lrat` on the CNF of :mod:`.cnf`, regenerated here) or ``coretree`` (the core
search's tree, replayed by :mod:`.tree_check`, r-robustness only). Nothing in a proof is taken
on trust: sizes and counts it records are compared with what the check finds, and before any
costly step (an LRAT proof's CNF is sized in closed form before it is encoded).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from robustgraph.certificate.proofs import construction, exhaustive, theorem
from robustgraph.certificate.proofs.cnf import ENCODINGS, encode, size
from robustgraph.certificate.proofs.lrat import LratError, check_refutation
from robustgraph.certificate.proofs.tree_check import FORMAT, TreeRejected
from robustgraph.certificate.proofs.tree_check import check as check_tree
from robustgraph.errors import CertificateError
from robustgraph.limits import CNF_CLAUSES, FILE_BYTES, PROOF_STEPS, text_lines
from robustgraph.topology import Label, Topology

__all__ = ["KINDS", "ProofError", "ProofCheck", "View", "target", "check_proof"]

KINDS = ("exhaustive", "theorem", "construction", "lrat", "coretree")

Reader = Callable[[str], bytes]
"""Returns the bytes of a proof file named in a certificate (raises CertificateError)."""


class ProofError(CertificateError):
    """A proof object does not prove its bound; the message says why."""

    exit_code = 1


@dataclass(frozen=True)
class View:
    """A graph as the checkers see it: labels and in-neighbour index sets, in one order."""

    labels: tuple[Label, ...]
    in_neighbors: tuple[frozenset[int], ...]

    @classmethod
    def of(cls, topology: Topology) -> View:
        return cls(tuple(topology.labels), tuple(topology.in_neighbors))

    def indices(self, labels: Sequence[Label], what: str) -> list[int]:
        """Indices of ``labels`` (matched as given, else as text); ProofError if one is absent."""
        exact = {label: i for i, label in enumerate(self.labels)}
        text = {str(label): i for i, label in enumerate(self.labels)}
        out = []
        for label in labels:
            index = exact.get(label) if isinstance(label, str | int) else None
            if index is None:
                index = text.get(str(label))
            if index is None:
                raise ProofError(f"{what} names node {label!r}, which is not in the graph")
            out.append(index)
        return out

    def induced(self, nodes: Sequence[int]) -> View:
        return View(
            tuple(self.labels[i] for i in nodes),
            tuple(construction.induced(self.in_neighbors, nodes)),
        )

    def canonical(self) -> list[frozenset[int]]:
        """In-neighbours renumbered to label-text order (the CNF's node order)."""
        order = sorted(range(len(self.labels)), key=lambda i: str(self.labels[i]))
        position = {node: k for k, node in enumerate(order)}
        return [frozenset(position[j] for j in self.in_neighbors[i]) for i in order]


@dataclass(frozen=True)
class ProofCheck:
    """What a checked proof established: its kind, its size in steps, and a line in words."""

    kind: str
    steps: int
    text: str
    seconds: float


def target(about_s: bool, r: int | None, bound: int) -> tuple[int, int]:
    """The (r, s) a bound proves: (bound, 1) on r*, (r, bound) on s*_r."""
    return (r, bound) if about_s else (bound, 1)


def check_proof(view: View, r: int, s: int, proof: dict[str, Any], read: Reader) -> ProofCheck:
    """Check that ``proof`` shows the graph ``view`` is (r, s)-robust.

    Parameters
    ----------
    view : View
        The certified graph.
    r, s : int
        The robustness proven (:func:`target`); both at least 1.
    proof : dict
        The proof object (schema ``$defs/proof``).
    read : callable
        Reads a proof file named by an ``lrat`` proof.

    Returns
    -------
    ProofCheck

    Raises
    ------
    ProofError
        When the proof does not check, with the reason.

    Notes
    -----
    Exhaustive: O(n 2^n), n <= 20. Theorem and construction: O(n + m) (plus the base's proof).
    LRAT: linear in the proof's size. Core tree: O(n) n-bit popcounts per tree node and round.
    """
    start = time.perf_counter()
    n = len(view.labels)
    if not (n >= 2 and 1 <= r <= -(-n // 2) and 1 <= s <= n):
        raise ProofError(f"no graph on n = {n} nodes is ({r}, {s})-robust (r <= ceil(n/2), s <= n)")
    kind = proof.get("kind")
    if kind == "exhaustive":
        _fail(exhaustive.check(view.in_neighbors, r, s))
        steps, text = 1 << n, f"exhaustive recomputation checked, 2^{n} subsets"
    elif kind == "theorem":
        steps, text = _theorem(view, r, s, proof)
    elif kind == "construction":
        steps, text = _construction(view, r, s, proof, read)
    elif kind == "lrat":
        steps = _lrat(view, r, s, proof, read)
        text = f"LRAT proof checked, {steps:,} steps"
    elif kind == "coretree":
        steps = _coretree(view, r, s, proof, read)
        text = f"core-tree certificate checked, {steps:,} tree nodes"
    else:
        raise ProofError(f"unknown proof kind {kind!r}; expected one of {', '.join(KINDS)}")
    return ProofCheck(kind, steps, text, time.perf_counter() - start)


def _fail(problem: str | None) -> None:
    if problem is not None:
        raise ProofError(problem)


def _theorem(view: View, r: int, s: int, proof: dict[str, Any]) -> tuple[int, str]:
    family = proof.get("family")
    if family not in theorem.FAMILIES:
        raise ProofError(f"unknown theorem family {family!r}")
    if proof.get("reference") != theorem.REFERENCES[family]:
        raise ProofError(f"the {family} proof does not cite {theorem.REFERENCES[family]!r}")
    labels = proof.get("order")
    order = None if labels is None else view.indices(labels, "the theorem's order")
    _fail(theorem.check(view.in_neighbors, r, s, family, order, proof.get("k")))
    m = sum(len(nb) for nb in view.in_neighbors)
    return m, f"theorem checked: {family} ({theorem.REFERENCES[family]})"


def _construction(
    view: View, r: int, s: int, proof: dict[str, Any], read: Reader
) -> tuple[int, str]:
    base = view.indices(proof["base"], "the construction's base")
    order = view.indices(proof["order"], "the construction's order")
    _fail(construction.check(view.in_neighbors, r, s, base, order))
    nested = proof["base_proof"]
    if nested.get("kind") == "construction":
        raise ProofError("a construction's base needs an exhaustive, theorem or lrat proof")
    inner = check_proof(view.induced(base), r, s, nested, read)
    text = (
        f"construction checked (LeBlanc et al. 2013, Thm. 5), {len(order)} node(s) on a base "
        f"of {len(base)}; base: {inner.text}"
    )
    return len(order) + inner.steps, text


def _lrat(view: View, r: int, s: int, proof: dict[str, Any], read: Reader) -> int:
    """Check an LRAT proof, cheapest checks first: the CNF's sizes in closed form against the
    recorded ones and the CNF budget, the recorded steps and bytes against theirs, the file's
    size and hash, and only then the CNF is encoded and the proof streamed through the checker
    (lines and text bounded, at most the recorded steps)."""
    encoding = proof.get("encoding")
    if encoding not in ENCODINGS:
        raise ProofError(f"unknown CNF encoding {encoding!r}; expected one of {ENCODINGS}")
    variables, clauses = size([len(nb) for nb in view.in_neighbors], r, s, encoding)
    if (proof.get("variables"), proof.get("clauses")) != (variables, clauses):
        raise ProofError(
            f"the proof is for a CNF of {proof.get('variables')} variables and "
            f"{proof.get('clauses')} clauses; the graph's is {variables} and {clauses}"
        )
    name = proof["file"]
    CNF_CLAUSES.check(clauses, f"the clauses of the CNF LRAT proof {name} refutes")
    PROOF_STEPS.check(proof["steps"], f"the steps LRAT proof {name} records")
    data = _file(proof, read, "LRAT proof")
    cnf = encode(view.canonical(), r, s, encoding)
    try:
        with gzip.open(io.BytesIO(data), "rb") as stream:
            lines = text_lines(stream, error=LratError, label=f"proof file {name}")
            steps = check_refutation(cnf.clauses, lines, max_steps=proof["steps"])
    except (OSError, EOFError) as exc:
        raise ProofError(f"proof file {name} is not gzip-compressed LRAT: {exc}") from None
    except LratError as exc:
        raise ProofError(f"LRAT proof {name} does not check: {exc}") from None
    if steps != proof["steps"]:
        raise ProofError(f"the LRAT proof has {steps} steps, not the {proof['steps']} recorded")
    return steps


def _file(proof: dict[str, Any], read: Reader, what: str) -> bytes:
    """The proof file, its recorded bytes checked against the budget before it is read and its
    size and sha256 against the record after."""
    name, recorded = proof["file"], proof["bytes"]
    FILE_BYTES.check(recorded, f"the bytes {what} {name} records")
    data = read(name)
    digest = hashlib.sha256(data).hexdigest()
    if digest != proof.get("sha256"):
        raise ProofError(f"proof file {name} has sha256 {digest}, not the one recorded")
    if len(data) != recorded:
        raise ProofError(f"proof file {name} has {len(data):,} bytes, not {recorded:,} as recorded")
    return data


def _coretree(view: View, r: int, s: int, proof: dict[str, Any], read: Reader) -> int:
    """Check a core-tree certificate (:mod:`.tree_check`): r-robustness only, its recorded
    nodes against the proof-steps budget, the file's size and hash, then the trees."""
    if s != 1:
        raise ProofError(f"a core-tree certificate proves r-robustness (s = 1), not s = {s}")
    if proof.get("format") != FORMAT:
        raise ProofError(f"unknown core-tree format {proof.get('format')!r}; expected {FORMAT}")
    nodes = proof["nodes"]
    PROOF_STEPS.check(nodes, f"the tree nodes core-tree proof {proof['file']} records")
    data = _file(proof, read, "core-tree proof")
    try:
        return check_tree(view.canonical(), r, data, nodes)
    except TreeRejected as exc:
        raise ProofError(f"core-tree proof {proof['file']} does not check: {exc}") from None
