"""Run SAC and its baselines from Python: the run ``robustgraph run`` makes, in one call.

:func:`run_protocols` builds a :class:`~protocol_runner.run.runner.RunSpec`, runs it with
:func:`protocol_runner.run.runner.run` (the certificate gate, the queries, ``results.jsonl``)
and summarises the directory with :func:`protocol_runner.analysis.report.write_summary`, the
same two calls the CLI makes. The default backend is the simulated one: its numbers come from
synthetic agents (docs/simulation.md), never from an LLM, and the summary says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from protocol_runner.analysis.report import Summary, write_summary
from protocol_runner.run.runner import BackendSpec, RunResult, RunSpec, run
from robustgraph.graphs import GraphInput, as_topology

__all__ = ["ProtocolRun", "run_protocols"]


@dataclass(frozen=True)
class ProtocolRun:
    """A finished run: what ran (``result``: run id, queries, the gate's verdict, the
    directory) and its metrics (``summary``: per protocol, with bootstrap intervals)."""

    result: RunResult
    summary: Summary

    @property
    def simulated(self) -> bool:
        """Whether the answers came from simulated agents (then no number is an LLM's)."""
        return bool(self.summary.run.get("simulated"))

    def metric(self, protocol: str, name: str) -> float | None:
        """The point estimate of metric ``name`` (e.g. ``"FAA"``) for ``protocol``."""
        return self.summary.protocols[protocol].value(name)


def run_protocols(
    topology: GraphInput,
    output: str | Path,
    *,
    F: int | None = None,  # noqa: N803 - the paper's F
    protocols: Sequence[str] = ("sac",),
    roster: str = "4S2W1A",
    attack: str = "fixed",
    tasks: str = "arith:20",
    rounds: int = 6,
    seed: int = 0,
    backend: BackendSpec | None = None,
    certificate: str | Path | None = None,
    plots: bool = False,
) -> ProtocolRun:
    """Run ``protocols`` (SAC by default) among the agents of ``roster`` on ``topology``.

    Parameters
    ----------
    topology : Topology, networkx or igraph graph, or edge list
        The communication graph (:func:`robustgraph.graphs.as_topology`); u -> v: v hears u.
    output : str or Path
        The results directory (as ``run -o``); the same call into it again resumes.
    F : int, optional
        Faults the graph must tolerate (SAC: an (F+1)-robust graph, proven by the certificate
        gate); default: the number of adversaries in the roster.
    protocols : sequence of str
        From ``sac``, ``cpwbft``, ``crs``, ``majority``, ``debate``.
    roster : str
        Agents as ``run --roster``: ``4S2W1A`` is 4 strong, 2 weak, 1 adversarial (one per
        node), or a roster YAML file.
    attack, tasks, rounds, seed
        As ``run --attack``, ``--tasks``, ``--rounds``, ``--seed``.
    backend : BackendSpec, optional
        Default: the simulated backend (synthetic agents, labelled simulated everywhere).
    certificate : str or Path, optional
        A certificate of ``topology`` to gate on; default: certify it now.
    plots : bool
        Also draw the figures (PNG, PDF, SVG); the tables and ``summary.json`` always.

    Returns
    -------
    ProtocolRun
        ``result`` and ``summary``; ``metric("sac", "FAA")`` reads one number.

    Raises
    ------
    NotCertified
        The graph is not proven (F+1)-robust (exit 1 on the CLI).
    ParameterError
        A bad roster, protocol, task set or option.

    Examples
    --------
    >>> import tempfile
    >>> from robustgraph.generators import gamma_merg
    >>> done = run_protocols(gamma_merg(5), Path(tempfile.mkdtemp()) / "out", F=1,
    ...                      roster="3S1W1A", tasks="arith:3", rounds=1, seed=1)
    >>> done.simulated, done.result.queries, 0 <= done.metric("sac", "FAA") <= 1
    (True, 3, True)

    References
    ----------
    Lee et al., "Robust Multi-Agent LLMs under Byzantine Faults", arXiv:2605.09076, 2026
    (SAC, Sec. 4; the metrics, Sec. 5.1).
    """
    spec = RunSpec(
        as_topology(topology),
        Path(output),
        roster=roster,
        attack=attack,
        protocols=tuple(protocols),
        tasks=tasks,
        rounds=rounds,
        seed=seed,
        F=F,
        backend=backend or BackendSpec(),
        certificate=None if certificate is None else Path(certificate),
    )
    result = run(spec)
    return ProtocolRun(result, write_summary(spec.output, plots=plots))
