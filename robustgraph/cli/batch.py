"""``certify --batch``: the options that turn ``certify`` into a batch over many graph files,
and the run they start (:func:`robustgraph.certificate.batch.certify_batch`)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from robustgraph.certificate.claims import Claim
from robustgraph.cli.choices import EXECUTORS
from robustgraph.cli.claim_options import claims_from_options, max_models
from robustgraph.cli.common import cap_at_cores, emit, warn

__all__ = ["batch_options"]


def _given(*names: str) -> bool:
    """True when one of these options was on the command line (not left at its default)."""
    from click.core import ParameterSource

    context = click.get_current_context()
    return any(
        context.get_parameter_source(name) not in (None, ParameterSource.DEFAULT) for name in names
    )


def _run_batch(kwargs: dict[str, Any]) -> None:
    from robustgraph.certificate.batch import certify_batch, index_markdown  # numpy, rich
    from robustgraph.executors import make_executor

    named = (kwargs["r"], kwargs["rs"], kwargs["faults"], kwargs["model"])
    asked, every = kwargs["asked"], kwargs["every"]
    if any(x is not None for x in named) or kwargs["maximum"]:
        claims = claims_from_options(*named, kwargs["maximum"], asked, every)
    else:  # the default claim, --max, with the tolerances asked
        claims = [Claim.maximum(max_models(asked, every))]
    options = {
        "engines": kwargs["engines"].split(","),
        "formulation": kwargs["formulation"],
        "time_limit": kwargs["time_limit"],
        "threads": kwargs["threads"] if _given("threads") else 1,  # a graph per core
        "seed": kwargs["seed"],
    }
    with make_executor(
        kwargs["executor"], address=kwargs["address"], workers=kwargs["workers"]
    ) as executor:
        index = certify_batch(
            kwargs["batch"],
            claims,
            kwargs["output"],
            executor=executor,
            options=options,
            fmt=kwargs["fmt"],
            directed=kwargs["directed"],
        )

    if index["skipped"]:  # never opened (a FIFO would block): one line, all in the index
        first, more = index["skipped"][0], len(index["skipped"]) - 1
        warn(f"skipped {first['file']}: {first['reason']}"
             + (f" (and {more} more not regular files; see index.json)" if more else ""))

    def render() -> None:
        click.echo(index_markdown(index), nl=False)
        click.echo(f"written  {Path(kwargs['output']) / 'index.json'}, index.md")

    emit(index, kwargs["as_json"], render)
    raise SystemExit(index["exit_code"])


def batch_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--batch``, ``--executor``, ``--address`` and ``--workers`` to ``certify``.

    With ``--batch DIR_OR_GLOB`` the command certifies every graph there (FILE must be absent,
    ``-o`` names the output directory, and the claim defaults to ``--max``); without it, the
    command runs as before and FILE is required, and the executor options reach it for
    ``--cubes`` (the cubes of one LRAT proof run as tasks). Place it right under
    ``@click.command``.
    """

    @functools.wraps(command)
    def wrapper(**kwargs: Any) -> None:
        if kwargs["batch"] is None:
            if kwargs["file"] is None:
                raise click.UsageError("Missing argument 'FILE' (or give --batch DIR_OR_GLOB).")
            if kwargs["cubes"] is None and _given("executor", "address", "workers"):
                raise click.UsageError(
                    "--executor, --address and --workers go with --batch or --cubes"
                )
            return command(**{k: v for k, v in kwargs.items() if k != "batch"})
        if kwargs["file"] is not None:
            raise click.UsageError("give FILE or --batch DIR_OR_GLOB, not both")
        if kwargs["cubes"] is not None:
            raise click.UsageError("--cubes splits the proof for one FILE, not with --batch")
        return _run_batch(kwargs)

    wrapper.__click_params__ = list(getattr(command, "__click_params__", []))  # type: ignore[attr-defined]

    options = [
        click.option(
            "--batch",
            metavar="DIR_OR_GLOB",
            default=None,
            help="Certify every graph in a directory or matching a glob ('g/**/*.json'); "
            "-o is then a directory for the certificates and index.json/index.md.",
        ),
        click.option(
            "--executor",
            type=click.Choice(EXECUTORS),
            default="local",
            show_default=True,
            help="With --batch or --cubes: a local process pool, or Ray (pip install "
            "'robustgraph[distributed]').",
        ),
        click.option(
            "--address",
            default=None,
            help="With --executor ray: the cluster (host:port, auto, ray://...); default "
            "RAY_ADDRESS, else a local Ray instance.",
        ),
        click.option(
            "--workers",
            type=click.IntRange(min=1),
            default=None,
            callback=cap_at_cores,
            help="With --executor local: processes (default and most: one per CPU).",
        ),
    ]
    for option in reversed(options):
        wrapper = option(wrapper)
    return wrapper
