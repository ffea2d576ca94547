"""The agent roster: who sits on each node of the graph, with which model, role and infrastructure.

A roster is built from a compact spec such as ``4S2W1A`` (4 strong honest, 2 weak honest,
1 adversarial agent) or from an explicit YAML/JSON file listing every node. Adversaries are
placed on nodes ``random``-ly (seeded), on the ``degree``-highest nodes (most agents hear them),
or on given node ``labels``; the honest roles go to the remaining nodes in a seeded order.

Explicit file (YAML or JSON)::

    agents:
      - {node: 0, role: strong, model: sim-strong, checkpoint: ck-a, corpus: wiki, lineage: p1}
      - {node: 1, role: weak}
      - {node: 2, role: adversary, attack: "echo-then-flip:k=2"}
      ...

``role`` is ``strong``, ``weak`` or ``adversary``; ``model`` defaults to the run's model for
the role; an adversary's ``attack`` defaults to the run's ``--attack``. Infrastructure
attributes: ``checkpoint`` (base weights), ``corpus`` (retrieval corpus) and ``lineage``
(prompt lineage); empty means "shared with no one". The simulated backend correlates the errors
of agents sharing a checkpoint or corpus; the commit gate groups agents by all three.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from protocol_runner.llm.types import AgentIdentity
from protocol_runner.protocols.attacks import AttackSpec, parse_attack
from protocol_runner.run import strict_yaml
from robustgraph.errors import ParameterError
from robustgraph.limits import ROSTER_BYTES_PER_AGENT, quote, read_text, regular_file
from robustgraph.topology import Topology

__all__ = [
    "PLACEMENTS",
    "ROLE_LETTERS",
    "AgentSpec",
    "Roster",
    "DIVERSITY_KINDS",
    "build_roster",
    "declare_diversity",
    "parse_roster_spec",
]

ROLE_LETTERS = {"S": "strong", "W": "weak", "A": "adversary"}
PLACEMENTS = ("random", "degree", "labels")
_SPEC_PART = re.compile(r"(\d+)([SWA])")
_SAFE_ID = re.compile(r"[A-Za-z0-9_.:@+-]{1,64}")


def parse_roster_spec(spec: str) -> dict[str, int]:
    """Counts per role from a spec such as ``4S2W1A`` (each letter at most once, any order).

    Examples
    --------
    >>> parse_roster_spec("4S2W1A")
    {'strong': 4, 'weak': 2, 'adversary': 1}
    >>> parse_roster_spec("5S")
    {'strong': 5, 'weak': 0, 'adversary': 0}

    Raises
    ------
    ParameterError
        For anything else.
    """
    text = spec.strip().upper()
    counts = dict.fromkeys(ROLE_LETTERS.values(), 0)
    position = 0
    seen: set[str] = set()
    for match in _SPEC_PART.finditer(text):
        if match.start() != position or match[2] in seen:
            break
        seen.add(match[2])
        counts[ROLE_LETTERS[match[2]]] = int(match[1])
        position = match.end()
    if not text or position != len(text):
        raise ParameterError(
            f"roster {spec!r}: expected counts of S (strong), W (weak), A (adversary), "
            "e.g. 4S2W1A, or a roster file"
        )
    return counts


@dataclass(frozen=True)
class AgentSpec:
    """One agent: its node, role, model, attack (adversaries) and infrastructure attributes.

    ``index`` is the node's index in the Topology (the agent reads its in-neighbours there).
    """

    index: int
    node: str
    role: str
    model: str | None
    attack: AttackSpec | None = None
    checkpoint: str = ""
    corpus: str = ""
    lineage: str = ""

    def __post_init__(self) -> None:
        if self.role not in ROLE_LETTERS.values():
            raise ParameterError(
                f"agent on node {self.node}: role {self.role!r}; expected strong, weak or adversary"
            )
        if self.honest and not self.model:
            raise ParameterError(f"agent on node {self.node}: an honest agent needs a model")
        if (self.attack is None) == (self.role == "adversary"):
            raise ParameterError(
                f"agent on node {self.node}: an attack goes with the adversary role, and only there"
            )

    @property
    def honest(self) -> bool:
        return self.role != "adversary"

    @property
    def agent_id(self) -> str:
        """The id sent to the backend: the node label when it is a safe token, else ``n<index>``."""
        return self.node if _SAFE_ID.fullmatch(self.node) else f"n{self.index}"

    def identity(self) -> AgentIdentity:
        """The identity carried by this agent's requests (id, checkpoint, corpus)."""
        return AgentIdentity(self.agent_id, checkpoint=self.checkpoint, corpus=self.corpus)

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "node": self.node,
            "role": self.role,
            "model": self.model,
            "attack": None if self.attack is None else self.attack.text,
            "checkpoint": self.checkpoint,
            "corpus": self.corpus,
            "lineage": self.lineage,
        }


@dataclass(frozen=True)
class Roster:
    """Agents in Topology index order, with the spec they came from."""

    agents: tuple[AgentSpec, ...]
    spec: str

    @property
    def honest(self) -> tuple[int, ...]:
        return tuple(a.index for a in self.agents if a.honest)

    @property
    def adversaries(self) -> tuple[int, ...]:
        """The adversarial Byzantine agents, the set A of the SAC paper (Def. 3.1)."""
        return tuple(a.index for a in self.agents if not a.honest)

    @property
    def faulty(self) -> tuple[int, ...]:
        """The faulty Byzantine agents, the set F of the SAC paper (Def. 3.1): the weak honest
        agents, which follow the protocol but answer unreliably (Sec. 5.1 models the weak group
        as faulty)."""
        return tuple(a.index for a in self.agents if a.role == "weak")

    def default_F(self) -> int:  # noqa: N802 - the paper's F
        """The F a run tolerates unless told: the Byzantine set's size, |B| = |A| + |F|.

        The SAC paper counts faulty (weak) agents as Byzantine (Def. 3.1) and sets F = 3 for
        4 strong, 2 weak and 1 adversarial agent (Sec. 5.2, Table 1). Any placement of B is then
        F-local (Def. 3.2): no agent can hear more than |B| of them.

        Examples
        --------
        >>> from robustgraph.generators import gamma_merg
        >>> build_roster(gamma_merg(7), "4S2W1A").default_F()
        3
        """
        return len(self.adversaries) + len(self.faulty)

    def counts(self) -> dict[str, int]:
        counted = Counter(a.role for a in self.agents)
        return {role: counted.get(role, 0) for role in ROLE_LETTERS.values()}

    def summary(self) -> dict[str, Any]:
        """What each result record carries about the roster."""
        counts = self.counts()
        attacks = sorted({a.attack.text for a in self.agents if a.attack is not None})
        return {
            "spec": self.spec,
            "n": len(self.agents),
            "strong": counts["strong"],
            "weak": counts["weak"],
            "adversarial": counts["adversary"],
            "attack": ",".join(attacks) if attacks else None,
        }

    def models(self) -> list[str]:
        """The distinct models the honest agents use."""
        return sorted({a.model for a in self.agents if a.honest and a.model})

    def to_json(self) -> dict[str, Any]:
        return {"spec": self.spec, "agents": [a.to_json() for a in self.agents]}


def _place_adversaries(
    topology: Topology, count: int, placement: str, labels: Sequence[str], rng: random.Random
) -> list[int]:
    n = topology.n
    if placement == "random":
        return sorted(rng.sample(range(n), count))
    if placement == "degree":
        heard_by = [0] * n
        for nbrs in topology.in_neighbors:
            for j in nbrs:
                heard_by[j] += 1
        order = sorted(range(n), key=lambda i: (-heard_by[i], i))
        return sorted(order[:count])
    index = {str(label): i for i, label in enumerate(topology.labels)}
    chosen = []
    for label in labels:
        if label not in index:
            raise ParameterError(f"adversary node {label!r} is not in the graph")
        chosen.append(index[label])
    if len(set(chosen)) != len(chosen):
        raise ParameterError("adversary nodes are listed twice")
    if len(chosen) != count:
        raise ParameterError(
            f"the roster has {count} adversaries but {len(chosen)} adversary nodes were given"
        )
    return sorted(chosen)


def _from_counts(
    topology: Topology,
    spec: str,
    *,
    attack: AttackSpec,
    placement: str,
    labels: Sequence[str],
    models: Mapping[str, str],
    seed: int,
) -> Roster:
    counts = parse_roster_spec(spec)
    total = sum(counts.values())
    if total != topology.n:
        raise ParameterError(
            f"roster {spec!r} has {total} agents but the graph has {topology.n} nodes"
        )
    if placement not in PLACEMENTS:
        raise ParameterError(f"placement {placement!r}; expected one of {', '.join(PLACEMENTS)}")
    if placement != "labels" and labels:
        raise ParameterError("adversary node labels go with placement 'labels'")
    rng = random.Random(f"roster|{seed}")
    bad = set(_place_adversaries(topology, counts["adversary"], placement, labels, rng))
    rest = [i for i in range(topology.n) if i not in bad]
    rng.shuffle(rest)
    strong = set(rest[: counts["strong"]])
    agents = []
    for i, label in enumerate(topology.labels):
        if i in bad:
            agents.append(AgentSpec(i, str(label), "adversary", None, attack))
        else:
            role = "strong" if i in strong else "weak"
            agents.append(AgentSpec(i, str(label), role, models[role]))
    return Roster(tuple(agents), spec.strip().upper())


_NODE_KEY = re.compile(r"""(?m)(?:^|[\s{,'"])node['"]?\s*:""")


def _check_roster_size(path: Path, text: str, n: int) -> None:
    """Refuse, before its YAML is parsed, a roster file larger than ``n`` agents need, or with
    more ``node`` keys than the graph has nodes (one agent per node; issue 41, row 9)."""
    cap = 64 * 1024 + ROSTER_BYTES_PER_AGENT * n
    if len(text) > cap:
        raise ParameterError(
            f"{path}: {len(text):,} characters, more than a roster of the graph's {n:,} agents "
            f"needs ({cap:,}: 64 KiB + {ROSTER_BYTES_PER_AGENT:,} per agent)"
        )
    agents = len(_NODE_KEY.findall(text))
    if agents > n:
        raise ParameterError(
            f"{path}: lists {agents:,} agents ('node' keys), more than the graph's {n:,} nodes"
        )


def _from_file(
    topology: Topology, path: Path, *, attack: AttackSpec, models: Mapping[str, str]
) -> Roster:
    text = read_text(path, label=f"{path}: cannot read roster")
    _check_roster_size(path, text, topology.n)
    try:
        data = strict_yaml.load(text)
    except yaml.YAMLError as exc:
        raise ParameterError(f"{path}: cannot read roster: {strict_yaml.problem(exc)}") from None
    except (OSError, ValueError, RecursionError) as exc:  # ValueError: 4300+ digits
        raise ParameterError(f"{path}: cannot read roster: {str(exc).split(';')[0]}") from None
    entries = data.get("agents") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise ParameterError(f"{path}: a roster file needs a list 'agents'")
    index = {str(label): i for i, label in enumerate(topology.labels)}
    placed: dict[int, AgentSpec] = {}
    known = {"node", "role", "model", "attack", "checkpoint", "corpus", "lineage"}
    for k, entry in enumerate(entries, 1):
        if not isinstance(entry, dict) or "node" not in entry or "role" not in entry:
            raise ParameterError(f"{path}: agent {k} needs at least 'node' and 'role'")
        unknown = set(entry) - known
        if unknown:
            raise ParameterError(f"{path}: agent {k}: unknown fields {sorted(unknown)}")
        node = str(entry["node"])
        if node not in index:
            raise ParameterError(f"{path}: agent {k}: node {quote(node)} is not in the graph")
        i = index[node]
        if i in placed:
            raise ParameterError(f"{path}: node {node!r} is listed twice")
        role = str(entry["role"])
        adversary = role == "adversary"
        own_attack = parse_attack(str(entry["attack"])) if entry.get("attack") else attack
        placed[i] = AgentSpec(
            i,
            node,
            role,
            None if adversary else str(entry.get("model") or models.get(role, "")) or None,
            own_attack if adversary else None,
            checkpoint=str(entry.get("checkpoint") or ""),
            corpus=str(entry.get("corpus") or ""),
            lineage=str(entry.get("lineage") or ""),
        )
    missing = [str(topology.labels[i]) for i in range(topology.n) if i not in placed]
    if missing:
        raise ParameterError(f"{path}: no agent for node(s) {', '.join(missing[:5])}")
    agents = tuple(placed[i] for i in range(topology.n))
    counts = Counter(a.role for a in agents)
    spec = "".join(f"{counts[r]}{letter}" for letter, r in ROLE_LETTERS.items() if counts[r])
    return Roster(agents, spec)


DIVERSITY_KINDS = ("checkpoint", "corpus", "lineage")


def declare_diversity(roster: Roster, kinds: Sequence[str]) -> Roster:
    """Declare that every honest agent has its own ``kinds`` where the roster names none.

    ``run --diversity checkpoint`` says the copies of one model run on distinct checkpoints
    (fine-tunes, snapshots): each honest agent without a declared checkpoint gets
    ``<model>@<agent id>``; ``corpus`` gives ``corpus-<agent id>``, ``lineage``
    ``lineage-<agent id>``. The simulated backend then draws their errors apart and the commit
    gate counts them as separate units (docs/commit-gate.md, "Declaring what agents share").

    Examples
    --------
    >>> from robustgraph.generators import gamma_merg
    >>> r = declare_diversity(build_roster(gamma_merg(7), "4S2W1A"), ["checkpoint"])
    >>> sorted({a.checkpoint for a in r.agents if a.honest})[:2]
    ['sim-strong@0', 'sim-strong@1']
    """
    unknown = [k for k in kinds if k not in DIVERSITY_KINDS]
    if unknown:
        raise ParameterError(f"--diversity {unknown[0]!r}; expected some of "
                             f"{', '.join(DIVERSITY_KINDS)}")
    own = {"checkpoint": lambda a: f"{a.model}@{a.agent_id}",
           "corpus": lambda a: f"corpus-{a.agent_id}",
           "lineage": lambda a: f"lineage-{a.agent_id}"}
    agents = tuple(
        replace(a, **{k: own[k](a) for k in kinds if not getattr(a, k)}) if a.honest else a
        for a in roster.agents)
    return Roster(agents, roster.spec)


def build_roster(
    topology: Topology,
    spec: str,
    *,
    attack: str | AttackSpec = "fixed",
    placement: str = "random",
    adversary_nodes: Sequence[str] = (),
    models: Mapping[str, str] | None = None,
    seed: int = 0,
) -> Roster:
    """The roster for ``topology`` from a spec (``4S2W1A``) or a roster file path.

    Parameters
    ----------
    topology : Topology
        The communication graph; one agent per node.
    spec : str
        Counts per role (``<k>S<k>W<k>A``), or the path of a YAML/JSON roster file.
    attack : str or AttackSpec
        The adversaries' attack (``fixed``, ``collude``, ``equivocate``, ``echo-then-flip:k=2``,
        ``inject``, ``silent``); a roster file may override it per agent.
    placement : {"random", "degree", "labels"}
        Where adversaries sit: seeded random nodes, the nodes heard by the most agents (ties to
        the lower index), or ``adversary_nodes``.
    adversary_nodes : sequence of str
        Node labels for ``placement="labels"``.
    models : mapping role -> model, optional
        Model per honest role; default ``sim-strong`` / ``sim-weak``.
    seed : int
        Seeds random placement and the assignment of strong/weak to the honest nodes.

    Returns
    -------
    Roster

    Raises
    ------
    ParameterError
        Bad spec or file, counts that do not add up to n, unknown labels.

    Examples
    --------
    >>> from robustgraph.generators import gamma_merg
    >>> r = build_roster(gamma_merg(7), "4S2W1A", placement="degree", seed=1)
    >>> r.counts(), r.adversaries
    ({'strong': 4, 'weak': 2, 'adversary': 1}, (0,))
    """
    models = dict(models or {"strong": "sim-strong", "weak": "sim-weak"})
    attack_spec = parse_attack(attack) if isinstance(attack, str) else attack
    path = Path(spec)
    looks_like_file = path.suffix.lower() in (".json", ".yaml", ".yml") or path.exists()
    if looks_like_file:
        regular_file(path, label=f"roster file {spec}")
        return _from_file(topology, path, attack=attack_spec, models=models)
    return _from_counts(
        topology,
        spec,
        attack=attack_spec,
        placement=placement,
        labels=[str(x) for x in adversary_nodes],
        models=models,
        seed=seed,
    )
