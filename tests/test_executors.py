"""Executors: outcomes in task order; a failure or a crash never stops the others; Ray parity."""

from __future__ import annotations

import os
import sys
import time

import pytest
from conftest import assert_doctests_pass_in_fresh_process

from robustgraph.errors import ParameterError
from robustgraph.executors import (
    DISTRIBUTED_HINT,
    ExecutorUnavailable,
    LocalExecutor,
    Outcome,
    RayExecutor,
    Task,
    make_executor,
    run_task,
)


def batch() -> list[Task]:
    """Builtins only, so any worker (a spawned process, a Ray worker) can import them."""
    return [
        Task("slow", time.sleep, (0.3,)),
        Task("abs", abs, (-4,)),
        Task("bad", int, ("x",)),
        Task("pow", pow, (2, 10)),
    ]


def summary(outcomes: list[Outcome]) -> list[tuple]:
    return [(o.key, o.value, o.error) for o in outcomes]


EXPECTED = [
    ("slow", None, None),
    ("abs", 4, None),
    ("bad", None, "ValueError: invalid literal for int() with base 10: 'x'"),
    ("pow", 1024, None),
]


# ----------------------------------------------------------------------------- run_task
def test_run_task_turns_an_exception_into_a_one_line_error_with_the_traceback():
    outcome = run_task(Task("k", int, ("not\na number",)))
    assert not outcome.ok and "\n" not in outcome.error
    assert outcome.error.startswith("ValueError: invalid literal")
    assert "Traceback" in outcome.detail and outcome.seconds >= 0


def test_run_task_returns_the_value():
    outcome = run_task(Task("k", divmod, (7, 2)))
    assert outcome.ok and outcome.value == (3, 1) and outcome.error is None


# ----------------------------------------------------------------------------- local
def test_local_outcomes_come_in_task_order_and_a_failure_does_not_stop_the_others(capsys):
    seen = []
    with LocalExecutor(workers=2) as executor:
        outcomes = executor.run(batch(), label="demo", on_outcome=lambda o: seen.append(o.key))
    assert summary(outcomes) == EXPECTED
    assert sorted(seen) == sorted(key for key, _, _ in EXPECTED)
    assert outcomes[0].seconds >= 0.3
    err = capsys.readouterr().err
    assert "robustgraph: demo: bad failed: ValueError" in err
    assert "4/4" in err and "failed 1" in err


def test_a_worker_that_dies_fails_only_its_own_task():
    tasks = [Task(f"t{i}", pow, (i, 2)) for i in range(5)]
    tasks.insert(2, Task("crash", os._exit, (3,)))
    with LocalExecutor(workers=2) as executor:
        outcomes = executor.run(tasks, progress=False)
    by_key = {o.key: o for o in outcomes}
    assert by_key["crash"].error == "the worker process running this task died"
    assert [by_key[f"t{i}"].value for i in range(5)] == [i * i for i in range(5)]
    assert [o.key for o in outcomes] == [t.key for t in tasks]


def test_task_keys_must_be_unique():
    with pytest.raises(ParameterError, match="repeated: a"):
        LocalExecutor(workers=1).run([Task("a", abs, (1,)), Task("a", abs, (2,))])


def test_an_empty_batch_runs_nothing():
    assert LocalExecutor(workers=1).run([]) == []


@pytest.mark.parametrize(
    ("name", "kwargs", "message"),
    [
        ("dask", {}, "unknown executor 'dask'"),
        ("local", {"address": "10.0.0.1:6379"}, "--address is for the ray executor"),
        ("ray", {"workers": 2}, "--workers is for the local executor"),
        ("local", {"workers": 0}, "workers must be >= 1"),
    ],
)
def test_make_executor_rejects_bad_combinations(name, kwargs, message):
    with pytest.raises(ParameterError, match=message):
        make_executor(name, **kwargs)


def test_ray_executor_without_ray_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    with pytest.raises(ExecutorUnavailable) as info:
        make_executor("ray")
    assert DISTRIBUTED_HINT in str(info.value) and "\n" not in str(info.value)


# ----------------------------------------------------------------------------- ray
def test_ray_gives_the_same_outcomes_as_local(ray_instance):
    with RayExecutor(max_retries=0) as executor:
        outcomes = executor.run(batch(), progress=False)
    assert summary(outcomes) == EXPECTED
    assert ray_instance.is_initialized(), "an instance the executor did not start stays up"


def test_ray_reports_a_crashed_worker_and_finishes_the_rest(ray_instance):
    tasks = [Task("crash", os._exit, (3,)), Task("a", abs, (-1,)), Task("b", abs, (-2,))]
    with RayExecutor(max_retries=0) as executor:
        outcomes = executor.run(tasks, progress=False)
    assert outcomes[0].error.startswith("ray: ") and "died" in outcomes[0].error
    assert [o.value for o in outcomes[1:]] == [1, 2]


@pytest.mark.parametrize("module", ["robustgraph.executors"])
def test_docstring_examples_run(module):
    assert_doctests_pass_in_fresh_process(module)
