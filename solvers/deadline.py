"""One wall-clock deadline for a whole command or call, shared by every step in it.

DESIGN.md: a time limit is a deadline for the whole command or call, never per step. A caller
makes one :class:`Deadline` from the limit it was given and hands each solve what is left
(``Deadline.left``); a step that would start after the deadline is not started.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

__all__ = ["Deadline"]


@dataclass(frozen=True)
class Deadline:
    """The moment (``time.perf_counter``) by which the work must end, or None for no limit.

    Examples
    --------
    >>> Deadline.after(None).left() is None
    True
    >>> 0 < Deadline.after(5.0).left() <= 5.0
    True
    """

    at: float | None

    @classmethod
    def after(cls, seconds: float | None, *, since: float | None = None) -> Deadline:
        """The deadline ``seconds`` after ``since`` (a ``time.perf_counter`` reading; default
        now), or no limit when ``seconds`` is None. A command passes the moment it started,
        so that its own start-up (imports: seconds on a busy machine) counts too."""
        if seconds is None:
            return cls(None)
        return cls((time.perf_counter() if since is None else since) + seconds)

    def left(self) -> float | None:
        """Seconds left (at least 0), or None without a limit."""
        if self.at is None:
            return None
        return max(0.0, self.at - time.perf_counter())

    def passed(self) -> bool:
        """True once the deadline is reached."""
        return self.at is not None and time.perf_counter() >= self.at
