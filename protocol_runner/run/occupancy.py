"""One run per results directory: which runs a directory holds, and who may write there.

A results directory (``run -o DIR``) holds one run: the run itself (``DIR/config.json`` and
``DIR/results.jsonl``) or, for ``run --seeds``, one run per seed in ``DIR/seed-S/``, which the
summary in ``DIR`` pools. A run is identified by its parameters (the runner's identity document
and its digest, the run id). :func:`claim` lets a run write only where the directory holds that
same run, so the same command resumes and a different one is refused before any work, instead of
mixing two runs' results in one summary (issue 30). A directory counts as a run's once it holds
a result: an attempt that failed before its first query (a wrong ``--base-url``) is replaced.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from robustgraph.errors import ParameterError

__all__ = ["claim", "digest", "has_results", "stored_run"]

CONFIG_FILE = "config.json"
RESULTS_FILE = "results.jsonl"


def digest(data: Any) -> str:
    """A short SHA-256 of ``data`` as canonical JSON: the run id of an identity document."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def has_results(directory: Path) -> bool:
    """Whether ``directory`` holds a query result: a results file with anything in it."""
    try:
        return (directory / RESULTS_FILE).stat().st_size > 0
    except (FileNotFoundError, NotADirectoryError):
        return False


def stored_run(directory: Path) -> tuple[str | None, Any]:
    """The run id and identity ``directory/config.json`` records (None, None when unreadable)."""
    try:
        stored = json.loads((directory / CONFIG_FILE).read_text(encoding="utf-8"))
        return stored.get("run_id"), stored.get("run")
    except (OSError, ValueError, AttributeError, RecursionError):
        return None, None


def _differences(before: Any, identity: Mapping[str, Any]) -> str:
    """``", differing in: corpora, seed"``: the identity's keys whose values changed."""
    if not isinstance(before, Mapping):
        return ""
    changed = sorted(k for k in {*before, *identity}
                     if digest(before.get(k)) != digest(identity.get(k)))
    return f", differing in: {', '.join(changed)}" if changed else ""


def claim(output: Path, planned: Mapping[Path, tuple[str, Mapping[str, Any]]]) -> None:
    """Refuse a run whose results directory ``output`` holds the results of another run.

    Parameters
    ----------
    output : Path
        The results directory of the command (``-o``).
    planned : mapping of Path to (run id, identity)
        Where each of the command's runs writes (``output`` itself, or ``output/seed-S`` per
        seed) and its identity.

    Raises
    ------
    ParameterError
        (exit 2) A run directory in ``output`` (itself or ``seed-*``) holds results of a run
        with another id, or of a run the command does not plan (a single-seed run where the
        command runs several seeds, or the other way round, or a seed it does not run).

    Examples
    --------
    >>> import tempfile
    >>> out = Path(tempfile.mkdtemp())
    >>> _ = (out / "seed-1").mkdir(), (out / "seed-1" / RESULTS_FILE).write_text("{}\\n")
    >>> try:
    ...     claim(out, {out: ("abc", {})})  # a single-seed run into a directory of seeds
    ... except ParameterError as exc:
    ...     print(str(exc).partition(" (")[2].partition(")")[0])
    seed-1/: no readable config.json
    """
    output = Path(output)
    found = [output, *sorted(output.glob("seed-*"))] if output.is_dir() else []
    for directory in (d for d in found if has_results(d)):
        previous, before = stored_run(directory)
        where = "" if directory == output else f"{directory.name}/: "
        named = f"run id {previous}" if previous else "no readable config.json"
        if directory not in planned:
            writes = ", ".join(sorted("the directory itself" if d == output
                                      else f"{d.name}/" for d in planned))
            raise ParameterError(
                f"{output} holds the results of another run ({where}{named}); this "
                f"command writes {writes}; choose another -o or remove it"
            )
        run_id, identity = planned[directory]
        if previous != run_id:
            raise ParameterError(
                f"{output} holds the results of another run ({where}{named}, this one "
                f"{run_id}{_differences(before, identity)}); choose another -o or remove it"
            )
