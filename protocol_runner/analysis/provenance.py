"""What a table's or figure's numbers rest on: task set, backend, models, roster, F, T, seeds.

:class:`Provenance` is read from the ``run`` section of a ``summary.json``
(:meth:`Provenance.of_run`) and merged over several runs (a sweep's cells, a directory of
runs); its :meth:`Provenance.lines` are the title block of every figure and the caption of
every table, with :data:`SIMULATED_BANNER` on the simulated backend.

Whether a run's numbers come from simulated agents is decided here, once
(:func:`run_simulated`): the run used the simulated backend, or its openai backend talked to an
endpoint that declared itself simulated (``serve-sim``; docs/endpoints.md), as the run's
``config.json`` records (:func:`merge_backend_records`). Every writer states
:data:`SIMULATED_BANNER` from that decision: ``summary.json`` (``run.simulated``) and
``summary.md``, the tables' captions and the CSV's ``label`` column (:func:`label_of`), the
figures' banner.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "SIMULATED_BANNER",
    "SIMULATED_SENTENCE",
    "UNCERTIFIED_BANNER",
    "UNCERTIFIED_SENTENCE",
    "run_uncertified",
    "Provenance",
    "label_of",
    "merge_backend_records",
    "record_backend",
    "results_profile",
    "results_simulated",
    "run_simulated",
    "simulated_banner",
]

SIMULATED_BANNER = "simulated agents: not LLM results"
"""Stated on every figure and table whose numbers come from simulated agents."""
SIMULATED_SENTENCE = f"{SIMULATED_BANNER[0].upper()}{SIMULATED_BANNER[1:]}."
"""The banner as a sentence (captions, the first line of a summary)."""

UNCERTIFIED_BANNER = (
    "NOT certified: run with --allow-uncertified (the graph is not proven (F+1)-robust "
    "for this F, or the agents are outside the F-local model)"
)
"""Stated on every figure and table of a run the certificate gate did not certify (issue 41,
item 12: ``table1.*`` and the figures lost it, though summary.md and the printed table had it)."""

UNCERTIFIED_SENTENCE = f"{UNCERTIFIED_BANNER}."
"""The banner as a sentence (captions)."""


def run_uncertified(run: Mapping[str, Any]) -> bool:
    """Whether the ``run`` section of a ``summary.json`` records a gate that did not certify
    the run (``--allow-uncertified``); False without a gate (e.g. a run with no SAC).

    Examples
    --------
    >>> run_uncertified({"gate": {"certified": False}}), run_uncertified({})
    (True, False)
    """
    gate = run.get("gate")
    return isinstance(gate, Mapping) and gate.get("certified") is False


def run_simulated(config: Mapping[str, Any] | None) -> bool:
    """Whether a run's replies came (some or all) from simulated agents, from its ``config.json``.

    True for the simulated backend, and for an openai backend whose endpoint declared itself
    simulated (the ``simulated`` flag :func:`merge_backend_records` keeps).

    Examples
    --------
    >>> run_simulated({"run": {"backend": {"kind": "simulated"}}})
    True
    >>> run_simulated({"run": {"backend": {"kind": "openai"}}, "backend": {"simulated": True}})
    True
    >>> run_simulated({"run": {"backend": {"kind": "openai"}}, "backend": {"simulated": False}})
    False
    """
    if not config:
        return False
    kind = ((config.get("run") or {}).get("backend") or {}).get("kind")
    return kind == "simulated" or bool((config.get("backend") or {}).get("simulated"))


def merge_backend_records(
    before: Mapping[str, Any] | None, now: Mapping[str, Any]
) -> dict[str, Any]:
    """A run's record of its backend after one more session: ``now`` over ``before``, the
    reply counts summed, ``simulated`` kept once seen, the served models kept when this
    session listed none.

    Examples
    --------
    >>> merge_backend_records({"replies": 3, "simulated_replies": 3, "simulated": True},
    ...                       {"replies": 0, "simulated_replies": 0, "simulated": False})
    {'replies': 3, 'simulated_replies': 3, 'simulated': True}
    """
    before = dict(before or {})
    merged = {**before, **now}
    for key in ("replies", "simulated_replies"):
        if key in now:
            merged[key] = int(before.get(key) or 0) + int(now[key])
    if "simulated" in now:
        merged["simulated"] = bool(before.get("simulated")) or bool(now["simulated"])
    for key in ("served_models", "owned_by"):
        if key in now and not now[key] and before.get(key):
            merged[key] = before[key]
    return merged


def record_backend(config_path: str | Path, now: Mapping[str, Any]) -> None:
    """Merge a session's backend record ``now`` into the ``backend`` entry of a run's
    ``config.json`` (:func:`merge_backend_records`); written atomically, only on a change.

    The run's identity (``run``, ``run_id``) is untouched. A missing or unreadable file is
    left alone (the run never wrote one).
    """
    path = Path(config_path)
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return
    if not isinstance(config, dict):
        return
    merged = merge_backend_records(config.get("backend"), now)
    if merged == config.get("backend"):
        return
    config["backend"] = merged
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    os.replace(partial, path)


def results_simulated(directory: str | Path) -> bool:
    """:func:`run_simulated` for a run's results directory (its ``config.json``; False when
    there is none to read)."""
    try:
        config = json.loads((Path(directory) / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return False
    return run_simulated(config) if isinstance(config, dict) else False


def simulated_banner(profile: str | None = None) -> str:
    """:data:`SIMULATED_BANNER`, naming the simulator profile when known (docs/simulation.md).

    >>> simulated_banner("profile fitted to the SAC paper's Table 2, MATH")
    "simulated agents: not LLM results (profile fitted to the SAC paper's Table 2, MATH)"
    """
    return f"{SIMULATED_BANNER} ({profile})" if profile else SIMULATED_BANNER


def results_profile(directory: str | Path) -> str | None:
    """The simulator profile a run's ``config.json`` records (its backend's ``profile``:
    docs/simulation.md), or None (no file, or not the in-process simulated backend)."""
    try:
        config = json.loads((Path(directory) / "config.json").read_text(encoding="utf-8"))
        return (config.get("backend") or {}).get("profile") or None
    except (OSError, ValueError, RecursionError, AttributeError):
        return None


def label_of(simulated: bool, uncertified: bool = False) -> str:
    """The label a table row or file carries: :data:`SIMULATED_BANNER` and/or
    :data:`UNCERTIFIED_BANNER` (joined by ``"; "``), or ``""``."""
    return "; ".join(b for b, on in ((SIMULATED_BANNER, simulated),
                                     (UNCERTIFIED_BANNER, uncertified)) if on)


def _seeds(seeds: Sequence[int]) -> str:
    values = sorted(set(seeds))
    if len(values) == 1:
        return f"seed {values[0]}"
    if values == list(range(values[0], values[-1] + 1)) and len(values) > 2:
        return f"{len(values)} seeds ({values[0]}-{values[-1]})"
    return f"{len(values)} seeds ({', '.join(map(str, values))})"


def _values(values: Sequence[Any]) -> str:
    unique = list(dict.fromkeys(str(v) for v in values if v is not None and v != ""))
    return "/".join(unique) if unique else "?"


@dataclass(frozen=True)
class Provenance:
    """What a figure's numbers rest on, for its title block.

    Each field holds every value that occurs (a sweep varies some): the task set spec(s),
    backend(s), model name(s), roster spec(s) with attack(s), F, T (rounds after the initial
    answers), seeds, and the query counts per protocol (``queries``: one count per
    protocol and cell). ``simulated_runs`` holds each run's ``run.simulated``
    (:func:`run_simulated`).
    """

    task_sets: tuple[str, ...]
    backends: tuple[str, ...]
    models: tuple[str, ...]
    rosters: tuple[str, ...]
    attacks: tuple[str, ...]
    F: tuple[int, ...]  # noqa: N815 - the papers' name
    T: tuple[int, ...]  # noqa: N815
    seeds: tuple[int, ...]
    queries: tuple[int, ...]
    per: str = "protocol"
    simulated_runs: tuple[bool, ...] = ()
    uncertified_runs: tuple[bool, ...] = ()

    @classmethod
    def of_run(cls, run: Mapping[str, Any], queries: Sequence[int]) -> Provenance:
        """From the ``run`` section of a run's ``summary.json`` and its per-protocol queries."""
        roster = run.get("roster") or {}
        seeds = run.get("seeds") or [run.get("seed")]
        return cls(
            task_sets=(str(run.get("task_set") or f"{run.get('tasks', '?')} tasks"),),
            backends=(str(run.get("backend") or "?"),),
            models=tuple(run.get("models") or ()),
            rosters=(str(roster.get("spec", "?")),),
            attacks=(str(roster["attack"]),) if roster.get("attack") else (),
            F=(run.get("F"),),
            T=(run.get("rounds"),),
            seeds=tuple(s for s in seeds if s is not None),
            queries=tuple(queries),
            simulated_runs=(bool(run.get("simulated")),),
            uncertified_runs=(run_uncertified(run),),
        )

    @classmethod
    def merge(cls, parts: Sequence[Provenance], *, per: str = "protocol and cell") -> Provenance:
        """One provenance for several runs (a sweep's cells): every value that occurs; the
        query counts then are ``per`` protocol and run (one run: itself)."""
        if len(parts) == 1:
            return parts[0]

        def union(name: str) -> tuple[Any, ...]:
            return tuple(dict.fromkeys(v for p in parts for v in getattr(p, name)))

        fields = [name for name in cls.__dataclass_fields__ if name != "per"]
        return cls(**{name: union(name) for name in fields}, per=per)

    @property
    def simulated(self) -> bool:
        """Whether any of the numbers come from simulated agents: the simulated backend, or a
        run whose ``run.simulated`` says so (an endpoint that declared itself simulated)."""
        return "simulated" in self.backends or any(self.simulated_runs)

    @property
    def uncertified(self) -> bool:
        """Whether any run was not certified by its gate (``--allow-uncertified``)."""
        return any(self.uncertified_runs)

    def banners(self) -> list[str]:
        """The banners the numbers carry: simulated, NOT certified (each when it applies)."""
        return [b for b, on in ((SIMULATED_BANNER, self.simulated),
                                (UNCERTIFIED_BANNER, self.uncertified)) if on]

    def lines(self) -> list[str]:
        """The title block: one line of what was run, one of its size (and the banner).

        Examples
        --------
        >>> p = Provenance(("arith:100",), ("simulated",), ("sim-strong", "sim-weak"),
        ...                ("4S2W1A",), ("fixed",), (3,), (6,), (1,), (100, 100))
        >>> p.lines()[0]
        'tasks arith:100 · simulated backend (sim-strong, sim-weak) · roster 4S2W1A, attack fixed'
        >>> p.lines()[1]
        'F = 3 · T = 6 rounds · seed 1 · 100 queries per protocol'
        >>> p.lines()[2]
        'simulated agents: not LLM results'
        """
        models = f" ({', '.join(self.models)})" if self.models else ""
        attack = f", attack {_values(self.attacks)}" if self.attacks else ""
        first = (
            f"tasks {_values(self.task_sets)} · {_values(self.backends)} backend{models} · "
            f"roster {_values(self.rosters)}{attack}"
        )
        counts = sorted(set(self.queries))
        if not counts:
            queries = "no queries"
        elif len(counts) == 1:
            queries = f"{counts[0]} queries per {self.per}"
        else:
            queries = f"{counts[0]}-{counts[-1]} queries per {self.per}"
        seeds = _seeds(self.seeds) if self.seeds else "seed ?"
        second = (
            f"F = {_values(self.F)} · T = {_values(self.T)} rounds · {seeds} · {queries}"
        )
        return [first, second, *self.banners()]
