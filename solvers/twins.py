"""Twin classes: nodes that any automorphism-respecting argument may treat as interchangeable.

Two nodes i and j are *twins* when swapping them is an automorphism of the digraph: they hear
the same nodes and are heard by the same nodes apart from each other, and the arcs between them
go both ways or neither way. Twins come in classes that are either independent (no arc inside,
"open" twins: equal in- and out-neighbourhoods) or complete (every arc inside, "closed" twins:
equal neighbourhoods once each node counts itself). Within a class, only *how many* members a
set contains matters to every reachability count, so a robustness model may replace the
members' indicators by one integer count per class (``solvers.milp_model``). Dense cores of
gamma-MERGs, complete and complete multipartite graphs and star leaves collapse to a handful of
classes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["TwinClass", "twin_classes", "twin_groups"]


@dataclass(frozen=True)
class TwinClass:
    """A class of pairwise twins: its members (increasing), and whether it is a complete clique.

    ``hears`` lists the other classes whose members every member hears (a member of a complete
    class also hears the rest of its own class, which ``hears`` does not list).
    """

    members: tuple[int, ...]
    complete: bool
    hears: tuple[int, ...]

    @property
    def size(self) -> int:
        return len(self.members)


def twin_classes(in_neighbors: Sequence[frozenset[int]]) -> list[TwinClass]:
    """Partition the nodes into twin classes (singletons for nodes without a twin).

    Classes are ordered by their smallest member. A node belongs to at most one nontrivial class:
    if i had an open twin j and a closed twin k, then k would hear i but not j (undirected case;
    the directed one is alike), contradicting that j and i hear the same nodes.

    Examples
    --------
    >>> star = [frozenset({1, 2, 3}), frozenset({0}), frozenset({0}), frozenset({0})]
    >>> [(c.members, c.complete, c.hears) for c in twin_classes(star)]
    [((0,), False, (1,)), ((1, 2, 3), False, (0,))]

    Notes
    -----
    O(n + m) set operations (hashing each node's in- and out-neighbourhood twice).
    """
    n = len(in_neighbors)
    in_masks = [sum(1 << j for j in nbrs) for nbrs in in_neighbors]
    out_masks = [0] * n
    for i, nbrs in enumerate(in_neighbors):
        for j in nbrs:
            out_masks[j] |= 1 << i
    owner = list(range(n))  # class representative (smallest member) of each node
    complete = [False] * n
    for group, closed in twin_groups(in_masks, out_masks):
        members = [i for i in range(n) if group >> i & 1]
        for i in members:
            owner[i] = members[0]
        complete[members[0]] = closed
    reps = sorted(set(owner))
    position = {rep: k for k, rep in enumerate(reps)}
    members_of: list[list[int]] = [[] for _ in reps]
    for i in range(n):
        members_of[position[owner[i]]].append(i)
    classes = []
    for k, rep in enumerate(reps):
        heard = {position[owner[j]] for j in in_neighbors[rep]} - {k}
        classes.append(TwinClass(tuple(members_of[k]), complete[rep], tuple(sorted(heard))))
    return classes


def twin_groups(in_masks: Sequence[int], out_masks: Sequence[int]) -> list[tuple[int, bool]]:
    """The twin classes with two or more members, as ``(bitmask, complete)`` pairs.

    ``in_masks[i]`` and ``out_masks[i]`` are bitmasks of node i's in- and out-neighbours. Each
    node is hashed twice: by its open neighbourhoods (twins not joined to each other) and by its
    closed ones (each node counting itself: twins joined both ways); equal keys are twins.
    """
    groups: dict[tuple[int, int, bool], int] = {}
    for i, (ins, outs) in enumerate(zip(in_masks, out_masks, strict=True)):
        for closed in (False, True):
            me = (1 << i) if closed else 0
            key = (ins | me, outs | me, closed)
            groups[key] = groups.get(key, 0) | (1 << i)
    return [
        (members, closed) for (_, _, closed), members in groups.items() if members & (members - 1)
    ]
