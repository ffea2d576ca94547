"""A directory of runs side by side: Table 1 and the figures over all of them.

``robustgraph reproduce`` (and any user) may keep one run per topology in the subdirectories
of one directory (``DIR/<label>/``, each a results directory of ``robustgraph run``, or one
run per seed below it). :func:`write_collection` summarises each run in its own directory
(:func:`protocol_runner.analysis.report.write_summary`: its tables and figures) and writes into
``DIR`` the paper's layout over all of them: ``table1.{md,tex,csv}`` with one row per protocol
and topology (:func:`protocol_runner.analysis.tables.runs_table`) and
``protocols.{png,pdf,svg}`` with one row of FAA/BFTI panels per topology,
``rounds.{png,pdf,svg}`` with one row of per-round weak/strong panels per topology (every
protocol on each panel) and, when the runs used the commit gate, ``commit_gate.{png,pdf,svg}``
with one row of commit/escalation/abort/false-commit panels per topology
(:func:`protocol_runner.analysis.plots.plot_rows`).
"""

from __future__ import annotations

import json
from pathlib import Path

from protocol_runner.analysis.report import RESULTS_FILE, Summary, seed_dirs, write_summary
from protocol_runner.analysis.tables import runs_table, write_tables

__all__ = ["ORDER_FILE", "collection_dirs", "run_dirs", "write_collection", "write_order"]

ORDER_FILE = "order.json"
"""A collection's run order: ``{"runs": [subdirectory names]}`` (``reproduce`` writes the
paper's topology order); runs it does not name follow by name."""


def write_order(directory: str | Path, names: list[str]) -> None:
    """Record the order in which a collection's runs appear in its tables and figures."""
    root = Path(directory)
    root.mkdir(parents=True, exist_ok=True)
    (root / ORDER_FILE).write_text(json.dumps({"runs": list(names)}) + "\n", encoding="utf-8")


def _order(root: Path) -> list[str]:
    """The run names of ``root``'s :data:`ORDER_FILE`; ``[]`` when it is absent or malformed
    (the order is cosmetic: a bad file falls back to the names' order, never fails a report)."""
    try:
        names = json.loads((root / ORDER_FILE).read_text(encoding="utf-8"))["runs"]
    except (OSError, ValueError, KeyError, TypeError):
        return []
    return [name for name in names if isinstance(name, str)] if isinstance(names, list) else []


def run_dirs(directory: str | Path) -> list[Path]:
    """The subdirectories of ``directory`` that hold a run (``results.jsonl`` in it or one
    level below, for a run per seed): in the order of its :data:`ORDER_FILE`, then by name;
    ``[]`` when ``directory`` is itself a run, of one seed or of several (``run --seeds``: its
    ``seed-S/`` are one run's seeds, pooled)."""
    root = Path(directory)
    if (root / RESULTS_FILE).is_file() or not root.is_dir() or seed_dirs(root):
        return []
    runs = [
        child for child in root.iterdir()
        if child.is_dir()
        and ((child / RESULTS_FILE).is_file() or any(child.glob(f"*/{RESULTS_FILE}")))
    ]
    rank = {name: i for i, name in enumerate(_order(root))}
    return sorted(runs, key=lambda child: (rank.get(child.name, len(rank)), child.name))


def collection_dirs(directory: str | Path) -> list[Path]:
    """The subdirectories of ``directory`` that are collections (:func:`run_dirs`), by name:
    a ``reproduce`` output keeps one per benchmark column (``DIR/<column>/<topology>/``);
    ``[]`` when ``directory`` is itself a run or a collection."""
    root = Path(directory)
    if not root.is_dir() or (root / RESULTS_FILE).is_file() or seed_dirs(root) or run_dirs(root):
        return []
    return sorted(child for child in root.iterdir() if child.is_dir() and run_dirs(child))


def write_collection(
    directory: str | Path, *, plots: bool = True, resamples: int = 2000
) -> tuple[list[Summary], list[Path]]:
    """Summarise every run below ``directory``, then write Table 1 and the figures over them.

    Parameters
    ----------
    directory : str or Path
        A directory whose subdirectories are runs (:func:`run_dirs`, at least one).
    plots : bool
        Also write the figures (each run's and the collection's).
    resamples : int
        Bootstrap resamples of every run's intervals.

    Returns
    -------
    (list of Summary, list of Path)
        Each run's summary, and the files written into ``directory``.

    Raises
    ------
    ParameterError
        As :func:`~protocol_runner.analysis.report.write_summary`, for any run.
    """
    root = Path(directory)
    summaries = [write_summary(child, plots=plots, resamples=resamples) for child in run_dirs(root)]
    docs = [summary.to_json() for summary in summaries]
    for doc, child in zip(docs, run_dirs(root), strict=True):
        doc["run"] = {**doc["run"], "graph_name": doc["run"].get("graph_name") or child.name}
    files = write_tables(runs_table(docs), root)
    if plots:
        from protocol_runner.analysis.plots import (  # matplotlib
            Panel,
            ProtocolRow,
            plot_comparison,
            plot_rows,
        )
        from protocol_runner.analysis.provenance import Provenance

        panels = [
            Panel(doc["run"]["graph_name"], {"": {n: p["metrics"] for n, p in
                                                  doc["protocols"].items()}})
            for doc in docs
        ]
        provenance = Provenance.merge(
            [Provenance.of_run(d["run"], [p["queries"] for p in d["protocols"].values()])
             for d in docs], per="protocol and topology",
        )
        bootstrap = docs[0]["bootstrap"]
        ci = f"{100 * bootstrap['confidence']:g}% CI, {bootstrap['method']}"
        files += plot_comparison(panels, provenance, root, ci=ci)
        rows = [ProtocolRow(doc["run"]["graph_name"], doc["protocols"]) for doc in docs]
        files += plot_rows(rows, provenance, root, ci=ci)
    return summaries, files
