"""Robustness certificates: claims about one graph, proven by exact engines, re-checkable by anyone.

A certificate binds to a graph by its content hash and records, for every claim, the questions put
to the engines, each engine's proven bounds and status, and a witness pair of node labels for every
upper bound. Witnesses are checked in polynomial time (LeBlanc et al. 2013, Defs. 5-7); lower
bounds are the engines' proofs, which a second engine (a dual-engine certificate) or
``robustgraph verify --resolve-with`` re-proves independently. The JSON form is described by
``certificate.schema.json`` (shipped with the package and published in ``docs/``).
"""

from __future__ import annotations

import datetime
import json
import platform
import subprocess
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import metadata, resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from robustgraph import __version__
from robustgraph.errors import CertificateError, ParameterError
from robustgraph.topology import Label, Topology
from solvers import registry
from solvers.types import Listener, Question, Request, Result, Witness
from solvers.witness import pair_problem, reachable_nodes, refutes_r, refutes_rs

if TYPE_CHECKING:
    from robustgraph.certificate_verify import VerifyReport

__all__ = [
    "FORMAT",
    "SCHEMA_VERSION",
    "MODELS",
    "VERDICTS",
    "DEFAULT_ENGINES",
    "EXIT_CODES",
    "EngineConflict",
    "InvalidCertificate",
    "Claim",
    "WitnessPair",
    "Run",
    "Check",
    "ClaimRecord",
    "GraphInfo",
    "Certificate",
    "certify",
    "schema",
    "aggregate",
    "conflict",
    "provenance",
    "next_question",
    "claim_outcome",
    "overall_verdict",
    "run_problems",
    "witness_problem",
    "trivial_upper",
    "witness_words",
]

FORMAT = "robustgraph-certificate"
SCHEMA_VERSION = 1
MODELS = ("sac", "wmsr-local", "wmsr-total")
VERDICTS = ("proven", "refuted", "undecided")
DEFAULT_ENGINES = ("portfolio",)
EXIT_CODES = {"proven": 0, "refuted": 1, "undecided": 3}
"""``robustgraph certify`` exit code per overall verdict (4: engines disagree; 2: bad input)."""

_PACKAGES = ("numpy", "ortools", "highspy", "pulp")
_CLAIM_FIELDS = {"r": ("r",), "rs": ("r", "s"), "tolerance": ("model", "F"), "max": ()}


class EngineConflict(CertificateError):
    """Two engines contradict each other, or one returned a result that fails its own checks.

    Never a silent pass: ``robustgraph certify`` exits with code 4 and writes no certificate.
    """

    exit_code = 4


class InvalidCertificate(CertificateError):
    """A certificate document violates the published schema (``robustgraph verify`` exits 1)."""

    exit_code = 1


# ----------------------------------------------------------------------------- claims
@dataclass(frozen=True)
class Claim:
    """What a certificate is asked to establish about a graph.

    ``kind`` is ``"r"`` (r-robust), ``"rs"`` ((r, s)-robust), ``"tolerance"`` (F Byzantine nodes
    tolerated under ``model``) or ``"max"`` (r* and the tolerated F under every model). Build one
    with :meth:`r_robust`, :meth:`rs_robust`, :meth:`tolerance` or :meth:`maximum`.

    Examples
    --------
    >>> Claim.tolerance(3, "sac").question()
    Question(kind='is_r_robust', r=4, s=None)
    >>> Claim.tolerance(1, "wmsr-total").question()
    Question(kind='is_rs_robust', r=2, s=2)

    Notes
    -----
    Models (LeBlanc et al. 2013, Thms. 1-2; SAC's resilience theorem): ``sac`` tolerates F under
    the F-local model if the graph is (F+1)-robust; ``wmsr-local``: W-MSR under the F-local model
    needs (2F+1)-robustness; ``wmsr-total``: W-MSR under the F-total model needs
    (F+1, F+1)-robustness.
    """

    kind: str
    r: int | None = None
    s: int | None = None
    F: int | None = None
    model: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in _CLAIM_FIELDS:
            raise ParameterError(
                f"unknown claim kind {self.kind!r}; expected r, rs, tolerance or max"
            )
        wanted = _CLAIM_FIELDS[self.kind]
        for name in ("r", "s", "F", "model"):
            present = getattr(self, name) is not None
            if present != (name in wanted):
                need = "needs" if name in wanted else "takes no"
                raise ParameterError(f"a {self.kind!r} claim {need} {name}")
        for name, least in (("r", 0), ("s", 1), ("F", 0)):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise ParameterError(f"{name} must be an integer, got {value!r}")
            if value is not None and value < least:
                raise ParameterError(f"{name} must be >= {least}, got {value}")
        if self.model is not None and self.model not in MODELS:
            raise ParameterError(
                f"unknown model {self.model!r}; expected one of {', '.join(MODELS)}"
            )

    @classmethod
    def r_robust(cls, r: int) -> Claim:
        """The graph is r-robust."""
        return cls("r", r=r)

    @classmethod
    def rs_robust(cls, r: int, s: int) -> Claim:
        """The graph is (r, s)-robust."""
        return cls("rs", r=r, s=s)

    @classmethod
    def tolerance(cls, F: int, model: str) -> Claim:  # noqa: N803 - F is the papers' name
        """The graph tolerates F Byzantine nodes under ``model`` (sac, wmsr-local, wmsr-total)."""
        return cls("tolerance", F=F, model=model)

    @classmethod
    def maximum(cls) -> Claim:
        """r* and the largest F tolerated under each model, with proven bounds."""
        return cls("max")

    def question(self) -> Question | None:
        """The decision question this claim amounts to (None for ``max``, which takes several)."""
        if self.kind == "r":
            return Question.is_r_robust(self.r)
        if self.kind == "rs":
            return Question.is_rs_robust(self.r, self.s)
        if self.kind == "tolerance":
            if self.model == "sac":
                return Question.is_r_robust(self.F + 1)
            if self.model == "wmsr-local":
                return Question.is_r_robust(2 * self.F + 1)
            return Question.is_rs_robust(self.F + 1, self.F + 1)
        return None

    def describe(self) -> str:
        """One line in words, e.g. ``tolerates F = 3 under sac: 4-robust``."""
        if self.kind == "max":
            return "maximum robustness r* and the tolerated F under sac, wmsr-local, wmsr-total"
        q = self.question()
        needs = f"({q.r}, {q.s})-robust" if q.about_s else f"{q.r}-robust"
        if self.kind == "tolerance":
            return f"tolerates F = {self.F} under {self.model}: {needs}"
        return needs

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        for name in ("model", "F", "r", "s"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        return out

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> Claim:
        return cls(
            doc["kind"], r=doc.get("r"), s=doc.get("s"), F=doc.get("F"), model=doc.get("model")
        )


# ----------------------------------------------------------------------------- records
@dataclass(frozen=True)
class WitnessPair:
    """Two disjoint nonempty sets of node labels (in the graph's node order)."""

    s1: tuple[Label, ...]
    s2: tuple[Label, ...]

    @classmethod
    def of(cls, topology: Topology, witness: Witness) -> WitnessPair:
        return cls(tuple(topology.names(witness.s1)), tuple(topology.names(witness.s2)))

    def to_dict(self) -> dict[str, Any]:
        return {"s1": list(self.s1), "s2": list(self.s2)}

    @classmethod
    def from_dict(cls, doc: dict[str, Any] | None) -> WitnessPair | None:
        return None if doc is None else cls(tuple(doc["s1"]), tuple(doc["s2"]))


@dataclass(frozen=True)
class Run:
    """One engine's answer to one question: proven bounds, status, time and witness."""

    engine: str
    solved_by: str
    formulation: str | None
    status: str
    lower: int
    upper: int
    seconds: float
    engine_version: str
    witness: WitnessPair | None
    params: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, topology: Topology, engine: str, result: Result) -> Run:
        params = json.loads(json.dumps(result.params, sort_keys=True, default=str))
        witness = None if result.witness is None else WitnessPair.of(topology, result.witness)
        return cls(
            engine=engine,
            solved_by=result.engine,
            formulation=result.formulation,
            status=result.status.value,
            lower=result.lower,
            upper=result.upper,
            seconds=round(result.wall_time, 4),
            engine_version=result.engine_version,
            witness=witness,
            params=params,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "engine": self.engine,
            "solved_by": self.solved_by,
            "formulation": self.formulation,
            "status": self.status,
            "lower": self.lower,
            "upper": self.upper,
            "seconds": self.seconds,
            "engine_version": self.engine_version,
            "witness": None if self.witness is None else self.witness.to_dict(),
            "params": self.params,
        }

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> Run:
        return cls(
            engine=doc["engine"],
            solved_by=doc["solved_by"],
            formulation=doc["formulation"],
            status=doc["status"],
            lower=doc["lower"],
            upper=doc["upper"],
            seconds=doc["seconds"],
            engine_version=doc["engine_version"],
            witness=WitnessPair.from_dict(doc["witness"]),
            params=doc["params"],
        )


def _question_dict(q: Question) -> dict[str, Any]:
    return {"kind": q.kind, "r": q.r, "s": q.s}


@dataclass(frozen=True)
class Check:
    """One question and the bounds every engine proved on its quantity (r* or s*_r).

    ``lower`` is the smallest lower bound over the runs (what *every* engine proved), ``upper``
    the smallest upper bound (each is backed by a witness, so any one of them suffices) and
    ``witness`` the pair behind ``upper``.
    """

    question: Question
    lower: int
    upper: int
    witness: WitnessPair | None
    runs: tuple[Run, ...]

    @classmethod
    def of(cls, question: Question, runs: Sequence[Run]) -> Check:
        lower, upper, witness = aggregate(runs)
        return cls(question, lower, upper, witness, tuple(runs))

    @property
    def bound_on(self) -> str:
        """The bounded quantity: ``r*`` or ``s*_r`` for the question's r."""
        return f"s*_{self.question.r}" if self.question.about_s else "r*"

    @property
    def holds(self) -> bool | None:
        """The settled answer of a decision question (None for max_r, or when undecided)."""
        target = self.question.target
        if target is None:
            return None
        if self.lower >= target:
            return True
        if self.upper < target:
            return False
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": _question_dict(self.question),
            "bound_on": self.bound_on,
            "lower": self.lower,
            "upper": self.upper,
            "witness": None if self.witness is None else self.witness.to_dict(),
            "runs": [run.to_dict() for run in self.runs],
        }

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> Check:
        q = doc["question"]
        return cls(
            Question(q["kind"], r=q["r"], s=q["s"]),
            doc["lower"],
            doc["upper"],
            WitnessPair.from_dict(doc["witness"]),
            tuple(Run.from_dict(run) for run in doc["runs"]),
        )


@dataclass(frozen=True)
class ClaimRecord:
    """A claim, its verdict, the checks behind it, and (for ``max``) the derived values."""

    claim: Claim
    verdict: str
    checks: tuple[Check, ...]
    values: dict[str, tuple[int, int]] | None
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        values = None
        if self.values is not None:
            values = {k: {"lower": lo, "upper": hi} for k, (lo, hi) in self.values.items()}
        return {
            "claim": self.claim.to_dict(),
            "statement": self.claim.describe(),
            "verdict": self.verdict,
            "values": values,
            "seconds": self.seconds,
            "checks": [check.to_dict() for check in self.checks],
        }

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> ClaimRecord:
        values = doc["values"]
        if values is not None:
            values = {k: (v["lower"], v["upper"]) for k, v in values.items()}
        return cls(
            Claim.from_dict(doc["claim"]),
            doc["verdict"],
            tuple(Check.from_dict(c) for c in doc["checks"]),
            values,
            doc["seconds"],
        )


@dataclass(frozen=True)
class GraphInfo:
    """What a certificate binds to: the graph's content hash, size and kind."""

    hash: str
    n: int
    m: int
    directed: bool

    @classmethod
    def of(cls, topology: Topology) -> GraphInfo:
        return cls(topology.content_hash, topology.n, topology.m, topology.directed)

    def to_dict(self) -> dict[str, Any]:
        return {"hash": self.hash, "n": self.n, "m": self.m, "directed": self.directed}


# ----------------------------------------------------------------------------- rules
# These functions are the single definition of how checks become verdicts; ``certify`` applies
# them to fresh engine results and ``Certificate.verify`` replays them on a stored certificate.


def aggregate(runs: Sequence[Run]) -> tuple[int, int, WitnessPair | None]:
    """Bounds every run proved: the smallest lower bound, the smallest (witnessed) upper bound."""
    best = min(runs, key=lambda run: run.upper)
    return min(run.lower for run in runs), best.upper, best.witness


def trivial_upper(topology: Topology, question: Question) -> int:
    """An upper bound on the question's quantity that needs no witness.

    For r*: 0 when n < 2, else ``min(ceil(n/2), max(1, min in-degree))`` (a pair of halves, or a
    node against the rest, is never that much reachable; LeBlanc et al. 2013). For s*_r: n, or
    0 when n < 2 (the convention of ``solvers.types``).
    """
    n = topology.n
    if n < 2:
        return 0
    if question.about_s:
        return n
    return min(-(-n // 2), max(1, min(topology.in_degrees)))


def _total_search(topology: Topology, checks: Sequence[Check]) -> tuple[int, int, int | None]:
    """Replay the binary search for the F-total tolerance over ``checks[1:]``.

    Returns the proven bounds ``lo <= F_total <= hi`` and the next F to ask about (None when the
    search is over). Starts from ``lo = floor((r_lo - 1) / 2)``, ``hi = u - 1`` where u is the
    upper bound on r* capped by :func:`trivial_upper`; stops early on an undecided question.

    Raises
    ------
    ValueError
        When a check asks about another F than the search would (``verify`` reports it).
    """
    r_check = checks[0]
    r_lo = r_check.lower
    lo = (r_lo - 1) // 2 if r_lo >= 1 else -1
    hi = min(r_check.upper, trivial_upper(topology, r_check.question)) - 1
    for check in checks[1:]:
        f = (lo + hi + 1) // 2
        if lo >= hi or check.question != Question.is_rs_robust(f + 1, f + 1):
            raise ValueError("the F-total search asked another question")
        if check.holds is None:
            return lo, hi, None
        lo, hi = (f, hi) if check.holds else (lo, f - 1)
    return lo, hi, ((lo + hi + 1) // 2 if lo < hi else None)


def next_question(topology: Topology, claim: Claim, checks: Sequence[Check]) -> Question | None:
    """The next question to settle ``claim`` given the checks so far, or None when done.

    ``r``, ``rs`` and ``tolerance`` claims take one decision question. ``max`` asks ``max_r``,
    then binary-searches the F-total tolerance of W-MSR with ``is_rs_robust(F+1, F+1)``:
    (r, s)-robustness is monotone in r and s and implies r-robustness, so F_total <= r* - 1;
    and a (2F+1)-robust graph is (F+1, F+1)-robust (a violating pair, with its (F+1)-reachable
    nodes removed, would violate (2F+1)-robustness), so F_total >= floor((r* - 1) / 2)
    (LeBlanc et al. 2013). Returns None, too, when ``checks`` strays from this sequence.
    """
    if claim.kind != "max":
        return None if checks else claim.question()
    if not checks:
        return Question.max_r()
    try:
        _, _, f = _total_search(topology, checks)
    except ValueError:
        return None
    return None if f is None else Question.is_rs_robust(f + 1, f + 1)


def _max_values(topology: Topology, checks: Sequence[Check]) -> dict[str, tuple[int, int]]:
    r_lo, r_hi = checks[0].lower, checks[0].upper
    total_lo, total_hi, _ = _total_search(topology, checks)
    return {
        "r": (r_lo, r_hi),
        "sac": (r_lo - 1, r_hi - 1),
        "wmsr-local": ((r_lo - 1) // 2, (r_hi - 1) // 2),
        "wmsr-total": (total_lo, total_hi),
    }


def claim_outcome(
    topology: Topology, claim: Claim, checks: Sequence[Check]
) -> tuple[str, dict[str, tuple[int, int]] | None]:
    """Verdict (and, for ``max``, the values with proven bounds) that ``checks`` establish.

    A decision claim is ``proven`` when every engine proved it, ``refuted`` when a witnessed
    upper bound falls below its target, else ``undecided``. A ``max`` claim is ``proven`` when
    r* and the F-total tolerance are both exact, else ``undecided``; tolerances are -1 when not
    even fault-free consensus is guaranteed (r* = 0).
    """
    if claim.kind != "max":
        holds = checks[0].holds
        return {True: "proven", False: "refuted", None: "undecided"}[holds], None
    values = _max_values(topology, checks)
    exact = all(lo == hi for lo, hi in (values["r"], values["wmsr-total"]))
    return ("proven" if exact else "undecided"), values


def overall_verdict(verdicts: Iterable[str]) -> str:
    """``refuted`` if any claim is, else ``undecided`` if any is, else ``proven``."""
    verdicts = set(verdicts)
    for verdict in ("refuted", "undecided"):
        if verdict in verdicts:
            return verdict
    return "proven"


def _indices(
    topology: Topology, labels: Sequence[Label]
) -> tuple[frozenset[int] | None, str | None]:
    by_text = {str(label): i for i, label in enumerate(topology.labels)}
    out = set()
    for label in labels:
        try:
            out.add(topology.index(label))
        except KeyError:
            if str(label) not in by_text:
                return None, f"node {label!r} is not in the graph"
            out.add(by_text[str(label)])
    return frozenset(out), None


def _braces(labels: Iterable[Label]) -> str:
    return "{" + ", ".join(str(x) for x in labels) + "}"


def witness_problem(
    topology: Topology, question: Question, upper: int, pair: WitnessPair
) -> str | None:
    """Why ``pair`` fails to prove that the question's quantity is at most ``upper``, or None.

    For r*: neither set may be (upper+1)-reachable (LeBlanc et al. 2013, Def. 6). For s*_r: the
    pair must violate (r, upper+1)-robustness (Def. 7). Polynomial time.
    """
    s1, problem = _indices(topology, pair.s1)
    s2, problem2 = _indices(topology, pair.s2)
    problem = problem or problem2 or pair_problem(topology.n, s1, s2)
    if problem is None and (len(s1) != len(pair.s1) or len(s2) != len(pair.s2)):
        problem = "a witness set lists a node twice"
    if problem:
        return problem
    nb = topology.in_neighbors
    if question.about_s:
        if refutes_rs(nb, s1, s2, question.r, upper + 1):
            return None
        return (
            f"S1 = {_braces(pair.s1)}, S2 = {_braces(pair.s2)} does not violate "
            f"({question.r}, {upper + 1})-robustness, "
            f"so it does not show s*_{question.r} <= {upper}"
        )
    if refutes_r(nb, s1, s2, upper + 1):
        return None
    return (
        f"S1 = {_braces(pair.s1)}, S2 = {_braces(pair.s2)}: one of them is {upper + 1}-reachable, "
        f"so it does not show r* <= {upper}"
    )


def witness_words(topology: Topology, question: Question, pair: WitnessPair, bound: int) -> str:
    """A witness in words: why the graph is not ``bound``-robust (or not (r, bound)-robust)."""
    head = f"S1 = {_braces(pair.s1)}, S2 = {_braces(pair.s2)}"
    if not question.about_s:
        return f"{head}: no node of either has {bound} in-neighbours outside its own set"
    s1, _ = _indices(topology, pair.s1)
    s2, _ = _indices(topology, pair.s2)
    r = question.r
    count = sum(len(reachable_nodes(topology.in_neighbors, s, r)) for s in (s1, s2))
    return (
        f"{head}: each set has a node with fewer than {r} in-neighbours outside it, and only "
        f"{count} node(s) of the two have {r} (fewer than s = {bound})"
    )


def run_problems(topology: Topology, question: Question, run: Run) -> list[str]:
    """Everything wrong with one engine run on its own: bounds, status, witness.

    A run's status is ``exact`` exactly when its bounds settle the question (meet, for max_r or
    max_s; pass the target either way, for a decision); a proven lower bound above the trivial
    upper bound is impossible; an upper bound below it needs a witness that verifies.
    """
    problems = []
    name = f"{run.engine} on {_question_text(question)}"
    if not 0 <= run.lower <= run.upper:
        problems.append(f"{name}: bounds {run.lower} <= {run.upper} are not ordered and >= 0")
    trivial = trivial_upper(topology, question)
    if run.lower > trivial:
        problems.append(
            f"{name}: lower bound {run.lower} is impossible: {_trivial_text(topology, question)}"
        )
    target = question.target
    settled = (
        run.lower == run.upper if target is None else run.lower >= target or run.upper < target
    )
    if settled != (run.status == "exact"):
        problems.append(
            f"{name}: status {run.status} is inconsistent with bounds [{run.lower}, {run.upper}]"
        )
    if run.witness is not None:
        problem = witness_problem(topology, question, run.upper, run.witness)
        if problem:
            problems.append(f"{name}: witness invalid: {problem}")
    elif run.upper < trivial:
        problems.append(f"{name}: upper bound {run.upper} has no witness")
    return problems


def _question_text(q: Question) -> str:
    args = ", ".join(str(x) for x in (q.r, q.s) if x is not None)
    return f"{q.kind}({args})"


def _trivial_text(topology: Topology, question: Question) -> str:
    n = topology.n
    if question.about_s:
        return f"s* is at most n = {n}" if n >= 2 else "a graph with fewer than 2 nodes has s* = 0"
    if n < 2:
        return "a graph with fewer than 2 nodes has r* = 0"
    return (
        f"r* is at most ceil(n/2) = {-(-n // 2)} and at most max(1, min in-degree) = "
        f"{max(1, min(topology.in_degrees))}"
    )


def conflict(question: Question, runs: Sequence[Run]) -> str | None:
    """A description of how the runs contradict each other (one proves above another's witness)."""
    high = max(runs, key=lambda run: run.lower)
    low = min(runs, key=lambda run: run.upper)
    if high.lower <= low.upper:
        return None
    q = "s*" if question.about_s else "r*"
    return (
        f"engines disagree on {_question_text(question)}: {high.engine} proved {q} >= {high.lower} "
        f"but {low.engine} proved {q} <= {low.upper}"
    )


# ----------------------------------------------------------------------------- certificate
@cache
def schema() -> dict[str, Any]:
    """The published JSON Schema of a certificate (``robustgraph/certificate.schema.json``)."""
    text = resources.files("robustgraph").joinpath("certificate.schema.json").read_text("utf-8")
    return json.loads(text)


def _schema_errors(doc: Any) -> list[str]:
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(schema())
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    return [f"at /{'/'.join(str(p) for p in e.absolute_path)}: {_clip(e.message)}" for e in errors]


def _clip(message: str, limit: int = 200) -> str:
    """A schema message cut to ``limit`` characters: jsonschema quotes the whole offending value
    ("[...] is not of type 'object'" printed an entire list-wrapped certificate)."""
    return message if len(message) <= limit else f"{message[: limit - 65]} ... {message[-60:]}"


def _json_text(value: Any, indent: str) -> str:
    """JSON with dict keys in insertion order; a list of scalars (a node set) stays on one line."""
    inner = indent + "  "
    if isinstance(value, dict) and value:
        items = [f"{inner}{json.dumps(k)}: {_json_text(v, inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    if isinstance(value, list) and any(isinstance(v, dict | list) for v in value):
        items = [inner + _json_text(v, inner) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + indent + "]"
    return json.dumps(value, ensure_ascii=False)


@dataclass(frozen=True)
class Certificate:
    """A robustness certificate: the graph it binds to, the claims, and the provenance.

    Produce one with :func:`certify`; read one with :meth:`load`; re-check one with
    :meth:`verify`. ``dumps`` writes keys in a fixed order, so two certificates of the same graph
    differ only in timings and provenance.
    """

    graph: GraphInfo
    claims: tuple[ClaimRecord, ...]
    verdict: str
    provenance: dict[str, Any]
    schema_version: int = SCHEMA_VERSION

    @property
    def exit_code(self) -> int:
        """0 proven, 1 refuted, 3 undecided: what ``robustgraph certify`` exits with."""
        return EXIT_CODES[self.verdict]

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "schema_version": self.schema_version,
            "verdict": self.verdict,
            "graph": self.graph.to_dict(),
            "claims": [record.to_dict() for record in self.claims],
            "provenance": self.provenance,
        }

    def dumps(self) -> str:
        """The certificate as JSON text: fixed key order, 2-space indent, lists of labels on one
        line, trailing newline."""
        return _json_text(self.to_dict(), "") + "\n"

    def dump(self, path: str | Path) -> None:
        """Write :meth:`dumps` to ``path``."""
        Path(path).write_text(self.dumps(), encoding="utf-8")

    @classmethod
    def from_dict(cls, doc: Any) -> Certificate:
        """Build a Certificate from its JSON form.

        Raises
        ------
        InvalidCertificate
            When ``doc`` violates the schema (the message names the first violation and where).
        """
        errors = _schema_errors(doc)
        if errors:
            more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
            raise InvalidCertificate(f"certificate does not match the schema {errors[0]}{more}")
        try:
            claims = tuple(ClaimRecord.from_dict(c) for c in doc["claims"])
        except (ParameterError, KeyError) as exc:
            raise InvalidCertificate(
                f"certificate has an impossible claim or question: {exc}"
            ) from None
        for i, (record, raw) in enumerate(zip(claims, doc["claims"], strict=True), 1):
            if raw["statement"] != record.claim.describe():
                raise InvalidCertificate(
                    f"claim {i}: statement {raw['statement']!r} does not describe the claim "
                    f"{record.claim.to_dict()}, which reads {record.claim.describe()!r}"
                )
        g = doc["graph"]
        return cls(
            GraphInfo(g["hash"], g["n"], g["m"], g["directed"]),
            claims,
            doc["verdict"],
            doc["provenance"],
            doc["schema_version"],
        )

    @classmethod
    def loads(cls, text: str, *, source: str = "certificate") -> Certificate:
        """Parse JSON text; ``CertificateError`` (exit 2) if it is not JSON at all."""
        try:
            doc = json.loads(text)
        except (ValueError, RecursionError) as exc:  # also 4300+ digit numbers, deep nesting
            raise CertificateError(f"{source}: not valid JSON: {str(exc).split(';')[0]}") from None
        return cls.from_dict(doc)

    @classmethod
    def load(cls, path: str | Path) -> Certificate:
        """Read a certificate file (missing file: ``FileNotFoundError``)."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise CertificateError(f"{path}: not a UTF-8 text file") from None
        return cls.loads(text, source=str(path))

    def verify(
        self,
        topology: Topology,
        *,
        resolve_with: str | None = None,
        time_limit: float | None = None,
        threads: int = 1,
    ) -> VerifyReport:
        """Re-check this certificate against ``topology``.

        See :func:`robustgraph.certificate_verify.verify`; returns its ``VerifyReport``
        (``valid``, ``reasons``, ``exit_code``).
        """
        from robustgraph.certificate_verify import verify

        return verify(
            self, topology, resolve_with=resolve_with, time_limit=time_limit, threads=threads
        )


# ----------------------------------------------------------------------------- certify
def _git() -> dict[str, Any] | None:
    root = Path(__file__).resolve().parent.parent

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, timeout=10, check=True
        )
        return done.stdout.strip()

    try:
        if Path(git("rev-parse", "--show-toplevel")).resolve() != root:
            return None
        return {"revision": git("rev-parse", "HEAD"), "dirty": bool(git("status", "--porcelain"))}
    except (OSError, subprocess.SubprocessError):
        return None


def _package_versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {}
    for name in _PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def provenance(parameters: dict[str, Any]) -> dict[str, Any]:
    """Tool version, git revision and dirty flag (if run from a checkout), package versions,
    Python version, the parameters, and the UTC creation time."""
    created = (
        datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    )
    return {
        "tool": "robustgraph",
        "tool_version": __version__,
        "created": created,
        "git": _git(),
        "python": platform.python_version(),
        "packages": _package_versions(),
        "parameters": parameters,
    }


def _engine_list(engines: str | Sequence[str]) -> tuple[str, ...]:
    names = [engines] if isinstance(engines, str) else list(engines)
    names = [name.strip() for name in names if name.strip()]
    if not names:
        raise ParameterError("name at least one engine")
    if len(set(names)) != len(names):
        raise ParameterError(f"engines must be distinct, got {', '.join(names)}")
    return tuple(names)


def _solve_check(
    topology: Topology,
    question: Question,
    engines: Sequence[str],
    request: Callable[[Question], Request],
    progress: Callable[[str], None] | None,
) -> Check:
    runs = []
    for engine in engines:
        if progress:
            progress(f"{engine}: {_question_text(question)} on n = {topology.n}, m = {topology.m}")
        run = Run.of(topology, engine, registry.solve(request(question), engine))
        problems = run_problems(topology, question, run)
        if problems:
            raise EngineConflict(f"engine {engine} returned an unusable result: {problems[0]}")
        runs.append(run)
    disagreement = conflict(question, runs)
    if disagreement:
        raise EngineConflict(disagreement)
    return Check.of(question, runs)


def certify(
    topology: Topology,
    *claims: Claim,
    engines: str | Sequence[str] = DEFAULT_ENGINES,
    formulation: str = "strong",
    time_limit: float | None = None,
    threads: int = 1,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
    listener: Listener | None = None,
) -> Certificate:
    """Prove or refute each claim about ``topology`` and record it in a :class:`Certificate`.

    Parameters
    ----------
    topology : Topology
        The graph (robustness on in-neighbours: edge u -> v means v hears u).
    *claims : Claim
        At least one; see :class:`Claim`.
    engines : str or sequence of str
        Engine names from ``solvers.registry``. With several, *every* engine must prove each claim
        on its own (a dual-engine certificate); a refutation needs one witness, which is checked.
    formulation : str
        ``published`` or ``strong``, for the MILP/CP engines.
    time_limit : float, optional
        Seconds per engine per question; a question not settled in time is ``undecided``.
    threads : int
        Solver threads.
    seed : int
        Solver seed (CP-SAT, HiGHS, CBC and the heuristics are deterministic for a seed).
    progress : callable, optional
        Called with a line before each engine run (the CLI prints it on stderr).
    listener : callable, optional
        Hears ``(lower, upper, text)`` from each engine run as it proves bounds
        (``solvers.types.Request.listener``; the CLI shows them on a terminal).

    Returns
    -------
    Certificate
        ``verdict`` is ``proven`` (exit 0), ``refuted`` (1) or ``undecided`` (3).

    Raises
    ------
    ParameterError
        No claim, bad engine list, time limit or thread count.
    EngineConflict
        Engines contradict each other, or one returned a result that fails its own checks.
    SolverUnavailable
        An engine is not installed or refuses the graph.

    Examples
    --------
    >>> from robustgraph import Topology
    >>> k4 = Topology.from_edges([(u, v) for u in range(4) for v in range(u + 1, 4)])
    >>> certify(k4, Claim.tolerance(1, "sac"), engines="exhaustive").verdict
    'proven'

    Notes
    -----
    The cost is that of the engines: one question per decision claim, and for ``max`` one
    ``max_r`` plus about log2(r*) questions ``is_rs_robust(F+1, F+1)`` (see
    :func:`next_question`).

    References
    ----------
    LeBlanc, Zhang, Koutsoukos, Sundaram, "Resilient asymptotic consensus in robust networks",
    IEEE JSAC 31(4), 2013: Defs. 5-7 (robustness), Thms. 1-2 (W-MSR under F-total and F-local).
    """
    if not claims:
        raise ParameterError("certify needs at least one claim")
    if any(not isinstance(claim, Claim) for claim in claims):
        raise ParameterError("claims must be Claim values (Claim.r_robust, Claim.tolerance, ...)")
    names = _engine_list(engines)
    if time_limit is not None and not time_limit > 0:
        raise ParameterError(f"time limit must be > 0 seconds, got {time_limit}")
    if threads < 1:
        raise ParameterError(f"threads must be >= 1, got {threads}")

    def request(question: Question) -> Request:
        return Request(
            topology,
            question,
            time_limit=time_limit,
            threads=threads,
            formulation=formulation,
            seed=seed,
            listener=listener,
        )

    records = []
    for claim in claims:
        checks: list[Check] = []
        while (question := next_question(topology, claim, checks)) is not None:
            checks.append(_solve_check(topology, question, names, request, progress))
        verdict, values = claim_outcome(topology, claim, checks)
        seconds = round(sum(run.seconds for check in checks for run in check.runs), 4)
        records.append(ClaimRecord(claim, verdict, tuple(checks), values, seconds))
    parameters = {
        "engines": list(names),
        "formulation": formulation,
        "time_limit": time_limit,
        "threads": threads,
        "seed": seed,
    }
    return Certificate(
        GraphInfo.of(topology),
        tuple(records),
        overall_verdict(record.verdict for record in records),
        provenance(parameters),
    )
