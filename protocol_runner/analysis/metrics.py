"""The SAC paper's accuracy metrics and the run's cost, computed from per-query result records.

Every metric is a mean over queries of a per-query value (:func:`query_values`), so one
bootstrap over queries gives all confidence intervals (:func:`bootstrap_means`). Definitions,
for one protocol's records (``protocol_runner.run.records``; honest = role ``strong`` or ``weak``):

- **IAA** (initial answer accuracy): the fraction of honest agents whose round-0 answer is
  correct, averaged over queries.
- **FAA** (final answer accuracy): the same for the honest agents' final answers.
- **BFTI** (Byzantine fault-tolerance improvement): ``FAA - IAA``, i.e. the mean over queries of
  the per-query difference; its interval is the bootstrap interval of that paired difference.
- **RA**: the fraction of queries in which a strict majority of ALL agents (adversaries
  included) holds a correct final answer (more than ``n / 2`` of the ``n`` agents).
- **H-Majority**: the fraction of queries in which a strict majority of the honest agents holds a
  correct final answer.
- **weak / strong IAA -> FAA**: IAA and FAA restricted to the weak (resp. strong) honest agents;
  undefined (``None``) for a roster without such agents.
- **per-round accuracy**: for every round ``r = 0..T``, the fraction of the weak (strong, all
  honest) agents whose round-``r`` answer is correct, averaged over the queries that have round
  ``r``.
- **decision accuracy** (not in the paper's table; for protocols that produce one group answer:
  majority vote, CrS, judge-only): the fraction of queries whose ``decision`` is correct, over
  the queries that have a decision.

An answer that could not be parsed (``null``, e.g. a ``silent`` adversary) counts as incorrect,
as ``protocol_runner.protocols.answers`` rules.

A run with ``--commit-gate`` (``protocol_runner.commit.stage``) adds, for each decision rule of
:data:`COMMIT_RULES` (the evidence-diversity gate, a plain 2f+1 quorum), four rates over queries
(:func:`commit_values`): **commit** (the rule committed a value), **false commit** (the
committed value is wrong; a fraction of the queries with a commit), **escalation** (a
correlated quorum was escalated) and **abort** (the independent re-execution did not reproduce
the value). The gate's rates count its final decision: after a correlated quorum, the decision
of the diversity-forcing round (so an escalation is one to a human); the plain quorum decides
the first round's votes once.

Readings taken where the paper [1]_ leaves room (its metric names are kept; the per-query
formulas below are ours):

1. Agent accuracies are averaged per query and then over queries ("macro"). Within one run the
   number of honest agents is the same in every query, so this equals the pooled fraction of
   correct (query, agent) pairs, and it makes the query the unit of resampling.
2. "Majority" in RA and H-Majority is a strict majority of agents holding a correct answer (a
   tie is not a majority), not a plurality among the answers given.
3. RA counts the adversaries' own final answers (nearly always wrong), as "all agents" says; an
   adversary that sends nothing holds no answer and so is wrong.
4. BFTI is reported in the same unit as IAA and FAA (a difference of fractions), not relative to
   IAA.

Cost (:class:`CostSummary`) sums the records' ``cost`` fields: ``llm_calls`` are requests issued
to the LLM layer (cache hits included), ``cache_hits`` those answered from the response cache,
``cache_misses = llm_calls - cache_hits`` (requests that reached a backend), tokens as the
backend reported them for the misses, and ``query_wall_s``: the sum of the per-query wall times
(queries run concurrently, so this is the summed latency, not the run's elapsed time).

References
----------
.. [1] H. Lee, V.-D. Yun, H. Oh, D. Panagou and S. P. Karimireddy, "Robust Multi-Agent LLMs
   under Byzantine Faults", arXiv:2605.09076, 2026 (SAC; the IAA, FAA, BFTI, RA and H-Majority
   metrics and the weak/strong agent split).
.. [2] L. Zheng et al., "Rethinking the Reliability of Multi-agent System: A Perspective from
   Byzantine Fault Tolerance", arXiv:2511.10400, 2025 (CP-WBFT; the IAA/FAA/BFTI metrics).
.. [3] B. Efron and R. J. Tibshirani, "An Introduction to the Bootstrap", Chapman & Hall, 1993,
   ch. 13 (the percentile interval).

One module: every metric is a per-query value under one bootstrap, so the definitions, the
commit-gate rates and the interval code are read together against the paper.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from protocol_runner.run.records import QueryRecord, Turn
from robustgraph.errors import ParameterError

__all__ = [
    "COMMIT_METRICS",
    "COMMIT_RULES",
    "METRICS",
    "PROTOCOL_ORDER",
    "ROUND_GROUPS",
    "CostSummary",
    "Estimate",
    "ProtocolMetrics",
    "bootstrap_means",
    "commit_values",
    "compute_metrics",
    "fraction_correct",
    "majority_correct",
    "protocol_metrics",
    "query_values",
]

METRICS = (
    "iaa",
    "faa",
    "bfti",
    "ra",
    "h_majority",
    "weak_iaa",
    "weak_faa",
    "strong_iaa",
    "strong_faa",
    "decision",
)
"""The scalar metrics, in report order (``decision`` is the decision accuracy)."""

ROUND_GROUPS = ("honest", "weak", "strong")
"""The agent groups whose accuracy is reported per round."""

COMMIT_RULES = ("gate", "plain")
"""The commit decision rules of a ``--commit-gate`` run: the gate and a plain 2f+1 quorum."""

COMMIT_METRICS = ("commit", "false_commit", "escalation", "abort")
"""The commit rates reported per rule (definitions in the module docstring)."""

PROTOCOL_ORDER = ("sac", "cpwbft", "crs", "judge", "majority", "debate")
"""Report order of the known protocols; others follow in alphabetical order."""

_COMMIT_COLUMNS = tuple(f"commit/{rule}/{m}" for rule in COMMIT_RULES for m in COMMIT_METRICS)
_GROUP_ROLES = {"honest": ("strong", "weak"), "weak": ("weak",), "strong": ("strong",)}
_BLOCK = 256  # bootstrap resamples drawn per block (bounds memory at 256 x queries counts)


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
    >>> t = [Turn(0, "a", "strong", "4", True), Turn(1, "b", "weak", "5", False)]
    >>> fraction_correct(t, ("strong", "weak")), fraction_correct(t, ("adversary",))
    (0.5, None)
    """
    flags = [turn.correct for turn in turns if turn.role in roles]
    return sum(flags) / len(flags) if flags else None


def majority_correct(turns: Iterable[Turn], roles: Sequence[str]) -> bool | None:
    """Whether a strict majority of the agents with one of ``roles`` is correct.

    A tie is not a majority (reading 2 of the module docstring). None when no agent has one of
    ``roles``.

    Examples
    --------
    >>> t = [Turn(0, "a", "strong", "4", True), Turn(1, "b", "weak", "5", False)]
    >>> majority_correct(t, ("strong", "weak")), majority_correct(t[:1], ("strong",))
    (False, True)
    """
    flags = [turn.correct for turn in turns if turn.role in roles]
    return 2 * sum(flags) > len(flags) if flags else None


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
    protocol are the means of these values over its queries (see the module docstring for each
    definition).

    Examples
    --------
    >>> from protocol_runner.run.records import QueryRecord
    >>> r0 = (Turn(0, "a", "strong", "4", True), Turn(1, "b", "adversary", "9", False))
    >>> rec = QueryRecord("sac/q", "run", "sac", "q", 0, "math", "4", 1, 1, {}, (r0,), r0)
    >>> v = query_values(rec)
    >>> v["iaa"], v["ra"], v["h_majority"], v["weak_iaa"], v["round/strong/0"]
    (1.0, 0.0, 1.0, None, 1.0)
    """
    honest = _GROUP_ROLES["honest"]
    initial = record.rounds[0] if record.rounds else ()
    values: dict[str, float | None] = {
        "iaa": fraction_correct(initial, honest),
        "faa": fraction_correct(record.final, honest),
    }
    values["bfti"] = _difference(values["faa"], values["iaa"])
    values["ra"] = _as_float(majority_correct(record.final, (*honest, "adversary")))
    values["h_majority"] = _as_float(majority_correct(record.final, honest))
    for group in ("weak", "strong"):
        values[f"{group}_iaa"] = fraction_correct(initial, _GROUP_ROLES[group])
        values[f"{group}_faa"] = fraction_correct(record.final, _GROUP_ROLES[group])
    values["decision"] = None if record.decision is None else float(record.decision.correct)
    for r, turns in enumerate(record.rounds):
        for group in ROUND_GROUPS:
            values[f"round/{group}/{r}"] = fraction_correct(turns, _GROUP_ROLES[group])
    values.update(commit_values(record))
    return values


@dataclass(frozen=True)
class Estimate:
    """A metric's point estimate with its bootstrap confidence interval.

    ``value`` is the mean over the ``n`` queries where the metric is defined; ``low`` and
    ``high`` bound the percentile bootstrap interval at the summary's confidence level.
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


def bootstrap_means(
    values: np.ndarray,
    *,
    resamples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
) -> list[Estimate | None]:
    """Column means of a (queries x metrics) table with percentile bootstrap intervals.

    Queries (rows) are resampled with replacement, the same resamples for every column, so
    intervals of differences (BFTI) are paired. A NaN cell is a metric undefined for that query:
    the column's mean and each resample's mean skip it.

    Parameters
    ----------
    values : ndarray of shape (q, m)
        Per-query values, NaN where undefined.
    resamples : int
        Number of bootstrap resamples (B); at least 1.
    confidence : float
        Interval level in (0, 1); the interval is the ``(1 - confidence) / 2`` and
        ``(1 + confidence) / 2`` quantiles of the resampled means.
    seed : int
        Seed of the resampling generator: the same seed and table give the same intervals.

    Returns
    -------
    list of Estimate or None
        One per column; None for a column with no defined value.

    Raises
    ------
    ParameterError
        For ``resamples < 1``, a confidence outside (0, 1), or a table that is not 2-D.

    Examples
    --------
    >>> est = bootstrap_means(np.array([[1.0], [0.0], [1.0], [1.0]]), resamples=500, seed=3)[0]
    >>> est.value, est.n, est.low <= est.value <= est.high
    (0.75, 4, True)

    Notes
    -----
    O(B q m) time; the resample counts are drawn as multinomial rows in blocks of 256, so
    memory is O(256 q + B m).

    References
    ----------
    Efron and Tibshirani (1993), ch. 13: the percentile interval.
    """
    if resamples < 1:
        raise ParameterError(f"bootstrap resamples must be >= 1, got {resamples}")
    if not 0 < confidence < 1:
        raise ParameterError(f"confidence must be in (0, 1), got {confidence}")
    table = np.asarray(values, dtype=float)
    if table.ndim != 2:
        raise ParameterError(f"bootstrap needs a (queries x metrics) table, got {table.ndim}-D")
    q, m = table.shape
    if q == 0:
        return [None] * m
    defined = ~np.isnan(table)
    filled = np.where(defined, table, 0.0)
    weights = defined.astype(float)
    rng = np.random.default_rng(seed)
    means = np.empty((resamples, m))
    probabilities = np.full(q, 1.0 / q)
    for start in range(0, resamples, _BLOCK):
        size = min(_BLOCK, resamples - start)
        counts = rng.multinomial(q, probabilities, size=size).astype(float)
        numerator, denominator = counts @ filled, counts @ weights
        with np.errstate(invalid="ignore", divide="ignore"):
            means[start : start + size] = np.where(denominator > 0, numerator / denominator, np.nan)
    tail = (1.0 - confidence) / 2.0
    out: list[Estimate | None] = []
    for column in range(m):
        n = int(defined[:, column].sum())
        if n == 0:
            out.append(None)
            continue
        point = float(filled[:, column].sum() / n)
        low, high = np.nanquantile(means[:, column], [tail, 1.0 - tail])
        out.append(Estimate(point, float(low), float(high), n))
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
    for every query, e.g. ``weak_iaa`` without weak agents); ``rounds`` maps each group of
    :data:`ROUND_GROUPS` to one estimate per round ``0..T``; ``commit`` maps each key of
    :func:`commit_values` to its estimate (empty unless the run used ``--commit-gate``).
    """

    protocol: str
    queries: int
    estimates: Mapping[str, Estimate | None]
    rounds: Mapping[str, tuple[Estimate | None, ...]]
    cost: CostSummary
    commit: Mapping[str, Estimate | None] = field(default_factory=dict)

    def value(self, metric: str) -> float | None:
        """The point estimate of ``metric`` (None when undefined)."""
        estimate = self.estimates[metric]
        return None if estimate is None else estimate.value

    def to_json(self) -> dict[str, object]:
        def one(estimate: Estimate | None) -> dict[str, float | int] | None:
            return None if estimate is None else estimate.to_json()

        out = {
            "protocol": self.protocol,
            "queries": self.queries,
            "metrics": {name: one(self.estimates[name]) for name in METRICS},
            "rounds": {g: [one(e) for e in self.rounds[g]] for g in ROUND_GROUPS},
            "cost": self.cost.to_json(),
        }
        if self.commit:
            out["commit_gate"] = {
                rule: {m: one(self.commit[f"commit/{rule}/{m}"]) for m in COMMIT_METRICS}
                for rule in COMMIT_RULES
            }
        return out


def protocol_metrics(
    records: Sequence[QueryRecord],
    *,
    resamples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
) -> ProtocolMetrics:
    """The metrics of one protocol's records.

    Records are put in task order (``task_index``, then ``task_id``) before resampling, so the
    intervals do not depend on the order in which concurrent queries finished, and two
    protocols run on the same tasks with the same ``seed`` are resampled on the same tasks.

    Parameters
    ----------
    records : sequence of QueryRecord
        Records of one protocol, at least one.
    resamples, confidence, seed
        See :func:`bootstrap_means`.

    Raises
    ------
    ParameterError
        For no records, records of several protocols, or a repeated query id.

    Examples
    --------
    >>> from protocol_runner.run.records import QueryRecord
    >>> def rec(i, ok):
    ...     r0 = (Turn(0, "a", "weak", "1", False), Turn(1, "b", "strong", "2", True))
    ...     fin = (Turn(0, "a", "weak", "2", ok), Turn(1, "b", "strong", "2", True))
    ...     return QueryRecord(f"sac/{i}", "x", "sac", str(i), i, "math", "2", 0, 0, {}, (r0,), fin)
    >>> m = protocol_metrics([rec(0, True), rec(1, False)], resamples=200)
    >>> m.value("iaa"), m.value("faa"), m.value("bfti"), m.value("weak_faa")
    (0.5, 0.75, 0.25, 0.5)
    """
    if not records:
        raise ParameterError("no records to compute metrics from")
    protocols = {record.protocol for record in records}
    if len(protocols) != 1:
        raise ParameterError(f"records of several protocols: {sorted(protocols)}")
    ids = [record.query_id for record in records]
    if len(set(ids)) != len(ids):
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        raise ParameterError(f"query ids appear more than once: {', '.join(repeated[:5])}")
    ordered = sorted(records, key=lambda record: (record.task_index, record.task_id))
    n_rounds = max(len(record.rounds) for record in ordered)
    table = [query_values(record) for record in ordered]
    with_gate = any(_COMMIT_COLUMNS[0] in values for values in table)
    commit = list(_COMMIT_COLUMNS) if with_gate else []
    columns = list(METRICS) + [
        f"round/{group}/{r}" for group in ROUND_GROUPS for r in range(n_rounds)
    ] + commit
    rows = [[np.nan if values.get(c) is None else values[c] for c in columns] for values in table]
    estimates = bootstrap_means(
        np.array(rows, dtype=float), resamples=resamples, confidence=confidence, seed=seed
    )
    by_column = dict(zip(columns, estimates, strict=True))
    return ProtocolMetrics(
        protocol=ordered[0].protocol,
        queries=len(ordered),
        estimates={name: by_column[name] for name in METRICS},
        rounds={
            group: tuple(by_column[f"round/{group}/{r}"] for r in range(n_rounds))
            for group in ROUND_GROUPS
        },
        cost=CostSummary.of(ordered),
        commit={key: by_column[key] for key in commit},
    )


def compute_metrics(
    records: Iterable[QueryRecord],
    *,
    resamples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
    order: Sequence[str] = (),
) -> dict[str, ProtocolMetrics]:
    """The metrics of every protocol in ``records``.

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
