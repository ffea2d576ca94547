"""An append-only, hash-chained SQLite ledger of commit decisions, and its verifier.

Every entry is canonical JSON ``{"seq", "prev", "time", "body"}``; its hash is SHA-256 of those
bytes, and ``prev`` is the hash of the entry before it (64 zeros for the first), so editing,
deleting, reordering or inserting an entry breaks the chain from that entry on (a Merkle-Damgard
style hash chain, as in Haber & Stornetta, "How to time-stamp a digital document", J. Cryptology
3(2), 1991). A ``meta`` row holds the head (last sequence number and hash), written in the same
transaction as the entry, so cutting entries off the end is detected too. Decisions carry their
signed votes: :func:`verify` re-checks every signature against the registry snapshot recorded
earlier in the chain, so a forged commit needs the voters' secret keys, not just write access.

The database runs in WAL mode with ``synchronous=FULL``; each append is one ``BEGIN IMMEDIATE``
transaction, so a process killed at any point leaves either the old or the new state.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from protocol_runner.commit.canonical import canonical_json, sha256_hex
from protocol_runner.commit.outcomes import Decision
from protocol_runner.commit.registry import Infrastructure, Registry
from protocol_runner.commit.votes import Vote, validate_votes
from robustgraph.errors import ParameterError, RobustgraphError

__all__ = ["Ledger", "LedgerEntry", "LedgerError", "VerifyReport", "verify", "read_entries",
           "GENESIS"]

FORMAT = "robustgraph-ledger/1"
GENESIS = "0" * 64
_SQLITE_MAGIC = b"SQLite format 3\x00"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entries (
    seq INTEGER PRIMARY KEY,
    prev_hash TEXT NOT NULL,
    entry_hash TEXT NOT NULL,
    record TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS entries_no_update BEFORE UPDATE ON entries
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;
CREATE TRIGGER IF NOT EXISTS entries_no_delete BEFORE DELETE ON entries
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;
"""


class LedgerError(RobustgraphError):
    """A ledger file is missing, not SQLite, not a robustgraph ledger, or refuses an append."""


@dataclass(frozen=True)
class LedgerEntry:
    """One chained entry: position, link to the previous hash, own hash, time and body."""

    seq: int
    prev_hash: str
    entry_hash: str
    time: str
    body: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "prev_hash": self.prev_hash, "entry_hash": self.entry_hash,
                "time": self.time, "body": self.body}


def _record_bytes(seq: int, prev: str, time: str, body: Mapping[str, Any]) -> bytes:
    return canonical_json({"seq": seq, "prev": prev, "time": time, "body": body})


def _check_file(path: Path) -> None:
    if not path.exists():
        raise LedgerError(f"{path}: no such ledger file")
    if not path.is_file():
        raise LedgerError(f"{path}: not a file")
    with path.open("rb") as handle:
        magic = handle.read(len(_SQLITE_MAGIC))
    if magic and magic != _SQLITE_MAGIC:
        raise LedgerError(f"{path}: not an SQLite database")


def _rows(conn: sqlite3.Connection) -> Iterator[LedgerEntry]:
    rows = conn.execute("SELECT seq, prev_hash, entry_hash, record FROM entries ORDER BY seq")
    for seq, prev, digest, record in rows:
        try:
            data = json.loads(record)
        except ValueError:
            data = {}
        yield LedgerEntry(seq, prev, digest, data.get("time", ""), data.get("body", {}))


def _connect_ro(path: Path) -> sqlite3.Connection:
    _check_file(path)
    try:
        conn = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
    except sqlite3.DatabaseError as exc:
        raise LedgerError(f"{path}: cannot open ({exc})") from exc
    try:
        _read_format(conn, path)
    except BaseException:
        conn.close()
        raise
    return conn


def read_entries(path: str | Path) -> list[LedgerEntry]:
    """All entries of a ledger file, read-only and unchecked (use :func:`verify` to check).

    Raises
    ------
    LedgerError
        If the file is missing, not SQLite or not a robustgraph ledger.
    """
    conn = _connect_ro(Path(path))
    try:
        return list(_rows(conn))
    except sqlite3.DatabaseError as exc:
        raise LedgerError(f"{path}: cannot read ({exc})") from exc
    finally:
        conn.close()


def _read_format(conn: sqlite3.Connection, path: Path) -> None:
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
    except sqlite3.DatabaseError as exc:
        raise LedgerError(f"{path}: not a robustgraph ledger ({exc})") from exc
    if row is None or row[0] != FORMAT:
        raise LedgerError(f"{path}: not a robustgraph ledger (format {row and row[0]!r})")


class Ledger:
    """An open ledger for appending decisions.

    Parameters
    ----------
    path : str or Path
        The SQLite file; created (with the schema) when missing.

    Raises
    ------
    LedgerError
        If the file exists but is not a robustgraph ledger.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "l.db")
    >>> with Ledger(path) as ledger:
    ...     entry = ledger.append({"kind": "note", "text": "hello"})
    >>> entry.seq, verify(path).valid
    (1, True)
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if self.path.exists():
            _check_file(self.path)
        try:
            self._conn = sqlite3.connect(self.path, isolation_level=None, timeout=30.0)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=FULL")
            self._initialise()
        except sqlite3.DatabaseError as exc:
            raise LedgerError(f"{self.path}: cannot open ledger ({exc})") from exc

    def _initialise(self) -> None:
        conn = self._conn
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if tables and "meta" not in tables:
            raise LedgerError(f"{self.path}: not a robustgraph ledger (no meta table)")
        if tables:
            _read_format(conn, self.path)
            return
        meta = (f"INSERT OR IGNORE INTO meta (key, value) VALUES ('format', '{FORMAT}'), "
                f"('head_seq', '0'), ('head_hash', '{GENESIS}');")
        try:
            conn.executescript("BEGIN IMMEDIATE;" + _SCHEMA + meta + "COMMIT;")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    def close(self) -> None:
        """Close, leaving the file in rollback-journal mode when no one else has it open.

        A file left in WAL mode makes every later read-only open (``ledger show``/``verify``)
        create ``-wal`` and ``-shm`` files that a read-only connection cannot remove; switching
        back needs exclusive access, so with other connections open the file stays in WAL mode
        (the next writer switches it back on close).
        """
        try:
            self._conn.execute("PRAGMA journal_mode=DELETE")
        except sqlite3.OperationalError:  # another connection holds the database
            pass
        self._conn.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- appending -------------------------------------------------------------------------

    def append(self, body: Mapping[str, Any]) -> LedgerEntry:
        """Append one entry atomically and return it.

        Parameters
        ----------
        body : mapping
            JSON-compatible content; ``body["kind"]`` names the entry type.

        Raises
        ------
        LedgerError
            If the stored head does not match the last entry (the ledger was tampered with or
            damaged: run :func:`verify`), or SQLite refuses the write.
        ParameterError
            If ``body`` is not JSON-compatible.
        """
        body = json.loads(canonical_json(dict(body)))
        conn = self._conn
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise LedgerError(f"{self.path}: cannot lock the ledger for writing ({exc})") from exc
        try:
            seq, prev = self._head(conn)
            time = datetime.now(UTC).isoformat(timespec="microseconds")
            record = _record_bytes(seq + 1, prev, time, body)
            entry = LedgerEntry(seq + 1, prev, sha256_hex(record), time, body)
            self._insert(conn, entry, record)
            self._set_head(conn, entry)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return entry

    def _head(self, conn: sqlite3.Connection) -> tuple[int, str]:
        meta = dict(conn.execute("SELECT key, value FROM meta"))
        seq, head = int(meta["head_seq"]), meta["head_hash"]
        last = conn.execute("SELECT seq, entry_hash FROM entries ORDER BY seq DESC LIMIT 1")
        row = last.fetchone() or (0, GENESIS)
        if (row[0], row[1]) != (seq, head):
            raise LedgerError(f"{self.path}: head says entry {seq} but the last entry is "
                              f"{row[0]}; refusing to append (run 'robustgraph ledger verify')")
        return seq, head

    def _insert(self, conn: sqlite3.Connection, entry: LedgerEntry, record: bytes) -> None:
        conn.execute("INSERT INTO entries (seq, prev_hash, entry_hash, record) VALUES (?,?,?,?)",
                     (entry.seq, entry.prev_hash, entry.entry_hash, record.decode("utf-8")))

    def _set_head(self, conn: sqlite3.Connection, entry: LedgerEntry) -> None:
        conn.executemany("UPDATE meta SET value = ? WHERE key = ?",
                         [(str(entry.seq), "head_seq"), (entry.entry_hash, "head_hash")])

    def record_registry(self, registry: Registry, f: int,
                        reexecutor: Infrastructure) -> LedgerEntry | None:
        """Record the voters, f and the re-executor, unless the latest registry entry is identical.

        Returns the new entry, or None when nothing had to be written.
        """
        body = {"kind": "registry", "registry_hash": registry.digest, "f": f,
                "agents": registry.to_json(), "reexecutor": reexecutor.to_json()}
        latest = self._conn.execute(
            "SELECT record FROM entries WHERE json_extract(record, '$.body.kind') = 'registry' "
            "ORDER BY seq DESC LIMIT 1").fetchone()
        if latest is not None and json.loads(latest[0])["body"] == json.loads(canonical_json(body)):
            return None
        return self.append(body)

    def record_decision(self, decision: Decision, registry: Registry) -> LedgerEntry:
        """Append a decision (commit, escalation, abort or refusal) with its votes and reasons."""
        return self.append({"kind": "decision", "registry_hash": registry.digest,
                            **decision.to_json()})

    # -- reading ---------------------------------------------------------------------------

    def entries(self) -> Iterator[LedgerEntry]:
        """All entries in order (as stored; use :func:`verify` to check them)."""
        yield from _rows(self._conn)

    def vote_digests(self) -> set[str]:
        """Digests of every vote counted by a gate decision so far (for replay detection)."""
        digests: set[str] = set()
        for entry in self.entries():
            if entry.body.get("kind") == "decision" and entry.body.get("rule") == "gate":
                digests.update(Vote.from_json(v).digest for v in entry.body.get("votes", ()))
        return digests


@dataclass(frozen=True)
class VerifyReport:
    """What :func:`verify` found.

    ``first_bad`` is the sequence number of the first entry that fails (for a truncated ledger,
    the first missing one), None when the ledger is valid.
    """

    path: str
    valid: bool
    entries: int
    head_hash: str
    first_bad: int | None = None
    reason: str | None = None
    outcomes: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "valid": self.valid, "entries": self.entries,
                "head_hash": self.head_hash, "first_bad": self.first_bad, "reason": self.reason,
                "outcomes": dict(self.outcomes)}


class _Bad(Exception):
    def __init__(self, seq: int, reason: str) -> None:
        super().__init__(reason)
        self.seq = seq
        self.reason = reason


def _check_decision(seq: int, body: Mapping[str, Any], registries: Mapping[str, tuple],
                    counted: dict[str, int]) -> None:
    """Re-check a decision entry against the registry snapshot it names."""
    if body.get("registry_hash") not in registries:
        raise _Bad(seq, "decision names a registry that no earlier entry records")
    registry, f = registries[body["registry_hash"]]
    if body.get("f") != f:
        raise _Bad(seq, f"decision uses f = {body.get('f')} but its registry has f = {f}")
    try:
        votes = [Vote.from_json(v) for v in body["votes"]]
        proposal = body["proposal_id"]
    except (KeyError, TypeError, ParameterError) as exc:
        raise _Bad(seq, f"malformed decision ({exc})") from exc
    checked = validate_votes(votes, registry, proposal, stage=body.get("stage", "initial"))
    if checked.rejected:
        bad = checked.rejected[0]
        raise _Bad(seq, f"recorded vote from {bad.vote.voter!r} is invalid: {bad.detail}")
    tally = Counter(v.value_hash for v in votes)
    if sorted(map(tuple, body.get("tally", ()))) != sorted(tally.items()):
        raise _Bad(seq, "recorded tally does not match the recorded votes")
    if body.get("rule") == "gate":
        for vote in votes:
            if vote.digest in counted:
                raise _Bad(seq, f"vote from {vote.voter!r} was already counted in entry "
                                f"{counted[vote.digest]} (replay)")
            counted[vote.digest] = seq
    if body.get("outcome") != "committed":
        return
    value = body.get("value_hash")
    support = [v for v in votes if v.value_hash == value]
    if len(support) < 2 * f + 1:
        raise _Bad(seq, f"commit backed by {len(support)} signed votes; quorum is {2 * f + 1}")
    if body.get("rule") == "gate":
        evidence = len({v.evidence_hash for v in support})
        units = len({registry.unit_of(v.voter) for v in support})
        rerun = body.get("reexecution") or {}
        if evidence < f + 1 or units < f + 1:
            raise _Bad(seq, f"commit backed by {evidence} evidence hashes and {units} units; "
                            f"the gate needs {f + 1} of each")
        if rerun.get("value_hash") != value:
            raise _Bad(seq, "commit without a matching re-execution")


def _walk(conn: sqlite3.Connection) -> tuple[int, str, Counter]:
    """Check every entry in order; raise ``_Bad`` at the first failure."""
    expected_prev, count = GENESIS, 0
    registries: dict[str, tuple[Registry, int]] = {}
    counted: dict[str, int] = {}
    outcomes: Counter = Counter()
    try:
        rows = conn.execute("SELECT seq, prev_hash, entry_hash, record FROM entries ORDER BY seq")
    except sqlite3.DatabaseError as exc:
        raise _Bad(1, f"entries table unreadable ({exc})") from exc
    for seq, prev, digest, record in rows:
        count += 1
        if seq != count:
            raise _Bad(count, f"entry {count} is missing (the next stored entry is {seq})")
        try:
            data = json.loads(record)
            canonical = _record_bytes(data["seq"], data["prev"], data["time"], data["body"])
        except (ValueError, KeyError, TypeError, ParameterError) as exc:
            raise _Bad(seq, f"entry is not a well-formed record ({exc})") from exc
        if canonical.decode("utf-8") != record:
            raise _Bad(seq, "entry is not in canonical form (edited)")
        if data["seq"] != seq:
            raise _Bad(seq, f"entry stored at {seq} records position {data['seq']} (reordered)")
        if data["prev"] != expected_prev or prev != expected_prev:
            raise _Bad(seq, "link to the previous entry is broken (an entry before it was "
                            "edited, removed, inserted or moved)")
        if sha256_hex(canonical) != digest:
            raise _Bad(seq, "entry hash does not match its content (edited)")
        body = data["body"]
        if body.get("kind") == "registry":
            try:
                registry = Registry.from_json(body["agents"])
            except (KeyError, TypeError, ParameterError) as exc:
                raise _Bad(seq, f"malformed registry ({exc})") from exc
            if registry.digest != body.get("registry_hash"):
                raise _Bad(seq, "registry hash does not match the recorded agents")
            registries[registry.digest] = (registry, body.get("f"))
        elif body.get("kind") == "decision":
            _check_decision(seq, body, registries, counted)
            outcomes[body.get("outcome", "?")] += 1
        expected_prev = digest
    return count, expected_prev, outcomes


def verify(path: str | Path, *, expect_head: str | None = None) -> VerifyReport:
    """Check a ledger file entry by entry and report the first bad entry.

    Parameters
    ----------
    path : str or Path
    expect_head : str, optional
        A head hash published earlier (``ledger show``); the chain must contain it, which
        detects a rewrite of the whole chain and its head by someone with write access.

    Returns
    -------
    VerifyReport

    Raises
    ------
    LedgerError
        If the file is missing, not SQLite, or not a robustgraph ledger (nothing to verify).

    Notes
    -----
    Checks, per entry in order: consecutive sequence numbers (deletion), canonical record bytes
    and hash (edits), the stored position (reordering), the link to the previous hash (edits,
    insertions, removals before it); registry snapshots hash to what they claim; decisions name
    a recorded registry, their votes carry valid signatures under it, no vote is counted twice
    by the gate, and commits satisfy the rule they claim. Finally the head row must match the last
    entry (truncation). O(E + V) hashing and signature checks for E entries and V votes.
    """
    path = Path(path)
    conn = _connect_ro(path)
    try:
        meta = dict(conn.execute("SELECT key, value FROM meta"))
        try:
            count, head, outcomes = _walk(conn)
        except _Bad as bad:
            return VerifyReport(str(path), False, bad.seq - 1, "", bad.seq, bad.reason)
        claimed_seq, claimed_head = meta.get("head_seq"), meta.get("head_hash")
        if (claimed_seq, claimed_head) != (str(count), head):
            return VerifyReport(str(path), False, count, head, count + 1,
                                f"head records {claimed_seq} entries but the chain has {count}: "
                                f"entries were removed from the end or the head was edited")
        if expect_head is not None and expect_head not in _hashes(conn):
            return VerifyReport(str(path), False, count, head, None,
                                f"published head {expect_head[:12]} is not in the chain: "
                                f"history was rewritten or cut")
        return VerifyReport(str(path), True, count, head, outcomes=dict(outcomes))
    except sqlite3.DatabaseError as exc:
        raise LedgerError(f"{path}: cannot read ({exc})") from exc
    finally:
        conn.close()


def _hashes(conn: sqlite3.Connection) -> set[str]:
    return {row[0] for row in conn.execute("SELECT entry_hash FROM entries")}
