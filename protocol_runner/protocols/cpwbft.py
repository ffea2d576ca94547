"""CP-WBFT: confidence-probe weighted aggregation over each agent's neighbourhood.

Round 0: every agent answers with a self-reported confidence in [0, 1]
(:func:`~protocol_runner.protocols.prompts.confidence_messages`, read as the CP-WBFT code
does: the first ``Confidence:`` value, above 1 divided by 100, 0.0 when none is given): its
*report*.
In each round t = 1..T every honest agent sends its report to its out-neighbours and
aggregates the reports of itself and its in-neighbours (:func:`cpwbft_aggregate`): confidences
below 0.5 are dropped (all are kept when all are below), the answer with the highest mean
confidence wins, ties go to the answer given more often (the majority fallback), then to the
agent's own answer, then to node order. The winner and its mean confidence are the agent's
answer and confidence in round t. Rounds make no LLM calls.

An agent's report does not change over rounds: what it aggregated to is its answer, never a
message. The CP-WBFT code (``core/runners/base_runner.py`` of Z1ivan/Byzantine-Fault-
Tolerance-in-LLM-MAS and of the SAC authors' fork) asks every agent the same question afresh
at the start of every round and aggregates those fresh reports; at temperature 0 with a
response cache those are the round-0 reports, so they are reused. Re-broadcasting the
aggregate with its mean confidence instead would let an adopted answer travel on at the
confidence of whoever started it (1.0 for the ``fixed`` attack) to agents that never heard the
adversary. docs/protocols.md gives the evidence and the other differences.

References
----------
Zheng, Chen, Yin, Zhang, Zeng, Tian, "Rethinking the Reliability of Multi-agent System: A
Perspective from Byzantine Fault Tolerance", arXiv:2511.10400, 2025 (CP-WBFT); the baseline
configuration of Lee et al. 2026.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from protocol_runner.protocols.engine import Outcome, Protocol, QueryContext, Reply, key_of
from protocol_runner.protocols.prompts import (
    ANSWER_PREFIX,
    CONFIDENCE_PREFIX,
    confidence_messages,
    parse_confidence,
)
from protocol_runner.tasks import Task

__all__ = ["CONFIDENCE_THRESHOLD", "CPWBFT", "cpwbft_aggregate"]

CONFIDENCE_THRESHOLD = 0.5


def cpwbft_aggregate(
    entries: Sequence[tuple[int, str | None, float]], task: Task
) -> tuple[str | None, float | None, list[int]]:
    """Aggregate ``(agent, answer, confidence)`` entries, the agent's own first.

    Returns
    -------
    answer, confidence : the winning answer and its mean confidence (``None, None`` when no
        entry has an answer)
    kept : list of int
        The agents whose entries passed the confidence filter.

    Examples
    --------
    >>> t = Task("t", "2+3?", "5")
    >>> cpwbft_aggregate([(0, "5", 0.8), (1, "4", 1.0), (2, "5", 0.9), (3, "6", 0.3)], t)
    ('4', 1.0, [0, 1, 2])
    >>> cpwbft_aggregate([(0, "5", 0.2), (1, "4", 0.1)], t)  # all below 0.5: keep all
    ('5', 0.2, [0, 1])
    """
    answered = [(a, ans, c) for a, ans, c in entries if key_of(ans, task) is not None]
    if not answered:
        return None, None, []
    kept = [e for e in answered if e[2] >= CONFIDENCE_THRESHOLD] or answered
    groups: dict[str, list[tuple[int, str | None, float]]] = {}
    for entry in kept:
        groups.setdefault(key_of(entry[1], task), []).append(entry)

    def rank(item: tuple[int, tuple[str, list[Any]]]) -> tuple[float, int, int]:
        order, (_, members) = item
        mean = sum(c for _, _, c in members) / len(members)
        return (mean, len(members), -order)

    _, (_, best) = max(enumerate(groups.items()), key=rank)
    mean = sum(c for _, _, c in best) / len(best)
    return best[0][1], mean, [a for a, _, _ in kept]


def _reply(answer: str | None, confidence: float | None) -> Reply:
    text = f"{ANSWER_PREFIX} {answer}\n{CONFIDENCE_PREFIX} {confidence:.2f}"
    return Reply(text, answer, confidence)


class CPWBFT(Protocol):
    """CP-WBFT (see the module docstring)."""

    name = "cpwbft"

    async def run(self, ctx: QueryContext) -> Outcome:
        prompt = confidence_messages(ctx.task)
        completions = await ctx.wave(ctx.ask(i, prompt) for i in ctx.honest)
        replies = {}
        for i, completion in zip(ctx.honest, completions, strict=True):
            answer, confidence = parse_confidence(completion.text, ctx.task)
            replies[i] = Reply(completion.text, answer, confidence)
        ctx.publish(replies, {i: {"confidence": r.confidence} for i, r in replies.items()})
        for _ in range(ctx.config.rounds):
            self.round(ctx, replies)
        return Outcome(ctx.final_turns())

    @staticmethod
    def round(ctx: QueryContext, reports: dict[int, Reply]) -> None:
        """One aggregation round over the agents' ``reports`` (no LLM calls); then publish.

        Every honest agent's message this round is its report, whatever it aggregated to.
        """
        replies: dict[int, Reply] = {}
        details: dict[int, dict[str, Any]] = {}
        for i in ctx.honest:
            own = reports[i]
            received, missing = ctx.inbox(i)
            entries = [(i, own.answer, own.confidence or 0.0)]
            entries += [(j, m.answer, m.confidence or 0.0) for j, m in received]
            answer, confidence, kept = cpwbft_aggregate(entries, ctx.task)
            replies[i] = own if answer is None else _reply(answer, confidence)
            details[i] = {
                "confidence": replies[i].confidence,
                "kept": [ctx.node(j) for j in kept],
            }
            if missing:
                details[i]["missing"] = [ctx.node(j) for j in missing]
        ctx.publish(replies, details, reports=reports)
