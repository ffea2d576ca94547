"""The ``robustgraph`` command line: one group, subcommands loaded lazily from their modules.

Conventions (DESIGN.md): ``--json`` prints machine-readable output on stdout, progress and logs
go to stderr; exit codes are 0 ok/certified, 1 checked and not satisfied, 2 usage or input error.
Any ``RobustgraphError`` reaches the user as one line on stderr, never a traceback.
"""

from __future__ import annotations

import importlib
import json
import os
import signal
import sys
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import click

from robustgraph import __version__
from robustgraph.errors import ParameterError, RobustgraphError

__all__ = ["main", "emit", "fail", "warn", "span", "check_output", "json_option"]

# name -> "module:attribute"; a module is imported only when its command runs or --help lists it.
COMMANDS: dict[str, tuple[str, str]] = {
    "info": (
        "robustgraph.cli_graph:info",
        "Describe a graph file: size, degrees, connectivity, hash.",
    ),
    "convert": (
        "robustgraph.cli_graph:convert",
        "Convert a graph file from one format to another.",
    ),
    "generate": ("robustgraph.cli_generate:generate", "Generate a robust communication graph."),
    "certify": ("robustgraph.cli_certify:certify_command", "Prove claims; write a certificate."),
    "verify": ("robustgraph.cli_certify:verify_command", "Re-check a certificate."),
    "robustness": (
        "robustgraph.cli_robustness:robustness",
        "Exact r*, s*, bounds, tolerated F, witness.",
    ),
    "ledger": ("protocol_runner.cli_ledger:ledger", "Verify or show a commit-gate ledger."),
    "serve-sim": ("protocol_runner.cli_serve:serve_sim", "Serve simulated agents over HTTP."),
    "run": ("protocol_runner.cli_run:run_command", "Run SAC and baselines on a certified graph."),
    "report": ("protocol_runner.cli_report:report_command", "Summarise a run: metrics and plots."),
    "sweep": ("protocol_runner.cli_sweep:sweep_command", "Run a grid of runs, locally or on Ray."),
    "design": ("robustgraph.cli_design:design", "Design a sparse certified r-robust graph."),
    "augment": ("robustgraph.cli_design:augment", "Add the fewest edges to make a graph r-robust."),
}


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use, with one-line error handling."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        target, _ = COMMANDS[name]
        module_name, attribute = target.split(":")
        return getattr(importlib.import_module(module_name), attribute)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][1]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except RobustgraphError as exc:
            fail(str(exc), exc.exit_code)
        except click.exceptions.NoArgsIsHelpError as exc:  # 'robustgraph ledger' alone: its help
            exc.show()
            sys.exit(exc.exit_code)
        except click.UsageError as exc:  # a subcommand's bad option: one line too, not the usage
            hint = f" (try '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
            fail(exc.format_message() + hint, exc.exit_code)
        except BrokenPipeError:  # stdout's reader went away ('| head'): stop quietly, as on SIGPIPE
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no flush error at exit
            sys.exit(141)
        except OSError as exc:  # a path the user gave: missing, a directory, read-only, disk full
            fail(f"{exc.filename}: {exc.strerror}" if exc.filename else str(exc), 2)
        except KeyboardInterrupt:
            _ignore_further_interrupts()
            fail("interrupted", 130)


def _ignore_further_interrupts() -> None:
    """Let the exit after a Ctrl-C finish: a second SIGINT (a second Ctrl-C, or ``timeout -s INT``,
    which signals the process and then its group) landing in the exit handlers that join worker
    processes and threads printed a traceback after the one error line."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def fail(message: str, code: int = 2) -> None:
    """Print ``robustgraph: error: <message>`` on stderr (one line) and exit with ``code``."""
    one_line = " ".join(str(message).split())
    click.echo(f"robustgraph: error: {one_line}", err=True)
    sys.exit(code)


def warn(message: str) -> None:
    """Print ``robustgraph: warning: <message>`` on stderr (one line); the command goes on."""
    click.echo(f"robustgraph: warning: {' '.join(str(message).split())}", err=True)


def span(lo: int, hi: int) -> str:
    """Proven bounds as text: ``"3"`` when they meet, else ``"2..4"``."""
    return str(lo) if lo == hi else f"{lo}..{hi}"


def check_output(
    path: str | Path,
    *,
    graph: bool = False,
    format: str | None = None,
    keep: Mapping[str, str | Path | None] | None = None,
) -> None:
    """Refuse an output path that cannot be written before any work is done (exit 2).

    A certificate or a designed graph can take minutes or hours to compute; a path in a missing
    directory, or one naming a directory, would only fail when the result is written and the
    work would be lost. With ``graph``, the path must also name a known graph format: its
    extension, or ``format`` (a format name as ``robustgraph.io.read`` takes). ``keep`` names
    the other files of the command (``{"the graph FILE": "g.json"}``); the output must not
    overwrite one of them (``certify g.json -o g.json`` replaced the graph by its certificate).

    Raises
    ------
    ParameterError
        The path is a directory, its parent is not an existing directory, a new file cannot be
        created there, or it is the same file as one in ``keep``.
    GraphFormatError
        With ``graph``: the format cannot be told from the extension or ``format``.
    """
    target = Path(path)
    if target.is_dir():
        raise ParameterError(f"{path}: is a directory; name the file to write")
    if not target.parent.is_dir():
        what = "is not a directory" if target.parent.exists() else "does not exist"
        raise ParameterError(f"{path}: cannot write: directory {target.parent} {what}")
    if not target.exists():  # a read-only directory refuses the file only when it is written
        try:
            target.touch()
            target.unlink()
        except OSError as exc:
            raise ParameterError(f"{path}: cannot write ({exc.strerror})") from None
    for what, other in (keep or {}).items():
        if other is not None and target.resolve() == Path(other).resolve():
            raise ParameterError(f"{path}: is also {what}; writing it would destroy that file")
    if graph:
        from robustgraph import io

        io.resolve_format(target, format)


def json_option(func: Callable[..., Any]) -> Callable[..., Any]:
    """The ``--json`` flag every command takes: machine-readable output on stdout."""
    return click.option(
        "--json", "as_json", is_flag=True, help="Print machine-readable JSON on stdout."
    )(func)


def threads_option(func: Callable[..., Any]) -> Callable[..., Any]:
    """The ``--threads`` option of the solving commands (``certify``, ``robustness``)."""
    return click.option(
        "--threads",
        type=int,
        default=1,
        show_default=True,
        help="Solver threads; 2 or more: the portfolio races CP-SAT and HiGHS on two cores.",
    )(func)


def emit(data: Any, as_json: bool, render: Callable[[], None]) -> None:
    """Print ``data`` as JSON when ``as_json``, else call ``render`` for human output."""
    if as_json:
        click.echo(json.dumps(data, indent=2, sort_keys=False, default=str))
    else:
        render()


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="robustgraph")
def main() -> None:
    """robustgraph: design, certify and run Byzantine-robust communication graphs.

    \b
    A group of agents that reach consensus with an MSR-style rule (SAC, W-MSR) tolerates F
    Byzantine neighbours only if its communication graph is robust enough:
      - SAC needs (F+1)-robustness (F-local model),
      - W-MSR needs (2F+1)-robustness (F-local) or (F+1, F+1)-robustness (F-total).

    \b
    Typical use:
      robustgraph generate merg --n 7 -o g.json     # build a graph
      robustgraph info g.json                       # look at it
    Run 'robustgraph COMMAND --help' for each command's options.
    """
