"""Test helpers for the metrics and report tests: turns of the five-agent worked example."""

from __future__ import annotations

from protocol_runner.run.records import Turn

ROLES = ("strong", "strong", "weak", "weak", "adversary")
"""Agents S0 S1 W2 W3 A4 on nodes n0..n4."""


def turns(flags: str, answers: dict[int, str | None] | None = None) -> tuple[Turn, ...]:
    """Five agents (S, S, W, W, A); ``flags`` is a string of T/F, one per agent.

    A correct agent answers "7" and a wrong one "3", unless ``answers`` names its answer.
    """
    answers = answers or {}
    return tuple(
        Turn(i, f"n{i}", ROLES[i], answers.get(i, "7" if f == "T" else "3"), f == "T")
        for i, f in enumerate(flags)
    )
