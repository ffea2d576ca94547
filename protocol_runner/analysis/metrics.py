"""The SAC paper's accuracy metrics and the run's cost, computed from per-query result records.

Every metric is a mean over queries of a per-query value (:func:`query_values`), and over seeds
of the per-seed means; one two-level bootstrap (seeds, then queries within a seed) gives all
confidence intervals (:func:`bootstrap_means`; own code rather than ``scipy.stats.bootstrap``,
which resamples one level and has no clusters, NaN-aware columns or resamples shared across
columns). Keys are the paper's names
(Lee et al. 2026, Sec. 5.1 and Table 1, and the authors' ``tools/paper_metrics.py``). For one
query, with V the ``n`` agents of the roster (adversaries included), H the honest agents (role
``strong`` or ``weak``), W and S the weak and strong honest agents:

- **IAA** (initial answer accuracy): ``|{v in V : round-0 answer of v correct}| / |V|``.
- **FAA** (final answer accuracy): the same for the final answers.
- **BFTI** (Byzantine fault-tolerance improvement): ``FAA - IAA`` (a difference of fractions,
  not relative to IAA); its interval is the bootstrap interval of the paired difference.
- **RA**: 1 when the plurality answer of V's final answers is correct, else 0.
- **H_Majority**: the same over H.
- **W_IAA, W_FAA, S_IAA, S_FAA**: IAA and FAA over W (resp. S); undefined (``None``) for a
  roster without such agents.
- **IAA_H, FAA_H, BFTI_H** (not in the paper's table; named as such): IAA, FAA and BFTI over H
  only (the honest-only reading used by this project before issue 21).
- **RA_strict, H_Majority_strict** (not in the paper): 1 when MORE than half of V (resp. H)
  hold a correct final answer (a tie is not a majority).
- **decision** (not in the paper's table; for protocols that produce one group answer:
  majority vote, CrS, judge-only): the fraction of queries whose ``decision`` is correct, over
  the queries that have a decision.
- **per-round accuracy**: for every round ``r = 0..T``, the fraction of the agents of each group
  of :data:`ROUND_GROUPS` (``all`` = V, ``honest`` = H, ``weak`` = W, ``strong`` = S) whose
  round-``r`` answer is correct, averaged over the queries that have round ``r``.

An adversary's answer is what it sent (its record turn: the answer it sent most receivers); an
answer that could not be parsed (``null``, e.g. a ``silent`` adversary) counts as incorrect, as
``protocol_runner.protocols.answers`` rules.

**Plurality** (RA, H_Majority): the group's final answers are grouped (every correct answer is
one group, as the grader makes them equal; wrong answers by their normalised text, numbers by
value); an unparsed answer casts no vote. The query counts as correct iff the correct group has
strictly more votes than every other group: **a tie for the top counts as wrong** (the
authors' ``Counter.most_common(1)`` breaks it by first-seen order, which depends on the order
agents are listed; counting it wrong is the conservative, order-free reading). No vote is wrong.
**RA_first, H_Majority_first** (the authors' rule, ``reproduce``'s default): the same, but a tie
for the top goes to the group whose first vote comes first in agent order.

A run with ``--commit-gate`` (``protocol_runner.commit.stage``) adds, for each decision rule of
:data:`COMMIT_RULES` (the evidence-diversity gate, a plain 2f+1 quorum), four rates over queries
(:func:`commit_values`): **commit** (the rule committed a value), **false commit** (the
committed value is wrong; a fraction of the queries with a commit), **escalation** (a
correlated quorum was escalated) and **abort** (the independent re-execution did not reproduce
the value). The gate's rates count its final decision: after a correlated quorum, the decision
of the diversity-forcing round (so an escalation is one to a human); the plain quorum decides
the first round's votes once.

**Seeds.** Records carry their run's seed; a metric's point estimate is the mean over seeds of
the per-seed means (each seed weighs the same), and :attr:`ProtocolMetrics.per_seed` keeps each
seed's mean. Within one seed, agent accuracies are averaged per query and then over queries; as
every query of a run has the same agents, this equals the pooled fraction of correct (query,
agent) pairs the authors' code computes.

One module: every definition below, its per-query value (:func:`query_values`), its
aggregation (:func:`protocol_metrics`) and its interval (:func:`bootstrap_means`) share the key
lists (:data:`METRICS`, :data:`ROUND_GROUPS`, the commit columns) and the table layout, so a
metric is added or changed in one place.

Cost (:class:`CostSummary`) sums the records' ``cost`` fields: ``llm_calls`` are requests issued
to the LLM layer (cache hits included), ``cache_hits`` those answered from the response cache,
``cache_misses = llm_calls - cache_hits`` (requests that reached a backend), tokens as the
backend reported them for the misses, and ``query_wall_s``: the sum of the per-query wall times
(queries run concurrently, so this is the summed latency, not the run's elapsed time).

References
----------
.. [1] H. Lee, V.-D. Yun, H. Oh, D. Panagou and S. P. Karimireddy, "Robust Multi-Agent LLMs
   under Byzantine Faults", arXiv:2605.09076, 2026 (SAC; Sec. 5.1: IAA, FAA, BFTI, RA and
   H-Majority over the agents in V; the weak/strong agent split).
.. [2] L. Zheng et al., "Rethinking the Reliability of Multi-agent System: A Perspective from
   Byzantine Fault Tolerance", arXiv:2511.10400, 2025 (CP-WBFT; the IAA/FAA/BFTI metrics).
.. [3] B. Efron and R. J. Tibshirani, "An Introduction to the Bootstrap", Chapman & Hall, 1993,
   ch. 13 (the percentile interval).
.. [4] A. C. Davison and D. V. Hinkley, "Bootstrap Methods and their Application", Cambridge
   University Press, 1997, sec. 3.8 (resampling hierarchical data: clusters, then units
   within a cluster).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from protocol_runner.protocols.answers import answer_key
from protocol_runner.run.records import QueryRecord, Turn
from protocol_runner.tasks import Task
from robustgraph.errors import ParameterError

__all__ = [
    "COMMIT_METRICS",
    "COMMIT_RULES",
    "FIRST_TIE_METRICS",
    "HONEST_ONLY_METRICS",
    "METRICS",
    "PAPER_METRICS",
    "PROTOCOL_ORDER",
    "ROUND_GROUPS",
    "STRICT_METRICS",
    "CostSummary",
    "Estimate",
    "ProtocolMetrics",
    "bootstrap_means",
    "commit_values",
    "compute_metrics",
    "fraction_correct",
    "majority_correct",
    "plurality_correct",
    "protocol_metrics",
    "query_values",
]

PAPER_METRICS = ("IAA", "FAA", "BFTI", "RA", "W_IAA", "W_FAA", "S_IAA", "S_FAA", "H_Majority")
"""The columns of the SAC paper's Table 1, by its definitions (module docstring)."""

HONEST_ONLY_METRICS = ("IAA_H", "FAA_H", "BFTI_H")
"""IAA, FAA and BFTI over the honest agents only (not the paper's definition)."""

FIRST_TIE_METRICS = ("RA_first", "H_Majority_first")
"""RA and H-Majority with a tie for the top broken by first occurrence in agent order, as the
authors' code does (``reproduce``'s default; module docstring)."""

STRICT_METRICS = ("RA_strict", "H_Majority_strict")
"""RA and H-Majority by a strict majority instead of a plurality (not the paper's)."""

METRICS = (*PAPER_METRICS, *HONEST_ONLY_METRICS, *FIRST_TIE_METRICS, *STRICT_METRICS,
           "decision")
"""Every scalar metric, in report order (``decision`` is the decision accuracy)."""

ROUND_GROUPS = ("all", "honest", "weak", "strong")
"""The agent groups whose accuracy is reported per round (``all`` is V, adversaries included)."""

COMMIT_RULES = ("gate", "plain")
"""The commit decision rules of a ``--commit-gate`` run: the gate and a plain 2f+1 quorum."""

COMMIT_METRICS = ("commit", "false_commit", "escalation", "abort")
"""The commit rates reported per rule (definitions in the module docstring)."""

PROTOCOL_ORDER = ("sac", "cpwbft", "crs", "judge", "crs-truth", "crs-random", "crs-biased",
                  "majority", "debate")
"""Report order of the known protocols; others follow in alphabetical order."""

_COMMIT_COLUMNS = tuple(f"commit/{rule}/{m}" for rule in COMMIT_RULES for m in COMMIT_METRICS)
_GROUP_ROLES = {
    "all": ("strong", "weak", "adversary"),
    "honest": ("strong", "weak"),
    "weak": ("weak",),
    "strong": ("strong",),
}
_BLOCK = 256  # bootstrap resamples drawn per block (bounds memory at 256 x queries counts)
_MATH_KEY_TASK = Task("metrics-key", "?", "0")  # answer_key of a math answer needs no task data
_RIGHT = "\x00right"


def fraction_correct(turns: Iterable[Turn], roles: Sequence[str]) -> float | None:
    """The fraction of the agents with one of ``roles`` whose answer is correct.

    Parameters
    ----------
    turns : iterable of Turn
        One round's (or the final) turns.
    roles : sequence of str
        Roles to count (``"strong"``, ``"weak"``, ``"adversary"``).

    Returns
    -------
    float or None
        None when no agent has one of ``roles``.

    Examples
    --------
    >>> t = [Turn(0, "a", "strong", "4", True), Turn(1, "b", "adversary", "5", False)]
    >>> fraction_correct(t, ("strong", "weak", "adversary")), fraction_correct(t, ("weak",))
    (0.5, None)
    """
    flags = [turn.correct for turn in turns if turn.role in roles]
    return sum(flags) / len(flags) if flags else None


def majority_correct(turns: Iterable[Turn], roles: Sequence[str]) -> bool | None:
    """Whether a strict majority (more than half) of the agents with one of ``roles`` is correct.

    A tie is not a majority (``RA_strict``, ``H_Majority_strict``). None when no agent has one
    of ``roles``.

    Examples
    --------
    >>> t = [Turn(0, "a", "strong", "4", True), Turn(1, "b", "weak", "5", False)]
    >>> majority_correct(t, ("strong", "weak")), majority_correct(t[:1], ("strong",))
    (False, True)
    """
    flags = [turn.correct for turn in turns if turn.role in roles]
    return 2 * sum(flags) > len(flags) if flags else None


def _vote_key(turn: Turn, kind: str) -> str | None:
    """The group of ``turn``'s answer in a plurality vote (None: no vote)."""
    if turn.correct:
        return _RIGHT
    if turn.answer is None:
        return None
    if kind == "math":
        return answer_key(turn.answer, _MATH_KEY_TASK) or turn.answer.strip()
    return " ".join(turn.answer.split()).casefold()


def plurality_correct(
    turns: Iterable[Turn], roles: Sequence[str], kind: str, ties: str = "wrong"
) -> bool | None:
    """Whether the plurality answer of the agents with one of ``roles`` is correct.

    Every correct answer is one group; wrong answers are grouped by value (``kind`` ``math``:
    :func:`~protocol_runner.protocols.answers.answer_key`) or by case- and space-folded text;
    unparsed answers cast no vote. Correct iff the correct group has strictly more votes than
    every other group: a tie for the top counts as wrong (module docstring), and so does a
    group with no vote. With ``ties="first"`` a tie for the top goes to the group whose first
    vote comes first in ``turns``' (agent) order, as the authors' ``Counter.most_common(1)``
    breaks it (``RA_first``, ``H_Majority_first``). None when no agent has one of ``roles``.

    Examples
    --------
    >>> right = [Turn(0, "a", "strong", "4", True), Turn(1, "b", "strong", "4.0", True)]
    >>> split = [Turn(2, "c", "weak", "5", False), Turn(3, "d", "adversary", "6", False)]
    >>> plurality_correct(right + split, ("strong", "weak", "adversary"), "math")  # 2 vs 1, 1
    True
    >>> same = [Turn(2, "c", "weak", "5", False), Turn(3, "d", "adversary", "5.0", False)]
    >>> plurality_correct(right + same, ("strong", "weak", "adversary"), "math")  # 2 vs 2: tie
    False
    >>> plurality_correct(right + same, ("strong", "weak", "adversary"), "math", ties="first")
    True
    >>> plurality_correct(same + right, ("strong", "weak", "adversary"), "math", ties="first")
    False
    """
    members = [turn for turn in turns if turn.role in roles]
    if not members:
        return None
    votes = Counter(k for k in (_vote_key(turn, kind) for turn in members) if k is not None)
    if ties == "first":  # most_common is stable: among equal counts, the first inserted
        return bool(votes) and votes.most_common(1)[0][0] == _RIGHT
    right = votes.pop(_RIGHT, 0)
    return right > 0 and right > max(votes.values(), default=0)


def _difference(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def _as_float(flag: bool | None) -> float | None:
    return None if flag is None else float(flag)


def commit_values(record: QueryRecord) -> dict[str, float | None]:
    """One query's commit outcomes, keys ``"commit/<rule>/<metric>"``; ``{}`` without a gate.

    ``commit``, ``escalation``, ``abort``: 1.0 when the rule's final decision (``action`` in
    ``protocol_data["commit_gate"][rule]``, for the gate in ``["diversity"]`` when a
    diversity-forcing round ran) was commit, escalate or abort, else 0.0;
    ``false_commit``: 1.0 when the rule committed a wrong value, 0.0 a right one, None when it
    committed nothing (or the value is unknown), so its mean is the share of commits that are
    false.

    Examples
    --------
    >>> from protocol_runner.run.records import QueryRecord
    >>> gate = {"action": "escalate", "value_correct": False}
    >>> plain = {"action": "commit", "value_correct": False}
    >>> rec = QueryRecord("sac/q", "run", "sac", "q", 0, "math", "4", 1, 1, {}, (), (),
    ...                   protocol_data={"commit_gate": {"gate": gate, "plain": plain}})
    >>> v = commit_values(rec)
    >>> v["commit/gate/escalation"], v["commit/gate/false_commit"], v["commit/plain/false_commit"]
    (1.0, None, 1.0)
    >>> rec.protocol_data["commit_gate"]["diversity"] = {"action": "commit", "value_correct": True}
    >>> v = commit_values(rec)  # the diversity round's decision is the gate's final one
    >>> v["commit/gate/escalation"], v["commit/gate/commit"], v["commit/gate/false_commit"]
    (0.0, 1.0, 0.0)
    """
    data = record.protocol_data.get("commit_gate")
    if not isinstance(data, Mapping):
        return {}
    values: dict[str, float | None] = {}
    for rule in COMMIT_RULES:
        final = data["diversity"] if rule == "gate" and "diversity" in data else data[rule]
        action, correct = final["action"], final["value_correct"]
        committed = action == "commit"
        values[f"commit/{rule}/commit"] = float(committed)
        values[f"commit/{rule}/false_commit"] = (
            float(not correct) if committed and correct is not None else None
        )
        values[f"commit/{rule}/escalation"] = float(action == "escalate")
        values[f"commit/{rule}/abort"] = float(action == "abort")
    return values


def query_values(record: QueryRecord) -> dict[str, float | None]:
    """One query's contribution to every metric (None where a metric is undefined for it).

    Keys are :data:`METRICS`, ``"round/<group>/<r>"`` for each group of :data:`ROUND_GROUPS`
    and each round ``r`` in the record, and those of :func:`commit_values`. The metrics of a
    protocol are the means of these values over its queries (definitions in the module
    docstring).

    Examples
    --------
    >>> from protocol_runner.run.records import QueryRecord
    >>> r0 = (Turn(0, "a", "strong", "4", True), Turn(1, "b", "adversary", "9", False))
    >>> rec = QueryRecord("sac/q", "run", "sac", "q", 0, "math", "4", 1, 1, {}, (r0,), r0)
    >>> v = query_values(rec)
    >>> v["IAA"], v["IAA_H"], v["RA"], v["H_Majority"], v["W_IAA"], v["round/strong/0"]
    (0.5, 1.0, 0.0, 1.0, None, 1.0)
    """
    everyone, honest = _GROUP_ROLES["all"], _GROUP_ROLES["honest"]
    initial = record.rounds[0] if record.rounds else ()
    final, kind = record.final, record.task_kind
    values: dict[str, float | None] = {
        "IAA": fraction_correct(initial, everyone),
        "FAA": fraction_correct(final, everyone),
        "RA": _as_float(plurality_correct(final, everyone, kind)),
        "H_Majority": _as_float(plurality_correct(final, honest, kind)),
        "IAA_H": fraction_correct(initial, honest),
        "FAA_H": fraction_correct(final, honest),
        "RA_first": _as_float(plurality_correct(final, everyone, kind, ties="first")),
        "H_Majority_first": _as_float(plurality_correct(final, honest, kind, ties="first")),
        "RA_strict": _as_float(majority_correct(final, everyone)),
        "H_Majority_strict": _as_float(majority_correct(final, honest)),
    }
    values["BFTI"] = _difference(values["FAA"], values["IAA"])
    values["BFTI_H"] = _difference(values["FAA_H"], values["IAA_H"])
    for prefix, group in (("W", "weak"), ("S", "strong")):
        values[f"{prefix}_IAA"] = fraction_correct(initial, _GROUP_ROLES[group])
        values[f"{prefix}_FAA"] = fraction_correct(final, _GROUP_ROLES[group])
    values["decision"] = None if record.decision is None else float(record.decision.correct)
    for r, turns in enumerate(record.rounds):
        for group in ROUND_GROUPS:
            values[f"round/{group}/{r}"] = fraction_correct(turns, _GROUP_ROLES[group])
    values.update(commit_values(record))
    return values


@dataclass(frozen=True)
class Estimate:
    """A metric's point estimate with its bootstrap confidence interval.

    ``value`` is the mean over seeds of the per-seed means over the queries where the metric is
    defined; ``n`` counts those queries (all seeds together); ``low`` and ``high`` bound the
    percentile bootstrap interval at the summary's confidence level.
    """

    value: float
    low: float
    high: float
    n: int

    def to_json(self) -> dict[str, float | int]:
        return {
            "value": round(self.value, 6),
            "low": round(self.low, 6),
            "high": round(self.high, 6),
            "n": self.n,
        }


def _resampled_means(
    table: np.ndarray, draws: int, rng: np.random.Generator
) -> np.ndarray:
    """Column means of ``draws`` query resamples of one seed's table, NaN-aware: (draws, m)."""
    q, m = table.shape
    defined = ~np.isnan(table)
    filled = np.where(defined, table, 0.0)
    weights = defined.astype(float)
    out = np.empty((draws, m))
    probabilities = np.full(q, 1.0 / q)
    for start in range(0, draws, _BLOCK):
        size = min(_BLOCK, draws - start)
        counts = rng.multinomial(q, probabilities, size=size).astype(float)
        numerator, denominator = counts @ filled, counts @ weights
        with np.errstate(invalid="ignore", divide="ignore"):
            out[start : start + size] = np.where(denominator > 0, numerator / denominator, np.nan)
    return out


def _nanmean(values: np.ndarray, axis: int) -> np.ndarray:
    defined = ~np.isnan(values)
    total = np.where(defined, values, 0.0).sum(axis=axis)
    count = defined.sum(axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def bootstrap_means(
    values: np.ndarray | Sequence[np.ndarray],
    *,
    resamples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
) -> list[Estimate | None]:
    """Column means of per-seed (queries x metrics) tables with two-level bootstrap intervals.

    The point estimate of a column is the mean over seeds of each seed's mean (a seed where the
    column is undefined everywhere is left out). Each bootstrap resample draws as many seeds as
    there are, with replacement, then for each drawn seed its queries with replacement (the
    same query resample for every column, so intervals of differences such as BFTI are
    paired), and takes the same mean of means. With one seed this is the ordinary bootstrap
    over queries. A NaN cell is a metric undefined for that query: means skip it.

    Parameters
    ----------
    values : ndarray of shape (q, m), or a sequence of them (one per seed, same m)
        Per-query values, NaN where undefined.
    resamples : int
        Number of bootstrap resamples (B); at least 1.
    confidence : float
        Interval level in (0, 1); the interval is the ``(1 - confidence) / 2`` and
        ``(1 + confidence) / 2`` quantiles of the resampled statistics.
    seed : int
        Seed of the resampling generator: the same seed and tables give the same intervals.

    Returns
    -------
    list of Estimate or None
        One per column; None for a column with no defined value.

    Raises
    ------
    ParameterError
        For ``resamples < 1``, a confidence outside (0, 1), a table that is not 2-D, or tables
        with different numbers of columns.

    Examples
    --------
    >>> est = bootstrap_means(np.array([[1.0], [0.0], [1.0], [1.0]]), resamples=500, seed=3)[0]
    >>> est.value, est.n, est.low <= est.value <= est.high
    (0.75, 4, True)
    >>> two = bootstrap_means([np.array([[1.0], [1.0]]), np.array([[0.0], [1.0], [0.0]])])[0]
    >>> round(two.value, 4), two.n  # (1 + 1/3) / 2: each seed weighs the same
    (0.6667, 5)

    Notes
    -----
    O(B k q m) time for k seeds of q queries: each seed's table is resampled B k times
    (multinomial rows in blocks of 256), memory O(B k m).

    References
    ----------
    Efron and Tibshirani (1993), ch. 13 (the percentile interval); Davison and Hinkley (1997),
    sec. 3.8 (two-stage resampling of clustered data).
    """
    if resamples < 1:
        raise ParameterError(f"bootstrap resamples must be >= 1, got {resamples}")
    if not 0 < confidence < 1:
        raise ParameterError(f"confidence must be in (0, 1), got {confidence}")
    tables = [np.asarray(values, dtype=float)] if isinstance(values, np.ndarray) else [
        np.asarray(t, dtype=float) for t in values
    ]
    if any(t.ndim != 2 for t in tables):
        raise ParameterError("bootstrap needs (queries x metrics) tables, one per seed")
    widths = {t.shape[1] for t in tables}
    if len(widths) > 1:
        raise ParameterError(f"per-seed tables have different numbers of columns: {widths}")
    tables = [t for t in tables if t.shape[0]]
    if not tables:
        return [None] * (widths.pop() if widths else 0)
    k, m = len(tables), tables[0].shape[1]
    rng = np.random.default_rng(seed)
    point = _nanmean(np.stack([_nanmean(t, 0) for t in tables]), 0)
    # slot j of resample b holds seed picks[b, j], its queries resampled independently.
    picks = rng.integers(0, k, size=(resamples, k)) if k > 1 else np.zeros((resamples, 1), int)
    slots = np.full((resamples, k, m), np.nan)
    for s, table in enumerate(tables):
        where = np.nonzero(picks == s)
        if where[0].size:
            slots[where] = _resampled_means(table, where[0].size, rng)
    statistic = _nanmean(slots, 1)
    tail = (1.0 - confidence) / 2.0
    out: list[Estimate | None] = []
    for column in range(m):
        n = int(sum((~np.isnan(t[:, column])).sum() for t in tables))
        if n == 0:
            out.append(None)
            continue
        low, high = np.nanquantile(statistic[:, column], [tail, 1.0 - tail])
        out.append(Estimate(float(point[column]), float(low), float(high), n))
    return out


@dataclass(frozen=True)
class CostSummary:
    """What a set of queries cost (definitions in the module docstring)."""

    queries: int
    llm_calls: int
    cache_hits: int
    cache_misses: int
    prompt_tokens: int
    completion_tokens: int
    query_wall_s: float
    max_query_wall_s: float

    @classmethod
    def of(cls, records: Iterable[QueryRecord]) -> CostSummary:
        """Sum the ``cost`` of ``records``.

        Examples
        --------
        >>> CostSummary.of([]).llm_calls
        0
        """
        costs = [record.cost for record in records]
        calls = sum(c.llm_calls for c in costs)
        hits = sum(c.cache_hits for c in costs)
        return cls(
            queries=len(costs),
            llm_calls=calls,
            cache_hits=hits,
            cache_misses=calls - hits,
            prompt_tokens=sum(c.prompt_tokens for c in costs),
            completion_tokens=sum(c.completion_tokens for c in costs),
            query_wall_s=sum(c.wall_s for c in costs),
            max_query_wall_s=max((c.wall_s for c in costs), default=0.0),
        )

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    @property
    def cache_hit_rate(self) -> float | None:
        """``cache_hits / llm_calls``; None without calls."""
        return self.cache_hits / self.llm_calls if self.llm_calls else None

    def to_json(self) -> dict[str, float | int | None]:
        rate = self.cache_hit_rate
        return {
            "queries": self.queries,
            "llm_calls": self.llm_calls,
            "cache_hits": self.cache_hits,
            "cache_misses": self.cache_misses,
            "cache_hit_rate": None if rate is None else round(rate, 6),
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
            "query_wall_s": round(self.query_wall_s, 6),
            "mean_query_wall_s": round(self.query_wall_s / self.queries, 6)
            if self.queries
            else None,
            "max_query_wall_s": round(self.max_query_wall_s, 6),
        }


@dataclass(frozen=True)
class ProtocolMetrics:
    """Every metric of one protocol's queries, with bootstrap intervals, and their cost.

    ``estimates`` maps each name of :data:`METRICS` to an :class:`Estimate` (None when undefined
    for every query, e.g. ``W_IAA`` without weak agents); ``rounds`` maps each group of
    :data:`ROUND_GROUPS` to one estimate per round ``0..T``; ``commit`` maps each key of
    :func:`commit_values` to its estimate (empty unless the run used ``--commit-gate``);
    ``after_first`` maps each group to its accuracy averaged over rounds ``1..T`` (the paper's
    aggregated CP-WBFT row ``Rnd 1-6``; not in ``summary.json``).
    ``seeds`` are the seeds the records came from (ascending), ``queries_per_seed`` their
    query counts, and ``per_seed`` maps each metric of :data:`METRICS` to its mean in each seed
    (None where undefined), in ``seeds`` order.
    """

    protocol: str
    queries: int
    estimates: Mapping[str, Estimate | None]
    rounds: Mapping[str, tuple[Estimate | None, ...]]
    cost: CostSummary
    commit: Mapping[str, Estimate | None] = field(default_factory=dict)
    after_first: Mapping[str, Estimate | None] = field(default_factory=dict)
    seeds: tuple[int, ...] = (0,)
    queries_per_seed: tuple[int, ...] = ()
    per_seed: Mapping[str, tuple[float | None, ...]] = field(default_factory=dict)

    def value(self, metric: str) -> float | None:
        """The point estimate of ``metric`` (None when undefined)."""
        estimate = self.estimates[metric]
        return None if estimate is None else estimate.value

    def to_json(self) -> dict[str, object]:
        """The JSON form (``summary.json`` per protocol; keys documented in docs/protocols.md).

        ``metrics``: each key of :data:`METRICS` -> ``{"value", "low", "high", "n"}`` or null;
        ``per_seed``: each key -> ``{"<seed>": value}``; ``seeds``, ``queries_per_seed``;
        ``rounds``: each group -> one estimate per round; ``cost``; ``commit_gate`` when present.
        """

        def one(estimate: Estimate | None) -> dict[str, float | int] | None:
            return None if estimate is None else estimate.to_json()

        out = {
            "protocol": self.protocol,
            "queries": self.queries,
            "seeds": list(self.seeds),
            "queries_per_seed": list(self.queries_per_seed),
            "metrics": {name: one(self.estimates[name]) for name in METRICS},
            "per_seed": {
                name: {
                    str(s): None if v is None else round(v, 6)
                    for s, v in zip(self.seeds, self.per_seed.get(name, ()), strict=True)
                }
                for name in METRICS
                if name in self.per_seed
            },
            "rounds": {g: [one(e) for e in self.rounds[g]] for g in ROUND_GROUPS},
            "cost": self.cost.to_json(),
        }
        if self.commit:
            out["commit_gate"] = {
                rule: {m: one(self.commit[f"commit/{rule}/{m}"]) for m in COMMIT_METRICS}
                for rule in COMMIT_RULES
            }
        return out


def _check_unique(records: Sequence[QueryRecord]) -> None:
    ids = [(record.seed, record.query_id) for record in records]
    if len(set(ids)) != len(ids):
        counted = Counter(ids)
        repeated = sorted({f"{q} (seed {s})" for (s, q), c in counted.items() if c > 1})
        raise ParameterError(f"query ids appear more than once: {', '.join(repeated[:5])}")


def protocol_metrics(
    records: Sequence[QueryRecord],
    *,
    resamples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
) -> ProtocolMetrics:
    """The metrics of one protocol's records, of one seed or several (``record.seed``).

    Records are grouped by seed and put in task order (``task_index``, then ``task_id``) before
    resampling, so the intervals do not depend on the order in which concurrent queries
    finished, and two protocols run on the same tasks with the same ``seed`` are resampled on
    the same tasks.

    Parameters
    ----------
    records : sequence of QueryRecord
        Records of one protocol, at least one.
    resamples, confidence, seed
        See :func:`bootstrap_means` (``seed`` seeds the resampling, not the run).

    Raises
    ------
    ParameterError
        For no records, records of several protocols, or a query id repeated within a seed.

    Examples
    --------
    >>> from protocol_runner.run.records import QueryRecord
    >>> def rec(i, ok):
    ...     r0 = (Turn(0, "a", "weak", "1", False), Turn(1, "b", "strong", "2", True))
    ...     fin = (Turn(0, "a", "weak", "2", ok), Turn(1, "b", "strong", "2", True))
    ...     return QueryRecord(f"sac/{i}", "x", "sac", str(i), i, "math", "2", 0, 0, {}, (r0,), fin)
    >>> m = protocol_metrics([rec(0, True), rec(1, False)], resamples=200)
    >>> m.value("IAA"), m.value("FAA"), m.value("BFTI"), m.value("W_FAA"), m.seeds
    (0.5, 0.75, 0.25, 0.5, (0,))
    """
    if not records:
        raise ParameterError("no records to compute metrics from")
    protocols = {record.protocol for record in records}
    if len(protocols) != 1:
        raise ParameterError(f"records of several protocols: {sorted(protocols)}")
    _check_unique(records)
    seeds = tuple(sorted({record.seed for record in records}))
    by_seed = {
        s: sorted(
            (r for r in records if r.seed == s), key=lambda r: (r.task_index, r.task_id)
        )
        for s in seeds
    }
    n_rounds = max(len(record.rounds) for record in records)
    values = {s: [query_values(record) for record in by_seed[s]] for s in seeds}
    for row in (v for s in seeds for v in values[s]):
        _add_after_first(row, n_rounds)
    with_gate = any(_COMMIT_COLUMNS[0] in v for s in seeds for v in values[s])
    commit = list(_COMMIT_COLUMNS) if with_gate else []
    columns = list(METRICS) + [
        f"round/{group}/{r}" for group in ROUND_GROUPS for r in range(n_rounds)
    ] + [f"after/{group}" for group in ROUND_GROUPS] + commit
    tables = [
        np.array(
            [[np.nan if v.get(c) is None else v[c] for c in columns] for v in values[s]],
            dtype=float,
        )
        for s in seeds
    ]
    estimates = bootstrap_means(tables, resamples=resamples, confidence=confidence, seed=seed)
    by_column = dict(zip(columns, estimates, strict=True))
    per_seed = {
        name: tuple(_seed_mean(table[:, i]) for table in tables)
        for i, name in enumerate(METRICS)
    }
    return ProtocolMetrics(
        protocol=records[0].protocol,
        queries=len(records),
        estimates={name: by_column[name] for name in METRICS},
        rounds={
            group: tuple(by_column[f"round/{group}/{r}"] for r in range(n_rounds))
            for group in ROUND_GROUPS
        },
        cost=CostSummary.of([r for s in seeds for r in by_seed[s]]),
        commit={key: by_column[key] for key in commit},
        after_first={group: by_column[f"after/{group}"] for group in ROUND_GROUPS},
        seeds=seeds,
        queries_per_seed=tuple(len(by_seed[s]) for s in seeds),
        per_seed=per_seed,
    )


def _add_after_first(row: dict[str, float | None], n_rounds: int) -> None:
    """Add ``after/<group>``: the group's accuracy averaged over rounds 1..T of one query.

    The paper prints CP-WBFT's rounds 1-6 as one aggregated row (Tables 2, 4, 10; App. D).
    """
    for group in ROUND_GROUPS:
        later = [row[f"round/{group}/{r}"] for r in range(1, n_rounds)
                 if row.get(f"round/{group}/{r}") is not None]
        row[f"after/{group}"] = sum(later) / len(later) if later else None


def _seed_mean(column: np.ndarray) -> float | None:
    defined = column[~np.isnan(column)]
    return float(defined.mean()) if defined.size else None


def compute_metrics(
    records: Iterable[QueryRecord],
    *,
    resamples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
    order: Sequence[str] = (),
) -> dict[str, ProtocolMetrics]:
    """The metrics of every protocol in ``records`` (of one seed or several).

    Protocols named in ``order`` come first, in that order; the others follow in
    :data:`PROTOCOL_ORDER`, then alphabetically. Each protocol is resampled with the same
    ``seed`` (see :func:`protocol_metrics`).

    Raises
    ------
    ParameterError
        As :func:`protocol_metrics`.
    """
    groups: dict[str, list[QueryRecord]] = {}
    for record in records:
        groups.setdefault(record.protocol, []).append(record)
    return {
        name: protocol_metrics(groups[name], resamples=resamples, confidence=confidence, seed=seed)
        for name in sorted(groups, key=lambda name: _protocol_key(name, order))
    }


def _protocol_key(name: str, order: Sequence[str]) -> tuple[int, int, str]:
    if name in order:
        return 0, list(order).index(name), name
    known = PROTOCOL_ORDER.index(name) if name in PROTOCOL_ORDER else len(PROTOCOL_ORDER)
    return 1, known, name
