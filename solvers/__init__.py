"""Exact r- and (r,s)-robustness engines behind one request/result interface.

``solvers`` knows nothing of ``robustgraph`` or LLMs: a graph is anything with ``in_neighbors``
(index sets) and ``directed``.
"""

from solvers.errors import ParameterError, RobustgraphError, SolverUnavailable
from solvers.types import GraphLike, Question, Request, Result, Status, Witness
from solvers.witness import reach, reachable_nodes, refutes_r, refutes_rs

__all__ = [
    "GraphLike",
    "ParameterError",
    "Question",
    "Request",
    "Result",
    "RobustgraphError",
    "SolverUnavailable",
    "Status",
    "Witness",
    "reach",
    "reachable_nodes",
    "refutes_r",
    "refutes_rs",
]
