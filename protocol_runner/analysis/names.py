"""Display names for figures and tables: protocols, topologies and sweep axes as a reader
writes them (``SAC``, ``CP-WBFT``, ``gamma-MERG``, ``ER (r = 4)``), never internal spec strings.

The topology names follow the SAC paper's tables and Sec. 5 (Lee et al. 2026 [1]_:
"gamma-MERG", "complete", "Erdős–Rényi"); a generator spec of
:mod:`protocol_runner.run.topology_spec` (``er:r=4``, as recorded by a run with its node count:
``er:r=4 n=7``) becomes the family's name with its parameters; a graph file keeps its file name.

References
----------
.. [1] H. Lee, V.-D. Yun, H. Oh, D. Panagou and S. P. Karimireddy, "Robust Multi-Agent LLMs
   under Byzantine Faults", arXiv:2605.09076, 2026.
"""

from __future__ import annotations

from pathlib import PurePath

__all__ = ["FAMILY_NAMES", "PROTOCOL_NAMES", "axis_value", "protocol_name", "topology_name"]

PROTOCOL_NAMES = {
    "sac": "SAC",
    "cpwbft": "CP-WBFT",
    "crs": "CrS",
    "judge": "judge only",
    "crs-truth": "CrS, true reward",
    "crs-random": "CrS, random judge",
    "crs-biased": "CrS, biased judge",
    "majority": "majority",
    "debate": "debate",
}
"""Protocol keys (``--protocols``) and their names in figures and tables."""

FAMILY_NAMES = {
    "merg": "gamma-MERG",
    "complete": "complete",
    "er": "ER",
    "pa": "PA",
    "circulant": "circulant",
    "k-in": "k-in",
}
"""Generator families (``--topology``) and their names; ``ER`` is Erdős–Rényi G(n, p) and
``PA`` preferential attachment (LeBlanc et al. 2013)."""

_SHOWN = ("r", "s", "k", "p")
"""Spec options shown in a name, in this order (the seed and n are in the caption)."""


def protocol_name(key: str) -> str:
    """The display name of a protocol key; an unknown key is shown as it is.

    Examples
    --------
    >>> protocol_name("cpwbft"), protocol_name("my-protocol")
    ('CP-WBFT', 'my-protocol')
    """
    return PROTOCOL_NAMES.get(key, key)


def topology_name(source: str) -> str:
    """The display name of a run's topology: a generator spec by its family and parameters, a
    graph file by its file name, anything else as it is.

    Examples
    --------
    >>> topology_name("er:r=4 n=7"), topology_name("merg n=7"), topology_name("pa:r=3:s=2")
    ('ER (r = 4)', 'gamma-MERG', 'PA (r = 3, s = 2)')
    >>> topology_name("graphs/deployed.graphml"), topology_name("gamma-MERG")
    ('deployed.graphml', 'gamma-MERG')
    """
    text = source.strip()
    spec = text.split(" n=")[0] if " n=" in text else text
    family, *parts = spec.split(":")
    if family.lower() not in FAMILY_NAMES or " " in spec:
        return PurePath(text).name if "/" in text else text
    options = dict(part.partition("=")[::2] for part in parts)
    shown = [f"{key} = {options[key]}" for key in _SHOWN if options.get(key)]
    name = FAMILY_NAMES[family.lower()]
    return f"{name} ({', '.join(shown)})" if shown else name


def axis_value(axis: str, value: str) -> str:
    """A sweep axis and its value as a label: a topology or protocol by its display name,
    ``F = 2``, ``attack: collude``, others ``axis = value``.

    Examples
    --------
    >>> axis_value("topology", "er:r=4"), axis_value("F", "2"), axis_value("attack", "fixed")
    ('ER (r = 4)', 'F = 2', 'attack: fixed')
    """
    if axis == "topology":
        return topology_name(value)
    if axis == "protocol":
        return protocol_name(value)
    if axis == "attack":
        return f"attack: {value}"
    return f"{axis} = {value}"
