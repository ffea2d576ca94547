"""Leave-one-out fits on a per-round table: the held-out selection and a fit pooled over benchmarks.

Issue 29's validation (c) on the SAC paper's Table 10 (per-round W/S of Qwen3-4B strong and
Qwen2.5-1.5B-Instruct weak agents on five benchmarks, three topologies each):

- **leave one topology out**: fit on two topologies' rows of one benchmark, predict the third's
  (:func:`leave_one_topology_out`);
- **leave one benchmark out**: the dynamics parameters (shares, confidences, scoring,
  refinement) fitted once on four benchmarks, shared by all of them, each benchmark's two
  accuracies set from its own Init rows (round 0, before any protocol acts); the held-out
  benchmark gets the shared dynamics and its own Init accuracies, and its later rounds are
  predicted (:func:`leave_one_benchmark_out`, :class:`PooledCalibration`).

The pooled objective is the sum of the per-benchmark data terms
(:func:`~protocol_runner.sim.calibrate.chi2` over every benchmark's targets, each simulated
with its own accuracies and answer kind) plus the prior and constraint once: it composes
:class:`~protocol_runner.sim.calibrate.Calibration` (its optimiser, checkpoint and penalty),
replacing only how an evaluation simulates (:meth:`PooledCalibration.curves`). The per-kind
judge accuracy is shared across the two answer kinds (choice, yes/no): a dynamics parameter.

References
----------
H. Lee et al., "Robust Multi-Agent LLMs under Byzantine Faults", arXiv:2605.09076, 2026,
Table 10 (per-round W/S per benchmark), Sec. 5.1 (the group accuracies).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from protocol_runner.sim.agents import SimConfig
from protocol_runner.sim.calibrate import Calibration, Log, simulate
from protocol_runner.sim.params import BLOCKS, set_values
from protocol_runner.sim.targets import Setting, Target, paper_targets
from robustgraph.errors import ParameterError

__all__ = [
    "ACCURACIES",
    "Part",
    "PooledCalibration",
    "init_accuracies",
    "leave_one_benchmark_out",
    "leave_one_topology_out",
    "paper_part",
]

ACCURACIES = ("strong.accuracy", "weak.accuracy")
"""Set per benchmark from its Init rows in a pooled fit, never fitted."""


@dataclass(frozen=True)
class Part:
    """One benchmark's settings and targets (all or some of its topologies) and answer kind."""

    benchmark: str
    kind: str
    settings: tuple[Setting, ...]
    targets: tuple[Target, ...]


def paper_part(table: str, benchmark: str, *, topologies: Sequence[str] | None = None) -> Part:
    """One benchmark of a per-round table (:func:`~protocol_runner.sim.targets.paper_targets`)."""
    settings, targets, kind = paper_targets(table, benchmark, topologies=topologies)
    return Part(benchmark, kind, tuple(settings), tuple(targets))


def init_accuracies(targets: Sequence[Target]) -> dict[str, float]:
    """Each group's accuracy: the mean of its Init (round-0) targets.

    Examples
    --------
    >>> ts = [Target("a", "sac", "weak", (0,), 0.5, 50), Target("b", "sac", "weak", (0,), 0.6, 50),
    ...       Target("a", "sac", "strong", (0,), 0.7, 50), Target("a", "sac", "weak", (1,), 0.9, 9)]
    >>> init_accuracies(ts)
    {'strong.accuracy': 0.7, 'weak.accuracy': 0.55}

    Raises
    ------
    ParameterError
        A group without an Init target.
    """
    out = {}
    for name in ACCURACIES:
        group = name.partition(".")[0]
        init = [t.value for t in targets if t.group == group and t.rounds == (0,)]
        if not init:
            raise ParameterError(f"no Init (round 0) target of the {group} group")
        out[name] = round(sum(init) / len(init), 9)
    return out


def leave_one_topology_out(table: str, benchmark: str, held: str) -> tuple[Part, Part]:
    """(the part fitted on: every topology but ``held``; the held-out topology's part).

    Raises
    ------
    ParameterError
        ``held`` is not one of the table's topologies.
    """
    whole = paper_part(table, benchmark)
    names = [s.name for s in whole.settings]
    if held not in names:
        raise ParameterError(f"{table} has no topology {held!r}: {', '.join(names)}")
    rest = [n for n in names if n != held]
    return paper_part(table, benchmark, topologies=rest), paper_part(
        table, benchmark, topologies=[held])


def leave_one_benchmark_out(
    table: str, benchmarks: Sequence[str], held: str
) -> tuple[list[Part], Part]:
    """(the parts fitted on: every benchmark but ``held``; the held-out benchmark's part).

    Raises
    ------
    ParameterError
        ``held`` is not among ``benchmarks``.
    """
    if held not in benchmarks:
        raise ParameterError(f"{held!r} is not among the benchmarks {', '.join(benchmarks)}")
    return [paper_part(table, b) for b in benchmarks if b != held], paper_part(table, held)


class PooledCalibration(Calibration):
    """A fit of shared dynamics over several benchmarks' parts (module docstring).

    Parameters
    ----------
    parts : sequence of Part
        One per benchmark (distinct names); their settings and targets are renamed
        ``<benchmark>/<setting>``.
    checkpoint, base, seeds, workdir, log, prior_width
        As :class:`~protocol_runner.sim.calibrate.Calibration`. The prior is centred on the
        base config at the first part's kind.
    """

    def __init__(
        self,
        parts: Sequence[Part],
        *,
        checkpoint: str | Path,
        base: SimConfig | None = None,
        seeds: Sequence[int] = (1,),
        workdir: str | Path | None = None,
        log: Log | None = None,
        prior_width: float = 0.0,
    ) -> None:
        if not parts or len({p.benchmark for p in parts}) != len(parts):
            raise ParameterError("a pooled fit needs one part per benchmark, at least one")
        self.parts = {p.benchmark: p for p in parts}
        for p in parts:
            init_accuracies(p.targets)  # raises early on a part without Init rows
        settings = [replace(s, name=f"{p.benchmark}/{s.name}") for p in parts for s in p.settings]
        targets = [replace(t, setting=f"{p.benchmark}/{t.setting}")
                   for p in parts for t in p.targets]
        blocks = {b: tuple(n for n in names if n not in ACCURACIES) for b, names in BLOCKS.items()}
        super().__init__(settings, targets, kind=parts[0].kind, checkpoint=checkpoint,
                         base=base, seeds=seeds, blocks=blocks, workdir=workdir, log=log,
                         prior_width=prior_width)

    def transfer(self, values: Mapping[str, float], part: Part) -> SimConfig:
        """The base config with the shared ``values`` and ``part``'s Init accuracies
        (:func:`init_accuracies`) set, per-kind fields at its kind: how a held-out benchmark
        is predicted, and how each fitted one is simulated."""
        return set_values(self.base, {**values, **init_accuracies(part.targets)}, part.kind)

    def config(self, values: Mapping[str, float], benchmark: str | None = None) -> SimConfig:
        """:meth:`transfer` to ``benchmark``'s part (default: the first part)."""
        return self.transfer(values, self.parts[benchmark or next(iter(self.parts))])

    def curves(
        self, values: Mapping[str, float], protocols: Sequence[str]
    ) -> dict[tuple[str, str, str], list[float | None]]:
        """Each benchmark's settings simulated with its own config (:meth:`config`)."""
        out: dict[tuple[str, str, str], list[float | None]] = {}
        for bench in self.parts:
            mine = [s for s in self.settings if s.name.partition("/")[0] == bench]
            out.update(simulate(self.config(values, bench), mine, self.seeds, self.workdir,
                                protocols=protocols, topologies=self._topologies))
        return out
