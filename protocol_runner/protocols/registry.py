"""``PROTOCOLS``: each name ``robustgraph run --protocols`` accepts, mapped to its class.

``sac`` (Self-Anchored Consensus), ``cpwbft``, ``crs`` (credibility scoring), ``judge`` (the
judge-only control of CrS), ``crs-truth``, ``crs-random`` and ``crs-biased`` (CrS with a
ground-truth reward, a random judge, a biased judge: controls), ``majority`` (vote without
communication) and ``debate``.
"""

from __future__ import annotations

from protocol_runner.protocols.cpwbft import CPWBFT
from protocol_runner.protocols.crs import CrS, CrSBiased, CrSRandom, CrSTruth, JudgeOnly
from protocol_runner.protocols.debate import Debate
from protocol_runner.protocols.engine import Protocol
from protocol_runner.protocols.majority import Majority
from protocol_runner.protocols.sac import SAC

__all__ = ["PROTOCOLS"]

PROTOCOLS: dict[str, type[Protocol]] = {
    cls.name: cls
    for cls in (SAC, CPWBFT, CrS, JudgeOnly, CrSTruth, CrSRandom, CrSBiased, Majority, Debate)
}
