"""The hash-chained ledger: verification, tamper detection, the CLI, and SIGKILL mid-commit."""

from __future__ import annotations

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
from commit_fakes import distinct, world

from protocol_runner.commit import (
    CommitGate,
    Infrastructure,
    Ledger,
    LedgerError,
    Reexecution,
    RejectReason,
    evidence_hash,
    sign_vote,
    value_hash,
    verify,
)
from protocol_runner.commit.canonical import canonical_json, sha256_hex
from protocol_runner.commit.ledger import GENESIS, read_entries
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
def db(tmp_path):
    """A ledger holding a registry entry and one decision of every kind (entries 1..6)."""
    path = tmp_path / "ledger.db"
    keys, reg = world(distinct("abcd"))
    with Ledger(path) as ledger:
        gate = CommitGate(reg, 1, rerun, reexecutor=REEXECUTOR, ledger=ledger)
        for proposal, plan in PLANS.items():
            gate.decide(proposal, votes_for(keys, proposal, plan))
    return path


def raw(path):
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("DROP TRIGGER entries_no_update")
    conn.execute("DROP TRIGGER entries_no_delete")
    return conn


def rewrite_chain(path, mutate):
    """What an attacker with write access can do: edit bodies, then recompute every hash and
    the head so that the chain itself is consistent again."""
    conn = raw(path)
    records = [json.loads(r) for (r,) in conn.execute("SELECT record FROM entries ORDER BY seq")]
    mutate(records)
    conn.execute("DELETE FROM entries")
    prev = GENESIS
    for seq, rec in enumerate(records, start=1):
        rec["seq"], rec["prev"] = seq, prev
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
    bodies = [e.body for e in read_entries(db)]
    assert bodies[0]["kind"] == "registry" and len(bodies[0]["agents"]) == 4
    escalation = bodies[2]
    assert escalation["action"] == "escalate" and escalation["escalate_to"] == "diversity_round"
    assert len(escalation["votes"]) == 3 and escalation["reasons"]
    assert verify(db, expect_head=report.head_hash).valid


def test_reading_and_verifying_leave_no_wal_or_shm_files_behind(db):
    verify(db)
    read_entries(db)
    assert CliRunner().invoke(main, ["ledger", "show", str(db)]).exit_code == 0
    assert sorted(p.name for p in db.parent.iterdir()) == ["ledger.db"]


def test_reopening_does_not_duplicate_the_registry_and_remembers_votes(db):
    keys, reg = world(distinct("abcd"))
    with Ledger(db) as ledger:
        gate = CommitGate(reg, 1, rerun, reexecutor=REEXECUTOR, ledger=ledger)
        out = gate.decide("p-commit", votes_for(keys, "p-commit", PLANS["p-commit"]))
    assert {r.reason for r in out.rejected} == {RejectReason.REPLAYED}
    entries = read_entries(db)
    assert len(entries) == 7 and sum(e.body["kind"] == "registry" for e in entries) == 1
    assert verify(db).valid


def test_a_new_registry_is_recorded_and_checked(db):
    keys, reg = world(distinct("abcd"), seed=1)
    with Ledger(db) as ledger:
        gate = CommitGate(reg, 1, rerun, reexecutor=REEXECUTOR, ledger=ledger)
        assert gate.decide("p-new", votes_for(keys, "p-new", PLANS["p-commit"])).committed
    assert verify(db).valid and len(read_entries(db)) == 8


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


def test_deleted_entry_is_detected(db):
    conn = raw(db)
    conn.execute("DELETE FROM entries WHERE seq = 4")
    conn.close()
    report = verify(db)
    assert (report.valid, report.first_bad) == (False, 4) and "missing" in report.reason


def test_deleted_last_entry_is_detected_by_the_head(db):
    conn = raw(db)
    conn.execute("DELETE FROM entries WHERE seq = 6")
    conn.close()
    report = verify(db)
    assert (report.valid, report.first_bad) == (False, 6) and "removed" in report.reason
    with Ledger(db) as ledger, pytest.raises(LedgerError, match="refusing to append"):
        ledger.append({"kind": "note"})


def test_reordered_entries_are_detected(db):
    conn = raw(db)
    rows = {seq: row for seq, *row in conn.execute("SELECT * FROM entries WHERE seq IN (2, 3)")}
    for seq, other in ((2, 3), (3, 2)):
        conn.execute("UPDATE entries SET prev_hash = ?, entry_hash = ?, record = ? WHERE seq = ?",
                     (*rows[other], seq))
    conn.close()
    report = verify(db)
    assert (report.valid, report.first_bad) == (False, 2) and "reordered" in report.reason


def test_inserted_entry_is_detected(db):
    conn = raw(db)
    for seq in range(6, 2, -1):
        conn.execute("UPDATE entries SET seq = seq + 1 WHERE seq = ?", (seq,))
    (prev,) = conn.execute("SELECT entry_hash FROM entries WHERE seq = 2").fetchone()
    text = canonical_json({"seq": 3, "prev": prev, "time": "t", "body": {"kind": "note"}})
    conn.execute("INSERT INTO entries VALUES (3, ?, ?, ?)", (prev, sha256_hex(text),
                                                             text.decode()))
    conn.close()
    report = verify(db)
    assert (report.valid, report.first_bad) == (False, 4)


def test_forged_commit_with_a_recomputed_chain_is_caught_by_the_rule(db):
    def promote(records):
        body = records[2]["body"]
        body.update(outcome="committed", action="commit",
                    reexecution={"value_hash": GOOD, "snapshot_hash": GOOD, "detail": ""})
    rewrite_chain(db, promote)
    report = verify(db)
    assert (report.valid, report.first_bad) == (False, 3) and "evidence" in report.reason


def test_forged_vote_with_a_recomputed_chain_is_caught_by_the_signature(db):
    def swap_value(records):
        body = records[1]["body"]
        for vote in body["votes"]:
            vote["value_hash"] = BAD
        body["value_hash"], body["tally"] = BAD, [[BAD, 3]]
    rewrite_chain(db, swap_value)
    report = verify(db)
    assert (report.valid, report.first_bad) == (False, 2) and "signature" in report.reason


def test_consistent_rewrite_is_caught_only_by_a_published_head(db):
    published = verify(db).head_hash

    def drop_last(records):
        del records[-1]
    rewrite_chain(db, drop_last)
    assert verify(db).valid, "a full rewrite is consistent; only an external anchor shows it"
    report = verify(db, expect_head=published)
    assert not report.valid and "not in the chain" in report.reason


def test_replay_smuggled_into_a_recomputed_chain_is_caught(db):
    def replay(records):
        body = json.loads(json.dumps(records[1]["body"]))
        records.append({"seq": 0, "prev": "", "time": "t", "body": body})
    rewrite_chain(db, replay)
    report = verify(db)
    assert (report.valid, report.first_bad) == (False, 7) and "replay" in report.reason


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


# -- SIGKILL in the middle of a commit ------------------------------------------------------------

CHILD = textwrap.dedent('''
    import sys, time
    from protocol_runner.commit import (AgentRecord, CommitGate, Infrastructure, Reexecution,
        Registry, evidence_hash, keyring_from_seed, public_key_hex, sign_vote, value_hash)
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

    keys = keyring_from_seed("abcd", 0)
    reg = Registry(tuple(AgentRecord(a, public_key_hex(keys[a].public_key()),
                                     Infrastructure("ck-" + a, "lin-" + a)) for a in "abcd"))
    good = value_hash("good")
    rerun = lambda pid: Reexecution(good, evidence_hash(["snap " + pid]))
    ledger = Holding(path)
    gate = CommitGate(reg, 1, rerun, reexecutor=Infrastructure("ck-r", "lin-r"), ledger=ledger)
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
    with Ledger(path) as ledger:
        entry = ledger.append({"kind": "note", "text": "after the crash"})
    assert entry.seq == expected + 1 and verify(path).valid


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
def test_sigkill_at_an_arbitrary_moment_leaves_a_valid_ledger(tmp_path, delay):
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
    report = verify(tmp_path / "l.db")
    assert report.valid and report.entries >= done
