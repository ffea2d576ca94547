"""One run of protocols on a certified graph: the runner, the agent roster, the result records,
the certificate gate, one run per results directory, topology specs, document corpora, and how
the async work is hosted.
"""

from robustgraph.lazy import lazy_exports

_EXPORTS = {
    "aio": ("frozen_heap", "loop_factory", "run"),
    "cert_gate": (
        "GateReport", "NotCertified", "OutsideModel", "Placement", "check_gate", "check_placement",
        "obtain_certificate", "proven_r",
    ),
    "corpora": (
        "Corpora", "Corpus", "CorpusError", "Document", "DocumentContext", "EVIDENCE_PREFIX",
        "load_corpora", "parse_corpus_option", "read_corpus",
    ),
    "occupancy": ("claim", "digest", "has_results", "stored_run"),
    "records": (
        "Cost", "Decision", "QueryRecord", "ROLES", "SCHEMA_VERSION", "Turn", "append_record",
        "drop_partial_line", "query_id", "read_records",
    ),
    "roster": (
        "AgentSpec", "PLACEMENTS", "ROLE_LETTERS", "Roster", "build_roster", "parse_roster_spec",
    ),
    "runner": (
        "BackendSpec", "CACHE_FILE", "CERTIFICATE_FILE", "CONFIG_FILE", "Plan", "Prepared",
        "Progress", "QueryHook", "RESULTS_FILE", "RunResult", "RunSpec", "TOPOLOGY_FILE", "execute",
        "plan", "prepare",
    ),
    "sessions": ("SESSIONS_FILE", "append_session", "read_sessions"),
    "strict_yaml": ("load", "problem"),
    "topology_spec": ("FAMILIES", "build_topology"),
}
__all__ = sorted(name for names in _EXPORTS.values() for name in names)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
