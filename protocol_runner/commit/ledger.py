"""An append-only, hash-chained, signed SQLite ledger of commit decisions.

Every entry is canonical JSON ``{"seq", "prev", "time", "body", "signer", "signature"}``; its
hash is SHA-256 of those bytes, and ``prev`` is the hash of the entry before it (64 zeros for
the first), so editing, deleting, reordering or inserting an entry breaks the chain from that
entry on (a hash chain, as in Haber & Stornetta, "How to time-stamp a digital document",
J. Cryptology 3(2), 1991). ``signature`` is the Ed25519 signature of ``signer`` (the gate, or
the reviewer for a human resolution) over the rest of the record, chain position included, so
re-hashing an edited chain is not enough: every rewritten entry needs its signer's key. A
``meta`` row holds the head (last sequence number and hash), written in the same transaction as
the entry, so cutting entries off the end is detected too. :mod:`protocol_runner.commit.audit`
checks a ledger file.

The database runs in WAL mode with ``synchronous=FULL``; each append is one ``BEGIN IMMEDIATE``
transaction, so a process killed at any point leaves either the old or the new state, and is
followed by a full checkpoint, so the main file holds every appended entry when
:meth:`Ledger.append` returns: deleting the ``-wal`` file after a crash loses nothing that was
acknowledged, with one exception: a process killed inside a checkpoint leaves the main file
half-copied, and only the ``-wal`` file can repair it (SQLite replays it on the next open). With
the ``-wal`` file deleted as well, the file no longer opens as a ledger, and reading it fails
with one line that asks for the ``-wal`` file back; no SQLite journal mode makes a file
rewritten in place safe to read without its journal.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol_runner.commit.canonical import canonical_json, sha256_hex
from protocol_runner.commit.enrolment import Enrolment
from protocol_runner.commit.outcomes import Decision
from protocol_runner.commit.signing import ENTRY, public_key_hex, sign
from protocol_runner.commit.votes import Vote
from robustgraph.errors import RobustgraphError

__all__ = ["FORMAT", "GENESIS", "Ledger", "LedgerEntry", "LedgerError", "connect_ro",
           "read_entries", "record_bytes", "signed_part"]

FORMAT = "robustgraph-ledger/2"
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
    """One chained entry: position, link to the previous hash, own hash, time, body, signer."""

    seq: int
    prev_hash: str
    entry_hash: str
    time: str
    body: dict[str, Any]
    signer: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "prev_hash": self.prev_hash, "entry_hash": self.entry_hash,
                "time": self.time, "signer": self.signer, "body": self.body}


def signed_part(seq: int, prev: str, time: str, body: Mapping[str, Any],
                signer: str) -> dict[str, Any]:
    """What an entry's signature covers: everything in the record but the signature."""
    return {"seq": seq, "prev": prev, "time": time, "body": body, "signer": signer}


def record_bytes(seq: int, prev: str, time: str, body: Mapping[str, Any], signer: str,
                 signature: str) -> bytes:
    """The stored record of an entry (canonical JSON), whose SHA-256 is the entry's hash."""
    return canonical_json({**signed_part(seq, prev, time, body, signer), "signature": signature})


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
    rows = conn.execute("SELECT seq, prev_hash, entry_hash, CAST(record AS BLOB) FROM entries "
                        "ORDER BY seq")
    for seq, prev, digest, record in rows:
        try:
            data = json.loads(record.decode("utf-8", errors="replace"))
        except ValueError:
            data = {}
        if not isinstance(data, dict):
            data = {}
        body = data.get("body")
        yield LedgerEntry(seq, prev, digest, str(data.get("time", "")),
                          body if isinstance(body, dict) else {}, str(data.get("signer", "")))


def connect_ro(path: Path) -> sqlite3.Connection:
    """A read-only connection to a robustgraph ledger.

    Raises
    ------
    LedgerError
        If the file is missing, not SQLite or not a robustgraph ledger of this format.
    """
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
    """All entries of a ledger file, read-only and unchecked (``ledger verify`` checks them).

    Raises
    ------
    LedgerError
        If the file is missing, not SQLite or not a robustgraph ledger.
    """
    conn = connect_ro(Path(path))
    try:
        return list(_rows(conn))
    except sqlite3.DatabaseError as exc:
        raise LedgerError(f"{path}: cannot read ({exc})") from exc
    finally:
        conn.close()


def _read_format(conn: sqlite3.Connection, path: Path) -> None:
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not tables:
            raise LedgerError(f"{path}: not a robustgraph ledger (an empty database; if a run "
                              f"was killed, its -wal file may have been deleted)")
        row = conn.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        check = conn.execute("PRAGMA quick_check(1)").fetchone()[0]
        if check != "ok":
            raise sqlite3.DatabaseError(f"damaged: {check}")
    except sqlite3.DatabaseError as exc:
        raise LedgerError(f"{path}: not a readable robustgraph ledger ({exc}); if a run was "
                          f"killed while writing it, restore its -wal file") from exc
    if row is not None and row[0] == "robustgraph-ledger/1":
        raise LedgerError(f"{path}: a ledger of format robustgraph-ledger/1 (unsigned decisions, "
                          f"keys derived from the seed), which this version does not accept; "
                          f"start a new ledger")
    if row is None or row[0] != FORMAT:
        raise LedgerError(f"{path}: not a robustgraph ledger (format {row and row[0]!r})")


class Ledger:
    """An open ledger for appending signed entries.

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
    >>> from protocol_runner.commit.audit import verify
    >>> from protocol_runner.commit.keyring import Keyring
    >>> from protocol_runner.commit.registry import AgentRecord, Infrastructure, Registry
    >>> folder = tempfile.mkdtemp()
    >>> ring = Keyring.open(os.path.join(folder, "keyring.json"), ["a"])
    >>> key = public_key_hex(ring.agents["a"].public_key())
    >>> reg = Registry((AgentRecord("a", key, Infrastructure("ck", "lin")),))
    >>> with Ledger(os.path.join(folder, "l.db")) as ledger:
    ...     entry = ledger.record_registry(
    ...         Enrolment.create(reg, 0, Infrastructure("ck-r", "lin-r"), ring), ring.gate)
    >>> entry.seq, verify(os.path.join(folder, "l.db")).valid
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
        self._checkpoint()

    def _checkpoint(self) -> None:
        """Copy the WAL into the main file and sync it, so the main file alone is complete.

        ``PRAGMA wal_checkpoint(FULL)`` waits (up to the busy timeout) for other writers and for
        readers of older snapshots; if it still cannot copy every frame, the entry is committed
        (in the WAL) but the main file lags, and the append fails loudly rather than let the
        caller act on a decision that deleting the ``-wal`` file would lose.
        """
        busy, log, done = self._conn.execute("PRAGMA wal_checkpoint(FULL)").fetchone()
        if busy or log != done:
            raise LedgerError(f"{self.path}: the write is committed in the WAL but could not "
                              f"be checkpointed into the main file ({done} of {log} frames; "
                              f"another process holds the ledger); do not delete "
                              f"{self.path.name}-wal")

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

    def append(self, body: Mapping[str, Any], *, signer: str,
               key: Ed25519PrivateKey) -> LedgerEntry:
        """Append one signed entry atomically and return it.

        Parameters
        ----------
        body : mapping
            JSON-compatible content; ``body["kind"]`` names the entry type.
        signer : {"gate", "reviewer"}
            Whose key signs the entry (``ledger verify`` checks it against the registry).
        key : Ed25519PrivateKey
            That signer's private key.

        Raises
        ------
        LedgerError
            If the stored head does not match the last entry (the ledger was tampered with or
            damaged: run ``robustgraph ledger verify``), SQLite refuses the write, or the write
            cannot be checkpointed into the main file.
        ParameterError
            If ``body`` is not JSON-compatible.

        Notes
        -----
        One signature, one fsync'd transaction and one checkpoint (a second fsync): about
        16 ms on the development machine, against 4 ms without the checkpoint.
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
            signature = sign(key, ENTRY, signed_part(seq + 1, prev, time, body, signer))
            record = record_bytes(seq + 1, prev, time, body, signer, signature)
            entry = LedgerEntry(seq + 1, prev, sha256_hex(record), time, body, signer)
            self._insert(conn, entry, record)
            self._set_head(conn, entry)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        self._checkpoint()
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

    def _latest_registry(self) -> dict[str, Any] | None:
        row = self._conn.execute(
            "SELECT record FROM entries WHERE json_extract(record, '$.body.kind') = 'registry' "
            "ORDER BY seq DESC LIMIT 1").fetchone()
        return None if row is None else json.loads(row[0])["body"]

    def record_registry(self, enrolment: Enrolment,
                        gate_key: Ed25519PrivateKey) -> LedgerEntry | None:
        """Record an enrolment, unless the latest registry entry is identical.

        Returns the new entry, or None when nothing had to be written.

        Raises
        ------
        LedgerError
            If the ledger's registry in force names another gate key: the ledger belongs to
            another keyring, and a registry of new keys appended by anyone but that gate would
            not verify.
        """
        if public_key_hex(gate_key.public_key()) != enrolment.gate:
            raise LedgerError("the gate key does not match the enrolment")
        body = enrolment.to_body()
        latest = self._latest_registry()
        if latest is not None and latest == json.loads(canonical_json(body)):
            return None
        if latest is not None and latest.get("signers", {}).get("gate") != enrolment.gate:
            theirs = str(latest.get("signers", {}).get("gate"))[:16]
            raise LedgerError(f"{self.path} was started with other keys (gate key {theirs}...); "
                              f"pass the keyring it was started with (--keyring) or choose "
                              f"another ledger")
        return self.append(body, signer="gate", key=gate_key)

    def record_decision(self, decision: Decision, enrolment: Enrolment,
                        gate_key: Ed25519PrivateKey, *,
                        context: Mapping[str, Any] | None = None) -> LedgerEntry:
        """Append a decision (commit, escalation, abort or refusal), signed by the gate.

        ``context`` (:meth:`~protocol_runner.commit.gate.CommitGate.decide`) is recorded with it.
        """
        body: dict[str, Any] = {"kind": "decision", "registry_hash": enrolment.digest,
                                **decision.to_json()}
        if context is not None:
            body["context"] = dict(context)
        return self.append(body, signer="gate", key=gate_key)

    # -- reading ---------------------------------------------------------------------------

    def entries(self) -> Iterator[LedgerEntry]:
        """All entries in order (as stored; use ``ledger verify`` to check them)."""
        yield from _rows(self._conn)

    def vote_digests(self) -> set[str]:
        """Digests of every vote counted by a gate decision so far (for replay detection)."""
        digests: set[str] = set()
        for entry in self.entries():
            if entry.body.get("kind") == "decision" and entry.body.get("rule") == "gate":
                digests.update(Vote.from_json(v).digest for v in entry.body.get("votes", ()))
        return digests
