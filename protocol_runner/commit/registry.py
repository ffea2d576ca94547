"""Registered agents: Ed25519 public keys, infrastructure attributes and independence units.

Agents that share a base-model checkpoint, a retrieval corpus or a prompt lineage fail together,
so a quorum of them can be one witness counted several times. The registry groups agents into
**independence units**: the connected components of the relation "shares any attribute",
closed under chains (a shares a corpus with b, b a checkpoint with c: a, b, c are one unit).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from robustgraph.errors import ParameterError

__all__ = ["Infrastructure", "AgentRecord", "Registry"]


@dataclass(frozen=True)
class Infrastructure:
    """What an agent's answers depend on besides the question.

    Parameters
    ----------
    checkpoint : str
        Base-model checkpoint (weights) identifier, e.g. ``"llama-3.1-8b@2024-07"``.
    lineage : str
        Prompt lineage: the family of system/task prompts the agent was built from.
    corpora : tuple of str
        Retrieval corpora or pipelines the agent reads; empty when it retrieves nothing.

    Examples
    --------
    >>> sorted(Infrastructure("ck-A", "p1", ("wiki",)).attributes())
    [('checkpoint', 'ck-A'), ('corpus', 'wiki'), ('lineage', 'p1')]
    """

    checkpoint: str
    lineage: str
    corpora: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name, value in (("checkpoint", self.checkpoint), ("lineage", self.lineage)):
            if not isinstance(value, str) or not value.strip():
                raise ParameterError(f"{name} must be a non-empty string, got {value!r}")
        corpora = tuple(self.corpora)
        if any(not isinstance(c, str) or not c.strip() for c in corpora):
            raise ParameterError(f"corpora must be non-empty strings, got {corpora!r}")
        object.__setattr__(self, "corpora", tuple(sorted(set(corpora))))

    def attributes(self) -> frozenset[tuple[str, str]]:
        """The ``(kind, value)`` pairs two agents can share; kinds never match across each other."""
        pairs = {("checkpoint", self.checkpoint), ("lineage", self.lineage)}
        pairs.update(("corpus", c) for c in self.corpora)
        return frozenset(pairs)

    def to_json(self) -> dict[str, Any]:
        return {"checkpoint": self.checkpoint, "lineage": self.lineage,
                "corpora": list(self.corpora)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Infrastructure:
        try:
            return cls(data["checkpoint"], data["lineage"], tuple(data.get("corpora", ())))
        except (KeyError, TypeError) as exc:
            raise ParameterError(f"malformed infrastructure record {data!r}: {exc}") from exc


@dataclass(frozen=True)
class AgentRecord:
    """A registered voting agent: id, Ed25519 public key (64 hex digits), infrastructure."""

    agent_id: str
    public_key: str
    infra: Infrastructure

    def __post_init__(self) -> None:
        if not isinstance(self.agent_id, str) or not self.agent_id:
            raise ParameterError(f"agent id must be a non-empty string, got {self.agent_id!r}")
        try:
            Ed25519PublicKey.from_public_bytes(bytes.fromhex(self.public_key))
        except (ValueError, TypeError) as exc:
            raise ParameterError(
                f"agent {self.agent_id}: public key must be 32 raw Ed25519 bytes in hex") from exc

    def to_json(self) -> dict[str, Any]:
        return {"agent_id": self.agent_id, "public_key": self.public_key,
                "infra": self.infra.to_json()}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> AgentRecord:
        try:
            infra = Infrastructure.from_json(data["infra"])
            return cls(data["agent_id"], data["public_key"], infra)
        except (KeyError, TypeError) as exc:
            raise ParameterError(f"malformed agent record {data!r}: {exc}") from exc


@dataclass(frozen=True, eq=False)
class Registry:
    """An immutable set of voting agents and their independence units.

    Parameters
    ----------
    agents : tuple of AgentRecord
        Unique agent ids and unique public keys.

    Examples
    --------
    >>> from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    >>> from protocol_runner.commit.signing import public_key_hex
    >>> def rec(name, ck, corpora=()):
    ...     pk = public_key_hex(Ed25519PrivateKey.generate().public_key())
    ...     return AgentRecord(name, pk, Infrastructure(ck, "lin-" + name, corpora))
    >>> reg = Registry((rec("a", "ck1", ("wiki",)), rec("b", "ck2", ("wiki",)),
    ...                 rec("c", "ck2"), rec("d", "ck3")))
    >>> [sorted(u) for u in reg.units]
    [['a', 'b', 'c'], ['d']]

    Notes
    -----
    Units are computed once by union-find over attribute values: O(n * k * alpha(n)) for n agents
    with k attributes each.
    """

    agents: tuple[AgentRecord, ...]
    _by_id: dict[str, AgentRecord] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        agents = tuple(self.agents)
        if not agents:
            raise ParameterError("a registry needs at least one agent")
        by_id: dict[str, AgentRecord] = {}
        keys: dict[str, str] = {}
        for record in agents:
            if record.agent_id in by_id:
                raise ParameterError(f"agent {record.agent_id!r} is registered twice")
            if record.public_key in keys:
                first = keys[record.public_key]
                raise ParameterError(f"agents {first!r} and {record.agent_id!r} share a public key")
            by_id[record.agent_id] = record
            keys[record.public_key] = record.agent_id
        object.__setattr__(self, "agents", agents)
        object.__setattr__(self, "_by_id", by_id)

    def __len__(self) -> int:
        return len(self.agents)

    def __iter__(self) -> Iterator[AgentRecord]:
        return iter(self.agents)

    def __contains__(self, agent_id: object) -> bool:
        return agent_id in self._by_id

    def get(self, agent_id: str) -> AgentRecord | None:
        """The record of ``agent_id``, or None if it is not registered."""
        return self._by_id.get(agent_id)

    @cached_property
    def units(self) -> tuple[frozenset[str], ...]:
        """Independence units, ordered by their first agent in registration order."""
        parent = list(range(len(self.agents)))

        def find(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        owner: dict[tuple[str, str], int] = {}
        for i, record in enumerate(self.agents):
            for attribute in record.infra.attributes():
                j = owner.setdefault(attribute, i)
                ri, rj = find(i), find(j)
                if ri != rj:
                    parent[max(ri, rj)] = min(ri, rj)
        groups: dict[int, list[str]] = {}
        for i, record in enumerate(self.agents):
            groups.setdefault(find(i), []).append(record.agent_id)
        return tuple(frozenset(groups[root]) for root in sorted(groups))

    @cached_property
    def _unit_index(self) -> dict[str, int]:
        return {agent: k for k, unit in enumerate(self.units) for agent in unit}

    def unit_of(self, agent_id: str) -> int:
        """Index into :attr:`units` of the unit holding ``agent_id``."""
        try:
            return self._unit_index[agent_id]
        except KeyError:
            raise ParameterError(f"agent {agent_id!r} is not registered") from None

    def shared_attributes(self, infra: Infrastructure,
                          agent_ids: Iterable[str]) -> list[tuple[str, str, str]]:
        """``(agent, kind, value)`` for every attribute ``infra`` shares with the given agents."""
        mine = infra.attributes()
        return [(a, kind, value) for a in sorted(set(agent_ids))
                for kind, value in sorted(self._by_id[a].infra.attributes() & mine)]

    def to_json(self) -> list[dict[str, Any]]:
        return [record.to_json() for record in self.agents]

    @classmethod
    def from_json(cls, data: Iterable[Mapping[str, Any]]) -> Registry:
        return cls(tuple(AgentRecord.from_json(item) for item in data))
