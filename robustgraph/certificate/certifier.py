"""``certify``: prove or refute claims about a graph with the exact engines and record the
outcome, with every run checked, in a :class:`~robustgraph.certificate.document.Certificate`."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from robustgraph.certificate.claims import Claim
from robustgraph.certificate.document import Certificate, InvalidCertificate, provenance
from robustgraph.certificate.outcome import (
    claim_outcome,
    conflict,
    next_question,
    overall_verdict,
    question_text,
    run_problems,
)
from robustgraph.certificate.proof_records import (
    attach_proofs,
    decide_first,
    engine_threads,
    first_bound,
    start_ahead,
    stop_ahead,
)
from robustgraph.certificate.proofs.cubes import Split
from robustgraph.certificate.proofs.prover import MODES
from robustgraph.certificate.records import Check, ClaimRecord, GraphInfo, Run
from robustgraph.certificate.witness import canonical
from robustgraph.errors import CertificateError, ParameterError
from robustgraph.graphs import as_topology
from robustgraph.topology import Topology
from solvers import registry
from solvers.deadline import Deadline
from solvers.types import Listener, Question, Request

__all__ = [
    "DEFAULT_ENGINES",
    "EngineConflict",
    "certify",
]

DEFAULT_ENGINES = ("portfolio",)


class EngineConflict(CertificateError):
    """Two engines contradict each other, or one returned a result that fails its own checks.

    Never a silent pass: ``robustgraph certify`` exits with code 4 and writes no certificate.
    """

    exit_code = 4


def _engine_list(engines: str | Sequence[str]) -> tuple[str, ...]:
    names = [engines] if isinstance(engines, str) else list(engines)
    names = [name.strip() for name in names if name.strip()]
    if not names:
        raise ParameterError("name at least one engine")
    if len(set(names)) != len(names):
        raise ParameterError(f"engines must be distinct, got {', '.join(names)}")
    unknown = [name for name in names if name not in registry.engine_names()]
    if unknown:  # before any progress line (issue 44: `--engines gurobi` printed one first)
        known = ", ".join(registry.engine_names())
        raise ParameterError(f"unknown engine {unknown[0]!r}; choose from {known}")
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
            progress(f"{engine}: {question_text(question)} on n = {topology.n}, m = {topology.m}")
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
    proof: str = "auto",
    deadline: Deadline | None = None,
    split: Split | None = None,
    proof_first: bool = True,
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
        Seconds for the whole call (one deadline): every engine run of every question gets
        what is left of it; a claim's first question is asked even after the deadline (with
        no time: its engines report the bounds they prove at once), a further one (the F-total
        search of ``max``) is not. A claim not settled in time is ``undecided`` with its
        proven bounds.
    threads : int
        Solver threads. With 2 or more and a proof asked for (no ``split``), each decision
        claim's proof starts ahead in a child process at idle priority, the engines keeping
        every thread (``proof_records.start_ahead``, ``AHEAD_IDLE_RULE``,
        :mod:`robustgraph.certificate.proofs.ahead`).
    seed : int
        Solver seed (CP-SAT, HiGHS, CBC and the heuristics are deterministic for a seed).
    progress : callable, optional
        Called with a line before each engine run (the CLI prints it on stderr).
    listener : callable, optional
        Hears ``(lower, upper, text)`` from each engine run as it proves bounds
        (``solvers.types.Request.listener``; the CLI shows them on a terminal).
    proof : str
        How to prove each lower bound (``robustgraph.certificate.proofs.prover.MODES``):
        ``auto`` (the cheapest proof found: theorem, construction, exhaustive, LRAT), one
        kind, or ``none``. A bound no proof is found for is recorded without one. The proof
        searches share the deadline too: an LRAT search gets what is left of it (or
        ``LRAT_TIME_LIMIT`` without a limit), so a bound whose proof the deadline cuts short
        is recorded without one; the cheap kinds (theorem, construction, exhaustive) are
        tried even after it, so that a short limit still leaves checkable bounds. At one
        thread with the portfolio alone, an r-robustness claim's proof (``auto`` or
        ``coretree``) is made first, and a checked one decides the claim without the engines
        (``proof_records.TREE_DECIDES_RULE``; the check's lower bound is then r itself).
    deadline : Deadline, optional
        The deadline to keep instead of ``time_limit`` seconds from the call
        (``solvers.deadline``; the CLI passes one counted from the start of its process);
        ``time_limit`` is then only recorded in the certificate's parameters.
    split : Split, optional
        Make the LRAT proofs by cube and conquer on ``split.k`` nodes
        (:mod:`robustgraph.certificate.proofs.cubes`; ``certify --cubes``). The proof is an
        ordinary LRAT record, so a certificate does not tell how it was made.
    proof_first : bool
        Let a proof made first decide an r-robustness claim at one thread
        (``proof_records.TREE_DECIDES_RULE``). False: the engines answer every claim, so its
        check has their bounds (r* exact where they settle it), as the protocol runner's
        reports show it.

    Returns
    -------
    Certificate
        ``verdict`` is ``proven`` (exit 0), ``refuted`` (1) or ``undecided`` (3).

    Raises
    ------
    ParameterError
        No claim, bad engine list, proof mode, time limit or thread count. (A claim no graph
        on n nodes satisfies, r above ceil(n/2) or s above n, is refuted like any other.)
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
    # a networkx/igraph graph or edge list too; in canonical node order, so that the witness
    # pairs (and so the certificate) are a function of the graph, not of its file's order
    topology = canonical(as_topology(topology))
    if not claims:
        raise ParameterError("certify needs at least one claim")
    if any(not isinstance(claim, Claim) for claim in claims):
        raise ParameterError("claims must be Claim values (Claim.r_robust, Claim.tolerance, ...)")
    if len(set(claims)) != len(claims):  # verify refuses a certificate that repeats a claim
        twice = next(c for i, c in enumerate(claims) if c in claims[:i])
        raise ParameterError(f"the claim {twice.describe()} is given twice")
    if proof not in MODES:
        raise ParameterError(f"unknown proof mode {proof!r}; expected one of {', '.join(MODES)}")
    names = _engine_list(engines)
    if time_limit is not None and not time_limit > 0:
        raise ParameterError(f"time limit must be > 0 seconds, got {time_limit}")
    if threads < 1:
        raise ParameterError(f"threads must be >= 1, got {threads}")

    if deadline is None:
        deadline = Deadline.after(time_limit)

    def request(question: Question) -> Request:
        return Request(
            topology,
            question,
            time_limit=deadline.left(),
            threads=engines_threads,
            formulation=formulation,
            seed=seed,
            listener=listener,
        )

    # a decision claim's proof starts in a child that takes what CPU the engines leave
    ahead = start_ahead(topology, claims, proof, deadline, threads, split)
    engines_threads = engine_threads(threads, ahead)
    records = []
    first_files: dict[str, bytes] = {}
    tried: set[tuple[int, int]] = set()
    try:
        for claim in claims:
            checks: list[Check] = []
            r = first_bound(topology, claim, names, proof, threads, split)
            if r is not None and proof_first:  # TREE_DECIDES_RULE: a checked proof decides it
                first = decide_first(topology, claim, r, proof, deadline, progress)
                if first is None:
                    tried.add((r, 1))
                else:
                    checks.append(first[0])
                    first_files.update(first[1])
            while (question := next_question(topology, claim, checks)) is not None:
                if checks and deadline.passed():  # no further question starts after the deadline
                    break
                checks.append(_solve_check(topology, question, names, request, progress))
            verdict, values = claim_outcome(topology, claim, checks)
            seconds = round(sum(run.seconds for check in checks for run in check.runs), 4)
            records.append(ClaimRecord(claim, verdict, tuple(checks), values, seconds))
        records, files = attach_proofs(
            topology, records, proof, deadline, progress, split, ahead, tried
        )
    finally:
        stop_ahead(ahead)
    files = {**first_files, **files}
    parameters = {
        "engines": list(names),
        "formulation": formulation,
        "time_limit": time_limit,
        "threads": threads,
        "seed": seed,
        "proof": proof,
    }
    cert = Certificate(
        GraphInfo.of(topology),
        tuple(records),
        overall_verdict(record.verdict for record in records),
        provenance(parameters),
        files=files,
    )
    try:  # never hand out a certificate that its own schema rejects (e.g. odd node labels)
        Certificate.from_dict(cert.to_dict())
    except InvalidCertificate as exc:
        raise CertificateError(f"cannot certify this graph: {exc}") from None
    return cert
