"""The SAC paper's Erdős–Rényi graphs, as App. A draws them: one sampler for ``reproduce``, the
profile fits and the validation benchmarks.

App. A samples G(n, p) at ``p = (ln n + (r - 1) ln ln n) / n`` (Zhang, Fata and Sundaram 2015,
Thm. 3) and verifies r-robustness; :func:`er_robust` resamples per seed until a draw is proven
r-robust, up to :data:`ER_DRAWS` draws (never raising p), so every caller that names the same
(n, r, seed) runs on the same graph.

References
----------
Lee et al., "Robust Multi-Agent LLMs under Byzantine Faults", arXiv:2605.09076, 2026, App. A.
H. Zhang, E. Fata and S. Sundaram, "A notion of robustness in complex networks", IEEE TCNS 2(3),
2015, Thm. 3.
"""

from __future__ import annotations

import math

from robustgraph import generators
from robustgraph.errors import ParameterError
from robustgraph.topology import Topology

__all__ = ["ER_DRAWS", "er_probability", "er_robust"]

ER_DRAWS = 20000
"""Draws of G(n, p) allowed per seed before an ER graph is declared impossible (App. A)."""


def er_probability(n: int, r: int) -> float:
    """App. A's edge probability ``(ln n + (r - 1) ln ln n) / n`` (Zhang et al. 2015, Thm. 3).

    >>> round(er_probability(7, 4), 4)
    0.5633
    """
    return (math.log(n) + (r - 1) * math.log(math.log(n))) / n


def er_robust(n: int, r: int, seed: int, draws: int = ER_DRAWS) -> tuple[Topology, int]:
    """The first of up to ``draws`` draws of G(n, :func:`er_probability`) proven r-robust, with
    the number of draws it took.

    Raises
    ------
    ParameterError
        No draw was r-robust (the message names n, p, the draws and the seed).
    """
    try:
        sample = generators.erdos_renyi_robust(n, r, seed=seed, max_attempts=draws)
    except ParameterError:
        raise ParameterError(
            f"ER: no {r}-robust draw of G({n}, p={er_probability(n, r):.4f}) in {draws} "
            f"draws for seed {seed}; App. A samples at this p and verifies, so choose other "
            "seeds (no run was started)") from None
    return sample.topology, sample.attempts
