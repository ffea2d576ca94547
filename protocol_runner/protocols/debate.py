"""Plain multi-agent debate: every agent refines on all its neighbours' responses, unfiltered.

Round 0: every agent answers. In each round t = 1..T every honest agent reads every response its
in-neighbours sent and refines its own (:func:`~protocol_runner.prompts.debate_messages`: no
scores, no filter). With nothing received, or a refinement whose answer cannot be parsed, it
keeps its response. One wave of calls per round.

References
----------
Du, Li, Torralba, Tenenbaum, Mordatch, "Improving Factuality and Reasoning in Language Models
through Multiagent Debate", ICML 2024.
"""

from __future__ import annotations

from typing import Any

from protocol_runner.prompts import debate_messages, parse_answer
from protocol_runner.protocols.engine import Outcome, Protocol, QueryContext, Reply

__all__ = ["Debate"]


class Debate(Protocol):
    """Plain debate (see the module docstring)."""

    name = "debate"

    async def run(self, ctx: QueryContext) -> Outcome:
        ctx.publish(await ctx.answer_all())
        for _ in range(ctx.config.rounds):
            await self.round(ctx)
        return Outcome(ctx.final_turns())

    async def round(self, ctx: QueryContext) -> None:
        """One debate round: a refinement wave over all received responses; then publish."""
        task, cap = ctx.task, ctx.config.max_chars
        details: dict[int, dict[str, Any]] = {}
        refining, prompts = [], []
        for i in ctx.honest:
            received, missing = ctx.inbox(i)
            details[i] = {"refined": False}
            if missing:
                details[i]["missing"] = [ctx.node(j) for j in missing]
            if received:
                refining.append(i)
                others = [m.text for _, m in received]
                prompts.append(debate_messages(task, ctx.replies[i].text, others, max_chars=cap))
        refined = await ctx.wave(ctx.ask(i, p) for i, p in zip(refining, prompts, strict=True))
        replies = dict(ctx.replies)
        for i, completion in zip(refining, refined, strict=True):
            answer = parse_answer(completion.text, task)
            if answer is not None:
                replies[i] = Reply(completion.text, answer)
                details[i]["refined"] = True
        ctx.publish(replies, details)
