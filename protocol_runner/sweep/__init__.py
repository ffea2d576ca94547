"""Grids of runs: the sweep spec (:mod:`~protocol_runner.sweep.spec`, strict YAML) and its
execution on the local pool or Ray (:mod:`~protocol_runner.sweep.execute`).
"""

from robustgraph.lazy import lazy_exports

_NAMES = {
    "CELLS_DIR": "protocol_runner.sweep.execute",
    "CELL_FILE": "protocol_runner.sweep.execute",
    "ERROR_FILE": "protocol_runner.sweep.execute",
    "STATUS_FILE": "protocol_runner.sweep.execute",
    "SUMMARY_JSON": "protocol_runner.sweep.execute",
    "SUMMARY_MD": "protocol_runner.sweep.execute",
    "SweepResult": "protocol_runner.sweep.execute",
    "TABLE_METRICS": "protocol_runner.sweep.execute",
    "merge": "protocol_runner.sweep.execute",
    "run_cell": "protocol_runner.sweep.execute",
    "run_sweep": "protocol_runner.sweep.execute",
    "summary_markdown": "protocol_runner.sweep.execute",
    "AXES": "protocol_runner.sweep.spec",
    "Cell": "protocol_runner.sweep.spec",
    "RUN_OPTIONS": "protocol_runner.sweep.spec",
    "SpecError": "protocol_runner.sweep.spec",
    "SweepSpec": "protocol_runner.sweep.spec",
    "cell_id": "protocol_runner.sweep.spec",
    "load_spec": "protocol_runner.sweep.spec",
    "parse_spec": "protocol_runner.sweep.spec",
}
__all__ = sorted(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
