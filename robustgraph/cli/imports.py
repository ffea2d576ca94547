"""Start-up paid only when used: igraph without its matplotlib drawing backend in the program.

igraph (0.11 to 1.0) imports ``igraph.drawing`` from its ``__init__``, and the drawing modules
call ``igraph.drawing.matplotlib.utils.find_matplotlib`` at import time, which imports
``matplotlib`` and ``matplotlib.pyplot`` whenever matplotlib is installed: about 0.4 s of a
0.5 s ``import igraph`` (measured in docs/install.md), paid by every GraphML, GML, Pajek or LGL
read although the program never draws with igraph (our figures use matplotlib directly).
``find_matplotlib`` falls back to a stand-in when ``import matplotlib`` raises ``ImportError``,
and there is no igraph setting for it.

:func:`igraph_without_drawing` makes igraph's first import in the ``robustgraph`` program take
that fall-back: while igraph's own module runs, ``sys.modules["matplotlib"]`` is ``None`` (so
the import raises ``ImportError``); afterwards it is removed again, so our own figures import
matplotlib as usual. A process that has already imported matplotlib or igraph is left as it is.
Only the program (:func:`robustgraph.cli.main.run`) does this: in a user's own Python session,
``import robustgraph`` leaves igraph's plotting untouched.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType

__all__ = ["igraph_without_drawing"]

_BLOCKED = "matplotlib"


class _Loader(importlib.abc.Loader):
    """igraph's own loader, with matplotlib unimportable while igraph's ``__init__`` runs."""

    def __init__(self, loader: importlib.abc.Loader) -> None:
        self.loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        if _BLOCKED in sys.modules:  # imported since: nothing to save
            self.loader.exec_module(module)
            return
        sys.modules[_BLOCKED] = None  # type: ignore[assignment]
        try:
            self.loader.exec_module(module)
        finally:
            if sys.modules.get(_BLOCKED, 0) is None:
                del sys.modules[_BLOCKED]


class _Finder(importlib.abc.MetaPathFinder):
    """Finds igraph the usual way once, and hands it :class:`_Loader`; then steps aside."""

    def find_spec(self, name, path=None, target=None):  # noqa: ANN001 - the finder protocol
        if name != "igraph":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.loader is not None:
            spec.loader = _Loader(spec.loader)
        return spec


def igraph_without_drawing() -> None:
    """Make igraph's first import skip matplotlib (see the module); a no-op once either is
    imported or when this was already arranged."""
    if "igraph" in sys.modules or _BLOCKED in sys.modules:
        return
    if not any(isinstance(finder, _Finder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
