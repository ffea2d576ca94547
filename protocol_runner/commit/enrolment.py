"""The ledger's registry entry: who may vote and sign, endorsed by every key it names.

An enrolment fixes, for the decisions that follow it in a ledger, the voting agents (their
Ed25519 public keys and infrastructure), f, the re-executor's infrastructure, the gate's public
key (it signs every entry it appends) and the reviewer's (it signs human resolutions). Its hash
``H`` covers all of that; every key it names signs ``H`` (an endorsement), which proves the
holder has the private key (nobody can register another party's public key, the "rogue key"
problem) and makes any later edit of a key, an attribute, f or the re-executor break the
endorsements of everyone else.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol_runner.commit.canonical import canonical_json, sha256_hex
from protocol_runner.commit.keyring import Keyring
from protocol_runner.commit.registry import Infrastructure, Registry
from protocol_runner.commit.signing import (
    REGISTRY,
    public_key_hex,
    sign,
    signature_valid,
    statement,
)
from robustgraph.errors import ParameterError

__all__ = ["Enrolment"]


@dataclass(frozen=True, eq=False)
class Enrolment:
    """A registry snapshot as the ledger records it.

    Parameters
    ----------
    registry : Registry
        The voting agents.
    f : int
        Faults tolerated by the gate.
    reexecutor : Infrastructure
        The re-executor's checkpoint, lineage and corpora.
    gate, reviewer : str
        Public keys (64 hex digits) of the gate and the reviewer.
    endorsements : mapping
        ``{"agents": {agent id: signature}, "gate": signature, "reviewer": signature}``, each
        over ``REGISTRY + canonical({"registry": H, "signer": name})``.
    conflict : {"diverse", "quorum", "strict"}
        The gate's conflict rule (:data:`~protocol_runner.commit.gate.CONFLICT_RULES`); in the
        statement unless ``"quorum"`` (the only rule before issue 45), so the enrolments of
        older ledgers read and hash as they were written.
    """

    registry: Registry
    f: int
    reexecutor: Infrastructure
    gate: str
    reviewer: str
    endorsements: Mapping[str, Any]
    conflict: str = "diverse"

    @staticmethod
    def _statement(registry: Registry, f: int, reexecutor: Infrastructure, gate: str,
                   reviewer: str, conflict: str) -> dict[str, Any]:
        out = {"agents": registry.to_json(), "f": f, "reexecutor": reexecutor.to_json(),
               "signers": {"gate": gate, "reviewer": reviewer}}
        if conflict != "quorum":
            out["conflict"] = conflict
        return out

    @cached_property
    def digest(self) -> str:
        """``H``: SHA-256 of the canonical statement (everything but the endorsements)."""
        return sha256_hex(canonical_json(self._statement(
            self.registry, self.f, self.reexecutor, self.gate, self.reviewer, self.conflict)))

    @classmethod
    def create(cls, registry: Registry, f: int, reexecutor: Infrastructure,
               keyring: Keyring, *, conflict: str = "diverse") -> Enrolment:
        """Enrol ``registry`` with the keys of ``keyring``, every key endorsing the statement.

        Raises
        ------
        ParameterError
            If an agent's registered public key is not its key in ``keyring``.

        Examples
        --------
        >>> import tempfile, os
        >>> from protocol_runner.commit.registry import AgentRecord
        >>> ring = Keyring.open(os.path.join(tempfile.mkdtemp(), "k.json"), ["a"])
        >>> reg = Registry((AgentRecord("a", public_key_hex(ring.agents["a"].public_key()),
        ...                             Infrastructure("ck", "lin")),))
        >>> entry = Enrolment.create(reg, 0, Infrastructure("ck-r", "lin-r"), ring)
        >>> entry.bad_endorsements()
        []
        """
        gate, reviewer = (public_key_hex(k.public_key()) for k in (keyring.gate, keyring.reviewer))
        keys: dict[str, Ed25519PrivateKey] = {}
        for record in registry:
            key = keyring.agents.get(record.agent_id)
            if key is None or public_key_hex(key.public_key()) != record.public_key:
                raise ParameterError(f"agent {record.agent_id!r}: its registered public key is "
                                     f"not its key in {keyring.path}")
            keys[record.agent_id] = key
        digest = sha256_hex(canonical_json(cls._statement(registry, f, reexecutor, gate,
                                                          reviewer, conflict)))

        def endorse(key: Ed25519PrivateKey, name: str) -> str:
            return sign(key, REGISTRY, {"registry": digest, "signer": name})

        endorsements = {"agents": {a: endorse(k, a) for a, k in keys.items()},
                        "gate": endorse(keyring.gate, "gate"),
                        "reviewer": endorse(keyring.reviewer, "reviewer")}
        return cls(registry, f, reexecutor, gate, reviewer, endorsements, conflict)

    def bad_endorsements(self) -> list[str]:
        """Names whose endorsement is missing or does not verify under their key (in order)."""
        def ok(name: str, key: str, signature: object) -> bool:
            return signature_valid(key, signature, statement(
                REGISTRY, {"registry": self.digest, "signer": name}))

        agents = self.endorsements.get("agents")
        agents = agents if isinstance(agents, Mapping) else {}
        bad = [r.agent_id for r in self.registry
               if not ok(r.agent_id, r.public_key, agents.get(r.agent_id))]
        bad += [name for name, key in (("gate", self.gate), ("reviewer", self.reviewer))
                if not ok(name, key, self.endorsements.get(name))]
        return bad

    def to_body(self) -> dict[str, Any]:
        """The ledger entry body (``kind`` ``"registry"``)."""
        return {"kind": "registry", "registry_hash": self.digest,
                **self._statement(self.registry, self.f, self.reexecutor, self.gate,
                                  self.reviewer, self.conflict),
                "endorsements": {"agents": dict(self.endorsements["agents"]),
                                 "gate": self.endorsements["gate"],
                                 "reviewer": self.endorsements["reviewer"]}}

    @classmethod
    def from_body(cls, body: Mapping[str, Any]) -> Enrolment:
        """Read a registry entry body back (unchecked: see :meth:`bad_endorsements`).

        Raises
        ------
        ParameterError
            If a field is missing or malformed.
        """
        try:
            signers = body["signers"]
            endorsements = body["endorsements"]
            f = body["f"]
            if not isinstance(f, int) or isinstance(f, bool) or f < 0:
                raise ParameterError(f"f must be a non-negative integer, got {f!r}")
            if not isinstance(endorsements, Mapping) \
                    or not isinstance(endorsements.get("agents"), Mapping) \
                    or {"agents", "gate", "reviewer"} != set(endorsements):
                raise TypeError("endorsements must be an object of agents, gate and reviewer")
            conflict = body.get("conflict", "quorum")
            if conflict not in ("quorum", "diverse", "strict"):
                raise ParameterError(f"unknown conflict rule {conflict!r}")
            return cls(Registry.from_json(body["agents"]), f,
                       Infrastructure.from_json(body["reexecutor"]), str(signers["gate"]),
                       str(signers["reviewer"]), endorsements, conflict)
        except (KeyError, TypeError) as exc:
            raise ParameterError(f"malformed registry entry ({exc})") from None
