"""Minimal-edge design and augmentation of certified r-robust graphs.

``design(n, r)`` returns the sparsest r-robust graph the certified search finds (never more
edges than the preferential-attachment construction, nor than the gamma-MERG at r = ceil(n/2));
``augment(topology, r)`` adds the fewest edges it finds to make a deployed graph r-robust. Both
certify their output with the exact engines. See ``docs/design.md``.
"""

from robustgraph.design.api import DesignResult, design
from robustgraph.design.augment import AugmentResult, Infeasible, NotFound, augment
from robustgraph.design.bounds import construction_edges, lower_bound, reference_edges
from robustgraph.design.common import certify_design

__all__ = [
    "AugmentResult",
    "DesignResult",
    "Infeasible",
    "NotFound",
    "augment",
    "certify_design",
    "construction_edges",
    "design",
    "lower_bound",
    "reference_edges",
]
