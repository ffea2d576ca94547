"""Option choices and defaults protocol_runner's commands show in ``--help``, with no heavy
import.

``robustgraph CMD --help`` must not load numpy, aiohttp, cryptography or yaml (issue 33): the
modules that own these values import them at module level, so the command modules take them
from here and import the implementation inside the command body. Each value is a copy pinned
equal to its owner by tests/test_startup.py (``test_help_choices_equal_the_implementation``).
"""

from __future__ import annotations

__all__ = [
    "ATTACKS", "BACKENDS", "CONTRIBUTIONS", "DEFAULT_OOD_POOL", "FAMILIES", "KEYRING_FILE",
    "PLACEMENTS", "PROTOCOLS",
]

KEYRING_FILE = "keyring.json"
"""``protocol_runner.commit.keyring.KEYRING_FILE``: ``ledger resolve``'s ``--keyring`` default."""

ATTACKS = (
    "fixed", "fixed-literal", "fixed-same", "fixed-ref", "collude", "equivocate",
    "echo-then-flip", "inject", "silent",
)  # fmt: skip
"""``protocol_runner.protocols.attacks.ATTACKS``: named in ``run --attack``'s help."""

DEFAULT_OOD_POOL = "auto"
"""``protocol_runner.protocols.attacks.DEFAULT_OOD_POOL``: ``run --ood-tasks``'s default."""

CONTRIBUTIONS = ("shapley", "judge")
"""``protocol_runner.protocols.crs.CONTRIBUTIONS``: ``run --contributions``' choices."""

PLACEMENTS = ("random", "degree", "labels")
"""``protocol_runner.run.roster.PLACEMENTS``: ``run --placement``'s choices."""

FAMILIES = ("complete", "merg", "circulant", "pa", "k-in", "er")
"""The keys of ``protocol_runner.run.topology_spec.FAMILIES``: named in ``run --topology``'s
help."""

BACKENDS = ("simulated", "openai")
"""``protocol_runner.run.runner.BACKENDS``: ``run`` and ``reproduce``'s ``--backend``
choices."""

PROTOCOLS = ("sac", "cpwbft", "crs", "judge", "crs-truth", "crs-random", "crs-biased", "majority",
             "debate")
"""The keys of ``protocol_runner.protocols.registry.PROTOCOLS``: named in ``run --protocols``'
help."""
