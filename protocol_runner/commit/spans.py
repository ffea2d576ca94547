"""How many groups a set of votes still spans after any f of them are taken away.

The gate's diversity tests count independence units and evidence hashes among the agreeing
votes. Counted over all agreeing votes, a Byzantine voter can supply the missing unit (it
declares infrastructure of its own) or the missing hash (it fabricates evidence). Counted after
the worst removal of f votes, they cannot: whichever f voters are Byzantine, the honest
agreeing votes alone still span what the test asks (docs/commit-gate.md, "The unit rule").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable

from robustgraph.errors import ParameterError

__all__ = ["robust_span"]


def robust_span(groups: Iterable[Hashable], f: int) -> int:
    """The fewest distinct groups left when any ``f`` of the items are removed.

    Parameters
    ----------
    groups : iterable of hashable
        The group of each item (one item per agreeing vote: its voter's unit, or its evidence
        hash).
    f : int
        Items an adversary may remove (the Byzantine voters the gate tolerates), ``>= 0``.

    Returns
    -------
    int
        ``min over R, |R| <= f, of |{group(x) : x not in R}|``.

    Notes
    -----
    A removal lowers the count only when it takes a group's last item, so a worst removal
    takes whole groups, and taking the smallest ones first is optimal (exchange argument:
    swapping a taken group for a smaller untaken one never needs more removals). O(k log k)
    for k groups.

    Examples
    --------
    >>> robust_span(["S", "S", "S", "W", "A"], 1)  # the adversary's own unit is removable
    2
    >>> robust_span(["S", "S", "S", "W", "A"], 2)
    1
    >>> robust_span([], 0)
    0
    """
    if not isinstance(f, int) or isinstance(f, bool) or f < 0:
        raise ParameterError(f"f must be a non-negative integer, got {f!r}")
    sizes = sorted(Counter(groups).values())
    budget, taken = f, 0
    for size in sizes:
        if size > budget:
            break
        budget -= size
        taken += 1
    return len(sizes) - taken
