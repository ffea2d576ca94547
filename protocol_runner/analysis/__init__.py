"""What a run and a sweep produced, summarised: the SAC paper's metrics with confidence intervals
(:mod:`~protocol_runner.analysis.metrics`), the report files
(:mod:`~protocol_runner.analysis.report`)
and the figures (:mod:`~protocol_runner.analysis.plots`,
:mod:`~protocol_runner.analysis.sweep_plots`).
"""

from robustgraph.lazy import lazy_exports

_NAMES = {
    "COMMIT_METRICS": "protocol_runner.analysis.metrics",
    "COMMIT_RULES": "protocol_runner.analysis.metrics",
    "CostSummary": "protocol_runner.analysis.metrics",
    "Estimate": "protocol_runner.analysis.metrics",
    "METRICS": "protocol_runner.analysis.metrics",
    "PROTOCOL_ORDER": "protocol_runner.analysis.metrics",
    "ProtocolMetrics": "protocol_runner.analysis.metrics",
    "ROUND_GROUPS": "protocol_runner.analysis.metrics",
    "bootstrap_means": "protocol_runner.analysis.metrics",
    "commit_values": "protocol_runner.analysis.metrics",
    "compute_metrics": "protocol_runner.analysis.metrics",
    "fraction_correct": "protocol_runner.analysis.metrics",
    "majority_correct": "protocol_runner.analysis.metrics",
    "protocol_metrics": "protocol_runner.analysis.metrics",
    "query_values": "protocol_runner.analysis.metrics",
    "PlotOutcome": "protocol_runner.analysis.plots",
    "ROLE_COLORS": "protocol_runner.analysis.plots",
    "ROUNDS_PNG": "protocol_runner.analysis.plots",
    "RunGraph": "protocol_runner.analysis.plots",
    "TOPOLOGY_PNG": "protocol_runner.analysis.plots",
    "agent_roles": "protocol_runner.analysis.plots",
    "find_topology": "protocol_runner.analysis.plots",
    "plot_rounds": "protocol_runner.analysis.plots",
    "plot_topology": "protocol_runner.analysis.plots",
    "write_plots": "protocol_runner.analysis.plots",
    "CONFIG_FILE": "protocol_runner.analysis.report",
    "LoadedResults": "protocol_runner.analysis.report",
    "RESULTS_FILE": "protocol_runner.analysis.report",
    "SUMMARY_JSON": "protocol_runner.analysis.report",
    "SUMMARY_MD": "protocol_runner.analysis.report",
    "Summary": "protocol_runner.analysis.report",
    "TABLE_COLUMNS": "protocol_runner.analysis.report",
    "TruncatedResultsWarning": "protocol_runner.analysis.report",
    "load_results": "protocol_runner.analysis.report",
    "markdown_table": "protocol_runner.analysis.report",
    "rich_table": "protocol_runner.analysis.report",
    "summarize": "protocol_runner.analysis.report",
    "summary_markdown": "protocol_runner.analysis.report",
    "write_summary": "protocol_runner.analysis.report",
    "PLOT_PREFIX": "protocol_runner.analysis.sweep_plots",
    "grid_series": "protocol_runner.analysis.sweep_plots",
    "plot_grid": "protocol_runner.analysis.sweep_plots",
}
__all__ = sorted(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
