"""Exact r- and (r,s)-robustness of a Topology, the fault tolerances they imply, witnesses in words.

Thin, typed entry points over ``solvers``: each call takes any graph a caller holds (a Topology,
a networkx or igraph graph, an edge list: :func:`robustgraph.graphs.as_topology`), builds one
:class:`solvers.types.Request` and returns the engine's :class:`~solvers.types.Result` (proven
bounds, status, checked witness) with the witness in the caller's node labels.
Definitions follow LeBlanc, Zhang, Koutsoukos & Sundaram, "Resilient asymptotic consensus in
robust networks", IEEE JSAC 31(4), 2013, on in-neighbours.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields

from robustgraph.certificate.claims import MODELS
from robustgraph.certificate.records import WitnessPair
from robustgraph.certificate.witness import witness_words
from robustgraph.errors import ParameterError, RobustgraphError
from robustgraph.graphs import GraphInput, as_topology, in_labels, witness_labels
from solvers import registry
from solvers.deadline import Deadline
from solvers.types import Listener, Question, Request, Result, Witness
from solvers.witness import reach

__all__ = [
    "Decision",
    "Undecided",
    "max_r",
    "is_r_robust",
    "max_s",
    "is_rs_robust",
    "Tolerance",
    "TOLERANCE_MODELS",
    "tolerances",
    "describe_witness",
]

TOLERANCE_MODELS = MODELS
"""The consensus rules :func:`tolerances` reports on (the certificate's models)."""


def _solve(
    graph: GraphInput,
    question: Question,
    engine: str,
    formulation: str,
    time_limit: float | None,
    threads: int,
    seed: int,
    listener: Listener | None = None,
) -> Result:
    topology = as_topology(graph)
    request = Request(topology, question, time_limit, threads, formulation, seed, listener)
    return in_labels(topology, registry.solve(request, engine))


class Undecided(RobustgraphError, ValueError):
    """The truth value of a decision the time limit left open (exit code 3, as ``certify``)."""

    exit_code = 3


@dataclass(frozen=True)
class Decision(Result):
    """The answer to a yes/no question (:func:`is_r_robust`, :func:`is_rs_robust`), where a
    networkx user looks for it: ``bool(result)`` and ``result.value`` are the answer, as with
    ``nx.is_connected``. ``lower`` and ``upper`` stay the proven bounds on the question's
    quantity (r*, or s*_r) and ``witness`` refutes a False answer; ``holds`` is ``value``.

    Undecided (a time limit stopped the engines between the bounds): ``value`` is None and
    ``bool(result)`` raises :class:`Undecided` rather than guess either way.

    Examples
    --------
    >>> import networkx as nx
    >>> res = is_r_robust(nx.complete_graph(5), 3)
    >>> bool(res), res.value, (res.lower, res.upper)
    (True, True, (3, 3))
    >>> "robust" if is_r_robust(nx.cycle_graph(6), 2) else "not robust"
    'not robust'
    """

    @property
    def value(self) -> bool | None:  # type: ignore[override]  # the answer, not r*
        return self.holds

    def __bool__(self) -> bool:
        if self.holds is None:
            raise Undecided(
                f"{self.question.kind}(r={self.question.r}, s={self.question.s}) is undecided "
                f"within the time limit (bounds {self.lower}..{self.upper}); read .holds "
                "(None) or raise the time limit"
            )
        return self.holds

    @classmethod
    def of(cls, result: Result) -> Decision:
        """The same result, read as a decision."""
        return cls(**{f.name: getattr(result, f.name) for f in fields(result)})


def max_r(
    topology: GraphInput,
    *,
    engine: str = "portfolio",
    formulation: str = "strong",
    time_limit: float | None = None,
    threads: int = 1,
    seed: int = 0,
    listener: Listener | None = None,
) -> Result:
    """r*: the largest r for which ``topology`` is r-robust, with proven bounds and a witness.

    Parameters
    ----------
    topology : Topology, networkx or igraph graph, or edge list
        The graph (see :func:`robustgraph.graphs.as_topology`); edge ``u -> v`` means v hears u.
    engine : str
        A name from ``solvers.registry.ENGINES`` (default: the portfolio).
    formulation : {"strong", "published"}
        Model used by the cpsat, highs and cbc engines.
    time_limit : float, optional
        Seconds for the whole call (a wall-clock deadline: bounds, heuristics and solves share
        it); on expiry the result is ``bounded`` with the best proven bounds.
    threads : int
        Solver threads.
    seed : int
        Seeds heuristics and solvers.
    listener : callable, optional
        Hears ``(lower, upper, text)`` as bounds are proven (``solvers.types.Request.listener``).

    Returns
    -------
    Result
        ``value`` is r* when ``status`` is exact; ``witness`` is a pair (S1, S2) of frozensets
        of node labels, neither of which is (upper+1)-reachable.

    Raises
    ------
    ParameterError
        Unknown engine or formulation.
    SolverUnavailable
        The engine is not installed or refuses the graph (exhaustive above its size limit).

    Examples
    --------
    >>> import networkx as nx
    >>> max_r(nx.complete_graph(5)).value
    3

    Notes
    -----
    NP-hard in general (coNP-complete decision); the portfolio answers small graphs by subset
    DP and large ones with proven bounds plus a CP-SAT decision model for the gap.

    References
    ----------
    LeBlanc et al. 2013, Def. 6; Usevitch & Panagou, Automatica 111 (2020).
    """
    return _solve(
        topology, Question.max_r(), engine, formulation, time_limit, threads, seed, listener
    )


def is_r_robust(
    topology: GraphInput,
    r: int,
    *,
    engine: str = "portfolio",
    formulation: str = "strong",
    time_limit: float | None = None,
    threads: int = 1,
    seed: int = 0,
) -> Decision:
    """Decide r-robustness: ``bool(result)`` and ``result.value`` are the answer.

    Parameters as for :func:`max_r`, plus ``r``.

    Returns
    -------
    Decision
        ``value`` (also ``holds``) is True, False (``witness`` then names two sets, neither
        r-reachable) or None when a time limit left it undecided (``bool()`` then raises
        :class:`Undecided`); ``lower``/``upper`` are the proven bounds on r*.

    Examples
    --------
    >>> import networkx as nx
    >>> is_r_robust(nx.cycle_graph(6), 2).value
    False
    """
    return Decision.of(
        _solve(topology, Question.is_r_robust(r), engine, formulation, time_limit, threads, seed)
    )


def max_s(
    topology: GraphInput,
    r: int,
    *,
    engine: str = "portfolio",
    formulation: str = "strong",
    time_limit: float | None = None,
    threads: int = 1,
    seed: int = 0,
    listener: Listener | None = None,
) -> Result:
    """s*_r: the largest s for which ``topology`` is (r, s)-robust (0 if not r-robust, at most n).

    Parameters as for :func:`max_r`.

    Examples
    --------
    >>> import networkx as nx
    >>> max_s(nx.complete_graph(5), 2).value
    5

    References
    ----------
    LeBlanc et al. 2013, Def. 7.
    """
    return _solve(
        topology, Question.max_s(r), engine, formulation, time_limit, threads, seed, listener
    )


def is_rs_robust(
    topology: GraphInput,
    r: int,
    s: int,
    *,
    engine: str = "portfolio",
    formulation: str = "strong",
    time_limit: float | None = None,
    threads: int = 1,
    seed: int = 0,
) -> Decision:
    """Decide (r, s)-robustness: a :class:`Decision` as for :func:`is_r_robust` (its bounds
    are on s*_r)."""
    question = Question.is_rs_robust(r, s)
    return Decision.of(
        _solve(topology, question, engine, formulation, time_limit, threads, seed)
    )


@dataclass(frozen=True)
class Tolerance:
    """Proven bounds on the largest F a consensus rule tolerates on the graph (-1: not even F = 0).

    ``model``: ``sac`` (SAC, F-local, needs (F+1)-robustness), ``wmsr-local`` (W-MSR, F-local,
    needs (2F+1)-robustness), ``wmsr-total`` (W-MSR, F-total, needs (F+1, F+1)-robustness).
    """

    model: str
    lower: int
    upper: int

    @property
    def value(self) -> int | None:
        return self.lower if self.lower == self.upper else None

    @property
    def requirement(self) -> str:
        return {
            "sac": "(F+1)-robust",
            "wmsr-local": "(2F+1)-robust",
            "wmsr-total": "(F+1, F+1)-robust",
        }[self.model]


def tolerances(
    topology: GraphInput,
    *,
    models: Sequence[str] = TOLERANCE_MODELS,
    r_result: Result | None = None,
    engine: str = "portfolio",
    formulation: str = "strong",
    time_limit: float | None = None,
    threads: int = 1,
    seed: int = 0,
    on_question: Callable[[Question], Listener | None] | None = None,
) -> dict[str, Tolerance]:
    """F for SAC (F-local), W-MSR (F-local) and W-MSR (F-total), each with proven bounds.

    SAC tolerates F = r* - 1 and W-MSR under the F-local model F = floor((r* - 1) / 2) (LeBlanc
    et al. 2013, Thm. 2); both follow from the bounds on r*. W-MSR under the F-total model needs
    (F+1, F+1)-robustness (LeBlanc et al. 2013, Thm. 1), found by binary search over
    ``is_rs_robust(F+1, F+1)`` between
    ``floor((r_lower - 1) / 2)`` -- a (2F+1)-robust graph is (F+1, F+1)-robust: if a pair
    violated it, removing the (F+1)-reachable nodes from both sets would leave a pair in which
    no node has more than F + F outside neighbours -- and ``r_upper - 1``, since (r, s)-robustness
    implies r-robustness and is monotone in r and s.

    Parameters
    ----------
    models : sequence of str
        Which tolerances to report, from :data:`TOLERANCE_MODELS` (default: all three). Only
        ``wmsr-total`` asks more than r*: leave it out to pay for r* alone.
    r_result : Result, optional
        A result of :func:`max_r` to reuse; computed when absent.
    time_limit : float, optional
        Seconds for the whole call (one deadline: r*, then the F-total questions, each given
        what is left). A question the deadline stops leaves proven bounds; none is started
        after the deadline.
    on_question : callable, optional
        Called with each question before it is solved (progress reporting); what it returns,
        if not None, is that solve's listener (``solvers.types.Request.listener``).

    Returns
    -------
    dict
        One :class:`Tolerance` per asked model, in the order of :data:`TOLERANCE_MODELS`.

    Raises
    ------
    ParameterError
        An unknown model name, or none.

    Examples
    --------
    >>> import networkx as nx
    >>> k5 = nx.complete_graph(5)
    >>> {m: t.value for m, t in tolerances(k5, models=["sac", "wmsr-local"]).items()}
    {'sac': 2, 'wmsr-local': 1}
    """
    unknown = [m for m in models if m not in TOLERANCE_MODELS]
    if unknown or not models:
        what = f"unknown tolerance model {unknown[0]!r}" if unknown else "no tolerance model"
        raise ParameterError(f"{what}; choose from {', '.join(TOLERANCE_MODELS)}")
    deadline = Deadline.after(time_limit)

    topology = as_topology(topology)

    def ask(question: Question) -> Result:
        listener = on_question(question) if on_question is not None else None
        left = deadline.left()
        return _solve(topology, question, engine, formulation, left, threads, seed, listener)

    if r_result is None:
        r_result = ask(Question.max_r())
    r_lo, r_hi = r_result.lower, r_result.upper
    found = {
        "sac": Tolerance("sac", r_lo - 1, r_hi - 1),
        "wmsr-local": Tolerance("wmsr-local", (r_lo - 1) // 2, (r_hi - 1) // 2),
    }
    if "wmsr-total" in models:
        lo = (r_lo - 1) // 2 if r_lo >= 1 else -1
        hi = r_hi - 1
        while lo < hi and not deadline.passed():  # F_total >= lo and <= hi, both proven
            f = (lo + hi + 1) // 2
            holds = ask(Question.is_rs_robust(f + 1, f + 1)).holds
            if holds is None:
                break
            if holds:
                lo = f
            else:
                hi = f - 1
        found["wmsr-total"] = Tolerance("wmsr-total", lo, hi)
    return {m: found[m] for m in TOLERANCE_MODELS if m in models}


def describe_witness(
    topology: GraphInput, result: Result | Witness | None, *, most: int | None = None
) -> str | None:
    """The witness of a result of this module in words; None when it has no witness.

    The words of :func:`robustgraph.certificate.witness_words` for the bound ``upper + 1``;
    ``most`` lists at most that many labels of each set (None: all). ``result`` may also be
    the witness itself (``describe_witness(g, decision.witness)``): its words then say the
    most it shows on its own, that the graph is not (k+1)-robust for k the larger reach of
    its two sets (LeBlanc et al. 2013, Def. 6).

    Raises
    ------
    ParameterError
        When ``result`` is neither a result nor a witness, or names a node not in the graph.

    Examples
    --------
    >>> import networkx as nx
    >>> g = nx.path_graph(["a", "b", "c"])
    >>> print(describe_witness(g, max_r(g, engine="exhaustive")))
    S1 = {a}, S2 = {b, c}: no node of either has 2 in-neighbours outside its own set
    >>> print(describe_witness(g, is_r_robust(g, 2, engine="exhaustive").witness))
    S1 = {a}, S2 = {b, c}: no node of either has 2 in-neighbours outside its own set
    """
    if isinstance(result, Result):
        witness, question, bound = result.witness, result.question, result.upper + 1
    elif isinstance(result, Witness) or result is None:
        witness, question, bound = result, Question.max_r(), None
    else:
        raise ParameterError(
            "describe_witness takes a result of max_r, is_r_robust, max_s or is_rs_robust, or "
            f"its .witness; got {type(result).__name__}"
        )
    if witness is None:
        return None
    topology = as_topology(topology)
    try:
        sets = witness_labels(topology, witness)
    except KeyError as exc:
        raise ParameterError(f"the witness names node {exc.args[0]!r}, not in the graph") from None
    if bound is None:
        nb = topology.in_neighbors
        bound = 1 + max(reach(nb, map(topology.index, sets[k])) for k in ("s1", "s2"))
    pair = WitnessPair(tuple(sets["s1"]), tuple(sets["s2"]))
    return witness_words(topology, question, pair, bound, most=most)
