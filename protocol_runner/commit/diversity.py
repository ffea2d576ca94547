"""Planning the diversity-forcing round that follows a correlated quorum.

After a correlated quorum the agents are re-asked, each with evidence no other agent sees, so
that agreement in the new round cannot come from one shared document.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from robustgraph.errors import ParameterError

__all__ = ["partition_evidence"]


def partition_evidence(agents: Sequence[str], evidence: Sequence[str], *,
                       seed: int = 0) -> dict[str, tuple[str, ...]]:
    """Deal the evidence items to the agents in pairwise disjoint shares.

    Parameters
    ----------
    agents : sequence of str
        Agents to re-ask, distinct.
    evidence : sequence of str
        Candidate evidence items (document ids, source URLs), distinct.
    seed : int
        Seed of the shuffle that decides who gets what.

    Returns
    -------
    dict of str to tuple of str
        Every agent's share; shares are disjoint and together hold all items. When there are
        fewer items than agents, the last agents in the shuffled order get an empty share and
        must answer without retrieved evidence (their votes then share one evidence hash).

    Raises
    ------
    ParameterError
        If agents or evidence items repeat.

    Examples
    --------
    >>> shares = partition_evidence(["a", "b"], ["d1", "d2", "d3"], seed=0)
    >>> sorted(x for share in shares.values() for x in share)
    ['d1', 'd2', 'd3']
    >>> set(shares["a"]) & set(shares["b"])
    set()
    """
    if len(set(agents)) != len(agents):
        raise ParameterError("partition_evidence: agents repeat")
    if len(set(evidence)) != len(evidence):
        raise ParameterError("partition_evidence: evidence items repeat")
    rng = np.random.default_rng(seed)
    items = [evidence[i] for i in rng.permutation(len(evidence))]
    order = [agents[i] for i in rng.permutation(len(agents))]
    shares: dict[str, list[str]] = {agent: [] for agent in agents}
    for k, item in enumerate(items):
        shares[order[k % len(order)]].append(item)
    return {agent: tuple(share) for agent, share in shares.items()}
