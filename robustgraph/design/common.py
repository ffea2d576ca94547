"""What design and augmentation share: the bitmask <-> Topology conversions of the search, and
the certificate of the claim a design was made for."""

from __future__ import annotations

from collections.abc import Callable

from robustgraph.certificate.certifier import DEFAULT_ENGINES, certify
from robustgraph.certificate.claims import Claim
from robustgraph.certificate.document import Certificate
from robustgraph.topology import Topology

__all__ = ["certify_design", "from_topology", "to_topology"]


def to_topology(masks: list[int], directed: bool, labels: tuple | None = None) -> Topology:
    """A Topology from in-neighbour bitmasks (labels default to 0..n-1)."""
    ins = [[j for j in range(len(masks)) if m >> j & 1] for m in masks]
    return Topology.from_in_neighbors(ins, directed=directed, labels=labels)


def from_topology(topology: Topology) -> list[int]:
    """In-neighbour bitmasks of a Topology, in its node order."""
    return list(topology.in_masks)


def certify_design(
    topology: Topology,
    r: int,
    s: int = 1,
    *,
    engines: str | tuple[str, ...] = DEFAULT_ENGINES,
    time_limit: float | None = None,
    progress: Callable[[str], None] | None = None,
) -> Certificate:
    """Certify the claim the design was made for: r-robust, or (r, s)-robust when s > 1."""
    claim = Claim.r_robust(r) if s == 1 else Claim.rs_robust(r, s)
    return certify(topology, claim, engines=engines, time_limit=time_limit, progress=progress)
