"""``robustgraph robustness``: exact r* (and s*_r), proven bounds, tolerances, witness in words.

By default it answers r* and the tolerances that follow from r* alone (SAC: F = r* - 1; W-MSR
under the F-local model: F = floor((r* - 1) / 2)); the F-total tolerance of W-MSR, which takes
further (F+1, F+1)-robustness questions, only with ``--tolerance wmsr-total`` or ``--all``, and
s* only with ``--rs R``. ``--time-limit T`` is one deadline for the whole command.

Exit codes: 0 when every printed quantity is exact, 3 when the deadline left one only bounded,
2 on a usage or input error.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import click

from robustgraph import io
from robustgraph.cli.common import (
    STARTED,
    command_deadline,
    emit,
    json_option,
    span,
    threads_option,
)
from robustgraph.errors import ParameterError
from robustgraph.graphs import in_labels, witness_labels
from robustgraph.robustness import (
    TOLERANCE_MODELS,
    Tolerance,
    describe_witness,
    max_r,
    tolerances,
)
from robustgraph.topology import Topology
from solvers import blas, registry
from solvers.after_r import s_from_r, s_lower_from_r
from solvers.deadline import Deadline
from solvers.registry import engine_names
from solvers.types import Listener, Question, Request, Result, Status, Witness

__all__ = ["robustness", "result_dict"]

WITNESS_SHOWN = 10
"""Labels of each witness set the text output lists (``--json`` lists them all): a witness of a
10^5-node cycle has 50,000 labels a side."""


REPORT_SECONDS_PER_ITEM = 2e-6
"""Seconds per node and edge that the solves leave of ``--time-limit`` for the report (witness
labels and words, JSON), on top of the exit margin (:data:`solvers.deadline.EXIT_MARGIN`):
0.3-0.6 s at 10^5 nodes and 2 x 10^5 edges on the loaded 2-core VM (docs/performance.md)."""


def _solve_deadline(deadline: Deadline, topology: Topology) -> Deadline:
    """The command's deadline less the report's share (:data:`REPORT_SECONDS_PER_ITEM`), at
    most a tenth of what is left."""
    left = deadline.left()
    if left is None:
        return deadline
    return Deadline(
        deadline.at - min(REPORT_SECONDS_PER_ITEM * (topology.n + topology.m), left / 10)
    )


class _Ticker:
    """A one-line status on stderr (rich): the current question, engine and elapsed time.

    While a solve runs, its listener (:meth:`listener`) adds the bounds proven so far and what
    the engine does, e.g. ``r* in 12..15, probing 15 with portfolio``. Off a terminal the
    ticker is silent and hands out no listener, so the solve runs as without it.
    """

    def __init__(self, enabled: bool):
        self.enabled = enabled and sys.stderr.isatty()  # off a terminal: rich is not imported
        if self.enabled:
            from rich.console import Console

            self.console = Console(stderr=True)
            self.enabled = self.console.is_terminal
        self.text = ""
        self.start = time.perf_counter()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._status: Any = None

    def __enter__(self) -> _Ticker:
        if self.enabled:
            self._status = self.console.status("")
            self._status.start()
            self._thread = threading.Thread(target=self._tick, daemon=True)
            self._thread.start()
        return self

    def set(self, text: str) -> None:
        self.text = text

    def listener(self, name: str, engine: str) -> Listener | None:
        """A listener showing ``name in L..U, <what> with <engine>`` (None when silent).

        It only formats text, so a racer's thread may call it (``solvers.race``).
        """
        if not self.enabled:
            return None

        from rich.markup import escape

        def show(lower: int, upper: int, text: str) -> None:
            bounds = f"= {lower}" if lower == upper else f"in {lower}..{upper}"
            self.text = escape(f"{name} {bounds}, {text} with {engine}")

        return show

    def asking(self, engine: str) -> Callable[[Question], Listener | None]:
        """For :func:`robustgraph.robustness.tolerances`: show each F-total question and hand
        out its listener (the bounds are on s* for the question's r)."""

        def ask(q: Question) -> Listener | None:
            self.set(f"F-total: {_question_text(q)} with {engine}")
            return self.listener(f"F-total: s* for r = {q.r}", engine)

        return ask

    def _tick(self) -> None:
        while not self._stop.wait(0.2):
            elapsed = time.perf_counter() - self.start
            self._status.update(f"[bold]robustness[/] {self.text}  [dim]{elapsed:.1f} s[/]")

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self._status is not None:
            self._status.stop()


def _question_text(q: Question) -> str:
    if q.kind == "max_r":
        return "r*"
    if q.kind == "max_s":
        return f"s* for r = {q.r}"
    if q.kind == "is_rs_robust":
        return f"({q.r}, {q.s})-robust?"
    return f"{q.r}-robust?"


def _s_from_r(topology: Topology, r: int, r_res: Result) -> Result | None:
    """s*_r when the r* answer already settles it (:func:`solvers.after_r.s_from_r`: 0 below
    r*'s upper bound, 1 at r* when its witness holds one r-reachable node), in labels."""
    w = r_res.witness
    if w is None:
        return None
    pair = Witness(*(frozenset(map(topology.index, side)) for side in (w.s1, w.s2)))
    found = s_from_r(topology.in_neighbors, r, replace(r_res, witness=pair))
    return None if found is None else in_labels(topology, found)


def _max_s_after_r(
    topology: Topology,
    r: int,
    r_res: Result,
    options: dict[str, Any],
    deadline: Deadline,
    listener: Listener | None,
) -> Result:
    """s*_r by the chosen engine, told what the r* answer proved (``Request.known_lower``:
    s*_r >= 1 when r* >= r), in labels."""
    request = Request(
        topology,
        Question.max_s(r),
        deadline.left(),
        options["threads"],
        options["formulation"],
        options["seed"],
        listener,
        known_lower=s_lower_from_r(r, r_res),
    )
    return in_labels(topology, registry.solve(request, options["engine"]))


def result_dict(topology: Topology, result: Result) -> dict[str, Any]:
    """A result as JSON-ready data: bounds, status, engine, time, witness with labels and words."""
    w = result.witness
    return {
        "question": {"kind": result.question.kind, "r": result.question.r, "s": result.question.s},
        "value": result.value,
        "lower": result.lower,
        "upper": result.upper,
        "status": result.status.value,
        "engine": result.engine,
        "formulation": result.formulation,
        "engine_version": result.engine_version,
        "seconds": round(result.wall_time, 4),
        "witness": None if w is None else witness_labels(topology, w),
        "witness_text": describe_witness(topology, result),
        "steps": result.params.get("steps", []),
    }


def _render(
    topology: Topology,
    source: str,
    r_res: Result,
    s_res: Result | None,
    tol: dict[str, Tolerance],
    seconds: float,
) -> None:
    kind = "digraph" if topology.directed else "graph"
    click.echo(f"{source}: {kind}, n = {topology.n}, m = {topology.m}")
    for name, res in (("r*", r_res), (f"s* (r = {s_res.question.r})" if s_res else "", s_res)):
        if res is None:
            continue
        how = f"{res.engine}" + (f"/{res.formulation}" if res.formulation else "")
        click.echo(
            f"{name} = {span(res.lower, res.upper)}  [{res.status.value}; "
            f"bounds {res.lower} <= {name.split()[0]} <= {res.upper}; {how}, {res.wall_time:.3g} s]"
        )
        words = describe_witness(topology, res, most=WITNESS_SHOWN)
        if words:
            w = res.witness
            cut = max(len(w.s1), len(w.s2)) > WITNESS_SHOWN
            click.echo(f"  witness: {words}" + ("  [--json lists every node]" if cut else ""))
    parts = [f"{m} F = {span(t.lower, t.upper)} ({t.requirement})" for m, t in tol.items()]
    left = [m for m in TOLERANCE_MODELS if m not in tol]
    more = f"  [{', '.join(left)}: --tolerance {left[0]} or --all]" if left else ""
    click.echo("tolerated F: " + "; ".join(parts) + more)
    click.echo(f"total time: {seconds:.3g} s")


@click.command("robustness")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option(
    "--format", "fmt", default=None, help="Graph file format (default: from the extension)."
)
@click.option(
    "--directed/--undirected", default=None, help="For formats that do not say (edge lists)."
)
@click.option(
    "--rs", "rs_r", type=int, default=None, metavar="R", help="Also compute s* for this r."
)
@click.option(
    "--engine",
    type=click.Choice(engine_names()),
    default="portfolio",
    show_default=True,
    help="Engine that answers every question.",
)
@click.option(
    "--formulation",
    type=click.Choice(["published", "strong"]),
    default="strong",
    show_default=True,
    help="Model for cpsat, highs and cbc (published: Usevitch & Panagou 2020).",
)
@click.option(
    "--tolerance",
    "asked",
    type=click.Choice(TOLERANCE_MODELS),
    multiple=True,
    help="Also report this tolerance (repeatable); sac and wmsr-local are always reported.",
)
@click.option(
    "--all", "every", is_flag=True, help="Every tolerance, the F-total one (wmsr-total) too."
)
@click.option(
    "--time-limit",
    type=float,
    default=None,
    help="Seconds for the whole command; what it stops is reported as proven bounds.",
)
@threads_option
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Seed of heuristics and solvers.",
)
@json_option
def robustness(
    file: str,
    fmt: str | None,
    directed: bool | None,
    rs_r: int | None,
    asked: tuple[str, ...],
    every: bool,
    engine: str,
    formulation: str,
    time_limit: float | None,
    threads: int,
    seed: int,
    as_json: bool,
) -> None:
    """Exact r-robustness of the graph in FILE: r*, proven bounds, status, tolerated F, witness.

    \b
    r* is the largest r for which the graph is r-robust (LeBlanc et al. 2013, on in-neighbours:
    an arc u -> v means v hears u). The witness is a pair of node sets, neither of which is
    (r*+1)-reachable. With --rs R, also s*: the largest s with (R, s)-robustness.
    Tolerated F: sac (F+1)-robust and wmsr-local (2F+1)-robust, from r* alone; wmsr-total
    (F+1, F+1)-robust, which asks more questions, with --tolerance wmsr-total or --all.
    --time-limit T bounds the whole command: every solve shares what is left of T, and a
    question that the deadline stops is reported with its proven bounds (status bounded).
    Exit status: 0 exact, 3 only bounded within --time-limit (as certify), 2 usage or input error.
    """
    if time_limit is not None and not time_limit > 0:  # NaN too
        raise ParameterError(f"--time-limit must be positive, got {time_limit}")
    if threads < 1:
        raise ParameterError(f"--threads must be at least 1, got {threads}")
    if rs_r is not None and rs_r < 0:
        raise ParameterError(f"--rs must be >= 0, got {rs_r}")
    started = click.get_current_context().meta.get(STARTED)  # the whole command's start
    blas.one_thread()  # before numpy loads: its spinning BLAS threads cost CPU (solvers.blas)
    models = TOLERANCE_MODELS if every else ("sac", "wmsr-local", *asked)
    topology = io.read(file, format=fmt, directed=directed)
    graph_hash = topology.content_hash  # before the solves, so that the deadline covers it
    deadline = _solve_deadline(command_deadline(time_limit), topology)
    options = dict(engine=engine, formulation=formulation, threads=threads, seed=seed)
    start = time.perf_counter() if started is None else started  # total time: from the start
    with _Ticker(enabled=True) as ticker:
        ticker.set(f"r* with {engine}")
        listener = ticker.listener("r*", engine)
        r_res = max_r(topology, **options, time_limit=deadline.left(), listener=listener)
        s_res = None
        if rs_r is not None:
            ticker.set(f"s* for r = {rs_r} with {engine}")
            listener = ticker.listener(f"s* for r = {rs_r}", engine)
            s_res = _s_from_r(topology, rs_r, r_res)
            if s_res is None:
                s_res = _max_s_after_r(topology, rs_r, r_res, options, deadline, listener)
        tol = tolerances(
            topology,
            models=[m for m in TOLERANCE_MODELS if m in models],
            r_result=r_res,
            on_question=ticker.asking(engine),
            time_limit=deadline.left(),
            **options,
        )
    seconds = time.perf_counter() - start
    data = {
        "file": file,
        "graph": {
            "n": topology.n,
            "m": topology.m,
            "directed": topology.directed,
            "hash": graph_hash,
        },
        "r": result_dict(topology, r_res),
        "s": None if s_res is None else result_dict(topology, s_res),
        "tolerances": {
            m: {"F": t.value, "lower": t.lower, "upper": t.upper, "requirement": t.requirement}
            for m, t in tol.items()
        },
        "seconds": round(seconds, 4),
    }
    emit(data, as_json, lambda: _render(topology, file, r_res, s_res, tol, seconds))
    exact = r_res.status is Status.EXACT and (s_res is None or s_res.status is Status.EXACT)
    exact = exact and all(t.value is not None for t in tol.values())
    if not exact:  # undecided within the time limit: certify's code 3, not 'refuted' (1)
        raise SystemExit(3)
