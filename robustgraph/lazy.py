"""Lazy public names for a package's ``__init__`` (PEP 562).

A package lists its public names in ``__all__`` and maps each to the module that defines it;
the module is imported on first access. So ``import robustgraph.certificate.claims`` does not
import the engines, and no package ``__init__`` can close an import loop between the modules
beneath it (tests/test_layout.py checks the module graph is acyclic).

Examples
--------
>>> __getattr__, __dir__ = lazy_exports("robustgraph", {"topology": ("Topology",)})
>>> __getattr__("Topology").__name__
'Topology'
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, exports: Mapping[str, Sequence[str]]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``, which exports ``exports[module]`` from each
    of its modules (a module path relative to ``package``), each imported on first access.

    A name resolves to the module's attribute of that name or, where the module has none, to
    the module itself (``{"io": ("io",)}`` exports the subpackage ``io``).
    """
    names = {name: f"{package}.{module}" for module, listed in exports.items() for name in listed}

    def __getattr__(name: str) -> Any:
        if name not in names:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(names[name])
        return getattr(module, name, module)

    def __dir__() -> list[str]:
        return sorted(names)

    __getattr__.names = dict(names)  # type: ignore[attr-defined]  # for tests/test_layout.py
    return __getattr__, __dir__
