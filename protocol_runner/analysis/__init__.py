"""What a run and a sweep produced, summarised: the SAC paper's metrics with confidence intervals
(:mod:`~protocol_runner.analysis.metrics`), the report files
(:mod:`~protocol_runner.analysis.report`), Table 1 (:mod:`~protocol_runner.analysis.tables`),
the cost (:mod:`~protocol_runner.analysis.cost`), runs side by side
(:mod:`~protocol_runner.analysis.collection`), sweep cells pooled over seeds
(:mod:`~protocol_runner.analysis.pooled`) and the figures in one style
(:mod:`~protocol_runner.analysis.figures`; :mod:`~protocol_runner.analysis.plots`,
:mod:`~protocol_runner.analysis.topology_plot`, :mod:`~protocol_runner.analysis.sweep_plots`).
"""

from robustgraph.lazy import lazy_exports

_EXPORTS = {
    "collection": ("run_dirs", "write_collection"),
    "cost": ("RunCost", "cost_line"),
    "figures": (
        "DPI", "FORMATS", "OKABE_ITO", "protocol_style", "save", "simulated_banner", "style",
        "title_block",
    ),
    "metrics": (
        "COMMIT_METRICS", "COMMIT_RULES", "CostSummary", "Estimate", "METRICS", "PROTOCOL_ORDER",
        "ProtocolMetrics", "ROUND_GROUPS", "bootstrap_means", "commit_values", "compute_metrics",
        "fraction_correct", "majority_correct", "protocol_metrics", "query_values",
    ),
    "plots": (
        "COMMIT_PLOT", "COMPARED", "COMPARISON_PLOT", "GROUPS", "ROUNDS_PLOT", "Panel",
        "PlotOutcome", "ProtocolRow", "has_rounds", "plot_commit", "plot_comparison",
        "plot_rounds", "plot_rows", "write_plots",
    ),
    "pooled": ("PooledRow", "pool_cells"),
    "provenance": ("SIMULATED_BANNER", "Provenance"),
    "report": (
        "CONFIG_FILE", "RESULTS_FILE", "SUMMARY_JSON", "SUMMARY_MD", "LoadedResults", "Summary",
        "TruncatedResultsWarning", "load_results", "markdown_table", "rich_table", "seed_dirs",
        "summarize",
        "summary_markdown", "write_summary",
    ),
    "sweep_plots": (
        "PANEL_AXES", "PLOTS_DIR", "SWEEP_PLOT", "SWEEP_PLOTS", "panels", "plot_sweep",
        "protocol_rows", "write_sweep_report",
    ),
    "tables": (
        "BFTI", "COLUMNS", "FAA", "H_MAJORITY", "IAA", "RA", "STRONG", "WEAK", "TABLE_FILES",
        "Column", "Table", "caption", "run_table", "runs_table", "sweep_table", "write_tables",
    ),
    "topology_plot": (
        "ROLE_STYLE", "TOPOLOGY_PLOT", "RunGraph", "agent_roles", "attacks", "find_topology",
        "plot_topology",
    ),
}
__all__ = sorted(name for names in _EXPORTS.values() for name in names)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
