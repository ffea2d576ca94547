"""What a run and a sweep produced, summarised: the SAC paper's metrics with confidence intervals
(:mod:`~protocol_runner.analysis.metrics`), the report files
(:mod:`~protocol_runner.analysis.report`)
and the figures (:mod:`~protocol_runner.analysis.plots`,
:mod:`~protocol_runner.analysis.sweep_plots`).
"""

from robustgraph.lazy import lazy_exports

_EXPORTS = {
    "metrics": (
        "COMMIT_METRICS", "COMMIT_RULES", "CostSummary", "Estimate", "METRICS", "PROTOCOL_ORDER",
        "ProtocolMetrics", "ROUND_GROUPS", "bootstrap_means", "commit_values", "compute_metrics",
        "fraction_correct", "majority_correct", "protocol_metrics", "query_values",
    ),
    "plots": (
        "PlotOutcome", "ROLE_COLORS", "ROUNDS_PNG", "RunGraph", "TOPOLOGY_PNG", "agent_roles",
        "find_topology", "plot_rounds", "plot_topology", "write_plots",
    ),
    "report": (
        "CONFIG_FILE", "LoadedResults", "RESULTS_FILE", "SUMMARY_JSON", "SUMMARY_MD", "Summary",
        "TABLE_COLUMNS", "TruncatedResultsWarning", "load_results", "markdown_table", "rich_table",
        "summarize", "summary_markdown", "write_summary",
    ),
    "sweep_plots": ("PLOT_PREFIX", "grid_series", "plot_grid"),
}
__all__ = sorted(name for names in _EXPORTS.values() for name in names)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
