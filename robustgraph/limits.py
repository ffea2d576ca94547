"""Limits on what users give the tools: size ceilings, input budgets, a guarded read, quotes.

One module: every ceiling and budget a user can meet, and the one guarded way to read input, sit
together so that docs/cli.md ("Limits") and a reviewer can check them in one place.

Every size a user can type (nodes, k, r, rounds, task counts, sweep cells, threads) has a
ceiling here, listed with its reason in ``docs/cli.md`` ("Limits"); a value over it is refused
with one line before any work starts, instead of running for hours or exhausting memory. Every
path the tools read is checked to be a regular file before it is opened: opening a FIFO blocks
until something writes to it, and a device never ends. Error messages quote user values through
:func:`quote` and :func:`clip`, so a huge value (a YAML alias bomb expands a 700-byte file to
gigabytes) gives a short line.

Every input file (graphs and their sidecars, certificates and their proof files, task files,
specs) is read through :func:`read_bounded`: regular files only (checked on the open descriptor,
so a symlink to ``/dev/zero`` or a FIFO swapped in after a check is refused too), at most the
:data:`FILE_BYTES` budget, counted as the bytes arrive. :func:`inflate` and :func:`text_lines`
bound decompressed bytes and line length the same way. :data:`BUDGETS` lists one budget per
kind of input (bytes, decompressed bytes, line length, nodes, edges, proof steps, CNF size),
each with a default far above what a real input needs and an environment variable to raise
it (docs/certificate.md, "Input budgets"). A budget is read from the environment when it is
checked, so a test or a user can lower or raise it for one command; :func:`budgets_set` sets
budgets for the calls inside it, over the environment (``verify --max-bytes``).
"""

from __future__ import annotations

import io
import math
import os
import reprlib
import stat
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from robustgraph.errors import ParameterError, RobustgraphError

__all__ = [
    "BUDGETS",
    "CNF_CLAUSES",
    "DOCS",
    "EDGES",
    "FILE_BYTES",
    "INFLATED_BYTES",
    "LINE_BYTES",
    "NODES",
    "PROOF_STEPS",
    "Budget",
    "OverBudget",
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
    "MAX_RUN_CALLS",
    "MAX_ROUNDS",
    "MAX_SWEEP_CELLS",
    "MAX_TASKS",
    "MAX_YAML_ALIAS_NODES",
    "ROSTER_BYTES_PER_AGENT",
    "at_most",
    "budgets_set",
    "clip",
    "cores",
    "inflate",
    "quote",
    "read_bounded",
    "read_text",
    "regular_file",
    "text_lines",
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

MAX_RUN_CALLS = 100_000_000
"""LLM calls one run may plan: agents x tasks x protocols x (1 + 2T), each value under its own
ceiling but not their product (1,000 agents x 100,000 tasks x 1,000 rounds is 2 x 10^11 calls);
``run --max-calls`` raises it for one run. The paper's largest setting is about 10^6."""

ROSTER_BYTES_PER_AGENT = 1024
"""Bytes a roster file may spend per agent of the graph (plus 64 KiB): a roster lists one agent
per node, each a few short fields, so a larger file is refused before its YAML is parsed."""

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


class OverBudget(ParameterError):
    """An input is larger than its budget (exit 2): refused before the work it would cost."""


@dataclass(frozen=True)
class Budget:
    """A ceiling on one kind of input: its default, and the environment variable that moves it.

    The value is read from the environment each time it is needed (:meth:`value`); an
    unparsable or non-positive setting is a one-line ``ParameterError``.
    """

    name: str
    default: int
    env: str
    what: str
    """What is counted, for messages and the docs' table."""

    def value(self) -> int:
        """The budget now: the value :func:`budgets_set` gave it, else ``$env`` when set, else
        :attr:`default`.

        Examples
        --------
        >>> EDGES.value() == EDGES.default or "ROBUSTGRAPH_MAX_EDGES" in os.environ
        True
        """
        if self.env in _SET:
            return _SET[self.env]
        text = os.environ.get(self.env)
        if text is None or not text.strip():
            return self.default
        try:
            value = int(text.replace("_", "").replace(",", ""))
        except ValueError:
            value = 0
        if value < 1:
            raise ParameterError(f"{self.env}={quote(text)}: expected a positive whole number")
        return value

    def hint(self) -> str:
        """How to raise it: ``"(budget 1,000; raise it with ROBUSTGRAPH_MAX_X)"``, or, while
        :func:`budgets_set` sets it, ``"(budget 1,000, set for this command)"``."""
        if self.env in _SET:
            return f"(budget {self.value():,}, set for this command)"
        return f"(budget {self.value():,}; raise it with {self.env})"

    def check(self, count: int, what: str) -> int:
        """``count`` when within the budget; else :class:`OverBudget` saying ``what`` it is.

        Examples
        --------
        >>> PROOF_STEPS.check(10, "the steps LRAT proof p records")
        10
        """
        if count > self.value():
            raise OverBudget(f"{what}: {count:,}, over the {self.name} budget {self.hint()}")
        return count


FILE_BYTES = Budget(
    "bytes", 64 * 2**20, "ROBUSTGRAPH_MAX_BYTES",
    "bytes read from one input file (graphs, which are held whole, after decompression too)",
)
INFLATED_BYTES = Budget(
    "decompressed bytes", 256 * 2**20, "ROBUSTGRAPH_MAX_INFLATED",
    "bytes a compressed input inflates to (LRAT proofs are streamed through this)",
)
LINE_BYTES = Budget(
    "line length", 4 * 2**20, "ROBUSTGRAPH_MAX_LINE", "bytes of one line of a streamed proof"
)
NODES = Budget(
    "nodes", 100_000, "ROBUSTGRAPH_MAX_NODES",
    "nodes of a graph read from a file, declared or counted",
)
EDGES = Budget(
    "edges", 1_000_000, "ROBUSTGRAPH_MAX_EDGES",
    "edges of a graph read from a file, counted (a DOT edge statement as it expands)",
)
PROOF_STEPS = Budget(
    "proof steps", 10_000_000, "ROBUSTGRAPH_MAX_PROOF_STEPS",
    "steps of one proof check: LRAT additions, common-neighbour pair words",
)
CNF_CLAUSES = Budget(
    "CNF size", 2_000_000, "ROBUSTGRAPH_MAX_CNF_CLAUSES",
    "clauses of the CNF an LRAT proof refutes, from its closed-form count before encoding",
)
BUDGETS = (FILE_BYTES, INFLATED_BYTES, LINE_BYTES, NODES, EDGES, PROOF_STEPS, CNF_CLAUSES)
"""Every input budget, in the order of the docs' table."""

_SET: dict[str, int] = {}
"""Budgets set by :func:`budgets_set` (keyed by environment variable), over the environment."""


@contextmanager
def budgets_set(values: Mapping[Budget, int]) -> Iterator[None]:
    """Set ``values`` as the budgets for the calls inside, over the environment and the
    defaults, and restore the previous ones on leaving (a command's explicit options, such as
    ``verify --max-bytes``: the user's consent to read larger inputs, for that command only).

    Raises
    ------
    ParameterError
        A value below 1.

    Examples
    --------
    >>> with budgets_set({PROOF_STEPS: 5}):
    ...     PROOF_STEPS.value(), PROOF_STEPS.hint()
    (5, '(budget 5, set for this command)')
    >>> PROOF_STEPS.value() == PROOF_STEPS.default or "ROBUSTGRAPH_MAX_PROOF_STEPS" in os.environ
    True
    """
    for budget, value in values.items():
        if value < 1:
            raise ParameterError(f"the {budget.name} budget must be a positive whole number, "
                                 f"got {value}")
    before = dict(_SET)
    _SET.update({budget.env: value for budget, value in values.items()})
    try:
        yield
    finally:
        _SET.clear()
        _SET.update(before)


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
    _refuse_kind(mode, name, error)
    return Path(path)


def _refuse_kind(mode: int, name: str, error: type[RobustgraphError]) -> None:
    for test, kind in _KINDS:
        if test(mode):
            raise error(f"{name}: is {kind}, not a regular file")


def read_bounded(
    path: str | Path, *, error: type[RobustgraphError] = ParameterError, label: str | None = None
) -> bytes:
    """The bytes of the regular file ``path``, at most the :data:`FILE_BYTES` budget.

    Opened non-blocking (a FIFO does not wait for a writer) and checked with ``fstat`` on the
    open descriptor, so a symlink to a device, or a file swapped after a ``stat``, is refused
    too; the cap is checked as the bytes arrive (one read of budget + 1 bytes).

    Raises
    ------
    RobustgraphError
        ``error`` with one line starting ``label`` (default: the path): missing, unreadable,
        not a regular file, or larger than the cap.

    Examples
    --------
    >>> read_bounded("/dev/zero")
    Traceback (most recent call last):
    ...
    solvers.errors.ParameterError: /dev/zero: is a character device, not a regular file
    """
    name = str(path) if label is None else label
    cap = FILE_BYTES.value()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise error(f"{name}: no such file") from None
    except IsADirectoryError:
        raise error(f"{name}: is a directory, not a regular file") from None
    except OSError as exc:
        raise error(f"{name}: cannot read ({exc.strerror or exc})") from None
    try:  # before fdopen, which refuses a directory naming only the descriptor ("3: Is a ...")
        _refuse_kind(os.fstat(fd).st_mode, name, error)
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as handle:
        try:
            data = handle.read(cap + 1)
        except OSError as exc:
            raise error(f"{name}: cannot read ({exc.strerror or exc})") from None
    if len(data) > cap:
        raise error(f"{name}: holds more than {cap:,} bytes; not read {FILE_BYTES.hint()}")
    return data


def read_text(
    path: str | Path, *, error: type[RobustgraphError] = ParameterError, label: str | None = None
) -> str:
    """:func:`read_bounded` as UTF-8 text (a byte-order mark dropped); ``error`` if not UTF-8."""
    name = str(path) if label is None else label
    data = read_bounded(path, error=error, label=name)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise error(f"{name}: line {line}: not UTF-8 text (binary file?)") from None


def inflate(
    data: bytes,
    module: Any,
    *,
    error: type[RobustgraphError] = ParameterError,
    label: str = "input",
    limit: int | None = None,
) -> bytes:
    """``data`` decompressed by ``module`` (gzip, bz2 or lzma), at most ``limit`` bytes
    (default: :data:`INFLATED_BYTES`); decompression is streamed and stops at the cap, so a
    bomb costs the cap, not what it would inflate to."""
    import lzma

    cap = INFLATED_BYTES.value() if limit is None else limit
    try:
        with module.open(io.BytesIO(data), "rb") as stream:
            out = stream.read(cap + 1)
    except (OSError, EOFError, ValueError, lzma.LZMAError) as exc:
        raise error(f"{label}: not valid compressed data ({exc})") from None
    if len(out) > cap:
        binding = [b for b in (INFLATED_BYTES, FILE_BYTES) if b.value() == cap]  # what to raise
        budget = binding[0].hint() if binding else f"(raise {INFLATED_BYTES.env})"
        raise error(f"{label}: decompresses to more than {cap:,} bytes; not read {budget}")
    return out


def text_lines(
    stream: IO[bytes], *, error: type[RobustgraphError] = ParameterError, label: str = "input"
) -> Iterator[str]:
    """The lines of a binary stream as ASCII text, each at most :data:`LINE_BYTES` long and
    all together at most :data:`INFLATED_BYTES`, checked as they are read (a 180 MB line is
    refused after 4 MiB, not after it is held): :class:`OverBudget` over a budget, ``error``
    on a line that is not ASCII."""
    longest, total = LINE_BYTES.value(), INFLATED_BYTES.value()
    chunk = max(1 << 20, longest + 1)  # read in bulk: a line at a time cost the LRAT check 25%
    seen, number, partial = 0, 0, b""
    while block := stream.read(chunk):
        seen += len(block)
        if seen > total:
            raise OverBudget(
                f"{label}: holds more than {total:,} bytes of text {INFLATED_BYTES.hint()}"
            )
        lines = (partial + block).split(b"\n")
        partial = lines.pop()
        if len(partial) > longest or max(map(len, lines), default=0) > longest:
            at = next((k for k, x in enumerate(lines) if len(x) > longest), len(lines))
            raise OverBudget(
                f"{label}: line {number + at + 1} is longer than {longest:,} bytes "
                f"{LINE_BYTES.hint()}"
            )
        yield from _ascii(lines, number, error, label)
        number += len(lines)
    if partial:
        yield from _ascii([partial], number, error, label)


def _ascii(
    lines: list[bytes], before: int, error: type[RobustgraphError], label: str
) -> Iterator[str]:
    """``lines`` (numbered from ``before + 1``) as text; ``error`` naming one not ASCII."""
    try:
        text = b"\n".join(lines).decode("ascii")
    except UnicodeDecodeError as exc:
        line = before + b"\n".join(lines).count(b"\n", 0, exc.start) + 1
        raise error(f"{label}: line {line} is not ASCII text") from None
    yield from text.split("\n")


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
