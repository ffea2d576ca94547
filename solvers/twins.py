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

__all__ = ["TwinClass", "twin_classes"]


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
    outs: list[set[int]] = [set() for _ in range(n)]
    for i, nbrs in enumerate(in_neighbors):
        for j in nbrs:
            outs[j].add(i)
    groups: dict[tuple[frozenset[int], frozenset[int], bool], list[int]] = {}
    for i in range(n):
        for closed in (False, True):
            me = frozenset({i}) if closed else frozenset()
            key = (in_neighbors[i] | me, frozenset(outs[i]) | me, closed)
            groups.setdefault(key, []).append(i)
    owner = list(range(n))  # class representative (smallest member) of each node
    complete = [False] * n
    for (_, _, closed), members in groups.items():
        if len(members) > 1:
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
