"""Minimal-edge design and augmentation of certified r-robust graphs.

``design(n, r)`` returns the sparsest r-robust graph the certified search finds (never more
edges than the preferential-attachment construction, nor than the gamma-MERG at r = ceil(n/2));
``augment(topology, r)`` adds the fewest edges it finds to make a deployed graph r-robust. Both
certify their output with the exact engines; ``prove_minimum(n, r, m)`` proves m edges the
fewest possible with a certificate ``verify`` re-checks. See ``docs/design.md``.
"""

from robustgraph.lazy import lazy_exports

_EXPORTS = {
    "api": ("DesignResult", "design"),
    "augmentation": ("AugmentResult", "Infeasible", "NotFound", "augment"),
    "bounds": ("construction_edges", "lower_bound", "reference_edges"),
    "common": ("certify_design",),
    "minimum": ("MinimumResult", "prove_minimum"),
}
__all__ = sorted(name for names in _EXPORTS.values() for name in names)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
