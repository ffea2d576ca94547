"""The hash-chained ledger: verification, tamper detection, the CLI, and SIGKILL mid-commit."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest
from click.testing import CliRunner
from commit_fakes import distinct, keyring, world
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol_runner.commit import (
    AgentRecord,
    CommitGate,
    Infrastructure,
    Keyring,
    Ledger,
    LedgerError,
    Reexecution,
    Registry,
    RejectReason,
    evidence_hash,
    public_key_hex,
    sign_vote,
    value_hash,
    verify,
)
from protocol_runner.commit.canonical import canonical_json, sha256_hex
from protocol_runner.commit.ledger import GENESIS, read_entries, record_bytes, signed_part
from protocol_runner.commit.signing import ENTRY, sign
from robustgraph.cli import main

GOOD, BAD = value_hash("good"), value_hash("bad")
REEXECUTOR = Infrastructure("ck-r", "lin-r")


def rerun(proposal_id: str) -> Reexecution:
    value = BAD if proposal_id == "p-abort" else GOOD
    return Reexecution(value, evidence_hash([f"snapshot of {proposal_id}"]))


def votes_for(keys, proposal, plan):
    return [sign_vote(keys[a], a, proposal, value, evidence_hash([doc])) for a, value, doc in plan]


PLANS = {
    "p-commit": [("a", GOOD, "d1"), ("b", GOOD, "d2"), ("c", GOOD, "d3")],
    "p-escalate": [("a", GOOD, "d"), ("b", GOOD, "d"), ("c", GOOD, "d")],
    "p-abort": [("a", GOOD, "d1"), ("b", GOOD, "d2"), ("c", GOOD, "d3"), ("d", GOOD, "d4")],
    "p-conflict": [("a", GOOD, "d1"), ("b", GOOD, "d2"), ("c", BAD, "d3"), ("d", BAD, "d4")],
    "p-none": [("a", GOOD, "d1")],
}


@pytest.fixture()
def ring():
    """The fixture ledger's keys: four agents, the gate and the reviewer."""
    keys, _ = world(distinct("abcd"))
    return keyring(keys)


@pytest.fixture()
def db(tmp_path, ring):
    """A ledger holding a registry entry and one decision of every kind (entries 1..6)."""
    path = tmp_path / "ledger.db"
    with Ledger(path) as ledger:
        gate = CommitGate(registry_of(ring), 1, rerun, reexecutor=REEXECUTOR, ledger=ledger,
                          keyring=ring)
        for proposal, plan in PLANS.items():
            gate.decide(proposal, votes_for(ring.agents, proposal, plan))
    return path


def registry_of(ring):
    infra = distinct(ring.agents)
    return Registry(tuple(AgentRecord(a, public_key_hex(k.public_key()), infra[a])
                          for a, k in ring.agents.items()))


def raw(path):
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("DROP TRIGGER entries_no_update")
    conn.execute("DROP TRIGGER entries_no_delete")
    return conn


def rewrite_chain(path, mutate, keys=None):
    """What an attacker with write access can do: edit bodies, then recompute every hash and
    the head so that the chain itself is consistent again; with ``keys`` (signer name ->
    private key: a stolen key) also re-sign the entries of those signers."""
    conn = raw(path)
    records = [json.loads(r) for (r,) in conn.execute("SELECT record FROM entries ORDER BY seq")]
    mutate(records)
    conn.execute("DELETE FROM entries")
    prev = GENESIS
    for seq, rec in enumerate(records, start=1):
        rec["seq"], rec["prev"] = seq, prev
        if keys and rec["signer"] in keys:
            rec["signature"] = sign(keys[rec["signer"]], ENTRY, signed_part(
                seq, prev, rec["time"], rec["body"], rec["signer"]))
        text = canonical_json(rec)
        digest = sha256_hex(text)
        conn.execute("INSERT INTO entries VALUES (?,?,?,?)", (seq, prev, digest, text.decode()))
        prev = digest
    conn.execute("UPDATE meta SET value = ? WHERE key = 'head_seq'", (str(len(records)),))
    conn.execute("UPDATE meta SET value = ? WHERE key = 'head_hash'", (prev,))
    conn.close()


# -- valid ledgers -----------------------------------------------------------------------------


def test_gate_records_every_decision_and_the_ledger_verifies(db):
    report = verify(db)
    assert report.valid and report.entries == 6 and report.first_bad is None
    assert report.outcomes == {"committed": 1, "correlated_quorum": 1, "non_reproducible": 1,
                               "conflict": 1, "no_quorum": 1}
    entries = read_entries(db)
    bodies = [e.body for e in entries]
    assert bodies[0]["kind"] == "registry" and len(bodies[0]["agents"]) == 4
    assert set(bodies[0]["endorsements"]["agents"]) == set("abcd")
    assert {e.signer for e in entries} == {"gate"}
    escalation = bodies[2]
    assert escalation["action"] == "escalate" and escalation["escalate_to"] == "diversity_round"
    assert len(escalation["votes"]) == 3 and escalation["reasons"]
    assert verify(db, expect_head=report.head_hash).valid


def test_reading_and_verifying_leave_no_wal_or_shm_files_behind(db):
    verify(db)
    read_entries(db)
    assert CliRunner().invoke(main, ["ledger", "show", str(db)]).exit_code == 0
    assert sorted(p.name for p in db.parent.iterdir()) == ["ledger.db"]


def test_reopening_does_not_duplicate_the_registry_and_remembers_votes(db, ring):
    with Ledger(db) as ledger:
        gate = CommitGate(registry_of(ring), 1, rerun, reexecutor=REEXECUTOR, ledger=ledger,
                          keyring=ring)
        out = gate.decide("p-commit", votes_for(ring.agents, "p-commit", PLANS["p-commit"]))
    assert {r.reason for r in out.rejected} == {RejectReason.REPLAYED}
    entries = read_entries(db)
    assert len(entries) == 7 and sum(e.body["kind"] == "registry" for e in entries) == 1
    assert verify(db).valid


def test_new_agent_keys_under_the_same_gate_are_a_new_checked_registry(db, ring):
    fresh = Keyring(ring.path, ring.gate, ring.reviewer,
                    {a: Ed25519PrivateKey.generate() for a in ring.agents})
    with Ledger(db) as ledger:
        gate = CommitGate(registry_of(fresh), 1, rerun, reexecutor=REEXECUTOR, ledger=ledger,
                          keyring=fresh)
        assert gate.decide("p-new", votes_for(fresh.agents, "p-new", PLANS["p-commit"])).committed
    assert verify(db).valid and len(read_entries(db)) == 8


def test_a_keyring_with_another_gate_key_is_refused(db, ring):
    other = keyring(ring.agents)
    with Ledger(db) as ledger, pytest.raises(LedgerError, match="started with other keys"):
        CommitGate(registry_of(other), 1, rerun, reexecutor=REEXECUTOR, ledger=ledger,
                   keyring=other)
    assert len(read_entries(db)) == 6


def test_a_gate_with_a_ledger_needs_a_keyring(tmp_path, ring):
    with Ledger(tmp_path / "l.db") as ledger, pytest.raises(Exception, match="keyring"):
        CommitGate(registry_of(ring), 1, rerun, reexecutor=REEXECUTOR, ledger=ledger)


def test_triggers_forbid_update_and_delete(db):
    conn = sqlite3.connect(db)
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("UPDATE entries SET record = 'x' WHERE seq = 2")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("DELETE FROM entries WHERE seq = 6")
    conn.close()


# -- tampering ----------------------------------------------------------------------------------


def test_edited_entry_is_detected(db):
    conn = raw(db)
    (record,) = conn.execute("SELECT record FROM entries WHERE seq = 3").fetchone()
    conn.execute("UPDATE entries SET record = ? WHERE seq = 3",
                 (record.replace("escalate", "commit"),))
    conn.close()
    report = verify(db)
    assert not report.valid and report.first_bad == 3 and "edited" in report.reason


def test_a_record_that_is_not_utf8_is_an_invalid_entry_not_an_unreadable_file(db):
    conn = raw(db)
    (record,) = conn.execute("SELECT record FROM entries WHERE seq = 2").fetchone()
    conn.execute("UPDATE entries SET record = CAST(? AS BLOB) WHERE seq = 2",
                 (record.encode()[:40] + b"\xff\xfe" + record.encode()[42:],))
    conn.close()
    report = verify(db)
    assert (report.valid, report.first_bad) == (False, 2) and "UTF-8" in report.reason
    result = CliRunner().invoke(main, ["ledger", "verify", str(db)])
    assert result.exit_code == 1 and "not valid UTF-8" in result.stderr


def test_deleted_entry_is_detected(db):
    conn = raw(db)
    conn.execute("DELETE FROM entries WHERE seq = 4")
    conn.close()
    report = verify(db)
    assert (report.valid, report.first_bad) == (False, 4) and "missing" in report.reason


def test_deleted_last_entry_is_detected_by_the_head(db, ring):
    conn = raw(db)
    conn.execute("DELETE FROM entries WHERE seq = 6")
    conn.close()
    report = verify(db)
    assert (report.valid, report.first_bad) == (False, 6) and "removed" in report.reason
    assert report.reason.startswith("head records 6 entries but the chain has 5")
    with Ledger(db) as ledger, pytest.raises(LedgerError, match="refusing to append"):
        ledger.append({"kind": "decision"}, signer="gate", key=ring.gate)


def test_an_edited_head_hash_is_named_as_such(db):
    conn = raw(db)
    conn.execute("UPDATE meta SET value = ? WHERE key = 'head_hash'", ("ab" * 32,))
    conn.close()
    report = verify(db)
    assert not report.valid
    assert report.reason.startswith("head records hash abababababab for entry 6, but that "
                                    "entry's hash is ") and "the head was edited" in report.reason


def test_reordered_entries_are_detected(db):
    conn = raw(db)
    rows = {seq: row for seq, *row in conn.execute("SELECT * FROM entries WHERE seq IN (2, 3)")}
    for seq, other in ((2, 3), (3, 2)):
        conn.execute("UPDATE entries SET prev_hash = ?, entry_hash = ?, record = ? WHERE seq = ?",
                     (*rows[other], seq))
    conn.close()
    report = verify(db)
    assert (report.valid, report.first_bad) == (False, 2) and "reordered" in report.reason


def test_inserted_entry_is_detected(db, ring):
    conn = raw(db)
    for seq in range(6, 2, -1):
        conn.execute("UPDATE entries SET seq = seq + 1 WHERE seq = ?", (seq,))
    (prev,) = conn.execute("SELECT entry_hash FROM entries WHERE seq = 2").fetchone()
    body = {"kind": "decision"}
    signature = sign(ring.gate, ENTRY, signed_part(3, prev, "t", body, "gate"))
    text = record_bytes(3, prev, "t", body, "gate", signature)
    conn.execute("INSERT INTO entries VALUES (3, ?, ?, ?)", (prev, sha256_hex(text),
                                                             text.decode()))
    conn.close()
    report = verify(db)
    assert (report.valid, report.first_bad) == (False, 3)


def test_issue_24_forged_commit_without_a_key_fails(db):
    """Rewrite the non-reproducible decision as committed, make its re-execution's value hash
    the votes' value, re-hash the chain: the gate's signature no longer verifies."""
    def promote(records):
        body = records[3]["body"]
        assert body["outcome"] == "non_reproducible"
        body.update(outcome="committed", action="commit")
        body["reexecution"]["value_hash"] = body["value_hash"]
    rewrite_chain(db, promote)
    report = verify(db)
    assert (report.valid, report.first_bad) == (False, 4)
    assert "gate's signature does not verify" in report.reason
    assert CliRunner().invoke(main, ["ledger", "verify", str(db)]).exit_code == 1


def test_with_the_gate_key_an_outcome_still_cannot_contradict_the_votes(db, ring):
    """Even re-signed with the (stolen) gate key, a commit of a correlated quorum is re-derived
    from its signed votes and refused."""
    def promote(records):
        body = records[2]["body"]
        assert body["outcome"] == "correlated_quorum"
        body.update(outcome="committed", action="commit", evidence=1, units=3,
                    reexecution={"value_hash": GOOD, "snapshot_hash": BAD, "detail": ""})
        del body["escalate_to"]
    rewrite_chain(db, promote, keys={"gate": ring.gate})
    report = verify(db)
    assert (report.valid, report.first_bad) == (False, 3)
    assert report.reason == ("decision says committed, which does not follow from the signed "
                             "votes: the gate rule gives correlated_quorum")


def test_with_the_gate_key_a_vote_still_cannot_be_forged(db, ring):
    def swap_value(records):
        body = records[1]["body"]
        for vote in body["votes"]:
            vote["value_hash"] = BAD
        body["value_hash"], body["tally"] = BAD, [[BAD, 3]]
    rewrite_chain(db, swap_value, keys={"gate": ring.gate})
    report = verify(db)
    assert (report.valid, report.first_bad) == (False, 2) and "signature" in report.reason


def test_a_vote_signed_with_a_key_derived_from_the_seed_is_rejected(db, ring):
    """The old scheme's key, SHA-256(seed, agent), is nobody's key now: a vote signed with it
    is rejected by the gate and, smuggled into a re-signed entry, by ledger verify."""
    seeded = Ed25519PrivateKey.from_private_bytes(
        hashlib.sha256(canonical_json(["keyring", 1, "a"])).digest())
    forged = sign_vote(seeded, "a", "p-seed", GOOD, evidence_hash(["d1"]))
    with Ledger(db) as ledger:
        gate = CommitGate(registry_of(ring), 1, rerun, reexecutor=REEXECUTOR, ledger=ledger,
                          keyring=ring)
        out = gate.decide("p-seed", [forged])
    assert [r.reason for r in out.rejected] == [RejectReason.BAD_SIGNATURE]
    assert verify(db).valid

    def smuggle(records):
        body = records[1]["body"]
        body["votes"][0] = forged.to_json() | {"proposal_id": "p-commit"}
    rewrite_chain(db, smuggle, keys={"gate": ring.gate})
    report = verify(db)
    assert (report.valid, report.first_bad) == (False, 2) and "is invalid" in report.reason


def test_a_vote_from_an_unregistered_key_is_rejected_and_logged(db, ring, caplog):
    mallory = Ed25519PrivateKey.generate()
    vote = sign_vote(mallory, "mallory", "p-x", GOOD, evidence_hash(["m"]))
    with Ledger(db) as ledger:
        gate = CommitGate(registry_of(ring), 1, rerun, reexecutor=REEXECUTOR, ledger=ledger,
                          keyring=ring)
        with caplog.at_level("WARNING", logger="protocol_runner.commit.votes"):
            out = gate.decide("p-x", [vote])
    assert [r.reason for r in out.rejected] == [RejectReason.UNKNOWN_KEY]
    assert "unknown-key" in caplog.text
    assert read_entries(db)[-1].body["rejected"][0]["reason"] == "unknown-key"


@pytest.mark.parametrize("edit", ["key", "attribute", "f"])
def test_an_edited_registry_entry_fails(db, ring, edit):
    mallory = public_key_hex(Ed25519PrivateKey.generate().public_key())

    def tamper(records):
        body = records[0]["body"]
        if edit == "key":
            body["agents"][0]["public_key"] = mallory
        elif edit == "attribute":
            body["agents"][1]["infra"]["checkpoint"] = body["agents"][0]["infra"]["checkpoint"]
        else:
            body["f"] = 0
    rewrite_chain(db, tamper)
    report = verify(db)
    assert (report.valid, report.first_bad) == (False, 1) and "registry hash" in report.reason


def test_an_edited_registry_with_its_hashes_fixed_and_re_signed_fails(db, ring):
    """Swap agent a's key for mallory's, recompute the registry hash everywhere and re-sign
    with the gate key: the other agents' endorsements are of the old registry."""
    from protocol_runner.commit import Enrolment
    mallory = public_key_hex(Ed25519PrivateKey.generate().public_key())

    def tamper(records):
        body = records[0]["body"]
        body["agents"][0]["public_key"] = mallory
        digest = Enrolment.from_body(body).digest
        for rec in records:
            rec["body"]["registry_hash"] = digest
    rewrite_chain(db, tamper, keys={"gate": ring.gate})
    report = verify(db)
    assert (report.valid, report.first_bad) == (False, 1)
    assert "endorsement of 'a' does not verify" in report.reason


def test_consistent_rewrite_is_caught_only_by_a_published_head(db):
    published = verify(db).head_hash

    def drop_last(records):
        del records[-1]
    rewrite_chain(db, drop_last)
    assert verify(db).valid, "cutting the tail keeps every signature; only an anchor shows it"
    report = verify(db, expect_head=published)
    assert not report.valid and "not in the chain" in report.reason


def test_replay_smuggled_into_a_re_signed_chain_is_caught(db, ring):
    def replay(records):
        copy = json.loads(json.dumps(records[1]))
        records.append(copy)
    rewrite_chain(db, replay, keys={"gate": ring.gate})
    report = verify(db)
    assert (report.valid, report.first_bad) == (False, 7) and "replay" in report.reason


def test_an_entry_of_unknown_kind_or_by_the_wrong_signer_fails(db, ring):
    def note(records):
        records.append({"time": "t", "body": {"kind": "note"}, "signer": "gate"})
    rewrite_chain(db, note, keys={"gate": ring.gate})
    assert "unknown kind" in verify(db).reason


def test_an_old_format_ledger_is_refused_with_one_line(tmp_path):
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.executescript("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
                       "INSERT INTO meta VALUES ('format', 'robustgraph-ledger/1');")
    conn.close()
    result = CliRunner().invoke(main, ["ledger", "verify", str(path)])
    assert result.exit_code == 2 and "robustgraph-ledger/1" in result.stderr
    assert result.stderr.count("\n") == 1


# -- CLI ------------------------------------------------------------------------------------------


def test_cli_verify_exit_codes_and_json(db, tmp_path):
    runner = CliRunner()
    ok = runner.invoke(main, ["ledger", "verify", str(db), "--json"])
    assert ok.exit_code == 0 and json.loads(ok.stdout)["valid"] is True
    assert "valid, 6 entries" in runner.invoke(main, ["ledger", "verify", str(db)]).stdout
    conn = raw(db)
    conn.execute("DELETE FROM entries WHERE seq = 2")
    conn.close()
    bad = runner.invoke(main, ["ledger", "verify", str(db), "--json"])
    assert bad.exit_code == 1 and json.loads(bad.stdout)["first_bad"] == 2
    assert bad.stderr.count("\n") == 1 and "INVALID at entry 2" in bad.stderr
    not_sqlite = tmp_path / "notes.txt"
    not_sqlite.write_text("hello")
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    for path in (tmp_path / "missing.db", not_sqlite, other):
        result = runner.invoke(main, ["ledger", "verify", str(path)])
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith("robustgraph: error:") and result.stderr.count("\n") == 1


def test_cli_show_lists_entries(db):
    result = CliRunner().invoke(main, ["ledger", "show", str(db), "--reasons"])
    assert result.exit_code == 0
    assert "p-escalate: correlated_quorum -> escalate" in result.stdout
    assert "correlated quorum: escalate to diversity round" in result.stdout
    data = json.loads(CliRunner().invoke(main, ["ledger", "show", str(db), "--json",
                                                "--limit", "2"]).stdout)
    assert [e["seq"] for e in data] == [5, 6]


# -- SIGKILL in the middle of a commit; a deleted -wal file ---------------------------------------

CHILD = textwrap.dedent('''
    import sys, time
    from pathlib import Path
    from protocol_runner.commit import (AgentRecord, CommitGate, Infrastructure, Keyring,
        Reexecution, Registry, evidence_hash, public_key_hex, sign_vote, value_hash)
    from protocol_runner.commit.ledger import Ledger

    path, mode, before = sys.argv[1], sys.argv[2], int(sys.argv[3])

    def hold(tag):
        print(tag, flush=True)
        time.sleep(120)

    class Holding(Ledger):
        armed = False

        def _insert(self, conn, entry, record):
            super()._insert(conn, entry, record)
            if self.armed and mode == "after-insert":
                hold("HOLDING")

        def _set_head(self, conn, entry):
            super()._set_head(conn, entry)
            if self.armed and mode == "before-commit":
                hold("HOLDING")

    ring = Keyring.open(Path(path).with_name("keyring.json"), "abcd")
    keys = ring.agents
    reg = Registry(tuple(AgentRecord(a, public_key_hex(keys[a].public_key()),
                                     Infrastructure("ck-" + a, "lin-" + a)) for a in "abcd"))
    good = value_hash("good")
    rerun = lambda pid: Reexecution(good, evidence_hash(["snap " + pid]))
    ledger = Holding(path)
    gate = CommitGate(reg, 1, rerun, reexecutor=Infrastructure("ck-r", "lin-r"), ledger=ledger,
                      keyring=ring)
    i = 0
    while True:
        if i == before:
            ledger.armed = True
        pid = f"p{i}"
        gate.decide(pid, [sign_vote(keys[a], a, pid, good, evidence_hash([a + pid]))
                          for a in "abc"])
        i += 1
        print(f"DONE {i + 1}", flush=True)
        if ledger.armed:
            hold("COMMITTED")
''')


def run_child(tmp_path, mode, before):
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    return subprocess.Popen([sys.executable, str(script), str(tmp_path / "l.db"), mode,
                             str(before)], stdout=subprocess.PIPE, text=True)


def kill_at(child, tag):
    for line in child.stdout:
        if line.strip() == tag:
            break
    else:
        pytest.fail(f"child ended before {tag}")
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL


def reopen_and_append(path, expected):
    ring = Keyring.open(path.with_name("keyring.json"))
    with Ledger(path) as ledger:
        gate = CommitGate(registry_of(ring), 1, rerun, reexecutor=Infrastructure("ck-r", "lin-r"),
                          ledger=ledger, keyring=ring)
        gate.decide("after the crash", [])
    assert len(read_entries(path)) == expected + 1 and verify(path).valid


@pytest.mark.parametrize(("mode", "tag", "expected"), [
    ("after-insert", "HOLDING", 4),    # entry written, head not yet: old state
    ("before-commit", "HOLDING", 4),   # entry and head written, COMMIT not reached: old state
    ("after-commit", "COMMITTED", 5),  # COMMIT returned: new state
])
def test_sigkill_mid_commit_leaves_old_or_new_state(tmp_path, mode, tag, expected):
    child = run_child(tmp_path, mode, before=3)
    try:
        kill_at(child, tag)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    path = tmp_path / "l.db"
    report = verify(path)
    assert report.valid and report.entries == expected, report
    reopen_and_append(path, expected)


def test_reader_sees_the_old_state_while_a_writer_holds_the_transaction(tmp_path):
    child = run_child(tmp_path, "before-commit", before=2)
    try:
        for line in child.stdout:
            if line.strip() == "HOLDING":
                break
        report = verify(tmp_path / "l.db")
        assert report.valid and report.entries == 3
    finally:
        child.kill()
        child.wait()


@pytest.mark.parametrize("delay", [0.0, 0.013, 0.041])
@pytest.mark.parametrize("lose_wal", [False, True])
def test_sigkill_at_an_arbitrary_moment_loses_no_acknowledged_decision(tmp_path, delay, lose_wal):
    """Kill the writer at some moment; with ``lose_wal`` also delete the ``-wal`` and ``-shm``
    files, as an operator cleaning up might: every decision the writer had acknowledged
    (``decide`` returned) is still in the main file, and the ledger verifies. The one exception
    (a kill inside a checkpoint, which only the deleted ``-wal`` file can repair) must be
    refused with one line that asks for the ``-wal`` file, never read as a shorter ledger."""
    child = run_child(tmp_path, "never", before=-1)
    done = 0
    try:
        for line in child.stdout:
            done = int(line.split()[1])
            if done >= 15:
                break
        time.sleep(delay)
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    path = tmp_path / "l.db"
    if lose_wal:
        assert (tmp_path / "l.db-wal").exists()
        for suffix in ("-wal", "-shm"):
            (tmp_path / f"l.db{suffix}").unlink(missing_ok=True)
    try:
        report = verify(path)
    except LedgerError as exc:
        assert lose_wal, exc
        assert "restore its -wal file" in str(exc) and "\n" not in str(exc), exc
        return
    if lose_wal and not report.valid:  # the head and the entries copied from different states
        assert "-wal file (restore it)" in report.reason and report.entries >= done, report
        return
    assert report.valid and report.entries >= done, report
    reopen_and_append(path, report.entries)


# -- the re-derivation agrees with the gate on random votes ----------------------------------------

VALUES = [value_hash(str(k)) for k in range(3)]


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_verify_re_derives_exactly_what_the_gate_decided(tmp_path_factory, data):
    """Random registries (shared checkpoints), votes (values, evidence, missing voters, forged
    ones) and re-executions: every decision the gate records verifies; the same entry with its
    outcome swapped for another one and re-signed with the gate key does not."""
    n = data.draw(st.integers(4, 7), label="n")
    names = [f"a{i}" for i in range(n)]
    checkpoints = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n), label="ck")
    infra = {a: Infrastructure(f"ck-{c}", f"lin-{a}")
             for a, c in zip(names, checkpoints, strict=True)}
    keys, reg = world(infra)
    ring = keyring(keys)
    f = data.draw(st.integers(0, (n - 1) // 3), label="f")
    path = tmp_path_factory.mktemp("random") / "l.db"
    decisions = data.draw(st.integers(1, 3), label="decisions")
    with Ledger(path) as ledger:
        for k in range(decisions):
            rerun_value = data.draw(st.sampled_from([*VALUES, None]), label="rerun")
            gate = CommitGate(reg, f, lambda pid, v=rerun_value: Reexecution(
                v, evidence_hash([f"snap {pid}"])), reexecutor=REEXECUTOR, ledger=ledger,
                keyring=ring)
            votes = []
            for a in names:
                choice = data.draw(st.sampled_from(["none", "forged", *range(3)]), label=a)
                if choice == "none":
                    continue
                value = VALUES[0] if choice == "forged" else VALUES[choice]
                doc = data.draw(st.sampled_from(["d1", "d2", f"own-{a}"]), label=f"doc-{a}")
                signer = keys[names[0] if choice == "forged" and a != names[0] else a]
                votes.append(sign_vote(signer, a, f"p{k}", value, evidence_hash([doc])))
            gate.decide(f"p{k}", votes)
    report = verify(path)
    assert report.valid, report.reason
    entries = read_entries(path)
    target = data.draw(st.sampled_from([e.seq for e in entries if e.seq > 1]), label="target")
    outcome = entries[target - 1].body["outcome"]
    other = data.draw(st.sampled_from(sorted({"committed", "correlated_quorum", "conflict",
                                              "no_quorum", "non_reproducible"} - {outcome})))

    def swap(records):
        records[target - 1]["body"]["outcome"] = other
    rewrite_chain(path, swap, keys={"gate": ring.gate})
    report = verify(path)
    assert (report.valid, report.first_bad) == (False, target)
    assert f"decision says {other}, which does not follow" in report.reason


JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers(-3, 300) | st.text(max_size=5),
                           lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(max_size=3), inner, max_size=3),
                           max_leaves=6)


@settings(max_examples=30, deadline=None)
@given(target=st.integers(1, 6), value=JSON_VALUES, data=st.data())
def test_any_re_signed_malformed_field_is_a_verdict_not_a_crash(tmp_path_factory, target,
                                                                 value, data):
    """Replace one field of one entry's body by arbitrary JSON and re-sign it with the gate
    key: verify answers, never raises, and answers valid only for an unchanged field (or the
    context, which is the gate's note for a reader and may be empty)."""
    ring = keyring(world(distinct("abcd"))[0])
    path = tmp_path_factory.mktemp("fuzz") / "ledger.db"
    with Ledger(path) as ledger:
        gate = CommitGate(registry_of(ring), 1, rerun, reexecutor=REEXECUTOR, ledger=ledger,
                          keyring=ring)
        for proposal, plan in PLANS.items():
            gate.decide(proposal, votes_for(ring.agents, proposal, plan))
    body = read_entries(path)[target - 1].body
    key = data.draw(st.sampled_from(sorted(body)), label="key")

    def mutate(records):
        records[target - 1]["body"][key] = value
    rewrite_chain(path, mutate, keys={"gate": ring.gate})
    report = verify(path)
    assert not report.valid or body[key] == value or key == "context", (key, value)
