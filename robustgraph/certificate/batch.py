"""``robustgraph certify --batch``: certify many graph files, one task each, plus an index table.

Every graph named by a directory or a glob becomes one :class:`~robustgraph.executors.Task`
that reads the file, runs :func:`robustgraph.certificate.certifier` on it and writes its
certificate under the output directory; the tasks run on a local process pool or a Ray cluster
(:mod:`robustgraph.executors`). ``index.json`` and ``index.md`` list every graph: file, content
hash, n, m, r* and the tolerated F under each model (with ``--max``, the default claim), status
and seconds. A graph that cannot be read or certified is a row with status ``error`` and the
reason; the other graphs are certified all the same. A match that is not a regular file (a FIFO,
a socket, a device, a broken link) is never opened: it is listed under ``skipped`` with the
reason (issue 41, row 13: a FIFO was left out silently). The index is written whole or not at
all (:func:`robustgraph.atomic.write_atomic`), as the certificates are; a full disk is an
``OSError`` naming the file (issue 41, row 11).
"""

from __future__ import annotations

import glob
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from robustgraph import __version__, io
from robustgraph.atomic import write_atomic
from robustgraph.certificate.certifier import EngineConflict, certify
from robustgraph.certificate.claims import MODELS, Claim
from robustgraph.certificate.document import Certificate, certificate_path
from robustgraph.certificate.outcome import UNCHECKED_EXIT
from robustgraph.errors import ParameterError, RobustgraphError
from robustgraph.executors import Executor, Outcome, Task
from robustgraph.limits import regular_file
from solvers import registry

__all__ = [
    "STATUS_EXIT",
    "graph_files",
    "scan",
    "certificate_targets",
    "certify_file",
    "certify_batch",
    "exit_code",
    "index_markdown",
]

STATUS_EXIT = {
    "error": 2, "conflict": 4, "refuted": 1, "undecided": 3, "unchecked": 5, "proven": 0
}
"""Exit code of a batch: the first of these statuses (in this order) that some graph has."""

_COLUMNS = ("file", "hash", "n", "m", "r*", *(f"F {m}" for m in MODELS), "status", "seconds")


def _is_certificate(path: Path) -> bool:
    return ".cert.json" in path.name.lower()


def _graph_name(path: Path, fmt: str | None) -> bool:
    """True when ``path`` is named as a graph file (by its extension, or any name with ``fmt``)
    and not as a certificate; the file itself is not examined."""
    if _is_certificate(path):
        return False
    try:
        io.resolve_format(path, fmt)
    except RobustgraphError:
        return False
    return True


def _walk(root: Path) -> list[Path]:
    """Every file under ``root``, recursively, without entering hidden folders or folder links
    (``os.walk`` does not follow links by default)."""
    found = []
    for folder, folders, files in os.walk(root):
        folders[:] = [name for name in folders if not name.startswith(".")]
        found.extend(Path(folder) / name for name in files)
    return found


def scan(
    source: str, *, fmt: str | None = None, exclude: Path | None = None
) -> tuple[list[Path], list[dict[str, str]]]:
    """The graph files ``source`` names, sorted, and the matches skipped as not regular files.

    A directory contributes the files in it and in its subfolders, recursively, whose extension
    is a graph format (any file with ``fmt`` given); hidden folders (``.git``) and links to
    folders are not entered (a link back up would loop). A glob (``**`` recurses) contributes
    its matching files. Files named ``*.cert.json`` (certificates), files under ``exclude`` (the
    output directory) and folders are left out. A match named as a graph that is not a regular
    file (a FIFO, a socket, a device, a broken link) is never opened (a FIFO would block): it
    is returned as skipped, ``{"file": path, "reason": "is a FIFO, not a regular file"}``
    (:func:`robustgraph.limits.regular_file`).

    Returns
    -------
    files : list of Path
        The regular graph files, sorted.
    skipped : list of dict
        The other matches, sorted, each with its ``file`` and ``reason``.

    Raises
    ------
    ParameterError
        No regular graph file matches (the message says how many matches were skipped).

    Examples
    --------
    >>> import os, tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "a.json").write_text("")
    >>> os.mkfifo(d / "f.json")
    >>> files, skipped = scan(str(d))
    >>> [p.name for p in files], [(pathlib.Path(s["file"]).name, s["reason"]) for s in skipped]
    (['a.json'], [('f.json', 'is a FIFO, not a regular file')])
    """
    root = Path(source)
    if root.is_dir():
        candidates = _walk(root)
    else:
        candidates = [Path(p) for p in glob.glob(source, recursive=True)]
    out = exclude.resolve() if exclude is not None else None
    found: list[Path] = []
    skipped: list[dict[str, str]] = []
    for path in sorted(candidates):
        if path.is_dir() or not _graph_name(path, fmt):
            continue
        if out is not None and path.resolve().is_relative_to(out):
            continue
        try:
            found.append(regular_file(path))
        except ParameterError as exc:
            reason = str(exc).removeprefix(f"{path}: ")
            skipped.append({"file": str(path), "reason": reason})
    if not found:
        what = "directory" if root.is_dir() else "pattern"
        first = f"; skipped {skipped[0]['file']}: {skipped[0]['reason']}" if skipped else ""
        more = f" and {len(skipped) - 1} more" if len(skipped) > 1 else ""
        raise ParameterError(f"no graph files in {what} {source!r}{first}{more}")
    return found, skipped


def graph_files(source: str, *, fmt: str | None = None, exclude: Path | None = None) -> list[Path]:
    """The regular graph files ``source`` names, sorted (:func:`scan` without the skipped).

    Raises
    ------
    ParameterError
        Nothing matches.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> (d / "sub").mkdir()
    >>> for name in ("a.json", "a.cert.json", "b.g6", "notes.md", "sub/c.txt"):
    ...     _ = (d / name).write_text("")
    >>> [p.relative_to(d).as_posix() for p in graph_files(str(d))]
    ['a.json', 'b.g6', 'sub/c.txt']
    """
    return scan(source, fmt=fmt, exclude=exclude)[0]


def certificate_targets(files: Sequence[Path], outdir: Path) -> list[Path]:
    """Where each file's certificate goes: ``OUTDIR/<path from the common parent>.cert.json``.

    ``graphs/sub/g.json`` and ``graphs/h.g6`` give ``OUTDIR/sub/g.cert.json`` and
    ``OUTDIR/h.cert.json``, so graphs with the same name in different folders do not collide.

    Raises
    ------
    ParameterError
        Two files would get the same certificate (``g.json`` and ``g.g6`` in one folder).
    """
    parents = [p.resolve().parent for p in files]
    root = Path(os.path.commonpath(parents))
    targets = [outdir / certificate_path(p.resolve().relative_to(root)) for p in files]
    seen: dict[Path, Path] = {}
    for file, target in zip(files, targets, strict=True):
        if target in seen:
            raise ParameterError(
                f"{seen[target]} and {file} would share the certificate {target}; "
                "certify them in separate batches"
            )
        seen[target] = file
    return targets


def _span(bounds: Sequence[int] | None) -> str:
    if bounds is None:
        return "-"
    lo, hi = bounds
    return str(lo) if lo == hi else f"{lo}..{hi}"


def certify_file(
    path: str,
    claims: tuple[Claim, ...],
    options: dict[str, Any],
    read_options: dict[str, Any],
    target: str,
) -> dict[str, Any]:
    """Certify one graph file and write its certificate to ``target``; return its index row.

    Runs in a worker. ``options`` go to :func:`~robustgraph.certificate.certifier` (engines,
    formulation, time_limit, threads, seed), ``read_options`` to :func:`robustgraph.io.read`.
    Engines that disagree give the status ``conflict`` and no certificate, as ``certify`` does
    for one file; any other error propagates (the executor records it).
    """
    topology = io.read(path, **read_options)
    row: dict[str, Any] = {
        "file": path,
        "hash": topology.content_hash,
        "n": topology.n,
        "m": topology.m,
        "directed": topology.directed,
        "r": None,
        "tolerances": None,
        "claims": [],
        "certificate": None,
        "error": None,
    }
    try:
        cert = certify(topology, *claims, **options)
    except EngineConflict as exc:
        return {**row, "status": "conflict", "error": str(exc)}
    Path(target).parent.mkdir(parents=True, exist_ok=True)
    cert.dump(target)
    status = "unchecked" if cert.exit_code == UNCHECKED_EXIT else cert.verdict  # issue 44
    return {**row, **_claim_fields(cert), "status": status, "certificate": target}


def _claim_fields(cert: Certificate) -> dict[str, Any]:
    out: dict[str, Any] = {"claims": [], "r": None, "tolerances": None}
    for record in cert.claims:
        out["claims"].append({**record.claim.to_dict(), "verdict": record.verdict})
        if record.values is not None:
            out["r"] = list(record.values["r"])
            out["tolerances"] = {m: list(record.values[m]) for m in MODELS if m in record.values}
    return out


def _error_row(path: Path, outcome: Outcome) -> dict[str, Any]:
    return {
        "file": str(path),
        "hash": None,
        "n": None,
        "m": None,
        "directed": None,
        "r": None,
        "tolerances": None,
        "claims": [],
        "certificate": None,
        "error": outcome.error,
        "status": "error",
    }


def exit_code(statuses: Sequence[str]) -> int:
    """The batch's exit code: see :data:`STATUS_EXIT` (0 when every graph is proven)."""
    for status, code in STATUS_EXIT.items():
        if status in statuses:
            return code
    return 0


def _check_options(options: dict[str, Any]) -> None:
    """Fail once, before any task, on options every graph would fail on."""
    unknown = [e for e in options.get("engines", ()) if e not in registry.engine_names()]
    if unknown:
        known = ", ".join(registry.engine_names())
        raise ParameterError(f"unknown engine {unknown[0]!r}; choose from {known}")
    limit = options.get("time_limit")
    if limit is not None and not limit > 0:
        raise ParameterError(f"time limit must be > 0 seconds, got {limit}")
    if options.get("threads", 1) < 1:
        raise ParameterError(f"threads must be >= 1, got {options['threads']}")


def certify_batch(
    source: str,
    claims: Sequence[Claim],
    outdir: str | Path,
    *,
    executor: Executor,
    options: dict[str, Any] | None = None,
    fmt: str | None = None,
    directed: bool | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """Certify every graph ``source`` names; write the certificates and the index to ``outdir``.

    Parameters
    ----------
    source : str
        A directory or a glob (see :func:`graph_files`).
    claims : sequence of Claim
        Put to every graph (see :class:`~robustgraph.certificate.Claim`).
    outdir : str or Path
        Created if needed; gets one certificate per graph (:func:`certificate_targets`),
        ``index.json`` and ``index.md``.
    executor : Executor
        Where the graphs are certified, one task each.
    options : dict, optional
        Keyword arguments of :func:`~robustgraph.certificate.certifier` (engines, formulation,
        time_limit, threads, seed).
    fmt, directed
        How to read the files (see :func:`robustgraph.io.read`).
    progress : bool
        Draw a progress bar on stderr.

    Returns
    -------
    dict
        The index: ``graphs`` (one row per file, in file order), ``skipped`` (the matches that
        are not regular files, :func:`scan`), ``counts`` per status and the batch's
        ``exit_code``.

    Raises
    ------
    ParameterError
        No claim, an unknown engine, a bad time limit or thread count, no graph files, or two
        files that would share a certificate.
    OSError
        ``index.json`` or ``index.md`` could not be written (a full disk): it names the file,
        which is left as it was.
    """
    if not claims:
        raise ParameterError("certify --batch needs at least one claim")
    _check_options(options or {})
    if not str(outdir):
        raise ParameterError("the output directory is empty; name the directory to write")
    out = Path(outdir)
    if out.exists() and not out.is_dir():
        raise ParameterError(f"{out}: not a directory (a batch writes its certificates into one)")
    files, skipped = scan(source, fmt=fmt, exclude=out)
    targets = certificate_targets(files, out)
    out.mkdir(parents=True, exist_ok=True)  # before the work: an unwritable -o lost it all
    with tempfile.TemporaryFile(dir=out):
        pass
    read_options = {"format": fmt, "directed": directed}
    tasks = [  # absolute paths: a Ray worker's working directory is not ours
        Task(
            str(path),
            certify_file,
            (str(path.resolve()), tuple(claims), options or {}, read_options, str(t.resolve())),
        )
        for path, t in zip(files, targets, strict=True)
    ]
    outcomes = executor.run(tasks, label="certify", progress=progress)
    rows = []
    for path, outcome in zip(files, outcomes, strict=True):
        row = outcome.value if outcome.ok else _error_row(path, outcome)
        row["file"] = str(path)
        row["seconds"] = round(outcome.seconds, 3)
        if row["certificate"] is not None:
            row["certificate"] = str(Path(row["certificate"]).relative_to(out.resolve()))
        rows.append(row)
    statuses = [row["status"] for row in rows]
    index = {
        "tool_version": __version__,
        "source": source,
        "executor": executor.name,
        "claims": [claim.to_dict() for claim in claims],
        "options": options or {},
        "graphs": rows,
        "skipped": skipped,
        "counts": {s: statuses.count(s) for s in STATUS_EXIT if s in statuses},
        "exit_code": exit_code(statuses),
    }
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / "index.json", (json.dumps(index, indent=2) + "\n").encode("utf-8"))
    write_atomic(out / "index.md", index_markdown(index).encode("utf-8"))
    return index


def _cells(row: dict[str, Any]) -> list[str]:
    tolerances = row["tolerances"] or {}
    status = row["status"] if row["error"] is None else f"{row['status']}: {row['error']}"
    return [
        row["file"],
        row["hash"][7:19] if row["hash"] else "-",
        "-" if row["n"] is None else str(row["n"]),
        "-" if row["m"] is None else str(row["m"]),
        _span(row["r"]),
        *(_span(tolerances.get(m)) for m in MODELS),
        status.replace("|", "\\|"),
        f"{row['seconds']:.3g}",
    ]


def index_markdown(index: dict[str, Any]) -> str:
    """The index as a Markdown table, one row per graph (hash shortened to 12 hex digits)."""
    claims = "; ".join(Claim.from_dict(c).describe() for c in index["claims"])
    counts = ", ".join(f"{n} {s}" for s, n in index["counts"].items())
    lines = [
        f"# Certificates: {index['source']}",
        "",
        f"Claims: {claims}. Executor: {index['executor']}. Graphs: {len(index['graphs'])} "
        f"({counts}).",
        "",
        "| " + " | ".join(_COLUMNS) + " |",
        "|" + "|".join("---" for _ in _COLUMNS) + "|",
    ]
    lines += ["| " + " | ".join(_cells(row)) + " |" for row in index["graphs"]]
    skipped = index["skipped"]
    if skipped:
        lines += ["", f"Skipped, not regular files ({len(skipped)}):", ""]
        lines += [f"- {s['file']}: {s['reason']}" for s in skipped]
    return "\n".join(lines) + "\n"
