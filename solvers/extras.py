"""The optional packages of robustgraph, the extra that installs each, and the one-line error
a user gets when one is missing (``... pip install 'robustgraph[dot]'``).

The default install does the three jobs on the embedded defaults (design; certify with the
engines the portfolio needs: the core search, the subset DP and HiGHS; run, ``reproduce`` and
``report`` on the simulated agents). Each extra serves one further job, as networkx's and
Ray's extras do (docs/install.md):

========== ======================= ============================================
extra      packages                for
========== ======================= ============================================
dot        pygraphviz              reading DOT files (Graphviz's own parser)
mtx        scipy                   reading Matrix Market files (``.mtx``)
calibrate  scipy                   ``robustgraph calibrate`` (fitting the simulator)
datasets   pyarrow                 Parquet task files
solvers    ortools, pulp           the ``cpsat`` and ``cbc`` engines (and the race)
proofs     python-sat              LRAT proofs of lower bounds (``--proof lrat``)
distributed ray                    ``--executor ray``
========== ======================= ============================================

This module sits in the bottom package so that every layer names extras the same way.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from solvers.errors import RobustgraphError

__all__ = [
    "ENGINE_PACKAGES", "EXTRAS", "MissingExtra", "extra_of", "install_hint", "missing", "require"
]

EXTRAS = {
    "pygraphviz": "dot",
    "pyarrow": "datasets",
    "ortools": "solvers",
    "pulp": "solvers",
    "pysat": "proofs",
    "pysolvers": "proofs",
    "ray": "distributed",
    "scipy": "mtx",
}
"""Top-level module name -> the extra that installs it."""

ENGINE_PACKAGES = {"cpsat": "ortools", "cbc": "pulp"}
"""Engines of :mod:`solvers.registry` that need an extra's package."""


class MissingExtra(RobustgraphError, ImportError):
    """An optional package is not installed; the message names the extra that installs it."""


def extra_of(module: str) -> str | None:
    """The extra that installs ``module`` (a dotted name is looked up by its top package).

    Examples
    --------
    >>> extra_of("pyarrow.parquet"), extra_of("numpy")
    ('datasets', None)
    """
    return EXTRAS.get(module.partition(".")[0])


def install_hint(extra: str) -> str:
    """The command that installs ``extra``.

    Examples
    --------
    >>> install_hint("dot")
    "pip install 'robustgraph[dot]'"
    """
    return f"pip install 'robustgraph[{extra}]'"


def missing(module: str, what: str, extra: str | None = None) -> MissingExtra:
    """The error for ``what`` needing ``module``, which is not installed; ``extra`` names the
    extra to install where a module serves several (scipy: ``mtx`` and ``calibrate``).

    Examples
    --------
    >>> print(missing("pygraphviz", "reading DOT files"))
    reading DOT files needs pygraphviz, which is not installed: pip install 'robustgraph[dot]'
    """
    extra = extra or extra_of(module)
    how = install_hint(extra) if extra else f"pip install {module.partition('.')[0]}"
    return MissingExtra(f"{what} needs {module.partition('.')[0]}, which is not installed: {how}")


def require(module: str, what: str, extra: str | None = None) -> ModuleType:
    """``module``, imported; :class:`MissingExtra` naming its extra (or ``extra``) when it is
    not installed.

    Raises
    ------
    MissingExtra
        ``module`` (or a package it needs) cannot be imported.
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        raise missing(module, what, extra) from None
