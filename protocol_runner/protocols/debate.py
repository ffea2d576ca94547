"""Plain multi-agent debate: every agent refines on all its neighbours' responses, unfiltered.

Round 0: every agent answers. In each round t = 1..T every honest agent reads every response its
in-neighbours sent and refines its own (:func:`~protocol_runner.protocols.prompts.debate_messages`:
no
scores, no filter). With nothing received, or a refinement whose answer cannot be parsed, it
keeps its response. One wave of calls per round.

References
----------
Du, Li, Torralba, Tenenbaum, Mordatch, "Improving Factuality and Reasoning in Language Models
through Multiagent Debate", ICML 2024.
"""

from __future__ import annotations

from typing import Any

from protocol_runner.llm import ChatMessage
from protocol_runner.protocols.engine import QueryContext, RoundProtocol
from protocol_runner.protocols.prompts import debate_messages

__all__ = ["Debate"]


class Debate(RoundProtocol):
    """Plain debate (see the module docstring)."""

    name = "debate"

    async def round(self, ctx: QueryContext) -> None:
        """One debate round: a refinement wave over all received responses; then publish."""
        task, cap = ctx.task, ctx.config.max_chars
        details: dict[int, dict[str, Any]] = {}
        prompts: dict[int, tuple[ChatMessage, ...]] = {}
        for i in ctx.honest:
            received, missing = ctx.inbox(i)
            details[i] = {"refined": False}
            if missing:
                details[i]["missing"] = [ctx.node(j) for j in missing]
            if received:
                others = [m.text for _, m in received]
                prompts[i] = debate_messages(task, ctx.replies[i].text, others, max_chars=cap)
        replies, refined = await ctx.refine(prompts)
        for i in refined:
            details[i]["refined"] = True
        ctx.publish(replies, details)
