"""The ``robustgraph`` command line: one group, subcommands loaded lazily from their modules.

Conventions (DESIGN.md): ``--json`` prints machine-readable output on stdout, progress and logs
go to stderr; exit codes are 0 ok/certified, 1 checked and not satisfied, 2 usage or input error.
Any ``RobustgraphError`` reaches the user as one line on stderr, never a traceback.

The ``robustgraph`` program enters through :func:`run`, which counts every ``--time-limit`` from
the start of the process and, after one of this package's commands, ends the process without
the interpreter's teardown (see :func:`run`); :data:`main` is the group itself (tests call it
through click's runner, which keeps the ordinary clock and exit).
"""

from __future__ import annotations

import atexit
import importlib
import os
import sys
import threading
import time
from typing import Any, NoReturn

import click

from robustgraph import __version__
from robustgraph.cli.common import STARTED, fail, ignore_further_interrupts
from robustgraph.errors import RobustgraphError
from solvers.deadline import process_start

__all__ = ["COMMANDS", "LazyGroup", "main", "run", "exit_now"]

_OWN = "robustgraph.cli."
"""Commands from modules under this prefix end with :func:`exit_now` (see :func:`run`)."""

# name -> "module:attribute"; a module is imported only when its command runs or --help lists it.
COMMANDS: dict[str, tuple[str, str]] = {
    "info": (
        "robustgraph.cli.graph:info",
        "Describe a graph file: size, degrees, connectivity, hash.",
    ),
    "convert": (
        "robustgraph.cli.graph:convert",
        "Convert a graph file from one format to another.",
    ),
    "generate": ("robustgraph.cli.generate:generate", "Generate a robust communication graph."),
    "certify": ("robustgraph.cli.certify:certify_command", "Prove claims; write a certificate."),
    "verify": ("robustgraph.cli.certify:verify_command", "Re-check a certificate."),
    "robustness": (
        "robustgraph.cli.robustness:robustness",
        "Exact r*, s*, bounds, tolerated F, witness.",
    ),
    "ledger": ("protocol_runner.cli.ledger:ledger", "Verify or show a commit-gate ledger."),
    "serve-sim": ("protocol_runner.cli.serve:serve_sim", "Serve simulated agents over HTTP."),
    "run": ("protocol_runner.cli.run:run_command", "Run SAC and baselines on a certified graph."),
    "report": ("protocol_runner.cli.report:report_command", "Summarise a run: metrics and plots."),
    "reproduce": (
        "protocol_runner.cli.reproduce:reproduce_command",
        "Re-run one of the SAC paper's tables; ours beside the paper's.",
    ),
    "calibrate": (
        "protocol_runner.cli.calibrate:calibrate_command",
        "Fit the simulated agents to your own runs' per-round accuracy.",
    ),
    "sweep": ("protocol_runner.cli.sweep:sweep_command", "Run a grid of runs, locally or on Ray."),
    "design": ("robustgraph.cli.design:design", "Design a sparse certified r-robust graph."),
    "augment": ("robustgraph.cli.design:augment", "Add the fewest edges to make a graph r-robust."),
}


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use, with one-line error handling.

    ``origin``: the ``time.perf_counter`` reading from which ``--time-limit`` deadlines count
    (:data:`robustgraph.cli.common.STARTED`): :func:`run` sets the process start; left None,
    the moment the group is invoked. ``ran``: the module of the last command looked up.
    """

    origin: float | None = None
    ran: str | None = None

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        target, _ = COMMANDS[name]
        module_name, attribute = target.split(":")
        self.ran = module_name
        return getattr(importlib.import_module(module_name), attribute)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][1]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def invoke(self, ctx: click.Context) -> Any:
        origin = time.perf_counter() if self.origin is None else self.origin
        ctx.meta.setdefault(STARTED, origin)  # before the command's module loads
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
            fail(f"{exc.filename}: {exc.strerror}" if exc.filename else exc.strerror or str(exc), 2)
        except KeyboardInterrupt:
            ignore_further_interrupts()
            fail("interrupted", 130)


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


def exit_now(code: Any) -> NoReturn:
    """End the process with ``code`` as ``sys.exit(code)`` would, less the interpreter's teardown.

    With a non-daemon thread still running, it exits the ordinary way instead (which waits for
    the thread). Otherwise it runs the ``atexit`` handlers (they join worker processes and
    threads, flush logs, run ``weakref.finalize`` callbacks), flushes stdout and stderr, then
    ``os._exit``: the teardown that follows (freeing every module; 0.5-1.2 s after OR-Tools
    and pandas were imported, measured in docs/performance.md) is skipped, and nothing is
    lost, as our commands close every file they write before they return. ``code`` as for
    ``SystemExit``: None is 0, an int is itself, anything else is printed on stderr and is 1.
    """
    main_thread = threading.main_thread()
    if any(t is not main_thread and not t.daemon for t in threading.enumerate()):
        sys.exit(code)  # a worker thread still runs: the ordinary exit waits for it
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:
        click.echo(str(code), err=True)
        status = 1
    atexit._run_exitfuncs()  # the same handlers a normal exit runs, in the same order
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a reader that went away ('| head'), a closed stream
            pass
    os._exit(status)


def run() -> NoReturn:
    """The ``robustgraph`` program: :data:`main` with deadlines from the process start.

    Every ``--time-limit T`` counts from the moment the process started
    (:func:`solvers.deadline.process_start`): interpreter start-up and imports are inside T.
    After one of this package's commands (not the agents' commands of
    :mod:`protocol_runner.cli`, which may leave work to interpreter exit) the process ends by
    :func:`exit_now`, so that ``T`` bounds the whole process; others exit as usual.
    """
    main.origin = process_start()
    try:
        main()
        code: Any = 0
    except SystemExit as exc:
        code = exc.code
    if (main.ran or "").startswith(_OWN):
        exit_now(code)
    sys.exit(code)
