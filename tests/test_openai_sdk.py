"""serve-sim speaks the OpenAI API as the official ``openai`` SDK knows it: the run's own prompts
(answer, confidence, score, refine) give the in-process simulator's replies; errors and faults
reach the SDK as its own exception types."""

from __future__ import annotations

import asyncio

import openai  # a test dependency (pyproject.toml, the test extra)
import pytest

from protocol_runner.llm import AgentIdentity, CompletionRequest
from protocol_runner.protocols.prompts import (
    answer_messages,
    confidence_messages,
    refine_messages,
    score_messages,
)
from protocol_runner.sim.agents import Simulator
from protocol_runner.sim.server import FAULT_HEADER, SimServer, parse_faults
from protocol_runner.tasks import load_tasks

TASKS = load_tasks("arith:6:seed=8")


def requests() -> list[CompletionRequest]:
    prompts = [
        answer_messages(TASKS[0]),
        confidence_messages(TASKS[1]),
        score_messages(TASKS[2], "Answer: 12"),
        refine_messages(TASKS[3], "Answer: 1", [("Answer: 2", 0.9), ("Answer: 3", 0.4)]),
    ]
    return [
        CompletionRequest(model, messages, seed=4, user=AgentIdentity(agent).to_user())
        for messages in prompts
        for model in ("sim-strong", "sim-weak")
        for agent in ("a1", "a2")
    ]


def with_sdk(scenario, **server_options):
    """Run ``scenario(sdk_client, server)`` against serve-sim on one loop."""

    async def main():
        server = SimServer(Simulator(TASKS), **server_options)
        url = await server.start()
        sdk = openai.AsyncOpenAI(base_url=url, api_key="unused", max_retries=0, timeout=10)
        try:
            return await scenario(sdk, server)
        finally:
            await sdk.close()
            await server.stop()

    return asyncio.run(main())


def test_the_sdk_gets_the_simulators_replies_to_the_runs_prompts():
    async def scenario(sdk, server):
        listed = [model.id async for model in sdk.models.list()]
        replies = [await sdk.chat.completions.create(**r.to_openai_body()) for r in requests()]
        return listed, replies, server.stats.as_dict()

    listed, replies, stats = with_sdk(scenario)
    simulator = Simulator(TASKS)
    expected = [
        simulator.respond(r.to_openai_body())["choices"][0]["message"]["content"]
        for r in requests()
    ]
    assert listed == ["sim-strong", "sim-weak"]
    assert [reply.choices[0].message.content for reply in replies] == expected
    assert all(reply.usage.prompt_tokens > 0 and reply.usage.completion_tokens > 0
               for reply in replies)
    assert {reply.model for reply in replies} == {"sim-strong", "sim-weak"}
    assert stats["completions"] == len(expected) and stats["requests"] == len(expected)


def test_errors_and_faults_are_the_sdks_own_exceptions():
    body = requests()[0].to_openai_body()

    async def scenario(sdk, server):
        raised = {}
        for name, call in (
            ("unknown model", sdk.chat.completions.create(**{**body, "model": "gpt-nope"})),
            ("429", sdk.chat.completions.create(**body, extra_headers={FAULT_HEADER: "429:3"})),
            ("500", sdk.chat.completions.create(**body, extra_headers={FAULT_HEADER: "500"})),
        ):
            with pytest.raises(openai.APIStatusError) as info:
                await call
            raised[name] = info.value
        retried = sdk.with_options(max_retries=1)
        server.add_faults(parse_faults("500"))
        reply = await retried.chat.completions.create(**body)  # the SDK's own retry
        return raised, reply, server.stats.as_dict()

    raised, reply, stats = with_sdk(scenario)
    assert isinstance(raised["unknown model"], openai.NotFoundError)
    assert "gpt-nope" in raised["unknown model"].message
    assert isinstance(raised["429"], openai.RateLimitError)
    assert raised["429"].response.headers["retry-after"] == "3"
    assert isinstance(raised["500"], openai.InternalServerError)
    assert reply.choices[0].message.content and stats["faults"] == {"429": 1, "500": 2}

