"""Proof objects for the lower bounds of a certificate, and their small, solver-free checkers.

- :mod:`~robustgraph.certificate.proofs.exhaustive`: recomputation by subset enumeration;
- :mod:`~robustgraph.certificate.proofs.theorem`: recognised families with published theorems;
- :mod:`~robustgraph.certificate.proofs.construction`: orderings (LeBlanc et al. 2013, Thm. 5);
- :mod:`~robustgraph.certificate.proofs.cnf` and :mod:`~robustgraph.certificate.proofs.lrat`:
  the CNF the verifier regenerates and the LRAT checker of its refutation;
- :mod:`~robustgraph.certificate.proofs.tree_check` and
  :mod:`~robustgraph.certificate.proofs.tree_make`: core-tree certificates (the core search's
  tree, replayed rule by rule) and their maker (issue 40, round 7);
- :mod:`~robustgraph.certificate.proofs.checker`: one entry point over the kinds;
- :mod:`~robustgraph.certificate.proofs.minimality` and
  :mod:`~robustgraph.certificate.proofs.minimum_report`: minimality certificates of designs (no
  r-robust graph on n nodes has fewer than L edges), checked by ``verify`` (issue 43);
- :mod:`~robustgraph.certificate.proofs.prover` and :mod:`~robustgraph.certificate.proofs.sat`:
  the certifier's side (finding proofs; the SAT solver), never used by ``verify``.
"""

from robustgraph.lazy import lazy_exports

_EXPORTS = {
    "checker": ("KINDS", "ProofError", "ProofCheck", "View", "check_proof", "target"),
    "prover": ("MODES", "prove"),
}
__all__ = sorted(name for names in _EXPORTS.values() for name in names)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
