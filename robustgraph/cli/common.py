"""Helpers every command shares: one-line errors and warnings, output checks, common options.

Conventions (DESIGN.md): ``--json`` prints machine-readable output on stdout, progress and logs
go to stderr; exit codes are 0 ok/certified, 1 checked and not satisfied, 2 usage or input error.
"""

from __future__ import annotations

import json
import signal
import sys
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import click

from robustgraph import limits
from robustgraph.errors import ParameterError
from solvers.deadline import Deadline

__all__ = [
    "STARTED",
    "cap_at_cores",
    "check_output",
    "command_deadline",
    "emit",
    "fail",
    "ignore_further_interrupts",
    "json_option",
    "span",
    "threads_option",
    "warn",
]

STARTED = "robustgraph.started"
"""Key of ``click.Context.meta``: the ``time.perf_counter()`` reading from which ``--time-limit``
deadlines count, set by the group: the process start under the ``robustgraph`` program
(:func:`robustgraph.cli.main.run`), else the moment the group was invoked."""


def command_deadline(seconds: float | None) -> Deadline:
    """The deadline of a command's ``--time-limit``: ``seconds`` after :data:`STARTED`, less the
    exit margin (:meth:`solvers.deadline.Deadline.for_command`)."""
    return Deadline.for_command(seconds, since=click.get_current_context().meta.get(STARTED))


def ignore_further_interrupts() -> None:
    """Let the exit after a Ctrl-C finish: a second SIGINT (a second Ctrl-C, or ``timeout -s INT``,
    which signals the process and then its group) landing in the exit handlers that join worker
    processes and threads printed a traceback after the one error line."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def fail(message: str, code: int = 2) -> None:
    """Print ``robustgraph: error: <message>`` on stderr (one line) and exit with ``code``.

    The line is cut at :data:`robustgraph.limits.MAX_MESSAGE` characters: the last guard
    against a message quoting a huge user value."""
    one_line = limits.clip(" ".join(str(message).split()), limits.MAX_MESSAGE)
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
        The path is empty or a directory, its parent is not an existing directory, a new file
        cannot be created there, or it is the same file as one in ``keep``.
    GraphFormatError
        With ``graph``: the format cannot be told from the extension or ``format``.
    """
    if not str(path):
        raise ParameterError("the output path is empty; name the file to write")
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


def cap_at_cores(ctx: click.Context, param: click.Parameter, value: int | None) -> int | None:
    """Click callback: a thread or worker count above this machine's cores becomes the number
    of cores, with a warning. (``--threads 100000`` made HiGHS start 100,000 threads; it ran
    past its time limit and aborted.) Counts below 1 are left to the command to refuse."""
    if value is None:
        return value
    cores = limits.cores()
    if value > cores:
        warn(f"--{param.name} {value:,} is more than the {cores} CPU cores here; using {cores}")
        return cores
    return value


DEFAULT_THREADS = 2
"""``--threads`` when not given: this many, or the cores if fewer. Two: the portfolio runs the
published model on CP-SAT on the second core beside its own sequence (``solvers.lane``), which
keeps it from being slower than the published MILP (docs/performance.md, issue 32)."""


def _threads(ctx: click.Context, param: click.Parameter, value: int | None) -> int | None:
    """Click callback of ``--threads``: not given, :data:`DEFAULT_THREADS` or the cores if
    fewer; given, capped at the cores (:func:`cap_at_cores`)."""
    if value is None:
        return min(DEFAULT_THREADS, limits.cores())
    return cap_at_cores(ctx, param, value)


def threads_option(func: Callable[..., Any]) -> Callable[..., Any]:
    """The ``--threads`` option of the solving commands (``certify``, ``robustness``)."""
    return click.option(
        "--threads",
        type=int,
        default=None,
        callback=_threads,
        help="Solver threads (at most the CPU cores) [default: 2, or 1 on one core]. With 2, "
        "the portfolio runs the published model on CP-SAT on the second core beside its own "
        "steps (first proof wins); with 3 or more it also races CP-SAT and HiGHS. 1: one core, "
        "the same witness and steps for the same seed.",
    )(func)


def emit(data: Any, as_json: bool, render: Callable[[], None]) -> None:
    """Print ``data`` as JSON when ``as_json``, else call ``render`` for human output."""
    if as_json:
        click.echo(json.dumps(data, indent=2, sort_keys=False, default=str))
    else:
        render()
