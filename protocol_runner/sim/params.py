"""The simulator's fittable parameters: names, bounds, and reading/writing them in a SimConfig.

A fit (:mod:`protocol_runner.sim.calibrate`) moves a vector of named parameters; this module
maps each name to a field of :class:`~protocol_runner.sim.agents.SimConfig` (world fields such
as ``score_margin``) or of its ``strong`` / ``weak`` profile (``strong.accuracy``), for one task
kind where the field is per kind (``accuracy``, ``judge_accuracy``). The names, their meaning
and the bounds are those of docs/simulation.md ("Parameters and defaults").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from protocol_runner.sim.agents import SimConfig
from robustgraph.errors import ParameterError

__all__ = [
    "ANSWERS",
    "BLOCKS",
    "PARAMETERS",
    "Parameter",
    "get_values",
    "select_blocks",
    "set_values",
]

_PER_KIND = ("accuracy", "judge_accuracy")
ROLES = ("strong", "weak")


@dataclass(frozen=True)
class Parameter:
    """One fittable parameter: its dotted name and the interval a fit searches."""

    name: str
    low: float
    high: float


def _unit(name: str) -> Parameter:
    return Parameter(name, 0.0, 1.0)


def _both(field: str, low: float = 0.0, high: float = 1.0) -> list[Parameter]:
    return [Parameter(f"{role}.{field}", low, high) for role in ROLES]


PARAMETERS: dict[str, Parameter] = {
    p.name: p
    for p in [
        *_both("accuracy", 0.01, 0.99),
        _unit("model_share"),
        Parameter("task_share", 0.0, 0.95),
        *_both("confidence_right"),
        *_both("confidence_wrong"),
        *_both("doubt_when_right", 0.0, 0.5),
        Parameter("confidence_noise", 0.0, 0.2),
        *_both("judge_accuracy", 0.5, 1.0),  # a judge at least as good as a coin (our choice)
        Parameter("score_margin", 0.0, 0.5),
        Parameter("score_noise", 0.0, 0.5),
        *_both("trust_when_right"),
        *_both("trust_when_wrong"),
        Parameter("refine_sharpness", 0.0, 30.0),
    ]
}
"""Every fittable parameter by name, with its search interval (docs/simulation.md)."""

ANSWERS = ("strong.accuracy", "weak.accuracy", "model_share", "task_share")
"""The parameters of the answers every protocol reads; fitted in the first block that has
targets (a run without CP-WBFT queries fits them with SAC's block)."""

BLOCKS: dict[str, tuple[str, ...]] = {
    "cpwbft": (
        "strong.accuracy", "weak.accuracy", "model_share", "task_share",
        "strong.confidence_right", "strong.confidence_wrong",
        "weak.confidence_right", "weak.confidence_wrong", "confidence_noise",
        "strong.doubt_when_right", "weak.doubt_when_right",
    ),
    "sac": (
        "strong.judge_accuracy", "weak.judge_accuracy", "score_margin", "score_noise",
        "strong.trust_when_right", "strong.trust_when_wrong",
        "weak.trust_when_right", "weak.trust_when_wrong", "refine_sharpness",
    ),
}
"""The parameter blocks fitted in turn, each on the targets of the protocol it drives: CP-WBFT
reads only answers and confidences; SAC reads answers, scores and refinements. The answers'
parameters (accuracies, shares) are fitted in the first block and then fixed: a later block
fits on its own protocol's targets only, and must not move what the first block's targets
pin down."""


def select_blocks(names: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """:data:`BLOCKS` restricted to ``names`` (each name fitted in every block that has it).

    Examples
    --------
    >>> select_blocks(["weak.accuracy", "score_noise"])
    {'cpwbft': ('weak.accuracy',), 'sac': ('score_noise',)}

    Raises
    ------
    ParameterError
        An unknown name.
    """
    for name in names:
        _split(name)
    return {block: tuple(n for n in members if n in names) for block, members in BLOCKS.items()}


def _split(name: str) -> tuple[str | None, str]:
    if name not in PARAMETERS:
        raise ParameterError(
            f"unknown simulator parameter {name!r}; known: {', '.join(PARAMETERS)}")
    role, dot, field = name.partition(".")
    return (role, field) if dot else (None, name)


def get_values(config: SimConfig, names: Sequence[str], kind: str) -> dict[str, float]:
    """The current value of each named parameter in ``config`` (per-kind fields at ``kind``;
    of several kinds joined by ``/``, at the first).

    Examples
    --------
    >>> get_values(SimConfig(), ["strong.accuracy", "score_margin"], "math")
    {'strong.accuracy': 0.85, 'score_margin': 0.35}
    """
    out = {}
    for name in names:
        role, field = _split(name)
        if role is None:
            out[name] = float(getattr(config, field))
            continue
        value = getattr(config.profiles[role], field)
        out[name] = float(value[kind.split("/")[0]] if field in _PER_KIND else value)
    return out


def set_values(config: SimConfig, values: Mapping[str, float], kind: str) -> SimConfig:
    """``config`` with each named parameter set (per-kind fields only at ``kind``, or at each
    of several kinds joined by ``/``: one accuracy for a set that mixes them, as
    ``commonsense30``'s yes/no and choice questions).

    Examples
    --------
    >>> c = set_values(SimConfig(), {"weak.accuracy": 0.25, "task_share": 0.3}, "math")
    >>> c.profiles["weak"].accuracy["math"], c.profiles["weak"].accuracy["bool"], c.task_share
    (0.25, 0.65, 0.3)
    >>> c = set_values(SimConfig(), {"weak.accuracy": 0.4}, "bool/choice")
    >>> c.profiles["weak"].accuracy["bool"], c.profiles["weak"].accuracy["choice"]
    (0.4, 0.4)
    """
    world: dict[str, float] = {}
    changes: dict[str, dict[str, object]] = {role: {} for role in ROLES}
    for name, value in values.items():
        role, field = _split(name)
        if role is None:
            world[field] = float(value)
        elif field in _PER_KIND:
            per_kind = dict(getattr(config.profiles[role], field))
            per_kind.update(dict.fromkeys(kind.split("/"), float(value)))
            changes[role][field] = per_kind
        else:
            changes[role][field] = float(value)
    profiles = dict(config.profiles)
    for role, fields in changes.items():
        if fields:
            profiles[role] = replace(profiles[role], **fields)
    return replace(config, profiles=profiles, **world)
