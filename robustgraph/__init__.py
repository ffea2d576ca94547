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
from robustgraph.topology import Topology  # noqa: E402

# Heavier entry points load on first use (PEP 562), so `import robustgraph` stays fast.
_LAZY = {
    "read": "robustgraph.io",
    "write": "robustgraph.io",
    "max_r": "robustgraph.robustness",
    "is_r_robust": "robustgraph.robustness",
    "max_s": "robustgraph.robustness",
    "is_rs_robust": "robustgraph.robustness",
    "tolerances": "robustgraph.robustness",
    "describe_witness": "robustgraph.robustness",
    "certify": "robustgraph.certificate",
    "Certificate": "robustgraph.certificate",
    "Claim": "robustgraph.certificate",
    "generators": "robustgraph.generators",
}


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'robustgraph' has no attribute {name!r}")
    import importlib

    module = importlib.import_module(_LAZY[name])
    return module if module.__name__.endswith("." + name) else getattr(module, name)

__all__ = [
    "__version__",
    "BackendError",
    "CertificateError",
    "GraphFormatError",
    "ParameterError",
    "RobustgraphError",
    "SolverUnavailable",
    "Topology",
    *_LAZY,
]
