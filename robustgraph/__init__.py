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

__all__ = [
    "__version__",
    "BackendError",
    "CertificateError",
    "GraphFormatError",
    "ParameterError",
    "RobustgraphError",
    "SolverUnavailable",
    "Topology",
]
