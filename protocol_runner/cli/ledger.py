"""The ``robustgraph ledger`` command group: verify, show, and act on a commit-gate ledger.

``ledger verify DB`` exits 0 when the hash chain, the head, every signature and every recorded
decision check out, 1 when the ledger is invalid (the first bad entry and the reason on
stderr), and 2 when the file is missing, not SQLite or not a robustgraph ledger. ``ledger
pending DB`` lists the decisions escalated to a human; ``ledger resolve DB ENTRY --commit |
--abort --reason TEXT`` appends the reviewer's signed decision on one of them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from protocol_runner.cli.choices import KEYRING_FILE
from robustgraph.cli.common import emit, json_option

__all__ = ["ledger"]

# protocol_runner.commit imports numpy and cryptography: each subcommand imports what it uses
# when it runs, so that --help stays light (issue 33).


@click.group("ledger")
def ledger() -> None:
    """Inspect the tamper-evident ledger written by the commit gate, and resolve escalations."""


@ledger.command("verify")
@click.argument("db", type=click.Path(dir_okay=False))
@click.option("--expect-head", metavar="HASH",
              help="A head hash published earlier; the chain must still contain it.")
@json_option
def verify_command(db: str, expect_head: str | None, as_json: bool) -> None:
    """Check DB entry by entry: chain links, hashes, head, signatures, decisions re-derived.

    Exit 0 valid, 1 invalid (the first bad entry and why), 2 not a ledger.
    """
    from protocol_runner.commit.audit import verify

    report = verify(db, expect_head=expect_head)

    def render() -> None:
        if report.valid:
            counts = ", ".join(f"{k} {v}" for k, v in sorted(report.outcomes.items())) or "none"
            click.echo(f"{db}: valid, {report.entries} entries, head {report.head_hash}")
            click.echo(f"decisions: {counts}")

    emit(report.to_json(), as_json, render)
    if not report.valid:
        where = f" at entry {report.first_bad}" if report.first_bad is not None else ""
        click.echo(f"robustgraph: ledger {db} is INVALID{where}: {report.reason}", err=True)
        sys.exit(1)


@ledger.command("show")
@click.argument("db", type=click.Path(dir_okay=False))
@click.option("--limit", type=click.IntRange(min=1), default=None,
              help="Show only the last N entries.")
@click.option("--reasons", is_flag=True, help="Print each decision's reasons.")
@json_option
def show_command(db: str, limit: int | None, reasons: bool, as_json: bool) -> None:
    """List DB's entries (unchecked; run 'ledger verify' to check them)."""
    from protocol_runner.commit.ledger import read_entries

    entries = read_entries(db)
    shown = entries[-limit:] if limit else entries

    def render() -> None:
        for entry in shown:
            body = entry.body
            if body.get("kind") == "decision":
                what = (f"{body.get('rule')}/{body.get('stage')} {body.get('proposal_id')}: "
                        f"{body.get('outcome')} -> {body.get('action')}")
            elif body.get("kind") == "registry":
                what = f"registry of {len(body.get('agents', []))} agents, f = {body.get('f')}"
            elif body.get("kind") == "resolution":
                what = (f"resolution of entry {body.get('decision')} ({body.get('proposal_id')}) "
                        f"by the reviewer: {body.get('action')}")
            else:
                what = str(body.get("kind"))
            click.echo(f"{entry.seq:>6}  {entry.time}  {entry.entry_hash[:12]}  {what}")
            if reasons:
                lines = [body["reason"]] if body.get("kind") == "resolution" else \
                    body.get("reasons", ())
                for line in lines:
                    click.echo(f"{'':>8}- {line}")
        if entries:
            click.echo(f"head {entries[-1].entry_hash} ({len(entries)} entries)")

    emit([e.to_json() for e in shown], as_json, render)


def _quote(text: str | None) -> str:
    return "(text not recorded)" if text is None else repr(text)


@ledger.command("pending")
@click.argument("db", type=click.Path(dir_okay=False))
@json_option
def pending_command(db: str, as_json: bool) -> None:
    """List DB's decisions escalated to a human and not yet resolved, with votes and evidence.

    DB is verified first; an invalid ledger is refused (exit 2).
    """
    from protocol_runner.commit.escalations import pending

    open_items = pending(db)

    def render() -> None:
        for item in open_items:
            click.echo(f"entry {item['entry']}  {item['proposal_id']} ({item['stage']} round): "
                       f"escalated to a human")
            agree = f"{len(item['support'])} of {len(item['votes'])} votes agree"
            click.echo(f"  value at stake: {_quote(item['value'])} ({item['value_hash'][:12]}); "
                       f"{agree}, {item['evidence']} evidence hashes, {item['units']} "
                       f"independence units")
            for vote in item["votes"]:
                evidence = "; ".join(vote["evidence"] or ["(items not recorded)"])
                click.echo(f"  - {vote['voter']} (unit {', '.join(vote['unit'])}): "
                           f"{_quote(vote['value'])}, evidence: {evidence}")
            for line in item["reasons"]:
                click.echo(f"    {line}")
        click.echo(f"{len(open_items)} pending"
                   + (f"; resolve one with: robustgraph ledger resolve {db} ENTRY "
                      f"--commit|--abort --reason TEXT" if open_items else ""))

    emit(open_items, as_json, render)


@ledger.command("resolve")
@click.argument("db", type=click.Path(dir_okay=False))
@click.argument("entry", type=click.IntRange(min=1))
@click.option("--commit", "action", flag_value="commit", help="Commit the escalated value.")
@click.option("--abort", "action", flag_value="abort", help="Refuse the escalated value.")
@click.option("--reason", required=True, help="Why, in your words (recorded and signed).")
@click.option("--keyring", "keyring_path", type=click.Path(dir_okay=False), default=None,
              help=f"The run's keyring, holding the reviewer key (default: {KEYRING_FILE} "
                   f"beside DB).")
@json_option
def resolve_command(db: str, entry: int, action: str | None, reason: str,
                    keyring_path: str | None, as_json: bool) -> None:
    """Append the reviewer's signed decision on escalated decision ENTRY of DB."""
    from protocol_runner.commit.escalations import resolve
    from protocol_runner.commit.keyring import Keyring, KeyringError

    if action is None:
        raise click.UsageError("give --commit or --abort")
    path = Path(keyring_path) if keyring_path else Path(db).with_name(KEYRING_FILE)
    if not path.is_file():
        raise KeyringError(f"{path}: no keyring there; pass the keyring the run used "
                           f"(--keyring PATH)")
    added = resolve(db, entry, action, reason, Keyring.open(path))  # type: ignore[arg-type]

    def render() -> None:
        click.echo(f"{db}: entry {added.seq} records the reviewer's {action} of entry {entry} "
                   f"(head {added.entry_hash})")

    emit(added.to_json(), as_json, render)
