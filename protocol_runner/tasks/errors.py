"""The error a malformed task file or task value raises: one line naming the file and line."""

from robustgraph.errors import RobustgraphError

__all__ = ["TaskFormatError"]


class TaskFormatError(RobustgraphError, ValueError):
    """A task file or task record is malformed; the message names the file, line and field.

    It is also a ``ValueError``, so code that validates ``Task`` values generically keeps working.
    """
