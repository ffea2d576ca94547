"""Limits on what users give the tools: size ceilings, regular files only, short quotes.

Every size a user can type (nodes, k, r, rounds, task counts, sweep cells, threads) has a
ceiling here, listed with its reason in ``docs/cli.md`` ("Limits"); a value over it is refused
with one line before any work starts, instead of running for hours or exhausting memory. Every
path the tools read is checked to be a regular file before it is opened: opening a FIFO blocks
until something writes to it, and a device never ends. Error messages quote user values through
:func:`quote` and :func:`clip`, so a huge value (a YAML alias bomb expands a 700-byte file to
gigabytes) gives a short line.
"""

from __future__ import annotations

import math
import os
import reprlib
import stat
from pathlib import Path
from typing import Any

from robustgraph.errors import ParameterError, RobustgraphError

__all__ = [
    "DOCS",
    "MAX_AGENTS",
    "MAX_ATTEMPTS",
    "MAX_BUDGET",
    "MAX_CONCURRENCY",
    "MAX_DESIGN_EDGES",
    "MAX_DESIGN_NODES",
    "MAX_MESSAGE",
    "MAX_NODES",
    "MAX_OPERAND",
    "MAX_PA_NODES",
    "MAX_QUOTE",
    "MAX_RETRIES",
    "MAX_ROUNDS",
    "MAX_SWEEP_CELLS",
    "MAX_TASKS",
    "MAX_YAML_ALIAS_NODES",
    "at_most",
    "clip",
    "cores",
    "quote",
    "regular_file",
]

DOCS = "docs/cli.md, 'Limits'"

MAX_NODES = 100_000
"""Nodes of a generated graph (``generate``, ``run --topology``); the edge ceiling is
:data:`robustgraph.generators.MAX_EDGES`."""

MAX_PA_NODES = 20_000
"""Nodes of a preferential-attachment graph: its draws take O(n^2) time (20,000: about 20 s)."""

MAX_DESIGN_NODES = 1_000
"""Nodes ``design`` searches over (n = 1,000, r = 2: 2 s; n = 10,000: a 1 s limit overran by
34 s)."""

MAX_DESIGN_EDGES = 400_000
"""Edges of the construction ``design`` starts from (n = 1,000, r = 500: 374,501 edges, 7 s)."""

MAX_BUDGET = 10_000_000
"""``design --budget``: branch-and-bound nodes per exact check (the search's time limit bounds
the whole search; this bounds one check, which does not look at the clock)."""

MAX_ATTEMPTS = 100_000
"""Draws ``generate er --r`` may make (each one is an exact robustness check)."""

MAX_AGENTS = 1_000
"""Agents of a run (nodes of its graph): each query costs 1 + 2T calls per agent."""

MAX_TASKS = 100_000
"""Tasks of a run: ``arith:N``, and the tasks read from a dataset file."""

MAX_OPERAND = 1_000_000
"""Largest operand of ``arith:N:max=M``."""

MAX_ROUNDS = 1_000
"""Rounds T of a run (the SAC paper uses 6)."""

MAX_CONCURRENCY = 10_000
"""Queries and LLM calls in flight at once."""

MAX_RETRIES = 100
"""Retries of one LLM call."""

MAX_SWEEP_CELLS = 10_000
"""Cells (runs) of one sweep: the product of its axes' lengths."""

MAX_YAML_ALIAS_NODES = 10_000
"""YAML nodes that aliases (``*name``) may add to a document when each is expanded in place."""

MAX_QUOTE = 200
"""Characters of a user value quoted in an error message."""

MAX_MESSAGE = 10_000
"""Characters of one error line: the last guard against a quoted value that escaped
:func:`quote` (a witness pair of a 1,000-node graph stays well under it)."""


def at_most(what: str, value: int, ceiling: int, unit: str = "") -> int:
    """``value`` when it is at most ``ceiling``; else a one-line ``ParameterError``.

    Examples
    --------
    >>> at_most("rounds", 6, MAX_ROUNDS)
    6
    >>> at_most("rounds", 10**20, MAX_ROUNDS)
    Traceback (most recent call last):
    ...
    solvers.errors.ParameterError: rounds = 100,000,000,000,000,000,000 is over the ceiling \
of 1,000 (docs/cli.md, 'Limits')
    """
    if value > ceiling:
        digits = int(value.bit_length() * math.log10(2)) + 1  # str() refuses 4300+ digits
        digits -= 10 ** (digits - 1) > value
        shown = f"{value:,}" if digits <= 40 else f"a {digits}-digit number"
        raise ParameterError(
            f"{what} = {shown} is over the ceiling of {ceiling:,}{unit} ({DOCS})"
        )
    return value


def cores() -> int:
    """CPU cores this process may run on (its affinity mask where the platform has one)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def regular_file(
    path: str | Path, *, error: type[RobustgraphError] = ParameterError, label: str | None = None
) -> Path:
    """``path`` as a Path when it names a regular file (or a link to one); else ``error``.

    Checked with ``stat`` before the file is opened: ``open`` on a FIFO blocks until a writer
    comes, and a character device (``/dev/zero``) never ends. ``label`` (default: the path)
    starts the message, e.g. ``"r.yaml: is a FIFO, not a regular file"``.

    Raises
    ------
    RobustgraphError
        ``error``: the path does not exist, cannot be examined, or is a directory, FIFO,
        device or socket.

    Examples
    --------
    >>> regular_file("/dev/null")
    Traceback (most recent call last):
    ...
    solvers.errors.ParameterError: /dev/null: is a character device, not a regular file
    """
    name = str(path) if label is None else label
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise error(f"{name}: no such file") from None
    except OSError as exc:
        raise error(f"{name}: cannot read ({exc.strerror or exc})") from None
    for test, kind in _KINDS:
        if test(mode):
            raise error(f"{name}: is {kind}, not a regular file")
    return Path(path)


_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother = 3, 80, 80
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 8


def quote(value: Any) -> str:
    """A short ``repr`` of a user value for an error message: at most :data:`MAX_QUOTE`
    characters, and the work bounded too (``reprlib`` looks at 8 items per level, 3 levels), so
    a value that aliases expand to millions of items costs nothing to quote.

    Examples
    --------
    >>> quote(list(range(100)))
    '[0, 1, 2, 3, 4, 5, 6, 7, ...]'
    """
    return clip(_REPR.repr(value))


def clip(text: str, limit: int = MAX_QUOTE) -> str:
    """``text`` cut to about ``limit`` characters, saying how much was cut.

    Examples
    --------
    >>> clip("x" * 1000, 20)
    'xxxxxxxxxxxxxxxxxxxx... (980 more characters)'
    """
    text = str(text)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit:,} more characters)"
