"""Lazy public names for a package's ``__init__`` (PEP 562) that no submodule import can replace.

A package lists its public names in ``__all__`` and maps each to the module that defines it;
the module is imported on first access. So ``import robustgraph.certificate.claims`` does not
import the engines, and no package ``__init__`` can close an import loop between the modules
beneath it (tests/test_layout.py checks the module graph is acyclic).

A lazily exported name may equal the name of a submodule: ``robustgraph.design`` is the
function :func:`robustgraph.design.api.design` and also the subpackage that defines it. Python's
import system binds every imported submodule as an attribute of its parent package, which would
replace the exported function by the subpackage the first time anything imports it
(``rg.design(n=10, r=3)`` then raised "'module' object is not callable"). :func:`lazy_exports`
therefore gives the package a module class that refuses exactly that binding: the exported name
keeps meaning the exported object, whatever was imported before. The subpackage stays reachable
the usual ways (``from robustgraph.design import augment``, ``importlib.import_module``).

Examples
--------
>>> __getattr__, __dir__ = lazy_exports("robustgraph", {"topology": ("Topology",)})
>>> __getattr__("Topology").__name__
'Topology'
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any

__all__ = ["lazy_exports"]

_KEPT: dict[str, set[str]] = {}
"""Per package: the lazily exported names a same-named submodule may not replace."""


class _ExportingPackage(ModuleType):
    """A package whose lazily exported names are not rebound to same-named submodules."""

    def __setattr__(self, name: str, value: Any) -> None:
        submodule = f"{self.__name__}.{name}"
        if (
            isinstance(value, ModuleType)
            and value.__name__ == submodule
            and name in _KEPT.get(self.__name__, ())
        ):
            return  # the import system binding a submodule: the export decides what name means
        super().__setattr__(name, value)


def lazy_exports(
    package: str, exports: Mapping[str, Sequence[str]]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``, which exports ``exports[module]`` from each
    of its modules (a module path relative to ``package``), each imported on first access.

    A name resolves to the module's attribute of that name or, where the module has none, to
    the module itself (``{"io": ("io",)}`` exports the subpackage ``io``). When ``package`` is
    loaded (it calls this from its ``__init__``), its module gets a class that keeps every
    exported name from being rebound to a submodule of the same name (see the module notes).
    """
    names = {name: f"{package}.{module}" for module, listed in exports.items() for name in listed}
    _KEPT.setdefault(package, set()).update(names)
    loaded = sys.modules.get(package)
    if loaded is not None and type(loaded) is ModuleType:
        loaded.__class__ = _ExportingPackage
        for name in names:  # a submodule already bound (imported before this call) gives way
            if getattr(loaded.__dict__.get(name), "__name__", None) == f"{package}.{name}":
                del loaded.__dict__[name]

    def __getattr__(name: str) -> Any:
        if name not in names:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(names[name])
        return getattr(module, name, module)

    def __dir__() -> list[str]:
        return sorted(names)

    __getattr__.names = dict(names)  # type: ignore[attr-defined]  # for tests/test_layout.py
    return __getattr__, __dir__
