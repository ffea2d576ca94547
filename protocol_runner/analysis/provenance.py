"""What a table's or figure's numbers rest on: task set, backend, models, roster, F, T, seeds.

:class:`Provenance` is read from the ``run`` section of a ``summary.json``
(:meth:`Provenance.of_run`) and merged over several runs (a sweep's cells, a directory of
runs); its :meth:`Provenance.lines` are the title block of every figure and the caption of
every table, with :data:`SIMULATED_BANNER` on the simulated backend.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["SIMULATED_BANNER", "Provenance", "simulated_banner"]

SIMULATED_BANNER = "simulated agents: not LLM results"
"""Stated on every figure and table whose numbers come from the simulated backend."""


def simulated_banner(profile: str | None = None) -> str:
    """:data:`SIMULATED_BANNER`, naming the simulator profile when known.

    >>> simulated_banner("profile fitted to the SAC paper's Table 2")
    "simulated agents: not LLM results (profile fitted to the SAC paper's Table 2)"
    """
    return f"{SIMULATED_BANNER} ({profile})" if profile else SIMULATED_BANNER


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
    protocol and cell).
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
        """Whether any of the numbers come from the simulated backend."""
        return "simulated" in self.backends

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
        return [first, second] + ([SIMULATED_BANNER] if self.simulated else [])
