"""Robustness certificates: claims about one graph, proven by exact engines, re-checkable by anyone.

A certificate binds to a graph by its content hash and records, for every claim, the questions put
to the engines, each engine's proven bounds and status, and a witness pair of node labels for every
upper bound. The parts, one job each:

- :mod:`~robustgraph.certificate.claims`: what can be claimed (:class:`Claim`);
- :mod:`~robustgraph.certificate.records`: runs, checks, claim records, the graph binding;
- :mod:`~robustgraph.certificate.witness`: witness pairs checked against the definitions;
- :mod:`~robustgraph.certificate.outcome`: how checks become verdicts (one definition, used by
  certify and verify alike);
- :mod:`~robustgraph.certificate.document`: the :class:`Certificate` document, its JSON and schema;
- :mod:`~robustgraph.certificate.certifier` and :mod:`~robustgraph.certificate.verifier`;
- :mod:`~robustgraph.certificate.batch`: many graph files at once, on a local pool or Ray.
"""

from robustgraph.lazy import lazy_exports

_NAMES = {
    "MODELS": "robustgraph.certificate.claims",
    "Claim": "robustgraph.certificate.claims",
    "WitnessPair": "robustgraph.certificate.records",
    "Run": "robustgraph.certificate.records",
    "Check": "robustgraph.certificate.records",
    "ClaimRecord": "robustgraph.certificate.records",
    "GraphInfo": "robustgraph.certificate.records",
    "aggregate": "robustgraph.certificate.records",
    "witness_problem": "robustgraph.certificate.witness",
    "witness_words": "robustgraph.certificate.witness",
    "VERDICTS": "robustgraph.certificate.outcome",
    "EXIT_CODES": "robustgraph.certificate.outcome",
    "trivial_upper": "robustgraph.certificate.outcome",
    "next_question": "robustgraph.certificate.outcome",
    "claim_outcome": "robustgraph.certificate.outcome",
    "overall_verdict": "robustgraph.certificate.outcome",
    "run_problems": "robustgraph.certificate.outcome",
    "conflict": "robustgraph.certificate.outcome",
    "FORMAT": "robustgraph.certificate.document",
    "SCHEMA_VERSION": "robustgraph.certificate.document",
    "InvalidCertificate": "robustgraph.certificate.document",
    "Certificate": "robustgraph.certificate.document",
    "schema": "robustgraph.certificate.document",
    "provenance": "robustgraph.certificate.document",
    "DEFAULT_ENGINES": "robustgraph.certificate.certifier",
    "EngineConflict": "robustgraph.certificate.certifier",
    "certify": "robustgraph.certificate.certifier",
    "VerifyReport": "robustgraph.certificate.verifier",
    "verify": "robustgraph.certificate.verifier",
}
__all__ = sorted(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
