"""Grids of runs: the sweep spec (:mod:`~protocol_runner.sweep.spec`, strict YAML) and its
execution on the local pool or Ray (:mod:`~protocol_runner.sweep.execute`).
"""

from robustgraph.lazy import lazy_exports

_EXPORTS = {
    "execute": (
        "CELLS_DIR", "CELL_FILE", "ERROR_FILE", "STATUS_FILE", "SUMMARY_JSON", "SUMMARY_MD",
        "SweepResult", "TABLE_METRICS", "merge", "run_cell", "run_sweep", "summary_markdown",
    ),
    "spec": (
        "AXES", "Cell", "RUN_OPTIONS", "SpecError", "SweepSpec", "cell_id", "load_spec",
        "parse_spec",
    ),
}
__all__ = sorted(name for names in _EXPORTS.values() for name in names)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
