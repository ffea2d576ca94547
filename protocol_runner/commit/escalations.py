"""Escalated decisions a person can act on: list them, and resolve one with a signed entry.

A correlated quorum in the diversity round escalates to a human (``escalate_to: "human"``): it
is never committed by the gate. :func:`pending` lists the escalations without a resolution,
with what a reviewer needs to judge them (the value at stake, each vote, its voter's
independence unit and the evidence items it rests on); :func:`resolve` appends the reviewer's
decision (commit or abort, and why) signed with the reviewer's own registered key, which
``ledger verify`` checks like every other entry.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from protocol_runner.commit.audit import verify
from protocol_runner.commit.enrolment import Enrolment
from protocol_runner.commit.keyring import Keyring
from protocol_runner.commit.ledger import Ledger, LedgerEntry, LedgerError, read_entries
from protocol_runner.commit.signing import public_key_hex

__all__ = ["pending", "resolve"]


def _checked(path: Path) -> list[LedgerEntry]:
    report = verify(path)
    if not report.valid:
        raise LedgerError(f"{path}: the ledger is INVALID at entry {report.first_bad} "
                          f"({report.reason}); run 'robustgraph ledger verify'")
    return read_entries(path)


def _open(entries: list[LedgerEntry]) -> dict[int, LedgerEntry]:
    escalated = {e.seq: e for e in entries if e.body.get("kind") == "decision"
                 and e.body.get("rule") == "gate" and e.body.get("escalate_to") == "human"}
    for entry in entries:
        if entry.body.get("kind") == "resolution":
            escalated.pop(entry.body["decision"], None)
    return escalated


def _describe(entry: LedgerEntry, enrolment: Enrolment) -> dict[str, Any]:
    body = entry.body
    context = body.get("context", {})
    values, evidence = context.get("values", {}), context.get("evidence", {})
    registry = enrolment.registry
    votes = [{"voter": v["voter"], "value_hash": v["value_hash"],
              "value": values.get(v["value_hash"]), "evidence_hash": v["evidence_hash"],
              "evidence": evidence.get(v["voter"]),
              "unit": sorted(registry.units[registry.unit_of(v["voter"])])}
             for v in body["votes"]]
    return {"entry": entry.seq, "entry_hash": entry.entry_hash, "time": entry.time,
            "proposal_id": body["proposal_id"], "stage": body["stage"],
            "value_hash": body["value_hash"], "value": values.get(body["value_hash"]),
            "support": body["support"], "tally": body["tally"], "evidence": body["evidence"],
            "units": body["units"],
            "reasons": body["reasons"], "votes": votes}


def pending(path: str | Path) -> list[dict[str, Any]]:
    """The decisions of a ledger escalated to a human and not yet resolved, oldest first.

    Raises
    ------
    LedgerError
        If the file is not a ledger, or does not verify (nobody should act on a tampered
        ledger).

    Notes
    -----
    One :func:`~protocol_runner.commit.audit.verify` pass, then O(E) for E entries.
    """
    entries = _checked(Path(path))
    registries = {e.body["registry_hash"]: Enrolment.from_body(e.body) for e in entries
                  if e.body.get("kind") == "registry"}
    return [_describe(entry, registries[entry.body["registry_hash"]])
            for entry in _open(entries).values()]


def resolve(path: str | Path, entry: int, action: Literal["commit", "abort"], reason: str,
            keyring: Keyring) -> LedgerEntry:
    """Append a reviewer's resolution of escalated decision ``entry``, signed by the reviewer.

    Parameters
    ----------
    path : str or Path
        The ledger.
    entry : int
        Sequence number of the escalated decision (:func:`pending` lists them).
    action : {"commit", "abort"}
    reason : str
        Why, in the reviewer's words (non-empty).
    keyring : Keyring
        Holds the reviewer key registered in the ledger.

    Returns
    -------
    LedgerEntry

    Raises
    ------
    LedgerError
        If the ledger does not verify, ``entry`` is not an open escalation to a human, or the
        keyring's reviewer key is not the one registered for that decision.
    """
    path = Path(path)
    if action not in ("commit", "abort") or not reason.strip():
        raise LedgerError("a resolution needs --commit or --abort and a non-empty --reason")
    entries = _checked(path)
    target = _open(entries).get(entry)
    if target is None:
        decided = [e.seq for e in entries if e.body.get("kind") == "resolution"
                   and e.body.get("decision") == entry]
        why = (f"was already resolved by entry {decided[0]}" if decided
               else "is not a decision escalated to a human")
        raise LedgerError(f"{path}: entry {entry} {why} (see 'robustgraph ledger pending')")
    body = target.body
    registry = next(Enrolment.from_body(e.body) for e in entries
                    if e.body.get("kind") == "registry"
                    and e.body["registry_hash"] == body["registry_hash"])
    if public_key_hex(keyring.reviewer.public_key()) != registry.reviewer:
        raise LedgerError(f"{keyring.path}: its reviewer key is not the reviewer registered in "
                          f"{path}; pass the keyring the run used (--keyring)")
    resolution = {"kind": "resolution", "registry_hash": body["registry_hash"],
                  "decision": entry, "decision_hash": target.entry_hash,
                  "proposal_id": body["proposal_id"], "stage": body["stage"],
                  "action": action, "value_hash": body["value_hash"], "reason": reason.strip()}
    with Ledger(path) as ledger:
        return ledger.append(resolution, signer="reviewer", key=keyring.reviewer)
