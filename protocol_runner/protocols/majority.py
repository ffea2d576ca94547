"""Majority vote without communication: the plurality of every agent's independent answer.

Every honest agent answers once; each adversary casts the vote its attack chooses (a silent one
casts none). The plurality answer (equal answers grouped by
:func:`~protocol_runner.protocols.answers.answer_key`; ties to the answer voted first in node
order) is the
group decision, and every honest agent's final answer. The number of rounds is ignored.

References
----------
Wang et al., "Self-Consistency Improves Chain of Thought Reasoning in Language Models", ICLR
2023 (majority over independent answers), the no-communication baseline of Lee et al. 2026.
"""

from __future__ import annotations

from protocol_runner.protocols.engine import Outcome, Protocol, QueryContext, plurality
from protocol_runner.run.records import Decision

__all__ = ["Majority"]


class Majority(Protocol):
    """Majority vote (see the module docstring)."""

    name = "majority"

    async def run(self, ctx: QueryContext) -> Outcome:
        ctx.publish(await ctx.answer_all())
        votes = []
        for i in range(ctx.network.n):
            message = ctx.vote(i)
            if message is not None:
                votes.append((i, message.answer))
        winner, tally = plurality(votes, ctx.task)
        decision = Decision(winner, ctx.correct(winner))
        final = ctx.final_turns(dict.fromkeys(ctx.honest, winner))
        return Outcome(final, decision, {"votes": {a: int(c) for a, c in tally.items()}})
