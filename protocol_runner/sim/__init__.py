"""The simulated agents (:mod:`~protocol_runner.sim.agents`, the embedded default backend; not
an LLM) and ``serve-sim`` (:mod:`~protocol_runner.sim.server`), which serves them over an
OpenAI-compatible HTTP API.
"""

from robustgraph.lazy import lazy_exports

_EXPORTS = {
    "agents": (
        "DEFAULT_PROFILES", "MODEL_PREFIX", "Profile", "SimConfig", "SimRequestError", "Simulator",
    ),
    "server": (
        "FAULT_HEADER", "MAX_BODY", "Fault", "ServerStats", "SimServer", "parse_faults",
        "running_server",
    ),
}
__all__ = sorted(name for names in _EXPORTS.values() for name in names)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
