"""Consensus protocols among LLM agents on a graph: SAC and its baselines, on one round engine.

``PROTOCOLS`` maps each name accepted by ``robustgraph run --protocols`` to its class:
``sac`` (Self-Anchored Consensus), ``cpwbft``, ``crs`` (credibility scoring), ``judge`` (the
judge-only control of CrS), ``majority`` (vote without communication) and ``debate``.
"""

from protocol_runner.protocols.cpwbft import CPWBFT
from protocol_runner.protocols.crs import CrS, CrSConfig, JudgeOnly
from protocol_runner.protocols.debate import Debate
from protocol_runner.protocols.engine import (
    EngineConfig,
    Network,
    Outcome,
    Protocol,
    QueryContext,
    Reply,
)
from protocol_runner.protocols.majority import Majority
from protocol_runner.protocols.sac import SAC

__all__ = [
    "CPWBFT",
    "PROTOCOLS",
    "SAC",
    "CrS",
    "CrSConfig",
    "Debate",
    "EngineConfig",
    "JudgeOnly",
    "Majority",
    "Network",
    "Outcome",
    "Protocol",
    "QueryContext",
    "Reply",
]

PROTOCOLS: dict[str, type[Protocol]] = {
    cls.name: cls for cls in (SAC, CPWBFT, CrS, JudgeOnly, Majority, Debate)
}
