"""robustgraph: design, certify and run Byzantine-robust communication graphs.

Public names are re-exported here; see ``docs/index.md`` for a tour.
"""

__version__ = "0.1.0"

from robustgraph.errors import (  # noqa: E402
    BackendError,
    CertificateError,
    GraphFormatError,
    ParameterError,
    RobustgraphError,
    SolverUnavailable,
)
from robustgraph.lazy import lazy_exports  # noqa: E402
from robustgraph.topology import Topology  # noqa: E402

# Heavier entry points load on first use (PEP 562), so `import robustgraph` stays fast. A name
# that is also a submodule's (``design``: the function, and the subpackage defining it) keeps
# meaning the exported object after that submodule is imported (robustgraph/lazy.py).
_LAZY = {
    "io": ("read", "write"),
    "graphs": ("as_topology",),
    "robustness": (
        "max_r", "is_r_robust", "max_s", "is_rs_robust", "tolerances", "describe_witness",
    ),
    "certificate.certifier": ("certify",),
    "certificate.document": ("Certificate",),
    "certificate.claims": ("Claim",),
    "generators": ("generators",),
    "design.api": ("design", "DesignResult"),
    "design.augmentation": ("augment", "AugmentResult"),
}


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)

__all__ = [
    "__version__",
    "BackendError",
    "CertificateError",
    "GraphFormatError",
    "ParameterError",
    "RobustgraphError",
    "SolverUnavailable",
    "Topology",
    *(name for names in _LAZY.values() for name in names),
]
