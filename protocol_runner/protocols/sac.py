"""Self-Anchored Consensus (SAC): score, filter, refine, anchored on each agent's own score.

Round 0: every agent answers. In each round t = 1..T every honest agent i

1. receives its in-neighbours' current responses;
2. scores each of them AND its own response with its own model (the verification prompt of
   App. B.1, :func:`~protocol_runner.protocols.prompts.score_messages`: solve it yourself,
   compare, the score on the last line; its first number clipped to [0, 1], 0.5 when there is
   none, :func:`~protocol_runner.protocols.prompts.parse_score`);
3. forms L = the neighbours scored strictly below its self-score and drops the min(F, |L|)
   lowest-scored of L (:func:`sac_filter`);
4. refines its answer from its own response plus the retained responses, listed in descending
   score with their scores to two decimals, told to prefer higher scores but keep its own answer
   if it believes it correct (:func:`~protocol_runner.protocols.prompts.refine_messages`).

With nothing retained, or a refinement whose answer cannot be parsed, the agent keeps its
response. Scoring is one wave of calls per round (all agents, all candidates), refinement a
second wave, so a round's critical path is two calls.

References
----------
Lee, Yun, Oh, Panagou, Karimireddy, "Robust Multi-Agent LLMs under Byzantine Faults",
arXiv:2605.09076, 2026: Self-Anchored Consensus; its resilience needs an (F+1)-robust graph.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from protocol_runner.protocols.engine import QueryContext, RoundProtocol
from protocol_runner.protocols.prompts import parse_score, refine_messages, score_messages

__all__ = ["SAC", "sac_filter"]


def sac_filter(
    self_score: float, scores: Sequence[tuple[int, float]], F: int  # noqa: N803 - the paper's F
) -> tuple[list[tuple[int, float]], list[int]]:
    """SAC's filter: drop the min(F, |L|) lowest of L = {neighbours scored below self_score}.

    Parameters
    ----------
    self_score : float
        The agent's score of its own response.
    scores : sequence of (node, score)
        Its scores of the neighbours' responses, in node order.
    F : int
        Faults tolerated.

    Returns
    -------
    retained : list of (node, score)
        Every neighbour not dropped, in descending score (ties in node order): the order the
        refinement prompt lists them in.
    dropped : list of int
        The dropped neighbours, lowest score first.

    Examples
    --------
    >>> sac_filter(0.6, [(1, 0.9), (2, 0.2), (3, 0.5), (4, 0.6)], F=1)
    ([(1, 0.9), (4, 0.6), (3, 0.5)], [2])
    >>> sac_filter(0.1, [(1, 0.9), (2, 0.8)], F=2)  # all above self: nothing dropped
    ([(1, 0.9), (2, 0.8)], [])

    Notes
    -----
    A neighbour scored exactly the self-score is not in L and is always retained. Within L, ties
    at the cut are broken by node order (the earlier node is dropped first), so the filter is a
    deterministic function of the score table. O(d log d) for d neighbours.
    """
    below = sorted(
        ((score, k, node) for k, (node, score) in enumerate(scores) if score < self_score)
    )
    dropped = [node for _, _, node in below[: min(F, len(below))]]
    gone = set(dropped)
    kept = [(k, node, score) for k, (node, score) in enumerate(scores) if node not in gone]
    kept.sort(key=lambda item: (-item[2], item[0]))
    return [(node, score) for _, node, score in kept], dropped


class SAC(RoundProtocol):
    """Self-Anchored Consensus (see the module docstring)."""

    name = "sac"

    async def round(self, ctx: QueryContext) -> None:
        """One SAC round: a scoring wave, the filter, a refinement wave; then publish."""
        task, cap, F = ctx.task, ctx.config.max_chars, ctx.config.F
        inboxes = {i: ctx.inbox(i) for i in ctx.honest}
        calls = []
        for i in ctx.honest:
            calls.append(ctx.ask(i, score_messages(task, ctx.replies[i].text, max_chars=cap)))
            for _, message in inboxes[i][0]:
                calls.append(ctx.ask(i, score_messages(task, message.text, max_chars=cap)))
        scored = iter(await ctx.wave(calls))
        plans: dict[int, tuple[list[tuple[int, float]], dict[str, Any]]] = {}
        for i in ctx.honest:
            received, missing = inboxes[i]
            self_score = parse_score(next(scored).text)
            scores = [(j, parse_score(next(scored).text)) for j, _ in received]
            retained, dropped = sac_filter(self_score, scores, F)
            details: dict[str, Any] = {
                "self_score": self_score,
                "scores": {ctx.node(j): s for j, s in scores},
                "dropped": [ctx.node(j) for j in dropped],
                "retained": [ctx.node(j) for j, _ in retained],
                "refined": False,
            }
            if missing:
                details["missing"] = [ctx.node(j) for j in missing]
            plans[i] = (retained, details)
        texts = {i: dict((j, m.text) for j, m in inboxes[i][0]) for i in ctx.honest}
        prompts = {
            i: refine_messages(
                task,
                ctx.replies[i].text,
                [(texts[i][j], s) for j, s in plans[i][0]],
                max_chars=cap,
            )
            for i in ctx.honest
            if plans[i][0]
        }
        replies, refined = await ctx.refine(prompts)
        for i in refined:
            plans[i][1]["refined"] = True
        ctx.publish(replies, {i: plans[i][1] for i in ctx.honest})
