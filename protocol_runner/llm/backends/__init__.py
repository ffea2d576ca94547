"""LLM backends: ``simulated`` (embedded default) and ``openai`` (any compatible endpoint)."""

from protocol_runner.llm.backends.openai import OpenAIBackend
from protocol_runner.llm.backends.simulated import SimulatedBackend

__all__ = ["OpenAIBackend", "SimulatedBackend"]
