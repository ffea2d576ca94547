"""The ``robustgraph ledger`` command group: verify and show a commit-gate ledger.

``ledger verify DB`` exits 0 when the hash chain, the head and every recorded decision check out,
1 when the ledger is invalid (the first bad entry and the reason on stderr), and 2 when the file
is missing, not SQLite or not a robustgraph ledger.
"""

from __future__ import annotations

import sys

import click

from protocol_runner.commit.ledger import read_entries, verify
from robustgraph.cli.common import emit, json_option

__all__ = ["ledger"]


@click.group("ledger")
def ledger() -> None:
    """Inspect the tamper-evident ledger written by the commit gate."""


@ledger.command("verify")
@click.argument("db", type=click.Path(dir_okay=False))
@click.option("--expect-head", metavar="HASH",
              help="A head hash published earlier; the chain must still contain it.")
@json_option
def verify_command(db: str, expect_head: str | None, as_json: bool) -> None:
    """Check DB entry by entry: chain links, hashes, head, signatures and commit rules.

    Exit 0 valid, 1 invalid (the first bad entry and why), 2 not a ledger.
    """
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
            else:
                what = str(body.get("kind"))
            click.echo(f"{entry.seq:>6}  {entry.time}  {entry.entry_hash[:12]}  {what}")
            if reasons:
                for line in body.get("reasons", ()):
                    click.echo(f"{'':>8}- {line}")
        if entries:
            click.echo(f"head {entries[-1].entry_hash} ({len(entries)} entries)")

    emit([e.to_json() for e in shown], as_json, render)
