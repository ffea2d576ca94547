"""Run protocols among LLM agents on a certified graph: topology x roster x protocols x tasks.

A run (:class:`RunSpec`) is a graph with its certificate, an agent roster, a list of protocols,
a task set, a number of rounds T and a seed. :func:`prepare` checks everything and gates the
graph (:mod:`protocol_runner.run.cert_gate`: SAC with F faults needs an (F+1)-robust graph, proven);
:func:`execute` runs one query per (task, protocol), concurrently up to ``concurrency`` queries
(and ``concurrency`` LLM calls in flight, through one shared client with a response cache), and
appends each query's record to ``results.jsonl`` the moment it completes.

The results directory holds ``config.json`` (the run, its id, the roster, the gate's verdict and
provenance), ``certificate.json``, ``topology.json`` (the graph), ``results.jsonl``,
``cache.sqlite`` (the response cache), ``sessions.jsonl`` (each session's client counters and
wall time, :mod:`protocol_runner.run.sessions`) and then the summary files of
:func:`protocol_runner.analysis.report.write_summary`. Running the same command into the same
directory
resumes: completed queries are skipped, and the calls of interrupted ones come from the cache.

References
----------
Lee et al., "Robust Multi-Agent LLMs under Byzantine Faults", arXiv:2605.09076, 2026.

One module: prepare, execute and resume share the run's directory layout and identity
(config.json, results.jsonl, cache); the roster, records, gate, corpora and the one-run-per-
directory rule (:mod:`protocol_runner.run.occupancy`) are their own modules in this package.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import math
import os
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from protocol_runner.analysis.provenance import record_backend
from protocol_runner.llm import ClientConfig, LLMClient, ResponseCache
from protocol_runner.llm.backends import OpenAIBackend, SimulatedBackend
from protocol_runner.llm.backends.openai import CALL_TIMEOUT_FACTOR
from protocol_runner.protocols import (
    PROTOCOLS,
    CrS,
    CrSConfig,
    EngineConfig,
    JudgeOnly,
    Network,
    Outcome,
    Protocol,
    QueryContext,
)
from protocol_runner.protocols.attacks import (
    DEFAULT_OOD_POOL,
    OOD_ATTACKS,
    REPLAY_ATTACKS,
    fixed_question,
    ood_pool,
)
from protocol_runner.protocols.engine import ood_replays
from protocol_runner.run.aio import frozen_heap
from protocol_runner.run.aio import run as run_async
from protocol_runner.run.cert_gate import (
    GateReport,
    Placement,
    check_gate,
    check_placement,
    obtain_certificate,
)
from protocol_runner.run.corpora import Corpora, DocumentContext, load_corpora
from protocol_runner.run.occupancy import (
    CONFIG_FILE,
    RESULTS_FILE,
    claim,
    digest,
    stored_run,
)
from protocol_runner.run.records import append_record, drop_partial_line, query_id, read_records
from protocol_runner.run.roster import Roster, build_roster, declare_diversity
from protocol_runner.run.sessions import append_session
from protocol_runner.sim.agents import SimConfig, Simulator
from protocol_runner.sim.profiles import resolve_config
from protocol_runner.tasks import Task, TaskSet, load_tasks
from protocol_runner.tasks.spec import stated_count
from robustgraph import io, limits
from robustgraph.certificate.document import Certificate, provenance
from robustgraph.errors import ParameterError, RobustgraphError
from robustgraph.topology import Topology

__all__ = [
    "CACHE_FILE",
    "CERTIFICATE_FILE",
    "CONFIG_FILE",
    "RESULTS_FILE",
    "TOPOLOGY_FILE",
    "BackendSpec",
    "Plan",
    "Prepared",
    "Progress",
    "QueryHook",
    "RunResult",
    "RunSpec",
    "execute",
    "parse_seeds",
    "plan",
    "prepare",
    "run",
    "seed_output",
]

CERTIFICATE_FILE = "certificate.json"
TOPOLOGY_FILE = "topology.json"
CACHE_FILE = "cache.sqlite"
BACKENDS = ("simulated", "openai")

QueryHook = Callable[[QueryContext, Outcome],
                     Mapping[str, Any] | Awaitable[Mapping[str, Any]]]
"""Called when a query's protocol has concluded, before its record is written; the keys it
returns (or, for an async hook, the keys its awaitable returns) are added to the record's
``protocol_data``. The context gives the final answers (``outcome.final``), what each agent
last received (``ctx.inbox(i)``) and the roster with its infrastructure attributes: what a commit
gate needs to turn final answers into votes. An async hook may make LLM calls through ``ctx``
(the run's client and cache; counted in the query's cost)."""


@dataclass(frozen=True)
class BackendSpec:
    """Which backend answers, with which models, and the call policy.

    ``strong_model`` / ``weak_model`` default to ``sim-strong`` / ``sim-weak`` on the simulated
    backend; the openai backend needs ``strong_model`` (``weak_model`` defaults to it).
    ``latency_s`` is the simulated backend's artificial latency; ``sim_config`` a JSON file of
    simulator parameters; ``independent_agents`` (simulated only) makes agents on one model draw
    their errors independently (``model_share = 0``, docs/simulation.md) instead of sharing them.
    ``cross_origin_redirects`` (openai) follows redirects outside ``base_url``'s origin;
    ``require_key`` (openai; ``--api-key-env`` given explicitly) refuses an unset key variable.
    """

    kind: str = "simulated"
    base_url: str | None = None
    api_key_env: str | None = "OPENAI_API_KEY"
    strong_model: str | None = None
    weak_model: str | None = None
    sim_config: str | None = None
    latency_s: float = 0.0
    timeout_s: float = 60.0
    max_retries: int = 6
    independent_agents: bool = False
    cross_origin_redirects: bool = False
    require_key: bool = False

    def __post_init__(self) -> None:
        if self.kind not in BACKENDS:
            raise ParameterError(f"backend {self.kind!r}; expected one of {', '.join(BACKENDS)}")
        if self.kind == "openai" and not self.strong_model:
            raise ParameterError("the openai backend needs --model (and optionally --weak-model)")
        if self.kind == "openai" and not self.base_url:
            raise ParameterError("the openai backend needs --base-url")
        if self.kind != "simulated" and (self.sim_config or self.latency_s):
            raise ParameterError("--sim-config and --latency-ms are for the simulated backend")
        if self.kind != "simulated" and self.independent_agents:
            raise ParameterError("--independent-agents is for the simulated backend")
        if self.kind != "openai" and self.base_url:
            raise ParameterError("--base-url is for the openai backend")
        if not (math.isfinite(self.latency_s) and self.latency_s >= 0):
            raise ParameterError(f"latency must be a finite number >= 0, got {self.latency_s} s")
        if not self.timeout_s > 0:  # NaN too; infinity means no timeout
            raise ParameterError(f"timeout must be > 0 seconds, got {self.timeout_s}")
        if self.kind != "openai" and self.cross_origin_redirects:
            raise ParameterError("--allow-cross-origin-redirects is for the openai backend")
        if self.kind == "openai" and self.require_key and self.api_key_env:
            if not os.environ.get(self.api_key_env):
                raise ParameterError(
                    f"--api-key-env {self.api_key_env}: that environment variable is not set "
                    "(give --api-key-env '' to send no key)"
                )

    def attempt_timeout_s(self) -> float:
        """The cap on one call attempt: ``timeout_s``, except on the openai backend, where
        ``timeout_s`` limits each read and an attempt may take ``CALL_TIMEOUT_FACTOR`` times it."""
        return self.timeout_s * (CALL_TIMEOUT_FACTOR if self.kind == "openai" else 1)

    def models(self) -> dict[str, str]:
        if self.kind == "simulated":
            return {
                "strong": self.strong_model or "sim-strong",
                "weak": self.weak_model or "sim-weak",
            }
        strong = self.strong_model or ""
        return {"strong": strong, "weak": self.weak_model or strong}


@dataclass(frozen=True)
class RunSpec:
    """Everything that defines a run (see the module docstring).

    ``F`` None means the size of the roster's Byzantine set: its adversarial plus its faulty
    (weak) agents, as the SAC paper counts them (Def. 3.1; F = 3 for 4S2W1A,
    :meth:`~protocol_runner.run.roster.Roster.default_F`). ``certificate`` is a certificate
    file for ``topology``; without one the runner certifies the graph within
    ``certify_time_limit`` seconds per question. ``concurrency`` bounds both the queries in
    flight and the LLM calls in flight. ``commit_gate`` adds the commit gate as the last stage
    of every query (:mod:`protocol_runner.commit.stage`), its decisions appended to ``ledger``
    (default ``output/ledger.sqlite``) and signed with keys from ``keyring`` (default
    ``output/keyring.json``); ``reexecutor_model`` (openai backend only) has that
    model re-execute for the gate instead of the simulated re-executor. ``corpora`` (openai
    backend only) gives roster corpora their documents: ``(name, JSONL path)`` pairs
    (:mod:`protocol_runner.run.corpora`), read by :func:`prepare`. ``ood_tasks`` is the task
    spec of the ``fixed`` attack's out-of-distribution pool (App. B.4; the run's own tasks are
    removed from it, :func:`~protocol_runner.protocols.attacks.ood_pool`). ``max_calls`` is the
    run budget: agents x tasks x protocols x (1 + 2 rounds), checked by :func:`plan`.
    """

    topology: Topology
    output: Path
    roster: str = "4S2W1A"
    attack: str = "fixed"
    placement: str = "random"
    adversary_nodes: tuple[str, ...] = ()
    protocols: tuple[str, ...] = ("sac", "cpwbft", "crs", "majority", "debate")
    tasks: str = "arith:100"
    rounds: int = 6
    seed: int = 0
    F: int | None = None
    backend: BackendSpec = field(default_factory=BackendSpec)
    concurrency: int = 64
    certificate: Path | None = None
    topology_source: str = ""
    allow_uncertified: bool = False
    certify_time_limit: float | None = 60.0
    max_chars: int = 2000
    crs: CrSConfig = field(default_factory=CrSConfig)
    commit_gate: bool = False
    ledger: Path | None = None
    keyring: Path | None = None
    reexecutor_model: str | None = None
    corpora: tuple[tuple[str, str], ...] = ()
    ood_tasks: str = DEFAULT_OOD_POOL
    gate_f: int | None = None
    gate_conflict: str = "diverse"
    diversity: tuple[str, ...] = ()
    max_calls: int = limits.MAX_RUN_CALLS

    def __post_init__(self) -> None:
        if not self.protocols:
            raise ParameterError("name at least one protocol")
        unknown = [p for p in self.protocols if p not in PROTOCOLS]
        if unknown:
            raise ParameterError(
                f"unknown protocol {unknown[0]!r}; expected some of {', '.join(PROTOCOLS)}"
            )
        if len(set(self.protocols)) != len(self.protocols):
            raise ParameterError("a protocol is listed twice")
        if self.concurrency < 1:
            raise ParameterError(f"concurrency must be >= 1, got {self.concurrency}")
        if self.seed < 0:
            raise ParameterError(f"seed must be >= 0, got {self.seed}")
        if self.certify_time_limit is not None and not self.certify_time_limit > 0:
            raise ParameterError(
                f"--certify-time-limit must be a positive number of seconds, "
                f"got {self.certify_time_limit}"
            )
        if self.ledger is not None and not self.commit_gate:
            raise ParameterError("--ledger goes with --commit-gate")
        if self.keyring is not None and not self.commit_gate:
            raise ParameterError("--keyring goes with --commit-gate")
        if self.reexecutor_model is not None and not self.commit_gate:
            raise ParameterError("--reexecutor-model goes with --commit-gate")
        if (self.gate_f is not None or self.gate_conflict != "diverse") and not self.commit_gate:
            raise ParameterError("--gate-f and --gate-conflict go with --commit-gate")
        if self.reexecutor_model is not None and self.backend.kind != "openai":
            raise ParameterError("--reexecutor-model needs --backend openai (the simulated "
                                 "backend re-executes with its simulated re-executor)")
        if self.corpora and self.backend.kind != "openai":
            raise ParameterError("--corpus needs --backend openai (the simulated backend models "
                                 "retrieval from the roster's corpus names and reads no text)")


@dataclass(frozen=True)
class Progress:
    """A snapshot for progress displays: queries done (of total), backend calls, cache hits."""

    done: int
    total: int
    skipped: int
    calls: int
    cache_hits: int
    elapsed_s: float


@dataclass(frozen=True)
class RunResult:
    """What a run did: queries run and skipped, client counters, wall time, the gate's verdict."""

    output: Path
    run_id: str
    queries: int
    ran: int
    skipped: int
    wall_s: float
    stats: dict[str, int]
    gate: GateReport
    certificate_source: str
    seed: int = 0


@dataclass(frozen=True)
class Plan:
    """A run checked and identified before any work: its roster, F, Byzantine placement, tasks,
    backend and identity (the run id); :func:`prepare` gates it and writes its directory."""

    spec: RunSpec
    roster: Roster
    F: int
    placement: Placement
    tasks: TaskSet
    corpora: Corpora | None
    backend: SimulatedBackend | OpenAIBackend
    identity: dict[str, Any]
    run_id: str


@dataclass
class Prepared:
    """A checked run, ready to execute: built roster, tasks, gate verdict and config."""

    spec: RunSpec
    roster: Roster
    tasks: TaskSet
    F: int
    certificate: Certificate
    certificate_source: str
    gate: GateReport
    run_id: str
    config: dict[str, Any]
    corpora: Corpora | None = None


def parse_seeds(text: str) -> tuple[int, ...]:
    """The seeds of ``--seeds``: ranges and single seeds, comma-separated, ascending.

    Examples
    --------
    >>> parse_seeds("1-3,7"), parse_seeds("5")
    ((1, 2, 3, 7), (5,))

    Raises
    ------
    ParameterError
        For anything but non-negative integers and ``A-B`` ranges with ``A <= B``, or more
        than 1000 seeds.
    """
    seeds: set[int] = set()
    for part in text.split(","):
        low, dash, high = part.strip().partition("-")
        if not low.isdigit() or (dash and not high.isdigit()):
            raise ParameterError(f"--seeds {text!r}: expected seeds such as 1-5 or 1,3,5")
        first, last = int(low), int(high) if dash else int(low)
        if last < first or last - first >= 1000:
            raise ParameterError(f"--seeds {text!r}: {part.strip()} is not a range of seeds")
        seeds.update(range(first, last + 1))
    if len(seeds) > 1000:
        raise ParameterError(f"--seeds {text!r}: more than 1000 seeds")
    return tuple(sorted(seeds))


def seed_output(output: Path, seed: int, seeds: Sequence[int]) -> Path:
    """Where seed ``seed``'s run goes: ``output`` itself for one seed, else ``output/seed-S``."""
    return Path(output) if len(seeds) == 1 else Path(output) / f"seed-{seed}"


def _sim_config(
    path: str | None, independent: bool = False, kinds: Iterable[str] = ()
) -> SimConfig:
    """``--sim-config``: a profile name, a JSON file, or (None) the profile fitted to the run's
    task kinds (:func:`protocol_runner.sim.profiles.resolve_config`)."""
    config = resolve_config(path, kinds)
    return replace(config, model_share=0.0) if independent else config


def _backend(
    spec: BackendSpec, tasks: Iterable[Task], concurrency: int, kinds: Iterable[str] = ()
) -> SimulatedBackend | OpenAIBackend:
    if spec.kind == "simulated":
        config = _sim_config(spec.sim_config, spec.independent_agents, kinds)
        simulator = Simulator(tasks, config)
        return SimulatedBackend(simulator, latency_s=spec.latency_s)
    return OpenAIBackend(
        spec.base_url or "",
        api_key_env=spec.api_key_env,
        read_timeout_s=spec.timeout_s,
        connections=concurrency,
        cross_origin_redirects=spec.cross_origin_redirects,
    )


def _make_protocol(name: str, spec: RunSpec) -> Protocol:
    if issubclass(PROTOCOLS[name], CrS):  # CrS and its reward controls
        return PROTOCOLS[name](spec.crs)
    if name == "judge":
        return JudgeOnly(spec.crs.judge_model)
    return PROTOCOLS[name]()


def _engine_config(
    spec: RunSpec, F: int, roster: Roster  # noqa: N803 - the paper's F
) -> EngineConfig:
    replays = any(roster.agents[j].attack.name in REPLAY_ATTACKS for j in roster.adversaries)
    return EngineConfig(
        rounds=spec.rounds, F=F, seed=spec.seed, max_chars=spec.max_chars,
        replay_model=spec.backend.models()["weak"] if replays else "",
    )


def _ood_pool(spec: RunSpec, roster: Roster, tasks: TaskSet) -> TaskSet | None:
    """The ``fixed`` attack's out-of-distribution pool, when an adversary plays ``fixed``."""
    if not any(roster.agents[j].attack.name in OOD_ATTACKS for j in roster.adversaries):
        return None
    return ood_pool(tasks, spec.ood_tasks)


def _certificate_in(output: Path, topology: Topology) -> Path | None:
    """A certificate a previous attempt of this run stored, if it binds to ``topology``."""
    stored = output / CERTIFICATE_FILE
    if not stored.is_file():
        return None
    try:
        return stored if Certificate.load(stored).graph.hash == topology.content_hash else None
    except RobustgraphError:
        return None


def _check_run_size(spec: RunSpec, agents: int, tasks: int) -> None:
    """Refuse a run whose planned LLM calls (each agent answers once, then twice a round:
    agents x tasks x protocols x (1 + 2T)) are over ``spec.max_calls``, before any work."""
    calls = agents * tasks * len(spec.protocols) * (1 + 2 * spec.rounds)
    if calls > spec.max_calls:
        raise ParameterError(
            f"the run plans {calls:,} LLM calls ({agents:,} agents x {tasks:,} tasks x "
            f"{len(spec.protocols)} protocol(s) x {1 + 2 * spec.rounds} calls per agent for "
            f"{spec.rounds} rounds), over the run budget of {spec.max_calls:,}; --max-calls N "
            "raises it"
        )


def plan(spec: RunSpec) -> Plan:
    """Check a run and compute its identity, before any work (no certification, no file).

    Raises
    ------
    OutsideModel
        (exit 2) The roster's Byzantine set (adversaries + faulty agents) is not F-local on
        the graph (SAC paper, Def. 3.2) and the run does not allow uncertified graphs.
    ParameterError
        Bad roster, tasks, protocols, corpus files (``CorpusError``).
    """
    topology = spec.topology
    models = spec.backend.models()
    roster = build_roster(
        topology,
        spec.roster,
        attack=spec.attack,
        placement=spec.placement,
        adversary_nodes=spec.adversary_nodes,
        models=models,
        seed=spec.seed,
    )
    roster = declare_diversity(roster, spec.diversity)
    faults = roster.default_F() if spec.F is None else spec.F
    if faults < 0:
        raise ParameterError(f"--F must be >= 0, got {faults}")
    placement = check_placement(topology, roster.adversaries, roster.faulty, faults,
                                allow_outside=spec.allow_uncertified)
    engine = _engine_config(spec, faults, roster)
    if spec.commit_gate:
        from protocol_runner.commit.gate import check_conflict_rule
        from protocol_runner.commit.stage import check_commit_gate, gate_f

        check_conflict_rule(spec.gate_conflict)
        check_commit_gate(topology.n, gate_f(roster, spec.gate_f), keyring=spec.keyring)
        if spec.reexecutor_model is not None:
            from protocol_runner.commit.reexec import check_reexecutor_model

            check_reexecutor_model(spec.reexecutor_model, roster)
    stated = stated_count(spec.tasks)  # before building them: arith:100000 takes 15 s
    if stated is not None:
        _check_run_size(spec, topology.n, min(stated, limits.MAX_TASKS))
    tasks = load_tasks(spec.tasks)
    if not len(tasks):
        raise ParameterError(f"task set {spec.tasks!r} is empty")
    _check_run_size(spec, topology.n, len(tasks))
    if not roster.honest:
        raise ParameterError("the roster has no honest agent")
    corpora = load_corpora(spec.corpora, roster) if spec.corpora else None
    pool = _ood_pool(spec, roster, tasks)
    backend = _backend(spec.backend, [*tasks, *(pool or ())], spec.concurrency,
                       {t.kind for t in tasks})
    identity = {
        "topology": {
            "hash": topology.content_hash,
            "n": topology.n,
            "m": topology.m,
            "directed": topology.directed,
        },
        "roster": roster.to_json(),
        "protocols": list(spec.protocols),
        "tasks": {"spec": spec.tasks, "count": len(tasks), "ids": digest([t.id for t in tasks])},
        "rounds": spec.rounds,
        "seed": spec.seed,
        "F": faults,
        "engine": asdict(engine),
        "crs": asdict(spec.crs),
        "backend": {"kind": spec.backend.kind, "namespace": backend.namespace,
                    "base_url": spec.backend.base_url},
    }
    if spec.commit_gate:  # changes every record, so part of the run's identity
        identity["commit_gate"] = {"f": gate_f(roster, spec.gate_f),
                                   "conflict": spec.gate_conflict}
        if spec.reexecutor_model is not None:
            identity["commit_gate"]["reexecutor_model"] = spec.reexecutor_model
    if corpora is not None:  # the documents change the prompts: their hashes are identity
        identity["corpora"] = corpora.identity()
    if pool is not None:  # the fixed attack's queries change what the adversaries send
        identity["ood_tasks"] = {"spec": spec.ood_tasks, "ids": digest([t.id for t in pool])}
    return Plan(spec, roster, faults, placement, tasks, corpora, backend, identity,
                digest(identity))


def prepare(
    spec: RunSpec | Plan, *, log: Callable[[str], None] | None = None
) -> Prepared:
    """Check a run, gate its graph and write its config, certificate and graph to ``output``.

    Parameters
    ----------
    spec : RunSpec or Plan
        The run, or its :func:`plan` (a command with several runs plans them all first).
    log : callable, optional
        Receives progress lines (certification steps).

    Returns
    -------
    Prepared

    Raises
    ------
    NotCertified
        (exit 1) The certificate does not prove (F+1)-robustness and the run does not allow
        uncertified graphs; nothing is written.
    OutsideModel
        (exit 2) The Byzantine set is not F-local (:func:`plan`).
    ParameterError
        Bad roster, tasks, protocols, corpus files (``CorpusError``); or ``output`` holds the
        results of another run (another identity: e.g. other documents in a corpus, or the
        per-seed runs of ``run --seeds``; :func:`protocol_runner.run.occupancy.claim`). A
        directory another run prepared but that holds no result yet is taken over.
    CertificateError
        The given certificate is not a valid certificate of the graph.
    """
    planned = spec if isinstance(spec, Plan) else plan(spec)
    spec, roster, faults = planned.spec, planned.roster, planned.F
    topology, identity, run_id = spec.topology, planned.identity, planned.run_id
    output = Path(spec.output)
    claim(output, {output: (run_id, identity)})
    config_path = output / CONFIG_FILE
    write_config = stored_run(output)[0] != run_id  # absent, or taken over (no result yet)
    cert_path = spec.certificate or _certificate_in(output, topology)
    certificate, source = obtain_certificate(
        topology, faults, path=cert_path, time_limit=spec.certify_time_limit, progress=log
    )
    if spec.certificate is None and cert_path is not None:
        source = "stored by an earlier attempt of this run"
    gate = check_gate(certificate, topology, faults, allow_uncertified=spec.allow_uncertified,
                      placement=planned.placement, protocols=spec.protocols)
    config = {
        "run_id": run_id,
        "run": identity,
        "topology_source": spec.topology_source,
        "certificate": {"file": CERTIFICATE_FILE, "source": source, "verdict": certificate.verdict},
        "gate": gate.to_json(),
        "allow_uncertified": spec.allow_uncertified,
        "concurrency": spec.concurrency,
        "backend": planned.backend.provenance(),
        "files": {
            "results": RESULTS_FILE,
            "topology": TOPOLOGY_FILE,
            "certificate": CERTIFICATE_FILE,
            "cache": CACHE_FILE,
        },
        "provenance": provenance({"command": "run"}),
    }
    if planned.corpora is not None:
        config["corpus_files"] = planned.corpora.files()
    output.mkdir(parents=True, exist_ok=True)
    if write_config:
        config_path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    certificate.dump(output / CERTIFICATE_FILE)
    io.write(topology, output / TOPOLOGY_FILE)
    return Prepared(spec, roster, planned.tasks, faults, certificate, source, gate, run_id, config,
                    planned.corpora)


def _first_error(group: BaseExceptionGroup) -> BaseException:
    error: BaseException = group
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    return error


async def execute(
    prepared: Prepared,
    *,
    progress: Callable[[Progress], None] | None = None,
    hooks: Sequence[QueryHook] = (),
) -> RunResult:
    """Run every query of a prepared run not yet in ``results.jsonl``; append each record.

    Queries run concurrently (at most ``concurrency``); within a query every round is a
    barrier. ``progress`` is called at the start and after each query; each of ``hooks``
    (:data:`QueryHook`) once per query, its keys added to the record's ``protocol_data``.

    Raises
    ------
    BackendError
        The endpoint is unreachable, a model unknown, or a call failed after its retries.

    Notes
    -----
    The objects alive when the run starts are hidden from the garbage collector while it runs
    (:func:`protocol_runner.run.aio.frozen_heap`): a cheaper collector for thousands of calls.
    """
    with frozen_heap():
        return await _execute(prepared, progress, hooks)


async def _execute(
    prepared: Prepared,
    progress: Callable[[Progress], None] | None,
    hooks: Sequence[QueryHook],
) -> RunResult:
    spec = prepared.spec
    output = Path(spec.output)
    results = output / RESULTS_FILE
    drop_partial_line(results)
    existing = read_records(results, run_id=prepared.run_id)
    done = {record.query_id for record in existing}
    protocols = {name: _make_protocol(name, spec) for name in spec.protocols}
    for name, protocol in protocols.items():
        protocol.resume([r for r in existing if r.protocol == name])
    tasks = prepared.tasks
    jobs = [
        (k, task, name)
        for k, task in enumerate(tasks)
        for name in spec.protocols
        if query_id(name, task.id) not in done
    ]
    total = len(tasks) * len(spec.protocols)
    skipped = total - len(jobs)
    network = Network(spec.topology, prepared.roster)
    engine = _engine_config(spec, prepared.F, prepared.roster)
    context = (QueryContext if prepared.corpora is None
               else partial(DocumentContext, corpora=prepared.corpora))
    ood = fixed_question(tasks, spec.seed)
    pool = _ood_pool(spec, prepared.roster, tasks)
    backend = _backend(spec.backend, [*tasks, *(pool or ())], spec.concurrency,
                       {t.kind for t in tasks})
    models = set(prepared.roster.models())
    if engine.replay_model:
        models.add(engine.replay_model)
    if spec.crs.judge_model and {"crs", "judge"} & set(spec.protocols):
        models.add(spec.crs.judge_model)
    if spec.reexecutor_model is not None:
        models.add(spec.reexecutor_model)
    client_config = ClientConfig(
        max_concurrency=spec.concurrency,
        timeout_s=spec.backend.attempt_timeout_s(),
        max_retries=spec.backend.max_retries,
        jitter_seed=spec.seed,
    )
    if spec.commit_gate:
        from protocol_runner.commit.stage import KEYRING_FILE, LEDGER_FILE, CommitStage, gate_f

        stage = CommitStage(prepared.roster, tasks, f=gate_f(prepared.roster, spec.gate_f),
                            conflict=spec.gate_conflict, run_id=prepared.run_id,
                            seed=spec.seed, ledger=spec.ledger or output / LEDGER_FILE,
                            keyring=spec.keyring or output / KEYRING_FILE, finished=existing,
                            reexecutor_model=spec.reexecutor_model, corpora=prepared.corpora)
        hooks = (*hooks, stage)
    started = time.perf_counter()
    finished = skipped
    cache = ResponseCache(output / CACHE_FILE)
    client: LLMClient | None = None
    outside = {"requests": 0, "cache_hits": 0}  # requests of the run, not of a query
    try:
        async with LLMClient(backend, cache=cache, config=client_config) as client:

            def report() -> None:
                if progress is not None:
                    stats = client.stats
                    elapsed = time.perf_counter() - started
                    progress(Progress(finished, total, skipped, stats.calls, stats.cache_hits,
                                      elapsed))

            report()
            replays: dict[int, tuple[str, ...]] = {}
            if jobs:
                await client.check(sorted(models))
                if pool is not None:
                    hits_before = client.stats.cache_hits
                    replays = await ood_replays(client, network, pool, engine)
                    outside = {"requests": sum(map(len, replays.values())),
                               "cache_hits": client.stats.cache_hits - hits_before}
            pending = iter(jobs)
            with results.open("a", encoding="utf-8") as handle:

                async def worker() -> None:
                    nonlocal finished
                    for k, task, name in pending:
                        ctx = context(network, task, k, client, engine, protocol=name, ood=ood,
                                      replays=replays)
                        await ctx.prime_attacks()
                        outcome = await protocols[name].run(ctx)
                        for hook in hooks:
                            added = hook(ctx, outcome)
                            if inspect.isawaitable(added):
                                added = await added
                            data = {**outcome.protocol_data, **added}
                            outcome = Outcome(outcome.final, outcome.decision, data)
                        append_record(handle, ctx.record(outcome, run_id=prepared.run_id))
                        protocols[name].completed(k)
                        finished += 1
                        report()

                try:
                    async with asyncio.TaskGroup() as group:
                        for _ in range(min(spec.concurrency, len(jobs))):
                            group.create_task(worker())
                except BaseExceptionGroup as errors:
                    raise _first_error(errors) from None
            stats = client.stats.as_dict()
    finally:
        cache.close()
        if spec.commit_gate:
            stage.close()
        if client is not None:  # the session's cost, interrupted or not (docs/report.md, Cost)
            append_session(output, prepared.run_id, wall_s=time.perf_counter() - started,
                           ran=finished - skipped, resumed=skipped, client=client.stats.as_dict(),
                           outside_queries=outside)
            record_backend(output / CONFIG_FILE, backend.provenance())  # what it talked to
    return RunResult(
        output,
        prepared.run_id,
        total,
        len(jobs),
        skipped,
        time.perf_counter() - started,
        stats,
        prepared.gate,
        prepared.certificate_source,
        spec.seed,
    )


def run(
    spec: RunSpec,
    *,
    progress: Callable[[Progress], None] | None = None,
    log: Callable[[str], None] | None = None,
) -> RunResult:
    """:func:`prepare` and :func:`execute` a run (see the module docstring).

    Examples
    --------
    >>> import tempfile
    >>> from robustgraph.generators import gamma_merg
    >>> out = Path(tempfile.mkdtemp()) / "results"
    >>> spec = RunSpec(gamma_merg(5), out, roster="3S1W1A", protocols=("sac", "majority"),
    ...                tasks="arith:3", rounds=1, seed=1)
    >>> result = run(spec)
    >>> result.queries, result.ran, (out / RESULTS_FILE).read_text().count("\\n")
    (6, 6, 6)
    """
    prepared = prepare(spec, log=log)
    return run_async(execute(prepared, progress=progress))



