"""Run consensus protocols (SAC and baselines) among LLM agents on certified topologies.

The parts, one package each: ``run`` (the runner and what a run is made of), ``protocols``, ``llm``,
``sim``, ``commit``, ``analysis``, ``sweep``, ``tasks`` and ``cli``; see docs/index.md,
"Architecture".
"""

__all__: list[str] = []
