"""The simulated agents (:mod:`~protocol_runner.sim.agents`, the embedded default backend; not
an LLM) and ``serve-sim`` (:mod:`~protocol_runner.sim.server`), which serves them over an
OpenAI-compatible HTTP API.
"""

from robustgraph.lazy import lazy_exports

_NAMES = {
    "DEFAULT_PROFILES": "protocol_runner.sim.agents",
    "MODEL_PREFIX": "protocol_runner.sim.agents",
    "Profile": "protocol_runner.sim.agents",
    "SimConfig": "protocol_runner.sim.agents",
    "SimRequestError": "protocol_runner.sim.agents",
    "Simulator": "protocol_runner.sim.agents",
    "FAULT_HEADER": "protocol_runner.sim.server",
    "Fault": "protocol_runner.sim.server",
    "Request": "protocol_runner.sim.server",
    "ServerStats": "protocol_runner.sim.server",
    "SimServer": "protocol_runner.sim.server",
    "parse_faults": "protocol_runner.sim.server",
    "running_server": "protocol_runner.sim.server",
}
__all__ = sorted(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
