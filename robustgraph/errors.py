"""The package's exception family: every error a user can cause is one of these.

The CLI turns any ``RobustgraphError`` into one line on stderr and the exit code the class names
(2: usage or input error), never a traceback. The root class lives in ``solvers.errors`` so that
the engines, which must not import this package, raise members of the same family.
"""

from solvers.errors import ParameterError, RobustgraphError, SolverUnavailable

__all__ = [
    "RobustgraphError",
    "GraphFormatError",
    "ParameterError",
    "SolverUnavailable",
    "BackendError",
    "CertificateError",
]


class GraphFormatError(RobustgraphError):
    """A graph file or graph object is malformed, unsupported or violates the Topology rules."""


class BackendError(RobustgraphError):
    """An LLM backend failed beyond what retries fix (unreachable endpoint, unknown model)."""


class CertificateError(RobustgraphError):
    """A certificate is malformed, does not match its graph, or does not prove what it claims."""
