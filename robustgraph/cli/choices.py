"""Option choices and defaults the command modules show in ``--help``, with no heavy import.

``robustgraph CMD --help`` must not load numpy, rich or a solver (issue 33): the modules that
own these values import them at module level, so the command modules take them from here and
import the implementation inside the command body. Each value is a copy pinned equal to its
owner by tests/test_startup.py (``test_help_choices_equal_the_implementation``).
"""

from __future__ import annotations

__all__ = ["DEFAULT_ENGINES", "GENERATE_ENGINE", "PROOF_MODES", "EXECUTORS"]

DEFAULT_ENGINES = ("portfolio",)
"""``robustgraph.certificate.certifier.DEFAULT_ENGINES``: certify's, design's and augment's
``--engines`` default."""

GENERATE_ENGINE = "portfolio"
"""``robustgraph.generators.DEFAULT_ENGINE``: the engine proving each ``er --r`` draw."""

PROOF_MODES = ("auto", "theorem", "construction", "exhaustive", "lrat", "coretree", "none")
"""``robustgraph.certificate.proofs.prover.MODES``: certify's ``--proof`` choices."""

EXECUTORS = ("local", "ray")
"""``robustgraph.executors.EXECUTORS``: ``certify --batch``'s ``--executor`` choices."""
