"""Root of robustgraph's exception family, kept in the bottom layer so every package shares it.

``robustgraph.errors`` re-exports these names and adds the graph-level subclasses.
"""

__all__ = ["RobustgraphError", "ParameterError", "SolverUnavailable"]


class RobustgraphError(Exception):
    """Base class of every error robustgraph raises on purpose.

    ``exit_code`` is what the CLI exits with: 2 means a usage or input error.
    """

    exit_code = 2


class ParameterError(RobustgraphError, ValueError):
    """A parameter is out of range or impossible (e.g. r larger than n allows)."""


class SolverUnavailable(RobustgraphError):
    """A requested engine is not installed or refuses the instance (e.g. n above its limit)."""
