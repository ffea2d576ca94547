"""Fit the simulated agents' parameters to per-round weak/strong accuracies (issue 29).

The fit matches, for each target (:class:`~protocol_runner.sim.targets.Target`: one protocol's
weak or strong group accuracy at one round of one setting), the simulated value to the
published or measured one.

**Objective** (weighted least squares, a chi-square when the model is right)::

    chi2(x) = sum_i (sim_i(x) - paper_i)^2 / var_i,
    var_i   = p_i (1 - p_i) / N_i  +  p_i (1 - p_i) / M_i  +  spread^2

with ``p_i`` the target value (clipped to [0.05, 0.95]), ``N_i`` its question count (binomial
variance of the paper's mean; the agents of one group share most of their errors, so one
question is counted once), ``M_i`` the simulated question count (seeds x tasks) and ``spread``
the paper's run-to-run spread: 2 points, the difference between its repeated Init rows (Table
2: the same MATH models measured twice give W 25.0 vs 21.5, S 79.0 vs 77.0).

**Common random numbers.** Every evaluation simulates the same settings on the same graphs
(``graph_seed``), task sets and world seeds: the simulator's draws are hashes of (seed, agent,
task, ...), so two parameter vectors differ only through the parameters. The objective is then
a deterministic (piecewise constant) function of the parameters.

**Optimiser.** A seeded scrambled Sobol design (``presearch`` points, SciPy's ``qmc.Sobol``)
over the block, then SciPy's bounded Nelder-Mead (derivative-free, deterministic) from the best
point found, on parameters scaled to [0, 1], block by block
(:data:`~protocol_runner.sim.params.BLOCKS`): first the answer and confidence block on
CP-WBFT's targets (cheap: CP-WBFT's rounds make no LLM calls), then the scoring and
refinement block on SAC's targets with the first block's values fixed. The design matters: the
objective is flat over much of the space (CP-WBFT collapses unless right agents report a
confidence of 1.0), where a simplex alone stalls; so the design also tries :data:`HINTS`, the
corner where right agents report 1.0 with little noise (as the paper's adversary does), and
Nelder-Mead also runs from each further hint (the lowest objective wins). The
accuracies (started at the mean of the Init targets) and the shares are fitted in the first
block only, on CP-WBFT's Init rows and dynamics, and then fixed.

**Resumable.** Every evaluation is stored in a JSON checkpoint keyed by its parameter vector
(rounded to 1e-9), under a fingerprint of the fit's settings, seeds, task kind and base
parameters (another fit's checkpoint is refused). Nelder-Mead is deterministic, so a rerun
replays the same path, reading stored evaluations instead of simulating, and continues where
the last run stopped.

One module: the objective, the optimiser's blocks, the checkpoint and the interval scans share
one fit's state (its settings, seeds, fingerprint and evaluation cache); the parameter space
and the targets are modules of their own (:mod:`~protocol_runner.sim.params`,
:mod:`~protocol_runner.sim.targets`).

**Prior and constraint** (:func:`penalty`, added to chi2 in the objective). Per-round W/S
rows do not identify every parameter (Table 2's SAC rows leave the scoring flat; its CP-WBFT
rows are met as well by strong agents that report 1.0 when wrong as when right), and a fit
left free drifts to corners that mispredict other settings. So the objective adds
(1) for the paper's profiles (``prior_width``), a weak Gaussian prior centred on the base
(hand-set) values, of standard deviation
:data:`PRIOR_WIDTH` of each parameter's search interval: about one chi2 unit for a quarter of
the interval, so it decides only where the data are flat; and two constraints, each a
steep quadratic penalty applied while fitting the block of the protocol it concerns (and in
the reported penalty): (2, CP-WBFT) an honest agent's confidence when wrong is at least
:data:`CONFIDENCE_GAP` below its confidence when right: in the paper only the adversary's
confidence is falsified (App. B.4: it reports 1.0); honest agents report their own (Sec. 1:
CP-WBFT assumes honest confidence). "Less sure when wrong" is our reading of honest; the
0.05 gap is our choice, not the paper's. (3, SAC) an agent keeps a right answer at least as
often as its own judge sees a right answer as right, ``trust_when_right >= judge_accuracy``:
SAC's refine prompt tells the agent to "retain your current answer if you believe it is
correct" (App. B.2), and an agent judging its own right answer believes it correct with
its judge's accuracy. The reading is ours; it was added after the fit without it
mispredicted SAC with three adversaries (docs/simulation.md).
The fit's reported ``chi2`` is the data term alone; ``penalty`` is reported beside it.

**Intervals.** :func:`scan_intervals` moves one parameter at a time over a grid, the others
held at the fit (a *conditional* 1-D scan, narrower than a full profile that would re-fit the
others), and reports the range where ``chi2 <= chi2_min + 3.84 * max(1, chi2_min / dof)``
(the 95% likelihood-ratio threshold, inflated by the fit's excess dispersion).

References
----------
Lee et al., "Robust Multi-Agent LLMs under Byzantine Faults", 2026: Table 2 (per-round W/S,
MATH), Table 10 (per-round W/S per benchmark), Sec. 5.1 (the group accuracies), App. B.4 (the
adversary's falsified confidence).
Nelder & Mead, "A simplex method for function minimization", Computer Journal 7, 1965.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from protocol_runner.run.records import QueryRecord, read_records
from protocol_runner.run.runner import RESULTS_FILE, BackendSpec, RunSpec, run
from protocol_runner.sim.agents import SimConfig
from protocol_runner.sim.params import ANSWERS, BLOCKS, PARAMETERS, get_values, set_values
from protocol_runner.sim.targets import Setting, Target, round_curves
from robustgraph.errors import ParameterError
from solvers.extras import require

__all__ = [
    "SPREAD",
    "Calibration",
    "FitResult",
    "chi2",
    "penalty",
    "run_setting",
    "scan_intervals",
    "simulate",
]

SPREAD = 0.02
"""The paper's run-to-run spread (2 points: its repeated Init rows differ by about 2)."""

PRIOR_WIDTH = 0.25
"""The prior's standard deviation, as a share of each parameter's search interval."""

CONFIDENCE_GAP = 0.05
"""An honest agent's confidence when wrong is at least this much below its confidence when
right (module docstring); a violation by ``d`` costs ``(d / 0.01)^2``."""

PROTOCOLS = ("cpwbft", "sac")
"""The protocols whose targets a fit matches; each constraint of :func:`penalty` belongs to
one."""

HINTS: dict[str, tuple[dict[str, float], ...]] = {
    "cpwbft": (
        {"strong.confidence_right": 1.0, "weak.confidence_right": 1.0,
         "confidence_noise": 0.01},
        {"strong.confidence_right": 1.0, "weak.confidence_right": 1.0,
         "confidence_noise": 0.003, "strong.doubt_when_right": 0.15},
    ),
}
"""Extra start points per block (module docstring): Nelder-Mead runs from the best point of
the Sobol design and from each hint, and the lowest objective wins. The second was added
after the first fit with ``doubt_when_right`` stalled at 0 while this corner scores lower on
Table 2 (docs/simulation.md says so)."""


Log = Callable[[str], None]


def _topology(setting: Setting):  # noqa: ANN202 - a Topology; imported lazily below
    if setting.graph_file:
        from robustgraph import io

        return io.read(setting.topology)
    from protocol_runner.run.topology_spec import build_topology
    from protocol_runner.sim.graphs import er_robust

    family, _, option = setting.topology.partition(":")
    if family == "er" and option.startswith("r=") and option[2:].isdigit():
        return er_robust(setting.n, int(option[2:]), setting.graph_seed)[0]  # as reproduce
    return build_topology(setting.topology, setting.n, seed=setting.graph_seed)


def run_setting(
    config: SimConfig, setting: Setting, seed: int, workdir: Path, *, topology: Any = None
) -> list[QueryRecord]:
    """Run ``setting`` once on the simulated agents with ``config``; its query records.

    The run goes to a fresh directory under ``workdir``, removed afterwards.
    """
    workdir.mkdir(parents=True, exist_ok=True)
    out = Path(tempfile.mkdtemp(prefix="run-", dir=workdir))
    try:
        sim_file = out / "sim.json"
        sim_file.write_text(json.dumps(config.to_mapping()), encoding="utf-8")
        spec = RunSpec(
            topology if topology is not None else _topology(setting), out / "run",
            roster=setting.roster, protocols=setting.protocols, tasks=setting.tasks,
            rounds=setting.rounds, seed=seed, F=setting.F,
            backend=BackendSpec("simulated", sim_config=str(sim_file)),
        )
        run(spec)
        return read_records(out / "run" / RESULTS_FILE)
    finally:
        shutil.rmtree(out, ignore_errors=True)


def simulate(
    config: SimConfig,
    settings: Sequence[Setting],
    seeds: Sequence[int],
    workdir: Path,
    *,
    protocols: Sequence[str] | None = None,
    topologies: Mapping[str, Any] | None = None,
) -> dict[tuple[str, str, str], list[float | None]]:
    """Per (setting, protocol, group): the accuracy at each round, pooled over ``seeds``.

    ``protocols`` restricts every setting to those protocols (a block fit runs only what its
    targets need).
    """
    curves: dict[tuple[str, str, str], list[float | None]] = {}
    for setting in settings:
        wanted = tuple(p for p in setting.protocols if protocols is None or p in protocols)
        if not wanted:
            continue
        part = replace(setting, protocols=wanted)
        records: list[QueryRecord] = []
        for seed in seeds:
            topology = topologies.get(setting.name) if topologies else None
            records += run_setting(config, part, seed, workdir, topology=topology)
        for (protocol, group), curve in round_curves(records).items():
            curves[(setting.name, protocol, group)] = curve
    return curves


def _target_value(curves: Mapping[tuple[str, str, str], list[float | None]], t: Target) -> float:
    curve = curves.get((t.setting, t.protocol, t.group))
    if curve is None or max(t.rounds) >= len(curve) or any(curve[r] is None for r in t.rounds):
        raise ParameterError(f"target {t.key}: the simulation has no such round")
    return sum(curve[r] for r in t.rounds) / len(t.rounds)  # type: ignore[misc]


def chi2(
    simulated: Mapping[str, float], targets: Sequence[Target], simulated_questions: int,
    *, spread: float = SPREAD,
) -> float:
    """The weighted least-squares objective (module docstring) over ``targets``.

    Examples
    --------
    >>> t = Target("s", "sac", "weak", (0,), 0.5, 100)
    >>> round(chi2({t.key: 0.55}, [t], 100), 3)  # 0.05^2 / (0.0025 + 0.0025 + 0.0004)
    0.463
    """
    total = 0.0
    for t in targets:
        p = min(0.95, max(0.05, t.value))
        var = p * (1 - p) / t.questions + p * (1 - p) / simulated_questions + spread**2
        total += (simulated[t.key] - t.value) ** 2 / var
    return total


def penalty(
    values: Mapping[str, float], centre: Mapping[str, float], *, width: float = PRIOR_WIDTH,
    protocols: Sequence[str] = PROTOCOLS,
) -> float:
    """The prior and constraint terms of the objective (module docstring).

    ``centre`` gives the prior's centre of each parameter it names (others are free). The
    constraints of ``protocols`` apply to each role whose two parameters are in ``values``:
    CP-WBFT's on the confidences, SAC's on ``trust_when_right`` and ``judge_accuracy``.

    Examples
    --------
    >>> penalty({"score_margin": 0.25}, {"score_margin": 0.375})  # a quarter of [0, 0.5] away
    1.0
    >>> round(penalty({"strong.confidence_right": 1.0, "strong.confidence_wrong": 0.97}, {}), 6)
    4.0
    >>> round(penalty({"weak.judge_accuracy": 0.65, "weak.trust_when_right": 0.6}, {}), 6)
    25.0
    >>> penalty({"weak.judge_accuracy": 0.65, "weak.trust_when_right": 0.6}, {},
    ...         protocols=("cpwbft",))
    0.0
    """
    total = 0.0
    if width > 0:
        for name, x0 in centre.items():
            if name in values:
                p = PARAMETERS[name]
                total += ((values[name] - x0) / (width * (p.high - p.low))) ** 2
    pairs = {"cpwbft": ("confidence_wrong", "confidence_right", CONFIDENCE_GAP),
             "sac": ("judge_accuracy", "trust_when_right", 0.0)}
    for protocol in protocols:
        below, above, gap = pairs[protocol]  # values[below] <= values[above] - gap
        for role in ("strong", "weak"):
            low, high = values.get(f"{role}.{below}"), values.get(f"{role}.{above}")
            if low is not None and high is not None:
                total += (max(0.0, low - high + gap) / 0.01) ** 2
    return total


@dataclass
class FitResult:
    """A fit's parameter values, objective and per-target simulated values."""

    kind: str
    values: dict[str, float]
    chi2: float
    targets: int
    parameters: int
    evaluations: int
    simulated: dict[str, float] = field(default_factory=dict)
    intervals: dict[str, tuple[float, float]] = field(default_factory=dict)
    penalty: float = 0.0

    @property
    def dof(self) -> int:
        """Targets minus fitted parameters (at least 1)."""
        return max(1, self.targets - self.parameters)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "values": {k: round(v, 6) for k, v in self.values.items()},
            "chi2": round(self.chi2, 4),
            "penalty": round(self.penalty, 4),
            "targets": self.targets,
            "parameters": self.parameters,
            "dof": self.dof,
            "evaluations": self.evaluations,
            "simulated": {k: round(v, 6) for k, v in self.simulated.items()},
            "intervals": {k: [round(a, 6), round(b, 6)] for k, (a, b) in self.intervals.items()},
        }


class Calibration:
    """A resumable fit of the simulator to ``targets`` in ``settings`` (module docstring).

    Parameters
    ----------
    settings, targets : sequences of Setting and Target
    kind : str
        The task kind whose per-kind parameters (accuracy, judge accuracy) are fitted.
    checkpoint : path
        JSON file of every evaluation so far (created; read back on a rerun).
    base : SimConfig, optional
        The parameters not fitted (default: the hand-set world).
    seeds : sequence of int
        World seeds of every evaluation (common random numbers).
    max_evaluations : int
        Nelder-Mead's budget per block.
    presearch : int
        Sobol design points evaluated per block before Nelder-Mead (0: none).
    blocks : mapping block -> parameter names, optional
        The parameters fitted in each block (default
        :data:`~protocol_runner.sim.params.BLOCKS`); a block is named by the protocol whose
        targets it is fitted on. A block without targets is skipped and its answers'
        parameters (:data:`~protocol_runner.sim.params.ANSWERS`) go to the next block.
    log : callable, optional
        Receives one progress line per evaluation (stderr in the CLI).
    prior_width : float
        The prior's width; 0 (the default, as for ``robustgraph calibrate``): no prior, the
        confidence constraint stays. The paper profiles use :data:`PRIOR_WIDTH`
        (benchmarks/fit_paper_profiles.py): their held-out predictions depend on directions
        their per-round rows leave flat, where a pilot's own fit should not be pulled towards
        the hand-set world.
    """

    def __init__(
        self,
        settings: Sequence[Setting],
        targets: Sequence[Target],
        *,
        kind: str,
        checkpoint: str | Path,
        base: SimConfig | None = None,
        seeds: Sequence[int] = (1,),
        max_evaluations: int = 120,
        presearch: int = 32,
        blocks: Mapping[str, Sequence[str]] | None = None,
        workdir: str | Path | None = None,
        log: Log | None = None,
        prior_width: float = 0.0,
    ) -> None:
        if not targets:
            raise ParameterError("nothing to fit: no targets")
        names = {s.name for s in settings}
        missing = sorted({t.setting for t in targets} - names)
        if missing:
            raise ParameterError(f"targets name settings that are not given: {missing}")
        self.settings = list(settings)
        self.targets = list(targets)
        self.kind = kind
        self.base = base or SimConfig()
        self.seeds = tuple(seeds)
        self.max_evaluations = max_evaluations
        self.presearch = presearch
        self.prior_width = prior_width
        given = {b: tuple(names) for b, names in (blocks or BLOCKS).items()}
        unknown = sorted({n for names in given.values() for n in names} - set(PARAMETERS))
        if unknown or set(given) - set(BLOCKS):
            raise ParameterError(f"unknown parameters or blocks: {unknown or sorted(given)}")
        self.blocks: dict[str, tuple[str, ...]] = {}
        carried: tuple[str, ...] = ()  # the answers' parameters of a block without targets
        for block, names in given.items():
            if any(t.protocol == block for t in self.targets):
                self.blocks[block] = tuple(dict.fromkeys((*carried, *names)))
                carried = ()
            else:
                carried += tuple(n for n in names if n in ANSWERS)
        self.checkpoint = Path(checkpoint)
        self.workdir = Path(workdir) if workdir else self.checkpoint.parent / (
            self.checkpoint.name + ".work")
        self.log = log or (lambda line: None)
        self.context = hashlib.sha256(json.dumps(
            [[s.__dict__ for s in self.settings], self.seeds, kind, self.base.fingerprint()],
            sort_keys=True).encode()).hexdigest()[:16]
        self.store: dict[str, dict[str, Any]] = self._read_checkpoint()
        self.evaluations = 0
        self._topologies = {s.name: _topology(s) for s in self.settings}
        questions = {s.name: self._questions(s) for s in self.settings}
        self.simulated_questions = min(questions.values()) * len(self.seeds)

    def _questions(self, setting: Setting) -> int:
        from protocol_runner.tasks import load_tasks

        return len(load_tasks(setting.tasks))

    # -- the checkpoint ------------------------------------------------------------------------

    def _read_checkpoint(self) -> dict[str, dict[str, Any]]:
        if not self.checkpoint.is_file():
            return {}
        try:
            data = json.loads(self.checkpoint.read_text(encoding="utf-8"))
            store, context = dict(data["evaluations"]), data.get("context", self.context)
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ParameterError(
                f"{self.checkpoint}: not a calibration checkpoint ({exc})") from None
        if context != self.context:
            raise ParameterError(f"{self.checkpoint}: the checkpoint of another fit (other "
                                 "settings, seeds, task kind or base parameters)")
        return store

    def _write_checkpoint(self) -> None:
        self.checkpoint.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.checkpoint.with_name(self.checkpoint.name + ".tmp")
        tmp.write_text(json.dumps({"schema": 1, "context": self.context,
                                   "evaluations": self.store}), encoding="utf-8")
        os.replace(tmp, self.checkpoint)

    # -- one evaluation ------------------------------------------------------------------------

    def config(self, values: Mapping[str, float]) -> SimConfig:
        """The base config with ``values`` set."""
        return set_values(self.base, values, self.kind)

    def curves(
        self, values: Mapping[str, float], protocols: Sequence[str]
    ) -> dict[tuple[str, str, str], list[float | None]]:
        """Every setting simulated at ``values`` (:func:`simulate`); a pooled fit overrides it."""
        return simulate(self.config(values), self.settings, self.seeds, self.workdir,
                        protocols=protocols, topologies=self._topologies)

    def evaluate(self, values: Mapping[str, float], protocols: Sequence[str]) -> dict[str, float]:
        """Each target's simulated value (targets of ``protocols`` only); memoised on disk."""
        key = json.dumps({"p": sorted(protocols),
                          "v": {k: round(v, 9) for k, v in sorted(values.items())}})
        stored = self.store.get(key)
        if stored is None:
            curves = self.curves(values, protocols)
            stored = {t.key: _target_value(curves, t)
                      for t in self.targets if t.protocol in protocols}
            self.store[key] = stored
            self._write_checkpoint()
        self.evaluations += 1
        return stored

    def penalty(self, values: Mapping[str, float],
                protocols: Sequence[str] = PROTOCOLS) -> float:
        """The prior (centred on the base config) and the constraints of ``protocols`` at
        ``values``."""
        return penalty(values, get_values(self.base, list(values), self.kind),
                       width=self.prior_width, protocols=protocols)

    def objective(self, values: Mapping[str, float], protocols: Sequence[str]) -> float:
        """chi2 over the targets of ``protocols``, plus :meth:`penalty` (their constraints)."""
        targets = [t for t in self.targets if t.protocol in protocols]
        data = chi2(self.evaluate(values, protocols), targets, self.simulated_questions)
        return data + self.penalty(values, protocols)

    # -- the fit ---------------------------------------------------------------------------------

    def start(self) -> dict[str, float]:
        """Start values: the base config's, accuracies at the mean of the Init (round-0)
        targets of each group."""
        names = list(dict.fromkeys(n for block in self.blocks.values() for n in block))
        values = get_values(self.base, names, self.kind)
        for group in ("strong", "weak"):
            init = [t.value for t in self.targets if t.group == group and t.rounds == (0,)]
            if init and f"{group}.accuracy" in values:
                values[f"{group}.accuracy"] = min(0.99, max(0.01, sum(init) / len(init)))
        return values

    def fit_block(self, block: str, values: dict[str, float]) -> dict[str, float]:
        """Nelder-Mead over one block's parameters, the others fixed at ``values``."""
        import numpy as np

        require("scipy", "calibrating the simulator", "calibrate")  # an extra
        from scipy.optimize import minimize

        protocols = (block,)
        names = self.blocks.get(block, ())
        if not names or not any(t.protocol == block for t in self.targets):
            return values
        lows = np.array([PARAMETERS[n].low for n in names])
        spans = np.array([PARAMETERS[n].high - PARAMETERS[n].low for n in names])

        def point(u: np.ndarray) -> dict[str, float]:
            u = np.clip(u, 0.0, 1.0)
            return {**values, **dict(zip(names, (lows + u * spans).tolist(), strict=True))}

        best: list[Any] = [math.inf, None]  # the lowest objective evaluated, and where

        def f(u: np.ndarray) -> float:
            value = self.objective(point(u), protocols)
            if value < best[0]:
                best[:] = [value, np.array(u)]
            self.log(f"calibrate: {block} evaluation {self.evaluations}: chi2 {value:.2f} "
                     f"(best {best[0]:.2f})")
            return value

        u0 = np.clip((np.array([values[n] for n in names]) - lows) / spans, 0.0, 1.0)
        starts = [u0]
        if self.presearch:
            from scipy.stats import qmc

            design = qmc.Sobol(len(names), scramble=True, seed=0).random(self.presearch)
            hints = [np.array([{**dict(zip(names, u0, strict=True)), **{
                n: (v - PARAMETERS[n].low) / (PARAMETERS[n].high - PARAMETERS[n].low)
                for n, v in hint.items() if n in names}}[n] for n in names])
                for hint in HINTS.get(block, ()) if set(hint) & set(names)]
            starts = [min([u0, *hints[:1], *design], key=f), *hints[1:]]

        def simplex_from(start: np.ndarray) -> Any:
            simplex = [start]
            for j in range(len(names)):  # a large first simplex: the objective is step-shaped
                step = np.zeros(len(names))
                step[j] = 0.2 if start[j] <= 0.8 else -0.2
                simplex.append(np.clip(start + step, 0.0, 1.0))
            return minimize(
                f, start, method="Nelder-Mead", bounds=[(0.0, 1.0)] * len(names),
                options={"maxfev": self.max_evaluations, "initial_simplex": np.array(simplex),
                         "xatol": 0.01, "fatol": 0.05},
            )

        result = min((simplex_from(start) for start in starts), key=lambda r: r.fun)
        # Stopped by its budget inside an iteration, SciPy's Nelder-Mead returns the best
        # vertex of its last complete simplex, which can be worse than a point it evaluated.
        return point(best[1] if best[0] < result.fun else result.x)

    def fit(self, budgets: Mapping[str, tuple[int, int]] | None = None) -> FitResult:
        """Fit every block in turn (module docstring); the result over all targets.

        ``budgets`` maps a block to its (Sobol points, Nelder-Mead evaluations), overriding
        ``presearch`` and ``max_evaluations`` for that block.
        """
        values = self.start()
        for block in self.blocks:
            if budgets and block in budgets:
                self.presearch, self.max_evaluations = budgets[block]
            values = self.fit_block(block, values)
        protocols = tuple(dict.fromkeys(t.protocol for t in self.targets))
        simulated = self.evaluate(values, protocols)
        fitted = {n for block, names in self.blocks.items() for n in names
                  if any(t.protocol == block for t in self.targets)}
        return FitResult(
            self.kind, values,
            chi2(simulated, self.targets, self.simulated_questions),
            len(self.targets), len(fitted), self.evaluations, dict(simulated),
            penalty=self.penalty({n: values[n] for n in fitted}),
        )


def _crossing(a: tuple[float, float], b: tuple[float, float], level: float) -> float:
    """Where the line through grid points ``a`` and ``b`` (x, chi2) crosses chi2 = ``level``."""
    (x0, c0), (x1, c1) = a, b
    return x0 if c1 == c0 else x0 + (x1 - x0) * (level - c0) / (c1 - c0)


def scan_intervals(
    calibration: Calibration, fit: FitResult, names: Sequence[str], *, points: int = 5,
) -> dict[str, tuple[float, float]]:
    """Conditional 1-D intervals (module docstring): each parameter over ``points`` grid values
    across its search interval, the others at the fit; the range (linearly interpolated
    between grid points) where chi2 stays under the 95% threshold."""
    protocols = tuple(dict.fromkeys(t.protocol for t in calibration.targets))
    threshold = fit.chi2 + fit.penalty + 3.84 * max(1.0, fit.chi2 / fit.dof)
    out: dict[str, tuple[float, float]] = {}
    for name in names:
        p = PARAMETERS[name]
        grid = sorted({*(p.low + (p.high - p.low) * k / (points - 1) for k in range(points)),
                       fit.values[name]})
        scores = [(x, calibration.objective({**fit.values, name: x}, protocols)) for x in grid]
        inside = [i for i, (_, c) in enumerate(scores) if c <= threshold]
        if not inside:
            out[name] = (fit.values[name], fit.values[name])
            continue

        lo, hi = inside[0], inside[-1]
        low = scores[lo][0] if lo == 0 else _crossing(scores[lo - 1], scores[lo], threshold)
        high = (scores[hi][0] if hi == len(scores) - 1
                else _crossing(scores[hi], scores[hi + 1], threshold))
        out[name] = (min(low, high), max(low, high))
        calibration.log(f"calibrate: interval {name}: [{out[name][0]:.3g}, {out[name][1]:.3g}]")
    return out
