"""The ``fixed`` attack per App. B.4 on every task kind (issue 28): an out-of-distribution pool of
the run's task kind, so the adversary's message parses as an answer of the question's kind."""

from __future__ import annotations

import pytest
from cli_checks import assert_error
from click.testing import CliRunner

from protocol_runner.analysis.report import load_results, summarize
from protocol_runner.llm import AgentIdentity, CompletionRequest
from protocol_runner.protocols.answers import extract_answer, is_correct
from protocol_runner.protocols.attacks import ood_pool, ood_queries, replay_message
from protocol_runner.protocols.prompts import answer_messages
from protocol_runner.run.runner import RESULTS_FILE, RunSpec, run
from protocol_runner.sim.agents import Simulator
from protocol_runner.tasks import load_tasks
from robustgraph.cli import main
from robustgraph.errors import ParameterError
from robustgraph.generators import complete

SETS = {
    "math": "arith:12",
    "bool": "commonsense30:15",
    "choice": "commonsense30:15:offset=15",
    "choice-4": "arith:12:seed=5:form=choice:options=4",
}


def _weak_replies(simulator, pool, seed, node):
    """What the simulated weak model answers to the adversary's OOD queries."""
    replies = []
    for query in ood_queries(pool, seed, node):
        body = CompletionRequest("sim-weak", answer_messages(query), temperature=0.0, seed=seed,
                                 user=AgentIdentity(node).to_user()).to_openai_body()
        replies.append(simulator.respond(body)["choices"][0]["message"]["content"])
    return replies


def test_auto_pool_has_each_task_kind_of_the_run():
    assert {t.kind for t in ood_pool(load_tasks("commonsense30"))} == {"bool", "choice"}
    assert {t.kind for t in ood_pool(load_tasks("arith:5"))} == {"math"}
    assert {t.kind for t in ood_pool(load_tasks("commonsense30:3"))} == {"bool"}


@pytest.mark.parametrize("name", sorted(SETS))
def test_fixed_message_parses_as_the_questions_kind(name):
    tasks = load_tasks(SETS[name])
    pool = ood_pool(tasks)
    simulator = Simulator(tasks)
    sent = [replay_message(_weak_replies(simulator, pool, seed, node), task)
            for seed in (1, 2) for node in ("3", "6") for task in tasks]
    kinds = {task.kind for task in tasks}
    assert len(kinds) == 1
    assert all(m.answer is not None for m in sent)  # 100% parse as the task's kind
    wrong = sum(not is_correct(m.answer, task)
                for m, task in zip(sent, [t for _ in range(4) for t in tasks], strict=True))
    assert wrong > len(sent) / 2  # mostly wrong: the attack pushes an answer that is not right
    for message, task in zip(sent, [t for _ in range(4) for t in tasks], strict=True):
        assert extract_answer(message.text, task) == message.answer


def test_a_pool_that_cannot_parse_as_the_runs_kind_is_refused():
    choice = load_tasks("commonsense30:5:offset=15")
    with pytest.raises(ParameterError, match="no answer parses as a choice"):
        ood_pool(choice, "arith:8:form=bool")
    with pytest.raises(ParameterError, match="no answer parses as a bool"):
        ood_pool(load_tasks("commonsense30:4"), "arith:8:seed=3:max=60")
    assert {t.kind for t in ood_pool(choice, "arith:8:form=choice:options=2")} == {"choice"}


def test_run_refuses_such_a_pool_before_any_query(tmp_path):
    out = tmp_path / "run"
    result = CliRunner().invoke(main, [
        "run", "--topology", "complete", "--n", "4", "--roster", "3S1A", "--F", "1",
        "--protocols", "cpwbft", "--tasks", "commonsense30:5:offset=15", "--rounds", "1",
        "--ood-tasks", "arith:8:form=bool", "--no-plots", "-o", str(out)])
    line = assert_error(result)
    assert "no answer parses as a choice" in line and "--ood-tasks" in line
    assert not (out / RESULTS_FILE).exists()


def test_cpwbft_is_not_helped_by_the_fixed_adversary_on_choice_tasks(tmp_path):
    # The finding of the SAC paper (Tables 1 and 3): under the fixed attack CP-WBFT's BFTI is
    # negative. With a math-only OOD pool the message never parsed on choice tasks, CP-WBFT
    # dropped it, and its BFTI came out positive (issue 28).
    out = tmp_path / "cpwbft"
    run(RunSpec(complete(7), out, roster="4S2W1A", F=3, protocols=("cpwbft",),
                tasks="commonsense30:15:offset=15", rounds=2, seed=1))
    summary = summarize(load_results(out)).to_json()
    bfti = summary["protocols"]["cpwbft"]["metrics"]["BFTI"]["value"]
    assert bfti <= 0
