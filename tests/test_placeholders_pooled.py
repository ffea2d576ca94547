"""Issue 29 (b), (c): the placeholder task sets of Table 9/10's shape, the leave-one-out
selections and the pooled objective (tasks/placeholders.py, sim/pooled.py)."""

from __future__ import annotations

import doctest
import importlib
from dataclasses import replace
from pathlib import Path

import pytest

from protocol_runner.sim.calibrate import Calibration, chi2
from protocol_runner.sim.params import BLOCKS, get_values
from protocol_runner.sim.pooled import (
    ACCURACIES,
    PooledCalibration,
    init_accuracies,
    leave_one_benchmark_out,
    leave_one_topology_out,
    paper_part,
)
from protocol_runner.sim.targets import paper_targets, stand_in_tasks
from protocol_runner.tasks import load_tasks
from protocol_runner.tasks.placeholders import PLACEHOLDERS, QUESTIONS, placeholder_set
from robustgraph.errors import ParameterError

BENCHMARKS = ("arc_challenge", "hellaswag", "openbookqa", "boolq", "rte")
KINDS = {"arc_challenge": "choice", "hellaswag": "choice", "openbookqa": "choice",
         "boolq": "bool", "rte": "bool"}


@pytest.mark.parametrize("bench", BENCHMARKS)
def test_placeholder_sets_have_the_benchmarks_shape_and_say_what_they_are(bench: str) -> None:
    tasks = list(load_tasks(f"placeholder-{bench}"))
    assert len(tasks) == QUESTIONS == 50  # the paper's count per benchmark (App. C)
    assert {t.kind for t in tasks} == {KINDS[bench]}
    assert len({t.presented() for t in tasks}) == 50  # the simulator finds a task by its text
    assert len({t.id for t in tasks}) == 50
    assert all("Placeholder" in t.question and "synthetic" in t.question for t in tasks)
    answers = {t.answer for t in tasks}
    if KINDS[bench] == "choice":
        assert all(len(t.choices) == 4 for t in tasks)
        style = "ending" if bench == "hellaswag" else "answer"
        assert answers == {f"{style}{k}" for k in range(1, 5)}  # every position is right somewhere
    else:
        assert answers == {"true", "false"}


def test_placeholder_sets_are_deterministic_and_cut_like_built_ins() -> None:
    for bench in BENCHMARKS:
        assert placeholder_set.__wrapped__(bench) == placeholder_set(bench)  # a fresh build
    assert set(PLACEHOLDERS) == {f"placeholder-{b}" for b in BENCHMARKS}
    cut = list(load_tasks("placeholder-rte:10:offset=5"))
    assert [t.id for t in cut] == [f"placeholder-rte-{i:02d}" for i in range(6, 16)]


def test_paper_targets_of_table10_run_on_the_placeholders() -> None:
    assert stand_in_tasks("choice", 50, "hellaswag") == "placeholder-hellaswag:50"
    with pytest.raises(ParameterError):
        stand_in_tasks("choice", 50)
    settings, targets, kind = paper_targets("table10", "boolq")
    assert kind == "bool" and {s.tasks for s in settings} == {"placeholder-boolq:50"}
    assert len(targets) == 54  # 3 topologies x (CP-WBFT Init, Rnd 1-6; SAC Init, 1..6) x W/S


def test_leave_one_topology_out_never_fits_the_held_rows() -> None:
    whole = paper_part("table10", "rte")
    for held in ("merg", "complete", "er"):
        train, test = leave_one_topology_out("table10", "rte", held)
        assert held not in {s.name for s in train.settings}
        assert held not in {t.setting for t in train.targets}
        assert {t.setting for t in test.targets} == {held}
        assert sorted(train.targets + test.targets, key=repr) == sorted(whole.targets, key=repr)
    with pytest.raises(ParameterError):
        leave_one_topology_out("table10", "rte", "ring")


def test_leave_one_benchmark_out_never_fits_the_held_benchmark(tmp_path: Path) -> None:
    train, test = leave_one_benchmark_out("table10", BENCHMARKS, "openbookqa")
    assert [p.benchmark for p in train] == ["arc_challenge", "hellaswag", "boolq", "rte"]
    assert test.benchmark == "openbookqa"
    cal = PooledCalibration(train, checkpoint=tmp_path / "c.json")
    assert not {t.setting.partition("/")[0] for t in cal.targets} & {"openbookqa"}
    assert len(cal.targets) == 4 * 54
    # the accuracies are each benchmark's Init means, never fitted
    assert not set(ACCURACIES) & {n for names in cal.blocks.values() for n in names}
    assert set(cal.blocks["cpwbft"]) == set(BLOCKS["cpwbft"]) - set(ACCURACIES)
    held = cal.transfer({"task_share": 0.2}, test)
    init = init_accuracies(test.targets)
    assert get_values(held, list(ACCURACIES), "choice") == pytest.approx(init)
    boolq = cal.config({"task_share": 0.2}, "boolq")
    assert get_values(boolq, list(ACCURACIES), "bool") == pytest.approx(
        init_accuracies(train[2].targets))
    assert boolq.task_share == 0.2


def _small(part, topology: str):  # noqa: ANN001, ANN202 - a Part cut to one topology, 6 tasks
    settings = tuple(replace(s, tasks=f"{s.tasks.partition(':')[0]}:6")
                     for s in part.settings if s.name == topology)
    return replace(part, settings=settings,
                   targets=tuple(t for t in part.targets if t.setting == topology))


def test_pooled_objective_is_the_sum_of_each_benchmarks_data_term(tmp_path: Path) -> None:
    parts = [_small(paper_part("table10", b), "complete") for b in ("arc_challenge", "rte")]
    pooled = PooledCalibration(parts, checkpoint=tmp_path / "pooled.json")
    values = {"model_share": 0.6, "task_share": 0.3}
    total = 0.0
    for part in parts:
        alone = Calibration(part.settings, part.targets, kind=part.kind,
                            checkpoint=tmp_path / f"{part.benchmark}.json",
                            base=pooled.transfer({}, part))
        simulated = alone.evaluate(values, ("cpwbft",))
        cpwbft = [t for t in part.targets if t.protocol == "cpwbft"]
        total += chi2(simulated, cpwbft, alone.simulated_questions)
    # one penalty (prior and constraint), not one per benchmark
    expected = total + pooled.penalty(values)
    assert pooled.objective(values, ("cpwbft",)) == pytest.approx(expected)


@pytest.mark.parametrize("module", ["protocol_runner.tasks.placeholders",
                                    "protocol_runner.sim.pooled"])
def test_docstring_examples_run(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0
