"""Generator specs for ``robustgraph run --topology``: a family name with its parameters.

Grammar: ``FAMILY[:key=value]...`` with the node count given separately (``--n``)::

    complete | merg | circulant:k=K | pa:r=R[:s=S][:seed=X] | k-in:k=K[:seed=X]
    er:p=P[:seed=X] | er:r=R[:seed=X]      (plain G(n, p), or drawn until proven r-robust)

Random families default to the run's seed. The constructions and their theorems are those of
:mod:`robustgraph.generators`.
"""

from __future__ import annotations

from robustgraph import generators as gen
from robustgraph.errors import ParameterError
from robustgraph.topology import Topology

__all__ = ["FAMILIES", "build_topology"]

FAMILIES = {
    "complete": set(),
    "merg": set(),
    "circulant": {"k"},
    "pa": {"r", "s", "seed"},
    "k-in": {"k", "seed"},
    "er": {"p", "r", "seed"},
}
_FLOATS = {"p"}


def _options(spec: str) -> tuple[str, dict[str, float | int]]:
    family, *parts = spec.strip().lower().split(":")
    if family not in FAMILIES:
        raise ParameterError(
            f"topology {spec!r}: unknown family {family!r}; expected one of {', '.join(FAMILIES)}"
        )
    options: dict[str, float | int] = {}
    for part in parts:
        key, eq, value = part.partition("=")
        if not eq or key not in FAMILIES[family]:
            allowed = ", ".join(sorted(FAMILIES[family])) or "no options"
            raise ParameterError(f"topology {spec!r}: {family} takes {allowed}, got {part!r}")
        try:
            options[key] = float(value) if key in _FLOATS else int(value)
        except ValueError:
            message = f"topology {spec!r}: {key} must be a number, got {value!r}"
            raise ParameterError(message) from None
    return family, options


def _need(family: str, options: dict[str, float | int], key: str) -> int:
    if key not in options:
        raise ParameterError(f"topology {family} needs {key}=..., e.g. {family}:{key}=2")
    return int(options[key])


def build_topology(spec: str, n: int, *, seed: int = 0) -> Topology:
    """The graph a generator spec names, on nodes ``0..n-1``.

    Examples
    --------
    >>> build_topology("merg", 7).m
    18
    >>> build_topology("circulant:k=2", 8).m
    16

    Raises
    ------
    ParameterError
        Unknown family, missing or unknown option, impossible parameters.
    """
    family, options = _options(spec)
    seed = int(options.get("seed", seed))
    if family == "complete":
        return gen.complete(n)
    if family == "merg":
        return gen.gamma_merg(n)
    if family == "circulant":
        return gen.k_circulant(n, _need(family, options, "k"))
    if family == "pa":
        s = int(options.get("s", 1))
        return gen.preferential_attachment(n, _need(family, options, "r"), s, seed=seed)
    if family == "k-in":
        return gen.random_k_in(n, _need(family, options, "k"), seed=seed)
    if ("p" in options) == ("r" in options):
        raise ParameterError("topology er needs exactly one of p=P (plain) or r=R (proven robust)")
    if "p" in options:
        return gen.erdos_renyi(n, float(options["p"]), seed=seed)
    graph, _ = gen.erdos_renyi_robust(n, int(options["r"]), seed=seed)
    return graph
