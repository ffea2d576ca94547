"""Credibility scoring (CrS) and its judge-only control.

CrS: every agent answers; a coordinator picks the answer with the largest total credibility
among the agents giving it (equal answers grouped by
:func:`~protocol_runner.protocols.answers.answer_key`; ties to node order). A judge agent rates that
answer (the verification prompt), giving the reward ``r = 2 s - 1`` in [-1, 1]; each agent's
contribution ``c_i`` to the answer comes from Shapley values of the credibility-weighted vote
over agent subsets (:func:`shapley_contributions`) or from the judge (its rating of each
agent's response, over the agents that gave the chosen answer, normalised to sum 1). Then

    CrS_i <- clip(CrS_i * (1 + eta * c_i * r), 0, 1), renormalised to sum 1,

starting from 1/n. The paper starts every agent at 0.5 (its Sec. 5); with the renormalisation
the two starts are the same rule: the coordinator's credibility-weighted plurality and the
Shapley game of a weighted vote do not change when every weight is scaled alike, and from 0.5
(or 1/n) one update neither clips (``CrS_i (1 + eta c_i r) <= 2 CrS_i <= 1``) nor leaves a
common factor after renormalising, so the credibility after the first query, and every query
after it, is identical (``tests/test_crs_controls.py``). Credibility is learnt across queries
in task order: the coordinator and judge steps of query k wait for query k-1's update (the
agents' answers run concurrently), so a run's result does not depend on scheduling, and a
resumed run restarts from the last ``credibility_after`` on disk. Every honest agent's final
answer is the coordinator's.

Judge-only (the control critics of CrS asked for): the judge answers the task alone; its
answer is the decision and every honest agent's final answer. No agent is asked anything.

Reward controls (the CrS review asks for a ground-truth reward in place of the judge): the
same protocol with the judge's ratings (the reward and, with ``contributions="judge"``, the
contribution ratings) replaced by

- ``crs-truth``: the ground truth, score 1 for a right answer and 0 for a wrong one (the loop
  with a perfect judge, no LLM call);
- ``crs-random``: a random judge, a uniform score in [0, 1] seeded by the run's seed, the query
  and what is rated (the loop learning from noise);
- ``crs-biased``: a biased judge that approves everything it is shown (score 1), the positivity
  bias of LLM judges (the loop reinforcing whatever the coordinator picks).

If CrS's credibility loop, not the judge's knowledge, is what helps, CrS should beat the
random and biased judges and approach the ground-truth reward; the judge-only control tells
what the judge alone achieves.

References
----------
Ebrahimi, Dehghankar, Asudeh, "An Adversary-Resistant Multi-Agent LLM System via Credibility
Scoring", IJCNLP-AACL 2025, arXiv:2505.24239 (CrS); Shapley, "A value for n-person games", 1953.
docs/protocols.md lists where this differs from the authors' code (sanaebrahimi/ma-llm-refactored).
"""

from __future__ import annotations

import asyncio
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from protocol_runner.llm import AgentIdentity, ChatMessage, CompletionRequest
from protocol_runner.protocols.engine import (
    Outcome,
    Protocol,
    QueryContext,
    Reply,
    key_of,
    plurality,
)
from protocol_runner.protocols.prompts import (
    ANSWER_PREFIX,
    answer_messages,
    parse_answer,
    parse_score,
    score_messages,
)
from protocol_runner.run.records import Decision, QueryRecord
from robustgraph.errors import ParameterError

__all__ = [
    "CONTRIBUTIONS",
    "CrS",
    "CrSBiased",
    "CrSConfig",
    "CrSRandom",
    "CrSTruth",
    "JudgeOnly",
    "shapley_contributions",
    "update_credibility",
]

CONTRIBUTIONS = ("shapley", "judge")
JUDGE_ID = "judge"
_EXACT_SHAPLEY_MAX = 12


@dataclass(frozen=True)
class CrSConfig:
    """CrS settings: learning rate, where contributions come from, the judge's model.

    ``judge_model`` None means the model of the first strong agent (else the first honest one).
    ``shapley_samples`` permutations estimate Shapley values above 12 voters (exact below).
    """

    eta: float = 0.1
    contributions: str = "shapley"
    judge_model: str | None = None
    shapley_samples: int = 512

    def __post_init__(self) -> None:
        if not 0 < self.eta <= 1:
            raise ParameterError(f"CrS learning rate eta must be in (0, 1], got {self.eta}")
        if self.contributions not in CONTRIBUTIONS:
            raise ParameterError(
                f"CrS contributions {self.contributions!r}; expected one of {CONTRIBUTIONS}"
            )
        if self.shapley_samples < 1:
            raise ParameterError("shapley_samples must be >= 1")


def _winner(keys: Sequence[str], weights: Sequence[float], members: Sequence[int]) -> str | None:
    tally: dict[str, float] = {}
    for m in members:
        tally[keys[m]] = tally.get(keys[m], 0.0) + weights[m]
    if not tally:
        return None
    best = max(tally.values())
    return next(k for k in tally if tally[k] == best)


def shapley_contributions(
    keys: Sequence[str], weights: Sequence[float], target: str, *, samples: int = 512, seed: int = 0
) -> list[float]:
    """Shapley value of each voter in the game "the weighted vote of a coalition picks ``target``".

    Parameters
    ----------
    keys : sequence of str
        Each voter's answer key, in voter order (ties in a vote go to the earlier voter's answer).
    weights : sequence of float
        Each voter's credibility.
    target : str
        The answer key the full vote picked.
    samples, seed :
        Random permutations used above 12 voters (exact enumeration below).

    Returns
    -------
    list of float
        One value per voter; they sum to 1 when the full vote picks ``target``.

    Examples
    --------
    >>> [round(v, 3) for v in shapley_contributions(["a", "a", "b"], [1, 1, 1], "a")]
    [0.5, 0.5, 0.0]

    Notes
    -----
    Exact: O(2^n n) coalition evaluations. Sampled: O(samples n^2).
    """
    n = len(keys)
    if n == 0:
        return []

    def value(members: Sequence[int]) -> float:
        members = sorted(members)
        return 1.0 if _winner(keys, weights, members) == target else 0.0

    phi = [0.0] * n
    if n <= _EXACT_SHAPLEY_MAX:
        cache: dict[int, float] = {}

        def v(mask: int) -> float:
            if mask not in cache:
                cache[mask] = value([i for i in range(n) if mask >> i & 1])
            return cache[mask]

        fact = [math.factorial(k) for k in range(n + 1)]
        for mask in range(1 << n):
            size = bin(mask).count("1")
            base = v(mask)
            for i in range(n):
                if not mask >> i & 1:
                    weight = fact[size] * fact[n - size - 1] / fact[n]
                    phi[i] += weight * (v(mask | 1 << i) - base)
        return phi
    rng = random.Random(seed)
    order = list(range(n))
    for _ in range(samples):
        rng.shuffle(order)
        before = 0.0
        for k in range(n):
            after = value(order[: k + 1])
            phi[order[k]] += (after - before) / samples
            before = after
    return phi


def update_credibility(
    credibility: Sequence[float], contributions: Sequence[float], reward: float, eta: float
) -> list[float]:
    """``clip(CrS_i * (1 + eta * c_i * r), 0, 1)``, renormalised to sum 1 (uniform if all 0).

    Examples
    --------
    >>> [round(x, 4) for x in update_credibility([0.5, 0.5], [1.0, 0.0], -1.0, 0.1)]
    [0.4737, 0.5263]
    """
    pairs = zip(credibility, contributions, strict=True)
    raw = [min(1.0, max(0.0, c * (1.0 + eta * k * reward))) for c, k in pairs]
    total = sum(raw)
    if total <= 0:
        return [1.0 / len(raw)] * len(raw)
    return [x / total for x in raw]


def judge_request(
    ctx: QueryContext, model: str, messages: tuple[ChatMessage, ...]
) -> CompletionRequest:
    """A request from the judge agent (identity ``judge``), with the run's sampling settings."""
    return ctx.request(model, messages, AgentIdentity(JUDGE_ID).to_user())


def default_judge_model(ctx: QueryContext) -> str:
    """The model of the first strong agent, else of the first honest agent."""
    agents = ctx.network.roster.agents
    honest = [a for a in agents if a.honest]
    if not honest:
        raise ParameterError("CrS and the judge-only control need at least one honest agent")
    strong = [a for a in honest if a.role == "strong"]
    return (strong or honest)[0].model or ""


class CrS(Protocol):
    """Credibility scoring with a judge (see the module docstring)."""

    name = "crs"
    reward = "judge"
    """Where the ratings come from: the judge model (``"judge"``) or a control."""

    def __init__(self, config: CrSConfig | None = None) -> None:
        self.config = config or CrSConfig()
        self._credibility: list[float] | None = None
        self._done: dict[int, asyncio.Event] = {}
        self._resumed: set[int] = set()

    def _event(self, index: int) -> asyncio.Event:
        if index not in self._done:
            self._done[index] = asyncio.Event()
            if index in self._resumed:
                self._done[index].set()
        return self._done[index]

    def resume(self, records: Sequence[QueryRecord]) -> None:
        """Restart from the credibility after the last completed query (a prefix, in task order)."""
        if not records:
            return
        indices = sorted(r.task_index for r in records)
        if indices != list(range(len(indices))):
            raise ParameterError(
                "CrS records on disk are not a prefix of the task order; the results file was "
                "edited or comes from another run"
            )
        last = max(records, key=lambda r: r.task_index)
        after = last.protocol_data["credibility_after"]
        self._credibility = [after[turn.node] for turn in last.final]
        self._resumed = set(indices)

    def completed(self, task_index: int) -> None:
        self._event(task_index).set()

    async def run(self, ctx: QueryContext) -> Outcome:
        ctx.publish(await ctx.answer_all())
        if ctx.task_index > 0:
            await self._event(ctx.task_index - 1).wait()
        n = ctx.network.n
        if self._credibility is None:
            self._credibility = [1.0 / n] * n
        before = list(self._credibility)
        votes = []
        for i in range(n):
            message = ctx.vote(i)
            if message is not None and key_of(message.answer, ctx.task) is not None:
                votes.append((i, message.answer))
        winner, _ = plurality(votes, ctx.task, dict(enumerate(before)))
        model = self.config.judge_model or default_judge_model(ctx)
        score = (await self._ratings(ctx, model, [(-1, winner, f"{ANSWER_PREFIX} {winner}")]))[0]
        reward = 2.0 * score - 1.0
        contributions = await self._contributions(ctx, model, votes, before, winner)
        after = update_credibility(before, contributions, reward, self.config.eta)
        self._credibility = after
        nodes = [ctx.node(i) for i in range(n)]
        data = {
            "credibility_before": dict(zip(nodes, before, strict=True)),
            "credibility_after": dict(zip(nodes, after, strict=True)),
            "judge_score": score,
            "reward": reward,
            "contributions": dict(zip(nodes, contributions, strict=True)),
        }
        final = ctx.final_turns(dict.fromkeys(ctx.honest, winner))
        return Outcome(final, Decision(winner, ctx.correct(winner)), data)

    async def _contributions(
        self,
        ctx: QueryContext,
        model: str,
        votes: Sequence[tuple[int, str | None]],
        credibility: Sequence[float],
        winner: str | None,
    ) -> list[float]:
        n = ctx.network.n
        out = [0.0] * n
        if winner is None:
            return out
        target = key_of(winner, ctx.task)
        keys = [key_of(a, ctx.task) or "" for _, a in votes]
        if self.config.contributions == "shapley":
            values = shapley_contributions(
                keys,
                [credibility[i] for i, _ in votes],
                target,
                samples=self.config.shapley_samples,
                seed=ctx.config.seed + ctx.task_index,
            )
            for (i, _), value in zip(votes, values, strict=True):
                out[i] = value
            return out
        supporters = [(i, a) for (i, a), k in zip(votes, keys, strict=True) if k == target]
        scores = await self._ratings(
            ctx, model, [(i, a, ctx.vote(i).text) for i, a in supporters]
        )
        total = sum(scores)
        for (i, _), s in zip(supporters, scores, strict=True):
            out[i] = s / total if total > 0 else 1.0 / len(supporters)
        return out


    async def _ratings(
        self, ctx: QueryContext, model: str, items: Sequence[tuple[int, str | None, str]]
    ) -> list[float]:
        """Scores in [0, 1] of ``(voter, answer, response text)`` items (voter -1: the
        coordinator's pick), from the judge model or the control :attr:`reward` names."""
        if self.reward == "truth":
            return [1.0 if ctx.correct(answer) else 0.0 for _, answer, _ in items]
        if self.reward == "biased":
            return [1.0] * len(items)
        if self.reward == "random":
            return [random.Random(f"crs-random/{ctx.config.seed}/{ctx.task_index}/{i}").random()
                    for i, _, _ in items]
        replies = await ctx.wave(
            ctx.ask_request(judge_request(ctx, model, score_messages(ctx.task, text)))
            for _, _, text in items
        )
        return [parse_score(c.text) for c in replies]


class CrSTruth(CrS):
    """CrS rewarded by the ground truth instead of a judge (a control; module docstring)."""

    name = "crs-truth"
    reward = "truth"


class CrSRandom(CrS):
    """CrS rated by a random judge (a control; module docstring)."""

    name = "crs-random"
    reward = "random"


class CrSBiased(CrS):
    """CrS rated by a judge that approves everything (a control; module docstring)."""

    name = "crs-biased"
    reward = "biased"


class JudgeOnly(Protocol):
    """The judge-only control: the judge answers alone (see the module docstring)."""

    name = "judge"

    def __init__(self, judge_model: str | None = None) -> None:
        self.judge_model = judge_model

    async def run(self, ctx: QueryContext) -> Outcome:
        model = self.judge_model or default_judge_model(ctx)
        reply = await ctx.ask_request(judge_request(ctx, model, answer_messages(ctx.task)))
        answer = parse_answer(reply.text, ctx.task)
        adopted = {i: Reply(f"{ANSWER_PREFIX} {answer}", answer) for i in ctx.honest}
        ctx.publish(adopted, record=False)  # no agent takes part: no round is recorded
        final = ctx.final_turns(dict.fromkeys(ctx.honest, answer))
        judge = {"model": model, "answer": answer, "correct": ctx.correct(answer)}
        return Outcome(final, Decision(answer, ctx.correct(answer)), {"judge": judge})
