"""Synthetic placeholder task sets shaped like the SAC paper's five open-weight benchmarks.

The SAC paper's open-weight experiments (Lee et al. 2026, Sec. 5 and App. C-D: Tables 3, 9 and
10, strong Qwen3-4B, weak Qwen2.5-1.5B-Instruct) use 50 questions from each of ARC-Challenge,
HellaSwag, OpenBookQA (four-option choice) and BoolQ, RTE (yes/no). Nothing of those datasets
ships here and nothing is downloaded: these sets are **placeholders** of the same shape, for
the simulated agents only, which read a task's kind, options and distractors and never its
meaning. Each set has 50 tasks of the benchmark's answer kind (four options labelled as the
project's adapter labels that benchmark: ``answer1..4``, ``ending1..4`` for HellaSwag; or
``true``/``false``), a right answer drawn per task from a fixed seed (so the right option and
the truth value are balanced, as a model's position bias cannot help), and a question text that
says it is a placeholder. They are **not** the benchmarks: a real model asked them answers
nonsense, and a result on them is never a result on the benchmark.

Spec: ``placeholder-<benchmark>[:LIMIT][:offset=K]`` (``placeholder-arc_challenge``,
``placeholder-hellaswag``, ``placeholder-openbookqa``, ``placeholder-boolq``,
``placeholder-rte``), as ``commonsense30`` is named (docs/tasks.md).

References
----------
H. Lee et al., "Robust Multi-Agent LLMs under Byzantine Faults", arXiv:2605.09076, 2026,
App. C-D (the benchmarks, 50 questions each; Tables 9 and 10).
"""

from __future__ import annotations

import random
from functools import cache, partial

from protocol_runner.tasks.model import Task

__all__ = ["PLACEHOLDERS", "QUESTIONS", "placeholder_set", "placeholder_spec"]

QUESTIONS = 50
"""Questions per set: the paper's count per benchmark (App. C)."""

_SHAPES: dict[str, tuple[str, str, str]] = {
    # benchmark key (as in the paper values) -> (title, kind, choice label style)
    "arc_challenge": ("ARC-Challenge", "choice", "answer"),
    "hellaswag": ("HellaSwag", "choice", "ending"),
    "openbookqa": ("OpenBookQA", "choice", "answer"),
    "boolq": ("BoolQ", "bool", ""),
    "rte": ("RTE", "bool", ""),
}
_OPTIONS = 4


def placeholder_spec(benchmark: str) -> str:
    """The task spec of ``benchmark``'s placeholder set.

    Examples
    --------
    >>> placeholder_spec("rte")
    'placeholder-rte'
    """
    return f"placeholder-{benchmark}"


@cache
def placeholder_set(benchmark: str) -> tuple[Task, ...]:
    """The 50 placeholder tasks shaped like ``benchmark`` (module docstring); deterministic.

    Examples
    --------
    >>> tasks = placeholder_set("arc_challenge")
    >>> len(tasks), tasks[0].kind, len(tasks[0].choices), tasks[0].id
    (50, 'choice', 4, 'placeholder-arc_challenge-01')
    >>> placeholder_set("boolq")[0].kind
    'bool'

    Raises
    ------
    KeyError
        An unknown benchmark key.
    """
    title, kind, style = _SHAPES[benchmark]
    rng = random.Random(f"placeholder-{benchmark}")  # string seeds are stable across runs
    tasks = []
    for i in range(1, QUESTIONS + 1):
        head = (f"Placeholder question {i} of {QUESTIONS}, shaped like {title} (synthetic "
                f"stand-in for simulated agents; no {title} text)")
        tid = f"{placeholder_spec(benchmark)}-{i:02d}"
        if kind == "bool":
            answer = "true" if rng.random() < 0.5 else "false"
            tasks.append(Task(tid, f"{head}. True or false?", answer, kind="bool",
                              source=placeholder_spec(benchmark)))
            continue
        right = rng.randrange(_OPTIONS)
        choices = tuple(f"placeholder option {chr(65 + k)}" for k in range(_OPTIONS))
        tasks.append(Task(tid, f"{head}. Which option is right?", f"{style}{right + 1}",
                          kind="choice", choices=choices, source=placeholder_spec(benchmark)))
    return tuple(tasks)


PLACEHOLDERS = {placeholder_spec(b): partial(placeholder_set, b) for b in _SHAPES}
"""Each placeholder set's spec name -> a function returning its tasks (built-in task sets)."""
