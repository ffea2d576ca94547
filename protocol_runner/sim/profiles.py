"""Named simulator configurations: the hand-set world and the profiles fitted to the SAC paper.

``protocol_runner/data/sim_profiles.json`` holds each fitted profile: a description (the label
every output of a run with it carries: "simulated agents (<description>): not LLM results"),
what it was fitted to (table, benchmark, models, task kind), the simulator parameters (a
:meth:`~protocol_runner.sim.agents.SimConfig.from_mapping` mapping over the hand-set world) and
the fit's report (chi2, evaluations, intervals, CPU). ``handset`` names the hand-set world
(:class:`~protocol_runner.sim.agents.SimConfig` defaults, docs/simulation.md).

:func:`resolve_config` is what ``--sim-config`` means: a profile name, a JSON file, or nothing
(the profile fitted to the run's task kind, :func:`default_profile`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from protocol_runner.sim.agents import SimConfig
from robustgraph.errors import ParameterError

__all__ = [
    "HANDSET",
    "PROFILES_FILE",
    "default_profile",
    "named_config",
    "profile_names",
    "resolve_config",
    "shipped_profiles",
]

PROFILES_FILE = "sim_profiles.json"
"""The fitted profiles' file inside the ``protocol_runner.data`` package directory."""

HANDSET = "handset"
"""The name of the hand-set world (the illustrative defaults, fitted to nothing)."""

_SCHEMA = "robustgraph/sim-profiles/1"


@cache
def shipped_profiles() -> Mapping[str, Mapping[str, Any]]:
    """Every fitted profile shipped with the package, by name (read once).

    Raises
    ------
    ParameterError
        When the shipped file is malformed (a broken installation).
    """
    try:
        text = resources.files("protocol_runner.data").joinpath(PROFILES_FILE).read_text("utf-8")
        document = json.loads(text)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise ParameterError(f"shipped simulator profiles ({PROFILES_FILE}): {exc}") from None
    if document.get("schema") != _SCHEMA or not isinstance(document.get("profiles"), dict):
        raise ParameterError(f"shipped simulator profiles ({PROFILES_FILE}): not {_SCHEMA}")
    return document["profiles"]


def profile_names() -> list[str]:
    """``handset`` and every shipped fitted profile."""
    return [HANDSET, *shipped_profiles()]


def named_config(name: str) -> SimConfig:
    """The simulator configuration a profile name stands for.

    Examples
    --------
    >>> named_config("handset") == SimConfig()
    True

    Raises
    ------
    ParameterError
        An unknown name (the message lists the known ones).
    """
    if name == HANDSET:
        return SimConfig()
    entry = shipped_profiles().get(name)
    if entry is None:
        raise ParameterError(
            f"no simulator profile {name!r}; known: {', '.join(profile_names())} (or a JSON file)"
        )
    return SimConfig.from_mapping({**entry["config"], "description": entry["description"]})


def default_profile(kinds: Iterable[str]) -> str:
    """The profile a run on tasks of ``kinds`` uses by default: the shipped profile fitted to
    that one kind (the first listed in the file), else ``handset``.

    A task set of several kinds, or of a kind no profile was fitted to, gets ``handset``.
    """
    wanted = set(kinds)
    if len(wanted) == 1:
        (kind,) = wanted
        for name, entry in shipped_profiles().items():
            if entry.get("default_for") == kind:
                return name
    return HANDSET


def resolve_config(spec: str | None, kinds: Iterable[str] = ()) -> SimConfig:
    """What ``--sim-config SPEC`` means: a profile name (``handset``, a shipped profile), a JSON
    file of parameters over the hand-set world, or (None) the default profile for ``kinds``.

    Raises
    ------
    ParameterError
        An unknown name that is no readable JSON object either.
    """
    if spec is None:
        return named_config(default_profile(kinds))
    if spec in profile_names():
        return named_config(spec)
    from robustgraph.limits import clip, read_text

    path = Path(spec)
    if not path.exists() and "/" not in spec and not spec.endswith(".json"):
        named_config(spec)  # raises: lists the known names
    text = read_text(spec, label=f"{spec}: simulator config")  # the bounded input path
    try:
        data = json.loads(text)
    except (OSError, ValueError, RecursionError) as exc:
        raise ParameterError(f"{spec}: cannot read simulator config: {clip(exc)}") from None
    if not isinstance(data, dict):
        raise ParameterError(f"{spec}: simulator config must be a JSON object")
    config = SimConfig.from_mapping(data)
    if "description" not in data:
        config = replace(config, description=f"parameters from {path.name}")
    return config
