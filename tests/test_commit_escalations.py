"""Escalations a person can act on: ``ledger pending`` and ``ledger resolve``, checked by verify."""

from __future__ import annotations

import json
import shutil
import sqlite3

import pytest
from click.testing import CliRunner
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol_runner.commit import Keyring, canonical_json, verify
from protocol_runner.commit.canonical import sha256_hex
from protocol_runner.commit.enrolment import Enrolment
from protocol_runner.commit.ledger import GENESIS, Ledger, read_entries, signed_part
from protocol_runner.commit.signing import ENTRY, sign
from robustgraph.cli import main

# Three agents on one checkpoint that are always wrong together, one that is always right: every
# quorum is correlated, and the diversity round cannot change a checkpoint: to a human.
ROSTER = """\
agents:
  - {node: "0", role: strong, model: sim-shared, checkpoint: ck-shared, corpus: doc-a}
  - {node: "1", role: strong, model: sim-shared, checkpoint: ck-shared, corpus: doc-b}
  - {node: "2", role: strong, model: sim-shared, checkpoint: ck-shared, corpus: doc-c}
  - {node: "3", role: strong, model: sim-solo, checkpoint: ck-solo, corpus: doc-d}
"""
WORLD = {"checkpoint_share": 1.0, "corpus_share": 0.0,
         "profiles": {"shared": {"base": "strong", "accuracy": 0.0},
                      "solo": {"base": "strong", "accuracy": 1.0}}}


def _invoke(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def escalated(tmp_path_factory):
    """A finished run whose three decisions all went to a human (pristine: copy before use)."""
    root = tmp_path_factory.mktemp("escalated")
    (root / "roster.yaml").write_text(ROSTER)
    (root / "world.json").write_text(json.dumps(WORLD))
    result = _invoke("run", "--topology", "complete", "--n", "4", "--roster",
                     str(root / "roster.yaml"), "--F", "1", "--protocols", "sac", "--tasks",
                     "arith:3", "--rounds", "0", "--sim-config", str(root / "world.json"),
                     "--seed", "3", "--no-plots", "--commit-gate", "--gate-f", "1",
                     "-o", str(root / "out"))
    assert result.exit_code == 0, result.output
    return root / "out"


@pytest.fixture()
def out(escalated, tmp_path):
    copy = tmp_path / "out"
    shutil.copytree(escalated, copy)
    return copy


def _pending(out) -> list[dict]:
    result = _invoke("ledger", "pending", str(out / "ledger.sqlite"), "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_pending_lists_each_escalation_with_its_votes_and_evidence(out):
    items = _pending(out)
    assert len(items) == 3
    for item in items:
        assert item["stage"] == "diversity" and item["units"] == 1
        assert item["value"] is not None and item["support"] == ["0", "1", "2"]
        assert len(item["votes"]) == 4  # every counted vote, the dissenting one too
        for vote in item["votes"]:
            agrees = vote["voter"] in item["support"]
            assert (vote["value"] == item["value"]) == agrees
            assert vote["unit"] == (["0", "1", "2"] if agrees else ["3"])
            assert vote["evidence"] and vote["evidence"][0].startswith("document doc-")
    text = _invoke("ledger", "pending", str(out / "ledger.sqlite")).output
    assert f"entry {items[0]['entry']}" in text and repr(items[0]["value"]) in text
    assert "3 of 4 votes agree, 3 evidence hashes, 1 independence units" in text
    assert "3 pending; resolve one with: robustgraph ledger resolve" in text


def test_resolve_round_trips_through_verify(out):
    ledger = out / "ledger.sqlite"
    first, second, _ = _pending(out)
    done = _invoke("ledger", "resolve", str(ledger), str(first["entry"]), "--abort",
                   "--reason", "all three votes come from one checkpoint", "--json")
    assert done.exit_code == 0, done.output
    added = json.loads(done.stdout)
    assert added["signer"] == "reviewer" and added["body"]["decision"] == first["entry"]
    assert _invoke("ledger", "resolve", str(ledger), str(second["entry"]), "--commit",
                   "--reason", "checked by hand").exit_code == 0
    report = verify(ledger)
    assert report.valid, report.reason
    assert report.outcomes["resolved_abort"] == 1 and report.outcomes["resolved_commit"] == 1
    assert [i["entry"] for i in _pending(out)] == [_pending(out)[0]["entry"]]
    shown = _invoke("ledger", "show", str(ledger), "--reasons").output
    assert "by the reviewer: abort" in shown and "one checkpoint" in shown


@pytest.mark.parametrize(("entry", "extra", "message"), [
    ("first", ["--commit", "--reason", "again"], "already resolved by entry"),
    (1, ["--commit", "--reason", "x"], "entry 1 is not a decision escalated to a human"),
    ("first", ["--commit", "--reason", "  "], "non-empty --reason"),
])
def test_resolve_refuses_with_one_line(out, entry, extra, message):
    ledger = out / "ledger.sqlite"
    first = _pending(out)[0]["entry"]
    assert _invoke("ledger", "resolve", str(ledger), str(first), "--abort", "--reason",
                   "no").exit_code == 0
    target = first if entry == "first" else entry
    result = _invoke("ledger", "resolve", str(ledger), str(target), *extra)
    assert result.exit_code == 2 and message in result.stderr and result.stderr.count("\n") == 1


def test_resolve_needs_the_registered_reviewer_key(out, tmp_path):
    ledger = out / "ledger.sqlite"
    entry = str(_pending(out)[0]["entry"])
    missing = _invoke("ledger", "resolve", str(ledger), entry, "--commit", "--reason", "x",
                      "--keyring", str(tmp_path / "none.json"))
    assert missing.exit_code == 2 and "no keyring there" in missing.stderr
    Keyring.open(tmp_path / "other.json")
    other = _invoke("ledger", "resolve", str(ledger), entry, "--commit", "--reason", "x",
                    "--keyring", str(tmp_path / "other.json"))
    assert other.exit_code == 2 and "not the reviewer registered" in other.stderr
    assert not any(e.body["kind"] == "resolution" for e in read_entries(ledger))


def _rewrite(ledger, mutate, keys):
    conn = sqlite3.connect(ledger, isolation_level=None)
    conn.execute("DROP TRIGGER IF EXISTS entries_no_update")
    conn.execute("DROP TRIGGER IF EXISTS entries_no_delete")
    records = [json.loads(r) for (r,) in conn.execute("SELECT record FROM entries ORDER BY seq")]
    mutate(records)
    conn.execute("DELETE FROM entries")
    prev = GENESIS
    for seq, rec in enumerate(records, start=1):
        rec["seq"], rec["prev"] = seq, prev
        if rec["signer"] in keys:
            rec["signature"] = sign(keys[rec["signer"]], ENTRY,
                                    signed_part(seq, prev, rec["time"], rec["body"], rec["signer"]))
        text = canonical_json(rec)
        conn.execute("INSERT INTO entries VALUES (?,?,?,?)", (seq, prev, sha256_hex(text),
                                                             text.decode()))
        prev = sha256_hex(text)
    conn.execute("UPDATE meta SET value = ? WHERE key = 'head_hash'", (prev,))
    conn.close()


def test_a_forged_resolution_fails_verify(out):
    ledger = out / "ledger.sqlite"
    entry = str(_pending(out)[0]["entry"])
    assert _invoke("ledger", "resolve", str(ledger), entry, "--abort", "--reason",
                   "wrong value").exit_code == 0
    ring = Keyring.open(out / "keyring.json")

    def flip(records):
        records[-1]["body"]["action"] = "commit"

    _rewrite(ledger, flip, {})  # no key: the reviewer's signature breaks
    report = verify(ledger)
    assert not report.valid and "reviewer's signature does not verify" in report.reason

    def by_gate(records):
        records[-1]["signer"] = "gate"

    _rewrite(ledger, by_gate, {"gate": ring.gate})  # the gate may not resolve for a human
    report = verify(ledger)
    assert not report.valid and "must be signed by the reviewer" in report.reason

    def stranger(records):
        records[-1]["signer"] = "reviewer"

    _rewrite(ledger, stranger, {"reviewer": Ed25519PrivateKey.generate()})
    assert "reviewer's signature does not verify" in verify(ledger).reason


def test_a_resolution_under_another_registry_fails_verify(out):
    """Issue 30, item 8: a later registry (here a legitimate rotation signed by the gate in
    force) names another reviewer; that reviewer may not resolve a decision escalated under the
    first registry, even with a valid signature and the decision's own hash."""
    ledger = out / "ledger.sqlite"
    entries = read_entries(ledger)
    first = Enrolment.from_body(entries[0].body)
    target = next(e for e in entries if e.body.get("escalate_to") == "human")
    ring = Keyring.open(out / "keyring.json")
    other = Ed25519PrivateKey.generate()
    rotated = Enrolment.create(first.registry, first.f, first.reexecutor,
                               Keyring(ring.path, ring.gate, other, ring.agents))
    body = target.body
    with Ledger(ledger) as book:
        assert book.record_registry(rotated, ring.gate) is not None
        assert verify(ledger).valid  # the rotation alone is fine
        book.append({"kind": "resolution", "registry_hash": rotated.digest,
                     "decision": target.seq, "decision_hash": target.entry_hash,
                     "proposal_id": body["proposal_id"], "stage": body["stage"],
                     "action": "commit", "value_hash": body["value_hash"],
                     "reason": "signed by the new registry's reviewer"},
                    signer="reviewer", key=other)
    report = verify(ledger)
    assert not report.valid and report.first_bad == len(entries) + 2
    assert "another registry than entry" in report.reason
