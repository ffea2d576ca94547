"""Run consensus protocols (SAC and baselines) among LLM agents on certified topologies.

The parts, one package each: ``run`` (the runner and what a run is made of), ``protocols``, ``llm``,
``sim``, ``commit``, ``analysis``, ``sweep``, ``tasks`` and ``cli``; see docs/index.md,
"Architecture". From Python, :func:`run_protocols` (``protocol_runner.api``) makes the run of
``robustgraph run`` in one call.
"""

from robustgraph.lazy import lazy_exports

_EXPORTS = {"api": ("ProtocolRun", "run_protocols")}
__all__ = sorted(name for names in _EXPORTS.values() for name in names)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
