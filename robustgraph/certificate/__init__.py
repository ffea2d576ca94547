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

_EXPORTS = {
    "claims": ("MODELS", "Claim"),
    "records": ("WitnessPair", "Run", "Check", "ClaimRecord", "GraphInfo", "aggregate"),
    "witness": ("witness_problem", "witness_words"),
    "outcome": (
        "VERDICTS", "EXIT_CODES", "trivial_upper", "next_question", "claim_outcome",
        "overall_verdict", "run_problems", "conflict",
    ),
    "document": (
        "FORMAT", "SCHEMA_VERSION", "InvalidCertificate", "Certificate", "schema", "provenance",
    ),
    "certifier": ("DEFAULT_ENGINES", "EngineConflict", "certify"),
    "verifier": ("VerifyReport", "verify"),
}
__all__ = sorted(name for names in _EXPORTS.values() for name in names)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
